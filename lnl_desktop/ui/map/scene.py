"""The battle map scene: the grid, walls, difficult terrain and background picture, and the tokens.

The grid is not made of items. ``drawBackground`` paints the map from a QImage with one pixel per
cell (floor, wall, difficult) scaled without smoothing, hatches difficult terrain from paths cached
per 16 x 16-cell tile, and draws grid lines only for the exposed rect. The caches are rebuilt only
when the map changes (the map is immutable, so a new object means a change).

Tokens are :class:`TokenItem` s kept in step with the encounter: after every batch of engine events
the scene builds the look of each token the change touched (the engine says which:
:attr:`Engine.touched`), with those whose turn, selection, label or visibility to the players
changed, and repaints only those whose look changed; labels are worked out again only when names
or who is shown changed, and the occupied cells are patched. A new encounter or a setting looks at
every token. It never holds ``Combatant`` objects: undo replaces them.
"""

from __future__ import annotations

import base64
import binascii
import logging
import math
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsView

from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.map_model import Background, MapGrid
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.map.areas import cover_counts
from lnl_desktop.core.map.grid import Cell, footprint
from lnl_desktop.core.rules.registry import Ruleset
from lnl_desktop.ui.map.drawings import DrawingLayer
from lnl_desktop.ui.map.fog import FogItem, players_unseen
from lnl_desktop.ui.map.geometry import hatch_path
from lnl_desktop.ui.map.labels import assign_labels
from lnl_desktop.ui.map.light import LightItem
from lnl_desktop.ui.map.templates import TemplateLayer
from lnl_desktop.ui.map.token_look import TokenLook
from lnl_desktop.ui.map.tokens import TokenItem
from lnl_desktop.ui.map.wall_tiles import LineShapes
from lnl_desktop.ui.plumbing import style, theme
from lnl_desktop.ui.plumbing.controller import TableController

if TYPE_CHECKING:
    from lnl_desktop.ui.map.start_cells import StartCellsItem

log = logging.getLogger(__name__)

OUTSIDE = QColor("#4b525c")  # around the map
FLOOR = QColor("#efe9da")  # light parchment: dark walls and ink read well on it
WALL = QColor("#262626")
DIFFICULT_TINT = QColor(178, 132, 60, 150)  # translucent brown: the grid shows through
DIFFICULT_HATCH = QColor(92, 64, 24, 215)
GRID_MINOR = QColor(60, 50, 35, 70)  # over a picture
GRID_MAJOR = QColor(40, 30, 20, 150)


def _over(color: QColor, back: QColor) -> QColor:
    a = color.alphaF()
    return QColor(*(round(c * a + b * (1 - a)) for c, b in zip(color.getRgb()[:3], back.getRgb()[:3], strict=True)))


GRID_MINOR_ON_FLOOR = _over(GRID_MINOR, FLOOR)
GRID_MAJOR_ON_FLOOR = _over(GRID_MAJOR, FLOOR)
EDGE = QColor(20, 20, 20)
TILE = 16  # cells per side of a cached hatch tile
SCENE_MARGIN_CELLS = 3


@lru_cache(maxsize=4)
def decode_picture(data: str) -> tuple[QImage, str]:
    """A background picture kept in the file (base64 PNG or JPEG), decoded once however many maps
    and scenes show it (the GM's and the players'); a null image and why when it is not one."""
    from lnl_desktop.core.files.pictures import PictureError, check_picture  # only for a map with a picture

    unreadable = "not a readable PNG or JPEG"
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return QImage(), unreadable
    try:
        check_picture(raw, "the picture")  # a picture cut short would show grey where it stops
    except PictureError as error:
        return QImage(), unreadable if error.reason.startswith("not a PNG") else error.reason
    image = QImage()
    image.loadFromData(raw)
    return image, unreadable


# Pictures being decoded on a worker thread (decode_ahead), by their data, until a scene takes them.
_AHEAD: dict[str, threading.Thread] = {}


def decode_ahead(data: str) -> None:
    """Start decoding the picture ``data`` on a worker thread while the rest of the window is built
    (the demo's takes 50 ms); the first scene to show it waits for the worker, then takes the
    picture from :func:`decode_picture`'s cache. A QImage is plain data (not a QObject): it may be
    made on any thread; the pixmap is made on the GUI thread."""
    import lnl_desktop.core.files.pictures  # noqa: F401  imported here, never on two threads at once

    if data not in _AHEAD:
        worker = threading.Thread(target=decode_picture, args=(data,), name="picture decode", daemon=True)
        _AHEAD[data] = worker
        worker.start()


def _decoded(data: str) -> tuple[QImage, str]:
    worker = _AHEAD.pop(data, None)
    if worker is not None:
        worker.join()  # its result is in decode_picture's cache
    return decode_picture(data)


def failure_words(error: BaseException) -> str:
    """A short reason the GM reads: the error's kind and its first line, at most 200 characters."""
    first = (str(error).strip().splitlines() or [""])[0]
    words = f"{type(error).__name__}: {first}" if first else type(error).__name__
    return words if len(words) <= 200 else words[:199] + "…"


def _argb(color: QColor) -> int:
    a = color.alpha()
    r, g, b = (round(v * a / 255) for v in (color.red(), color.green(), color.blue()))
    return (a << 24) | (r << 16) | (g << 8) | b


class MapScene(QGraphicsScene):
    """The scene of the map: terrain in the background, one item per placed token."""

    # The scene has caught up with the encounter (after events, a new encounter, or the selection).
    synced = Signal()
    # A shared overlay changed here (the scene rect it covered or covers now): the player view
    # repaints that much of its own map, never the whole of it for a drag step.
    overlaysChanged = Signal(QRectF)
    # The players' scene failed to build, sync or paint (the reason), or works again (""): the
    # player view shows black meanwhile, never a stale or half-built map (DESIGN: fails closed).
    failureChanged = Signal(str)

    def __init__(self, controller: TableController, parent: QObject | None = None, *, player: bool = False) -> None:
        super().__init__(parent)
        self.controller = controller
        # The players' scene: no hidden tokens, no selection, Opponents' condition words instead of numbers.
        self.player = player
        self.failure: str | None = None  # the players' scene: why it is paused, or None
        self._paint_failed = False  # paused by a paint (not a build or a sync)
        self.try_paint = False  # paused by a paint, and rebuilt since: the view may try to paint again
        self.paint_errors = 0  # how many paints of its items failed (the view looks after each of its paints)
        self.badly_hurt_below = 0.5
        self.share_markers = False  # the players' scene: Opponents' condition markers shown too
        self.outside_color = QColor(OUTSIDE)
        self.tokens: dict[str, TokenItem] = {}
        # The overlays added to this scene: the player view shares some of them, and asking the
        # scene for its items would wrap and test every token under a repainted rectangle.
        self.overlays: list[QGraphicsItem] = []
        self.occupant: dict[Cell, str] = {}  # every covered cell -> the combatant covering it
        # What the tokens show was worked out from: the engine's step, the encounter, its ruleset and the
        # players' "badly hurt" share (None: nothing yet, the next sync looks at every token).
        self._basis: tuple[int, Encounter, Ruleset, float] | None = None
        self._cells: dict[str, list[Cell]] = {}  # each shown token's cells in ``occupant``
        self._names: dict[str, str] = {}  # the names the labels were worked out from (the shown ones)
        self._labels: dict[str, str] = {}
        self._secret: frozenset[str] = frozenset()  # the tokens the players' scene leaves out
        self._turn_shown: str | None = None  # whose token shows the turn ring
        self._selected_shown: str | None = None  # whose token shows the selection marks
        self._map: MapGrid | None = None
        self._terrain_image = QImage()
        self._hatch_tiles: dict[tuple[int, int], QPainterPath] = {}
        self._background_key: tuple[str, Background] | None = None
        self.lines = LineShapes()  # the map's wall segments and doors, painted in drawBackground
        self._background: QPixmap | None = None
        self._warned: set[str] = set()
        # The view's zoom (device pixels per scene unit) and the UI scale: tokens size their texts by them.
        self.view_scale = 1.0
        self.ui_scale = theme.ui_scale()
        # Fog of war: black and dimmed cells in the players' scene, a faint shade in the GM's.
        self.fog = FogItem(controller, player)
        self.addItem(self.fog)
        # Light (RULES §15): darkness and dim light in the players' scene, lit areas outlined in the GM's.
        self.light = LightItem(controller, player)
        self.addItem(self.light)
        # The GM's drawings and labels (the players' scene: the shown ones only).
        self.drawings = DrawingLayer(self, player)
        # Area templates (RULES §14; the players' scene: the shown ones, under its fog, without rings).
        self.templates = TemplateLayer(self, player, lambda: cover_counts(controller.engine.ruleset.areas))
        # The party's start cells (RULES §16): GM only, made when a map first has some.
        self.start_cells: StartCellsItem | None = None
        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self.rebuild)
        controller.selectionChanged.connect(self._on_selection)
        self.rebuild()

    # -- keeping up with the encounter ----------------------------------------------------------

    def rebuild(self) -> None:
        """Start from scratch (a new encounter)."""
        self._guarded(self._rebuild)

    def _rebuild(self) -> None:
        for item in self.tokens.values():
            self.removeItem(item)
        self.tokens.clear()
        self._basis = None
        self._map = None
        self._hatch_tiles.clear()
        self.drawings.reset()
        self.templates.reset()
        self._sync()

    def _on_events(self, events: list[Event]) -> None:
        self.sync()

    def sync(self) -> None:
        """Bring the terrain and the tokens in line with the encounter.

        Right after the one engine change the scene has not seen yet (or none), only the tokens it
        touched are looked at, with those whose turn, selection, label or visibility changed; any
        other time (a new encounter, a setting) every token is."""
        self._guarded(self._sync)

    def _guarded(self, work: Callable[[], None]) -> None:
        """Do ``work``; in the players' scene an error pauses the player view with its reason, and
        once paused the next change rebuilds everything (a half-done sync is not trusted). Paused by
        a paint, a rebuild that works only lets the view try its paint again (:attr:`try_paint`)."""
        if not self.player:
            work()
            return
        if self.failure is not None:
            work = self._rebuild
        try:
            work()
        except Exception as error:  # anything at all: the players must never see a half-built map
            self.fail(error)
            return
        if self.failure is None:
            return
        if self._paint_failed:
            self.try_paint = True
        else:
            self.resume()

    def fail(self, error: BaseException, painting: bool = False) -> None:
        """Pause the players' scene: ``error`` is why (logged with its traceback for a bug report);
        ``painting``: it came from painting the scene, so only a paint that works resumes it."""
        reason = failure_words(error)
        log.error("the player view is paused: %s", reason, exc_info=error)
        self._paint_failed = painting
        self.try_paint = False
        if reason != self.failure:
            self.failure = reason
            self.failureChanged.emit(reason)

    def paint_failed(self, error: BaseException) -> None:
        """An item of the players' scene could not paint itself (:mod:`lnl_desktop.ui.map.failsafe`)."""
        self.paint_errors += 1
        self.fail(error, painting=True)

    def resume(self) -> None:
        """The players' scene works again: shown."""
        self.failure = None
        self._paint_failed = self.try_paint = False
        self.failureChanged.emit("")

    def _sync(self) -> None:
        controller = self.controller
        encounter = controller.encounter
        engine = controller.engine
        if encounter.map is not self._map:
            self._set_map(encounter.map)
        ruleset = engine.ruleset
        turn = encounter.combat.turn
        turn_id = turn.combatant if turn is not None else None
        selected = None if self.player else controller.selected
        # The players' scene leaves out the tokens the GM hid and, with fog of war, the Opponents
        # no Party token sees now.
        secret = players_unseen(controller) if self.player else frozenset()
        touched = engine.touched
        basis = self._basis
        changed: set[str] | None = None  # the tokens to look at again; None: every one
        if basis is not None and basis[1] is encounter and basis[2] is ruleset and basis[3] == self.badly_hurt_below:
            if touched.step == basis[0]:
                changed = set()
            elif touched.step == basis[0] + 1 and touched.combatants is not None and touched.tokens is not None:
                changed = set(touched.combatants | touched.tokens)
        self._basis = (touched.step, encounter, ruleset, self.badly_hurt_below)
        if changed is None:
            self._sync_all(encounter, ruleset, turn_id, selected, secret)
        else:
            self._sync_some(changed, encounter, ruleset, turn_id, selected, secret)
        self._turn_shown = turn_id
        self._selected_shown = selected
        self._secret = secret
        self.fog.refresh()
        self.light.refresh()
        self.drawings.sync(encounter)
        self.templates.sync(encounter)
        if not self.player and (self.start_cells is not None or encounter.map.start_cells):
            self._show_start_cells(encounter.map)
        self.synced.emit()

    def _show_start_cells(self, grid_map: MapGrid) -> None:
        if self.start_cells is None:
            from lnl_desktop.ui.map.start_cells import StartCellsItem  # the first map with start cells

            self.start_cells = StartCellsItem()
            self.addItem(self.start_cells)
        self.start_cells.refresh(grid_map)

    def _sync_all(
        self, encounter: Encounter, ruleset: Ruleset, turn_id: str | None, selected: str | None, secret: frozenset[str]
    ) -> None:
        combatants = {c.id: c for c in encounter.combatants}
        # One label per combatant, unique over the encounter; the players' are worked out without
        # the unseen ones, so no label tells of a hidden creature ('G1' while 'Goblin 2' hides).
        self._names = {c.id: c.name for c in encounter.combatants if c.id not in secret}
        self._labels = assign_labels(self._names)
        gone = [cid for cid in self.tokens if cid not in combatants or cid not in encounter.tokens or cid in secret]
        for cid in gone:
            self.removeItem(self.tokens.pop(cid))
        self.occupant = {}
        self._cells = {}
        for cid in encounter.tokens:
            if cid not in secret:
                self._show_token(cid, combatants.get(cid), encounter, ruleset, turn_id, selected)

    def _sync_some(
        self,
        changed: set[str],
        encounter: Encounter,
        ruleset: Ruleset,
        turn_id: str | None,
        selected: str | None,
        secret: frozenset[str],
    ) -> None:
        """Look again at the ``changed`` tokens, and at those whose turn ring, selection, label or
        visibility to the players changed since the last sync."""
        changed |= secret ^ self._secret
        for was, now in ((self._turn_shown, turn_id), (self._selected_shown, selected)):
            if was != now:
                changed.update(cid for cid in (was, now) if cid is not None)
        if not changed:
            return
        combatants = {c.id: c for c in encounter.combatants}
        names = self._names
        renamed = any(
            (cid in names) != (cid in combatants and cid not in secret)
            or (cid in names and names[cid] != combatants[cid].name)
            for cid in changed
        )
        if renamed:  # a name, or who is shown: labels are unique over all the names at once
            self._names = {c.id: c.name for c in encounter.combatants if c.id not in secret}
            labels = assign_labels(self._names)
            old = self._labels
            changed.update(cid for cid, label in labels.items() if old.get(cid) != label)
            self._labels = labels
        for cid in changed:
            if cid in encounter.tokens and cid not in secret and cid in combatants:
                self._show_token(cid, combatants[cid], encounter, ruleset, turn_id, selected)
                continue
            item = self.tokens.pop(cid, None)
            if item is not None:
                self.removeItem(item)
            self._free_cells(cid)

    def _free_cells(self, cid: str) -> None:
        occupant = self.occupant
        for cell in self._cells.pop(cid, ()):
            if occupant.get(cell) == cid:
                del occupant[cell]

    def _show_token(
        self,
        cid: str,
        c: Any,
        encounter: Encounter,
        ruleset: Ruleset,
        turn_id: str | None,
        selected: str | None,
    ) -> None:
        """Put combatant ``cid``'s token on the map as it is now (its item made or given its look) and
        mark the cells it covers."""
        if c is None:
            return
        token = encounter.tokens[cid]
        look = TokenLook.of(
            c,
            token,
            self._labels[cid],
            cid == turn_id,
            cid == selected,
            self.player,
            self.badly_hurt_below,
            ruleset,
            self.share_markers,
            self._names,  # "until the start of Hill Giant's next turn" on a marker's tooltip
        )
        item = self.tokens.get(cid)
        if item is None:
            item = TokenItem(look, self.view_scale, self.ui_scale)
            self.tokens[cid] = item
            self.addItem(item)
        else:
            item.set_look(look)
        self._free_cells(cid)
        cells = footprint(token.cell, c.size)
        occupant = self.occupant
        for cell in cells:
            occupant[cell] = cid
        self._cells[cid] = cells

    def set_share_markers(self, on: bool) -> None:
        """Show the Opponents' condition markers in the players' scene, or not: every token looked at again."""
        if on != self.share_markers:
            self.share_markers = on
            self._basis = None
            self.sync()

    def overlay_changed(self, rect: QRectF) -> None:
        """An :class:`~lnl_desktop.ui.map.overlays.Overlay` of this scene changed over ``rect``."""
        if not self.player:
            self.overlaysChanged.emit(rect)

    def addItem(self, item: QGraphicsItem) -> None:
        super().addItem(item)
        if hasattr(item, "paint_for_players"):  # an Overlay: kept by name for the player view
            self.overlays.append(item)

    def removeItem(self, item: QGraphicsItem) -> None:
        super().removeItem(item)
        if item in self.overlays:
            self.overlays.remove(item)

    def set_fog_editing(self, on: bool) -> None:
        """The GM's fog tool is in hand: shade what the players would not see even while the fog is off."""
        self.fog.set_editing(on)

    def set_view_scale(self, scale: float) -> None:
        """The view's zoom changed: tokens keep room for texts of a fixed size on screen."""
        if scale <= 0 or abs(scale - self.view_scale) <= 1e-9 * scale:
            return
        self.view_scale = scale
        for item in self.tokens.values():
            item.set_scales(scale, self.ui_scale)

    def set_ui_scale(self, factor: float) -> None:
        """The UI scale (1.0 = 100 %): token labels, bars, badges and words grow with it."""
        if factor <= 0 or factor == self.ui_scale:
            return
        self.ui_scale = factor
        for item in self.tokens.values():
            item.set_scales(self.view_scale, factor)

    def _on_selection(self, cid: str) -> None:
        if self.player:
            return
        if cid:
            self.drawings.select(None)  # a token selected: the drawing no longer is
        self.templates.select(None, None)  # a token selected, or a click on empty ground
        # Only the token that showed the selection and the one that shows it now change.
        for other in {self._selected_shown, cid}:
            item = self.tokens.get(other) if other else None
            if item is not None and item.look.selected != (other == cid):
                item.set_look(replace(item.look, selected=other == cid))
        self._selected_shown = cid or None
        self.synced.emit()

    # -- the map ---------------------------------------------------------------------------------

    @property
    def map(self) -> MapGrid:
        return self.controller.encounter.map

    def map_rect(self) -> QRectF:
        grid_map = self.map
        return QRectF(0, 0, grid_map.width * style.CELL_PX, grid_map.height * style.CELL_PX)

    def _set_map(self, grid_map: MapGrid) -> None:
        old = self._map
        self._map = grid_map
        margin = SCENE_MARGIN_CELLS * style.CELL_PX
        self.setSceneRect(self.map_rect().adjusted(-margin, -margin, margin, margin))
        self._load_background(grid_map.background)
        if old is None or (old.segments, old.doors) != (grid_map.segments, grid_map.doors):
            self.lines = LineShapes.for_map(grid_map, self.lines)
        self._terrain_image = self._make_terrain_image(grid_map)
        same_size = old is not None and (old.width, old.height) == (grid_map.width, grid_map.height)
        if same_size and old is not None:
            changed = old.difficult.symmetric_difference(grid_map.difficult)
            tiles = {(x // TILE, y // TILE) for x, y in changed}
        else:
            self._hatch_tiles.clear()
            tiles = {(x // TILE, y // TILE) for x, y in grid_map.difficult}
        by_tile: dict[tuple[int, int], list[Cell]] = defaultdict(list)
        if tiles:
            for cell in grid_map.difficult:
                key = (cell[0] // TILE, cell[1] // TILE)
                if key in tiles:
                    by_tile[key].append(cell)
        for key in tiles:
            cells = by_tile.get(key)
            if cells:
                self._hatch_tiles[key] = hatch_path(cells)
            else:
                self._hatch_tiles.pop(key, None)
        self.invalidate(self.sceneRect(), QGraphicsScene.SceneLayer.BackgroundLayer)

    def _make_terrain_image(self, grid_map: MapGrid) -> QImage:
        # One pixel a cell. Floor is transparent: the floor colour (or the picture) and the grid lie
        # under this image. Set pixel by pixel, not with numpy: the first window draws this, and a
        # map has at most a few thousand such cells.
        difficult = QColor(DIFFICULT_TINT)
        wall = QColor(WALL)
        if self._background is not None:
            difficult.setAlpha(70)  # a tint: the hatch marks it; the picture shows what it is
            wall.setAlpha(175)  # dark enough to read as a wall, the masonry still shows
        image = QImage(grid_map.width, grid_map.height, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0)
        for cells, color in ((grid_map.difficult, difficult), (grid_map.walls, wall)):
            pixel = _argb(color)
            for x, y in cells:  # walls over difficult ground, as the rules count them
                image.setPixel(x, y, pixel)
        return image

    def _load_background(self, background: Background | None) -> None:
        if background is None:
            self._background_key = None
            self._background = None
            return
        if background.data is not None:
            # Kept in the file: the name is only a name. Keyed by the picture itself, so a new map
            # object with the same picture (a wall painted, a door opened) converts nothing again.
            key = (f"embedded:{background.image}", background)
            if key == self._background_key:
                return
            self._background_key = key
            image, reason = _decoded(background.data)
            where = f"The picture {background.image!r} kept in the file"
        else:
            # Given by path (older files): read only from the encounter file's folder or a folder
            # under it, checked before anything is read; an encounter from someone else must not
            # make the table read other files on the disk.
            from lnl_desktop.core.files.pictures import (  # only for a map with a picture
                PictureError,
                read_picture_beside,
            )

            folder = self.controller.base_dir
            key = (f"beside:{folder}", background)
            if key == self._background_key:
                return
            self._background_key = key
            where = f"Background image {background.image!r}"
            try:
                raw = read_picture_beside(background.image, None if folder is None else Path(folder))
            except PictureError as error:
                image, reason = QImage(), error.reason
            else:
                image, reason = QImage.fromData(raw), "not a readable PNG or JPEG"
        if image.isNull():
            self._background = None
            if where not in self._warned:
                self._warned.add(where)
                text = f"The map shows no picture: {where} is {reason}"
                # Later, so a window that connects to `message` after building the map hears it.
                QTimer.singleShot(0, lambda: self.controller.message.emit(text))
            return
        self._background = QPixmap.fromImage(image)

    @property
    def has_background_picture(self) -> bool:
        return self._background is not None

    # -- painting --------------------------------------------------------------------------------

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        self.paint_background(painter, rect)

    def paint_background(self, painter: QPainter, rect: QRectF, later: Callable[[], None] | None = None) -> None:
        """The floor, picture, grid, terrain, walls and doors under ``rect``. On screen, wall tiles a
        paint leaves out (a new zoom on a huge map) come in later paints: ``later`` asks for one."""
        painter.fillRect(rect, self.outside_color)
        grid_map = self.map
        s = style.CELL_PX
        map_rect = self.map_rect()
        visible = rect.intersected(map_rect)
        if visible.isEmpty():
            return
        x0 = max(0, math.floor(visible.left() / s))
        y0 = max(0, math.floor(visible.top() / s))
        x1 = min(grid_map.width, math.ceil(visible.right() / s))
        y1 = min(grid_map.height, math.ceil(visible.bottom() / s))
        if x1 <= x0 or y1 <= y0:
            return
        scale = math.hypot(painter.worldTransform().m11(), painter.worldTransform().m12())
        cell_on_screen = s * scale
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        picture = self._background is not None
        if picture:
            painter.fillRect(map_rect.intersected(rect), FLOOR.darker(115))
            self._draw_picture(painter, map_rect, grid_map.background)
        else:
            # Opaque floor, then opaque grid lines (several times faster to fill than translucent
            # ones), then the terrain image over them: walls hide the lines, difficult terrain
            # is a translucent tint that lets them through.
            painter.fillRect(map_rect.intersected(rect), FLOOR)
            self._draw_grid(painter, x0, y0, x1, y1, cell_on_screen, opaque=True)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        painter.drawImage(
            QRectF(x0 * s, y0 * s, (x1 - x0) * s, (y1 - y0) * s),
            self._terrain_image,
            QRectF(x0, y0, x1 - x0, y1 - y0),
        )
        if cell_on_screen >= 12 and self._hatch_tiles:
            pen = QPen(DIFFICULT_HATCH, max(1.5, cell_on_screen / 28))
            pen.setCosmetic(True)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)  # stripes end on the cell's edge, not past it
            painter.setPen(pen)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            for ty in range(y0 // TILE, (y1 - 1) // TILE + 1):
                for tx in range(x0 // TILE, (x1 - 1) // TILE + 1):
                    tile = self._hatch_tiles.get((tx, ty))
                    if tile is not None:
                        painter.drawPath(tile)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        if picture:
            self._draw_grid(painter, x0, y0, x1, y1, cell_on_screen, opaque=False)
        self.lines.paint(painter, scale, rect, later)
        self._draw_edge(painter)
        painter.restore()

    def _draw_picture(self, painter: QPainter, map_rect: QRectF, background: Background | None) -> None:
        if background is None or self._background is None:
            return
        k = style.CELL_PX / background.cell_px  # scene units per image pixel
        pixmap = self._background
        target = QRectF(-background.offset_x * k, -background.offset_y * k, pixmap.width() * k, pixmap.height() * k)
        painter.save()
        painter.setClipRect(map_rect)
        painter.setOpacity(background.opacity)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        painter.drawPixmap(target, pixmap, QRectF(pixmap.rect()))
        painter.restore()

    def _draw_grid(
        self, painter: QPainter, x0: int, y0: int, x1: int, y1: int, cell_on_screen: float, opaque: bool
    ) -> None:
        """Grid lines as 1-2 px device-aligned rectangles: crisp, and far cheaper than stroked lines."""
        s = style.CELL_PX
        t = painter.worldTransform()
        sx, sy, tx, ty = t.m11() * s, t.m22() * s, t.dx(), t.dy()
        minor_color = GRID_MINOR_ON_FLOOR if opaque else GRID_MINOR
        major_color = GRID_MAJOR_ON_FLOOR if opaque else GRID_MAJOR
        painter.save()
        painter.resetTransform()
        top, bottom = round(y0 * sy + ty), round(y1 * sy + ty)
        left, right = round(x0 * sx + tx), round(x1 * sx + tx)
        if cell_on_screen >= 7:
            for x in range(x0, x1 + 1):
                if x % 5:
                    painter.fillRect(QRect(round(x * sx + tx), top, 1, bottom - top), minor_color)
            for y in range(y0, y1 + 1):
                if y % 5:
                    painter.fillRect(QRect(left, round(y * sy + ty), right - left, 1), minor_color)
        if cell_on_screen >= 2:
            width = 2 if cell_on_screen >= 14 else 1
            for x in range(x0 + (-x0) % 5, x1 + 1, 5):
                painter.fillRect(QRect(round(x * sx + tx) - width // 2, top, width, bottom - top), major_color)
            for y in range(y0 + (-y0) % 5, y1 + 1, 5):
                painter.fillRect(QRect(left, round(y * sy + ty) - width // 2, right - left, width), major_color)
        painter.restore()

    def _draw_edge(self, painter: QPainter) -> None:
        """The map's edge, so it reads as a board even with a picture under it."""
        s = style.CELL_PX
        t = painter.worldTransform()
        grid_map = self.map
        left, top = round(t.dx()), round(t.dy())
        right = round(grid_map.width * s * t.m11() + t.dx())
        bottom = round(grid_map.height * s * t.m22() + t.dy())
        painter.save()
        painter.resetTransform()
        for rect in (
            QRect(left - 2, top - 2, right - left + 4, 2),
            QRect(left - 2, bottom, right - left + 4, 2),
            QRect(left - 2, top, 2, bottom - top),
            QRect(right, top, 2, bottom - top),
        ):
            painter.fillRect(rect, EDGE)
        painter.restore()


class BackgroundCache:
    """A view's background (floor, picture, grid, terrain, walls, doors) kept as one picture of the
    viewport (Qt's ``CacheBackground``): a repaint under a dragged token or a moved overlay copies it
    instead of blitting every wall tile again, so a walled map repaints as fast as a bare one. Qt
    scrolls the picture on a pan and drops it on a zoom or a resize; ``MapScene`` drops it on every
    change of the map (``invalidate`` of the background layer). The view's ``drawBackground`` goes
    through :meth:`paint`, whose ``later`` refills the picture when a paint left wall tiles out."""

    def __init__(self, view: QGraphicsView) -> None:
        self.view = view
        self._pending = False
        view.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)

    def paint(self, scene: MapScene, painter: QPainter, rect: QRectF) -> None:
        scene.paint_background(painter, rect, self.later)

    def later(self) -> None:
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self.view, self._refill)

    def _refill(self) -> None:
        self._pending = False
        self.view.resetCachedContent()
        self.view.viewport().update()
