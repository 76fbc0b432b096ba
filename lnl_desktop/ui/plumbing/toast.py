"""A refusal said where the GM is looking: a plate at the top of the map, not only the small
status-bar text. It goes after a while, on a click, or as soon as the encounter changes (a
refusal describes the state it was made in)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QLabel, QWidget

from lnl_desktop.core.encounter.words import visible
from lnl_desktop.ui.plumbing.style import keep_scaled

SHOWN_MS = 8000


class Toast(QLabel):
    def __init__(self, over: QWidget) -> None:
        super().__init__(over)
        self.over = over
        self.setObjectName("toast")
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.scaled_style = keep_scaled(  # follows the UI scale
            self,
            "QLabel#toast { background: #fdecea; color: #7a1010; border: 2px solid #c62828;"
            " border-radius: 6px; padding: 8px 14px; font-weight: bold; }",
        )
        self.setToolTip("Click to dismiss")
        self.hide()
        self._timer = QTimer(self, singleShot=True, interval=SHOWN_MS)
        self._timer.timeout.connect(self.hide)
        over.installEventFilter(self)

    def say(self, text: str) -> None:
        self.setText(f"Not done: {visible(text, lines=True)}")
        self._place()
        self.show()
        self.raise_()
        self._timer.start()

    def dismiss(self) -> None:
        self._timer.stop()
        self.hide()

    def _place(self) -> None:
        width = max(200, min(self.over.width() - 40, 640))
        self.setFixedWidth(width)
        self.adjustSize()
        self.move((self.over.width() - width) // 2, 16)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.dismiss()
        event.accept()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.over and event.type() == QEvent.Type.Resize and self.isVisible():
            self._place()
        return False
