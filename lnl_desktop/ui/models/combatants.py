"""A table model of every combatant: name, side, level, SP, IP, AP, Move, status.

An adapter over ``encounter.combatants``: it reads the controller's encounter on every call and
keeps only the row ids (to tell a plain refresh from rows coming and going) and a small key per
row of what it shows (to repaint only the rows an action changed), never the data itself.
It is also a drag source: a row drags as :func:`lnl_desktop.ui.mime.combatant_mime`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QMimeData, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from lnl_desktop.core.events import Event
from lnl_desktop.core.model import Combatant
from lnl_desktop.ui import style
from lnl_desktop.ui.mime import MIME_COMBATANT, RowDragSource, combatant_mime

if TYPE_CHECKING:
    from lnl_desktop.ui.controller import TableController

Index = QModelIndex | QPersistentModelIndex

# The combatant's id, for views and proxies that need to find a row's combatant.
ID_ROLE = Qt.ItemDataRole.UserRole + 1

_HEADER_TIPS = {
    "Name": "The combatant's name; hover a name for its weapons",
    "Side": "Party (player characters and allies) or Opponents (run by the GM)",
    "Level": "Level; damage dice N = (level + 1) // 2",
    "SP": "Stamina Points, current / max: ordinary melee damage comes off SP first",
    "IP": "Injury Points, current / max: direct damage comes off IP; at 0 IP the creature is down",
    "AP": "Armor Points: worn or natural armor plus a carried shield",
    "Move": "Feet of movement per turn",
    "Status": "Down, surprised, parrying, concealed, broken weapons and conditions",
}


def status_of(c: Combatant) -> str:
    """Short status words for a combatant, most important first."""
    return ", ".join(c.status_words())


class CombatantsModel(RowDragSource, QAbstractTableModel):
    MIME_TYPE = MIME_COMBATANT
    COLUMNS = ("Name", "Side", "Level", "SP", "IP", "AP", "Move", "Status")
    _NUMERIC = frozenset({"Level", "SP", "IP", "AP", "Move"})

    def __init__(self, controller: TableController, parent: Any = None) -> None:
        super().__init__(parent)
        self._controller = controller
        self._ids = self._current_ids()
        self._shown = self._row_keys()
        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self.reset)

    # -- lookups -----------------------------------------------------------------------------

    def _current_ids(self) -> list[str]:
        return [c.id for c in self._controller.encounter.combatants]

    def combatant(self, row: int) -> Combatant:
        return self._controller.encounter.combatants[row]

    def combatant_id(self, row: int) -> str:
        return self.combatant(row).id

    def row_of(self, cid: str) -> int:
        """The row of combatant ``cid``, or -1."""
        for row, c in enumerate(self._controller.encounter.combatants):
            if c.id == cid:
                return row
        return -1

    # -- Qt's model interface ------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's own default
        return 0 if parent.isValid() else len(self._controller.encounter.combatants)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return _HEADER_TIPS[self.COLUMNS[section]]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < self.rowCount():
            return None
        c = self.combatant(index.row())
        column = self.COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                "Name": c.name,
                "Side": c.side.value,
                "Level": c.level,
                "SP": f"{c.stamina} / {c.stamina_max}",
                "IP": f"{c.injury} / {c.injury_max}",
                "AP": c.armor_points,
                "Move": f"{c.move_ft} ft",
                "Status": status_of(c),
            }[column]
        if role == ID_ROLE:
            return c.id
        if role == Qt.ItemDataRole.DecorationRole and column == "Side":
            return style.side_color(c.side)
        if role == Qt.ItemDataRole.ForegroundRole and c.down:
            return style.DOWN
        if role == Qt.ItemDataRole.FontRole and self._is_active(c.id):
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(c, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in self._NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def row_mime(self, row: int) -> QMimeData:
        return combatant_mime(self.combatant_id(row))

    # -- refreshing ----------------------------------------------------------------------------

    def _is_active(self, cid: str) -> bool:
        turn = self._controller.encounter.combat.turn
        return turn is not None and turn.combatant == cid

    def _tooltip(self, c: Combatant, column: str) -> str:
        if column == "Name":
            weapons = "\n".join(w.label for w in c.weapons) or "no weapons"
            return f"{c.name} (level {c.level}, {c.side.value})\n{weapons}"
        if column == "AP" and c.shield is not None:
            return f"Armor {c.armor} + {c.shield.name} {c.shield.armor} ({c.shield.state.value})"
        if column == "Status":
            return status_of(c) or "ready"
        return _HEADER_TIPS[column]

    def _row_key(self, c: Combatant) -> tuple[object, ...]:
        """What a row shows: its texts, colours, bold and tooltips come from these values alone."""
        shield = (c.shield.name, c.shield.armor, c.shield.state) if c.shield is not None else None
        return (
            c.name,
            c.side,
            c.level,
            c.stamina,
            c.stamina_max,
            c.injury,
            c.injury_max,
            c.armor,
            c.move_ft,
            shield,
            tuple(w.label for w in c.weapons),
            status_of(c),
            self._is_active(c.id),
        )

    def _row_keys(self) -> list[tuple[object, ...]]:
        return [self._row_key(c) for c in self._controller.encounter.combatants]

    def reset(self) -> None:
        self.beginResetModel()
        self._ids = self._current_ids()
        self._shown = self._row_keys()
        self.endResetModel()

    def _on_events(self, events: list[Event]) -> None:
        ids = self._current_ids()
        if ids != self._ids:
            # Rows came, went or moved (add, remove, undo): cheap at this size.
            self.reset()
            return
        # Repaint only the rows whose combatant (or turn) changed: a repaint of every cell asks
        # the table for hundreds of values and resizes every column to its contents.
        keys = self._row_keys()
        changed = [row for row, key in enumerate(keys) if key != self._shown[row]]
        self._shown = keys
        if not changed:
            return
        first, last = changed[0], changed[-1]
        self.dataChanged.emit(self.index(first, 0), self.index(last, len(self.COLUMNS) - 1))
