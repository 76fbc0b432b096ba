"""Small widgets the docks share."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from lnl_desktop.ui.style import keep_scaled


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
