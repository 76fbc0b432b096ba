"""Every map tool's right-click does what its status-bar hint says, never nothing: on the thing under the
cursor (a wall, a line, a fogged cell, a light, a drawing, a template) and on bare floor, where it opens a
menu or says why nothing changed. A right-click during a left drag cancels it. Driven through the real
window on the demo."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.ui.map.view import TOOLS
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.main_window import MainWindow

LEFT, RIGHT, NONE = Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier
FLOOR = (1.5, 14.5)  # bare floor in the demo: no token, wall, line, drawing, template, light or shown fog

Point = tuple[float, float]  # in cells: (1.5, 14.5) is the middle of cell (1, 14)


def prepared(window: MainWindow) -> MainWindow:
    """The demo with one of everything a right-click may act on, away from the tokens."""
    do = window.controller.do
    for action in (
        act.AddWall((1, 6), (3, 6)),
        act.RevealCells(((2, 8),)),
        act.PlaceLight("torch", cell=(2, 10)),
        act.AddDrawing("line", ((20.0, 14.5), (23.0, 14.5))),
        act.PlaceTemplate("circle", (21.0, 6.0), 5),
    ):
        assert do(action) is not None, window.controller.refusal
    return window


def viewport_point(window: MainWindow, point: Point) -> QPoint:
    view = window.map_view
    return view.mapFromScene(QPointF(point[0] * CELL_PX, point[1] * CELL_PX))


def right_click(window: MainWindow, point: Point) -> None:
    view = window.map_view
    QTest.mousePress(view.viewport(), RIGHT, NONE, viewport_point(window, point))
    QTest.mouseRelease(view.viewport(), RIGHT, NONE, viewport_point(window, point))


def menu_texts(window: MainWindow) -> list[str]:
    menu = window.map_view.context_menu
    if menu is None or not menu.isVisible():
        return []
    return [a.text().replace("&", "") for a in menu.actions()]


# (tool, where, what must hold after: the encounter changed, a menu with this entry, or these words said)
ON_SOMETHING: list[tuple[str, Point, Callable[[Encounter], bool] | str]] = [
    ("walls", (10.5, 1.5), lambda e: (10, 1) not in e.map.walls),
    ("difficult", (3.5, 3.5), lambda e: (3, 3) not in e.map.difficult),
    ("erase", (10.5, 1.5), lambda e: (10, 1) not in e.map.walls),
    ("wall_lines", (2.0, 6.0), lambda e: not e.map.segments),
    ("doors", (2.0, 6.0), lambda e: not e.map.segments),
    ("erase_lines", (2.0, 6.0), lambda e: not e.map.segments),
    ("fog", (2.5, 8.5), lambda e: (2, 8) not in e.fog.explored),
    ("light", (2.5, 10.5), lambda e: not e.lights),
    ("draw", (21.5, 14.5), "menu: Erase drawing"),
    ("template", (21.0, 6.0), "menu: Remove template"),
    ("select", (21.5, 14.5), "menu: Erase drawing"),
    ("select", (21.0, 6.0), "menu: Remove template"),
]

ON_FLOOR: dict[str, str] = {
    "select": "menu: Place a torch here",
    "walls": "said: No walls there to erase",
    "difficult": "said: No difficult terrain there to erase",
    "erase": "said: No walls or difficult terrain there to erase",
    "wall_lines": "said: No wall line or door there to erase",
    "doors": "said: No wall line or door there to erase",
    "erase_lines": "said: No wall line or door there to erase",
    "fog": "said: not shown to the players",
    "light": "said: No light is placed at (1, 14)",
    "draw": "menu: Freehand",
    "template": "menu: Cone",
    "measure": "said: right-click or W pins a waypoint",
}


def check(window: MainWindow, said: list[str], expected: Callable[[Encounter], bool] | str) -> None:
    if callable(expected):
        assert expected(window.controller.encounter), window.controller.refusal
        assert "Undo" in window.undo_action.text()  # one undo step
    elif expected.startswith("menu: "):
        assert expected.removeprefix("menu: ") in menu_texts(window)
    else:
        assert said and expected.removeprefix("said: ") in said[-1], said


def test_every_tools_right_click_on_something_acts_on_it(demo_window: MainWindow) -> None:
    window = prepared(demo_window)
    said: list[str] = []
    window.controller.message.connect(said.append)
    for tool, where, expected in ON_SOMETHING:
        window.map_view.set_tool(tool)
        steps = window.controller.undo_stack.index()
        right_click(window, where)
        check(window, said, expected)
        if callable(expected):
            assert window.controller.undo_stack.index() == steps + 1, tool
            window.controller.undo_stack.undo()  # the next tool finds it again
        elif window.map_view.context_menu is not None:
            window.map_view.context_menu.close()


def test_every_tool_does_something_on_a_right_click_on_bare_floor_and_its_hint_says_so(
    demo_window: MainWindow,
) -> None:
    window = prepared(demo_window)
    assert set(ON_FLOOR) == set(TOOLS)
    for tool in TOOLS:
        window.map_view.set_tool("measure" if tool == "select" else "select")
        said: list[str] = []
        window.controller.message.connect(said.append)
        window.tool_actions[tool].trigger()
        assert window.map_view.tool() == tool
        hint = said[-1].lower()  # taking a tool says what its buttons do, right-click included
        assert "right" in hint or "either button" in hint, hint
        steps = window.controller.undo_stack.index()
        right_click(window, FLOOR)
        check(window, said, ON_FLOOR[tool])
        assert window.controller.undo_stack.index() == steps  # bare floor: nothing changed
        if window.map_view.context_menu is not None:
            window.map_view.context_menu.close()
        window.controller.message.disconnect(said.append)


def move_held(window: MainWindow, point: Point) -> None:
    # QTest.mouseMove carries no buttons: a real move event with the left button held.
    at = QPointF(viewport_point(window, point))
    view = window.map_view
    event = QMouseEvent(QEvent.Type.MouseMove, at, view.viewport().mapToGlobal(at), Qt.MouseButton.NoButton, LEFT, NONE)
    QApplication.sendEvent(view.viewport(), event)


@pytest.mark.parametrize("tool", ["draw", "template", "fog", "walls"])
def test_a_right_click_during_a_left_drag_cancels_it(demo_window: MainWindow, tool: str) -> None:
    window = demo_window
    view = window.map_view
    view.set_tool(tool)
    steps = window.controller.undo_stack.index()
    said: list[str] = []
    window.controller.message.connect(said.append)
    QTest.mousePress(view.viewport(), LEFT, NONE, viewport_point(window, (1.5, 13.5)))
    move_held(window, (3.5, 14.5))
    assert view.gesture is not None
    right_click(window, (3.5, 14.5))
    assert view.gesture is None
    assert said and "Cancelled" in said[-1]
    QTest.mouseRelease(view.viewport(), LEFT, NONE, viewport_point(window, (3.5, 14.5)))
    assert window.controller.undo_stack.index() == steps  # nothing drawn, laid, shown or painted
