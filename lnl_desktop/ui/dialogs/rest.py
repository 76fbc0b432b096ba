"""The Rest dialog (RULES §16): which rest, for the whole party or the chosen characters, the dice
each one rolls, rolled by the app or typed off the GM's own dice, and a preview of what each gets.

The preview is the very result OK applies: the faces (rolled or typed) are checked with a dry run
of :func:`lnl_desktop.core.session.party.rest` (too few, off the die, left over: refused with the
reason) and the same faces make the rest that is applied.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.dice.rolls import RandomDice, RecordingDice, ScriptedDice
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.core.session.party import Rested, rest
from lnl_desktop.core.session.roster import Roster
from lnl_desktop.ui.dialogs.faces import BAD_COLOR, FacesRefused, check_faces, parse_faces

DEAD_TIP = "Dead: no rest raises the dead"


def no_rest_reason(roster: Roster | None) -> str:
    """Why the party cannot rest now ("" when it can): no party, no one in it, or no rules for rest."""
    if roster is None:
        return "Open or make a party first (Party dock)"
    ruleset = get_ruleset(roster.ruleset)
    if ruleset.rest is None:
        return f"{ruleset.title} has no rules for rest between fights"
    if not roster.characters:
        return "The party has no characters yet"
    return ""


class RestDialog(QDialog):
    """Pick the rest, the characters and the faces; :meth:`rested` is the result OK applies."""

    def __init__(self, roster: Roster, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        reason = no_rest_reason(roster)
        if reason:
            raise RulesError(reason)
        self.roster = roster
        self.ruleset = get_ruleset(roster.ruleset)
        assert self.ruleset.rest is not None
        self.setWindowTitle(f"Rest — {roster.name}")
        self._rested: Rested | None = None

        self.kind_box = QComboBox()
        for key, words in self.ruleset.rest.kinds():
            self.kind_box.addItem(words, key)
        self.kind_box.setToolTip(f"The rests {self.ruleset.title} knows (RULES §16)")
        self.characters = QListWidget()
        self.characters.setToolTip("Who rests: untick a character who keeps watch or is away")
        for c in roster.characters:
            item = QListWidgetItem(c.name)
            item.setData(Qt.ItemDataRole.UserRole, c.id)
            if self.ruleset.rest.dead(c):
                item.setText(f"{c.name} (dead)")
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)  # greyed: nothing to choose
                item.setToolTip(DEAD_TIP)
                item.setCheckState(Qt.CheckState.Unchecked)
            else:
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked)
            self.characters.addItem(item)
        self.dice_label = QLabel()
        self.faces_edit = QLineEdit()
        self.faces_edit.setToolTip("The faces of your own dice, one per character in the list's order; or Roll")
        self.roll_button = QPushButton("&Roll")
        self.roll_button.setToolTip("The app rolls every character's dice and types the faces in")
        faces_row = QHBoxLayout()
        faces_row.addWidget(self.faces_edit, 1)
        faces_row.addWidget(self.roll_button)
        self.problem_label = QLabel()
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet(f"color: {BAD_COLOR}")
        self.preview = QLabel()
        self.preview.setWordWrap(True)
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout()
        form.addRow("&Rest:", self.kind_box)
        form.addRow("Who &rests:", self.characters)
        form.addRow("Dice:", self.dice_label)
        form.addRow("&Faces:", faces_row)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem_label)
        layout.addWidget(QLabel("What each gets:"))
        layout.addWidget(self.preview)
        layout.addWidget(self.buttons)

        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        self.characters.itemChanged.connect(lambda _item: self._kind_changed())
        self.faces_edit.textChanged.connect(lambda _text: self._refresh())
        self.roll_button.clicked.connect(self.roll)
        self._kind_changed()

    # -- what is chosen ------------------------------------------------------------------------

    def kind(self) -> str:
        return str(self.kind_box.currentData())

    def chosen(self) -> list[str]:
        """The ids of the ticked characters, in the roster's order (the order faces go in)."""
        items = (self.characters.item(i) for i in range(self.characters.count()))
        return [
            str(item.data(Qt.ItemDataRole.UserRole)) for item in items if item.checkState() == Qt.CheckState.Checked
        ]

    def dice(self) -> str:
        assert self.ruleset.rest is not None
        return self.ruleset.rest.dice(self.kind(), self.roster.options)

    def needs_faces(self) -> bool:
        return bool(self.dice()) and bool(self.chosen())

    def set_faces(self, text: str) -> None:
        self.faces_edit.setText(text)

    def rested(self) -> Rested | None:
        """The rest the preview shows, or None while the faces or the choice cannot make one."""
        return self._rested

    # -- reacting ------------------------------------------------------------------------------

    def _kind_changed(self) -> None:
        dice = self.dice()
        count = len(self.chosen())
        self.dice_label.setText(f"{dice} each" if dice else "none: this rest rolls nothing")
        self.faces_edit.setEnabled(bool(dice))
        self.roll_button.setEnabled(bool(dice) and count > 0)
        if dice:
            self.faces_edit.setPlaceholderText(f"{count} × {dice}: one face each, in the list's order")
        else:
            self.faces_edit.clear()
            self.faces_edit.setPlaceholderText("no dice for this rest")
        self._refresh()

    def _dry_run(self, dice: object) -> Rested:
        return rest(self.roster, self.kind(), dice, self.chosen())  # type: ignore[arg-type]

    def _problem(self) -> str:
        """Why the rest cannot be made as it stands ("" when it can); sets the result when it can."""
        self._rested = None
        if not self.chosen():
            return "Tick at least one character to rest"
        try:
            if not self.needs_faces():
                self._rested = self._dry_run(ScriptedDice([]))
                return ""
            text = self.faces_edit.text()
            if not text.strip():
                return f"Type {len(self.chosen())} faces ({self.dice()} each) or press Roll"
            faces = parse_faces(text)
            why = check_faces(faces, self._dry_run)
            if why:
                return why
            self._rested = self._dry_run(ScriptedDice(faces))
        except FacesRefused as error:
            return str(error)
        except RulesError as error:
            return str(error)
        return ""

    def _refresh(self) -> None:
        problem = self._problem()
        self.problem_label.setText(problem)
        self.problem_label.setVisible(bool(problem))
        lines = self._rested.lines if self._rested is not None else ()
        self.preview.setText("\n".join(lines) if lines else "—")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(self._rested is not None)

    def roll(self) -> None:
        """The app's dice for every ticked character, typed into the faces field (the GM sees them)."""
        if not self.needs_faces():
            return
        recording = RecordingDice(RandomDice())
        try:
            self._dry_run(recording)
        except RulesError as error:
            self.problem_label.setText(str(error))
            self.problem_label.setVisible(True)
            return
        self.faces_edit.setText(" ".join(map(str, recording.faces)))

    def accept(self) -> None:
        if self._rested is None:
            return  # OK is disabled then; Enter must not close it either
        super().accept()
