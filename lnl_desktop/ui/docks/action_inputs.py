"""The Action dock's editors of an action's own inputs (:attr:`ActionSpec.extras`: cover, subdual,
a second weapon, a GM's edge and its reason...), two to a line so that many of them leave Roll on
screen, each reset to its default when the action or the combatant changes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QGridLayout, QLabel, QLineEdit, QSpinBox, QWidget

from lnl_desktop.core.rules.base import Ruleset
from lnl_desktop.core.rules.specs import ActionSpec, Setting
from lnl_desktop.ui.dialogs.setting_editors import setting_default, text_placeholder


class ActionInputs(QWidget):
    """One compact editor per input of the chosen action; ``on_change(key, value)`` hears the GM's edits."""

    def __init__(self, on_change: Callable[[str, Any], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("extras")
        self.on_change = on_change
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setHorizontalSpacing(6)
        self.grid.setVerticalSpacing(4)
        for stretched in (1, 3):
            self.grid.setColumnStretch(stretched, 1)
        self.editors: dict[str, QWidget] = {}
        # The inputs' values by key, and what they were last reset for.
        self.values: dict[str, Any] = {}
        self._key: tuple[Any, ...] | None = None
        self.hide()

    def reset(self) -> None:
        """Back to the defaults at the next show (a new turn, another encounter)."""
        self._key = None

    def values_of(self, spec: ActionSpec) -> dict[str, Any]:
        """The values of ``spec``'s own inputs, by key (the default for one not set)."""
        return {setting.key: self.values.get(setting.key, setting_default(setting)) for setting in spec.extras}

    def set_value(self, spec: ActionSpec, key: str, value: Any) -> None:
        """Set one input through its editor, as the GM would."""
        setting = next((s for s in spec.extras if s.key == key), None)
        editor = self.editors.get(key)
        if setting is None or editor is None:
            raise ValueError(f"{spec.label} has no input {key!r} (it has: {', '.join(self.editors)})")
        if isinstance(editor, QSpinBox):
            editor.setValue(int(value))
        elif isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QLineEdit):
            editor.setText(str(value))
        elif isinstance(editor, QComboBox):
            index = editor.findData(value)
            if index < 0:
                raise ValueError(f"{value!r} is not a choice of {setting.label}")
            editor.setCurrentIndex(index)

    def show_for(self, key: tuple[Any, ...], spec: ActionSpec, c: Any, ruleset: Ruleset, weapon: str | None) -> None:
        """One editor per input of the action, reset to its default when ``key`` (the ruleset, the
        action, the turn) changes; ``weapon`` is the action's own, not offered again as a second."""
        if key != self._key:
            self._key = key
            self.values = {setting.key: setting_default(setting) for setting in spec.extras}
            self._build(spec)
        for setting in spec.extras:
            editor = self.editors.get(setting.key)
            value = self.values.get(setting.key, setting_default(setting))
            if isinstance(editor, QSpinBox):
                editor.setValue(int(value))
            elif isinstance(editor, QCheckBox):
                editor.setChecked(bool(value))
            elif isinstance(editor, QLineEdit):
                words = "" if value is None else str(value)
                if editor.text().strip() != words.strip():  # never under the GM's typing
                    editor.setText(words)
            elif isinstance(editor, QComboBox) and setting.kind == "means":
                self._fill_means(editor, setting, c, spec, ruleset, weapon)
            elif isinstance(editor, QComboBox):
                index = editor.findData(value)
                editor.setCurrentIndex(max(index, 0))
                self.values[setting.key] = editor.currentData()

    def _build(self, spec: ActionSpec) -> None:
        """The inputs' editors, two to a line so that many of them (a GM's edge and its reason, a
        called shot, cover, subdual, what a 20 does...) leave Roll on screen: a caption and its editor
        in each half, a check box alone in its half; a line of words beside the input before it, or
        across the whole width when it starts a line."""
        grid = self.grid
        while grid.count():
            item = grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()  # at once: deleteLater waits for the event loop
                widget.deleteLater()
        self.editors = {}
        line, half = 0, 0
        for setting in spec.extras:
            editor = self._editor(setting)
            editor.setToolTip(setting.tip)
            editor.setAccessibleName(setting.label)
            editor.setObjectName(f"extra-{setting.key}")
            # A line of words next to the input before it (a GM's edge, then why), else the whole line.
            wide = setting.kind == "text" and not half
            column = 2 * half
            if isinstance(editor, QCheckBox):
                grid.addWidget(editor, line, column, 1, 2)
            else:
                caption = QLabel(setting.label, self)
                caption.setToolTip(setting.tip)
                caption.setBuddy(editor)
                caption.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                grid.addWidget(caption, line, column)
                grid.addWidget(editor, line, column + 1, 1, 3 if wide else 1)
                caption.show()  # at once: a layout shows a new child of a visible widget only later
            editor.show()
            self.editors[setting.key] = editor
            if wide or half:
                line, half = line + 1, 0
            else:
                half = 1
        self.setVisible(bool(spec.extras))

    def _editor(self, setting: Setting) -> QWidget:
        """A compact editor of one Setting: a spin box, a combo of choices or weapons, a check box,
        a line of words."""
        key = setting.key
        if setting.kind == "int":
            spin = QSpinBox(self)
            spin.setRange(setting.low, setting.high)
            spin.valueChanged.connect(lambda value, key=key: self.on_change(key, int(value)))
            return spin
        if setting.kind == "bool":
            check = QCheckBox(setting.label, self)
            check.toggled.connect(lambda on, key=key: self.on_change(key, bool(on)))
            return check
        if setting.kind == "text":
            edit = QLineEdit(self)
            edit.setPlaceholderText(text_placeholder(setting))
            edit.setClearButtonEnabled(True)
            edit.textChanged.connect(lambda text, key=key: self.on_change(key, text.strip()))
            return edit
        combo = QComboBox(self)
        # Narrow enough for two to a line in the dock; the list shows every choice whole.
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(6)
        if setting.kind == "choice":
            for choice in setting.choices:
                combo.addItem(str(choice), choice)
                combo.setItemData(combo.count() - 1, str(choice), Qt.ItemDataRole.ToolTipRole)
        combo.currentIndexChanged.connect(
            lambda index, key=key, combo=combo: self.on_change(key, combo.itemData(index))
        )
        return combo

    def _fill_means(
        self, combo: QComboBox, setting: Setting, c: Any, spec: ActionSpec, ruleset: Ruleset, weapon: str | None
    ) -> None:
        """The acting combatant's weapons for an input of kind "means" (a second weapon), "none" first
        when it may be left out; the action's own weapon is not offered twice."""
        if spec.uses == "weapon":
            offered = [(name, label, why) for name, label, why in ruleset.actions.choices(spec, c) if name != weapon]
        else:
            offered = [(name, name, "") for name in ruleset.actions.means_names(c)]
        combo.clear()
        if setting.optional:
            combo.addItem("none", "")
        for name, label, why in offered:
            combo.addItem(label, name)
            if why:
                combo.setItemData(combo.count() - 1, why, Qt.ItemDataRole.ToolTipRole)
        index = combo.findData(self.values.get(setting.key, setting.default))
        combo.setCurrentIndex(max(index, 0) if combo.count() else -1)
        self.values[setting.key] = combo.currentData() if combo.count() else ""
