"""The Measure tool: a ruler from a cell or a token to the cursor, in feet along the grid.

A left press with the Measure tool starts a ruler at the cell pressed, or at a token pressed (then
it measures as a drag of that token counts: anchor to anchor, the line between footprint centres).
Moving the cursor draws a straight line through the pinned waypoints to the cursor's cell, shades
the cells a move along it steps through and labels its end "20 ft (straight 21.2 ft)": the feet
along the grid in the encounter's diagonal rule (``map.diagonal``, ``map.feet_per_cell``), the 5-10-5
alternation carried across waypoints as a token drag carries it, then the feet as the line is drawn.
Waypoints take the drag's keys: a right click or W pins one, Backspace drops the last. The release
(or Escape) ends it and it disappears, like a tabletop's ruler lifted off the table.

It never changes anything: no action, no undo step, no log line. Its items are GM overlays, so the
player view shows the ruler while it lasts only with "Share overlays" on, never over the black, and
not at all when it starts from a token the players do not see.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import ClassVar, Protocol

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QGraphicsScene

from lnl_desktop.core.map.grid import Cell, DiagonalRule, footprint
from lnl_desktop.ui.map.geometry import CellMask, footprint_centre
from lnl_desktop.ui.map.gestures import Gesture, MapSurface
from lnl_desktop.ui.map.overlays import LABEL_Z, REACH_Z, CellsItem, CellsStyle, LabelItem, MarkerItem, PathItem

RULER_COLOR = QColor("#0077BB")  # blue (Paul Tol's vibrant scheme): apart from a drag's black, red and purple
RULER_CELLS = CellsStyle(fill=QColor(0, 119, 187, 45), outline=QColor("#0077BB"), outline_width=1.5)
LABEL_BACK = QColor(0, 68, 110, 235)

# How the status line names each diagonal rule.
RULE_WORDS = {
    DiagonalRule.ALTERNATING: "5-10-5 diagonals",
    DiagonalRule.FIVE: "every diagonal one cell",
    DiagonalRule.EUCLIDEAN: "true diagonals",
}


# -- the measure (no widgets) ----------------------------------------------------------------------


def grid_line(a: Cell, b: Cell) -> list[Cell]:
    """The cells from ``a`` to ``b`` inclusive, one adjacent step at a time, the diagonal steps spread
    evenly along the way: ``max(|dx|, |dy|)`` steps, ``min(|dx|, |dy|)`` of them diagonal, as the
    cheapest move over open floor takes them."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = max(abs(dx), abs(dy))
    if n == 0:
        return [a]
    # Rounded to the nearest cell, halves up, in whole numbers: floor(d * i / n + 1/2).
    return [(a[0] + (2 * dx * i + n) // (2 * n), a[1] + (2 * dy * i + n) // (2 * n)) for i in range(n + 1)]


def grid_feet(points: Sequence[Cell], rule: DiagonalRule, feet_per_cell: int = 5) -> float:
    """Feet along the grid from the first point through the others, as a token's move over open
    floor costs them (``movement.path_cost_ft``): under 5-10-5 the diagonals alternate one and two
    cells and the count carries from one leg to the next, as a drag through waypoints carries it."""
    cells = 0.0
    diagonals = 0  # the diagonals stepped before this leg
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        ax, ay = abs(x1 - x0), abs(y1 - y0)
        n = min(ax, ay)
        straight = max(ax, ay) - n
        if rule is DiagonalRule.ALTERNATING:
            # Diagonals number d, d+1, ... d+n-1 in the count; the odd-numbered ones cost two cells.
            cells += straight + n + (diagonals + n) // 2 - diagonals // 2
        elif rule is DiagonalRule.FIVE:
            cells += straight + n
        else:
            cells += straight + n * math.sqrt(2.0)
        diagonals += n
    return cells * feet_per_cell


def straight_feet(points: Sequence[Cell], feet_per_cell: int = 5) -> float:
    """Feet as the line is drawn: centre to centre through the waypoints."""
    return sum(math.hypot(x1 - x0, y1 - y0) for (x0, y0), (x1, y1) in itertools.pairwise(points)) * feet_per_cell


def feet_words(feet: float) -> str:
    """'20', '21.2': a tenth of a foot at most."""
    return f"{round(feet, 1):g}"


def reading(points: Sequence[Cell], rule: DiagonalRule, feet_per_cell: int = 5) -> str:
    """The ruler's label: '20 ft (straight 21.2 ft)'."""
    grid_ft = feet_words(grid_feet(points, rule, feet_per_cell))
    return f"{grid_ft} ft (straight {feet_words(straight_feet(points, feet_per_cell))} ft)"


class Ruler:
    """One measure from press to release: where it starts, its waypoints, the rule it counts by.

    Points are anchors: a token's top-left cell (the cell itself from a plain cell), so a measure
    from a token counts as its drag does; ``grab`` keeps the pressed part of the token under the
    cursor, as the drag does."""

    def __init__(
        self,
        origin: Cell,
        rule: DiagonalRule,
        feet_per_cell: int,
        map_size: tuple[int, int],
        size: int = 1,
        grab: Cell = (0, 0),
        cid: str | None = None,
        name: str = "",
    ) -> None:
        self.origin = origin
        self.rule = rule
        self.feet_per_cell = feet_per_cell
        self.map_width, self.map_height = map_size
        self.size = size
        self.grab = grab
        self.cid = cid  # the token it measures from, if any
        self.name = name
        self.waypoints: list[Cell] = []

    def anchor_for(self, cell: Cell) -> Cell:
        """The anchor that puts the grabbed part on ``cell``, kept on the map."""
        x = min(max(cell[0] - self.grab[0], 0), self.map_width - self.size)
        y = min(max(cell[1] - self.grab[1], 0), self.map_height - self.size)
        return (x, y)

    def points(self, target: Cell) -> list[Cell]:
        """The origin, the waypoints and ``target``."""
        return [self.origin, *self.waypoints, target]

    def cells(self, target: Cell) -> set[Cell]:
        """The cells a body of the ruler's size covers stepping along every leg."""
        out: set[Cell] = set()
        for a, b in itertools.pairwise(self.points(target)):
            for anchor in grid_line(a, b):
                out.update(footprint(anchor, self.size))
        return out or set(footprint(self.origin, self.size))

    def label(self, target: Cell) -> str:
        return reading(self.points(target), self.rule, self.feet_per_cell)

    def grid_ft(self, target: Cell) -> float:
        return grid_feet(self.points(target), self.rule, self.feet_per_cell)

    def straight_ft(self, target: Cell) -> float:
        return straight_feet(self.points(target), self.feet_per_cell)

    def pin(self, anchor: Cell) -> bool:
        """Pin a waypoint at ``anchor`` (not the origin, not the last one again)."""
        last = self.waypoints[-1] if self.waypoints else self.origin
        if anchor == last:
            return False
        self.waypoints.append(anchor)
        return True

    def unpin(self) -> bool:
        if not self.waypoints:
            return False
        self.waypoints.pop()
        return True

    def describe(self, target: Cell) -> str:
        """The status line."""
        keys = "W or right-click: waypoint, Backspace: drop it, Esc: cancel"
        start = f"from {self.name}" if self.name else f"from ({self.origin[0]}, {self.origin[1]})"
        if target == self.origin and not self.waypoints:
            return f"Measure {start}: move to measure ({RULE_WORDS[self.rule]}); {keys}"
        via = ""
        if self.waypoints:
            n = len(self.waypoints)
            via = f" via {n} waypoint{'s' if n > 1 else ''}"
        return (
            f"Measure {start} to ({target[0]}, {target[1]}){via}: {self.label(target)}, {RULE_WORDS[self.rule]}; {keys}"
        )


# -- what the ruler shows --------------------------------------------------------------------------


class RulerLayer:
    """The ruler's items in the GM's scene (so the player view may share them): the cells stepped
    through, the line with its numbered waypoints, the label at its end, the start's outline."""

    def __init__(self, scene: QGraphicsScene, ui_scale: float = 1.0) -> None:
        self.scene = scene
        self.cells = CellsItem(RULER_CELLS, REACH_Z)
        self.path = PathItem()
        self.label = LabelItem(LABEL_Z)
        self.start = MarkerItem(RULER_COLOR, Qt.PenStyle.DashLine)
        self.label.set_ui_scale(ui_scale)
        self.path.set_ui_scale(ui_scale)
        for item in self.items():
            scene.addItem(item)

    def items(self) -> list:
        return [self.cells, self.path, self.label, self.start]

    def show(self, ruler: Ruler, target: Cell) -> None:
        size = ruler.size
        for item in self.items():
            item.set_about(ruler.cid)  # from a token hidden from the players: not shared with them
        self.start.show_at(ruler.origin, size, RULER_COLOR)
        self.cells.set_cells(CellMask.from_cells(ruler.cells(target)))
        if target == ruler.origin and not ruler.waypoints:
            self.path.clear()
            self.label.set_text("")
            self.label.hide()
            return
        centres: list[QPointF] = [footprint_centre(p, size) for p in ruler.points(target)]
        self.path.set_route([centres], centres[1:-1], RULER_COLOR)
        self.label.setPos(centres[-1])
        self.label.set_text(ruler.label(target), LABEL_BACK)
        self.label.show()
        self.label.keep_in_view()

    def remove(self) -> None:
        """Hide every item (the player view repaints where they were) and take them off the scene."""
        for item in self.items():
            item.hide()
            if item.scene() is self.scene:
                self.scene.removeItem(item)


# -- the gesture -----------------------------------------------------------------------------------


class RulerSurface(MapSurface, Protocol):
    """What the Measure gesture needs of the map view besides a gesture's needs."""

    def ui_scale(self) -> float: ...


class Measure(Gesture):
    """A left press with the Measure tool until its release: the ruler follows the cursor, right
    click or W pins a waypoint, Backspace drops the last; nothing is applied."""

    keeps_hover = True
    STEERING_KEYS: ClassVar[tuple[Qt.Key, ...]] = (Qt.Key.Key_W, Qt.Key.Key_Backspace, Qt.Key.Key_Escape)

    def __init__(self, view: RulerSurface, ruler: Ruler) -> None:
        super().__init__(view)
        self.surface = view
        self.ruler = ruler
        self.target = ruler.origin
        self.layer: RulerLayer | None = None

    @classmethod
    def pressed(cls, view: RulerSurface, cell: Cell) -> Measure | None:
        """The ruler of a left press on ``cell``: from the token there (as its drag counts), or from
        the cell; None (and why, said) off the map."""
        if not view.on_map(cell):
            view.refuse("Press on the map to measure from there")
            return None
        encounter = view.controller.encounter
        grid_map = encounter.map
        map_size = (grid_map.width, grid_map.height)
        cid = view.map_scene.occupant.get(cell)
        token = encounter.tokens.get(cid) if cid else None
        c = view.controller.combatant(cid) if cid else None
        if cid is not None and token is not None and c is not None:
            anchor = (token.cell[0], token.cell[1])
            grab = (cell[0] - anchor[0], cell[1] - anchor[1])
            ruler = Ruler(anchor, grid_map.diagonal, grid_map.feet_per_cell, map_size, c.size, grab, cid, c.name)
        else:
            ruler = Ruler(cell, grid_map.diagonal, grid_map.feet_per_cell, map_size)
        return cls(view, ruler)

    def start(self) -> None:
        self.layer = RulerLayer(self.view.map_scene, self.surface.ui_scale())
        self._show()

    def steers(self, key: int) -> bool:
        # W is also "paint walls": while measuring it pins a waypoint, as in a drag.
        return key in self.STEERING_KEYS

    def press(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.RightButton:
            self.pin_waypoint()

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        self.measure_to(cell)

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.cancel()  # lifted off the table: nothing to apply

    def key_press(self, event: QKeyEvent) -> bool:
        key = event.key()
        if key == Qt.Key.Key_W:
            self.pin_waypoint()
            return True
        if key == Qt.Key.Key_Backspace:
            if self.ruler.unpin():
                self._show()
            return True
        return False

    def measure_to(self, cell: Cell) -> None:
        """The cursor is over ``cell``: measure again only when the anchor changed."""
        target = self.ruler.anchor_for(cell)
        if target != self.target:
            self.target = target
            self._show()

    def pin_waypoint(self) -> None:
        if self.ruler.pin(self.target):
            self._show()

    def _show(self) -> None:
        if self.layer is not None:
            self.layer.show(self.ruler, self.target)
        self.view.say(self.ruler.describe(self.target))

    def cancel(self) -> None:
        self.end()
        if self.layer is not None:
            self.layer.remove()
            self.layer = None
        self.view.say("")
