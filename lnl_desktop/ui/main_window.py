"""The main window. For now: the encounter's combatants in a table, files, and About."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QHeaderView, QMainWindow, QMessageBox, QTableView

from lnl_desktop.core import storage
from lnl_desktop.core.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.model import Encounter
from lnl_desktop.ui.about import show_about
from lnl_desktop.ui.models.combatants import CombatantsModel


class MainWindow(QMainWindow):
    def __init__(self, encounter: Encounter, path: Path | None = None) -> None:
        super().__init__()
        self.engine = Engine(encounter)
        self.path = path
        self.combatants = CombatantsModel(self.engine)
        self.table = QTableView()
        self.table.setModel(self.combatants)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.setCentralWidget(self.table)
        self._build_menus()
        self.resize(900, 420)
        self._refresh_titles()

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        open_action = QAction("&Open…", self, shortcut=QKeySequence.StandardKey.Open, triggered=self.open_file)
        open_action.setStatusTip("Open a .lnl encounter file")
        quit_action = QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close)
        file_menu.addAction(open_action)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction(QAction("&About Laurels && Loot Desktop", self, triggered=lambda: show_about(self)))

    def _refresh_titles(self) -> None:
        encounter = self.engine.encounter
        where = f" — {self.path.name}" if self.path else ""
        self.setWindowTitle(f"{encounter.name}{where} — Laurels & Loot Desktop")
        grid = encounter.map
        self.statusBar().showMessage(
            f"{len(encounter.combatants)} combatants · map {grid.width} x {grid.height} cells "
            f"of {grid.feet_per_cell} ft · {len(grid.walls)} wall cells, {len(grid.difficult)} difficult"
        )

    def open_file(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Open encounter", "", "Encounters (*.lnl);;All files (*)")
        if name:
            self.load(Path(name))

    def load(self, path: Path) -> bool:
        """Open an encounter file; a bad file opens nothing and the current encounter stays."""
        try:
            encounter = storage.load(path)
        except RulesError as error:
            QMessageBox.warning(self, "Cannot open encounter", str(error))
            return False
        self.engine.encounter = encounter
        self.engine.clear_history()
        self.path = path
        self.combatants.reset()
        self._refresh_titles()
        return True
