"""A drawing's item answers its bounds in C++ (a rect item with no pen: Qt asks a cached item's bounds at
every repaint over it), and those bounds still hold all it paints: its stroke, a label's box, and the
selection's frame; they follow an edit of its width, words or place."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QGraphicsScene, QStyleOptionGraphicsItem
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.drawings import Drawing, DrawingKind
from lnl_desktop.ui.map.drawings import DrawingItem


def drawn_area(item: DrawingItem) -> QRectF:
    """The scene rect of the pixels the item's paint touches (rendered alone, far from the origin)."""
    scene = QGraphicsScene()
    scene.addItem(item)
    image = QImage(1400, 1400, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    painter.translate(100, 100)
    item.paint(painter, QStyleOptionGraphicsItem(), None)
    painter.end()
    pixels = np.frombuffer(image.constBits(), dtype=np.uint32).reshape(image.height(), image.width())
    ys, xs = np.nonzero(pixels >> 24)  # every pixel with some alpha
    x0, y0 = int(xs.min()) - 100, int(ys.min()) - 100
    area = QRectF(x0, y0, int(xs.max()) - int(xs.min()) + 1, int(ys.max()) - int(ys.min()) + 1)
    scene.removeItem(item)
    return area


@pytest.mark.parametrize(
    "drawing",
    [
        Drawing(id="d1", kind=DrawingKind.LINE, points=((2, 2), (6, 4)), width=8),
        Drawing(id="d2", kind=DrawingKind.RECTANGLE, points=((1, 1), (3, 2)), width=4),
        Drawing(id="d3", kind=DrawingKind.TEXT, points=((2, 3),), width=3, text="The ogre's lair\nkeep out"),
        Drawing(id="d4", kind=DrawingKind.FREEHAND, points=tuple((1 + i * 0.3, 2 + (i % 3) * 0.4) for i in range(20))),
    ],
    ids=lambda d: d.kind.value,
)
def test_the_bounds_hold_what_it_paints_and_its_selection_frame(qtbot: QtBot, drawing: Drawing) -> None:
    item = DrawingItem(drawing, player=False)
    assert type(item).boundingRect is DrawingItem.__mro__[1].boundingRect  # no Python override to call
    item.set_selected(True)
    bounds = item.boundingRect()
    painted = drawn_area(item)
    assert bounds.contains(painted), (bounds, painted)
    assert bounds.width() <= painted.width() + 16 and bounds.height() <= painted.height() + 16  # not far wider


def test_the_bounds_follow_an_edit(qtbot: QtBot) -> None:
    line = Drawing(id="d1", kind=DrawingKind.LINE, points=((2, 2), (6, 2)), width=2)
    item = DrawingItem(line, player=False)
    thin = item.boundingRect()
    item.set_drawing(line.model_copy(update={"width": 8}))
    assert item.boundingRect().height() == thin.height() + 6
    item.set_drawing(line.model_copy(update={"points": ((2, 5), (6, 5))}))
    assert item.boundingRect().top() > thin.bottom()
    label = Drawing(id="d2", kind=DrawingKind.TEXT, points=((2, 3),), text="short")
    item = DrawingItem(label, player=True)
    short = item.boundingRect()
    item.set_drawing(label.model_copy(update={"text": "a much longer label"}))
    assert item.boundingRect().width() > short.width()
    assert item.pen().style() == Qt.PenStyle.NoPen  # bounds are the rect alone, no pen round it
