"""The Sheet's fields: one small binding per editor, kept in step with the selected combatant by a
:class:`QDataWidgetMapper` over the Combatants item model.

The mapper follows the sheet's row of :class:`~lnl_desktop.ui.models.combatants.CombatantsModel`
and fills every editor from it (at each refresh, and when the row repaints). What a mapper cannot
do stays with the bindings: the text of a value and back, validation in the game's words
(:class:`BadInput`, named by the field's label), the ruleset's own rows (:func:`row_binding`), and
the edit itself, which the sheet sends through the controller as one undo step.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QColor, QFocusEvent, QIcon, QKeyEvent, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDataWidgetMapper,
    QLineEdit,
    QPlainTextEdit,
    QStyledItemDelegate,
    QWidget,
)

from lnl_desktop.core.rules.specs import ItemBox, SheetRow
from lnl_desktop.ui.dialogs.setting_editors import plain
from lnl_desktop.ui.models.combatants import ID_ROLE

Index = QModelIndex | QPersistentModelIndex

SIZES = ((1, "1 × 1 (medium)"), (2, "2 × 2 (large)"), (3, "3 × 3 (huge)"), (4, "4 × 4 (gargantuan)"))

# Tooltips of the fields every ruleset shares; a ruleset's SheetSpec.tips words them its own way.
TIPS = {
    "name": "What the table calls this combatant: shown on its token and in the round log",
    "side": "Party: the player characters and their allies. Opponents: run by the GM",
    "move_ft": "Feet of movement per turn (default 30)",
    "size": "Cells the combatant covers on the grid: 1 × 1 default, 2 × 2 large, 3 × 3 huge",
    "vision_deg": "Field of vision in degrees, centred on the facing (default 120). An attacker whose whole "
    "path stays outside it comes from an unexpected direction; 360 = cannot be flanked",
    "darkvision_ft": "Darkvision in feet (0 = none): dark cells this near and in its sight count as dim for it "
    "(RULES §15; a Party member's shows the players what stands there; Rules options can switch it off)",
    "cannot_be_surprised": "Trait: when its side is surprised, this combatant still acts",
    "concealed": "Hiding, invisible or unseen; the flag ends after a sneak attack",
    "distracted": "GM toggle: absorbed in conversation or study, so open to a sneak attack "
    "(being engaged in melee or hit by a ranged attack counts without it)",
    "surprised": "Surprised: takes no turn in the first round. The surprise roll sets it",
    "conditions": "Conditions in free text, separated by commas (prone, poisoned...). They show in the Status column",
    "conditions_menu": "Add a condition and how long it lasts, or change or end one it has",
    "notes": "Anything the GM wants to remember about this combatant. Saved when you leave the box",
}


class BadInput(ValueError):
    """Text a field cannot turn into a value (a letter in a number field)."""


def parse_int(text: str, label: str) -> int:
    text = text.strip()
    if not text:
        raise BadInput(f"{label}: enter a whole number")
    try:
        return int(text)
    except ValueError:
        raise BadInput(f"{label}: {text!r} is not a whole number") from None


def parse_optional_int(text: str, label: str) -> int | None:
    return None if not text.strip() else parse_int(text, label)


def parse_conditions(text: str) -> list[str]:
    """'prone, poisoned,, prone' -> ['prone', 'poisoned']."""
    out: list[str] = []
    for word in text.split(","):
        word = word.strip()
        if word and word not in out:
            out.append(word)
    return out


def swatch(color: QColor, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(color)
    return QIcon(pixmap)


# -- field bindings: one per editable part of the sheet --------------------------------------------


class Binding(ABC):
    """One editor on the sheet: which Combatant field it edits, how to show it and read it back."""

    key: str  # the Combatant field an edit sends
    label: str  # how messages name it
    widget: QWidget

    @abstractmethod
    def show(self, c: Any) -> None:
        """Put the combatant's current value in the editor."""

    @abstractmethod
    def value(self, c: Any) -> Any:
        """The new value of ``key`` from what the GM entered; raises :class:`BadInput`."""

    def dirty(self) -> bool:
        """Whether the GM typed something not yet committed (a refresh leaves it alone)."""
        return False


class LineBinding(Binding):
    def __init__(
        self,
        key: str,
        label: str,
        read: Callable[[Any], str],
        parse: Callable[[str, Any], Any],
        width: int | None = None,
    ) -> None:
        self.key, self.label = key, label
        self.widget = self.edit = QLineEdit()
        self._read, self._parse = read, parse
        if width:
            self.edit.setMaximumWidth(width)

    def show(self, c: Any) -> None:
        text = self._read(c)
        if self.edit.text() != text:
            self.edit.setText(text)
        self.edit.setModified(False)

    def value(self, c: Any) -> Any:
        return self._parse(self.edit.text(), c)

    def dirty(self) -> bool:
        return self.edit.isModified()


def int_binding(key: str, label: str, width: int = 70) -> LineBinding:
    return LineBinding(key, label, lambda c: str(getattr(c, key)), lambda text, c: parse_int(text, label), width)


def optional_int_binding(key: str, label: str, width: int = 70) -> LineBinding:
    """A whole number that may be left empty, meaning none (a PC's morale, a monster's typed AC)."""

    def read(c: Any) -> str:
        value = getattr(c, key)
        return "" if value is None else str(value)

    binding = LineBinding(key, label, read, lambda text, c: parse_optional_int(text, label), width)
    binding.edit.setPlaceholderText("none")
    return binding


def words(value: Any) -> str:
    """A text row's value as typed: a list of words (what harms a monster) comma-separated."""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value or "")


def row_binding(row: SheetRow, key: str, label: str) -> Binding:
    """The editor a ruleset's sheet row asks for (:attr:`SheetRow.kind`): a whole number, one that
    may be left empty, one of its choices, a check box, or words (a group's name)."""
    if row.kind == "optional int":
        return optional_int_binding(key, label)
    if row.kind == "choice":
        return ComboBinding(key, label, [(choice, choice) for choice in row.choices])
    if row.kind == "text":
        binding = LineBinding(key, label, lambda c: words(getattr(c, key)), lambda text, c: text.strip(), 160)
        binding.edit.setPlaceholderText("none")
        return binding
    if row.kind == "bool":
        binding = CheckBinding(key, label)
        binding.box.setText("")  # the row's caption names it
        binding.box.setAccessibleName(label)
        return binding
    return int_binding(key, label)


class ItemPartBinding(LineBinding):
    """A number or a name of an item a box holds (ItemBox: a shield): the edit sends the whole item."""

    def __init__(self, box: ItemBox, part: str, label: str, number: bool, width: int | None = None) -> None:
        def read(c: Any) -> str:
            item = getattr(c, box.key)
            return "" if item is None else str(plain(getattr(item, part)))

        def parse(text: str, c: Any) -> Any:
            value: Any = parse_int(text, label) if number else text.strip()
            return item_with(box, c, label, part, value)

        super().__init__(box.key, label, read, parse, width)


def item_with(box: ItemBox, c: Any, label: str, part: str, value: Any) -> dict[str, Any]:
    """The whole item of ``box`` with ``part`` set to ``value``, as the edit sends it."""
    item = getattr(c, box.key)  # the box's own field of the stat block
    if item is None:
        raise BadInput(f"{label}: there is no {box.title.lower()}; tick '{box.has}' first")
    return item.model_dump(mode="json") | {part: value}


class ComboBinding(Binding):
    def __init__(
        self,
        key: str,
        label: str,
        choices: Sequence[tuple[Any, str]],
        read: Callable[[Any], Any] | None = None,
        build: Callable[[Any, Any], Any] | None = None,
    ) -> None:
        self.key, self.label = key, label
        self.widget = self.combo = QComboBox()
        for data, text in choices:
            self.combo.addItem(text, data)
        self._read = read or (lambda c: plain(getattr(c, key)))
        self._build = build or (lambda data, c: data)

    def show(self, c: Any) -> None:
        index = self.combo.findData(self._read(c))
        with QSignalBlocker(self.combo):
            self.combo.setCurrentIndex(index)

    def value(self, c: Any) -> Any:
        return self._build(self.combo.currentData(), c)


class CheckBinding(Binding):
    def __init__(
        self,
        key: str,
        label: str,
        read: Callable[[Any], bool] | None = None,
        build: Callable[[bool, Any], Any] | None = None,
    ) -> None:
        self.key, self.label = key, label
        self.widget = self.box = QCheckBox(label)
        self._read = read or (lambda c: bool(getattr(c, key)))
        self._build = build or (lambda checked, c: checked)

    def show(self, c: Any) -> None:
        with QSignalBlocker(self.box):
            self.box.setChecked(self._read(c))

    def value(self, c: Any) -> Any:
        return self._build(self.box.isChecked(), c)


class NotesEdit(QPlainTextEdit):
    """A text box that says when the GM is done with it: on leaving it, or Ctrl+Enter."""

    editingFinished = Signal()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        if self.document().isModified():
            self.editingFinished.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.editingFinished.emit()
            return
        super().keyPressEvent(event)


class NotesBinding(Binding):
    def __init__(self) -> None:
        self.key, self.label = "notes", "Notes"
        self.widget = self.edit = NotesEdit()
        self.edit.setTabChangesFocus(True)
        self.edit.setFixedHeight(72)

    def show(self, c: Any) -> None:
        if self.edit.toPlainText() != c.notes:
            self.edit.setPlainText(c.notes)
        self.edit.document().setModified(False)

    def value(self, c: Any) -> Any:
        return self.edit.toPlainText()

    def dirty(self) -> bool:
        return self.edit.document().isModified()


# -- the mapper: the selected combatant's row of the Combatants model, shown in the bindings ---------


class FieldDelegate(QStyledItemDelegate):
    """Between the mapper and the bindings: fills an editor from its combatant (a field the GM is
    typing in keeps its text unless ``force``), and hands an editor's edit to ``commit``."""

    def __init__(self, combatant: Callable[[str], Any], commit: Callable[[Binding], object], parent: QObject) -> None:
        super().__init__(parent)
        self._combatant = combatant
        self._commit = commit
        self.bindings: dict[QWidget, Binding] = {}
        self.force = False

    def setEditorData(self, editor: QWidget, index: Index) -> None:
        binding = self.bindings.get(editor)
        c = self._combatant(index.data(ID_ROLE) or "")
        if binding is None or c is None:
            return
        if self.force or not (editor.hasFocus() and binding.dirty()):
            binding.show(c)

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: Index) -> None:
        binding = self.bindings.get(editor)
        if binding is not None:
            self._commit(binding)


class FieldMapper(QDataWidgetMapper):
    """The sheet's bindings mapped onto the selected combatant's row of the Combatants model.

    Each editor commits on its own signal, at once (Enter or leaving a line, picking a choice,
    ticking a box, Ctrl+Enter or leaving the notes): the mapper's own commit on focus loss, Tab
    and Escape is left out, so a key means what it meant before the sheet had a mapper."""

    def __init__(
        self,
        model: QAbstractItemModel,
        combatant: Callable[[str], Any],
        commit: Callable[[Binding], object],
        parent: QObject,
    ) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.delegate = FieldDelegate(combatant, commit, self)
        self.setItemDelegate(self.delegate)

    def bind(self, binding: Binding, unmark: Callable[[QWidget], None]) -> None:
        """Map ``binding``'s editor and commit it on the signal that says the GM is done with it."""
        widget = binding.widget
        self.delegate.bindings[widget] = binding
        self.addMapping(widget, 0)
        widget.removeEventFilter(self.delegate)
        commit = lambda *_: self.delegate.commitData.emit(widget)  # noqa: E731 - a one-line slot
        if isinstance(widget, QLineEdit):
            widget.editingFinished.connect(commit)
            widget.textEdited.connect(lambda *_: unmark(widget))
        elif isinstance(widget, QComboBox):
            widget.activated.connect(commit)
        elif isinstance(widget, QCheckBox):
            widget.clicked.connect(commit)
        elif isinstance(widget, NotesEdit):
            widget.editingFinished.connect(commit)
            widget.textChanged.connect(lambda: unmark(widget))

    def unbind_all(self) -> None:
        self.clearMapping()
        self.delegate.bindings = {}

    def show_row(self, row: int, force: bool) -> None:
        """Fill every editor from the combatant at ``row`` (none: the editors are left as they are)."""
        self.delegate.force = force
        try:
            if row >= 0:
                self.setCurrentIndex(row)
        finally:
            self.delegate.force = False
