"""The Session dock (RULES §16): the session's name and its encounters in order, each with its state
(played, open now, to come) and the fight odds of the party as it stands now against it, worked out
on a worker (:mod:`lnl_desktop.ui.plumbing.session_odds`). GM only: the player view never shows it.
Double-click or Open: that encounter with the party brought in; Open next: the first not yet played.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.session.folder import SessionFolder
from lnl_desktop.core.session.roster import Roster
from lnl_desktop.ui.plumbing.session_odds import SessionOddsService, deadly, odds_words

PLAYED, OPEN_NOW, TO_COME = "played", "open now", "to come"
WORKING = "Working the odds out…"
DEADLY_COLOR = "#b3261e"
CARRIED_ON = "carried on"  # the roster log's kind for a fight written back
NO_SESSION = "No session open: File ▸ Open session… or New session…"


def played_encounters(roster: Roster | None) -> set[str]:
    """The encounters whose fight was carried on into the roster (their file names)."""
    if roster is None:
        return set()
    return {note.fight for note in roster.log if note.kind == CARRIED_ON and note.fight}


class SessionPanel(QWidget):
    """The session's encounters in order, their state and odds; asks the window to open one."""

    openRequested = Signal(str)  # an encounter's file name: open it with the party brought in

    def __init__(self, odds: SessionOddsService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.odds = odds
        self.folder: SessionFolder | None = None
        self.roster: Roster | None = None
        self.current: str | None = None
        self.name_label = QLabel(NO_SESSION)
        self.name_label.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Encounter", "State", "Odds of the party now"])
        self.tree.setRootIsDecorated(False)
        self.tree.setWordWrap(True)
        self.tree.setToolTip("The night's encounters in order; double-click one to open it with the party")
        self.tree.itemDoubleClicked.connect(lambda item, _col: self._open(item))
        self.tree.currentItemChanged.connect(lambda *_: self._refresh_buttons())
        self.open_button = QPushButton("&Open")
        self.open_button.clicked.connect(lambda: self._open(self.tree.currentItem()))
        self.next_button = QPushButton("Open &next")
        self.next_button.clicked.connect(self.open_next)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.next_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.name_label)
        layout.addWidget(self.tree, 1)
        layout.addLayout(buttons)
        odds.started.connect(self._working)
        odds.ready.connect(self._ready)
        odds.failed.connect(self._failed)
        self._refresh_buttons()

    # -- what it shows -------------------------------------------------------------------------

    def show_session(self, folder: SessionFolder | None, roster: Roster | None, current: str | None) -> None:
        """The session, the party as it stands, and the encounter open in the window (its file name)."""
        self.folder, self.roster, self.current = folder, roster, current
        self.tree.clear()
        if folder is None:
            self.name_label.setText(NO_SESSION)
            self.odds.set_session(None, None)
            self._refresh_buttons()
            return
        self.name_label.setText(f"{folder.session.name} — {folder.folder.name}")
        self.name_label.setToolTip(str(folder.folder))
        played = played_encounters(roster)
        for name in folder.session.encounters:
            item = QTreeWidgetItem([name, self._state(name, played), ""])
            item.setData(0, Qt.ItemDataRole.UserRole, name)
            self.tree.addTopLevelItem(item)
        for column in (0, 1):
            self.tree.resizeColumnToContents(column)
        self.odds.set_session(folder, roster)
        for name, value in self.odds.latest.items():  # the odds of this very state, already known
            (self._ready if not isinstance(value, str) else self._failed)(name, value)
        if self.odds.running or (not self.odds.latest and roster is not None):
            self._working()
        self._refresh_buttons()

    def _state(self, name: str, played: set[str]) -> str:
        if name == self.current:
            return OPEN_NOW
        return PLAYED if name in played else TO_COME

    def item(self, name: str) -> QTreeWidgetItem | None:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.data(0, Qt.ItemDataRole.UserRole) == name:
                return item
        return None

    def rows(self) -> list[tuple[str, str, str]]:
        """(encounter, state, odds) as shown, in order."""
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [(item.text(0), item.text(1), item.text(2)) for item in items]

    def _working(self) -> None:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if not self.odds.latest.get(item.data(0, Qt.ItemDataRole.UserRole)):
                item.setText(2, WORKING)
                item.setToolTip(2, f"{self.odds.fights:,} fights of the party as it stands now")

    def _ready(self, name: str, odds: Any) -> None:
        item = self.item(name)
        if item is None:
            return
        item.setText(2, odds_words(odds))
        tip = f"{odds.verdict()}\n{odds.fights:,} fights of the party as it stands now, by the default tactic"
        if deadly(odds):
            tip = f"Deadly: the party more likely loses than wins.\n{tip}"
            item.setForeground(2, QBrush(QColor(DEADLY_COLOR)))
        else:
            item.setForeground(2, QBrush())
        item.setToolTip(2, tip)

    def _failed(self, name: str, words: str) -> None:
        item = self.item(name)
        if item is None:
            return
        item.setText(2, f"No odds: {words}")
        item.setToolTip(2, words)
        item.setForeground(2, QBrush())

    # -- opening -------------------------------------------------------------------------------

    def next_encounter(self) -> str | None:
        if self.folder is None:
            return None
        played = played_encounters(self.roster)
        if self.current is not None:
            played.add(self.current)
        return self.folder.next_encounter(played)

    def _refresh_buttons(self) -> None:
        item = self.tree.currentItem()
        if self.folder is None:
            reason = NO_SESSION
            self.open_button.setEnabled(False)
            self.open_button.setToolTip(reason)
            self.next_button.setEnabled(False)
            self.next_button.setToolTip(reason)
            return
        self.open_button.setEnabled(item is not None)
        self.open_button.setToolTip(
            "Open the chosen encounter with the party brought in" if item is not None else "Choose an encounter first"
        )
        following = self.next_encounter()
        self.next_button.setEnabled(following is not None)
        self.next_button.setToolTip(
            f"Open {following} with the party brought in" if following else "Every encounter has been played"
        )

    def _open(self, item: QTreeWidgetItem | None) -> None:
        if item is not None:
            self.openRequested.emit(str(item.data(0, Qt.ItemDataRole.UserRole)))

    def open_next(self) -> None:
        following = self.next_encounter()
        if following is not None:
            self.openRequested.emit(following)
