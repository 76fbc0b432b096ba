"""Editors of a ruleset's settings (:class:`~lnl_desktop.core.rules.base.Setting`): a spin box, a
menu of choices, a check box or a line of words, read and set the same way wherever a setting is
asked (the Start-combat dialog, a prompt's card, the Action and Turns docks)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QSignalBlocker, SignalInstance
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QSpinBox, QWidget

from lnl_desktop.core.rules.specs import Setting


def plain(value: Any) -> Any:
    """An enum's value, anything else as it is (what the options hold, as the editors show it)."""
    return getattr(value, "value", value)


def text_placeholder(setting: Setting) -> str:
    """The grey words of an empty "text" setting: the example its tooltip gives ("..., e.g. the
    ceiling collapses", "... (flanking, high ground…)"), else what to type."""
    found = re.search(r"\b(e\.g\.[^)]*)", setting.tip)
    if found:
        return found.group(1).strip().rstrip(".;,")
    examples = re.search(r"\(([^()]+)\)\s*\.?\s*$", setting.tip)
    if examples:
        return f"e.g. {examples.group(1).strip()}"
    return f"{setting.label.lower()}, in words"


def setting_default(setting: Setting) -> Any:
    """A setting's default as its editor holds it: "" for a "text" setting that gives no words."""
    if setting.kind == "text" and not isinstance(setting.default, str):
        return "" if setting.default is None or setting.default == 0 else str(setting.default)
    return setting.default


def setting_editor(
    setting: Setting, parent: QWidget | None = None, words: Mapping[str, str] | None = None, unset: str = ""
) -> QWidget:
    """A small editor for one of the ruleset's settings: a combo box of its choices (shown in their
    ``words`` where the ruleset gives more than the value), a check box, a spin box from ``low`` to
    ``high`` (an ``optional`` one reads ``unset`` at its lowest: no number given), or a line of words
    ("text": a timer's event); its tooltip is the setting's."""
    editor: QWidget
    if setting.kind == "bool":
        editor = QCheckBox(setting.label, parent)
    elif setting.kind == "int":
        spin = QSpinBox(parent)
        spin.setRange(setting.low, setting.high)
        spin.setKeyboardTracking(False)  # a typed number counts once, on Enter or leaving the box
        if setting.optional:
            spin.setSpecialValueText(unset or "—")
        editor = spin
    elif setting.kind == "text":
        line = QLineEdit(parent)
        line.setPlaceholderText(text_placeholder(setting))
        line.setClearButtonEnabled(True)
        line.setMinimumWidth(line.fontMetrics().horizontalAdvance("x" * 16))
        editor = line
    else:
        combo = QComboBox(parent)
        for choice in setting.choices:
            combo.addItem((words or {}).get(choice, choice), choice)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        editor = combo
    editor.setToolTip(setting.tip)
    editor.setAccessibleName(setting.label)
    editor.setObjectName(f"setting-{setting.key}")
    set_setting_value(editor, setting_default(setting))
    return editor


def setting_value(editor: QWidget) -> Any:
    """What a :func:`setting_editor` holds now (a line of words without its outer spaces)."""
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QSpinBox):
        if editor.specialValueText() and editor.value() == editor.minimum():
            return None  # an optional number left unset
        return editor.value()
    if isinstance(editor, QLineEdit):
        return editor.text().strip()
    assert isinstance(editor, QComboBox)
    return editor.currentData()


def set_setting_value(editor: QWidget, value: Any) -> None:
    """Show ``value`` in a :func:`setting_editor` without it telling anyone."""
    value = plain(value)
    with QSignalBlocker(editor):
        if isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QSpinBox):
            editor.setValue(editor.minimum() if value is None else int(value))
        elif isinstance(editor, QLineEdit):
            words = "" if value is None else str(value)
            if editor.text().strip() != words.strip():  # the GM's own spaces and cursor are kept
                editor.setText(words)
        elif isinstance(editor, QComboBox):
            index = editor.findData(value)
            if index < 0 and value is not None:
                editor.addItem(str(value), value)  # a value the choices do not list: shown as it is
                index = editor.count() - 1
            editor.setCurrentIndex(index)


def setting_changed(editor: QWidget) -> SignalInstance:
    """The signal a GM's change of a :func:`setting_editor` sends (never a programmatic one). A line
    of words tells once it is typed (Enter, or leaving the box), not at every key."""
    if isinstance(editor, QCheckBox):
        return editor.clicked
    if isinstance(editor, QSpinBox):
        return editor.valueChanged
    if isinstance(editor, QLineEdit):
        return editor.editingFinished
    assert isinstance(editor, QComboBox)
    return editor.activated


def setting_shown(editor: QWidget) -> SignalInstance:
    """The signal of any change of what a :func:`setting_editor` holds, a programmatic one too (a
    dialog whose forecast follows every value it shows)."""
    if isinstance(editor, QCheckBox):
        return editor.toggled
    if isinstance(editor, QSpinBox):
        return editor.valueChanged
    if isinstance(editor, QLineEdit):
        return editor.textChanged
    assert isinstance(editor, QComboBox)
    return editor.currentIndexChanged
