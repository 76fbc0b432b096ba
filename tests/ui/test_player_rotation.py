"""The players' picture turned by 90, 180 or 270 degrees for a screen lying between the players: the
same picture turned, the banner's words included, showing the same cells; kept across runs.

Compared by pixels (offscreen): the turned window's grab against the unturned grab turned by
QImage.transformed, with a small tolerance for antialiasing, away from the edges.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from PySide6.QtCore import QRect, QSettings
from PySide6.QtGui import QImage, QTransform
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.plumbing.theme import Presentation
from lnl_desktop.ui.window import table_display as td
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView
from lnl_desktop.ui.window.recovery import RecoveryStore


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def open_window(
    qtbot: QtBot, tmp_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[], MainWindow]]:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)

    def make() -> MainWindow:
        window = MainWindow(
            storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(tmp_path / "recovery")
        )
        qtbot.addWidget(window)
        window.resize(1366, 740)
        window.show()
        qtbot.waitExposed(window)
        return window

    yield make
    Presentation().apply(QApplication.instance())


def open_player(qtbot: QtBot, window: MainWindow, width: int, height: int) -> PlayerView:
    window.player_view_action.trigger()
    player = window.player_view
    assert player is not None
    player.resize(width, height)
    qtbot.waitExposed(player)
    QApplication.processEvents()
    assert (player.width(), player.height()) == (width, height)
    return player


def whole(player: PlayerView) -> QImage:
    """The whole window as the players see it: the banner and the map."""
    QApplication.processEvents()
    return player.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


def turn(window: MainWindow, degrees: int) -> None:
    """View ▸ Player view options ▸ Turn the players' view ▸ <degrees>°."""
    (action,) = [a for a in window.table_display.rotation_group.actions() if a.data() == degrees]
    action.trigger()
    QApplication.processEvents()


def pixels(image: QImage) -> npt.NDArray[np.int16]:
    """The image's red, green and blue as a height x width x 3 array."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    raw = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return raw[:, : image.width() * 4].reshape(image.height(), image.width(), 4)[:, :, :3].astype(np.int16)


def differing(a: QImage, b: QImage, inset: int = 10, tolerance: int = 60) -> float:
    """The share of pixels of ``b`` (``inset`` from the edges) that match no pixel of ``a`` at or next
    to the same place within ``tolerance``: a line drawn half a pixel over, turned, lands on the
    neighbouring pixel (antialiasing), a wrong picture differs everywhere."""
    assert a.size() == b.size()
    first, second = pixels(a), pixels(b)
    h, w = second.shape[:2]
    inner = second[inset : h - inset, inset : w - inset]
    best = np.full(inner.shape[:2], 255, np.int16)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            near = first[inset + dy : h - inset + dy, inset + dx : w - inset + dx]
            best = np.minimum(best, np.abs(near - inner).max(axis=2))
    return float((best > tolerance).mean())


def banner_rows(image: QImage, player: PlayerView) -> QImage:
    return image.copy(QRect(0, 0, image.width(), player.banner.sizeHint().height()))


def test_a_180_degree_turn_is_the_same_picture_turned_banner_included(
    qtbot: QtBot, open_window: Callable[[], MainWindow]
) -> None:
    window = open_window()
    player = open_player(qtbot, window, 900, 620)
    upright = whole(player)
    cells = player.view.shown_rect()
    turn(window, 180)
    assert player.rotation == 180
    turned = whole(player)
    expected = upright.transformed(QTransform().rotate(180))
    assert differing(expected, turned) < 0.01
    assert differing(upright, turned) > 0.2  # the control: the picture is not symmetric
    # The banner's words are at the bottom now, upside down: the top of the upright grab turned.
    strip = player.banner.sizeHint().height()
    bottom = turned.copy(QRect(0, turned.height() - strip, turned.width(), strip))
    assert differing(banner_rows(upright, player).transformed(QTransform().rotate(180)), bottom, inset=4) < 0.01
    # The same cells show.
    again = player.view.shown_rect()
    assert abs(again.width() - cells.width()) < 2 and abs(again.center().x() - cells.center().x()) < 2
    turn(window, 0)
    assert differing(upright, whole(player)) < 0.01


def test_a_90_degree_turn_of_a_square_window_is_the_picture_turned(
    qtbot: QtBot, open_window: Callable[[], MainWindow]
) -> None:
    window = open_window()
    player = open_player(qtbot, window, 700, 700)
    upright = whole(player)
    turn(window, 90)
    turned = whole(player)
    assert differing(upright.transformed(QTransform().rotate(90)), turned) < 0.01
    turn(window, 270)
    assert differing(upright.transformed(QTransform().rotate(270)), whole(player)) < 0.01


def test_at_90_degrees_a_wide_window_fits_the_map_with_width_and_height_swapped(
    qtbot: QtBot, open_window: Callable[[], MainWindow]
) -> None:
    window = open_window()
    player = open_player(qtbot, window, 1000, 500)
    map_rect = player.scene.map_rect()
    turn(window, 90)
    # The map's width now runs down the window: it fits the window's height (less the banner's strip).
    view = player.view
    shown = view.mapFromScene(map_rect).boundingRect()
    assert shown.height() <= view.viewport().height() + 1
    assert view.viewport().rect().adjusted(-1, -1, 1, 1).contains(shown)
    assert max(shown.width() / view.viewport().width(), shown.height() / view.viewport().height()) > 0.9


def test_the_turn_is_kept_for_the_next_window_and_works_with_real_size(
    qtbot: QtBot, open_window: Callable[[], MainWindow], settings: QSettings
) -> None:
    window = open_window()
    player = open_player(qtbot, window, 800, 600)
    turn(window, 180)
    assert int(str(settings.value(td.ROTATION_KEY))) == 180
    screen = player.screen()
    assert screen is not None
    settings.setValue(td.screen_key(screen), 96 / 25.4)
    window.table_display.real_size_action.trigger()
    upright_cells = window.table_display.frame.area
    assert player.view.view_scale() == pytest.approx(96 / 64)
    # The frame on the GM's map shows what the players see, turned or not.
    assert upright_cells == player.view.shown_rect()
    assert "turned 180°" in window.table_display.frame.words()
    window.close()

    again = open_window()
    player = open_player(qtbot, again, 800, 600)
    assert player.rotation == 180
    checked = [a.data() for a in again.table_display.rotation_group.actions() if a.isChecked()]
    assert checked == [180]
    assert player.view.real_scale is not None  # real size is kept too


def test_a_turned_banner_that_cannot_paint_pauses_the_players_view(
    qtbot: QtBot, open_window: Callable[[], MainWindow], monkeypatch: pytest.MonkeyPatch
) -> None:
    window = open_window()
    player = open_player(qtbot, window, 800, 600)
    turn(window, 180)
    assert player.turned_banner.isVisible() and not player.banner.isVisible()

    def broken() -> None:
        raise RuntimeError("the banner's picture failed")

    monkeypatch.setattr(player.banner, "grab", broken)
    player.turned_banner.repaint()
    assert player.paused and not player.turned_banner.isVisible()
    image = pixels(whole(player))
    assert int(image.max()) == 0  # all black: nothing half-drawn reaches the players


def test_a_player_view_opened_from_code_is_turned_as_the_gm_set_it(
    qtbot: QtBot, open_window: Callable[[], MainWindow], settings: QSettings
) -> None:
    settings.setValue(td.ROTATION_KEY, 90)
    window = open_window()
    player = window.ensure_player_view()  # not through the menu: a share, a script, the layout restored
    assert player.rotation == 90
