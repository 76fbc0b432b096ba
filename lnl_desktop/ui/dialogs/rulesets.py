"""Choosing a ruleset: the New encounter dialog, and converting a setup-phase encounter to another one.

Both list every ruleset the program knows (the built-in ones and any installed through the
``lnl_desktop.rulesets`` entry point) with a line on what sets it apart. Converting shows,
before anything changes, what will be dropped or defaulted (the engine's own conversion, run on a
copy), and the conversion is one undoable step.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.convert import convert_encounter
from lnl_desktop.core.rules.registry import DEFAULT_RULESET, Ruleset, all_rulesets, get_ruleset

NAME_ROLE = Qt.ItemDataRole.UserRole + 1


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class RulesetList(QListWidget):
    """Every known ruleset, one per row: its title, and under it what sets it apart."""

    def __init__(self, current: str, skip: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAlternatingRowColors(True)
        self.setWordWrap(True)
        for ruleset in all_rulesets().values():
            if ruleset.name == skip:
                continue
            item = QListWidgetItem(f"{ruleset.title}\n    {ruleset.about}".rstrip())
            item.setData(NAME_ROLE, ruleset.name)
            item.setToolTip(f"{ruleset.title}: {ruleset.source}" if ruleset.source else ruleset.title)
            self.addItem(item)
            if ruleset.name == current:
                self.setCurrentItem(item)
        if self.currentItem() is None and self.count():
            self.setCurrentRow(0)

    def chosen(self) -> Ruleset | None:
        item = self.currentItem()
        return get_ruleset(item.data(NAME_ROLE)) if item is not None else None

    def choose(self, name: str) -> None:
        for row in range(self.count()):
            if self.item(row).data(NAME_ROLE) == name:
                self.setCurrentRow(row)
                return
        raise ValueError(f"no ruleset {name!r} in the list")


class NewEncounterDialog(QDialog):
    """File ▸ New: the encounter's name and its ruleset (the one in use is preselected)."""

    def __init__(self, current: str = DEFAULT_RULESET, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New encounter")
        self.name_edit = QLineEdit("New encounter", self)
        self.name_edit.selectAll()
        self.name_edit.setToolTip("What the encounter is called: shown in the title bar and saved in the file")
        self.rulesets = RulesetList(current, parent=self)
        self.rulesets.setToolTip("The combat rules this encounter follows; the file records them")
        hint = QLabel("A setup-phase encounter can be converted to another ruleset later (File ▸ Convert).", self)
        hint.setWordWrap(True)
        hint.setEnabled(False)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.rulesets.itemDoubleClicked.connect(lambda *_: self.accept())
        self.message = QLabel(self)
        self.message.setStyleSheet("color: #b3261e;")
        self.message.hide()
        form = QFormLayout()
        form.addRow("Name", self.name_edit)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel("Ruleset", self))
        layout.addWidget(self.rulesets, 1)
        layout.addWidget(hint)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.resize(520, 360)

    def encounter(self) -> Encounter | None:
        """The new, empty encounter as chosen; None (with the reason shown) if the name is empty."""
        name = self.name_edit.text().strip()
        ruleset = self.rulesets.chosen()
        if not name or ruleset is None:
            self.message.setText("Give the encounter a name." if not name else "Pick a ruleset.")
            self.message.show()
            return None
        return ruleset.new_encounter(name=name)

    def accept(self) -> None:
        if self.encounter() is not None:
            super().accept()


class ConvertDialog(QDialog):
    """File ▸ Convert to another ruleset: the target, and the list of what is dropped or defaulted."""

    def __init__(self, encounter: Encounter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.encounter = encounter
        source = get_ruleset(encounter.ruleset)
        self.setWindowTitle("Convert to another ruleset")
        intro = QLabel(
            f"“{_escape(encounter.name)}” uses <b>{_escape(source.title)}</b>. The map, the tokens and every "
            "combatant's name, side, Move, size, vision and status are kept; the rest maps where it can. "
            "Edit ▸ Undo turns it back.",
            self,
        )
        intro.setWordWrap(True)
        self.rulesets = RulesetList("", skip=source.name, parent=self)
        self.notes = QLabel(self)
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.RichText)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.convert_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.convert_button.setText("Convert")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.rulesets)
        layout.addWidget(self.notes)
        layout.addWidget(self.buttons)
        self.rulesets.currentItemChanged.connect(lambda *_: self._preview())
        self._preview()
        self.resize(560, 420)

    def target(self) -> Ruleset | None:
        return self.rulesets.chosen()

    def _preview(self) -> None:
        """What the conversion will drop or default, from the very conversion the engine runs."""
        target = self.target()
        if target is None:
            self.notes.setText("No other ruleset is installed.")
            self.convert_button.setEnabled(False)
            return
        try:
            _, notes = convert_encounter(self.encounter, target)
        except RulesError as error:
            self.notes.setText(f'<span style="color:#b3261e">✘ {_escape(str(error))}</span>')
            self.convert_button.setEnabled(False)
            return
        self.convert_button.setEnabled(True)
        if notes:
            items = "".join(f"<li>{_escape(n)}</li>" for n in notes)
            self.notes.setText(f"<b>Changes on the way to {_escape(target.title)}:</b><ul>{items}</ul>")
        else:
            self.notes.setText(f"<b>Everything maps to {_escape(target.title)}:</b> nothing is dropped or defaulted.")
