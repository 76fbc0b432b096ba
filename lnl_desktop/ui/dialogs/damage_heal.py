"""Damage or healing by hand (RULES §10): the dialog the Sheet, the token menu and Ctrl+Shift+D open; the
question before a token leaves the map mid-fight."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.ui.plumbing.controller import TableController


class DamageHealDialog(QDialog):
    """Damage or healing by hand (RULES §10): a trap, a potion, a spell the app does not model. The
    amount, the ruleset's kind and a reason go to the rules as one ``DamageByHand``: one undo step,
    one line in the round log. A refusal is shown here and the dialog stays open."""

    def __init__(self, controller: TableController, cid: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.cid = cid
        c = controller.engine.combatant(cid)
        self.setWindowTitle(f"Damage / Heal — {c.name}")
        self.damage_button = QRadioButton("&Damage", self)
        self.heal_button = QRadioButton("&Heal", self)
        self.damage_button.setChecked(True)
        modes = QHBoxLayout()
        modes.addWidget(self.damage_button)
        modes.addWidget(self.heal_button)
        modes.addStretch(1)
        self.amount = QLineEdit(self)
        self.amount.setPlaceholderText("a whole number, such as 7")
        self.kind = QComboBox(self)
        self.reason = QLineEdit(self)
        self.reason.setMaxLength(200)
        self.reason.setPlaceholderText("a trap, a potion, a spell…")
        self.message = QLabel("", self)
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #c62828;")
        form = QFormLayout()
        form.addRow(modes)
        form.addRow("&Amount", self.amount)
        self.kind_label = QLabel("&Kind", self)
        self.kind_label.setBuddy(self.kind)
        form.addRow(self.kind_label, self.kind)
        form.addRow("&Reason", self.reason)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.apply)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        self.heal_button.toggled.connect(self._fill_kinds)
        self._fill_kinds()
        self.amount.setFocus()

    def _fill_kinds(self) -> None:
        kinds = self.controller.engine.ruleset.health.kinds(self.heal_button.isChecked())
        self.kind.clear()
        for key, words in kinds:
            self.kind.addItem(words, key)
        # One kind only: nothing to pick (L&L Classic's damage is SP first).
        self.kind.setVisible(len(kinds) > 1)
        self.kind_label.setVisible(len(kinds) > 1)

    def set_kind(self, key: str) -> None:
        self.kind.setCurrentIndex(self.kind.findData(key))

    def apply(self) -> bool:
        """Send the amount to the rules; close on success, say why not otherwise."""
        text = self.amount.text().strip()
        try:
            amount = int(text)
        except ValueError:
            self.message.setText(
                "Amount: type a whole number, such as 7" if text else "Amount: type how much, such as 7"
            )
            return False
        heal = self.heal_button.isChecked()
        action = act.DamageByHand(self.cid, amount, heal, self.kind.currentData() or "", self.reason.text())
        if self.controller.do(action) is None:
            self.message.setText(self.controller.refusal or "The rules refused it")
            return False
        self.accept()
        return True


def open_damage_heal(controller: TableController, cid: str | None, parent: QWidget | None) -> DamageHealDialog | None:
    """Open the Damage / Heal dialog for ``cid`` (the selected combatant); None when nobody is picked
    or the ruleset has no damage by hand."""
    if cid is None or controller.combatant(cid) is None or not controller.engine.ruleset.health.kinds(False):
        return None
    dialog = DamageHealDialog(controller, cid, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def confirm_remove_token(window: QWidget, name: str) -> tuple[bool, bool]:
    """(remove it, don't ask again): the GM asked before a token leaves the map mid-fight. The open box is
    ``window.remove_box`` while it shows (for tests)."""
    box = QMessageBox(window)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Remove the token?")
    box.setText(f"Take {name}'s token off the map in the middle of the fight?")
    box.setInformativeText(f"{name} stays in the fight, off the map. Undo (Ctrl+Z) puts the token back.")
    remove = box.addButton("Remove token", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    never = QCheckBox("Don't ask again")
    box.setCheckBox(never)
    window.remove_box = box  # type: ignore[attr-defined]
    box.exec()
    window.remove_box = None  # type: ignore[attr-defined]
    return box.clickedButton() is remove, never.isChecked()
