"""The main window's status bar: its message wraps onto a second line."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QStatusBar, QStyle, QStyleOption, QWidget

from lnl_desktop.core.encounter.words import visible
from lnl_desktop.ui.plumbing.widgets import Held, LinesLabel

MESSAGE_LINES = 2  # the status bar's message: lines it may wrap onto


class StatusBar(QStatusBar):
    """The status bar: its message wraps onto a second line rather than being cut off at the
    first one's end (an action's result ends with the numbers the GM reads). Qt's own bar paints a
    message on one line, clipped where the permanent labels begin; here a word-wrapping label of two
    lines' height, kept with the permanent labels (which Qt never hides), shows it, and the bar keeps
    that height whatever it says: the map above never changes size, so it never re-fits.
    ``showMessage``/``currentMessage`` work as ever."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.words = LinesLabel(MESSAGE_LINES, self)  # a longer message ends its last line in "…"
        self.words.setObjectName("statusWords")
        self.words.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.words.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.words.setContentsMargins(4, 0, 4, 0)
        # Held apart from the bar's layout: each new message laid the bar out again, and with it the main
        # window (its tool bar, docks and all), once an action.
        self.holder = Held(self.words)
        self.addPermanentWidget(self.holder, 1)
        self.messageChanged.connect(self._show_words)
        self._fit_height()

    def _show_words(self, text: str) -> None:
        text = visible(text)  # a name's control or bidi characters shown as escapes, never obeyed
        self.words.set_whole(text)

    def _fit_height(self) -> None:
        lines = self.words.fontMetrics().lineSpacing() * MESSAGE_LINES
        self.words.setFixedHeight(lines + 2)
        self.holder.setFixedHeight(lines + 2)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # the UI scale: two lines of the new size
            self._fit_height()

    def paintEvent(self, event: QPaintEvent) -> None:
        """The bar's panel only: the message is the label's to show, wrapped."""
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelStatusBar, option, painter, self)
