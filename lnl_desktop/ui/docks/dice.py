"""The Dice dock: the GM's own rolls in the notation GMs type (``2d6+3 stealth``, ``4d6kh3``,
``2d20kl1``, ``3d6!``), with every face shown, the total big, this encounter's rolls, a *Secret*
box and the encounter's ruleset's quick rolls.

A roll is one engine action (``RollDice``): one undo step and one line of the round log. What the
dock shows is read from the log (the encounter's ``DiceRolled`` events), so undo takes a roll off
the history and the result. A mistake in the expression is shown under the field with its place
and changes nothing, as is a roll past the notation's limits (at most 1,000 dice asked for); a big
roll shows each term past the faces the log keeps as its sum and its dice counted. Typed faces from
the GM's own dice go through the typed-faces dialog.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.dice.notation import MOST_FACES_SHOWN, DiceExpression, NotationError, parse, roll
from lnl_desktop.core.encounter.actions import RollDice
from lnl_desktop.core.encounter.events import DiceRolled, Event, RolledTerm, Undone
from lnl_desktop.ui.dialogs.faces import BAD_COLOR, FacesDialog, check_faces, faces_example
from lnl_desktop.ui.dialogs.faces import MOST_DICE as MOST_TYPED_DICE
from lnl_desktop.ui.plumbing.controller import TableController

DROPPED_COLOR = "#8a8a8a"
TOTAL_SCALE = 2.6  # the total's type against the dock's own: read at a glance
HISTORY_ROLE = Qt.ItemDataRole.UserRole


def faces_html(event: DiceRolled) -> str:
    """Every die of a roll: kept faces bold, dropped ones struck through and grey, a die that
    exploded marked with !, a die an explosion earned with a +; a number as itself; a term too
    big to list (the log keeps its sum, not its faces) as its sum bold and its dice counted."""
    parts: list[str] = []
    for n, term in enumerate(event.terms):
        sign = "−" if term.sign < 0 else "+"
        lead = "" if n == 0 and term.sign > 0 else f"{sign} "
        if term.summed:
            parts.append(f"{lead}{escape(term.text)}: <b>{term.sign * term.total}</b> {summed_words(term)}")
            continue
        if not term.dice:
            parts.append(f"{lead}{escape(term.text)}")
            continue
        explodes = term.text.find("!") >= 0
        shown: list[str] = []
        for d in term.dice:
            face = f"{'+' if d.explosion else ''}{d.face}{'!' if explodes and d.face == d.sides else ''}"
            if d.kept:
                shown.append(f"<b>{face}</b>")
            else:
                shown.append(f'<s style="color:{DROPPED_COLOR}">{face}</s>')
        parts.append(f"{lead}{escape(term.text)}: [ {' '.join(shown)} ]")
    return " ".join(parts)


def summed_words(term: RolledTerm) -> str:
    """'(213 dice, 113 from explosions, 5 dropped)': what a big term rolled, its faces not listed."""
    said = [f"{term.rolled:,} dice"]
    if term.explosions:
        said.append(f"{term.explosions:,} from explosions")
    if term.dropped:
        said.append(f"{term.dropped:,} dropped")
    return f"({', '.join(said)})"


def bounds_words(event: DiceRolled) -> str:
    """'3 to 18', '3 or more' (exploding), 'at most -3'."""
    low, high = event.minimum, event.maximum
    if low is not None and high is not None:
        return f"{low} to {high}"
    if low is not None:
        return f"{low} or more"
    if high is not None:
        return f"at most {high}"
    return "no bounds"


class DicePanel(QWidget):
    """An expression field with Roll, Secret and Type faces…, quick rolls, the last roll, the history."""

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Dice")
        self.controller = controller
        self.faces_dialog: FacesDialog | None = None

        self.field = QLineEdit(self)
        self.field.setPlaceholderText("2d6+3 stealth, 4d6kh3, 2d20kl1, 3d6!")
        self.field.setToolTip(
            "Dice to roll: NdS (d20, 2d6, d100 or d%), + or - more dice or numbers, kh/kl to keep the "
            "highest or lowest dice (4d6kh3), ! for exploding dice (3d6!), then a label (1d20+5 stealth). "
            "Enter rolls."
        )
        self.field.setClearButtonEnabled(True)
        self.field.returnPressed.connect(self.roll)
        self.field.textEdited.connect(lambda _text: self._show_error(""))
        self.roll_button = QPushButton("Roll", self)
        self.roll_button.setToolTip("Roll the dice typed (Enter); one step in the round log, undoable")
        self.roll_button.clicked.connect(self.roll)
        self.secret_box = QCheckBox("Secret", self)
        self.secret_box.setToolTip("A GM roll: in the round log, never on the player view")
        self.faces_button = QPushButton("Type faces…", self)
        self.faces_button.setToolTip("Roll with your own dice: type the faces they show")
        self.faces_button.clicked.connect(self.type_faces)
        self.error_label = QLabel(self)
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()

        self.quick_row = QHBoxLayout()
        self.quick_buttons: list[QPushButton] = []

        self.faces_label = QLabel(self)
        self.faces_label.setWordWrap(True)
        self.faces_label.setTextFormat(Qt.TextFormat.RichText)
        self.faces_label.setToolTip(
            "Every die: dropped ones struck through, ! a die that exploded, + one it earned; "
            f"past {MOST_FACES_SHOWN} dice in one roll, a term's sum and its dice counted"
        )
        self.total_label = QLabel(self)
        self.total_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.total_label.setToolTip("The total")
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * TOTAL_SCALE)
        font.setBold(True)
        self.total_label.setFont(font)
        self.caption_label = QLabel(self)
        self.caption_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.caption_label.setWordWrap(True)

        self.history = QListWidget(self)
        self.history.setToolTip("This encounter's rolls, newest first; click one to type it again")
        self.history.itemClicked.connect(self._take_from_history)

        top = QHBoxLayout()
        top.addWidget(self.field, 1)
        top.addWidget(self.roll_button)
        options = QHBoxLayout()
        options.addWidget(self.secret_box)
        options.addStretch(1)
        options.addWidget(self.faces_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.error_label)
        layout.addLayout(options)
        layout.addLayout(self.quick_row)
        layout.addWidget(self.total_label)
        layout.addWidget(self.caption_label)
        layout.addWidget(self.faces_label)
        layout.addWidget(QLabel("Rolls", self))
        layout.addWidget(self.history, 1)

        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self._on_replaced)
        self._on_replaced()

    # -- rolling ---------------------------------------------------------------------------------

    def _expression(self) -> DiceExpression | None:
        """The field's expression, or None with the mistake shown under it (the cursor put there)."""
        try:
            return parse(self.field.text())
        except NotationError as error:
            self._show_error(str(error))
            self.field.setFocus(Qt.FocusReason.OtherFocusReason)
            self.field.setCursorPosition(min(error.index, len(self.field.text())))
            return None

    def roll(self) -> list[Event] | None:
        """Roll what the field says (Roll, Enter): one undo step; a mistake is shown and nothing changes."""
        if self._expression() is None:
            return None
        return self._do(RollDice(self.field.text().strip(), self.secret_box.isChecked()))

    def roll_quick(self, expression: str) -> list[Event] | None:
        """A quick roll of the ruleset's (the Secret box counts); the field keeps what was typed."""
        return self._do(RollDice(expression, self.secret_box.isChecked()))

    def type_faces(self) -> FacesDialog | None:
        """Ask for the faces of the GM's own dice for the field's expression, checked before it applies."""
        expression = self._expression()
        if expression is None:
            return None
        if not any(t.dice for t in expression.terms):
            self._show_error(f"{expression.text} rolls no dice")
            return None
        asked = sum(t.count for t in expression.terms)
        if asked > MOST_TYPED_DICE:
            self._show_error(
                f"typed faces are for at most {MOST_TYPED_DICE} dice (this asks for {asked:,}); "
                "Roll uses the app's dice"
            )
            return None

        def dry_run(dice: object) -> object:
            return roll(expression, dice)  # type: ignore[arg-type]

        dialog = FacesDialog(
            f"Roll {expression} — type the faces",
            _faces_hint(expression),
            lambda faces: check_faces(faces, dry_run),
            self,
            example=faces_example(dry_run),
        )
        text, secret = self.field.text().strip(), self.secret_box.isChecked()

        def accepted() -> None:
            faces = dialog.faces()
            if faces is not None:
                self._do(RollDice(text, secret, tuple(faces)))

        dialog.accepted.connect(accepted)
        dialog.finished.connect(dialog.deleteLater)
        self.faces_dialog = dialog
        dialog.open()
        return dialog

    def _do(self, action: RollDice) -> list[Event] | None:
        events = self.controller.do(action)
        if events is None:
            self._show_error(self.controller.refusal or "refused")
        else:
            self._show_error("")
        return events

    def _show_error(self, text: str) -> None:
        self.error_label.setText(f'<span style="color:{BAD_COLOR}">✘ {escape(text)}</span>' if text else "")
        self.error_label.setVisible(bool(text))

    def focus_field(self) -> None:
        """The shortcut's work: the cursor in the field, its text selected to type over."""
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    # -- what the log says -----------------------------------------------------------------------

    def rolls(self) -> list[DiceRolled]:
        """The encounter's rolls in the order they were made."""
        return [e for e in self.controller.encounter.log if isinstance(e, DiceRolled)]

    def _on_events(self, events: list[Event]) -> None:
        if any(isinstance(e, DiceRolled | Undone) for e in events):
            self._show_rolls()

    def _on_replaced(self) -> None:
        self._build_quick_buttons()
        self._show_rolls()

    def _build_quick_buttons(self) -> None:
        for button in self.quick_buttons:
            self.quick_row.removeWidget(button)
            button.deleteLater()
        self.quick_buttons = []
        for label, expression in self.controller.engine.ruleset.prompts.quick_rolls():
            button = QPushButton(label, self)
            button.setToolTip(f"Roll {expression}")
            button.clicked.connect(lambda _checked=False, e=expression: self.roll_quick(e))
            self.quick_row.addWidget(button)
            self.quick_buttons.append(button)

    def _show_rolls(self) -> None:
        rolls = self.rolls()
        self.history.clear()
        for event in reversed(rolls):
            item = QListWidgetItem(event.text.removeprefix("GM rolls "))
            item.setData(HISTORY_ROLE, f"{event.expression} {event.label}".strip())
            item.setToolTip(event.text)
            self.history.addItem(item)
        last = rolls[-1] if rolls else None
        if last is None:
            self.total_label.setText("–")
            self.caption_label.setText("No roll yet")
            self.faces_label.setText("")
            return
        self.total_label.setText(str(last.total))
        said = f"{last.expression} ({last.label})" if last.label else last.expression
        secret = " · secret" if last.secret else ""
        self.caption_label.setText(f"{said}{secret} · {bounds_words(last)}")
        self.faces_label.setText(faces_html(last))

    def _take_from_history(self, item: QListWidgetItem) -> None:
        self.field.setText(str(item.data(HISTORY_ROLE)))
        self._show_error("")


def _faces_hint(expression: DiceExpression) -> str:
    """'Type 3 faces, in this order: 2 d6 for 2d6, then 1 d20 for d20. Each 6 of 3d6! earns one more
    d6, typed after that term's dice.'"""
    dice = [t for t in expression.terms if t.dice]
    count = sum(t.count for t in dice)
    steps = ", then ".join(f"{t.count} d{t.sides} for {t.text}" for t in dice)
    lead = f"Type {'at least ' if any(t.explode for t in dice) else ''}{count} face{'s' if count != 1 else ''}"
    said = f"{lead}, in this order: {steps}."
    for t in dice:
        if t.explode:
            said += (
                f" Each {t.sides} of {t.text} earns one more d{t.sides} (and so on while {t.sides}s come up), "
                "typed right after that term's dice."
            )
    return said
