"""The Sheet's lists (weapons, spells...): a table per list the ruleset's
:class:`~lnl_desktop.core.rules.base.SheetSpec` names, its columns as the ruleset describes them.

Each cell edit sends the whole list as one edit through the sheet (one undo step); a cell that
does not read as its column's kind is refused with the reason, and nothing changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, cast

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter.areas import read_area, short_area
from lnl_desktop.core.rules.specs import ItemColumn
from lnl_desktop.ui.dialogs.setting_editors import plain
from lnl_desktop.ui.docks.sheet_fields import BadInput, parse_int, parse_optional_int

Index = QModelIndex | QPersistentModelIndex


class ListOwner(Protocol):
    """What a list needs of the sheet it is on (the sheet itself)."""

    def current(self) -> Any: ...

    def commit(self, key: str, value: Any, widget: QWidget | None = None) -> bool: ...

    def refuse(self, message: str, widget: QWidget | None = None) -> None: ...

    def table_for(self, key: str) -> FittedTable: ...

    def add_item(self, key: str, noun: str) -> bool: ...

    def remove_item(self, key: str, row: int | None = None) -> bool: ...


Column = ItemColumn  # a column of a list on the sheet, as the ruleset describes it

NONE_CHOICE = "none"


class ItemListModel(QAbstractTableModel):
    """The selected combatant's weapons (or spells): each cell edit sends the whole list."""

    def __init__(self, sheet: ListOwner, key: str, noun: str, columns: Sequence[Column]) -> None:
        super().__init__(cast(QObject, sheet))
        self._sheet = sheet
        self.key = key
        self.noun = noun
        self.columns = tuple(columns)
        self._rows = 0

    def _items(self) -> list[Any]:
        c = self._sheet.current()
        return list(getattr(c, self.key)) if c is not None else []

    def dumped(self) -> list[dict[str, Any]]:
        """The list as plain dicts, ready to change and send."""
        return [item.model_dump(mode="json") for item in self._items()]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's own default
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section].title
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.columns[section].tip
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        items = self._items()
        if not index.isValid() or index.row() >= len(items):
            return None
        column = self.columns[index.column()]
        value = plain(getattr(items[index.row()], column.key))
        if column.kind == "bool":
            if role == Qt.ItemDataRole.CheckStateRole:
                return Qt.CheckState.Checked if value else Qt.CheckState.Unchecked
            if role == Qt.ItemDataRole.ToolTipRole:
                return column.tip
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole) and column.kind == "area":
            area = getattr(items[index.row()], column.key)  # an Area, or None
            return short_area(area.shape, area.size_ft) if area is not None else ""
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if value is None:
                return NONE_CHOICE if column.kind == "optional choice" else ""
            if role == Qt.ItemDataRole.DisplayRole and column.key == "magic_bonus":
                return f"+{value}"
            if role == Qt.ItemDataRole.DisplayRole and column.key.endswith("_ft"):
                return f"{value} ft"
            if isinstance(value, list):  # words (a weapon's properties), typed back the same way
                return ", ".join(str(v) for v in value)
            return str(value)
        if role == Qt.ItemDataRole.ToolTipRole:
            return column.tip
        if role == Qt.ItemDataRole.TextAlignmentRole and column.kind in ("int", "optional int"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if self.columns[index.column()].kind == "bool":
            return flags | Qt.ItemFlag.ItemIsUserCheckable
        return flags | Qt.ItemFlag.ItemIsEditable

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        items = self.dumped()
        if not index.isValid() or index.row() >= len(items):
            return False
        column = self.columns[index.column()]
        item = items[index.row()]
        label = f"{self.noun.capitalize()} {item['name']!r}: {column.title}"
        try:
            if column.kind == "bool":
                if role != Qt.ItemDataRole.CheckStateRole:
                    return False
                new: Any = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value)
            elif role != Qt.ItemDataRole.EditRole:
                return False
            elif column.kind == "int":
                new = parse_int(str(value).removeprefix("+"), label)
            elif column.kind == "optional int":
                new = parse_optional_int(str(value), label)
            elif column.kind == "area":
                try:
                    new = read_area(str(value))
                except ValueError as error:
                    raise BadInput(f"{label}: {error}") from None
            elif column.kind == "optional choice":
                new = None if value in (NONE_CHOICE, "", None) else str(value)
            else:
                new = str(value).strip() if column.kind == "text" else str(value)
        except BadInput as error:
            self._sheet.refuse(str(error), self._sheet.table_for(self.key))
            return False
        if item[column.key] == new:
            return True
        item[column.key] = new
        for key in column.clears.get(str(new), ()):  # what the ruleset says the choice leaves without meaning
            if key in item:
                item[key] = None
        ok = self._sheet.commit(self.key, items, self._sheet.table_for(self.key))
        self.dataChanged.emit(index.siblingAtColumn(0), index.siblingAtColumn(len(self.columns) - 1))
        return ok

    def refresh(self) -> None:
        rows = len(self._items())
        if rows != self._rows:
            self.beginResetModel()
            self._rows = rows
            self.endResetModel()
        elif rows:
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, len(self.columns) - 1))


class FittedTable(QTableView):
    """A table as tall as its rows (at least one), so the sheet scrolls rather than the table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.horizontalHeader().sectionResized.connect(self.fit_height)

    def fit_height(self, *_: object) -> None:
        model = self.model()
        rows = model.rowCount() if model is not None else 0
        height = self.horizontalHeader().sizeHint().height() + 2 * self.frameWidth()
        height += max(rows, 1) * self.verticalHeader().defaultSectionSize()
        if self.horizontalHeader().length() > self.viewport().width():
            height += self.horizontalScrollBar().sizeHint().height()
        if height != self.height():
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_height()


class ChoiceDelegate(QStyledItemDelegate):
    """A combo box for the choice columns that commits as soon as a choice is picked."""

    def __init__(self, columns: Sequence[Column], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._columns = tuple(columns)

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:
        column = self._columns[index.column()]
        if not column.choices:
            return super().createEditor(parent, option, index)
        combo = QComboBox(parent)
        choices = list(column.choices)
        if column.kind == "optional choice" and NONE_CHOICE not in choices:
            choices.insert(0, NONE_CHOICE)  # an optional choice may always be taken back to none
        combo.addItems(choices)
        combo.setToolTip(column.tip)

        def picked() -> None:
            self.commitData.emit(combo)
            self.closeEditor.emit(combo, QStyledItemDelegate.EndEditHint.NoHint)

        combo.activated.connect(picked)
        QTimer.singleShot(0, combo, combo.showPopup)  # one click opens the choices
        return combo

    def setEditorData(self, editor: QWidget, index: Index) -> None:
        if isinstance(editor, QComboBox):
            editor.setCurrentText(str(index.data(Qt.ItemDataRole.EditRole)))
            return
        super().setEditorData(editor, index)

    def setModelData(self, editor: QWidget, model: Any, index: Index) -> None:
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)
            return
        super().setModelData(editor, model, index)


def item_box(
    sheet: ListOwner, key: str, noun: str, columns: Sequence[Column], tip: str = ""
) -> tuple[QGroupBox, FittedTable, QPushButton, QPushButton]:
    """A list's box: its table (one edit per cell, sent as the whole list) and Add / Remove buttons."""
    box = QGroupBox(f"{noun.capitalize()}s")
    model = ItemListModel(sheet, key, noun, columns)
    table = FittedTable(box)
    table.setModel(model)
    table.setItemDelegate(ChoiceDelegate(columns, table))
    table.setToolTip(tip)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(
        QAbstractItemView.EditTrigger.DoubleClicked
        | QAbstractItemView.EditTrigger.SelectedClicked
        | QAbstractItemView.EditTrigger.EditKeyPressed
        | QAbstractItemView.EditTrigger.AnyKeyPressed
    )
    table.verticalHeader().hide()
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    # Every column as wide as its contents: a stretched last column keeps an old, wider size
    # when the dock narrows and brings in a needless scroll bar.
    table.horizontalHeader().setStretchLastSection(False)
    add = QPushButton(f"Add {noun}", box)
    add.setToolTip(f"Add a new {noun} with a d6; then edit its cells")
    add.clicked.connect(lambda: sheet.add_item(key, noun))
    remove = QPushButton(f"Remove {noun}", box)
    remove.setToolTip(f"Remove the selected {noun}")
    remove.clicked.connect(lambda: sheet.remove_item(key))
    remove.setEnabled(False)
    table.selectionModel().selectionChanged.connect(
        lambda *_: remove.setEnabled(bool(table.selectionModel().selectedRows()))
    )
    model.modelReset.connect(lambda: remove.setEnabled(bool(table.selectionModel().selectedRows())))
    buttons = QHBoxLayout()
    buttons.addWidget(add)
    buttons.addWidget(remove)
    buttons.addStretch(1)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(4, 4, 4, 4)
    layout.addWidget(table)
    layout.addLayout(buttons)
    return box, table, add, remove
