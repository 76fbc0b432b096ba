"""The drag's route and the vision cone keep their bounds (Qt asks them many times a paint) and the kept
bounds are always those their shapes give: after a route, a players' copy, a new UI scale, a cone and
a clear, each item's bounds hold what it paints and no more than its shapes' padding."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainterPath
from pytestqt.qtbot import QtBot

from lnl_desktop.ui.map.overlays import ConeItem, PathItem
from lnl_desktop.ui.plumbing.style import CELL_PX

PAD = CELL_PX  # overlays pad their shapes by a cell for cosmetic pens


def padded(path: QPainterPath) -> QRectF:
    return path.boundingRect().adjusted(-PAD, -PAD, PAD, PAD)


def test_a_cones_bounds_follow_each_cone_and_its_clear(qtbot: QtBot) -> None:
    cone = ConeItem()
    assert cone.boundingRect().isNull()
    clip = QRectF(0, 0, 50 * CELL_PX, 50 * CELL_PX)
    for centre, facing, vision in (
        (QPointF(320, 320), 90, 120),
        (QPointF(960, 200), 225, 90),
        (QPointF(64, 64), 0, 360),
    ):
        cone.set_cone(centre, facing, vision, 8 * CELL_PX, clip)
        assert cone.boundingRect() == padded(cone._path)
        assert cone.boundingRect().contains(centre)
    cone.clear()
    assert cone.boundingRect().isNull() and cone.is_empty


def test_a_routes_bounds_follow_the_route_its_players_copy_and_the_ui_scale(qtbot: QtBot) -> None:
    item = PathItem()
    line = [QPointF(100, 100), QPointF(164, 100), QPointF(228, 164)]
    item.set_route([line], [], PathItem.OK)
    assert item.boundingRect() == padded(item._path)
    # A waypoint's disc keeps its size on screen: room round it, more at a bigger UI scale.
    item.set_route([line], [QPointF(164, 100)], PathItem.OK)
    with_disc = item.boundingRect()
    assert with_disc.contains(padded(item._path))
    item.set_ui_scale(2.0)
    assert item.boundingRect().width() > with_disc.width()
    # The players' copy going round a hidden foe lies outside the GM's route: the bounds hold both.
    item.set_ui_scale(1.0)
    item.set_route([line], [], PathItem.OK)
    item.set_players_route([[QPointF(100, 100), QPointF(100, 600)]], [], PathItem.OK)
    assert item.boundingRect().contains(QPointF(100, 600))
    assert item.boundingRect() == padded(item._path).united(padded(item._players._path))
    item.clear()
    assert item.boundingRect().isNull()
