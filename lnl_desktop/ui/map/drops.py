"""Drops on the map from the docks (a mixin of :class:`~lnl_desktop.ui.map.view.MapView`): a
combatant from the Combatants table placed (or moved, forced) where it is dropped, a creature from
the Bestiary added there, facing the other side; files from the desktop go to the main window.
The drop marker shows the footprint the token would take while the drag is over the map.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QPointF
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDragMoveEvent, QDropEvent

from lnl_desktop.core.encounter.actions import Action, AddCombatant, Move, PlaceToken
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.map import grid
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.ui.map.overlays import MarkerItem
from lnl_desktop.ui.map.token_gestures import view_ahead_for_drop
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.mime import (
    MIME_COMBATANT,
    MIME_CREATURE,
    MIME_PARTY,
    FileDrops,
    creature_for,
    read_combatant,
    read_creature,
    read_party,
)


class TokenDrops:
    """The view's drops from the docks and the desktop."""

    # What the mixin uses of the view it is part of.
    controller: TableController
    files_dropped: FileDrops
    _drop_marker: MarkerItem

    if TYPE_CHECKING:  # the view's own, for the type checker

        def cell_of(self, pos: QPointF | QPoint) -> Cell: ...
        def on_map(self, cell: Cell) -> bool: ...
        def do(self, action: Action) -> list[Event] | None: ...
        def _hover(self, cell: Cell | None) -> None: ...

    # -- drops from the docks --------------------------------------------------------------------

    def _drop_anchor(self, pos: QPointF, size: int) -> Cell | None:
        cell = self.cell_of(pos)
        if not self.on_map(cell):
            return None
        grid_map = self.controller.encounter.map
        x = min(max(cell[0] - (size - 1) // 2, 0), max(0, grid_map.width - size))
        y = min(max(cell[1] - (size - 1) // 2, 0), max(0, grid_map.height - size))
        return (x, y)

    def _drop_size(self, event: QDropEvent | QDragMoveEvent) -> int | None:
        data = event.mimeData()
        cid = read_combatant(data)
        if cid is not None:
            c = self.controller.combatant(cid)
            return c.size if c is not None else 1
        party = read_party(data)
        creature = party[2] if party is not None else read_creature(data)
        if creature is not None:
            size = creature.get("size", 1)
            return size if isinstance(size, int) and 1 <= size <= 4 else 1
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        data = event.mimeData()
        if data.hasFormat(MIME_COMBATANT) or data.hasFormat(MIME_CREATURE) or data.hasFormat(MIME_PARTY):
            event.acceptProposedAction()
            self._show_drop(event)
        elif self.files_dropped.accepts(data):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self.files_dropped.accepts(event.mimeData()) or self._show_drop(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._drop_marker.hide()
        event.accept()

    def _show_drop(self, event: QDragMoveEvent) -> bool:
        size = self._drop_size(event)
        anchor = self._drop_anchor(event.position(), size) if size is not None else None
        if anchor is None or size is None:
            self._drop_marker.hide()
            return False
        cid = read_combatant(event.mimeData())
        self._drop_marker.set_about(cid)
        self._drop_marker.show_at(anchor, size)
        if cid is not None:  # a placed Party token's drop is a move: its view worked out while it is dragged
            view_ahead_for_drop(self.controller, cid, anchor, size)
        self._hover(self.cell_of(event.position()))
        return True

    def dropEvent(self, event: QDropEvent) -> None:
        self._drop_marker.hide()
        data = event.mimeData()
        if self.files_dropped.accepts(data):
            event.acceptProposedAction()
            self.files_dropped.take(data)
            return
        size = self._drop_size(event)
        anchor = self._drop_anchor(event.position(), size) if size is not None else None
        if anchor is None:
            event.ignore()
            return
        event.acceptProposedAction()
        cid = read_combatant(data)
        if cid is not None:
            token = self.controller.encounter.tokens.get(cid)
            if token is not None:
                if token.cell != anchor:
                    self.do(Move(cid, to=anchor, forced=True))
                return
            c = self.controller.combatant(cid)
            facing = self._facing_for(c.side if c is not None else Side.PARTY, anchor, size or 1)
            if self.do(PlaceToken(cid, anchor, facing)) is not None:
                self.controller.select(cid)
            return
        party = read_party(data)
        if party is not None:
            self._drop_party(*party, anchor, size or 1)
            return
        creature = read_creature(data)
        if creature is not None:
            facing = self._facing_for(Side.OPPONENTS, anchor, size or 1)
            self.controller.add_combatant(creature_for(creature), cell=anchor, facing=facing)

    def _drop_party(self, ruleset: str, version: int, character: dict, anchor: Cell, size: int) -> None:
        """A party roster character joins where it is dropped, as it stands, linked to the roster at
        its version (RULES §16); one already in the encounter, or of another ruleset, is refused."""
        encounter = self.controller.encounter
        name = str(character.get("name", "the character"))
        if ruleset != encounter.ruleset:
            why = (
                f"{name} is of a party of another ruleset; this encounter plays {self.controller.engine.ruleset.title}"
            )
        elif self.controller.combatant(str(character.get("id", ""))) is not None:
            why = f"{name} is already in this encounter: drag it from the Combatants dock to move its token"
        else:
            why = ""
        if why:
            self.controller.refusal = why
            self.controller.message.emit(why)
            self.controller.refused.emit(why)
            return
        side = character.get("side", Side.PARTY.value)
        facing = self._facing_for(Side(side) if side in {s.value for s in Side} else Side.PARTY, anchor, size)
        events = self.do(AddCombatant(character, cell=anchor, facing=facing, roster_version=version))
        if events:
            self.controller.select(str(character.get("id")))

    def _facing_for(self, side: Side, anchor: Cell, size: int) -> int:
        """A new token faces the other side's tokens (their centre), in 45 degree steps."""
        encounter = self.controller.encounter
        points = []
        for cid, token in encounter.tokens.items():
            c = self.controller.combatant(cid)
            if c is not None and c.side is not side and not c.down:
                points.append(grid.footprint_center(token.cell, c.size))
        if not points:
            return 90 if side is Side.PARTY else 270
        cx = sum(p[0] for p in points) / len(points)
        cy = sum(p[1] for p in points) / len(points)
        me = grid.footprint_center(anchor, size)
        if (cx, cy) == me:
            return 90 if side is Side.PARTY else 270
        return grid.snap_facing(grid.direction_deg(me, (cx, cy)), 45)
