"""Keys that work at the table: the keyboard focus never lands in a text field by accident, and
Escape leaves a field as it was.

Space ends the turn wherever the focus is (a window-wide shortcut), except in a text field being
edited, where it types a space. So the focus must only reach a text field when the GM puts it
there (a click, Tab). Qt moves the focus on its own when the focused button is disabled or hidden
(Next round, Start combat…): to the next widget in the chain, often a filter box, where the next
Space would silently filter the list instead of ending the turn. It does the same when the window
comes back after a dialog. :class:`FocusKeeper` sends that focus to the map instead, and gives
Escape in a field its desktop meaning: put back the value it had when the GM entered it, and leave.
"""

from __future__ import annotations

import contextlib
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QFocusEvent, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDoubleSpinBox,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QTextEdit,
    QWidget,
)

from lnl_desktop.ui.plumbing.widgets import nearest_ancestor

# The focus reasons that are the GM's own doing: a click, Tab, Shift+Tab, a label's Alt+letter.
_BY_HAND = (
    Qt.FocusReason.MouseFocusReason,
    Qt.FocusReason.TabFocusReason,
    Qt.FocusReason.BacktabFocusReason,
    Qt.FocusReason.ShortcutFocusReason,
)
# A field loses the focus for these without the GM leaving it: another window, a menu.
_AWAY = (Qt.FocusReason.ActiveWindowFocusReason, Qt.FocusReason.PopupFocusReason, Qt.FocusReason.MenuBarFocusReason)
_WATCHED = (QEvent.Type.FocusIn, QEvent.Type.FocusOut, QEvent.Type.KeyPress)


def text_field(widget: QWidget | None) -> QWidget | None:
    """The editable field ``widget`` is (or belongs to: a spin box's or a combo box's line), or None."""
    if widget is None:
        return None
    parent = widget.parentWidget()
    if isinstance(widget, QLineEdit) and isinstance(parent, (QAbstractSpinBox, QComboBox)):
        widget = parent
    if isinstance(widget, QComboBox):
        return widget if widget.isEditable() else None
    if isinstance(widget, (QTextEdit, QPlainTextEdit, QLineEdit, QAbstractSpinBox)):
        return None if widget.isReadOnly() else widget
    return None


def _in_item_view(widget: QWidget) -> bool:
    """An item view's cell editor: the view's delegate already cancels it on Escape."""
    return nearest_ancestor(widget, QAbstractItemView) is not None


def _value(field: QWidget) -> Any:
    if isinstance(field, (QSpinBox, QDoubleSpinBox)):
        return field.value()
    if isinstance(field, QComboBox):
        return field.currentText()
    if isinstance(field, (QTextEdit, QPlainTextEdit)):
        return field.toPlainText()
    if isinstance(field, QLineEdit):
        return field.text()
    return None


def _restore(field: QWidget, value: Any) -> None:
    if value is None or _value(field) == value:
        return
    if isinstance(field, (QSpinBox, QDoubleSpinBox)):
        field.setValue(value)
    elif isinstance(field, QComboBox):
        field.setEditText(value)
    elif isinstance(field, (QTextEdit, QPlainTextEdit)):
        field.setPlainText(value)
    elif isinstance(field, QLineEdit):
        field.setText(value)


class FocusKeeper(QObject):
    """Watches the focus in ``window`` (application-wide, so it sees every widget): ``home`` (the
    map) takes the focus that Qt would hand to a text field by itself, and Escape in a field
    restores the field and returns to ``home``. Dialogs keep their own Escape (Cancel)."""

    def __init__(self, window: QWidget, home: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.home = home
        self._entered: dict[int, Any] = {}  # id(field) -> its value when the GM entered it
        self._gm_field: QWidget | None = None  # the field the GM put the focus in, until they leave it
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        app.installEventFilter(self)
        app.focusChanged.connect(self._focus_changed)
        window.destroyed.connect(lambda *_: self._detach(app))

    def _detach(self, app: QApplication) -> None:
        app.removeEventFilter(self)
        with contextlib.suppress(RuntimeError, TypeError):
            app.focusChanged.disconnect(self._focus_changed)

    def _mine(self, widget: QWidget) -> bool:
        try:
            return widget.window() is self.window
        except RuntimeError:  # deleted on the C++ side
            return False

    def _focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        field = text_field(new)
        if field is None or old is None or not self._mine(field) or text_field(old) is not None:
            return
        try:
            gone = not old.isEnabled() or not old.isVisible()
        except RuntimeError:
            gone = True
        if gone:
            # Qt passed the focus on from a button that was just disabled or hidden: not the GM's
            # doing. The map takes it, so Space still ends the turn.
            if field is self._gm_field:
                self._gm_field = None
            self.home.setFocus(Qt.FocusReason.OtherFocusReason)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Every event of the application passes here: all but focus and key events are let by before
        # their type is read (slow in Python, and tens of thousands a round of play).
        if not isinstance(event, (QFocusEvent, QKeyEvent)):
            return False
        kind = event.type()
        if kind not in _WATCHED or not isinstance(watched, QWidget):
            return False
        field = text_field(watched)
        if field is None or (field is not watched and kind is QEvent.Type.KeyPress):
            return False
        if not self._mine(field) or _in_item_view(field):
            return False
        if isinstance(event, QFocusEvent):
            if kind is QEvent.Type.FocusIn:
                self._focus_in(field, event.reason())
            elif event.reason() not in _AWAY and field is self._gm_field:
                self._gm_field = None  # the GM left it
            return False
        assert isinstance(event, QKeyEvent)
        if event.key() != Qt.Key.Key_Escape or event.modifiers() != Qt.KeyboardModifier.NoModifier:
            return False
        if isinstance(field, QComboBox) and field.view().isVisible():
            return False  # Escape closes the open list first
        _restore(field, self._entered.get(id(field)))
        self._gm_field = None
        self.home.setFocus(Qt.FocusReason.OtherFocusReason)
        return True

    def _focus_in(self, field: QWidget, reason: Qt.FocusReason) -> None:
        if reason in _BY_HAND:
            if field is not self._gm_field:
                key = id(field)
                if key not in self._entered:
                    field.destroyed.connect(lambda *_: self._entered.pop(key, None))
                self._entered[key] = _value(field)
            self._gm_field = field
        elif field is not self._gm_field:
            # The window came back (a dialog closed) to a field Qt chose while the GM was away:
            # not the GM's doing. Sent home once this focus change is over.
            QTimer.singleShot(0, lambda: self._send_home_from(field))

    def _send_home_from(self, field: QWidget) -> None:
        try:
            still_there = text_field(QApplication.focusWidget()) is field
        except RuntimeError:
            return
        if still_there and field is not self._gm_field:
            self.home.setFocus(Qt.FocusReason.OtherFocusReason)
