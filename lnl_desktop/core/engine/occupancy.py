"""Who covers each cell of the map: an index the engine keeps between actions.

Every move asks which cells the other tokens cover and which of them bar the way (enemies that
are not down). Worked out from every token, that costs about a millisecond on a 500-token map,
twice per move; this index is brought up to date from what each change touched
(:class:`lnl_desktop.core.engine.history.Touched`), so a move costs the moved token only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.model import CombatantBase, Encounter, Side
from lnl_desktop.core.engine.history import Touched
from lnl_desktop.core.map.grid import Cell, footprint
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")


class Occupancy:
    """The cells each token covers, who covers each cell, and the cells of those standing (not down) by side."""

    __slots__ = ("cover", "encounter", "of", "pending", "standing", "table")

    def __init__(self, encounter: Encounter) -> None:
        self.encounter = encounter
        self.of: dict[str, tuple[tuple[Cell, ...], Side, bool]] = {}  # id: (cells, side, standing)
        self.cover: dict[Cell, set[str]] = {}
        self.standing: dict[Side, dict[Cell, set[str]]] = {side: {} for side in Side}
        # Ids changed since the index was last brought up to date; None: anything may have.
        self.pending: set[str] | None = None
        # Every token as arrays for the players' view (see sight_table), patched per change; None: to make.
        self.table: SightTable | None = None

    def note(self, touched: Touched) -> None:
        """Remember what a change touched; the index catches up when next read."""
        if self.pending is None:
            return
        if touched.tokens is None or touched.combatants is None:
            self.pending = None
        else:
            self.pending |= touched.tokens
            self.pending |= touched.combatants

    def current(self, encounter: Encounter) -> Occupancy:
        """The index brought up to date with ``encounter`` (rebuilt for another encounter object)."""
        if encounter is not self.encounter or self.pending is None:
            self.encounter = encounter
            self.of.clear()
            self.cover.clear()
            for cells in self.standing.values():
                cells.clear()
            by_id = {c.id: c for c in encounter.combatants}
            for cid in encounter.tokens:
                self._add(cid, by_id)
            self.pending = set()
            self.table = None
        elif self.pending:
            by_id = {c.id: c for c in encounter.combatants} if len(self.pending) > 8 else None
            for cid in self.pending:
                self._drop(cid)
                if cid in encounter.tokens:
                    self._add(cid, by_id)
                if self.table is not None and not self.table.patch(cid, encounter, self.of.get(cid)):
                    self.table = None
            self.pending.clear()
        return self

    def sight_table(self) -> SightTable:
        """Every token as arrays (its anchor, size, whether it is the Party's, whether hidden), for
        :func:`lnl_desktop.core.engine.party_view.players_unseen`: made once, then patched per change."""
        if self.table is None:
            self.table = SightTable(self.encounter, self.of)
        return self.table

    def _add(self, cid: str, by_id: dict[str, CombatantBase] | None) -> None:
        e = self.encounter
        c = by_id.get(cid) if by_id is not None else next((c for c in e.combatants if c.id == cid), None)
        if c is None:
            return  # a token without its combatant covers nothing the rules read
        cells = tuple(footprint(e.tokens[cid].cell, c.size))
        up = not c.down
        side = c.side
        self.of[cid] = (cells, side, up)
        for cell in cells:
            self.cover.setdefault(cell, set()).add(cid)
            if up:
                self.standing[side].setdefault(cell, set()).add(cid)

    def _drop(self, cid: str) -> None:
        was = self.of.pop(cid, None)
        if was is None:
            return
        cells, side, up = was
        for cell in cells:
            _discard(self.cover, cell, cid)
            if up:
                _discard(self.standing[side], cell, cid)

    def blockers(self, cid: str, side: Side) -> tuple[frozenset[Cell], frozenset[Cell]]:
        """(cells of standing tokens of another side than ``side``, cells of every token but ``cid``)."""
        occupied = set(self.cover)
        mine = self.of.get(cid)
        if mine is not None:
            for cell in mine[0]:
                if len(self.cover[cell]) == 1:
                    occupied.discard(cell)
        enemies: set[Cell] = set()
        for other, cells in self.standing.items():
            if other is not side:
                enemies.update(cells)
        return frozenset(enemies), frozenset(occupied)


def _discard(index: dict[Cell, set[str]], cell: Cell, cid: str) -> None:
    who = index.get(cell)
    if who is not None:
        who.discard(cid)
        if not who:
            del index[cell]


def rebuilt_blockers(encounter: Encounter, cid: str) -> tuple[frozenset[Cell], frozenset[Cell]]:
    """:meth:`Occupancy.blockers` worked out afresh from every token (mid-action, and for tests)."""
    mover = encounter.combatant(cid)
    return Occupancy(encounter).current(encounter).blockers(cid, mover.side)


class SightTable:
    """The tokens the players' view looks at, as arrays in one order: ``ids``, ``xs`` and ``ys`` (the
    anchor cell), ``sizes``, ``party`` (of the Party) and ``hidden`` (by the GM). Kept by the engine's
    :class:`Occupancy` and patched in place for a token moved, turned or hidden; a token placed or
    taken off, or a combatant's side changed, makes it anew."""

    __slots__ = ("hidden", "ids", "party", "rows", "sizes", "xs", "ys")

    def __init__(self, encounter: Encounter, of: dict[str, tuple[tuple[Cell, ...], Side, bool]]) -> None:
        tokens = encounter.tokens
        self.ids = [cid for cid in tokens if cid in of]
        self.rows = {cid: row for row, cid in enumerate(self.ids)}
        n = len(self.ids)
        self.xs = np.fromiter((tokens[cid].cell[0] for cid in self.ids), np.int64, n)
        self.ys = np.fromiter((tokens[cid].cell[1] for cid in self.ids), np.int64, n)
        self.sizes = np.fromiter((_size(of[cid][0]) for cid in self.ids), np.int64, n)
        self.party = np.fromiter((of[cid][1] is Side.PARTY for cid in self.ids), bool, n)
        self.hidden = np.fromiter((tokens[cid].hidden for cid in self.ids), bool, n)

    def patch(self, cid: str, encounter: Encounter, entry: Any) -> bool:
        """Bring ``cid``'s row up to date; False when the rows themselves changed (make it anew)."""
        row = self.rows.get(cid)
        token = encounter.tokens.get(cid)
        if row is None or token is None or entry is None:
            return row is None and (token is None or entry is None)  # never listed, still not: nothing to do
        cells, side, _ = entry
        if (side is Side.PARTY) != bool(self.party[row]):
            return False
        self.xs[row], self.ys[row] = token.cell
        self.sizes[row] = _size(cells)
        self.hidden[row] = token.hidden
        return True


def _size(cells: tuple[Cell, ...]) -> int:
    """A footprint's side, from its cells (a size-n creature covers n x n)."""
    return max(1, round(len(cells) ** 0.5))
