"""The Turns dock's list: a tree view of :class:`~lnl_desktop.ui.models.turns.TurnsModel`, its
groups always open, a heading spanning the columns. Its lines may be read as a tree widget's
items are (``topLevelItem``, ``headerItem``, ``visualItemRect``, ``itemDoubleClicked``)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QRect, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeView, QWidget

from lnl_desktop.ui.models.turns import ID_ROLE, HeaderView, LineView, TurnsModel


class TurnsView(QTreeView):
    """The groups and combatants of the round, one line each."""

    # A line double-clicked, as a tree widget says it: the line and the column.
    itemDoubleClicked = Signal(object, int)  # the tree widget's name

    def __init__(self, model: TurnsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.turns_model = model
        self._measured: dict[tuple[int, str, str | None], int] = {}  # (column, words, font) → width
        self._header_height: tuple[tuple[object, ...], int] | None = None  # (what it depends on, height)
        self.setRootIsDecorated(False)
        self.setItemsExpandable(False)
        self.setUniformRowHeights(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.doubleClicked.connect(lambda index: self.itemDoubleClicked.emit(LineView(index), index.column()))
        model.modelReset.connect(self.lay_out)
        model.layoutChanged.connect(self.lay_out)
        model.layoutChanged.connect(self.fit_columns)
        model.dataChanged.connect(self._widen)

    def lay_out(self) -> None:
        """Every group open, every heading across the columns."""
        model = self.turns_model
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            self.setFirstColumnSpanned(row, QModelIndex(), index.data(ID_ROLE) is None)
        self.expandAll()

    def fit_columns(self) -> None:
        """The first column takes the room left; the others fit their words, measured now (the lines
        were laid anew) and widened as lines change (:meth:`_widen`). Not Qt's live fitting: that reads
        every line of every column through Python at each change of one line."""
        self._measured.clear()
        header = self.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, self.turns_model.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            self.resizeColumnToContents(column)

    def _widen(self, top_left: QModelIndex, bottom_right: QModelIndex) -> None:
        """A changed line: a column its new words do not fit grows to them."""
        header = self.header()
        for column in range(max(1, top_left.column()), bottom_right.column() + 1):
            if header.sectionResizeMode(column) is not QHeaderView.ResizeMode.Interactive:
                continue
            for row in range(top_left.row(), bottom_right.row() + 1):
                index = top_left.sibling(row, column)
                line = self.turns_model.line(index)
                if line is None:
                    continue
                # The same words in the same font measure the same: a state's words come back often.
                font = line.fonts.get(column)
                text = line.texts[column] if column < len(line.texts) else ""
                key = (column, text, None if font is None else font.key())
                width = self._measured.get(key)
                if width is None:
                    width = self._measured[key] = self.sizeHintForIndex(index).width()
                if width > header.sectionSize(column):
                    header.resizeSection(column, width)

    def header_height(self) -> int:
        """The header's height as laid out: the same titles in the same font and style measure the
        same, so it is measured again only when one of them changed (the side panel asks after every
        change, and each measure reads every title through Python)."""
        header = self.header()
        key = (tuple(self.turns_model.headers()), header.font().key(), header.style().name())
        if self._header_height is None or self._header_height[0] != key:
            self._header_height = (key, header.sizeHint().height())
        return self._header_height[1]

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._measured.clear()  # the same words measure otherwise now (the UI scale, the theme)
            self._header_height = None
        super().changeEvent(event)

    def _line_count(self) -> int:
        model = self.turns_model
        return model.rowCount() + sum(model.rowCount(model.index(row, 0)) for row in range(model.rowCount()))

    # -- the lines read as a tree widget's items -------------------------------------------------

    def columnCount(self) -> int:
        return self.turns_model.columnCount()

    def topLevelItemCount(self) -> int:
        return self.turns_model.rowCount()

    def topLevelItem(self, row: int) -> LineView:
        return LineView(self.turns_model.index(row, 0))

    def headerItem(self) -> HeaderView:
        return HeaderView(self.turns_model)

    def visualItemRect(self, item: LineView | QModelIndex | QPersistentModelIndex) -> QRect:
        """The line's rectangle in the viewport, across its columns (empty when not laid out)."""
        index = item.index() if isinstance(item, LineView) else QModelIndex(item)
        if not index.isValid():
            return QRect()
        first = self.visualRect(index.siblingAtColumn(0))
        last = self.visualRect(index.siblingAtColumn(max(self.turns_model.columnCount() - 1, 0)))
        return first.united(last) if last.isValid() else first

    def rows_height(self) -> int:
        """Every line's height as it is laid out (rows with a Declared combo are taller than a
        heading); a line not laid out yet counts one line of text. One call per line, in C++:
        the side panel asks after every change, on orders of hundreds."""
        fallback = self.fontMetrics().height() + 8
        model = self.turns_model
        if self.uniformRowHeights() and model.rowCount():
            # Every line as tall as the first (what uniform heights mean to Qt): no need to ask each.
            height = self.rowHeight(model.index(0, 0))
            return self._line_count() * (height if height > 0 else fallback)
        total = 0
        for row in range(model.rowCount()):
            top = model.index(row, 0)
            for index in (top, *(model.index(j, 0, top) for j in range(model.rowCount(top)))):
                height = self.rowHeight(index)
                total += height if height > 0 else fallback
        return total

    def line_at(self, point: Any) -> LineView | None:
        """The line under ``point`` (viewport coordinates), or None."""
        index = self.indexAt(point)
        return LineView(index.siblingAtColumn(0)) if index.isValid() else None
