"""The encounter's rules options: every switch of its ruleset's options model (RULES.md's [D] points,
the shared grid and facing rules), each with the words of its description and its default. OK applies
the changes as one ``EditOptions``: one undo step and one line in the round log; a value the rules
refuse (out of range) is said in the dialog, which stays open with nothing changed."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from annotated_types import Ge, Le
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)


def _bounds(info: FieldInfo, low: float, high: float) -> tuple[float, float]:
    for meta in info.metadata:
        if isinstance(meta, Ge):
            low = float(meta.ge)  # type: ignore[arg-type]
        elif isinstance(meta, Le):
            high = float(meta.le)  # type: ignore[arg-type]
    return low, high


def default_words(info: FieldInfo) -> str:
    """The option's default as the dialog shows it: "on", "off", "2", "1d6"."""
    value = info.get_default(call_default_factory=True)
    if isinstance(value, bool):
        return "on" if value else "off"
    value = getattr(value, "value", value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _words(key: str, info: FieldInfo) -> str:
    """The option as the GM reads it: its description, capitalised (its name if it has none)."""
    text = info.description or key.replace("_", " ")
    return text[:1].upper() + text[1:]


class RulesOptionsDialog(QDialog):
    """One editor per option of the encounter's ruleset: a check box for a switch, a spin box for
    a number, a list for a choice."""

    def __init__(
        self,
        options: BaseModel,
        title: str,
        parent: QWidget | None = None,
        apply: Callable[[dict[str, Any]], str | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self._apply = apply  # sends the changes; the refusal in words, or None once done
        self.setWindowTitle(f"Rules options — {title}")
        self._options = options
        self.editors: dict[str, QWidget] = {}
        self.defaults: dict[str, QLabel] = {}  # "Default: 2" under each editor
        form = QFormLayout()
        for key, info in type(options).model_fields.items():
            value = getattr(options, key)
            words = _words(key, info)
            default = default_words(info)
            editor: QWidget
            if isinstance(value, bool):
                box = QCheckBox(words, self)
                box.setChecked(value)
                form.addRow(box)
                editor = box
            elif isinstance(value, Enum):
                combo = QComboBox(self)
                for member in type(value):
                    combo.addItem(str(member.value), member.value)
                combo.setCurrentIndex(combo.findData(value.value))
                form.addRow(QLabel(words, self), combo)
                editor = combo
            elif isinstance(value, int):
                spin = QSpinBox(self)
                low, high = _bounds(info, -999, 999)
                spin.setRange(int(low), int(high))
                spin.setValue(value)
                form.addRow(QLabel(words, self), spin)
                editor = spin
            elif isinstance(value, float):
                dspin = QDoubleSpinBox(self)
                low, high = _bounds(info, -999.0, 999.0)
                dspin.setRange(low, high)
                dspin.setDecimals(2)
                dspin.setSingleStep(0.5)
                dspin.setValue(value)
                form.addRow(QLabel(words, self), dspin)
                editor = dspin
            elif isinstance(value, str):
                line = QLineEdit(value, self)
                form.addRow(QLabel(words, self), line)
                editor = line
            else:
                continue  # no editor for a value of another kind: it stays as it is
            # The line of explanation and the default, under the editor.
            explained = QLabel(f"Default: {default}", self)
            explained.setEnabled(False)
            form.addRow(explained)
            self.defaults[key] = explained
            editor.setToolTip(f"{words} (default: {default})")
            self.editors[key] = editor
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        note = QLabel("The changes are one step: Undo takes them all back.", self)
        note.setWordWrap(True)
        self.message = QLabel("", self)
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #c62828;")
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.message)
        layout.addWidget(buttons)

    def accept(self) -> None:
        """Apply the changes; a refusal is said here and the dialog stays open, nothing changed."""
        changes = self.changes()
        if changes and self._apply is not None:
            refusal = self._apply(changes)
            if refusal is not None:
                self.message.setText(refusal)
                return
        super().accept()

    def value(self, key: str) -> Any:
        editor = self.editors[key]
        if isinstance(editor, QCheckBox):
            return editor.isChecked()
        if isinstance(editor, QComboBox):
            return editor.currentData()
        if isinstance(editor, QSpinBox | QDoubleSpinBox):
            return editor.value()
        if isinstance(editor, QLineEdit):
            return editor.text().strip()
        raise TypeError(key)

    def set_value(self, key: str, value: Any) -> None:
        """Set one option's editor as the GM would (for scripts and tests)."""
        editor = self.editors[key]
        if isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QComboBox):
            editor.setCurrentIndex(editor.findData(getattr(value, "value", value)))
        elif isinstance(editor, QSpinBox):
            editor.setValue(int(value))
        elif isinstance(editor, QDoubleSpinBox):
            editor.setValue(float(value))
        elif isinstance(editor, QLineEdit):
            editor.setText(str(value))

    def changes(self) -> dict[str, Any]:
        """Only the options that differ from the encounter's, as ``EditOptions`` takes them."""
        found: dict[str, Any] = {}
        for key in self.editors:
            now = getattr(self._options, key)
            now = getattr(now, "value", now)
            value = self.value(key)
            if value != now:
                found[key] = value
        return found
