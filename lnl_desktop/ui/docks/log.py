"""The Round log dock: every event of the encounter with its round, newest at the bottom.

A view of ``encounter.log`` through :class:`lnl_desktop.ui.models.log.LogModel`. It follows new
events to the bottom unless the GM scrolled up to read; it can show one round and/or the events
of one combatant. Undone lines are grey italic; an attack's tooltip spells out its formula.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files.export import FORMATS, export_log
from lnl_desktop.ui.models.log import LogFilter, LogModel, common_start, round_label
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.folders import Folders

EXPORT_FILTERS = "Markdown (*.md);;HTML (*.html);;CSV spreadsheet (*.csv)"
EXPORT_SUFFIX = {"Markdown (*.md)": ".md", "HTML (*.html)": ".html", "CSV spreadsheet (*.csv)": ".csv"}
WRAPPED_AT_ONCE = 200  # new rows made as tall as their words at once: more than a screenful
_K = TypeVar("_K")


def _count(counts: dict[_K, int], key: _K, step: int) -> None:
    """Add ``step`` to ``key``'s count; a key counted down to 0 goes (so a later one comes last again)."""
    left = counts.get(key, 0) + step
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


class RoundLog(QWidget):
    """The round log with a round filter and a combatant filter."""

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Round log")
        self.controller = controller
        self.folders: Folders | None = None  # where Export opens (the main window's memory of folders)
        self.model = LogModel(controller, self)
        self.proxy = LogFilter(self)
        self.proxy.setSourceModel(self.model)
        self._follow = True  # stay at the bottom while the GM has not scrolled up

        self.round_filter = QComboBox(self)
        self.round_filter.setToolTip("Show the events of one round only")
        # As wide as a short name, not the longest: the side panel keeps its width.
        self.round_filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.round_filter.setMinimumContentsLength(7)
        self.round_filter.currentIndexChanged.connect(self._on_round_filter)
        self.combatant_filter = QComboBox(self)
        self.combatant_filter.setToolTip("Show only the events that concern one combatant")
        # As wide as a short name, not the longest: the side panel keeps its width.
        self.combatant_filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combatant_filter.setMinimumContentsLength(7)
        self.combatant_filter.currentIndexChanged.connect(self._on_combatant_filter)

        self.table = QTableView(self)
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # A line wraps rather than end in "…": the numbers at its end (a damage total) are what the
        # GM reads. Rows are made as tall as their words where they are seen (the new ones, those
        # in view), never the whole log at once: a long fight's log stays quick.
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        # The round column fits the rows in view (the newest, with the widest numbers) and a hundred
        # more, not the thousand before them: each new line measured them all, more as the log grew.
        header.setResizeContentsPrecision(100)
        header.setSectionsClickable(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.setToolTip("")

        bar = self.table.verticalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)
        bar.rangeChanged.connect(self._on_range)
        bar.valueChanged.connect(lambda _value: self._wrap_rows_in_view())
        self.proxy.rowsInserted.connect(lambda _parent, first, last: self._wrap_rows(first, last))
        self.proxy.modelReset.connect(self._wrap_rows_in_view)
        self.proxy.layoutChanged.connect(self._wrap_rows_in_view)
        header.sectionResized.connect(lambda *_: self._wrap_rows_in_view())

        filters = QHBoxLayout()
        filters.addWidget(QLabel("Show:", self))
        filters.addWidget(self.round_filter)
        filters.addWidget(self.combatant_filter)
        filters.addStretch(1)
        self.export_button = QPushButton("Export…", self)
        self.export_button.setToolTip("Save the whole round log as Markdown, HTML or CSV")
        self.export_button.clicked.connect(self.export)
        filters.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)

        # What the filters know of the log: the events read of it, and how many of them are of each
        # round and name each combatant (in the order they first come up).
        self._read: list[Event] = []
        self._log_rounds: dict[int, int] = {}
        self._log_actors: dict[str, int] = {}
        self._combo_items: dict[QComboBox, list[tuple[str, object]]] = {}
        self._rounds_listed: list[int] | None = None
        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self._on_replaced)
        self._fill_filters()
        self.table.scrollToBottom()

    # -- filters -----------------------------------------------------------------------------

    def _fill_filters(self, events: list[Event] | None = None) -> None:
        """Offer every round and every combatant the log knows, keeping the current choices.

        After events (``events`` given) only the end of the log that changed is read: the events an
        undo cut are taken off the counts, the new ones added. Another file reads the whole log. A
        long fight's log holds thousands of events: reading them all after every action (or every
        undo) made each one slower than the last.
        """
        encounter = self.controller.encounter
        log = encounter.log
        read = self._read
        same = common_start(read, log) if events is not None else 0
        for event in read[same:]:
            _count(self._log_rounds, event.round, -1)
            for cid in event.actors:
                _count(self._log_actors, cid, -1)
        del read[same:]
        for event in log[same:]:
            _count(self._log_rounds, event.round, 1)
            for cid in event.actors:
                _count(self._log_actors, cid, 1)
        read.extend(log[same:])

        rounds = sorted((self._log_rounds.keys() | {encounter.combat.round}) - {0})
        if 0 in self._log_rounds:
            rounds.insert(0, 0)
        if rounds != self._rounds_listed:  # a new round, not every event, relabels the choices
            self._rounds_listed = rounds
            self._refill(self.round_filter, [("All rounds", None), *((round_label(r), r) for r in rounds)])

        names = {c.id: visible(c.name) for c in encounter.combatants}
        for cid in self._log_actors:
            names.setdefault(cid, f"{visible(cid)} (removed)")
        combatants = [("All combatants", None), *((name, cid) for cid, name in names.items())]
        self._refill(self.combatant_filter, combatants)
        # A choice that vanished (undo, another file) falls back to "All": the filter follows.
        self.proxy.set_round(self.round_filter.currentData())
        self.proxy.set_combatant(self.combatant_filter.currentData())

    def set_round(self, round_: int | None) -> None:
        """Show one round (None: all); the combo follows."""
        index = self.round_filter.findData(round_) if round_ is not None else 0
        self.round_filter.setCurrentIndex(max(index, 0))

    def set_combatant(self, cid: str | None) -> None:
        """Show one combatant's events (None: everyone's); the combo follows."""
        index = self.combatant_filter.findData(cid) if cid is not None else 0
        self.combatant_filter.setCurrentIndex(max(index, 0))

    def _on_round_filter(self, index: int) -> None:
        self.proxy.set_round(self.round_filter.itemData(index))
        self._jump_to_bottom()

    def _on_combatant_filter(self, index: int) -> None:
        self.proxy.set_combatant(self.combatant_filter.itemData(index))
        self._jump_to_bottom()

    # -- following new events ----------------------------------------------------------------

    def _on_events(self, events: list[Event]) -> None:
        self._fill_filters(events)

    def _on_replaced(self) -> None:
        self._fill_filters()
        self._jump_to_bottom()

    def _wrap_rows(self, first: int, last: int) -> None:
        """Rows ``first`` to ``last`` as tall as their wrapped words (at most a screenful)."""
        first = max(first, last - WRAPPED_AT_ONCE + 1, 0)
        for row in range(first, last + 1):
            self.table.resizeRowToContents(row)

    def _wrap_rows_in_view(self) -> None:
        """The rows in view wrapped to the log's width as it is now (the dock was resized, the GM
        scrolled, a filter changed): the rest when they come into view."""
        count = self.proxy.rowCount()
        if count == 0:
            return
        top = self.table.rowAt(0)
        bottom = self.table.rowAt(self.table.viewport().height() - 1)
        top = 0 if top < 0 else top
        bottom = count - 1 if bottom < 0 else bottom
        self._wrap_rows(top, min(bottom + 1, count - 1))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._wrap_rows_in_view()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._wrap_rows_in_view()

    def _jump_to_bottom(self) -> None:
        self._follow = True
        self.table.scrollToBottom()

    def _on_scrolled(self, value: int) -> None:
        self._follow = value >= self.table.verticalScrollBar().maximum()

    def _on_range(self, minimum: int, maximum: int) -> None:
        if self._follow:
            self.table.verticalScrollBar().setValue(maximum)

    def export(self) -> Path | None:
        """Ask where, then write the whole log; the format follows the chosen file type."""
        start = f"{self.controller.encounter.name} log.md"
        if self.folders is not None:
            start = self.folders.start(start)
        name, chosen = QFileDialog.getSaveFileName(self, "Export round log", start, EXPORT_FILTERS)
        if not name:
            return None
        path = Path(name)
        if self.folders is not None:
            self.folders.remember(path)
        if path.suffix.lower() not in FORMATS:
            path = path.with_suffix(EXPORT_SUFFIX.get(chosen, ".md"))
        try:
            written = export_log(self.controller.encounter, path)
        except RulesError as error:
            QMessageBox.warning(self, "Cannot export", str(error))
            return None
        self.controller.message.emit(f"Round log exported to {visible(written.name)}")
        return written

    def _refill(self, combo: QComboBox, items: list[tuple[str, object]]) -> None:
        """Replace a combo's items quietly, keeping the chosen one if it is still there.

        The items last put in are remembered here (asking Qt for every item's text and data
        costs more as the rounds go by), and items new at the end are appended, not rebuilt.
        """
        shown = self._combo_items.get(combo, [])
        if shown == items:
            return
        current = combo.currentData()
        combo.blockSignals(True)
        if items[: len(shown)] == shown and combo.count() == len(shown):
            for text, data in items[len(shown) :]:
                combo.addItem(text, data)
        else:
            combo.clear()
            for text, data in items:
                combo.addItem(text, data)
            index = combo.findData(current) if current is not None else 0
            combo.setCurrentIndex(max(index, 0))
        self._combo_items[combo] = items
        combo.blockSignals(False)

    @property
    def following(self) -> bool:
        """Whether new events scroll the log to the bottom (False once the GM scrolls up)."""
        return self._follow
