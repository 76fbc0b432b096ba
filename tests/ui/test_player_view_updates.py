"""The player view repaints only where a shared overlay changed, and what it shows is never stale.

What the projector shows is read back from the window itself (the platform's copy of what was
painted, not a fresh render), then compared with a full repaint of the same window: a region left
unpainted after an overlay moved away would differ.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from players import open_player_view
from PySide6.QtCore import SIGNAL, QEvent, QObject, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QGuiApplication, QImage, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QStatusBar, QToolBar, QToolButton
from pytestqt.qtbot import QtBot

from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.plumbing.theme import Presentation
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView

WindowFactory = Callable[..., MainWindow]


@pytest.fixture
def window(demo_window: MainWindow) -> MainWindow:
    return demo_window


@pytest.fixture
def player(qtbot: QtBot, window: MainWindow) -> PlayerView:
    view = open_player_view(qtbot, window)
    window.share_overlays_action.trigger()
    settle()
    return view


class PaintedRects(QObject):
    """The rectangles a widget is asked to paint."""

    def __init__(self) -> None:
        super().__init__()
        self.rects: list[QRect] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.rects.append(event.region().boundingRect())
        return False


def settle() -> None:
    for _ in range(4):
        QApplication.processEvents()


def on_screen(view: PlayerView) -> QImage:
    """What the player view's window holds now, as painted (not rendered anew)."""
    return QGuiApplication.primaryScreen().grabWindow(view.winId()).toImage()


def fully_repainted(view: PlayerView) -> QImage:
    view.view.viewport().repaint()
    settle()
    return on_screen(view)


def assert_same(shown: QImage, repainted: QImage, when: str = "") -> None:
    """No pixel differs by more than antialiasing's rounding at a clip edge (a level or two):
    an overlay left behind, or one not drawn, differs by far more."""
    import numpy as np

    def pixels(image: QImage) -> np.ndarray:
        image = image.convertToFormat(QImage.Format.Format_RGB32)
        return (
            np.frombuffer(image.constBits(), np.uint8)
            .reshape(image.height(), image.bytesPerLine())[:, : 4 * image.width()]
            .astype(np.int16)
        )

    a, b = pixels(shown), pixels(repainted)
    assert a.shape == b.shape
    off = np.abs(a - b).reshape(a.shape[0], -1, 4)[..., :3].max(axis=2)
    ys, xs = np.nonzero(off > 3)
    assert not ys.size, f"stale pixels {when}: {ys.size}, first at ({xs[0]}, {ys[0]}), off by {off.max()}"


def point(window: MainWindow, cell: tuple[int, int]) -> QPoint:
    return window.map_view.mapFromScene(QPointF((cell[0] + 0.5) * CELL_PX, (cell[1] + 0.5) * CELL_PX))


def drag_to(window: MainWindow, cell: tuple[int, int]) -> None:
    viewport = window.map_view.viewport()
    where = QPointF(point(window, cell))
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        where,
        viewport.mapToGlobal(where),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(viewport, event)


def test_the_gm_scene_changed_signal_is_left_alone(window: MainWindow, player: PlayerView) -> None:
    # Connected even once, Qt repaints the whole GM view on every drag step from then on.
    scene = window.map_view.scene()
    assert scene.receivers(SIGNAL("changed(QList<QRectF>)")) == 0


def test_a_drag_step_repaints_part_of_the_player_view_and_leaves_nothing_stale(
    window: MainWindow, player: PlayerView
) -> None:
    window.controller.select("tombril")
    settle()
    viewport = window.map_view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point(window, (8, 6)))
    drag_to(window, (9, 6))  # the drag begins: its reach is shaded (a large change)
    settle()
    assert_same(on_screen(player), fully_repainted(player))
    painted = PaintedRects()
    player.view.viewport().installEventFilter(painted)
    whole = player.view.viewport().rect()
    for cell in [(10, 6), (10, 7), (11, 8), (6, 8), (5, 5)]:
        painted.rects.clear()
        drag_to(window, cell)
        settle()
        assert painted.rects, f"the players saw no change for the path to {cell}"
        assert all(r.width() * r.height() < whole.width() * whole.height() / 2 for r in painted.rects), (
            f"a drag step to {cell} repainted {painted.rects} of {whole}"
        )
        assert_same(on_screen(player), fully_repainted(player), f"after the step to {cell}")
    player.view.viewport().removeEventFilter(painted)
    QTest.keyClick(viewport, Qt.Key.Key_Escape)  # the drag is cancelled: its overlays go
    settle()
    assert_same(on_screen(player), fully_repainted(player))


def test_hiding_a_token_takes_its_shared_overlays_off_the_projector_at_once(
    window: MainWindow, player: PlayerView
) -> None:
    from lnl_desktop.core.encounter import actions as act

    window.controller.select("half-orc-archer")  # its rings are shared while it is seen
    settle()
    with_rings = on_screen(player)
    window.controller.do(act.SetHidden("half-orc-archer", True))
    settle()
    now = on_screen(player)
    assert now != with_rings
    assert_same(now, fully_repainted(player))


class LayoutRequests(QObject):
    """Counts the layouts asked of a status bar or a tool bar (each, for the main window, a layout of its own
    after)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest and isinstance(watched, QStatusBar | QToolBar):
            self.asked.append(type(watched).__name__)
        return False


def test_a_drag_step_lays_out_neither_the_status_bar_nor_the_window(window: MainWindow) -> None:
    """The status bar's cell and drag words change at every step: the bar is not laid out again for it,
    nor so the main window after it (its docks, the turn order's rows: 1-9 ms a step on a big table).
    (Something else may lay the window out meanwhile, as a dock's words come: the bar's own are counted.)"""
    window.controller.select("tombril")
    settle()
    viewport = window.map_view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point(window, (8, 6)))
    drag_to(window, (9, 6))
    settle()
    asked = LayoutRequests()
    app = QApplication.instance()
    app.installEventFilter(asked)
    words = []
    for cell in [(10, 6), (10, 7), (11, 8), (12, 9), (9, 10)]:
        window.map_view.cellHovered.emit(*cell)  # as the cursor crosses into the cell
        drag_to(window, cell)
        settle()
        words.append((window.cell_label.text(), window.drag_label.text()))
    app.removeEventFilter(asked)
    assert len(set(words)) == len(words) and all(cell and drag for cell, drag in words)  # new words each step
    assert asked.asked == []
    assert window.cell_label.shown_text() == window.cell_label.text()  # the cell's words whole in their room
    QTest.keyClick(viewport, Qt.Key.Key_Escape)


def test_an_action_lays_out_neither_the_status_bar_nor_the_tool_bar_and_undo_still_says_what(
    window: MainWindow,
) -> None:
    """After each action the status bar says its result and Undo's words name it: neither the bar nor the
    tool bar is laid out again for that (each did, and after it the main window, docks and all)."""
    from lnl_desktop.core.encounter import actions as act

    toolbar = window.findChild(QToolBar, "main_toolbar")
    undo = toolbar.widgetForAction(window.undo_action)
    redo = toolbar.widgetForAction(window.redo_action)
    assert isinstance(undo, QToolButton) and isinstance(redo, QToolButton)
    window.controller.do(act.Move("tombril", (8, 7), forced=True))
    settle()
    asked = LayoutRequests()
    app = QApplication.instance()
    app.installEventFilter(asked)
    said = []
    for cell in [(9, 7), (9, 8)]:
        window.controller.do(act.Move("tombril", cell, forced=True))
        settle()
        said.append((window.statusBar().words.whole(), undo.toolTip(), window.undo_action.toolTip()))
    app.removeEventFilter(asked)
    assert asked.asked == []
    assert said[0] != said[1] and all("(9, " in words for words, _tip, _action in said)  # a new result each
    assert all(tip == action and tip.startswith("Undo") for _words, tip, action in said)  # Undo names it
    assert "(9, 8)" in said[1][1] and undo.text() == "Undo" and undo.isEnabled() and not redo.isEnabled()
    window.undo_action.trigger()
    settle()
    assert redo.isEnabled() and "(9, 8)" in redo.toolTip() and redo.text() == "Redo"


def test_hiding_a_token_repaints_the_projector_only_where_it_changes(window: MainWindow, player: PlayerView) -> None:
    """Who the players cannot see changes at a Party move on a big map: only the overlays about those
    tokens and the tokens themselves are painted again, not the whole projector each time."""
    from lnl_desktop.core.encounter import actions as act

    window.controller.select("tombril")  # Tombril's rings are shared; none is about the Half-orc archer
    settle()
    painted = PaintedRects()
    player.view.viewport().installEventFilter(painted)
    whole = player.view.viewport().rect()
    window.controller.do(act.SetHidden("half-orc-archer", True))
    settle()
    player.view.viewport().removeEventFilter(painted)
    assert painted.rects, "the archer's token went without a repaint"
    assert all(r.width() * r.height() < whole.width() * whole.height() / 4 for r in painted.rects), painted.rects
    assert_same(on_screen(player), fully_repainted(player))


def test_no_shared_overlay_is_drawn_over_the_black_of_the_fog(qtbot: QtBot, laptop_window: WindowFactory) -> None:
    """A clipped overlay (a bow's longest range, a vision cone) keeps the fog's clip: its outline
    over the black would draw the shape of what the players have not seen."""
    import sys

    from lnl_desktop.core.encounter import actions as act

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import big_maps

    window = laptop_window(big_maps.build(size=60, tokens=30, segments=150, party=5))
    window.player_view_action.trigger()
    player = window.player_view
    assert player is not None
    player.resize(1000, 700)
    qtbot.waitExposed(player)
    window.share_overlays_action.trigger()
    controller = window.controller
    controller.select("p3")  # a bow: its longest range (150 ft) runs through the black
    x0, y0 = controller.encounter.tokens["p3"].cell
    assert controller.do(act.Move("p3", (x0 + 4, y0 + 2), forced=True))
    player.view.finish_animations()
    settle()
    assert not window.map_view.overlays.max_range.is_empty
    shown = on_screen(player)
    view = player.view
    offset = view.mapTo(player, QPoint(0, 0))
    encounter = controller.encounter
    black = 0
    for y in range(encounter.map.height):
        for x in range(encounter.map.width):
            if (x, y) in player.scene.fog.seen or (x, y) in encounter.fog.explored:
                continue
            if any(max(abs(x - t.cell[0]), abs(y - t.cell[1])) <= 1 for t in encounter.tokens.values()):
                continue  # a Party token and its name plate stand over the fog
            black += 1
            # The inside of the cell, clear of the antialiased edge shared with a cell the players see.
            top_left = view.mapFromScene(QPointF(x * CELL_PX, y * CELL_PX)) + offset
            bottom_right = view.mapFromScene(QPointF((x + 1) * CELL_PX, (y + 1) * CELL_PX)) + offset
            for py in range(top_left.y() + 2, bottom_right.y() - 1):
                for px in range(top_left.x() + 2, bottom_right.x() - 1):
                    color = shown.pixelColor(px, py)
                    assert (color.red(), color.green(), color.blue()) == (0, 0, 0), f"cell ({x}, {y}) at ({px}, {py})"
    assert black > 1000  # most of the map is black to the players
    Presentation().apply(QApplication.instance())
