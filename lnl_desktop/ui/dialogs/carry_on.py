"""Ending a fight and carrying the party on (RULES §16): the conflicts asked (a character the roster
wrote since this fight brought it in: which state wins), and the summary of what was written back."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.session.party import Conflict

FIGHT_WINS = "This fight's state"
ROSTER_WINS = "The roster's state"


class ConflictsDialog(QDialog):
    """One row per conflict: its words and a choice, this fight's state (the default: what the GM
    just played) or the roster's. :meth:`decided` is what :func:`carry_on` takes."""

    def __init__(self, conflicts: Sequence[Conflict], fight: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Carry the party on: which state wins?")
        self.conflicts = tuple(conflicts)
        self.groups: dict[str, QButtonGroup] = {}
        intro = QLabel(
            f"The party roster changed since {fight} brought these characters in. "
            "Say for each which state the roster keeps."
        )
        intro.setWordWrap(True)
        grid = QGridLayout()
        for row, conflict in enumerate(self.conflicts):
            words = QLabel(conflict.words())
            words.setWordWrap(True)
            fight_wins = QRadioButton(FIGHT_WINS)
            fight_wins.setToolTip(f"{conflict.name} as they leave {fight}, written over the roster")
            roster_wins = QRadioButton(ROSTER_WINS)
            roster_wins.setToolTip(f"{conflict.name} stays as the roster has them; this fight's state is dropped")
            fight_wins.setChecked(True)
            group = QButtonGroup(self)
            group.addButton(fight_wins, 1)
            group.addButton(roster_wins, 0)
            self.groups[conflict.cid] = group
            grid.addWidget(words, row, 0)
            grid.addWidget(fight_wins, row, 1)
            grid.addWidget(roster_wins, row, 2)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(grid)
        layout.addWidget(buttons)

    def choose(self, cid: str, fight_wins: bool) -> None:
        self.groups[cid].button(1 if fight_wins else 0).setChecked(True)

    def decided(self) -> dict[str, bool]:
        """{character id: True (this fight's state wins) | False (the roster's is kept)}."""
        return {cid: group.checkedId() == 1 for cid, group in self.groups.items()}


def summary_text(lines: Sequence[str]) -> str:
    return "\n".join(lines) if lines else "Nothing to write back: no party character in this fight"


def show_summary(parent: QWidget, lines: Sequence[str]) -> QMessageBox:
    """The summary of a carry-on, non-modal (the table goes on; the Round log keeps it too)."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Information)
    box.setWindowTitle("The party carries on")
    box.setText("Written back to the party roster (Undo takes it back):")
    box.setInformativeText(summary_text(lines))
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setWindowModality(Qt.WindowModality.NonModal)
    box.show()  # open() would make it window-modal
    return box


OFFER_STYLE = (
    "QFrame#carryOnOffer { background: #e8f1fb; border: 2px solid #2f6db3; border-radius: 6px; }"
    " QFrame#carryOnOffer QLabel { font-weight: bold; }"
)


class CarryOnOffer(QFrame):
    """A bar over the map, not modal: one side is out, "End fight and carry the party on" offered.
    It goes when taken, dismissed, or when the fight changes again."""

    taken = Signal()

    def __init__(self, over: QWidget) -> None:
        super().__init__(over)
        self.setObjectName("carryOnOffer")
        self.setStyleSheet(OFFER_STYLE)
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.button = QPushButton("End fight and carry the party on")
        self.button.setToolTip("End the combat and write each party character's state back to the roster (undoable)")
        self.button.clicked.connect(self._take)
        close = QPushButton("Not now")
        close.setToolTip("Keep the fight going; Combat ▸ End fight and carry on (Ctrl+Shift+E) does it later")
        close.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.addWidget(self.words, 1)
        row.addWidget(self.button)
        row.addWidget(close)
        self.hide()

    def offer(self, words: str) -> None:
        self.words.setText(words)
        width = max(260, min(self.parentWidget().width() - 40, 720))
        self.setFixedWidth(width)
        self.adjustSize()
        self.move((self.parentWidget().width() - width) // 2, 16)
        self.show()
        self.raise_()

    def _take(self) -> None:
        self.hide()
        self.taken.emit()
