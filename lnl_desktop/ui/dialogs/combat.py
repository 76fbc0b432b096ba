"""The Start-combat dialog: the first round as the encounter's ruleset opens a combat.

Its dice come from the app or from the GM's own: a typed face is checked with a dry run of the
very rules code that will use it (:mod:`lnl_desktop.ui.dialogs.faces`), so a face off the die or faces
left over are refused with the reason before anything is applied.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
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

from lnl_desktop.core.dice.rolls import DiceSource, ScriptedDice
from lnl_desktop.core.encounter.actions import EditOptions, StartCombat
from lnl_desktop.core.encounter.events import CombatStarted
from lnl_desktop.core.encounter.model import Encounter, Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.registry import Ruleset, get_ruleset
from lnl_desktop.ui.dialogs.faces import (
    BAD_COLOR,
    DieAsked,
    DryRun,
    FaceProbe,
    FacesRefused,
    check_d6,
    check_faces,
    dice_asked,
    dice_words,
    engine_dry_run,
    faces_example,
    faces_hint,
    parse_faces,
    rollers,
)
from lnl_desktop.ui.dialogs.setting_editors import (
    plain,
    set_setting_value,
    setting_changed,
    setting_editor,
    setting_value,
)

# -- starting a combat ---------------------------------------------------------------------------


def surprise_row(ruleset: Ruleset, situation: str) -> list[tuple[int, str]]:
    """How the ruleset reads each face of the die in ``situation``: (face, reading) for faces 1 to 6."""
    procedure = ruleset.rounds.start_procedure()
    spec = next((s for s in procedure.situations if s.key == str(situation)), None)
    if spec is None or spec.by_hand or not procedure.surprise_die:
        return []
    return [(face, procedure.reading(spec.key, face)) for face in range(1, 7)]


class _DieRow(QWidget):
    """'Roll the d6' or 'I rolled: [ ]' for one die."""

    def __init__(self, what: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.roll_radio = QRadioButton("Roll the d6", self)
        self.roll_radio.setToolTip(f"The app rolls the {what} die")
        self.typed_radio = QRadioButton("I rolled:", self)
        self.typed_radio.setToolTip("Type the face your own d6 shows")
        self.face_edit = QLineEdit(self)
        self.face_edit.setPlaceholderText("1-6")
        self.face_edit.setMaximumWidth(60)
        self.face_edit.setToolTip(f"The face of your {what} d6, 1 to 6")
        self.roll_radio.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.roll_radio)
        group.addButton(self.typed_radio)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.roll_radio)
        layout.addSpacing(12)
        layout.addWidget(self.typed_radio)
        layout.addWidget(self.face_edit)
        layout.addStretch(1)
        self.face_edit.textChanged.connect(self._typed)

    def _typed(self, text: str) -> None:
        if text.strip() and not self.typed_radio.isChecked():
            self.typed_radio.setChecked(True)

    def set_face(self, face: int | str | None) -> None:
        if face is None:
            self.roll_radio.setChecked(True)
        else:
            self.typed_radio.setChecked(True)
            self.face_edit.setText(str(face))

    def face(self) -> int | None:
        """The typed face (None: the app rolls, or it does not read as a d6)."""
        return check_d6(self.face_edit.text())[0] if self.typed_radio.isChecked() else None

    def problem(self, purpose: str) -> str | None:
        return check_d6(self.face_edit.text(), purpose)[1] if self.typed_radio.isChecked() else None


class StartCombatDialog(QDialog):
    """The first round, as the encounter's ruleset opens a combat (``ruleset.rounds.start_procedure``):
    its situations, the die they read (rolled by the app or typed), a second die for round 1's
    initiative where the ruleset reads one, or the outcome set by hand. :meth:`action` is the
    ``StartCombat`` to apply.

    A ruleset that rolls round 1's initiative itself (``rolls_initiative``: d20s per side or per
    combatant) gets a row to roll it or type every face, checked by a dry run of the start on a copy
    of the encounter; :meth:`dice` is then the typed faces as a dice source. Its ``settings``
    (light, initiative by group) are set before the first round: :meth:`option_changes` is the
    ``EditOptions`` to apply before the start."""

    def __init__(self, encounter: Encounter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.encounter = encounter
        self.ruleset = get_ruleset(encounter.ruleset)
        self.procedure = self.ruleset.rounds.start_procedure()
        self.setWindowTitle(f"Start combat — {self.ruleset.title}")

        situation_box = QGroupBox(self.procedure.question, self)
        situation_layout = QVBoxLayout(situation_box)
        self.situation_group = QButtonGroup(self)
        self.situation_buttons: dict[str, QRadioButton] = {}
        for i, situation in enumerate(self.procedure.situations):
            button = QRadioButton(situation.label, situation_box)
            button.setToolTip(situation.tip)
            self.situation_group.addButton(button, i)
            self.situation_buttons[situation.key] = button
            situation_layout.addWidget(button)
        self.situation_buttons[self.procedure.situations[0].key].setChecked(True)

        self.table_label = QLabel(self)
        self.table_label.setTextFormat(Qt.TextFormat.RichText)
        self.table_label.setToolTip(f"How {self.ruleset.title} reads the {self.procedure.die_label} d6")

        self.die_box = QGroupBox(f"The {self.procedure.die_label} d6", self)
        self.die_row = _DieRow(self.procedure.die_label, self.die_box)
        QVBoxLayout(self.die_box).addWidget(self.die_row)
        # The widgets of the first die, by their old names (scripts and tests use them).
        self.roll_radio, self.typed_radio, self.face_edit = (
            self.die_row.roll_radio,
            self.die_row.typed_radio,
            self.die_row.face_edit,
        )

        self.initiative_box = QGroupBox(
            "Round 1's initiative d6, read only with no surprise round (1-3 Opponents first, 4-6 the Party)", self
        )
        self.initiative_row = _DieRow("initiative", self.initiative_box)
        QVBoxLayout(self.initiative_box).addWidget(self.initiative_row)

        # Options set before the first round (Old-School d20: light, initiative by group or individual).
        self.settings_box = QGroupBox("Before the first round", self)
        settings_form = QFormLayout(self.settings_box)
        self.setting_editors: dict[str, QWidget] = {}
        for setting in self.procedure.settings:
            editor = setting_editor(setting, self.settings_box)
            set_setting_value(editor, getattr(encounter.options, setting.key, setting.default))
            self.setting_editors[setting.key] = editor
            if setting.kind == "bool":
                settings_form.addRow(editor)
            else:
                caption = QLabel(setting.label, self.settings_box)
                caption.setToolTip(setting.tip)
                settings_form.addRow(caption, editor)
            setting_changed(editor).connect(lambda *_: self._refresh())
        self.settings_box.setVisible(bool(self.procedure.settings))

        # Round 1's initiative rolled by the ruleset with any dice: rolled by the app, or typed.
        self.roll_box = QGroupBox("Round 1's initiative", self)
        self.roll_initiative_radio = QRadioButton("Roll initiative", self.roll_box)
        self.roll_initiative_radio.setToolTip("The app rolls every initiative die when you start")
        self.type_initiative_radio = QRadioButton("Type the faces:", self.roll_box)
        self.type_initiative_radio.setToolTip("Type the faces your own dice show, in the order below")
        self.initiative_faces_edit = QLineEdit(self.roll_box)
        self.initiative_faces_edit.setToolTip("The faces as the dice show them, separated by spaces")
        self.roll_initiative_radio.setChecked(True)
        roll_group = QButtonGroup(self.roll_box)
        roll_group.addButton(self.roll_initiative_radio)
        roll_group.addButton(self.type_initiative_radio)
        self.initiative_hint = QLabel(self.roll_box)
        self.initiative_hint.setWordWrap(True)
        self.initiative_hint.setToolTip("The dice the ruleset reads to open the combat, in order")
        roll_line = QHBoxLayout()
        roll_line.setContentsMargins(0, 0, 0, 0)
        roll_line.addWidget(self.roll_initiative_radio)
        roll_line.addSpacing(12)
        roll_line.addWidget(self.type_initiative_radio)
        roll_line.addWidget(self.initiative_faces_edit, 1)
        roll_layout = QVBoxLayout(self.roll_box)
        roll_layout.addLayout(roll_line)
        roll_layout.addWidget(self.initiative_hint)
        self.roll_box.setVisible(self.procedure.rolls_initiative)
        self.initiative_faces_edit.textChanged.connect(self._faces_typed)
        self.roll_initiative_radio.toggled.connect(lambda *_: self._refresh())

        self.reverse_box = QGroupBox("The GM sets the outcome", self)
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
        layout.addWidget(self.settings_box)
        layout.addWidget(situation_box)
        layout.addWidget(self.table_label)
        layout.addWidget(self.die_box)
        layout.addWidget(self.initiative_box)
        layout.addWidget(self.roll_box)
        layout.addWidget(self.reverse_box)
        layout.addWidget(self.outcome_label)
        layout.addWidget(self.buttons)

        self.situation_group.idToggled.connect(lambda *_: self._refresh())
        for row in (self.die_row, self.initiative_row):
            row.roll_radio.toggled.connect(lambda *_: self._refresh())
            row.face_edit.textChanged.connect(lambda *_: self._refresh())
        self.first_combo.currentIndexChanged.connect(lambda *_: self._refresh())
        self.surprised_combo.currentIndexChanged.connect(lambda *_: self._refresh())
        self._refresh()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """A face typed anywhere in the dialog (not in a field) is the die's face: a GM who has just
        rolled types it, then Return starts the combat."""
        focus = self.focusWidget()
        typing = isinstance(focus, (QLineEdit, QAbstractSpinBox)) or (
            isinstance(focus, QComboBox) and focus.isEditable()
        )
        if event.text().isdigit() and not typing and self.die_box.isVisible():
            self.face_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
            self.face_edit.setText(event.text())
            return
        super().keyPressEvent(event)

    # -- the choices -------------------------------------------------------------------------

    def situation(self) -> str:
        for key, button in self.situation_buttons.items():
            if button.isChecked():
                return key
        return self.procedure.situations[0].key

    def _by_hand(self) -> bool:
        situation = self.situation()
        return any(s.key == situation and s.by_hand for s in self.procedure.situations)

    def set_situation(self, situation: str) -> None:
        self.situation_buttons[str(situation)].setChecked(True)

    def set_face(self, face: int | str | None) -> None:
        """Type a face (or None: the app rolls)."""
        self.die_row.set_face(face)

    def set_initiative_face(self, face: int | str | None) -> None:
        """Type round 1's initiative face, where the ruleset reads one after the surprise die."""
        self.initiative_row.set_face(face)

    def set_reverse(self, first: Side, surprised: Side | None) -> None:
        """The outcome by hand (L&L's reverse ambush)."""
        self.set_situation(next(s.key for s in self.procedure.situations if s.by_hand))
        self.first_combo.setCurrentIndex(self.first_combo.findData(first.value))
        self.surprised_combo.setCurrentIndex(self.surprised_combo.findData(surprised.value if surprised else None))

    def first_side(self) -> Side:
        """By hand: the side that acts first."""
        return Side(self.first_combo.currentData())

    def surprised_side(self) -> Side | None:
        """By hand: the surprised side, or None."""
        data = self.surprised_combo.currentData()
        return Side(data) if data else None

    def _needs_initiative(self) -> bool:
        return self.procedure.then_initiative(self.situation(), self.die_row.face() if not self._by_hand() else None)

    def set_setting(self, key: str, value: object) -> None:
        """Set one of the options the ruleset sets before the first round (as the GM picks it)."""
        set_setting_value(self.setting_editors[key], value)
        self._refresh()

    def option_changes(self) -> dict[str, Any]:
        """The settings the GM changed, as the ``EditOptions`` changes to apply before the start ({} if none)."""
        options = self.encounter.options
        changes: dict[str, Any] = {}
        for key, editor in self.setting_editors.items():
            value = setting_value(editor)
            now = plain(getattr(options, key, None))
            if now != value and not (now is None and value == ""):  # no words where there were none
                changes[key] = value
        return changes

    def set_initiative_faces(self, text: str | None) -> None:
        """Type round 1's initiative faces (None: the app rolls them), where the ruleset rolls it."""
        if text is None:
            self.roll_initiative_radio.setChecked(True)
        else:
            self.type_initiative_radio.setChecked(True)
            self.initiative_faces_edit.setText(text)
        self._refresh()

    def _faces_typed(self, text: str) -> None:
        if text.strip() and not self.type_initiative_radio.isChecked():
            self.type_initiative_radio.setChecked(True)
        self._refresh()

    def _typing_faces(self) -> bool:
        return self.procedure.rolls_initiative and self.type_initiative_radio.isChecked()

    def start_dry_run(self) -> DryRun:
        """The start as filled in (the settings first), applied to a copy of the encounter."""
        changes = self.option_changes()
        steps: list[Any] = [EditOptions(changes)] if changes else []
        return engine_dry_run(self.encounter, *steps, self.action())

    def typed_faces(self) -> list[int] | None:
        """Round 1's initiative faces as typed, once a dry run says they fit exactly; None otherwise."""
        if not self._typing_faces():
            return None
        try:
            faces = parse_faces(self.initiative_faces_edit.text())
        except FacesRefused:
            return None
        return faces if check_faces(faces, self.start_dry_run()) is None else None

    def dice(self) -> DiceSource | None:
        """The dice to start with: the typed initiative faces, or None for the app's dice."""
        faces = self.typed_faces()
        return ScriptedDice(faces) if faces is not None else None

    def _faces_problem(self) -> str | None:
        if not self._typing_faces():
            return None
        try:
            faces = parse_faces(self.initiative_faces_edit.text())
        except FacesRefused as error:
            asked = dice_asked(self.start_dry_run())
            if asked and not self.initiative_faces_edit.text().strip():
                example = faces_example(self.start_dry_run())
                return f"Initiative: type the faces of {dice_words(asked)}" + (f", e.g. {example}" if example else "")
            return f"Initiative: {error}"
        reason = check_faces(faces, self.start_dry_run())
        return f"Initiative: {reason}" if reason is not None else None

    def _rules_problem(self) -> str | None:
        """A refusal of the rules themselves, whatever the dice say (Group d10: declare first), from a
        dry run of the start with any faces; None when the start would go through."""
        if not self.procedure.rolls_initiative:
            return None
        try:
            self.start_dry_run()(FaceProbe([], fill=True))
        except FacesRefused:
            return None
        except RulesError as refused:
            return str(refused)
        return None

    def problem(self) -> str | None:
        """Why the dialog cannot start the combat as filled in, or None."""
        rules = self._rules_problem()
        if rules is not None:
            return rules
        if self._by_hand():
            if self.procedure.by_hand_surprise and self.surprised_side() is self.first_side():
                return "The side that acts first cannot be the surprised one"
            return self._faces_problem()
        problem = self.die_row.problem(self.procedure.die_label) if self.procedure.surprise_die else None
        if problem is None and self._needs_initiative():
            problem = self.initiative_row.problem("initiative")
        return problem or self._faces_problem()

    def action(self) -> StartCombat:
        situation = self.situation()
        if self._by_hand():
            if self.procedure.by_hand_surprise:
                return StartCombat(situation, None, self.first_side(), self.surprised_side())
            return StartCombat(situation)
        initiative = self.initiative_row.face() if self._needs_initiative() else None
        face = self.die_row.face() if self.procedure.surprise_die else None
        return StartCombat(situation, face, initiative_face=initiative)

    # -- showing -----------------------------------------------------------------------------

    def _refresh(self) -> None:
        situation = self.situation()
        by_hand = self._by_hand()
        self.die_box.setVisible(not by_hand and bool(surprise_row(self.ruleset, situation)))
        self.reverse_box.setVisible(by_hand and self.procedure.by_hand_surprise)
        self.initiative_box.setVisible(not by_hand and self._needs_initiative())
        typed = self.die_row.face()
        label = next(s.label for s in self.procedure.situations if s.key == situation)
        rows = surprise_row(self.ruleset, situation)
        if by_hand:
            self.table_label.setText(f"<i>{_escape(label)}: no die is read.</i>")
        elif rows:
            body = "".join(
                f'<tr style="{"font-weight:bold; background:#fff3c4" if face == typed else ""}">'
                f'<td align="right">{face}&nbsp;</td><td>{_escape(text)}</td></tr>'
                for face, text in rows
            )
            self.table_label.setText(
                f'<b>The d6 for “{_escape(label)}”:</b><table cellspacing="0" cellpadding="1">{body}</table>'
            )
        else:
            self.table_label.setText(f"<i>{_escape(label)}.</i>")
        if self.procedure.rolls_initiative:
            self._refresh_roll_box()
        problem = self.problem()
        self.start_button.setEnabled(problem is None)
        self.start_button.setToolTip(problem or "Start the combat")
        if problem:
            self.outcome_label.setText(f'<span style="color:{BAD_COLOR}">✘ {_escape(problem)}</span>')
        elif self.procedure.rolls_initiative:
            self.outcome_label.setText(self._rolled_outcome(situation))
        elif by_hand and self.procedure.by_hand_surprise:
            first, surprised = self.first_side(), self.surprised_side()
            words = first.acts_first if surprised is None else f"{surprised.value} surprised: {first.acts_first}"
            self.outcome_label.setText(f"<b>Outcome:</b> {_escape(words)}")
        elif by_hand:
            self.outcome_label.setText(f"<b>Outcome:</b> {_escape(label)}")
        elif typed is not None:
            reading = self.procedure.reading(situation, typed)
            self.outcome_label.setText(f"<b>{typed}:</b> {_escape(reading)}")
        elif rows:
            self.outcome_label.setText(f"The app rolls the {_escape(self.procedure.die_label)} d6 when you start.")
        else:
            self.outcome_label.setText("The app rolls round 1's initiative d6 when you start.")

    def _refresh_roll_box(self) -> None:
        asked = dice_asked(self.start_dry_run())
        typing = self._typing_faces()
        if asked is None:
            self.initiative_hint.setText("")
            self.initiative_faces_edit.setPlaceholderText("faces separated by spaces")
        elif not asked:
            self.initiative_hint.setText("No die is rolled to open this combat.")
            self.initiative_faces_edit.setPlaceholderText("no dice")
        else:
            self.initiative_hint.setText(faces_hint(self.start_dry_run()) if typing else self._dice_said(asked))
            example = faces_example(self.start_dry_run())
            self.initiative_faces_edit.setPlaceholderText(
                f"{dice_words(asked)}, e.g. {example}" if example else dice_words(asked)
            )
        self.roll_initiative_radio.setText(f"Roll {dice_words(asked)}" if asked else "Roll initiative")

    @staticmethod
    def _dice_said(asked: list[DieAsked]) -> str:
        names = rollers(asked)
        who = f" ({', '.join(names)})" if names else ""
        return f"Initiative: {dice_words(asked)}{who}. Ties may take more dice."

    def _rolled_outcome(self, situation: str) -> str:
        """What the start will say: read from the typed faces by a dry run, or how the app rolls."""
        try:
            reading = self.procedure.reading(situation, 0) if not self.procedure.surprise_die else ""
        except RulesError:
            reading = ""
        head = f"<b>{_escape(reading)}.</b> " if reading else ""
        faces = self.typed_faces()
        if faces is None:
            return head + "The app rolls round 1's initiative when you start."
        probe = FaceProbe(faces)
        engine = self.start_dry_run()(probe)
        log = getattr(getattr(engine, "encounter", None), "log", [])
        said = log[-1].text if log else ""
        started = next((e.text for e in log if isinstance(e, CombatStarted)), said)
        return head + _escape(started)

    def accept(self) -> None:
        if self.problem() is not None:
            return
        super().accept()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
