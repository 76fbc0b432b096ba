"""The rules overlays: what the selected combatant reaches (its melee and reach rings, the too-close
ring and longest range of a ranged weapon) and what a hovered token sees (its vision cone, the cells
it cannot see and, through them, the selected combatant's unseen approach), all from the core's
distance functions, sight and the engine's reach, so they agree with what the engine will allow.

The items that draw them are :mod:`lnl_desktop.ui.map.overlays`'. :class:`MoverInputs` holds what
``Engine.reach`` searches with, so a drag and a hover can search again without the engine, and
:func:`hidden_cells` the cells a players' copy of an overlay must not be shaped by.
"""

from __future__ import annotations

import contextlib
import math
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from weakref import WeakKeyDictionary

from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

from lnl_desktop.core.encounter.map_model import MapGrid
from lnl_desktop.core.encounter.model import CombatantBase, Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map import grid, movement, sight, visibility
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.map.terrain import Terrain
from lnl_desktop.lazy import loaded
from lnl_desktop.ui.map.fog import players_unseen
from lnl_desktop.ui.map.geometry import CellMask, footprint_centre, within_ft
from lnl_desktop.ui.map.overlays import (
    BLIND_STYLE,
    MAX_RANGE_STYLE,
    MELEE_STYLE,
    REACH_WEAPON_STYLE,
    RULES_Z,
    SIGHT_Z,
    TOO_CLOSE_STYLE,
    UNSEEN_APPROACH_STYLE,
    UNSEEN_APPROACH_Z,
    CellsItem,
    ConeItem,
)
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.collector import Inbox
from lnl_desktop.ui.plumbing.controller import TableController

_hidden: WeakKeyDictionary[TableController, tuple[tuple[int, str | None], frozenset[Cell]]] = WeakKeyDictionary()


def hidden_cells(controller: TableController, but: str | None = None) -> frozenset[Cell]:
    """The cells under tokens the players do not see (hidden, or in the fog; ``but`` one's own):
    what a players' copy of an overlay must not be shaped by. Once per change of the encounter."""
    key = (controller.revision, but)
    kept = _hidden.get(controller)
    if kept is not None and kept[0] == key:
        return kept[1]
    found = _hidden_cells(controller, but)
    _hidden[controller] = (key, found)
    return found


def _hidden_cells(controller: TableController, but: str | None) -> frozenset[Cell]:
    encounter = controller.encounter
    unseen = players_unseen(controller)
    by_id = encounter.by_id() if unseen else {}
    cells: set[Cell] = set()
    for cid in unseen:
        token = encounter.tokens.get(cid)
        c = by_id.get(cid) if cid != but else None
        if c is not None and token is not None:
            cells.update(grid.footprint(token.cell, c.size))
    return frozenset(cells)


@dataclass(frozen=True)
class MoverInputs:
    """The inputs of ``Engine.reach`` for one combatant, so a search can run again without the engine."""

    start: Cell
    size: int
    budget_ft: float
    rules: movement.MoveRules
    enemies: frozenset[Cell]
    occupied: frozenset[Cell]
    diagonals: int

    @classmethod
    def of(cls, controller: TableController, cid: str) -> MoverInputs:
        # Exactly what Engine.reach(cid) uses (tests check that both find the same cells).
        engine = controller.engine
        encounter = controller.encounter
        c = encounter.combatant(cid)
        token = encounter.tokens.get(cid)
        if token is None:
            raise RulesError(f"{c.name} is not on the map")
        left = engine.feet_left(cid)
        turn = encounter.combat.turn
        enemies, occupied = engine.blockers(cid)
        return cls(
            start=token.cell,
            size=c.size,
            budget_ft=left if left is not None else float(c.move_ft),
            rules=engine.move_rules(cid),
            enemies=enemies,
            occupied=occupied,
            diagonals=turn.diagonals if turn is not None and turn.combatant == cid else 0,
        )

    def without(self, cells: frozenset[Cell]) -> MoverInputs:
        """The same search as if nothing stood on ``cells`` (hidden tokens, for the players' copy)."""
        return replace(self, enemies=self.enemies - cells, occupied=self.occupied - cells)

    def reach(self, terrain: Terrain, allowed: Callable[[Cell], bool] | None = None) -> movement.Reach:
        return movement.reachable(
            terrain,
            self.start,
            self.size,
            self.budget_ft,
            self.rules,
            enemies=self.enemies,
            occupied=self.occupied,
            allowed=allowed,
            diagonals_before=self.diagonals,
        )


_STALE = object()  # an overlay key no state has: the next refresh rebuilds
MAX_SIZE = 4  # the largest footprint, in cells a side (Combatant.size)


# A hovered creature's view is worked out on a worker when its map has this many cells (below,
# with thousands of wall lines, a view takes 0.1-5 ms; on 300 x 300, 3-40 ms).
VIEW_LATER_CELLS = 20_000
VIEW_POLL_MS = 15  # while views are being worked out, the workers' results are looked for this often


def _unseen_near(near: object) -> bool:
    """Whether a token the players do not see stands within the unseen approach's search (``near`` from
    ``RulesOverlays._near``; True when the search has no bound)."""
    if not isinstance(near, tuple) or not isinstance(near[-1], tuple):
        return True
    return any(entry[-1] for entry in near[-1])


def _work_view_out(
    grid_map: MapGrid, cell: Cell, size: int, key: tuple[int, Cell, int], done: queue.SimpleQueue[tuple[int, Cell, int]]
) -> None:
    """A worker: the view from ``cell`` worked out into sight's cache, then ``key`` put on ``done``."""
    try:
        with contextlib.suppress(ValueError):
            visibility.visible_mask(grid_map, cell, size)
    finally:
        done.put(key)


class RulesOverlays:
    """The rules overlays of the selected combatant and of the token under the cursor."""

    CONE_RADIUS_CELLS = 8

    def __init__(self, scene: QGraphicsScene, controller: TableController) -> None:
        self.controller = controller
        self.melee = CellsItem(MELEE_STYLE, RULES_Z)
        self.reach_weapon = CellsItem(REACH_WEAPON_STYLE, RULES_Z)
        self.too_close = CellsItem(TOO_CLOSE_STYLE, RULES_Z)
        self.max_range = CellsItem(MAX_RANGE_STYLE, RULES_Z)
        self.cone = ConeItem()
        self.unseen_approach = CellsItem(UNSEEN_APPROACH_STYLE, UNSEEN_APPROACH_Z)  # reached out of its sight
        self.blind = CellsItem(BLIND_STYLE, SIGHT_Z)  # what a hovered foe does not see
        self._selected_items = (self.melee, self.reach_weapon, self.too_close, self.max_range)
        for item in (*self._selected_items, self.cone, self.unseen_approach, self.blind):
            scene.addItem(item)
        self._selected_key: object = _STALE
        self._hover_key: object = _STALE
        self.hovered: str | None = None
        self._hide_selected = False
        self._state = 0  # bumped whenever the encounter may have changed
        self._mover: tuple[tuple[str, int], MoverInputs] | None = None
        self._views_pending: set[tuple[int, Cell, int]] = set()
        # The views the workers have worked out, read on the GUI thread by a timer while some are
        # pending: a worker is given plain data only and touches no Qt object (ui.collector).
        self._views_done = Inbox(self._view_done, lambda: bool(self._views_pending), VIEW_POLL_MS)

    def items(self) -> list[QGraphicsItem]:
        return [*self._selected_items, self.cone, self.unseen_approach, self.blind]

    def _view_later(self, grid_map: MapGrid, cell: Cell, size: int) -> bool:
        """Whether the hovered creature's view is still to be worked out: if so, a worker does it (on a
        walled map a view takes 5-40 ms, more than a frame mid-drag) and the hover is refreshed when
        it is done. Views once worked out are kept, so the next hover over it is at once."""
        if grid_map.width * grid_map.height < VIEW_LATER_CELLS:
            return False  # a view of a small map costs a few milliseconds at most: at once
        if not (grid_map.segments or grid_map.doors or grid_map.walls) or not loaded("numpy"):
            return False  # an open map's view costs little; and the lazy loader has no lock
        if not (0 <= cell[0] < grid_map.width and 0 <= cell[1] < grid_map.height):
            return False  # off the map: it sees nothing there, said at once
        if visibility.view_known(grid_map, cell, size):
            return False
        key = (id(grid_map), cell, size)
        if key not in self._views_pending:
            self._views_pending.add(key)
            args = (grid_map, cell, size, key, self._views_done.queue)
            threading.Thread(target=_work_view_out, args=args, name="lnl-hover-view", daemon=True).start()
            self._views_done.expect()
        return True

    def _view_done(self, key: tuple[int, Cell, int]) -> None:
        """On the GUI thread: a worker has worked a view out; the hover is looked at again."""
        self._views_pending.discard(key)
        self._hover_key = _STALE
        self._refresh_hover()

    def invalidate(self) -> None:
        """The encounter changed: check on the next refresh what the overlays are made of."""
        # Both keys hold all their overlays are made of: the selected combatant's rings its cell,
        # size and weapons, the ruleset and the map's measures; the hovered token's its own and the
        # selected combatant's state and the tokens within the selected combatant's move (see
        # `_near`). So a token's move far from both redraws none of them.
        self._state += 1
        self._mover = None

    def prime(self, cid: str, inputs: MoverInputs) -> None:
        """Reuse what a drag's press already asked the engine for ``cid`` (until the next change)."""
        self._mover = ((cid, self._state), inputs)

    def _mover_inputs(self, cid: str) -> MoverInputs:
        """What ``engine.reach(cid)`` searches with, asked once per state of the encounter.

        ``engine.blockers`` looks every token up by id, which grows with the square of the token
        count (20 ms for 500 tokens): too slow to ask again for every hovered target.
        """
        key = (cid, self._state)
        if self._mover is None or self._mover[0] != key:
            self._mover = (key, MoverInputs.of(self.controller, cid))
        return self._mover[1]

    def set_selected_hidden(self, hidden: bool) -> None:
        """Hide the selected combatant's rings (while its token is being dragged, or pressed on:
        see MapView); they are made again, if the selection changed meanwhile, when shown."""
        if hidden == self._hide_selected:
            return
        self._hide_selected = hidden
        if not hidden:
            self._refresh_selected()
        for item in self._selected_items:
            item.setVisible(not hidden)

    def refresh(self) -> None:
        self._refresh_selected()
        self._refresh_hover()

    def set_hovered(self, cid: str | None) -> None:
        if cid != self.hovered:
            self.hovered = cid
            self._refresh_hover()

    # -- the selected combatant ----------------------------------------------------------------

    def _refresh_selected(self) -> None:
        if self._hide_selected:
            # Not while hidden: Qt repaints where a hidden item was last painted whenever its shape
            # changes (a bow's range ring: most of the map), so they change once shown again.
            return
        encounter = self.controller.encounter
        cid = self.controller.selected
        c = self.controller.combatant(cid) if cid else None
        token = encounter.tokens.get(cid) if cid else None
        key = None
        reach = None
        if c is not None and token is not None:
            reach = self.controller.engine.ruleset.tokens.reach(c)  # the ruleset's words for its weapons
            key = (
                cid,
                token.cell,
                c.size,
                reach,
                self.controller.engine.ruleset.name,
                encounter.map.width,
                encounter.map.height,
                encounter.map.diagonal,
                encounter.map.feet_per_cell,
            )
        if key == self._selected_key:
            return
        self._selected_key = key
        for item in self._selected_items:
            item.clear()
            item.set_about(cid if c is not None else None)
        if c is None or token is None or reach is None:
            return
        grid_map = encounter.map
        args = (grid_map.diagonal, grid_map.feet_per_cell, grid_map.width, grid_map.height)
        anchor = token.cell
        self.melee.set_cells(within_ft(anchor, c.size, 5, *args))
        if reach.melee_ft > 5:
            self.reach_weapon.set_cells(within_ft(anchor, c.size, reach.melee_ft, *args))
        if reach.too_close_ft:  # the ruleset's ranged minimum (10 ft in L&L; none in L&L Classic)
            self.too_close.set_cells(within_ft(anchor, c.size, reach.too_close_ft, *args, closer_than=True))
        if reach.range_ft is not None:
            # Past the map's edge too: the outline then shows the real limit, clipped to the map.
            self.max_range.set_clip(QRectF(0, 0, grid_map.width * style.CELL_PX, grid_map.height * style.CELL_PX))
            self.max_range.set_cells(within_ft(anchor, c.size, reach.range_ft, *args, on_map=False))

    # -- the hovered token ---------------------------------------------------------------------

    def blind_cells(self, anchor: Cell, size: int, facing: int, vision_deg: int) -> CellMask:
        """The map's cells a token on ``anchor`` does not see (behind it, where the ruleset reads
        facing, and in the shadow of walls and closed doors), by the core's own sight."""
        grid_map = self.controller.encounter.map
        cone = self.controller.engine.ruleset.sight_uses_facing
        seen = visibility.visible_mask(grid_map, anchor, size, facing if cone else None, vision_deg)
        return CellMask(0, 0, ~seen)

    def _near(self, s: CombatantBase) -> tuple[object, ...]:
        """All of the table the selected combatant's unseen approach is searched from but the map and
        the hovered token: its movement left and move rules, and every token within that movement
        (plus the largest footprint) with its size and side, whether it is down and whether the
        players see it. A token farther away can neither block nor open a cell the search reaches,
        so its move leaves this the same and the approach is not searched again."""
        engine = self.controller.engine
        encounter = self.controller.encounter
        turn = encounter.combat.turn
        left = engine.feet_left(s.id)
        budget = left if left is not None else float(s.move_ft)
        rules = engine.move_rules(s.id)
        diagonals = turn.diagonals if turn is not None and turn.combatant == s.id else 0
        # Every step costs at least a cell's feet, so the search stays within this many cells.
        steps = math.ceil(budget / rules.feet_per_cell) if rules.feet_per_cell > 0 and budget < math.inf else None
        if steps is None:
            return (budget, rules, diagonals, encounter.tokens)  # no bound: any token may matter
        sx, sy = encounter.tokens[s.id].cell
        lo_x, lo_y = sx - steps - MAX_SIZE, sy - steps - MAX_SIZE
        hi_x, hi_y = sx + s.size + steps, sy + s.size + steps
        unseen = players_unseen(self.controller)
        near = []
        for cid, token in encounter.tokens.items():
            x, y = token.cell
            if lo_x <= x <= hi_x and lo_y <= y <= hi_y and cid != s.id:
                other = self.controller.combatant(cid)
                if other is not None:
                    near.append((cid, token.cell, other.size, other.side, other.down, cid in unseen))
        return (budget, rules, diagonals, tuple(near))

    def _refresh_hover(self) -> None:
        encounter = self.controller.encounter
        target_id = self.hovered
        selected_id = self.controller.selected
        if target_id == selected_id:
            target_id = None
        t = self.controller.combatant(target_id) if target_id else None
        t_token = encounter.tokens.get(target_id) if target_id else None
        key = None
        if t is not None and t_token is not None:
            s = self.controller.combatant(selected_id) if selected_id else None
            s_token = encounter.tokens.get(selected_id) if selected_id else None
            key = (
                t,
                t_token.cell,
                t_token.facing,
                s,
                s_token.cell if s_token else None,
                id(encounter.map),
                self.controller.engine.ruleset.name,
                self._near(s) if s is not None and s_token is not None and s.side is not t.side else None,
            )
        if key == self._hover_key:
            return
        self._hover_key = key
        self.cone.clear()
        self.unseen_approach.clear()
        self.blind.clear()
        self.cone.set_about(target_id if t is not None else None)
        self.unseen_approach.set_about(target_id if t is not None else None, selected_id)
        self.blind.set_about(target_id if t is not None else None)
        if t is None or t_token is None:
            return
        grid_map = encounter.map
        map_rect = QRectF(0, 0, grid_map.width * style.CELL_PX, grid_map.height * style.CELL_PX)
        radius = max(self.CONE_RADIUS_CELLS, t.size * 3) * style.CELL_PX
        self.cone.set_cone(footprint_centre(t_token.cell, t.size), t_token.facing, t.vision_deg, radius, map_rect)
        s = self.controller.combatant(selected_id) if selected_id else None
        foe = t.side is not Side.PARTY if s is None else s.side is not t.side
        if foe and not t.down and self._view_later(grid_map, t_token.cell, t.size):
            return  # the cone now; what it cannot see once a worker has worked out what it sees
        if foe and not t.down:
            with contextlib.suppress(ValueError):  # a token off the map (theatre of the mind) sees nothing on it
                self.blind.set_cells(self.blind_cells(t_token.cell, t.size, t_token.facing, t.vision_deg))
        if s is None or selected_id not in encounter.tokens or s.side is t.side or t.down:
            return
        if t.vision_deg >= 360 and not (grid_map.segments or grid_map.doors or grid_map.walls):
            return  # it sees all around and nothing hides anyone from it
        # Out of its sight: outside its cone or behind a wall, as the core's sight reads it.
        outside = sight.cells_unseen(grid_map, t_token.cell, t.size, t_token.facing, t.vision_deg, s.size)
        inputs = self._mover_inputs(s.id)
        try:
            reach = inputs.reach(grid_map.terrain, allowed=outside)
            # A hidden foe in the way leaves a hole the players must not see: their copy is
            # searched as if it were not there. Only one within the search's reach can (see `_near`:
            # with fog on, most of a big map's tokens are unseen, few of them near).
            players = None
            if _unseen_near(key[-1]):
                hidden = hidden_cells(self.controller, but=s.id)
                players = inputs.without(hidden) if hidden & (inputs.enemies | inputs.occupied) else None
            player_reach = players.reach(grid_map.terrain, allowed=outside) if players is not None else None
        except (RulesError, ValueError):
            return
        self.unseen_approach.set_cells(
            CellMask.from_cells(reach.cells()).grown(s.size),
            players=(CellMask.from_cells(player_reach.cells()).grown(s.size), ()) if player_reach is not None else None,
        )
