"""The player view at real size on a table display: a cell its physical size on the players' screen,
calibrated per screen with a ruler, and the GM's frame that moves what the players see.

Measured on the player view's own pixels (offscreen): the grid lines are found in a row of a grab.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, QSettings, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.map.players_frame import FRAME_COLOR, PlayersFrame
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.plumbing.theme import Presentation
from lnl_desktop.ui.window import table_display as td
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView
from lnl_desktop.ui.window.recovery import RecoveryStore

Opener = Callable[[Encounter | None], MainWindow]


def bare_table() -> Encounter:
    """A 30 x 20 map with nothing on it: the grid lines are all a grab shows."""
    return get_ruleset("lnl").new_encounter(name="Bare table", map={"width": 30, "height": 20})


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def open_window(qtbot: QtBot, tmp_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Opener]:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)

    def make(encounter: Encounter | None = None) -> MainWindow:
        window = MainWindow(
            encounter or storage.load(demo_encounter_path()),
            settings=settings,
            recovery=RecoveryStore(tmp_path / "recovery"),
        )
        qtbot.addWidget(window)
        window.resize(1366, 740)
        window.show()
        qtbot.waitExposed(window)
        return window

    yield make
    Presentation().apply(QApplication.instance())


def open_player(qtbot: QtBot, window: MainWindow, size: tuple[int, int] = (800, 700)) -> PlayerView:
    window.player_view_action.trigger()  # View ▸ Player view (F10)
    player = window.player_view
    assert player is not None
    player.resize(*size)
    qtbot.waitExposed(player)
    QApplication.processEvents()
    return player


def grab(player: PlayerView) -> QImage:
    QApplication.processEvents()
    return player.view.viewport().grab().toImage()


def grid_lines(image: QImage, y: int) -> list[float]:
    """The x of each grid line crossing row ``y``: the middle of each run of pixels darker than the floor."""
    floor = max(QColor(image.pixel(x, y)).lightness() for x in range(image.width()))
    dark = [QColor(image.pixel(x, y)).lightness() < floor - 25 for x in range(image.width())]
    lines: list[float] = []
    x = 0
    while x < len(dark):
        if dark[x]:
            start = x
            while x < len(dark) and dark[x]:
                x += 1
            lines.append((start + x - 1) / 2)
        x += 1
    return lines


def gaps(image: QImage) -> list[float]:
    y = image.height() // 2 + 7  # not along a horizontal grid line
    lines = grid_lines(image, y)
    return [b - a for a, b in itertools.pairwise(lines)]


def calibrate(settings: QSettings, player: PlayerView, px_per_mm: float) -> None:
    screen = player.screen()
    assert screen is not None
    settings.setValue(td.screen_key(screen), px_per_mm)


def test_a_one_inch_cell_at_96_dpi_is_96_pixels_and_25_mm_at_4_px_per_mm_is_100(
    qtbot: QtBot, open_window: Opener, settings: QSettings
) -> None:
    window = open_window(bare_table())
    player = open_player(qtbot, window)
    fitted = gaps(grab(player))
    calibrate(settings, player, 96 / 25.4)
    window.follow_gm_action.setChecked(True)
    window.table_display.real_size_action.trigger()  # View ▸ Player view options ▸ Real size
    assert window.table_display.real_size_action.isChecked()
    # Real size neither fits the map nor follows the GM: Follow is off, and the GM is told so.
    assert not window.follow_gm_action.isChecked() and not player.view.follow
    assert "Follow the GM's view is off" in window.statusBar().currentMessage()
    real = gaps(grab(player))
    assert len(real) >= 6 and all(abs(gap - 96) <= 1 for gap in real), real
    assert all(abs(gap - 96) > 5 for gap in fitted)  # the control: fitted, the cells were another size

    calibrate(settings, player, 4.0)
    window.table_display.set_cell_mm(25)
    real = gaps(grab(player))
    assert len(real) >= 5 and all(abs(gap - 100) <= 1 for gap in real), real
    # The GM's zoom no longer reaches the players' screen.
    window.map_view.scale(2, 2)
    window.map_view.horizontalScrollBar().setValue(window.map_view.horizontalScrollBar().value() + 50)
    assert all(abs(gap - 100) <= 1 for gap in gaps(grab(player)))

    window.table_display.real_size_action.trigger()  # off: the map fits again
    assert gaps(grab(player)) == pytest.approx(fitted, abs=1)


def test_a_calibration_typed_is_kept_for_that_screen_only_and_for_the_next_window(
    qtbot: QtBot, open_window: Opener, settings: QSettings
) -> None:
    window = open_window(bare_table())
    player = open_player(qtbot, window)
    screen = player.screen()
    assert screen is not None
    key = td.screen_key(screen)
    other = "table_display/px_per_mm/HDMI-2_1920x1080"
    settings.setValue(other, 5.0)
    calibrate(settings, player, 3.6)
    dialog = window.table_display.open_dialog()  # View ▸ Player view options ▸ Table display…
    assert player.view.calibration_bar == (100.0, pytest.approx(3.6))
    assert "should measure 100 mm" in dialog.bar_label.text()
    assert f"{screen.geometry().width()} × {screen.geometry().height()}" in dialog.screen_label.text()
    # The bar is drawn as the calibration says: 100 mm at 3.6 px/mm is 360 pixels of white.
    image = grab(player)
    row = image.height() // 2
    white = [x for x in range(image.width()) if QColor(image.pixel(x, row)).lightness() > 250]
    assert abs(len(white) - 360) <= 4

    dialog.measured_edit.setText("90")
    dialog.correct_button.click()
    assert float(str(settings.value(key))) == pytest.approx(3.6 * 100 / 90)
    assert float(str(settings.value(other))) == 5.0  # another screen's calibration untouched
    assert "Calibrated" in dialog.result.text()
    dialog.accept()
    assert player.view.calibration_bar is None  # the bar goes with the dialog
    window.close()

    again = open_window(bare_table())
    player = open_player(qtbot, again)
    assert again.table_display.px_per_mm() == pytest.approx(4.0)
    again.table_display.real_size_action.trigger()
    assert all(abs(gap - 25.4 * 4.0) <= 1 for gap in gaps(grab(player)))  # a 1-inch cell at 4 px/mm


@pytest.mark.parametrize("typed", ["abc", "0", "-5", "5000", ""])
def test_a_bad_measure_is_refused_with_the_reason_and_changes_nothing(
    qtbot: QtBot, open_window: Opener, settings: QSettings, typed: str
) -> None:
    window = open_window(bare_table())
    player = open_player(qtbot, window)
    calibrate(settings, player, 3.6)
    dialog = window.table_display.open_dialog()
    dialog.measured_edit.setText(typed)
    dialog.correct_button.click()
    assert not dialog.problem.isHidden() and "calibration is unchanged" in dialog.problem.text()
    assert window.table_display.px_per_mm() == pytest.approx(3.6)


@pytest.mark.parametrize("typed", ["x", "0", "-1", "500"])
def test_a_bad_cell_size_is_refused_and_the_dialog_stays(
    qtbot: QtBot, open_window: Opener, settings: QSettings, typed: str
) -> None:
    window = open_window(bare_table())
    open_player(qtbot, window)
    dialog = window.table_display.open_dialog()
    dialog.cell_unit.setCurrentText("mm")
    dialog.cell_edit.setText(typed)
    dialog.accept()
    assert dialog.isVisible() and "cell size is unchanged" in dialog.problem.text()
    assert window.table_display.cell_mm() == pytest.approx(25.4)
    dialog.cell_edit.setText("25")
    dialog.accept()
    assert not dialog.isVisible() and window.table_display.cell_mm() == pytest.approx(25)


def frame_edge_point(window: MainWindow, frame: PlayersFrame) -> QPoint:
    """A viewport point on the frame's top edge, a third of the way along."""
    area = frame.area
    return window.map_view.mapFromScene(QPointF(area.left() + area.width() / 3, area.top()))


def drag(window: MainWindow, start: QPoint, end: QPoint) -> None:
    viewport = window.map_view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for step in range(1, 6):
        QTest.mouseMove(viewport, start + (end - start) * step / 5)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    QApplication.processEvents()


def test_dragging_the_frame_moves_what_the_players_see_by_whole_cells(
    qtbot: QtBot, open_window: Opener, settings: QSettings
) -> None:
    window = open_window(None)  # the demo: a painted map, so a shift shows
    player = open_player(qtbot, window)
    calibrate(settings, player, 96 / 25.4)
    window.table_display.real_size_action.trigger()
    frame = window.table_display.frame
    assert frame.isVisible() and frame.area == player.view.shown_rect()
    assert "no undo step" in frame.toolTip()
    before = grab(player)
    origin = player.view.real_origin
    assert origin is not None and origin.x() % CELL_PX == 0 and origin.y() % CELL_PX == 0
    steps = window.controller.undo_stack.count()

    zoom = window.map_view.transform().m11()
    start = frame_edge_point(window, frame)
    QTest.mouseMove(window.map_view.viewport(), start)
    assert window.map_view.viewport().cursor().shape() == Qt.CursorShape.SizeAllCursor  # it can be dragged there
    # Two cells left and one up, and a little more: it snaps back to whole cells.
    end = start + QPoint(round(-2.3 * CELL_PX * zoom), round(-1.2 * CELL_PX * zoom))
    drag(window, start, end)
    moved = player.view.real_origin
    assert moved is not None
    assert (moved.x() - origin.x(), moved.y() - origin.y()) == (-2 * CELL_PX, -1 * CELL_PX)
    assert frame.area == player.view.shown_rect()  # the frame follows: it shows what they see
    assert window.controller.undo_stack.count() == steps  # a view setting: no undo step

    after = grab(player)
    # What stood at (x, y) now stands two cells (192 px) right and one (96 px) down.
    region = QRect(40, 40, before.width() - 2 * 192 - 80, before.height() - 96 - 80)
    shifted = after.copy(region.translated(192, 96))
    assert differing(before.copy(region), shifted) < 0.01
    assert differing(before.copy(region), after.copy(region)) > 0.05  # the control: it did change


def differing(a: QImage, b: QImage, tolerance: int = 40) -> float:
    """The share of pixels that differ by more than ``tolerance`` in a channel (every 2nd pixel)."""
    assert a.size() == b.size()
    total = bad = 0
    for y in range(0, a.height(), 2):
        for x in range(0, a.width(), 2):
            p, q = QColor(a.pixel(x, y)), QColor(b.pixel(x, y))
            total += 1
            if max(abs(p.red() - q.red()), abs(p.green() - q.green()), abs(p.blue() - q.blue())) > tolerance:
                bad += 1
    return bad / max(1, total)


def test_the_frame_is_on_the_gm_map_only_never_in_the_player_view(
    qtbot: QtBot, open_window: Opener, settings: QSettings
) -> None:
    window = open_window(None)
    player = open_player(qtbot, window)
    calibrate(settings, player, 96 / 25.4)
    window.table_display.real_size_action.trigger()
    frame = window.table_display.frame
    assert not any(isinstance(item, PlayersFrame) for item in player.scene.items())
    with_frame = grab(player)
    frame.hide()
    without = grab(player)
    assert with_frame == without
    frame.show()
    # The GM does see it: its orange dashes along its top edge.
    gm = window.map_view.viewport().grab().toImage()
    edge = frame_edge_point(window, frame)
    near = [
        QColor(gm.pixel(edge.x() + dx, edge.y() + dy))
        for dx in range(-30, 30)
        for dy in (-1, 0, 1)
        if gm.rect().contains(edge.x() + dx, edge.y() + dy)
    ]
    assert any(abs(c.red() - FRAME_COLOR.red()) < 30 and abs(c.green() - FRAME_COLOR.green()) < 30 for c in near)
    # Real size off: no frame.
    window.table_display.real_size_action.trigger()
    assert not frame.isVisible()
