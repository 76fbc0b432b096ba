"""One card of a ruleset's question (:class:`~lnl_desktop.core.rules.base.PromptSpec`): its title
and stakes, the GM's inputs, and a button per choice, with "Type faces…" beside one that rolls.

The card is what the "Rules call for" dock shows for a waiting item and what a tool's dialog
shows for a roll on the GM's demand (:mod:`lnl_desktop.ui.docks.prompts`). Typed faces are
checked by a dry run of the choice's action on a copy of the encounter before anything is
applied; every choice goes through the controller (one undo step), and a refusal says why on
the card and changes nothing.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.dice.rolls import DiceSource, ScriptedDice
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.specs import PromptChoice, PromptSpec, Setting
from lnl_desktop.ui.dialogs.faces import FacesDialog, check_faces, engine_dry_run, faces_example, faces_hint
from lnl_desktop.ui.dialogs.setting_editors import set_setting_value, setting_changed, setting_editor, setting_value
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.widgets import RefusalLabel

# -- the GM's inputs -----------------------------------------------------------------------------


def weapon_names(controller: TableController, who: str) -> list[str]:
    """The weapons of the combatant ``who`` (a "means" setting's menu, as the ruleset names them); none when
    ``who`` is a side."""
    c = controller.combatant(who)
    return list(controller.engine.ruleset.actions.means_names(c)) if c is not None else []


def prompt_editor(setting: Setting, weapons: list[str], parent: QWidget | None = None) -> QWidget:
    """An editor for one of a prompt's settings: the shared ones (a spin box, a menu of choices, a
    check box, a line of words), or for a "means" a menu of the acting combatant's weapons ("(none)"
    first when optional)."""
    if setting.kind != "means":
        return setting_editor(setting, parent)
    combo = QComboBox(parent)
    if setting.optional:
        combo.addItem("(none)", "")
    for name in weapons:
        combo.addItem(name, name)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    combo.setToolTip(setting.tip)
    combo.setAccessibleName(setting.label)
    combo.setObjectName(f"setting-{setting.key}")
    at = combo.findData(setting.default)
    combo.setCurrentIndex(at if at >= 0 else 0)
    return combo


# -- one card: a ruleset's question, its inputs and its choices ---------------------------------


class SpecCard(QFrame):
    """A :class:`PromptSpec` as the GM answers it: title and stakes, the GM's inputs, and a button
    per choice ("Type faces…" beside one that rolls), applied through the controller; a refusal
    says why on the card and changes nothing. The spec is asked for again at each click
    (:meth:`fresh_spec`), so a card never acts on a question that has gone or changed.

    :attr:`applied` carries the events of a choice that went through."""

    applied = Signal(list)

    def __init__(
        self,
        controller: TableController,
        spec: PromptSpec,
        values: dict[str, Any] | None = None,
        parent: QWidget | None = None,
        *,
        heading: bool = True,
        who: str = "",
        title: str | None = None,
        title_tip: str = "",
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.who = who
        self.values_store: dict[str, Any] = values if values is not None else {}
        self.spec = spec
        self.faces_dialog: FacesDialog | None = None
        self.setObjectName("prompt_card")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        # Never squeezed below what it needs: a list of cards scrolls instead.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        self.card_layout = layout

        self.title_label = QLabel(spec.title if title is None else title, self)
        self.title_label.setObjectName("prompt_title")
        if title_tip:
            self.title_label.setToolTip(title_tip)
        self.text_label = QLabel(spec.text, self)
        self.text_label.setWordWrap(True)
        self.text_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if heading:
            layout.addWidget(self.title_label)
        else:
            self.title_label.hide()
        layout.addWidget(self.text_label)

        self.editors: dict[str, QWidget] = {}
        if spec.settings:
            form = QFormLayout()
            form.setContentsMargins(0, 0, 0, 0)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
            weapons = weapon_names(controller, who)
            for setting in spec.settings:
                editor = prompt_editor(setting, weapons, self)
                if setting.key in self.values_store:
                    set_setting_value(editor, self.values_store[setting.key])
                setting_changed(editor).connect(lambda *_, s=setting, e=editor: self._remember(s, e))
                if isinstance(editor, QLineEdit):
                    # Words are kept as they are typed: a card built again (any event) keeps them.
                    editor.textEdited.connect(lambda *_, s=setting, e=editor: self._remember(s, e))
                self.editors[setting.key] = editor
                if setting.kind == "bool":
                    form.addRow(editor)
                else:
                    label = QLabel(setting.label, self)
                    label.setToolTip(setting.tip)
                    label.setBuddy(editor)
                    form.addRow(label, editor)
            layout.addLayout(form)

        self.choice_buttons: list[QPushButton] = []
        self.faces_buttons: dict[int, QPushButton] = {}
        for n, choice in enumerate(spec.choices):
            row = QHBoxLayout()
            row.setSpacing(4)
            button = QPushButton(choice.label, self)
            app = " (the app rolls)" if choice.rolls else ""
            button.setToolTip(f"{choice.tip}{app}" if choice.tip else choice.label)
            button.clicked.connect(lambda _=False, n=n: self.choose(n))
            row.addWidget(button, 1)
            self.choice_buttons.append(button)
            if choice.rolls:
                faces = QPushButton("Type faces…", self)
                faces.setToolTip("Type the faces of your own dice, checked before anything is applied")
                faces.clicked.connect(lambda _=False, n=n: self.type_faces(n))
                row.addWidget(faces)
                self.faces_buttons[n] = faces
            layout.addLayout(row)

        self.refusal_label = RefusalLabel(self)
        layout.addWidget(self.refusal_label)

    # -- the GM's inputs ---------------------------------------------------------------------

    def _remember(self, setting: Setting, editor: QWidget) -> None:
        self.values_store[setting.key] = setting_value(editor)

    def values(self) -> dict[str, Any]:
        """The settings as set, by key (the defaults where the GM set nothing)."""
        values = {s.key: setting_value(self.editors[s.key]) for s in self.spec.settings}
        return {k: "" if v is None else v for k, v in values.items()}

    # -- taking it up ------------------------------------------------------------------------

    def fresh_spec(self) -> PromptSpec | None:
        """The question as the ruleset asks it now; None (said why on the card) once it is gone."""
        return self.spec

    def _choice(self, n: int) -> tuple[PromptChoice, Any] | None:
        """The choice and the action it builds now, with the inputs as set; None (said why) if none."""
        spec = self.fresh_spec()
        if spec is None:
            return None
        if not 0 <= n < len(spec.choices):
            self.refuse("That choice is no longer offered")
            return None
        choice = spec.choices[n]
        try:
            action = choice.build(self.values())
        except (RulesError, ValueError) as error:
            self.refuse(str(error))
            return None
        return choice, action

    def choose(self, n: int = 0) -> list[Event] | None:
        """Take choice ``n`` with the app's dice."""
        found = self._choice(n)
        if found is None:
            return None
        return self._apply(found[1], None)

    def type_faces(self, n: int = 0) -> FacesDialog | None:
        """Ask for the faces of the GM's own dice (window-modal); the choice applies when they fit."""
        found = self._choice(n)
        if found is None:
            return None
        choice, action = found
        if not choice.rolls:
            self.refuse(f"{choice.label}: it rolls no dice")
            return None
        dry_run = engine_dry_run(self.controller.encounter, action)
        try:
            hint = faces_hint(dry_run)
            example = faces_example(dry_run)
        except RulesError as error:
            self.refuse(str(error))
            return None
        dialog = FacesDialog(
            f"{self.spec.title}: {choice.label} — type the faces",
            hint,
            lambda faces: check_faces(faces, dry_run),
            self,
            example=example,
        )
        dialog.accepted.connect(lambda: self._faces_accepted(dialog, action))
        dialog.finished.connect(dialog.deleteLater)
        self.faces_dialog = dialog
        dialog.open()
        return dialog

    def apply_faces(self, n: int, faces: list[int]) -> list[Event] | None:
        """Take choice ``n`` with these typed faces, after a dry run says they fit exactly."""
        found = self._choice(n)
        if found is None:
            return None
        return self._apply_checked(found[1], faces)

    def _faces_accepted(self, dialog: FacesDialog, action: Any) -> None:
        faces = dialog.faces()
        if faces is not None:
            self._apply_checked(action, faces)

    def _apply_checked(self, action: Any, faces: list[int]) -> list[Event] | None:
        reason = check_faces(faces, engine_dry_run(self.controller.encounter, action))
        if reason is not None:
            self.refuse(f"Faces refused: {reason}")
            return None
        return self._apply(action, ScriptedDice(faces))

    def _apply(self, action: Any, dice: DiceSource | None) -> list[Event] | None:
        events = self.controller.do(action, dice)
        if events is None:
            self.refuse(self.controller.refusal or "refused")
        else:
            self.refusal_label.clear_refusal()
            self.applied.emit(events)
        return events

    def refuse(self, text: str) -> None:
        self.refusal_label.refuse(text)

    @property
    def refusal(self) -> str:
        """The refusal on show on the card, or ""."""
        return self.refusal_label.shown_text
