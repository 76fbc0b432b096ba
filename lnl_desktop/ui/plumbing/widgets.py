"""Small widgets the docks share."""

from __future__ import annotations

from itertools import pairwise
from typing import TypeVar

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import (
    QAction,
    QActionEvent,
    QFont,
    QHelpEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import QLabel, QToolBar, QToolButton, QToolTip, QWidget

from lnl_desktop.ui.plumbing.style import keep_scaled

W = TypeVar("W", bound=QWidget)


def nearest_ancestor(widget: QWidget, kind: type[W]) -> W | None:
    """The nearest widget of ``kind`` that ``widget`` sits in (not ``widget`` itself), or None."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, kind):
            return parent
        parent = parent.parentWidget()
    return None


class RefusalLabel(QLabel):
    """Where a dock says why something it asked for was refused; hidden while there is nothing to say."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("refusal")
        self.scaled_style = keep_scaled(
            self,
            "QLabel#refusal { color: #8e0000; background: #fdecea; border: 1px solid #e6a5a1;"
            " border-radius: 3px; padding: 4px 6px; }",
        )
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hide()

    def refuse(self, text: str) -> None:
        self.setText(text)
        self.show()

    def clear_refusal(self) -> None:
        self.clear()
        self.hide()

    @property
    def shown_text(self) -> str:
        """The refusal on show, or "" when there is none."""
        parent = self.parentWidget()
        visible = self.isVisibleTo(parent) if parent is not None else self.isVisible()
        return self.text() if visible else ""


class ElidedLabel(QLabel):
    """One line of words that never widens its window: what does not fit ends in "…" (or loses its
    middle), and the whole text shows on hover. ``text()`` is always the whole text.

    A plain QLabel asks for its whole text's width as its minimum: in a status bar or a window's
    banner a long ruler reading or roll label then raised the window's minimum width past the screen."""

    def __init__(
        self, text: str = "", parent: QWidget | None = None, mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight
    ) -> None:
        super().__init__(text, parent)
        self.mode = mode
        self.setTextFormat(Qt.TextFormat.PlainText)

    def minimumSizeHint(self) -> QSize:
        """A few letters' width, whatever the text: the layout may squeeze it down to its "…"."""
        hint = super().minimumSizeHint()
        margins = self.contentsMargins()
        few = self.fontMetrics().horizontalAdvance("MM…") + margins.left() + margins.right()
        return QSize(min(hint.width(), few), hint.height())

    def shown_text(self) -> str:
        """The words as drawn at the label's present width."""
        width = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), self.mode, max(0, width))

    def is_elided(self) -> bool:
        return self.shown_text() != self.text()

    def hover_text(self) -> str:
        """The tooltip: the whole text when it is cut, before the label's own tip (if any)."""
        own = self.toolTip()
        if not self.is_elided() or self.text() in own:
            return own
        return f"{self.text()}\n\n{own}" if own else self.text()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            tip = self.hover_text()
            if tip:
                QToolTip.showText(event.globalPos(), tip, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        self.drawFrame(painter)
        self.style().drawItemText(
            painter,
            self.contentsRect(),
            int(self.alignment()),
            self.palette(),
            self.isEnabled(),
            self.shown_text(),
            self.foregroundRole(),
        )


class Held(QWidget):
    """A label held apart from the layout it shows in, at the holder's size, which the layout gives.

    A QLabel given new words asks its parent's layout to lay out again, whatever its size policy; in
    the status bar that laid out the bar and then the whole main window, docks and all, at every
    step of a drag (1-9 ms a step). Held here, new words only repaint the label. The holder asks
    for the room of :meth:`make_room_for`'s words (the cell's label: the widest cell of the map, so
    it does not twitch from (9, 9) to (10, 10)), or none of its own width (a stretching label)."""

    def __init__(self, label: QLabel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label
        label.setParent(self)
        self.setSizePolicy(label.sizePolicy())
        self._room = ""

    def make_room_for(self, words: str) -> None:
        if words != self._room:
            self._room = words
            self.updateGeometry()

    def sizeHint(self) -> QSize:
        margins = self.label.contentsMargins()
        width = self.label.fontMetrics().horizontalAdvance(self._room) + margins.left() + margins.right() + 2
        return QSize(width if self._room else 0, self.label.sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self.label.minimumSizeHint().width(), self.label.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.label.setGeometry(self.rect())


class SteadyButtons(QObject):
    """A tool bar's buttons for actions whose words change often (Undo: "Undo Tombril moves …" after
    each action) but never their buttons' words (``iconText``). Qt's tool bar lays itself out again at
    every change of one of its actions, and its tool button takes every change as a new icon: both
    asked the main window, docks and all, to lay out again (about a millisecond an action). Here a
    change of such an action brings its button only what may differ: its tooltip, status tip and
    whether it is enabled."""

    def __init__(self, toolbar: QToolBar, actions: list[QAction]) -> None:
        super().__init__(toolbar)
        self.actions = actions
        toolbar.installEventFilter(self)
        for action in actions:
            button = toolbar.widgetForAction(action)
            if button is not None:
                button.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ActionChanged and isinstance(event, QActionEvent):
            action = event.action()
            if action in self.actions and action.isVisible():
                if isinstance(watched, QToolButton):
                    watched.setToolTip(action.toolTip())
                    watched.setStatusTip(action.statusTip())
                    watched.setEnabled(action.isEnabled())
                return True
        return super().eventFilter(watched, event)


class LinesLabel(QLabel):
    """Words wrapped onto at most ``lines`` lines: what does not fit ends the last one in "…", the
    whole text on hover. A wrapping QLabel of a fixed height centres a longer text and cuts its
    first and last lines in half (the status bar's tool hints did). ``whole()`` is the whole text."""

    def __init__(self, lines: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lines = lines
        self._whole = ""
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def whole(self) -> str:
        return self._whole

    def set_whole(self, text: str) -> None:
        self._whole = text
        self.setToolTip(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit()

    def _fit(self) -> None:
        width = self.contentsRect().width() - 2 * self.margin() - 2  # a hair less: QLabel wraps no sooner
        shown = self._whole
        if width > 0:
            starts = _line_starts(shown, self.font(), width)
            if len(starts) > self.lines:
                last = starts[self.lines - 1]
                kept = [shown[a:b].rstrip() for a, b in pairwise(starts[: self.lines])]
                tail = self.fontMetrics().elidedText(shown[last:], Qt.TextElideMode.ElideRight, width)
                shown = "\n".join([*kept, tail])
        if shown != self.text():
            self.setText(shown)


def _line_starts(text: str, font: QFont, width: int) -> list[int]:
    """Where each line of ``text`` wrapped at ``width`` pixels begins, as a QLabel wraps it."""
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    starts: list[int] = []
    layout.beginLayout()
    while (line := layout.createLine()).isValid():
        line.setLineWidth(width)
        starts.append(line.textStart())
    layout.endLayout()
    return starts
