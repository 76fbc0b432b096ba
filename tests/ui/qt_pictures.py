"""What a view paints, as an image the tests can read pixels from (shared by the map tests)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsView


def render(view: QGraphicsView) -> QImage:
    """The view's viewport painted on white, as the GM or the players would see it."""
    image = QImage(view.viewport().size(), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    view.render(painter)
    painter.end()
    return image
