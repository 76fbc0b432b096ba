"""The Turns dock's next round: the dice it reads, the faces the GM types, and the round's settings.

The dice the next round reads, and the typed faces, are found by a dry run of ``NextRound`` on a
copy of the encounter: the caption names the dice, the button says what the typed faces would
make of the round (or why they cannot), the box is marked while they cannot. The ruleset's round
settings (light, initiative by group or individual) have one small editor each.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import InitiativeRolled
from lnl_desktop.core.encounter.model import TurnSlot
from lnl_desktop.core.errors import RulesError
from lnl_desktop.ui.dialogs.faces import (
    DieAsked,
    FaceProbe,
    FacesRefused,
    check_faces,
    describe_die,
    dice_words,
    engine_dry_run,
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

if TYPE_CHECKING:
    from lnl_desktop.core.encounter.events import Event
    from lnl_desktop.ui.plumbing.controller import TableController


def slot_title(place: int, slot: TurnSlot) -> str:
    """'1. Party — d20 12 +1 INIT = 13': a place of the turn order, its title and roll."""
    return f"{place}. {slot.title} — {slot.roll}" if slot.roll else f"{place}. {slot.title}"


_EXAMPLE_FACES = (14, 7, 11, 3, 17, 9, 5, 20, 2, 12)


def typed_example(asked: list[DieAsked]) -> str:
    """For several dice: an example of typing them, and what happens on a tie ("" for one die)."""
    if len(asked) < 2:
        return ""
    faces = [_EXAMPLE_FACES[i % len(_EXAMPLE_FACES)] % d.sides or d.sides for i, d in enumerate(asked)]
    whose = []
    for i, (die, face) in enumerate(zip(asked, faces, strict=True)):
        found = re.search(r"\bfor (?:the )?(.+?)(?: \(|$)", die.purpose)
        whose.append(
            f"{face} for {'the ' if 'for the ' in die.purpose else ''}{found.group(1)}"
            if found
            else f"{face} as die {i + 1}"
        )
    shown = whose if len(whose) <= 4 else [*whose[:3], "and so on"]
    return (
        f"\nFor example, {' '.join(map(str, faces))} reads {', '.join(shown)}."
        "\nIf a tie makes the rules roll again, type those dice after these: the button says which die is missing."
    )


class RoundDice:
    """The Turns dock's next round and round settings, mixed into the dock (:class:`TurnsPanel`)."""

    # What the dock gives.
    controller: TableController
    initiative_caption: QLabel
    initiative_edit: QLineEdit
    next_round_button: QPushButton
    settings_bar: QWidget
    settings_layout: QHBoxLayout
    setting_editors: dict[str, QWidget]
    _settings_of: str  # the ruleset the settings' editors were built for
    _round_dice: list[DieAsked] | None  # what the next round reads (a dry run), None if refused
    _do: Callable[..., list[Event] | None]  # apply an action; a refusal is said in the dock
    _refuse: Callable[[str], None]
    _name_the_missing: Callable[[str], None]
    _missing_words: Callable[..., str]
    _not_fighting: Callable[[], str]
    _turn_under_way: Callable[[], str]

    def next_round(self, face: int | None = None) -> bool:
        """Roll (``face`` None) or read the next round's initiative d6."""
        if self._do(act.NextRound(face)) is None:
            self._name_the_missing("roll initiative")
            return False
        return True

    def next_round_faces(self, faces: list[int]) -> bool:
        """The next round with these faces of the GM's own dice, once a dry run says they fit exactly."""
        problem = check_faces(faces, self._round_dry_run())
        if problem is not None:
            self._refuse(f"Initiative: {problem}")
            self._name_the_missing("roll initiative")
            return False
        if self._do(act.NextRound(), ScriptedDice(faces)) is None:
            self._name_the_missing("roll initiative")
            return False
        return True

    def _round_dry_run(self) -> Any:
        return engine_dry_run(self.controller.encounter, act.NextRound())

    def roll_next_round(self) -> bool:
        """What Next round does (its button, Enter in the box, the main window's Ctrl+R): the faces
        typed in the box, checked by a dry run first, or the app's roll when it is empty; the box
        is cleared once the round has begun. A refusal is said in the dock."""
        text = self.initiative_edit.text()
        if not text.strip():
            done = self.next_round()
        else:
            try:
                faces = parse_faces(text)
            except FacesRefused as error:
                self._refuse(f"Initiative: {error}")
                return False
            done = self.next_round_faces(faces)
        if done:
            self.initiative_edit.clear()
        return done

    def _refresh_next_round(self) -> None:
        """The caption, the typed faces and the button of the next round, from what it reads (a dry run)."""
        asked = self._round_dice or []
        single = len(asked) == 1
        if single:
            self.initiative_caption.setText(f"Initiative d{asked[0].sides}:")
            self.initiative_edit.setPlaceholderText("roll")
            self.initiative_edit.setMaximumWidth(56)
        elif asked:
            names = ", ".join(rollers(asked))
            short = f" ({names})" if names and len(names) <= 28 else ""
            self.initiative_caption.setText(f"Initiative: {dice_words(asked)}{short}")
            self.initiative_edit.setPlaceholderText(f"roll, or type {dice_words(asked)}")
            self.initiative_edit.setMaximumWidth(min(56 + 22 * len(asked), 200))
        order = "\n".join(f"{i}. {describe_die(d)}" for i, d in enumerate(asked, 1))
        caption_tip = f"The next round reads, in this order:\n{order}" if asked else "The next round rolls no die"
        self.initiative_caption.setToolTip(caption_tip)
        self.initiative_edit.setToolTip(
            "Leave empty for the app to roll, or type the face of your own d6 (1-6)"
            if single and asked[0].sides == 6
            else f"Leave empty for the app to roll, or type the faces of your own dice in this order:\n{order}"
            + typed_example(asked)
        )
        text = self.initiative_edit.text()
        blocked = self._not_fighting() or self._turn_under_way()
        if blocked:  # the button is not shown then; disabled all the same, with why
            self.next_round_button.setText("Next round")
            self.next_round_button.setEnabled(False)
            self.next_round_button.setToolTip(blocked)
            self._mark(False)
            return
        undeclared = self._missing_words("roll initiative", limit=len(self.controller.encounter.combatants))
        if undeclared:
            self.next_round_button.setText("Next round: declare first")
            self.next_round_button.setEnabled(True)
            self.next_round_button.setToolTip(f"{undeclared}: the rules roll no initiative before that")
            self._mark(False)
            return
        if self._round_dice is None:
            self.next_round_button.setText("Next round")
            self.next_round_button.setEnabled(True)
            self.next_round_button.setToolTip("Begin the next round (the rules may refuse it: they say why)")
            self._mark(False)
            return
        if not text.strip() or not asked:
            roll = f"the initiative d{asked[0].sides}" if single else dice_words(asked)
            self.next_round_button.setText(f"Next round: roll {roll}" if asked else "Next round")
            self.next_round_button.setEnabled(True)
            self.next_round_button.setToolTip(self._roll_tip(asked))
            self._mark(False)
            return
        try:
            faces = parse_faces(text)
            problem = check_faces(faces, self._round_dry_run())
        except FacesRefused as error:
            faces, problem = [], str(error)
        if problem is not None:
            self.next_round_button.setText("Next round")
            self.next_round_button.setEnabled(False)
            self.next_round_button.setToolTip(f"Initiative: {problem}")
            self._mark(True)
            return
        words, tip = self._preview(faces)
        self.next_round_button.setText(f"Next round: {words}")
        self.next_round_button.setEnabled(True)
        self.next_round_button.setToolTip(tip)
        self._mark(False)

    def _roll_tip(self, asked: list[DieAsked]) -> str:
        """What the app's roll reads: the faces of a one-die side initiative, or the dice in order."""
        if not asked:
            return "The next round rolls no die"
        if len(asked) == 1:
            sides = asked[0].sides
            try:
                readings = [
                    (face, self.controller.engine.ruleset.rounds.initiative(face)) for face in range(1, sides + 1)
                ]
            except RulesError:
                readings = []
            if readings:
                spans: list[str] = []
                start = 0
                for i in range(1, len(readings) + 1):
                    if i == len(readings) or readings[i][1] is not readings[start][1]:
                        low, high = readings[start][0], readings[i - 1][0]
                        faces = f"{low}" if low == high else f"{low}-{high}"
                        spans.append(f"{faces} {readings[start][1].acts_first}")
                        start = i
                return f"The app rolls the d{sides}: {', '.join(spans)}"
        return "The app rolls " + ", then ".join(describe_die(d) for d in asked)

    def _preview(self, faces: list[int]) -> tuple[str, str]:
        """What the next round would be with these faces (a dry run): the button's words and its tooltip."""
        engine = self._round_dry_run()(FaceProbe(faces))
        combat = engine.encounter.combat  # type: ignore[attr-defined]
        log = engine.encounter.log  # type: ignore[attr-defined]
        said = next((e.text for e in log if isinstance(e, InitiativeRolled)), "")
        if combat.order:
            lines = [slot_title(i, s) for i, s in enumerate(combat.order, 1)]
            return f"{combat.order[0].title} first", "\n".join(lines)
        first = combat.first_side
        shown = " ".join(map(str, faces))
        return (f"{shown}, {first.acts_first}" if first is not None else shown), f"Read your dice: {said}"

    # -- the round's settings ----------------------------------------------------------------

    def _refresh_settings(self) -> None:
        """One small editor per round setting of the ruleset, showing the encounter's options."""
        ruleset = self.controller.engine.ruleset
        if ruleset.name != self._settings_of:
            self._build_settings()
        options = self.controller.encounter.options
        for key, editor in self.setting_editors.items():
            set_setting_value(editor, getattr(options, key, None))
        self.settings_bar.setVisible(bool(self.setting_editors))

    def _build_settings(self) -> None:
        ruleset = self.controller.engine.ruleset
        self._settings_of = ruleset.name
        while self.settings_layout.count():
            child = self.settings_layout.takeAt(0)
            widget = child.widget() if child is not None else None
            if widget is not None:
                widget.deleteLater()
        self.setting_editors = {}
        for setting in ruleset.rounds.settings():
            editor = setting_editor(setting, self.settings_bar)
            if not isinstance(editor, QCheckBox):
                caption = QLabel(f"{setting.label}:", self.settings_bar)
                caption.setToolTip(setting.tip)
                caption.setBuddy(editor)
                self.settings_layout.addWidget(caption)
            self.settings_layout.addWidget(editor)
            self.settings_layout.addSpacing(6)
            setting_changed(editor).connect(lambda *_, key=setting.key: self.change_setting(key))
            self.setting_editors[setting.key] = editor
        self.settings_layout.addStretch(1)

    def set_setting(self, key: str, value: Any) -> bool:
        """Change a round setting as the GM does in its editor (``EditOptions``, one undoable step)."""
        set_setting_value(self.setting_editors[key], value)
        return self.change_setting(key)

    def change_setting(self, key: str) -> bool:
        editor = self.setting_editors[key]
        value = setting_value(editor)
        options = self.controller.encounter.options
        if plain(getattr(options, key, None)) == value:
            return True
        ok = self._do(act.EditOptions({key: value})) is not None
        if not ok:
            set_setting_value(editor, getattr(options, key, None))
        return ok

    def _mark(self, invalid: bool) -> None:
        if bool(self.initiative_edit.property("invalid")) != invalid:
            self.initiative_edit.setProperty("invalid", invalid)
            self.initiative_edit.style().unpolish(self.initiative_edit)
            self.initiative_edit.style().polish(self.initiative_edit)
