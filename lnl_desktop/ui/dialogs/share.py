"""The *Share with players' devices…* dialog: where to serve the players' view, Start and Stop, the
address and the join code in large type, and the QR code of the page's address to scan.

Off until the GM presses Start (never started by itself); the address offered first is the
loopback one (this machine only). The dialog only asks: ``start`` and ``stop`` do the work.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import segno
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QImage, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.ui.plumbing.share_server import local_addresses

QR_PX = 240


def page_url(host: str, port: int, code: str) -> str:
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{port}/?code={code}"


def qr_image(text: str) -> QImage:
    """The QR code of ``text`` (segno, pure Python), black on white with its quiet zone."""
    out = io.BytesIO()
    segno.make(text, error="m", micro=False).save(out, kind="png", scale=8, border=4)
    return QImage.fromData(out.getvalue(), "PNG")


class ShareDialog(QDialog):
    """Start or stop the sharing; while on, the address, the join code and the QR code."""

    def __init__(
        self,
        start: Callable[[str, int], str | None],
        stop: Callable[[], None],
        where: Callable[[], tuple[str, int, str] | None],
        port: int,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Share with players' devices")
        self._start, self._stop, self._where = start, stop, where
        self.address = QComboBox()
        self.address.setEditable(True)  # an address the list misses can be typed
        self.address.addItems(local_addresses())
        self.address.setToolTip("127.0.0.1: this computer only. Another address: devices on that network")
        self.port = QSpinBox()
        self.port.setRange(1024, 65535)
        self.port.setValue(port)
        form = QFormLayout()
        form.addRow("&Address:", self.address)
        form.addRow("&Port:", self.port)
        self.start_button = QPushButton("&Start sharing")
        self.stop_button = QPushButton("S&top sharing")
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.close)
        buttons.addWidget(self.close_button)
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.words.setTextFormat(Qt.TextFormat.PlainText)
        big = QFont()
        big.setPointSizeF(big.pointSizeF() * 1.8)
        big.setBold(True)
        self.url_label = QLabel()
        self.url_label.setFont(big)
        self.url_label.setTextFormat(Qt.TextFormat.PlainText)
        self.url_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.code_label = QLabel()
        huge = QFont(big)
        huge.setPointSizeF(big.pointSizeF() * 1.6)
        self.code_label.setFont(huge)
        self.code_label.setTextFormat(Qt.TextFormat.PlainText)
        self.qr = QLabel()
        self.qr.setFixedSize(QR_PX, QR_PX)
        self.qr.setAlignment(Qt.AlignmentFlag.AlignCenter)
        shown = QVBoxLayout()
        shown.addWidget(self.url_label)
        shown.addWidget(self.code_label)
        shown.addStretch(1)
        row = QHBoxLayout()
        row.addLayout(shown, 1)
        row.addWidget(self.qr)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.words)
        layout.addLayout(row)
        self.refresh()

    def start(self) -> bool:
        """Start on the address and port shown; a refusal's words shown, nothing started."""
        host = self.address.currentText().strip()
        error = self._start(host, self.port.value()) if host else "Pick or type the address to share on"
        self.refresh()
        if error:
            self.words.setText(error)
            return False
        return True

    def stop(self) -> None:
        self._stop()
        self.refresh()

    def refresh(self) -> None:
        where = self._where()
        on = where is not None
        self.start_button.setEnabled(not on)
        self.stop_button.setEnabled(on)
        self.address.setEnabled(not on)
        self.port.setEnabled(not on)
        if where is None:
            self.words.setText(
                "Off. Start serves the players' view (read-only) to browsers on the network of the "
                "address picked, behind a join code."
            )
            self.url_label.clear()
            self.code_label.clear()
            self.qr.clear()
            return
        host, port, code = where
        url = page_url(host, port, code)
        self.words.setText("On. Players open this address (or scan the code) and type the join code:")
        self.url_label.setText(f"http://{host}:{port}")
        self.code_label.setText(f"Join code {code[:3]} {code[3:]}")
        picture = QPixmap.fromImage(qr_image(url))
        self.qr.setPixmap(
            picture.scaled(QR_PX, QR_PX, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.FastTransformation)
        )
