"""Who covers each cell of the map: an index the engine keeps between actions.

Every move asks which cells the other tokens cover and which of them bar the way (enemies that
are not down). Worked out from every token, that costs about a millisecond on a 500-token map,
twice per move; this index is brought up to date from what each change touched
(:class:`lnl_desktop.core.engine.history.Touched`), so a move costs the moved token only.
"""

from __future__ import annotations

from lnl_desktop.core.encounter.model import CombatantBase, Encounter, Side
from lnl_desktop.core.engine.history import Touched
from lnl_desktop.core.map.grid import Cell, footprint


class Occupancy:
    """The cells each token covers, who covers each cell, and the cells of those standing (not down) by side."""

    __slots__ = ("cover", "encounter", "of", "pending", "standing")

    def __init__(self, encounter: Encounter) -> None:
        self.encounter = encounter
        self.of: dict[str, tuple[tuple[Cell, ...], Side, bool]] = {}  # id: (cells, side, standing)
        self.cover: dict[Cell, set[str]] = {}
        self.standing: dict[Side, dict[Cell, set[str]]] = {side: {} for side in Side}
        # Ids changed since the index was last brought up to date; None: anything may have.
        self.pending: set[str] | None = None

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
        elif self.pending:
            by_id = {c.id: c for c in encounter.combatants} if len(self.pending) > 8 else None
            for cid in self.pending:
                self._drop(cid)
                if cid in encounter.tokens:
                    self._add(cid, by_id)
            self.pending.clear()
        return self

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
