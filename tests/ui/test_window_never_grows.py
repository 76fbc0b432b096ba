"""No words widen a window: a long shared roll, banner or name never makes the players' window wider
(or its map re-fit), and a ruler's long reading never widens the GM's window, pushes the side panel
off screen or re-fits the map under the cursor. What is cut shows whole on hover.

The demo encounter: Tombril (Party) at (8, 6) on a 24 x 16 map, the laptop window 1366 x 740.
"""

from __future__ import annotations

from players import open_player_view
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QGuiApplication, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from waiting import run_until

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView

LAPTOP_WIDTH = 1366
LONG_ROLL = "1d20+5 perception check for everyone standing near the old tower gate"
LONG_NAME = "Tombril Ironfoot, Warden of the Old Tower Gate and of its Ke"  # as long as a name may be
LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier


def screen_width(window: MainWindow | PlayerView) -> int:
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry().width()


def settle() -> None:
    """Let the layouts take in the new words (a window grows, if it does, when they are activated)."""
    for _ in range(3):
        QApplication.processEvents()


# -- the players' window ---------------------------------------------------------------------------


def test_a_long_shared_roll_leaves_the_players_window_as_wide_as_it_was(qtbot: QtBot, demo_window: MainWindow) -> None:
    player = open_player_view(qtbot, demo_window)
    width, minimum = player.width(), player.minimumSizeHint().width()
    transform = player.view.transform()
    dice = demo_window.dice_panel
    dice.field.setText(LONG_ROLL)
    assert dice.roll() is not None
    settle()
    banner = player.banner
    assert "(perception check for everyone standing near the old tower gate)" in banner.text()  # shared, whole
    assert player.width() == width <= screen_width(player)
    assert player.minimumSizeHint().width() == minimum
    assert player.view.transform() == transform  # the map did not re-fit under a taller banner
    # Cut in its middle: the turn it began with and the total it ends with stay on the screen.
    shown = banner.shown_text()
    assert "…" in shown
    assert shown.endswith(banner.text()[-4:]) and shown.startswith(banner.text()[:6])
    assert banner.fontMetrics().horizontalAdvance(shown) <= banner.contentsRect().width()
    # A shorter roll after it: still the same window.
    dice.field.setText("1d6")
    assert dice.roll() is not None
    settle()
    assert player.width() == width and player.minimumSizeHint().width() == minimum


def test_a_long_name_on_the_players_banner_leaves_the_window_as_it_was(qtbot: QtBot, demo_window: MainWindow) -> None:
    controller = demo_window.controller
    player = open_player_view(qtbot, demo_window)
    width, minimum = player.width(), player.minimumSizeHint().width()
    transform = player.view.transform()
    assert controller.do(act.EditCombatant("tombril", {"name": LONG_NAME})) is not None
    assert controller.do(act.StartCombat(face=5)) is not None  # the Party acts first
    assert controller.do(act.BeginTurn("tombril")) is not None
    settle()
    assert f"{LONG_NAME}'s turn" in player.banner.text()
    assert player.width() == width <= screen_width(player)
    assert player.minimumSizeHint().width() == minimum
    assert player.view.transform() == transform


# -- the GM's window -------------------------------------------------------------------------------


def at(view: MapView, cell: Cell) -> QPointF:
    return QPointF(view.mapFromScene(view.scene_point_of(cell)))


def drag_through(view: MapView, cell: Cell) -> None:
    point = at(view, cell)
    event = QMouseEvent(
        QEvent.Type.MouseMove, point, view.viewport().mapToGlobal(point), Qt.MouseButton.NoButton, LEFT, NONE
    )
    QApplication.sendEvent(view.viewport(), event)


def test_measuring_with_a_long_reading_leaves_the_window_its_side_panel_and_the_map_as_they_were(
    laptop_window,  # type: ignore[no-untyped-def]
) -> None:
    window: MainWindow = laptop_window()
    assert window.controller.do(act.EditCombatant("tombril", {"name": LONG_NAME})) is not None
    settle()
    view = window.map_view
    width, minimum = window.width(), window.minimumSizeHint().width()
    transform = view.transform()
    scrolled = (view.horizontalScrollBar().value(), view.verticalScrollBar().value())
    side = window.docks["Turns"].geometry()
    view.set_tool("measure")
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, (8, 6)).toPoint())
    readings = []
    for i, cell in enumerate([(9, 6), (12, 9), (15, 12), (20, 14)]):
        drag_through(view, cell)
        if i % 2:
            QTest.keyClick(view.viewport(), Qt.Key.Key_W)  # a waypoint: the reading grows longer
        settle()
        readings.append(window.drag_label.text())
        assert window.width() == width <= LAPTOP_WIDTH
        assert window.minimumSizeHint().width() == minimum <= LAPTOP_WIDTH
        assert view.transform() == transform
        assert (view.horizontalScrollBar().value(), view.verticalScrollBar().value()) == scrolled
        assert window.docks["Turns"].geometry() == side  # the side panel stays on screen, where it was
    last = readings[-1]
    assert LONG_NAME in last and "via 2 waypoints" in last
    # Cut to the room it has: the GM reads the whole on hover. The cell, the round and the ruleset
    # beside it stay whole.
    label = window.drag_label
    assert label.is_elided() and label.shown_text().endswith("…")
    assert last in label.hover_text()
    for beside in (window.cell_label, window.round_label, window.ruleset_label):
        assert beside.text() and not beside.is_elided(), beside.shown_text()
    QTest.mouseRelease(view.viewport(), LEFT, NONE, at(view, (20, 14)).toPoint())


def test_long_words_in_every_status_bar_label_leave_the_window_as_it_was(demo_window: MainWindow) -> None:
    window = demo_window
    width, minimum = window.width(), window.minimumSizeHint().width()
    long = " ".join([LONG_NAME] * 4)
    window.statusBar().showMessage(long)
    for label in (window.cell_label, window.drag_label, window.round_label, window.ruleset_label):
        label.setText(long)
    window._player_view_paused(f"ValueError: {long}")  # the paused notice, its reason on hover
    run_until(lambda: window.statusBar().currentMessage().startswith("The player view is paused"), 5, "the notice")
    settle()
    assert window.width() == width and window.minimumSizeHint().width() == minimum
    assert window.player_paused_label.isVisible()
    assert long in window.player_paused_label.hover_text()


def test_a_message_longer_than_the_status_bar_s_two_lines_ends_in_an_ellipsis_not_cut_in_half(
    laptop_window,  # type: ignore[no-untyped-def]
) -> None:
    # A long tool hint beside a drag's words wrapped onto three lines in a bar two lines high: the
    # label centred them and cut the first and the last in half.
    window: MainWindow = laptop_window()
    bar = window.statusBar()
    long = " ".join(["Select tokens and drag them to move (Shift-drag: forced move); right-click: its menu"] * 8)
    bar.showMessage(long)
    words = bar.words
    run_until(lambda: words.text() != long, 5, "the message fitted to its lines")
    shown = words.text()
    assert shown.endswith("…") and shown.count("\n") == 1
    assert words.whole() == long and words.toolTip() == long and bar.currentMessage() == long
    width = words.contentsRect().width()
    needed = words.fontMetrics().boundingRect(0, 0, width, 10_000, Qt.TextFlag.TextWordWrap, shown)
    assert needed.height() <= words.height(), "both lines whole within the bar"
    bar.showMessage("Tombril moves 10 ft")  # a short one is shown as it is
    assert words.text() == "Tombril moves 10 ft"
