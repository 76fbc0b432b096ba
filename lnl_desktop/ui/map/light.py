"""Light on the map (RULES §15): the players see darkness and dim light, the GM the lit areas outlined.

:class:`LightItem` is one item whatever the map's size, painted from the core's levels of every cell
(:func:`lnl_desktop.core.encounter.light.light_map`: the best of the ambient light and each source,
walls stopping it). In the players' scene it is an image of one pixel per cell drawn scaled without
smoothing, over the fog of war and under the tokens: dark cells nearly black, dim ones dimmed (a dark
cell within a Party member's darkvision and in its sight is dim for the players:
:func:`lnl_desktop.core.engine.party_view.party_light`). On the GM's map it is the boundary of the
bright and of the dim areas, as lines along cell edges.

It works the levels out again only when the map, the sources, the ambient light, a carrier's cell or
(for the players) a Party member's darkvision changed; a drag changes none of them, so a carried
torch lights where its token is dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QLineF, QRect, QRectF, Qt
from PySide6.QtGui import QAction, QActionGroup, QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QInputDialog, QMenu, QStyleOptionGraphicsItem, QWidget

from lnl_desktop.core.encounter.actions import CarryLight, PlaceLight, SetAmbientLight
from lnl_desktop.core.encounter.light import (
    LIGHT_LEVEL,
    LIGHT_RADII,
    MAX_LIGHT_FT,
    AmbientLight,
    LightKind,
    ambient,
    light_map,
)
from lnl_desktop.core.engine.party_view import darkvision_key, party_light
from lnl_desktop.lazy import lazy_module
from lnl_desktop.ui.map.failsafe import fails_closed
from lnl_desktop.ui.map.fog import ask_part_update_soon
from lnl_desktop.ui.map.geometry import runs_by_row
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX

np = lazy_module("numpy")  # imported at first use

PLAYERS_LIGHT_Z = 18.5  # over the players' fog of war (18), under the tokens
GM_LIGHT_Z = 7.5  # over the GM's faint fog shade, under the rules overlays

PLAYERS_DARK = QColor(0, 0, 0, 225)  # darkness: the floor barely shows
PLAYERS_DIM = QColor(0, 0, 0, 120)  # dim light: half dark
GM_BRIGHT_EDGE = QColor(240, 190, 40)  # where bright light ends
GM_DIM_EDGE = QColor(200, 120, 30)  # where dim light ends


def _premultiplied(colour: QColor) -> int:
    a = colour.alpha()
    r, g, b = (colour.red() * a) // 255, (colour.green() * a) // 255, (colour.blue() * a) // 255
    return (a << 24) | (r << 16) | (g << 8) | b


def edges(mask: np.ndarray) -> list[QLineF]:
    """The boundary of the cells of ``mask`` (rows, columns) as lines along cell edges, in cells;
    runs of edges along a row or column joined into one line."""
    h, w = mask.shape
    padded = np.zeros((h + 2, w + 2), dtype=bool)
    padded[1:-1, 1:-1] = mask
    across = padded[1:, 1:-1] != padded[:-1, 1:-1]  # (h + 1, w): an edge along y from x to x + 1
    lines = [QLineF(start, y, stop, y) for y, start, stop in runs_by_row(across)]
    down = (padded[1:-1, 1:] != padded[1:-1, :-1]).T  # (w + 1, h): an edge along x from y to y + 1
    lines += [QLineF(x, start, x, stop) for x, start, stop in runs_by_row(down)]
    return lines


class LightItem(QGraphicsItem):
    """The players' darkness and dim light, or the GM's outlines of the lit areas (see the module)."""

    def __init__(self, controller: TableController, player: bool) -> None:
        super().__init__()
        self.controller = controller
        self.player = player
        self._key: tuple[object, ...] | None = None
        self.levels: np.ndarray | None = None  # every cell's light (0 dark, 1 dim, 2 bright), [y, x]
        self._pixels: np.ndarray | None = None
        self._image = QImage()
        self._bright: list[QLineF] = []
        self._dim: list[QLineF] = []
        self._rect = QRectF()
        self._primed = False  # the first update of a part of it asked (fog.ask_part_update_soon)
        self.setZValue(PLAYERS_LIGHT_Z if player else GM_LIGHT_Z)
        if not player:
            self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self.hide()

    def _state(self) -> tuple[object, ...]:
        encounter = self.controller.encounter
        carried = tuple(
            (light.id, token.cell, token.hidden)
            for light in encounter.lights
            if light.carrier is not None and (token := encounter.tokens.get(light.carrier)) is not None
        )
        seen_by = darkvision_key(encounter) if self.player else ()
        return (encounter.map, encounter.lights, ambient(encounter), carried, seen_by)

    def refresh(self) -> None:
        """Bring the light in line with the encounter (nothing to do when none of what it reads changed)."""
        encounter = self.controller.encounter
        key = self._state()
        if self._key is not None and all(a is b or a == b for a, b in zip(key, self._key, strict=True)):
            return
        self._key = key
        if not encounter.lights and LIGHT_LEVEL[ambient(encounter)] == 2:
            self.levels = None
            self._image = QImage()
            self._bright = self._dim = []
            self.hide()
            return
        levels = party_light(encounter) if self.player else None
        if levels is None:
            levels = light_map(encounter, players=self.player)
        before, self.levels = self.levels, levels
        h, w = levels.shape
        if self.player:
            dark, dim = _premultiplied(PLAYERS_DARK), _premultiplied(PLAYERS_DIM)
            pixels = np.where(levels == 0, dark, np.where(levels == 1, dim, 0)).astype(np.uint32)
            self._pixels = pixels  # the image's buffer: kept alive with it
            self._image = QImage(pixels.data, w, h, 4 * w, QImage.Format.Format_ARGB32_Premultiplied)
        else:
            lit = levels >= 1
            self._bright = edges(levels >= 2) if (levels >= 2).any() and not (levels >= 2).all() else []
            self._dim = edges(lit) if lit.any() and not lit.all() else []
        rect = QRectF(-2, -2, w * CELL_PX + 4, h * CELL_PX + 4)
        if before is not None and before.shape == levels.shape and rect == self._rect and self.isVisible():
            # A carried light moved, a source placed: only round the cells whose light changed (a
            # torch's few dozen), not the whole map in both windows at every Party move.
            changed = before != levels
            rows = np.flatnonzero(changed.any(axis=1))
            if rows.size:
                cols = np.flatnonzero(changed.any(axis=0))
                # A cell round them: the GM's outlines lie on their edges, two pixels wide at any zoom.
                x0, y0 = max(int(cols[0]) - 1, 0), max(int(rows[0]) - 1, 0)
                x1, y1 = min(int(cols[-1]) + 2, w), min(int(rows[-1]) + 2, h)
                self.update(
                    QRectF(x0 * CELL_PX - 2, y0 * CELL_PX - 2, (x1 - x0) * CELL_PX + 4, (y1 - y0) * CELL_PX + 4)
                )
            return
        self.prepareGeometryChange()
        self._rect = rect
        self.show()
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    @fails_closed
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if not self._primed:
            self._primed = True
            ask_part_update_soon(self)
        if self.player:
            if self._image.isNull():
                return
            w, h = self._image.width(), self._image.height()
            exposed = option.exposedRect  # type: ignore[attr-defined]
            x0 = min(max(math.floor(exposed.left() / CELL_PX), 0), w)
            y0 = min(max(math.floor(exposed.top() / CELL_PX), 0), h)
            x1 = min(max(math.ceil(exposed.right() / CELL_PX), 0), w)
            y1 = min(max(math.ceil(exposed.bottom() / CELL_PX), 0), h)
            if x1 <= x0 or y1 <= y0:
                return
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
            area = QRect(x0 * CELL_PX, y0 * CELL_PX, (x1 - x0) * CELL_PX, (y1 - y0) * CELL_PX)
            painter.drawImage(QRectF(area), self._image, QRectF(x0, y0, x1 - x0, y1 - y0))
            return
        painter.save()
        painter.scale(CELL_PX, CELL_PX)
        for lines, colour, style in (
            (self._dim, GM_DIM_EDGE, Qt.PenStyle.DashLine),
            (self._bright, GM_BRIGHT_EDGE, Qt.PenStyle.SolidLine),
        ):
            if lines:
                pen = QPen(colour, 2.0, style)
                pen.setCosmetic(True)  # two pixels wide at every zoom
                painter.setPen(pen)
                painter.drawLines(lines)
        painter.restore()


# -- the Light tool and the token menu ------------------------------------------------------------

LIGHT_KINDS = (LightKind.TORCH, LightKind.LANTERN, LightKind.CANDLE)


@dataclass
class LightChoice:
    """What the Light tool places: a torch, lantern or candle, or a custom light of these radii."""

    kind: LightKind = LightKind.TORCH
    bright_ft: int = 10
    dim_ft: int = 10

    def action(self) -> PlaceLight:
        if self.kind is LightKind.CUSTOM:
            return PlaceLight(self.kind.value, bright_ft=self.bright_ft, dim_ft=self.dim_ft)
        return PlaceLight(self.kind.value)

    def words(self) -> str:
        if self.kind is LightKind.CUSTOM:
            return f"a custom light ({self.bright_ft} ft + {self.dim_ft} ft)"
        bright, dim = LIGHT_RADII[self.kind]
        return f"a {self.kind.value} ({bright} ft + {dim} ft)"


def add_light_commands(menu: QMenu, controller: TableController, cid: str) -> None:
    """A token's light commands: carry a torch, lantern or candle, or drop the light it carries."""
    encounter = controller.encounter
    carried = [x for x in encounter.lights if x.carrier == cid]
    menu.addSeparator()
    for kind in LIGHT_KINDS:
        bright, dim = LIGHT_RADII[kind]
        action = menu.addAction(f"Carry a {kind.value}")
        action.setStatusTip(
            f"The token carries a {kind.value}: {bright} ft bright light, {dim} ft dim beyond (undoable)"
        )
        action.triggered.connect(lambda _=False, k=kind: controller.do(PlaceLight(k.value, carrier=cid)))
    for light in carried:
        action = menu.addAction(f"Drop the {light.name}" if len(carried) > 1 else "Drop the light")
        action.setStatusTip(f"Leave the {light.name} on the cell where the token stands (undoable)")
        action.triggered.connect(lambda _=False, lid=light.id: controller.do(CarryLight(lid, None)))


class MapView(Protocol):
    """What the Light menu needs of the map view."""

    light_choice: LightChoice

    def set_tool(self, name: str) -> None: ...
    def say(self, text: str) -> None: ...
    def refuse(self, text: str) -> None: ...


def light_menu(parent: QWidget, controller: TableController, view: MapView) -> QMenu:
    """Map ▸ Light: the light the Light tool places (choosing one takes the tool) and the ambient light."""
    menu = QMenu("Li&ght", parent)
    menu.setToolTipsVisible(True)
    kinds = QActionGroup(menu)
    for kind in (*LIGHT_KINDS, LightKind.CUSTOM):
        if kind is LightKind.CUSTOM:
            text, tip = "&Custom light…", "Place lights of the bright and dim radii you choose"
        else:
            bright, dim = LIGHT_RADII[kind]
            text = f"Place &{kind.value}es" if kind is LightKind.TORCH else f"Place &{kind.value}s"
            tip = f"Click a cell to place a {kind.value}: {bright} ft bright light, {dim} ft dim beyond"
        action = menu.addAction(text)
        action.setToolTip(tip)
        action.setStatusTip(tip)
        action.setCheckable(True)
        action.setChecked(kind is view.light_choice.kind)
        kinds.addAction(action)
        action.triggered.connect(lambda _=False, k=kind: _choose(parent, view, k))
    menu.addSeparator()
    ambient_group = QActionGroup(menu)
    choices: dict[AmbientLight, QAction] = {}
    for light in AmbientLight:
        action = menu.addAction(f"Ambient light: &{light.value}")
        tip = "The light everywhere no source reaches (RULES §15; Old-School d20: dim -2, dark -5 to attacks)"
        action.setStatusTip(tip)
        action.setToolTip(tip)
        action.setCheckable(True)
        ambient_group.addAction(action)
        choices[light] = action
        action.triggered.connect(
            lambda _=False, x=light: (
                None if ambient(controller.encounter) is x else controller.do(SetAmbientLight(x.value))
            )
        )

    def show_state() -> None:
        choices[ambient(controller.encounter)].setChecked(True)

    menu.aboutToShow.connect(show_state)
    show_state()
    return menu


def _choose(parent: QWidget, view: MapView, kind: LightKind) -> None:
    choice = view.light_choice
    if kind is LightKind.CUSTOM:
        bright, ok = QInputDialog.getInt(
            parent, "Custom light", "Bright light, in feet:", choice.bright_ft, 0, MAX_LIGHT_FT, 5
        )
        if not ok:
            return
        dim, ok = QInputDialog.getInt(
            parent, "Custom light", "Dim light beyond it, in feet:", choice.dim_ft, 0, MAX_LIGHT_FT, 5
        )
        if not ok:
            return
        if bright == 0 and dim == 0:
            view.refuse("A custom light needs a radius above 0 ft")
            return
        choice.bright_ft, choice.dim_ft = bright, dim
    choice.kind = kind
    view.set_tool("light")
    view.say(f"Light tool: click a cell to place {choice.words()}; right-click a placed light to take it away")
