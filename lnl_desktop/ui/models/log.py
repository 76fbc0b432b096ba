"""The round log as a Qt table: one row per event of ``encounter.log``, oldest first.

An adapter over the encounter's log that keeps the events its rows show (references, in order). The
engine appends events (a plain action adds rows at the bottom) or cuts the log back and appends an
"undone" line (undo): the model removes the rows cut and inserts the new ones, so neither costs
more as a long fight's log grows. Only another encounter resets it.
The log keeps its lines as the engine wrote them; the rows show them as :func:`visible` does (a
control or bidi character a name was typed with, shown as its escape).
:class:`LogFilter` narrows it to one round and/or one combatant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor, QFont

from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.words import visible

if TYPE_CHECKING:
    from lnl_desktop.ui.plumbing.controller import TableController

Index = QModelIndex | QPersistentModelIndex

KIND_ROLE = Qt.ItemDataRole.UserRole + 1  # the event's kind ("attack", "undone", ...)
ROUND_ROLE = Qt.ItemDataRole.UserRole + 2  # the event's round (int)
ACTORS_ROLE = Qt.ItemDataRole.UserRole + 3  # the ids of the combatants it concerns (tuple[str, ...])

UNDONE = QColor("#7f7f7f")


def round_label(round_: int) -> str:
    """'Round 3'; round 0 holds the setup and, in L&L Classic, the surprise round before round 1."""
    return "Setup and surprise" if round_ == 0 else f"Round {round_}"


def common_start(shown: list[Event], log: list[Event]) -> int:
    """How many events ``log`` starts with that ``shown`` (what was read of it before) starts with too.

    The engine only appends to the log or cuts it back (an undo), so the two part where they first
    differ, near the end: looked for from there."""
    same = min(len(shown), len(log))
    while same > 0 and shown[same - 1] is not log[same - 1]:
        same -= 1
    return same


def _surprise_start(log: list[Event], start: int = 0) -> int | None:
    """Where a surprise round begins in the log: a combat that opened in round 0 (L&L Classic)."""
    for i in range(start, len(log)):
        if log[i].kind == "combat started" and log[i].round == 0:
            return i
    return None


class LogModel(QAbstractTableModel):
    COLUMNS = ("Round", "Event")

    def __init__(self, controller: TableController, parent: Any = None) -> None:
        super().__init__(parent)
        self._controller = controller
        self._shown: list[Event] = list(controller.encounter.log)  # what the rows show, oldest first
        self._surprise = _surprise_start(self._shown)
        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self.reset)

    def log_event(self, row: int) -> Event:
        return self._shown[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's own default
        return 0 if parent.isValid() else len(self._shown)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._shown):
            return None
        e = self.log_event(index.row())
        column = index.column()
        in_surprise = e.round == 0 and self._surprise is not None and index.row() >= self._surprise
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 1:
                return visible(e.text)
            return ("S" if in_surprise else "–") if e.round == 0 else e.round
        if role == KIND_ROLE:
            return e.kind
        if role == ROUND_ROLE:
            return e.round
        if role == ACTORS_ROLE:
            return e.actors
        if role == Qt.ItemDataRole.ToolTipRole:
            details = e.details()  # a blow's every term, where the ruleset's event has them
            if details:
                return visible(details, lines=True)
            return f"{'Surprise round' if in_surprise else round_label(e.round)}: {visible(e.text)}"
        if e.kind == "undone":
            if role == Qt.ItemDataRole.ForegroundRole:
                return UNDONE
            if role == Qt.ItemDataRole.FontRole:
                font = QFont()
                font.setItalic(True)
                return font
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def reset(self) -> None:
        self.beginResetModel()
        self._shown = list(self._controller.encounter.log)
        self._surprise = _surprise_start(self._shown)
        self.endResetModel()

    def _on_events(self, events: list[Event]) -> None:
        log = self._controller.encounter.log
        shown = self._shown
        same = common_start(shown, log)
        if same < len(shown):  # cut back by an undo
            self.beginRemoveRows(QModelIndex(), same, len(shown) - 1)
            del shown[same:]
            if self._surprise is not None and self._surprise >= same:
                self._surprise = None
            self.endRemoveRows()
        if len(log) > same:
            self.beginInsertRows(QModelIndex(), same, len(log) - 1)
            shown.extend(log[same:])
            if self._surprise is None:
                self._surprise = _surprise_start(shown, same)
            self.endInsertRows()


class LogFilter(QSortFilterProxyModel):
    """Only the events of one round and/or concerning one combatant (None: all)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._round: int | None = None
        self._combatant: str | None = None

    @property
    def round(self) -> int | None:
        return self._round

    @property
    def combatant(self) -> str | None:
        return self._combatant

    def set_round(self, round_: int | None) -> None:
        if round_ != self._round:
            self._refilter(lambda: setattr(self, "_round", round_))

    def set_combatant(self, cid: str | None) -> None:
        if cid != self._combatant:
            self._refilter(lambda: setattr(self, "_combatant", cid))

    def _refilter(self, change: Callable[[], None]) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt 6.9 and later
            self.beginFilterChange()
            change()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            change()
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        if not isinstance(model, LogModel):
            return True
        event = model.log_event(source_row)
        if self._round is not None and event.round != self._round:
            return False
        return self._combatant is None or self._combatant in event.actors
