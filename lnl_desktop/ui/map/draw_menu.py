"""The Draw tool's choices (Map ▸ Drawing, and the toolbar's Draw button): the shape, its colour and
width, and whether new drawings are shown to the players; and View ▸ Drawings, which hides the
layer on the GM's map."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtGui import QAction, QActionGroup, QColor
from PySide6.QtWidgets import QColorDialog, QMenu, QWidget

from lnl_desktop.core.encounter.drawings import DrawingKind
from lnl_desktop.ui.map.drawings import COLOURS, WIDTHS, DrawStyle
from lnl_desktop.ui.map.scene import MapScene


class MapView(Protocol):
    """What the Drawing menu needs of the map view (which opens it on a right-click itself)."""

    draw_style: DrawStyle
    map_scene: MapScene

    def set_tool(self, name: str) -> None: ...


SHAPES = {
    DrawingKind.FREEHAND: ("&Freehand", "Draw a freehand line where the mouse goes"),
    DrawingKind.LINE: ("&Line", "Drag a straight line"),
    DrawingKind.RECTANGLE: ("&Rectangle", "Drag a rectangle from one corner to the other"),
    DrawingKind.ELLIPSE: ("&Ellipse", "Drag an ellipse (a circle) inside the box you drag"),
    DrawingKind.TEXT: ("&Text label", "Click where the label goes, then type its words"),
}


def _group(menu: QMenu, parent: QWidget) -> QActionGroup:
    group = QActionGroup(menu)  # goes with its menu (a right-click builds one each time)
    group.setExclusive(True)
    return group


def draw_menu(parent: QWidget, view: MapView) -> QMenu:
    """The Drawing menu: picking a shape takes up the Draw tool too."""
    menu = QMenu("Dra&wing", parent)
    menu.setToolTipsVisible(True)
    style = view.draw_style

    def shape(kind: DrawingKind) -> None:
        style.kind = kind
        view.set_tool("draw")

    shapes = _group(menu, parent)
    for kind, (text, tip) in SHAPES.items():
        action = menu.addAction(text, lambda k=kind: shape(k))
        action.setToolTip(tip)
        action.setStatusTip(tip)
        action.setCheckable(True)
        action.setChecked(kind is style.kind)
        shapes.addAction(action)
    menu.addSeparator()

    colours = _group(menu, parent)
    colour_menu = menu.addMenu("&Colour")

    def pick_colour() -> None:
        chosen = QColorDialog.getColor(QColor(style.colour), parent, "Drawing colour")
        if chosen.isValid():
            style.colour = chosen.name()
            for action in colours.actions():
                action.setChecked(False)

    for name, colour in COLOURS.items():
        action = colour_menu.addAction(name, lambda c=colour: setattr(style, "colour", c))
        action.setCheckable(True)
        action.setChecked(colour == style.colour)
        colours.addAction(action)
    colour_menu.addSeparator()
    colour_menu.addAction("&Other colour…", pick_colour)
    colours.setExclusionPolicy(QActionGroup.ExclusionPolicy.ExclusiveOptional)

    width_menu = menu.addMenu("&Width")
    widths = _group(menu, parent)
    for name, width in WIDTHS.items():
        action = width_menu.addAction(f"{name} ({width} px)", lambda w=width: setattr(style, "width", w))
        action.setCheckable(True)
        action.setChecked(width == style.width)
        widths.addAction(action)
    menu.addSeparator()
    shown = menu.addAction("New drawings &shown to the players")
    shown.setCheckable(True)
    shown.setChecked(style.shown)
    tip = "Off: a new drawing is the GM's only (dashed) until its menu shows it to the players"
    shown.setToolTip(tip)
    shown.setStatusTip(tip)
    shown.toggled.connect(lambda on: setattr(style, "shown", on))
    return menu


def drawings_layer_action(parent: QWidget, view: MapView) -> QAction:
    """View ▸ Drawings: the drawings and labels on the GM's map, or none (the players' view keeps
    the ones shown to them)."""
    action = QAction("&Drawings", parent)
    action.setCheckable(True)
    action.setChecked(True)
    tip = "Show the drawings and labels on your map (the player view keeps those shown to the players)"
    action.setToolTip(tip)
    action.setStatusTip(tip)
    action.toggled.connect(view.map_scene.drawings.set_visible)
    return action
