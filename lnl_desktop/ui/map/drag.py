"""A token being dragged: its route, cost and the Move action it ends in.

:class:`MoveDrag` is the logic (no widgets): it asks the engine once, at the press, for the
combatant's reach, rules and blockers, then builds the route the GM is drawing from the start
through the pinned waypoints to the cell under the cursor with the core's cheapest-path search,
one leg at a time, carrying the 5-10-5 diagonal count across legs. The engine still decides: the
drag ends in one ``Move`` action that it may refuse. :class:`DragLayer` holds the items that show
a drag (reach shading, blocked cells, path, label, start marker, and the steps that give enemies
a free attack), built once per press.

In combat the ruleset says, for each route (once per cursor cell, not per mouse pixel), which
steps provoke a free attack and from whom (``ruleset.movement.provocations``): the map rings those steps
and the label at the cursor names the attackers, in the ruleset's own word ("Counter-attack
from: Ogre") or "Free attack from:". The engine queues them after the drop (``after_move``).

The players (the player view with "Share overlays" on) see the drag as it would be if the tokens
hidden from them were not on the map: :attr:`MoveDrag.players` is the same drag searched without
them, and every item of the :class:`DragLayer` carries that drag's route, cost, label, reach,
crosses and rings as its players' copy, so no bend, "no path" or cost gives a hidden token away.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsScene

from lnl_desktop.core.encounter.actions import Move
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map import movement
from lnl_desktop.core.map.grid import Cell, footprint
from lnl_desktop.core.rules.specs import Provocation
from lnl_desktop.ui.map.fog import players_unseen
from lnl_desktop.ui.map.geometry import CellMask, footprint_centre
from lnl_desktop.ui.map.overlays import (
    BLOCKED_STYLE,
    BLOCKED_Z,
    LABEL_Z,
    REACH_STYLE,
    REACH_Z,
    CellsItem,
    LabelItem,
    MarkerItem,
    PathItem,
    ProvocationItem,
)
from lnl_desktop.ui.map.rules_overlays import MoverInputs, hidden_cells
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX

# Past the budget the route is still searched this much farther, so the GM sees how far over
# a cell is; beyond that a straight dotted line says "out of reach" without a whole-map search.
EXTRA_SEARCH_FT = 40.0
_EPS = 1e-9

# What a provoked attack is called when the ruleset gives no word of its own (``provocation_word``).
FREE_ATTACK = "Free attack"


def chebyshev_line(a: Cell, b: Cell) -> list[Cell]:
    """Adjacent steps from ``a`` to ``b`` inclusive, diagonal first: a route with no search."""
    x, y = a
    out = [a]
    while (x, y) != b:
        x += (b[0] > x) - (b[0] < x)
        y += (b[1] > y) - (b[1] < y)
        out.append((x, y))
    return out


@dataclass
class Route:
    """Where the dragged token would go: anchors from the start to the target."""

    target: Cell
    path: list[Cell]
    legal: bool  # every leg was found by the search (it may still cost too much)
    cost_ft: float | None  # path_cost_ft of a legal path
    # The legs (start -> waypoint 1 -> ... -> target) and whether the search found each one;
    # a leg it did not find is a straight line of steps.
    legs: list[list[Cell]] = field(default_factory=list)
    found: list[bool] = field(default_factory=list)


class MoveDrag:
    """The state of one token drag, from press to release."""

    def __init__(self, controller: TableController, cid: str, grab: Cell = (0, 0)) -> None:
        engine = controller.engine
        encounter = controller.encounter
        c = encounter.combatant(cid)
        token = encounter.tokens[cid]
        self.cid = cid
        self.name = c.name
        self.size = c.size
        self.start: Cell = (token.cell[0], token.cell[1])
        self.grab = grab  # the pressed cell relative to the anchor
        self.map_width = encounter.map.width
        self.map_height = encounter.map.height
        self.fighting = encounter.combat.phase is Phase.FIGHTING
        left = engine.feet_left(cid)
        self.in_turn = left is not None
        self.left_ft = float(left) if left is not None else float(c.move_ft)
        turn = encounter.combat.turn
        self.diagonals = turn.diagonals if turn is not None and turn.combatant == cid else 0
        # Asked once per press; every cursor move reuses them.
        self.reach = engine.reach(cid)
        self.rules = engine.move_rules(cid)
        self.enemies, self.occupied = engine.blockers(cid)
        self.hidden = hidden_cells(controller, but=cid)  # tokens the players do not see
        # Hidden by the GM, or in the fog where the Party does not see: the players' copy leaves them out.
        self.hidden_ids = players_unseen(controller) - {cid}
        self.engine = engine
        self._provoked: tuple[tuple[Cell, ...], list[Provocation]] | None = None
        self.terrain = encounter.map.terrain
        self.walls = encounter.map.walls
        self.waypoints: list[Cell] = []
        # Legs through the pinned waypoints: (path, legal, remaining budget, diagonals) after each.
        self._prefix: list[tuple[list[Cell], bool, float, int]] = []
        self._route: Route | None = None
        self._reaches: dict[tuple[Cell, float, int], movement.Reach] = {}
        if self.fighting:
            self._reach_from(self.start, self.left_ft, self.diagonals)  # at the press, not mid-drag
        # The same drag as if the hidden tokens were not there, for the players' copy (None when
        # no hidden token stands in the way: the players may see the GM's).
        self.players: MoveDrag | None = self._without_hidden()

    def _without_hidden(self) -> MoveDrag | None:
        if not self.hidden & (self.enemies | self.occupied):
            return None
        twin = copy.copy(self)  # shares the waypoints list: a pin is pinned for both
        inputs = self.mover_inputs().without(self.hidden)
        twin.enemies, twin.occupied = inputs.enemies, inputs.occupied
        twin.reach = inputs.reach(self.terrain)
        twin.hidden = frozenset()
        twin.players = None
        twin._provoked = None
        twin._prefix = []
        twin._route = None
        twin._reaches = {}
        if twin.fighting:
            twin._reach_from(twin.start, twin.left_ft, twin.diagonals)
        return twin

    # -- what the press found ------------------------------------------------------------------

    def mover_inputs(self) -> MoverInputs:
        """The engine's reach inputs this press gathered, for the hover overlays to reuse."""
        return MoverInputs(self.start, self.size, self.left_ft, self.rules, self.enemies, self.occupied, self.diagonals)

    @property
    def free(self) -> bool:
        """Outside combat a move is free positioning: no movement is spent or checked."""
        return not self.fighting

    def reach_mask(self) -> CellMask | None:
        """The cells the token's body can cover at the end of a legal move (none when free)."""
        if self.free:
            return None
        return CellMask.from_cells(self.reach.cells() | {self.start}).grown(self.size)

    def blocked_cells(self) -> list[Cell]:
        """Cells next to the reachable area that cannot be entered (walls, enemies)."""
        return self._blocked(self.reach, self.enemies)

    def _blocked(self, reach: movement.Reach, enemies: frozenset[Cell]) -> list[Cell]:
        cells: set[Cell] = set()
        for anchor in reach.blocked():
            for cell in footprint(anchor, self.size):
                if cell in self.walls or cell in enemies:
                    cells.add(cell)
        return sorted(cells)

    def for_players(self) -> tuple[CellMask | None, list[Cell]] | None:
        """The reach and blocked cells as the players may see them: searched as if hidden tokens
        were not there, so no hole or cross gives them away. None when no hidden token is in the way."""
        twin = self.players
        if twin is None:
            return None
        return twin.reach_mask(), twin.blocked_cells()

    def anchor_for(self, cell: Cell) -> Cell:
        """The anchor that puts the grabbed part of the token on ``cell``, kept on the map."""
        x = min(max(cell[0] - self.grab[0], 0), self.map_width - self.size)
        y = min(max(cell[1] - self.grab[1], 0), self.map_height - self.size)
        return (x, y)

    def end_looks_bad(self, anchor: Cell, occupant: dict[Cell, str]) -> bool:
        """A hint for the ghost: its footprint lies on a wall or on another token."""
        return any(
            cell in self.walls or occupant.get(cell, self.cid) != self.cid for cell in footprint(anchor, self.size)
        )

    # -- the route -----------------------------------------------------------------------------

    def _reach_from(self, a: Cell, budget: float, diagonals: int) -> movement.Reach:
        """One search from a leg's start, a little past the budget, reused for every cursor cell."""
        key = (a, round(budget, 6), diagonals)
        found = self._reaches.get(key)
        if found is None:
            if len(self._reaches) > 8:
                self._reaches.clear()
            found = movement.reachable(
                self.terrain,
                a,
                self.size,
                max(budget, 0.0) + EXTRA_SEARCH_FT,
                self.rules,
                enemies=self.enemies,
                occupied=self.occupied,
                diagonals_before=diagonals,
            )
            self._reaches[key] = found
        return found

    def _leg(self, a: Cell, b: Cell, budget: float, diagonals: int, first: bool) -> list[Cell] | None:
        """Cheapest route a -> b (maybe over budget); None if the bounded search finds none."""
        if a == b:
            return [a]
        if first:
            path = self.reach.path_to(b)  # the press's own reach: within the budget
            if path is not None:
                return path
        return self._reach_from(a, budget, diagonals).path_to(b)

    def _leg_cost(self, path: list[Cell], diagonals: int) -> float:
        try:
            return movement.path_cost_ft(
                self.terrain,
                path,
                self.size,
                self.rules,
                enemies=self.enemies,
                occupied=self.occupied,
                diagonals_before=diagonals,
            )
        except ValueError:
            return math.inf

    def _build_prefix(self) -> None:
        self._prefix = []
        at, budget, diagonals = self.start, self.left_ft, self.diagonals
        for i, waypoint in enumerate(self.waypoints):
            path = self._leg(at, waypoint, budget, diagonals, first=i == 0)
            legal = path is not None
            if path is None:
                path = chebyshev_line(at, waypoint)
            else:
                budget -= self._leg_cost(path, diagonals)
                diagonals += movement.diagonal_steps(path)
            self._prefix.append((path, legal, budget, diagonals))
            at = waypoint
        if self.waypoints:
            self._reach_from(at, budget, diagonals)  # ready for the next cursor move

    def route_to(self, target: Cell) -> Route:
        """The route through the waypoints to ``target`` (an anchor)."""
        if self.free:
            path = [self.start, target] if target != self.start else [self.start]
            return Route(target, path, True, 0.0, [path], [True])
        legs = [leg for leg, _, _, _ in self._prefix]
        found = [ok for _, ok, _, _ in self._prefix]
        at, budget, diagonals = self.start, self.left_ft, self.diagonals
        if self._prefix:
            _, _, budget, diagonals = self._prefix[-1]
            at = self.waypoints[-1]
        last = self._leg(at, target, budget, diagonals, first=not self._prefix)
        found.append(last is not None)
        legs.append(last if last is not None else chebyshev_line(at, target))
        path = [self.start]
        for leg in legs:
            path += leg[1:]
        legal = all(found)
        cost = None
        if legal:
            cost = self._leg_cost(path, self.diagonals)
            if math.isinf(cost):
                legal, cost = False, None
        self._route = Route(target, path, legal, cost, legs, found)
        return self._route

    # -- waypoints -----------------------------------------------------------------------------

    def pin(self, anchor: Cell) -> bool:
        """Pin a waypoint; the route must pass through it."""
        if anchor == self.start or (self.waypoints and self.waypoints[-1] == anchor):
            return False
        self.waypoints.append(anchor)
        self._build_prefix()
        if self.players is not None:
            self.players._build_prefix()
        return True

    def unpin(self) -> bool:
        if not self.waypoints:
            return False
        self.waypoints.pop()
        self._build_prefix()
        if self.players is not None:
            self.players._build_prefix()
        return True

    # -- the end -------------------------------------------------------------------------------

    def action(self, target: Cell, forced: bool) -> Move | None:
        """The one action a release on ``target`` asks for; None when it ends where it began."""
        if target == self.start:
            return None
        if forced:
            return Move(self.cid, to=target, forced=True)
        if self.free:
            return Move(self.cid, to=target)
        route = self._route if self._route is not None and self._route.target == target else self.route_to(target)
        if route.legal:
            return Move(self.cid, path=tuple(route.path))
        if not self.waypoints:
            return Move(self.cid, to=target)  # the engine finds the way, or says why there is none
        # The GM's route has a leg the bounded search did not find: search that leg without a bound.
        path = [self.start]
        at, diagonals = self.start, self.diagonals
        for waypoint in [*self.waypoints, target]:
            found = movement.cheapest_path(
                self.terrain,
                at,
                waypoint,
                self.size,
                math.inf,
                self.rules,
                enemies=self.enemies,
                occupied=self.occupied,
                diagonals_before=diagonals,
            )
            leg = found[0] if found is not None else chebyshev_line(at, waypoint)
            diagonals += movement.diagonal_steps(leg)
            path += leg[1:]
            at = waypoint
        # If a leg still has no way through, its straight steps let the engine name the step at fault.
        return Move(self.cid, path=tuple(path))

    # -- free attacks ----------------------------------------------------------------------------

    @property
    def provocation_word(self) -> str:
        """The ruleset's name for a provoked attack ("Counter-attack"), or the generic one."""
        return str(self.engine.ruleset.movement.provocation_word or FREE_ATTACK)

    def provocations(self, route: Route, forced: bool) -> list[Provocation]:
        """The steps of ``route`` that give enemies a free attack, as the ruleset says; none for a
        forced move or outside combat. Asked once per route (the last answer is kept)."""
        if forced or self.free or len(route.path) < 2:
            return []
        turn = self.engine.encounter.combat.turn
        if turn is None or turn.combatant != self.cid:
            return []  # the drop would be refused (or be a forced move): nothing would be provoked
        key = tuple(route.path)
        if self._provoked is None or self._provoked[0] != key:
            try:
                found = list(self.engine.ruleset.movement.provocations(self.engine, self.cid, list(route.path)))
            except RulesError:
                found = []
            self._provoked = (key, found)
        return self._provoked[1]

    def attacker_names(self, steps: list[Provocation], for_players: bool = False) -> list[str]:
        """The names of those who would attack, each once, in path order (``for_players``: the
        tokens hidden from the players left out)."""
        names: list[str] = []
        seen: set[str] = set()
        for step in steps:
            for cid in step.attackers:
                if cid in seen or (for_players and cid in self.hidden_ids):
                    continue
                seen.add(cid)
                try:
                    names.append(self.engine.combatant(cid).name)
                except RulesError:
                    names.append(cid)
        return names

    def provocation_line(self, steps: list[Provocation], for_players: bool = False) -> str:
        """'Counter-attack from: Ogre, Goblin 2' (the label's line), or "" when nothing provokes."""
        names = self.attacker_names(steps, for_players)
        return f"{self.provocation_word} from: {', '.join(names)}" if names else ""

    def describe(self, route: Route, forced: bool) -> tuple[str, str, str]:
        """(status text, map label, mood) for the route; mood is 'ok', 'far' or 'forced'."""
        x, y = route.target
        if route.target == self.start:
            return f"{self.name}: back to the start", "", "ok"
        if forced:
            return f"{self.name}: forced move to ({x}, {y}), costs no movement", "forced", "forced"
        if self.free:
            return f"{self.name}: place at ({x}, {y})", "", "ok"
        via = ""
        if self.waypoints:
            n = len(self.waypoints)
            via = f" via {n} waypoint{'s' if n > 1 else ''}"
        not_turn = "" if self.in_turn else f" (not {self.name}'s turn: hold Shift for a forced move)"
        left = self.left_ft
        if route.legal and route.cost_ft is not None:
            cost = route.cost_ft
            if cost <= left + _EPS:
                return f"{self.name}: path {cost:g} ft{via}, {left - cost:g} ft left{not_turn}", f"{cost:g} ft", "ok"
            over = cost - left
            return (
                f"{self.name}: path {cost:g} ft{via}, {over:g} ft too far ({left:g} ft left){not_turn}",
                f"{cost:g} ft > {left:g}",
                "far",
            )
        return f"{self.name}: no legal path to ({x}, {y}){via} ({left:g} ft left){not_turn}", "no path", "far"


@dataclass
class _Look:
    """What the drag's items show for one route: the GM's, or the players' copy."""

    lines: list[list[QPointF]]
    waypoints: list[QPointF]
    color: QColor
    dashed: bool
    gaps: list[tuple[QPointF, QPointF]]
    rings: list[Cell]  # the anchors of the steps that provoke
    label: str
    mood: str


class DragLabel(LabelItem):
    """The drag's label at the destination, clear of the footprint there: above it (below it near the
    top of the view), slid left to stay in the view; beside it when neither above nor below has room.
    It never covers the token the GM is about to drop (nor the one standing there)."""

    GAP = 4.0  # screen pixels between the footprint and the box

    def __init__(self, z: float = LABEL_Z) -> None:
        super().__init__(z)
        self.half_side = 0.0  # half the footprint's side, in scene units

    def set_footprint(self, size: int) -> None:
        self.half_side = size * CELL_PX / 2

    def keep_in_view(self) -> None:
        scene = self.scene()
        if not self.text or scene is None or not scene.views():
            return
        view = scene.views()[0]
        at = view.mapFromScene(self.pos())
        room = QRectF(view.viewport().rect())
        clear = self.half_side * view.transform().m11()
        own = self._clear_of(self, at.x(), at.y(), room, clear)
        twin = self._players
        seen = self._clear_of(twin, at.x(), at.y(), room, clear) if twin is not None else None
        if own == (self._text, self._rect) and (twin is None or seen == (twin._text, twin._rect)):
            return
        self.prepareGeometryChange()
        self._text, self._rect = own
        if twin is not None and seen is not None:
            twin._text, twin._rect = seen
        self.update()

    def _clear_of(self, label: LabelItem, x0: float, y0: float, room: QRectF, clear: float) -> tuple[str, QRectF]:
        """``label``'s text and box for an anchor (the footprint's centre) at (x0, y0) in a view of
        ``room``, outside the square of half side ``clear`` round the anchor."""
        text, rect = label._fitted(x0, y0, int(room.width()))  # its words broken to fit, its x slid in view
        width, height = rect.width(), rect.height()
        gap = self.GAP * self._ui_scale
        above = -clear - gap - height
        below = clear + gap
        if y0 + above >= room.top():
            return text, QRectF(rect.x(), above, width, height)
        if y0 + below + height <= room.bottom():
            return text, QRectF(rect.x(), below, width, height)
        # A footprint nearly as tall as the view: beside it, right if there is room, else left.
        y = min(max(-height / 2, room.top() - y0), room.bottom() - y0 - height)
        x = clear + gap if x0 + clear + gap + width <= room.right() else -clear - gap - width
        return text, QRectF(x, y, width, height)


class DragLayer:
    """The items that show a token drag; hidden between drags."""

    def __init__(self, scene: QGraphicsScene) -> None:
        self.label_back = {
            "ok": QColor(20, 20, 20, 225),
            "far": QColor(170, 40, 10, 235),
            "forced": QColor(90, 50, 130, 235),
        }
        self.reach = CellsItem(REACH_STYLE, REACH_Z)
        self.blocked = CellsItem(BLOCKED_STYLE, BLOCKED_Z)
        self.path = PathItem()
        self.label = DragLabel(LABEL_Z)
        self.start = MarkerItem(QColor("#1a1a1a"), Qt.PenStyle.DashLine)
        self.provoke = ProvocationItem()
        for item in self.items():
            scene.addItem(item)
        self.hide()

    def items(self) -> list:
        return [self.reach, self.blocked, self.path, self.provoke, self.label, self.start]

    def set_ui_scale(self, factor: float) -> None:
        """The label, the waypoints' numbers and the "!" badges grow with the UI scale (1.0 = 100 %)."""
        self.label.set_ui_scale(factor)
        self.path.set_ui_scale(factor)
        self.provoke.set_ui_scale(factor)

    def show_press(self, drag: MoveDrag) -> None:
        """The drag became real: shade what the press found."""
        players = drag.for_players()
        self.reach.set_cells(drag.reach_mask(), players=(players[0], ()) if players is not None else None)
        blocked = drag.blocked_cells()
        self.blocked.set_cells(
            CellMask.from_cells(blocked),
            blocked,
            players=(CellMask.from_cells(players[1]), players[1]) if players is not None else None,
        )
        self.start.show_at(drag.start, drag.size)
        for item in self.items():
            item.set_about(drag.cid)
            item.show()

    def show_route(self, drag: MoveDrag, route: Route, forced: bool) -> str:
        """Draw the route and its label (the players' copy: the route as it goes without hidden
        tokens); returns the status text."""
        info, look = self._look(drag, route, forced)
        twin = drag.players
        if twin is not None and not forced:
            _, seen = self._look(twin, twin.route_to(route.target), forced, for_players=True)
        else:
            _, seen = self._look(drag, route, forced, for_players=True)
        self.path.set_route(look.lines, look.waypoints, look.color, look.dashed, look.gaps)
        if (seen.lines, seen.color, seen.gaps) != (look.lines, look.color, look.gaps):
            self.path.set_players_route(seen.lines, seen.waypoints, seen.color, seen.dashed, seen.gaps)
        self.provoke.set_marks(look.rings, drag.size, players=None if seen.rings == look.rings else seen.rings)
        self.provoke.setVisible(bool(look.rings or seen.rings))
        self.label.setPos(footprint_centre(route.target, drag.size))
        self.label.set_footprint(drag.size)
        same = (seen.label, seen.mood) == (look.label, look.mood)
        self.label.set_text(
            look.label,
            self.label_back[look.mood],
            None if same else seen.label,
            None if same else self.label_back[seen.mood],
        )
        self.label.keep_in_view()
        self.label.setVisible(bool(look.label or seen.label))
        return info

    def _look(self, drag: MoveDrag, route: Route, forced: bool, for_players: bool = False) -> tuple[str, _Look]:
        """(status text, what the items show) for ``route``; ``for_players``: the attackers the
        players do not see left out."""
        info, label, mood = drag.describe(route, forced)
        size = drag.size
        waypoints = [footprint_centre(w, size) for w in drag.waypoints]
        lines: list[list[QPointF]] = []
        gaps: list[tuple[QPointF, QPointF]] = []
        color, dashed = PathItem.OK, False
        if route.target == drag.start:
            waypoints = []
        elif forced or drag.free:
            lines = [[footprint_centre(drag.start, size), footprint_centre(route.target, size)]]
            color, dashed, waypoints = (PathItem.FORCED if forced else PathItem.OK), True, []
        else:
            for leg, ok in zip(route.legs, route.found, strict=True):
                if ok:
                    lines.append([footprint_centre(cell, size) for cell in leg])
                else:  # nothing found: a dotted straight line, not something that looks like a route
                    gaps.append((footprint_centre(leg[0], size), footprint_centre(leg[-1], size)))
            color = PathItem.OK if mood == "ok" else PathItem.TOO_FAR
        steps = drag.provocations(route, forced)
        hidden = drag.hidden_ids if for_players else frozenset()
        rings = [step.cell for step in steps if set(step.attackers) - hidden]
        line = drag.provocation_line(steps, for_players)
        if line:
            info = f"{info}; {line}"
            label = f"{label}\n{line}" if label else line
        return info, _Look(lines, waypoints, color, dashed, gaps, rings, label, mood)

    def hide(self) -> None:
        for item in self.items():
            item.hide()
        self.path.clear()
        self.reach.clear()
        self.blocked.clear()
        self.provoke.clear()
        self.label.set_text("")
