"""A table model of every combatant: name, side, the ruleset's columns (L&L: level, SP, IP, AP), Move, status.

A combatant with a picture shows it small beside its name, in its token's shape.

An adapter over ``encounter.combatants``: it reads the controller's encounter on every call and
keeps only the row ids (to tell a plain refresh from rows coming and going) and a small key per
row of what it shows (to repaint only the rows an action changed), never the data itself. After
the one engine change it has not seen, only the rows of the combatants that change touched
(:attr:`Engine.touched`) and of the turn's holders are looked at again.
Every text it shows is :func:`visible`'s (a control or bidi character in a name shown as its escape;
the sheet edits the name as typed through its own binding, not this display).
It is also a drag source: a row drags as :func:`lnl_desktop.ui.plumbing.mime.combatant_mime`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QMimeData, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont, QIcon

from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import CombatantBase
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.core.rules.specs import Column
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.mime import MIME_COMBATANT, RowDragSource, combatant_mime
from lnl_desktop.ui.plumbing.portraits import portrait_pixmap

if TYPE_CHECKING:
    from lnl_desktop.ui.plumbing.controller import TableController

Index = QModelIndex | QPersistentModelIndex

# The combatant's id, for views and proxies that need to find a row's combatant.
ID_ROLE = Qt.ItemDataRole.UserRole + 1
ICON_PX = 20  # a portrait beside a name (drawn at twice that for high-DPI screens)

# The columns every ruleset has; the ruleset's own (ruleset.views.columns) go between Side and Move.
_SHARED_TIPS = {
    "Name": "The combatant's name; hover a name for its numbers",
    "Side": "Party (player characters and allies) or Opponents (run by the GM)",
    "Move": "Feet of movement per turn",
    "Status": "Down, surprised, on guard, concealed, broken weapons and conditions",
}


def status_of(c: CombatantBase) -> str:
    """Short status words for a combatant, most important first."""
    return ", ".join(c.status_words())


class CombatantsModel(RowDragSource, QAbstractTableModel):
    MIME_TYPE = MIME_COMBATANT

    def __init__(self, controller: TableController, parent: Any = None) -> None:
        super().__init__(parent)
        self._controller = controller
        self._set_columns()
        self._ids = self._current_ids()
        self._rows = {cid: row for row, cid in enumerate(self._ids)}
        self._shown = self._row_keys()
        self._step = controller.engine.touched.step  # the engine's change the rows were worked out at
        self._active: str | None = self._turn_holder()
        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self.reset)

    def _set_columns(self) -> None:
        """Name, Side, the encounter's ruleset's columns, Move, Status."""
        ruleset = self._controller.engine.ruleset
        self._ruleset = ruleset.name
        self._columns: dict[str, Column] = {c.title: c for c in ruleset.views.columns()}
        self.COLUMNS: tuple[str, ...] = ("Name", "Side", *self._columns, "Move", "Status")
        self._NUMERIC = frozenset({*(t for t, c in self._columns.items() if c.numeric), "Move"})

    def _header_tip(self, column: str) -> str:
        return self._columns[column].tip if column in self._columns else _SHARED_TIPS[column]

    # -- lookups -----------------------------------------------------------------------------

    def _current_ids(self) -> list[str]:
        return [c.id for c in self._controller.encounter.combatants]

    def combatant(self, row: int) -> Any:
        return self._controller.encounter.combatants[row]

    def combatant_id(self, row: int) -> str:
        return self.combatant(row).id

    def row_of(self, cid: str) -> int:
        """The row of combatant ``cid``, or -1."""
        row = self._rows.get(cid, -1)
        combatants = self._controller.encounter.combatants
        if 0 <= row < len(combatants) and combatants[row].id == cid:
            return row
        # Not refreshed yet (a listener before this one asks): look.
        return next((row for row, c in enumerate(combatants) if c.id == cid), -1)

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
            return self._header_tip(self.COLUMNS[section])
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < self.rowCount():
            return None
        c = self.combatant(index.row())
        column = self.COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            if column in self._columns:
                value = self._columns[column].value(c)
                return visible(value) if isinstance(value, str) else value
            return {
                "Name": visible(c.name),
                "Side": c.side.value,
                "Move": f"{c.move_ft} ft",
                "Status": visible(status_of(c)),
            }[column]
        if role == ID_ROLE:
            return c.id
        if role == Qt.ItemDataRole.DecorationRole and column == "Side":
            return style.side_color(c.side)
        if role == Qt.ItemDataRole.DecorationRole and column == "Name":
            return self._portrait_icon(c)
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

    def _turn_holder(self) -> str | None:
        turn = self._controller.encounter.combat.turn
        return None if turn is None else turn.combatant

    def _portrait_icon(self, c: Any) -> QIcon | None:
        data = c.portrait
        if not data:
            return None
        icon = QIcon()
        for size in (ICON_PX, 2 * ICON_PX):
            pixmap = portrait_pixmap(data, size, c.side)
            if pixmap.isNull():
                return None
            icon.addPixmap(pixmap)
        return icon

    def _tooltip(self, c: Any, column: str) -> str:
        if column == "Name":
            stats = visible(self._controller.engine.ruleset.views.stat_line(c))
            return f"{visible(c.name)} ({c.side.value})\n{stats}".rstrip()
        row_tip = self._columns[column].row_tip if column in self._columns else None
        if row_tip is not None and (words := row_tip(c)):
            return visible(words)  # the ruleset's words for this row (the AP's parts)
        if column == "Status":
            return visible(status_of(c)) or "ready"
        return self._header_tip(column)

    def _row_key(self, c: Any) -> tuple[object, ...]:
        """What a row shows: its texts, colours, bold and tooltips come from these values alone."""
        return (
            c.name,
            c.side,
            c.move_ft,
            *(column.value(c) for column in self._columns.values()),
            self._controller.engine.ruleset.views.stat_line(c),
            *(column.row_tip(c) for column in self._columns.values() if column.row_tip is not None),
            status_of(c),
            self._is_active(c.id),
            c.portrait,
        )

    def _row_keys(self) -> list[tuple[object, ...]]:
        return [self._row_key(c) for c in self._controller.encounter.combatants]

    def reset(self) -> None:
        self.beginResetModel()
        self._set_columns()
        self._ids = self._current_ids()
        self._rows = {cid: row for row, cid in enumerate(self._ids)}
        self._shown = self._row_keys()
        self._step = self._controller.engine.touched.step
        self._active = self._turn_holder()
        self.endResetModel()

    def _on_events(self, events: list[Event]) -> None:
        engine = self._controller.engine
        touched = engine.touched
        step, self._step = self._step, touched.step
        active, self._active = self._active, self._turn_holder()
        if engine.ruleset.name != self._ruleset:
            self.reset()
            return
        combatants = self._controller.encounter.combatants
        if touched.step == step + 1 and touched.combatants is not None and len(combatants) == len(self._ids):
            # The one change since the last refresh: only its combatants' rows, and the turn's.
            rows = self._rows
            looked = {cid for cid in (*touched.combatants, active, self._active) if cid is not None}
            if all(cid in rows and combatants[rows[cid]].id == cid for cid in touched.combatants):
                self._repaint(sorted(rows[cid] for cid in looked if cid in rows))
                return
        ids = self._current_ids()
        if ids != self._ids:
            # Rows came, went or moved (add, remove, undo): cheap at this size.
            self.reset()
            return
        self._repaint(range(len(ids)))

    def _repaint(self, rows: Iterable[int]) -> None:
        """Repaint those of ``rows`` whose combatant (or turn) changed: a repaint of every cell asks
        the table for hundreds of values and resizes every column to its contents."""
        combatants = self._controller.encounter.combatants
        changed = []
        for row in rows:
            key = self._row_key(combatants[row])
            if key != self._shown[row]:
                self._shown[row] = key
                changed.append(row)
        if not changed:
            return
        first, last = changed[0], changed[-1]
        self.dataChanged.emit(self.index(first, 0), self.index(last, len(self.COLUMNS) - 1))
