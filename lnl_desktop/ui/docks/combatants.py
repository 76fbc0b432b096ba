"""The Combatants dock: everyone in the encounter at a glance, selection, add and remove.

Rows drag onto the map as :func:`lnl_desktop.ui.plumbing.mime.combatant_mime` (placing a token).
Selecting a row selects the combatant everywhere (``controller.select``); the table follows the
controller's selection in turn.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, QSize, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.ui.models.combatants import ICON_PX, ID_ROLE, CombatantsModel
from lnl_desktop.ui.plumbing.controller import TableController


class CombatantsPanel(QWidget):
    """A table of every combatant with a name filter and Add / Remove buttons."""

    # A row was double-clicked (or Enter pressed): the id, e.g. for the map to centre on it.
    combatantActivated = Signal(str)

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Combatants")
        self.controller = controller
        self.model = CombatantsModel(controller, self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterKeyColumn(0)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._following = False  # True while the table mirrors the controller's selection

        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter by name")
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip("Show only the combatants whose name contains this text")
        self.filter.textChanged.connect(self._on_filter)

        self.table = QTableView(self)
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setDragEnabled(True)
        self.table.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.table.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.table.setWordWrap(False)
        self.table.setIconSize(QSize(ICON_PX, ICON_PX))  # a combatant's picture beside its name
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setToolTip("Drag a combatant onto the map to place its token")
        self.table.selectionModel().selectionChanged.connect(self._on_rows_selected)
        self.table.activated.connect(self._on_activated)
        self.proxy.modelReset.connect(self._follow_controller)
        self.proxy.layoutChanged.connect(self._follow_controller)

        self.add_button = QPushButton("Add combatant", self)
        self.add_button.setToolTip("Add a new level 1 Party member with a d6 weapon; edit it on the Sheet")
        self.add_button.clicked.connect(self.add_combatant)
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setToolTip("Remove the selected combatant from the encounter (Delete; Undo brings it back)")
        self.remove_button.clicked.connect(self.remove_selected)

        delete = QAction("Remove combatant", self.table)
        delete.setShortcut(QKeySequence.StandardKey.Delete)
        delete.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        delete.triggered.connect(self.remove_selected)
        self.table.addAction(delete)
        # Right-click: the table's own actions (Remove; Add to the party once the window's party is here).
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.add_to_party_action: QAction | None = None

        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)

        controller.selectionChanged.connect(self._follow_controller)
        self._follow_controller()

    def attach_party(self, party: Any) -> None:
        """The window's party (a WindowParty): "Add to the party" in the table's right-click menu."""
        action = QAction("Add to the party", self.table)
        action.setToolTip("Copy the selected combatant into the party roster, linked (Undo takes it back)")
        action.triggered.connect(lambda: (cid := self.selected_id()) is not None and party.take_in(cid))
        self.table.addAction(action)
        self.add_to_party_action = action

    # -- selection ---------------------------------------------------------------------------

    def selected_id(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].data(ID_ROLE) if rows else None

    def _on_rows_selected(self, selected: QItemSelection, deselected: QItemSelection) -> None:
        cid = self.selected_id()
        self.remove_button.setEnabled(cid is not None)
        # A row hidden by the filter is not a change of mind: only a picked row selects.
        if not self._following and cid is not None:
            self.controller.select(cid)

    def _follow_controller(self, *_: object) -> None:
        cid = self.controller.selected
        selection = self.table.selectionModel()
        self._following = True
        try:
            row = self.model.row_of(cid) if cid else -1
            index = self.proxy.mapFromSource(self.model.index(row, 0)) if row >= 0 else QModelIndex()
            if index.isValid():
                flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
                selection.setCurrentIndex(index, flags)
                self.table.scrollTo(index)
            else:
                selection.clearSelection()
        finally:
            self._following = False
        self.remove_button.setEnabled(self.selected_id() is not None)

    def _on_filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        self._follow_controller()

    def _on_activated(self, index: QModelIndex) -> None:
        cid = index.data(ID_ROLE)
        if cid:
            self.combatantActivated.emit(cid)

    # -- actions -----------------------------------------------------------------------------

    def add_combatant(self) -> str | None:
        """Add a new Party combatant with plain defaults and select it; its id, or None if refused."""
        # What the ruleset's "new combatant" is (L&L: a plain level 1 fighter), edited then on the sheet.
        return self.controller.add_combatant(self.controller.engine.ruleset.views.new_combatant())

    def remove_selected(self) -> bool:
        """Remove the selected combatant after asking; True if it was removed."""
        cid = self.selected_id() or self.controller.selected
        combatant = self.controller.combatant(cid) if cid else None
        if combatant is None:
            return False
        if not self.confirm_remove(combatant.name):
            return False
        return self.controller.do(act.RemoveCombatant(combatant.id)) is not None

    def confirm_remove(self, name: str) -> bool:
        answer = QMessageBox.question(
            self,
            "Remove combatant",
            f"Remove {visible(name)} from the encounter? Its token leaves the map too.\n(Edit > Undo brings it back.)",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes
