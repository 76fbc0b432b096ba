"""Dialogs of the combat controls: starting a combat, and typing in faces read off physical dice.

Every roll can come from the app's dice or from the GM's own: these dialogs take typed faces and
check them with a *dry run* of the very rules code that will use them (``resolve_attack`` or
``roll_plain`` on a :class:`FaceProbe`), so too few faces, faces off the die and faces left over
are refused with the reason before anything is applied.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.actions import StartCombat
from lnl_desktop.core.dice import roll_plain
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.model import Encounter, Side, SurpriseSituation
from lnl_desktop.core.rules import Ruleset, get_ruleset

OK_COLOR = "#1b7a3a"
BAD_COLOR = "#b3261e"

SITUATION_TIPS = {
    SurpriseSituation.NOBODY: "Nobody set an ambush: the d6 reads the surprise table's first row",
    SurpriseSituation.OPPONENTS_AMBUSH: "The Opponents lie in wait for the Party",
    SurpriseSituation.PARTY_AMBUSH: "The Party lies in wait for the Opponents",
    SurpriseSituation.REVERSE: "The ambushers are ambushed themselves: the GM sets the outcome by hand, no die",
}


# -- typed faces ---------------------------------------------------------------------------------


class FacesRefused(RulesError):
    """Typed faces that cannot make this roll; the message says why in the table's words."""


class _OutOfFaces(Exception):
    def __init__(self, sides: int, purpose: str) -> None:
        super().__init__(purpose)
        self.sides = sides
        self.purpose = purpose


@dataclass(frozen=True)
class DieAsked:
    """One die the rules asked for during a dry run: its type, what for, and the face used."""

    sides: int
    purpose: str
    face: int


class FaceProbe:
    """A dice source over typed faces that remembers every die the rules ask for.

    With ``fill`` set, it answers 1 (a face that never explodes) once the typed faces run out and
    keeps asking, so a dry run can tell how many more dice are missing and what they are for.
    """

    def __init__(self, faces: list[int], fill: bool = False) -> None:
        self.faces = list(faces)
        self.fill = fill
        self.asked: list[DieAsked] = []

    def roll(self, sides: int, purpose: str) -> int:
        index = len(self.asked)
        if index >= len(self.faces):
            if not self.fill:
                raise _OutOfFaces(sides, purpose)
            face = 1
        else:
            face = self.faces[index]
            if not 1 <= face <= sides:
                raise FacesRefused(
                    f"{face} is not a face of a d{sides} (1 to {sides}): face {index + 1} is {_what(purpose, sides)}"
                )
        self.asked.append(DieAsked(sides, purpose, face))
        return face

    @property
    def left_over(self) -> list[int]:
        return self.faces[len(self.asked) :]


DryRun = Callable[[FaceProbe], object]


def _what(purpose: str, sides: int) -> str:
    """'Tombril's Shortsword damage (explosion)' -> 'an extra d6 for an exploding die'."""
    if "(explosion)" in purpose:
        return f"an extra d{sides} for an exploding die"
    if "exertion" in purpose:
        return "the d4 exertion roll"
    if "AWA" in purpose:
        return "the d20 AWA check"
    if "damage" in purpose:
        return f"a base d{sides} of the damage"
    return f"the d{sides} for {purpose}"


def parse_faces(text: str) -> list[int]:
    """'5 3 4 3 2' or '5, 3, 4' -> [5, 3, 4]; anything that is not a whole number is refused."""
    words = [w for w in re.split(r"[\s,;]+", text.strip()) if w]
    if not words:
        raise FacesRefused("type the faces, e.g. 5 3 4 3 2")
    faces: list[int] = []
    for word in words:
        if not re.fullmatch(r"\d+", word):
            raise FacesRefused(f"{word!r} is not a die face (type whole numbers separated by spaces)")
        faces.append(int(word))
    return faces


def _missing(dry_run: DryRun, faces: list[int]) -> list[DieAsked]:
    """The dice still to roll after ``faces``, found by running on with faces that never explode."""
    probe = FaceProbe(faces, fill=True)
    dry_run(probe)
    return probe.asked[len(faces) :]


def _describe_missing(missing: list[DieAsked]) -> str:
    parts: list[str] = []
    explosions = [d for d in missing if "(explosion)" in d.purpose]
    if explosions:
        sides = explosions[0].sides
        n = len(explosions)
        if n == 1:
            parts.append(f"the {sides} explodes: one more d{sides} is needed")
        else:
            parts.append(f"{n} dice show {sides} and explode: {n} more d{sides} are needed")
    base = [d for d in missing if "damage" in d.purpose and "(explosion)" not in d.purpose]
    if base:
        parts.append(f"{len(base)} more base d{base[0].sides} of the damage")
    for d in missing:
        if d not in explosions and d not in base:
            parts.append(_what(d.purpose, d.sides))
    return "; then ".join(parts)


def check_faces(faces: list[int], dry_run: DryRun) -> str | None:
    """Why ``faces`` cannot make the roll ``dry_run`` performs, or None when they fit exactly."""
    probe = FaceProbe(faces)
    try:
        dry_run(probe)
    except _OutOfFaces:
        try:
            missing = _missing(dry_run, faces)
        except RulesError as error:
            return str(error)
        given = f"{len(faces)} face{'s' if len(faces) != 1 else ''} typed"
        return f"Too few faces ({given}): {_describe_missing(missing)}"
    except RulesError as error:
        return str(error)
    rest = probe.left_over
    if rest:
        used = len(probe.asked)
        return (
            f"{len(rest)} face{'s' if len(rest) != 1 else ''} left over ({' '.join(map(str, rest))}): "
            f"this roll takes {used} {'die' if used == 1 else 'dice'} with these faces"
        )
    return None


def faces_hint(dry_run: DryRun) -> str:
    """Which dice to type, in which order, read off a dry run in which nothing explodes."""
    asked = _missing(dry_run, [])
    steps: list[str] = []
    damage_sides: int | None = None
    i = 0
    while i < len(asked):
        d = asked[i]
        if "damage" in d.purpose:
            j = i
            while j < len(asked) and asked[j].purpose == d.purpose:
                j += 1
            count = j - i
            steps.append(f"the {count} base d{d.sides}" if count > 1 else f"the base d{d.sides}")
            steps.append(
                f"one more d{d.sides} for every {d.sides} rolled, and again for every {d.sides} among those "
                "(breadth-first: all of one round's extra dice before the dice they earn)"
            )
            damage_sides = d.sides
            i = j
            continue
        steps.append(_what(d.purpose, d.sides))
        i += 1
    total = len(asked)
    lead = f"{total} {'die' if total == 1 else 'dice'} at least" if damage_sides else f"{total} die"
    return f"Type {lead}, in this order: " + ", then ".join(steps) + "."


def check_d6(text: str, purpose: str = "initiative") -> tuple[int | None, str | None]:
    """A typed d6 face, checked by a dry run of ``roll_plain``: (face, None) or (None, reason)."""
    try:
        faces = parse_faces(text)
    except FacesRefused as error:
        return None, str(error)
    reason = check_faces(faces, lambda dice: roll_plain(dice, 6, purpose))
    if reason is not None:
        return None, reason
    return faces[0], None


class FacesDialog(QDialog):
    """One line of faces typed from physical dice, checked by a dry run before it can be applied."""

    def __init__(
        self,
        title: str,
        hint: str,
        check: Callable[[list[int]], str | None],
        parent: QWidget | None = None,
        example: str = "",
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(460)
        self._check = check
        self.hint_label = QLabel(hint, self)
        self.hint_label.setWordWrap(True)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText(f"e.g. {example}" if example else "faces separated by spaces")
        self.edit.setToolTip("The faces as the dice show them, separated by spaces")
        self.status_label = QLabel(self)
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Apply these faces")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint_label)
        layout.addWidget(self.edit)
        layout.addWidget(self.status_label)
        layout.addWidget(self.buttons)
        self.edit.textChanged.connect(self._validate)
        self._faces: list[int] | None = None
        self.reason: str | None = None
        self._validate()

    def faces(self) -> list[int] | None:
        """The faces, once they fit the roll exactly; None otherwise."""
        return self._faces

    def _validate(self) -> None:
        text = self.edit.text()
        try:
            faces = parse_faces(text)
            reason = self._check(faces)
        except FacesRefused as error:
            faces, reason = [], str(error)
        self._faces = None if reason else faces
        self.reason = reason
        if not text.strip():
            self.status_label.setText("")
        elif reason:
            self.status_label.setText(f'<span style="color:{BAD_COLOR}">✘ {_escape(reason)}</span>')
        else:
            self.status_label.setText(f'<span style="color:{OK_COLOR}">✔ {len(faces)} faces fit the roll</span>')
        self.ok_button.setEnabled(self._faces is not None)
        self.ok_button.setToolTip(reason or "Apply the action with these faces")

    def accept(self) -> None:
        self._validate()
        if self._faces is None:
            return  # never applied: the reason is on show
        super().accept()


# -- starting a combat ---------------------------------------------------------------------------


def surprise_row(ruleset: Ruleset, situation: SurpriseSituation) -> list[tuple[int, str]]:
    """The surprise table's row for ``situation``: (face, reading) for faces 1 to 6."""
    if situation is SurpriseSituation.REVERSE:
        return []
    return [(face, ruleset.surprise(situation, face).text) for face in range(1, 7)]


class StartCombatDialog(QDialog):
    """Round 1: the surprise situation, then the d6 (rolled by the app or typed) or, for a reverse
    ambush, the outcome set by hand. :meth:`action` is the ``StartCombat`` to apply."""

    def __init__(self, encounter: Encounter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Start combat")
        self.ruleset = get_ruleset(encounter.ruleset)

        situation_box = QGroupBox("Who ambushes whom?", self)
        situation_layout = QVBoxLayout(situation_box)
        self.situation_group = QButtonGroup(self)
        self.situation_buttons: dict[SurpriseSituation, QRadioButton] = {}
        for i, situation in enumerate(SurpriseSituation):
            button = QRadioButton(situation.value[0].upper() + situation.value[1:], situation_box)
            button.setToolTip(SITUATION_TIPS[situation])
            self.situation_group.addButton(button, i)
            self.situation_buttons[situation] = button
            situation_layout.addWidget(button)
        self.situation_buttons[SurpriseSituation.NOBODY].setChecked(True)

        self.table_label = QLabel(self)
        self.table_label.setTextFormat(Qt.TextFormat.RichText)
        self.table_label.setToolTip("The surprise table (RULES §2): the same d6 is read with the chosen situation")

        self.die_box = QGroupBox("The d6", self)
        self.roll_radio = QRadioButton("Roll the d6", self.die_box)
        self.roll_radio.setToolTip("The app rolls the surprise and initiative die")
        self.typed_radio = QRadioButton("I rolled:", self.die_box)
        self.typed_radio.setToolTip("Type the face your own d6 shows")
        self.face_edit = QLineEdit(self.die_box)
        self.face_edit.setPlaceholderText("1-6")
        self.face_edit.setMaximumWidth(60)
        self.face_edit.setToolTip("The face of your d6, 1 to 6")
        self.roll_radio.setChecked(True)
        die_layout = QHBoxLayout(self.die_box)
        die_layout.addWidget(self.roll_radio)
        die_layout.addSpacing(12)
        die_layout.addWidget(self.typed_radio)
        die_layout.addWidget(self.face_edit)
        die_layout.addStretch(1)

        self.reverse_box = QGroupBox("Reverse ambush: the GM sets the outcome", self)
        self.first_combo = QComboBox(self.reverse_box)
        for side in Side:
            self.first_combo.addItem(side.value, side.value)
        self.first_combo.setToolTip("The side that takes its turns first in round 1")
        self.surprised_combo = QComboBox(self.reverse_box)
        self.surprised_combo.addItem("nobody", None)
        for side in Side:
            self.surprised_combo.addItem(side.value, side.value)
        self.surprised_combo.setToolTip("A surprised side takes no turns in round 1")
        reverse_form = QFormLayout(self.reverse_box)
        reverse_form.addRow("Acts first", self.first_combo)
        reverse_form.addRow("Surprised", self.surprised_combo)

        self.outcome_label = QLabel(self)
        self.outcome_label.setWordWrap(True)
        self.outcome_label.setTextFormat(Qt.TextFormat.RichText)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.start_button = QPushButton("Start combat", self)
        self.start_button.setDefault(True)
        self.buttons.addButton(self.start_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(situation_box)
        layout.addWidget(self.table_label)
        layout.addWidget(self.die_box)
        layout.addWidget(self.reverse_box)
        layout.addWidget(self.outcome_label)
        layout.addWidget(self.buttons)

        self.situation_group.idToggled.connect(lambda *_: self._refresh())
        self.roll_radio.toggled.connect(lambda *_: self._refresh())
        self.face_edit.textChanged.connect(self._on_face_typed)
        self.first_combo.currentIndexChanged.connect(lambda *_: self._refresh())
        self.surprised_combo.currentIndexChanged.connect(lambda *_: self._refresh())
        self._refresh()

    # -- the choices -------------------------------------------------------------------------

    def situation(self) -> SurpriseSituation:
        for situation, button in self.situation_buttons.items():
            if button.isChecked():
                return situation
        return SurpriseSituation.NOBODY

    def set_situation(self, situation: SurpriseSituation) -> None:
        self.situation_buttons[situation].setChecked(True)

    def set_face(self, face: int | str | None) -> None:
        """Type a face (or None: the app rolls)."""
        if face is None:
            self.roll_radio.setChecked(True)
        else:
            self.typed_radio.setChecked(True)
            self.face_edit.setText(str(face))

    def set_reverse(self, first: Side, surprised: Side | None) -> None:
        self.set_situation(SurpriseSituation.REVERSE)
        self.first_combo.setCurrentIndex(self.first_combo.findData(first.value))
        self.surprised_combo.setCurrentIndex(self.surprised_combo.findData(surprised.value if surprised else None))

    def first_side(self) -> Side:
        """A reverse ambush: the side that acts first."""
        return Side(self.first_combo.currentData())

    def surprised_side(self) -> Side | None:
        """A reverse ambush: the surprised side, or None."""
        data = self.surprised_combo.currentData()
        return Side(data) if data else None

    def _on_face_typed(self, text: str) -> None:
        if text.strip() and not self.typed_radio.isChecked():
            self.typed_radio.setChecked(True)
        self._refresh()

    def problem(self) -> str | None:
        """Why the dialog cannot start the combat as filled in, or None."""
        if self.situation() is SurpriseSituation.REVERSE:
            first, surprised = self.first_side(), self.surprised_side()
            if surprised is first:
                return "The side that acts first cannot be the surprised one"
            return None
        if self.typed_radio.isChecked():
            return check_d6(self.face_edit.text(), "surprise and initiative")[1]
        return None

    def action(self) -> StartCombat:
        situation = self.situation()
        if situation is SurpriseSituation.REVERSE:
            return StartCombat(situation, None, self.first_side(), self.surprised_side())
        face = check_d6(self.face_edit.text())[0] if self.typed_radio.isChecked() else None
        return StartCombat(situation, face)

    # -- showing -----------------------------------------------------------------------------

    def _refresh(self) -> None:
        situation = self.situation()
        reverse = situation is SurpriseSituation.REVERSE
        self.die_box.setVisible(not reverse)
        self.reverse_box.setVisible(reverse)
        typed = check_d6(self.face_edit.text())[0] if self.typed_radio.isChecked() else None
        if reverse:
            self.table_label.setText("<i>Reverse ambush: no die is read; set who acts first and who is surprised.</i>")
        else:
            rows = "".join(
                f'<tr style="{"font-weight:bold; background:#fff3c4" if face == typed else ""}">'
                f'<td align="right">{face}&nbsp;</td><td>{_escape(text)}</td></tr>'
                for face, text in surprise_row(self.ruleset, situation)
            )
            self.table_label.setText(
                f'<b>The d6 for “{_escape(situation.value)}”:</b><table cellspacing="0" cellpadding="1">{rows}</table>'
            )
        problem = self.problem()
        self.start_button.setEnabled(problem is None)
        self.start_button.setToolTip(problem or "Start round 1")
        if problem:
            self.outcome_label.setText(f'<span style="color:{BAD_COLOR}">✘ {_escape(problem)}</span>')
        elif reverse:
            first, surprised = self.first_side(), self.surprised_side()
            words = first.acts_first if surprised is None else f"{surprised.value} surprised: {first.acts_first}"
            self.outcome_label.setText(f"<b>Outcome:</b> {_escape(words)}")
        elif typed is not None:
            reading = self.ruleset.surprise(situation, typed).text
            self.outcome_label.setText(f"<b>{typed}:</b> {_escape(reading)}")
        else:
            self.outcome_label.setText("The app rolls the d6 when you start.")

    def accept(self) -> None:
        if self.problem() is not None:
            return
        super().accept()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
