"""The player view: a second window for a projector or a screen the players see.

It shows the same encounter live through a :class:`MapScene` of its own built in player mode: no
tokens the GM hid, no SP or IP of Opponents (a condition word instead), no selection. With fog of
war on (``encounter.fog.enabled``) it shows what the Party sees now, what it explored dimmed and
the rest black, and no Opponent the Party does not see now. GM overlays (a drag's movement area,
range rings) are painted over it only while "Share overlays" is on, and never over the black. It
may follow the GM's zoom and position or keep its own; a blackout blanks it for scene changes. A
move slides the token along its path for a moment so the table can follow it.

For a TV laid on the table it may show the grid at real size (a locked part of the map, placed by
the GM's frame: :mod:`lnl_desktop.ui.window.table_display`) and turn by 90, 180 or 270 degrees,
the banner's words with it.
"""

from __future__ import annotations

import math
import sys

from PySide6.QtCore import QEasingCurve, QPointF, QRect, QRectF, QSize, QSizeF, Qt, QVariantAnimation, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QColor,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
    QScreen,
    QShowEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGraphicsView,
    QSizePolicy,
    QStyleOptionGraphicsItem,
    QWidget,
)

from lnl_desktop.core.encounter.events import Event, Moved
from lnl_desktop.core.encounter.model import Phase, Side
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.core.engine.dice_rolls import last_shared_roll, shared_roll_words
from lnl_desktop.ui.map.failsafe import fails_closed
from lnl_desktop.ui.map.fog import party_sight, players_unseen
from lnl_desktop.ui.map.geometry import FIT_MARGIN_PX, fit_scale
from lnl_desktop.ui.map.overlays import Overlay
from lnl_desktop.ui.map.scene import BackgroundCache, MapScene
from lnl_desktop.ui.plumbing import style, theme
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.widgets import ElidedLabel

MOVE_ANIMATION_MS = 300
BLACK = QColor(0, 0, 0)
ROTATIONS = (0, 90, 180, 270)  # the players' picture turned clockwise, in degrees


def banner_text(controller: TableController) -> str:
    """ "Round 2 · Tombril's turn" — never the name of a combatant hidden from the players (by the
    GM, or in the fog of war where the Party does not see it). A name's control and bidi characters
    are shown as escapes (the players' screen obeys none of them)."""
    encounter = controller.encounter
    combat = encounter.combat
    if combat.phase is Phase.SETUP:
        return visible(encounter.name)
    turn = combat.turn
    if turn is None:
        return combat.round_name
    c = controller.combatant(turn.combatant)
    token = encounter.tokens.get(turn.combatant)
    if c is None:
        return combat.round_name
    if token is not None and (token.hidden or turn.combatant in players_unseen(controller)):
        who = "the Party's" if c.side is Side.PARTY else "the Opponents'"
        return f"{combat.round_name} · {who} turn"
    return f"{combat.round_name} · {visible(c.name)}'s turn"


def roll_banner(controller: TableController) -> str:
    """ " · Roll 2d20kh1: 17 (4 dropped) = 17": the GM's last roll made for all to see, while it is the
    last thing done; never a secret roll. Shown as :func:`visible` writes it."""
    shared = last_shared_roll(controller.encounter.log)
    return f" · {visible(shared_roll_words(shared))}" if shared is not None else ""


class PlayerMapView(QGraphicsView):
    """The players' map: read-only, no scrollbars, no mouse gestures but the wheel's zoom."""

    shownChanged = Signal()  # the part of the map the players see moved, turned or changed size

    def __init__(self, controller: TableController, gm_view: QGraphicsView | None, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.gm_view = gm_view
        self.map_scene = MapScene(controller, self, player=True)
        self.setScene(self.map_scene)
        self.background_cache = BackgroundCache(self)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        self.setInteractive(False)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.blackout = False
        self.share_overlays = False
        self.follow = False
        self._user_zoomed = False
        self._fitted_map: tuple[int, int] | None = None  # the map size last fitted
        self.rotation = 0  # degrees clockwise, one of ROTATIONS
        self.real_scale: float | None = None  # real size: the zoom that makes a cell its physical size
        self.real_origin: QPointF | None = None  # real size: the shown area's top-left, on a grid corner
        self.calibration_bar: tuple[float, float] | None = None  # (length in mm, px per mm) to draw
        self.animations: dict[str, QVariantAnimation] = {}
        # After the scene's own sync (connected first): tokens already stand on their final cells.
        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self._on_replaced)
        self._shared_unseen: frozenset[str] | None = None  # players_unseen when overlays were last painted
        if gm_view is not None:
            gm_scene = gm_view.scene()
            if isinstance(gm_scene, MapScene):
                # Never the scene's `changed`: connected once, it makes every GM drag step repaint
                # the whole GM view (and this one), even after it is disconnected.
                gm_scene.overlaysChanged.connect(self._on_gm_overlay_changed)
            for bar in (gm_view.horizontalScrollBar(), gm_view.verticalScrollBar()):
                bar.valueChanged.connect(self._follow_gm)
                bar.rangeChanged.connect(self._follow_gm)

    # -- options -----------------------------------------------------------------------------------

    def set_blackout(self, on: bool) -> None:
        self.blackout = on
        self.viewport().update()

    def set_share_overlays(self, on: bool) -> None:
        self.share_overlays = on
        self._shared_unseen = players_unseen(self.controller) if on else None
        self.viewport().update()

    def set_follow(self, on: bool) -> None:
        self.follow = on and self.real_scale is None  # real size never follows the GM's zoom
        if self.follow:
            self._follow_gm()
        else:
            self.fit_map()

    def view_scale(self) -> float:
        """Screen pixels per scene unit, whatever the turn (m11 alone is 0 at 90 degrees)."""
        t = self.transform()
        return math.hypot(t.m11(), t.m12())

    def _set_view(self, scale: float, centre: QPointF) -> None:
        self.setTransform(QTransform().rotate(self.rotation).scale(scale, scale))
        self.centerOn(centre)
        self.map_scene.set_view_scale(scale)
        self.shownChanged.emit()

    def _room(self) -> QRectF:
        """The viewport as the map sees it: at 90 and 270 degrees its width and height swap roles."""
        size = self.viewport().size()
        if self.rotation in (90, 270):
            size = size.transposed()
        return QRectF(0, 0, size.width(), size.height())

    def fit_map(self) -> None:
        """The whole map, as large as the window allows (no more margin than the aspect ratio needs);
        at real size, the locked part of the map instead."""
        if self.real_scale is not None:
            self.place_real()
            return
        rect = self.map_scene.map_rect()
        self._user_zoomed = False
        self._fitted_map = (self.controller.encounter.map.width, self.controller.encounter.map.height)
        scale = fit_scale(rect, self._room(), FIT_MARGIN_PX, 8.0)
        if scale is None:
            return
        self._set_view(scale, rect.center())

    def _follow_gm(self, *_: object) -> None:
        gm = self.gm_view
        if not self.follow or gm is None or self.real_scale is not None:
            return
        centre = gm.mapToScene(gm.viewport().rect().center())
        t = gm.transform()
        self._set_view(math.hypot(t.m11(), t.m12()), centre)

    # -- real size and turning ---------------------------------------------------------------------

    def set_rotation(self, degrees: int) -> None:
        """Turn the players' picture clockwise; it shows the same part of the map."""
        if degrees not in ROTATIONS:
            raise ValueError(f"The players' view turns by 0, 90, 180 or 270 degrees, not {degrees}")
        centre = self.mapToScene(self.viewport().rect().center())
        self.rotation = degrees
        if self.real_scale is not None:
            self.place_real()
        elif self.follow:
            self._follow_gm()
        elif self._user_zoomed:
            self._set_view(self.view_scale(), QPointF(centre))
        else:
            self.fit_map()

    def shown_size(self, scale: float | None = None) -> QSizeF:
        """The map's width and height (scene units) the viewport holds at ``scale`` and the turn."""
        room = self._room()
        s = scale or self.view_scale() or 1.0
        return QSizeF(room.width() / s, room.height() / s)

    def shown_rect(self) -> QRectF:
        """The part of the map (scene units) the players' screen shows now."""
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def set_real_size(self, scale: float | None, origin: QPointF | None = None) -> None:
        """Real size at ``scale`` (scene scale: a cell's physical size on this screen), its top-left
        at ``origin`` (or where it was, or the middle of the map); None: back to fitting the map."""
        if scale is None:
            self.real_scale = None
            self.setSceneRect(QRectF())  # the scene's own again
            self.fit_map()
            return
        if not math.isfinite(scale) or scale <= 0:
            raise ValueError(f"Real size needs a positive zoom, not {scale}")
        self.follow = False
        self.real_scale = scale
        if origin is not None:
            self.real_origin = QPointF(origin)
        elif self.real_origin is None:
            size = self.shown_size(scale)
            centre = self.map_scene.map_rect().center()
            self.real_origin = QPointF(centre.x() - size.width() / 2, centre.y() - size.height() / 2)
        self.place_real()

    def snapped_origin(self, origin: QPointF) -> QPointF:
        """``origin`` on the nearest grid corner, kept where the screen and the map overlap most: a
        map larger than the screen fills it, a smaller one stays whole on it."""
        cell = style.CELL_PX
        size = self.shown_size(self.real_scale)
        rect = self.map_scene.map_rect()
        out: list[float] = []
        for value, room, length in (
            (origin.x(), size.width(), rect.width()),
            (origin.y(), size.height(), rect.height()),
        ):
            low, high = sorted((0.0, length - room))
            value = min(max(value, math.floor(low / cell) * cell), math.ceil(high / cell) * cell)
            out.append(round(value / cell) * cell)
        return QPointF(out[0], out[1])

    def place_real(self) -> None:
        """Show the locked part of the map at real size: its top-left on the grid corner kept."""
        if self.real_scale is None or self.real_origin is None:
            return
        self.real_origin = self.snapped_origin(self.real_origin)
        size = self.shown_size(self.real_scale)
        # Room to scroll anywhere: the scene's own rect would pull a small map back to the middle.
        rect = self.map_scene.map_rect()
        self.setSceneRect(rect.adjusted(-2 * size.width(), -2 * size.height(), 2 * size.width(), 2 * size.height()))
        centre = self.real_origin + QPointF(size.width() / 2, size.height() / 2)
        self._set_view(self.real_scale, centre)

    def set_calibration_bar(self, bar: tuple[float, float] | None) -> None:
        """Draw (or stop drawing) a bar of ``bar[0]`` mm at ``bar[1]`` px per mm for the GM's ruler."""
        self.calibration_bar = bar
        self.viewport().update()

    # -- keeping up ------------------------------------------------------------------------------

    def _on_events(self, events: list[Event]) -> None:
        try:
            self._follow_events(events)
        except Exception as error:  # the players' view pauses rather than show a stale map
            self.map_scene.fail(error)

    def _follow_events(self, events: list[Event]) -> None:
        if self.map_scene.try_paint:
            self.viewport().update()  # paused by a paint, rebuilt since: the whole of it tried again
        if self.share_overlays:
            unseen = players_unseen(self.controller)
            if unseen != self._shared_unseen:
                # A token hidden, shown or lost in the fog: the overlays about it come or go, where they lie
                # (the whole window only when nothing was known: a Party move on a big map changes a few).
                before, self._shared_unseen = self._shared_unseen, unseen
                if before is None:
                    self.viewport().update()
                else:
                    self._repaint_overlays_about(unseen ^ before)
        else:
            self._shared_unseen = None
        grid_map = self.controller.encounter.map
        if (
            not self.follow
            and not self._user_zoomed
            and self.real_scale is None
            and self._fitted_map != (grid_map.width, grid_map.height)
        ):
            self.fit_map()  # the map changed size: fit the new one
        encounter = self.controller.encounter
        for event in events:
            if isinstance(event, Moved) and len(event.path) > 1:
                path = [tuple(cell) for cell in event.path]
                c = self.controller.combatant(event.combatant)
                if encounter.fog.enabled and c is not None and c.side is not Side.PARTY:
                    # No slide that starts or passes where the players do not see: it would show
                    # where an Opponent came from. It simply appears where it stands.
                    seen = party_sight(self.controller)
                    if not all(cell in seen for cell in path):
                        continue
                self.animate_move(event.combatant, path)

    def _repaint_overlays_about(self, changed: frozenset[str]) -> None:
        """Repaint where the GM's shareable overlays about ``changed`` combatants lie (shown or not now)."""
        gm_scene = self.gm_view.scene() if self.gm_view is not None else None
        if not isinstance(gm_scene, MapScene):
            return
        for item in gm_scene.overlays:
            if isinstance(item, Overlay) and item.isVisible() and item.about & changed:
                self._on_gm_overlay_changed(item.sceneBoundingRect())

    def _on_replaced(self) -> None:
        for animation in self.animations.values():
            animation.stop()
        self.animations.clear()
        self._shared_unseen = None
        self.viewport().update()
        self.real_origin = None  # the frame's place is kept while an encounter is open, not past it
        if self.real_scale is not None:
            self.set_real_size(self.real_scale)
        elif not self.follow:
            self.fit_map()

    def animate_move(self, cid: str, path: list[tuple[int, int]]) -> None:
        """Slide the token along ``path`` over MOVE_ANIMATION_MS; it ends on the look's cell."""
        item = self.map_scene.tokens.get(cid)
        old = self.animations.pop(cid, None)
        if old is not None:
            old.stop()
        if item is None:
            return
        points = [QPointF(x * style.CELL_PX, y * style.CELL_PX) for x, y in path]
        animation = QVariantAnimation(self)
        animation.setStartValue(0.0)
        animation.setEndValue(float(len(points) - 1))
        animation.setDuration(MOVE_ANIMATION_MS)
        animation.setEasingCurve(QEasingCurve.Type.InOutQuad)

        def step(value: float) -> None:
            if self.map_scene.tokens.get(cid) is not item:
                return
            i = min(int(value), len(points) - 2)
            t = value - i
            a, b = points[i], points[i + 1]
            item.setPos(a + (b - a) * t)

        def done() -> None:
            if self.map_scene.tokens.get(cid) is item:
                item.reset_position()
            if self.animations.get(cid) is animation:
                del self.animations[cid]

        animation.valueChanged.connect(step)
        animation.finished.connect(done)
        self.animations[cid] = animation
        step(0.0)
        animation.start()

    def finish_animations(self) -> None:
        """Jump every sliding token to its final cell."""
        for animation in list(self.animations.values()):
            animation.setCurrentTime(animation.duration())

    def _on_gm_overlay_changed(self, rect: QRectF) -> None:
        """Repaint the part of this map where a shared GM overlay was or is now."""
        if self.share_overlays and not self.blackout and not rect.isEmpty():
            # A pixel round it: antialiased edges and rounding between the two zooms.
            area = self.mapFromScene(rect).boundingRect().adjusted(-2, -2, 2, 2)
            self.viewport().update(area)

    # -- painting --------------------------------------------------------------------------------

    @fails_closed
    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        self.background_cache.paint(self.map_scene, painter, rect)

    @fails_closed
    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        scene = self.map_scene
        if self.blackout or (scene.failure is not None and not scene.try_paint):  # paused: black, render() too
            painter.fillRect(rect, BLACK)
            return
        if self.share_overlays and self.gm_view is not None:
            self._paint_gm_overlays(painter, rect)
        if self.calibration_bar is not None:
            self._paint_calibration_bar(painter)

    def _paint_calibration_bar(self, painter: QPainter) -> None:
        """A white bar with black ends in the middle of the screen, its stated length above it; it
        turns with the picture (the GM measures it where the players sit)."""
        assert self.calibration_bar is not None
        mm, px_per_mm = self.calibration_bar
        length = mm * px_per_mm
        painter.save()
        painter.resetTransform()
        centre = QRectF(self.viewport().rect()).center()
        painter.translate(centre)
        painter.rotate(self.rotation)
        font = QFont()
        font.setPixelSize(22)
        font.setBold(True)
        words = f"This bar should measure {mm:g} mm ({mm / 25.4:.3g} in)"
        wide = max(length, QFontMetricsF(font).horizontalAdvance(words)) + 24
        painter.fillRect(QRectF(-wide / 2, -68, wide, 100), QColor(0, 0, 0, 210))
        bar = QRectF(-length / 2, -12, length, 24)
        painter.fillRect(bar, QColor(255, 255, 255))
        painter.setPen(QPen(QColor(220, 30, 30), 2))
        for x in (bar.left(), bar.right()):
            painter.drawLine(QPointF(x, -24), QPointF(x, 24))
        painter.setFont(font)
        painter.setPen(QColor(255, 255, 255))
        painter.drawText(QRectF(-wide / 2, -60, wide, 40), Qt.AlignmentFlag.AlignCenter, words)
        painter.restore()

    def shared_overlays(self, rect: QRectF | None = None) -> list[Overlay]:
        """The GM's overlays the players may see: none that tells of a hidden token.

        Only :class:`Overlay` items are shared (never tokens or anything else in the GM scene),
        and only those about no combatant whose token is hidden from the players.
        """
        gm_scene = self.gm_view.scene() if self.gm_view is not None else None
        if not isinstance(gm_scene, MapScene):
            return []
        if self._shared_unseen is None:
            self._shared_unseen = players_unseen(self.controller)
        hidden = self._shared_unseen  # hidden by the GM, or in the fog; kept up to date by _on_events
        return [
            item
            for item in gm_scene.overlays
            if isinstance(item, Overlay)
            and item.isVisible()
            and not (item.about & hidden)
            and (rect is None or item.sceneBoundingRect().intersects(rect))
        ]

    def _paint_gm_overlays(self, painter: QPainter, rect: QRectF) -> None:
        """The GM scene's shareable overlay items painted over this map."""
        option = QStyleOptionGraphicsItem()
        painter.save()
        fog = self.map_scene.fog
        if fog.isVisible():
            # Nothing over the black: a reach or a shadow there would draw the unseen rooms' shape.
            painter.setClipRegion(fog.region, Qt.ClipOperation.IntersectClip)
        for item in sorted(self.shared_overlays(rect), key=lambda i: i.zValue()):
            painter.save()
            painter.setTransform(item.sceneTransform(), True)
            painter.setOpacity(item.opacity())
            option.exposedRect = item.boundingRect()
            item.paint_for_players(painter, option)
            painter.restore()
        painter.restore()

    # -- zoom of its own ---------------------------------------------------------------------------

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120.0
        if steps and not self.follow and self.real_scale is None:  # real size is no zoom to change
            self.scale(1.2**steps, 1.2**steps)
            self._user_zoomed = True
            self.map_scene.set_view_scale(self.view_scale())
            self.shownChanged.emit()
        event.accept()

    def paintEvent(self, event: QPaintEvent) -> None:
        scene = self.map_scene
        if scene.failure is None or scene.try_paint:
            # The scene's items and this view's own layers catch their errors and count them
            # (ui.map.failsafe); one that still reaches here, by any way a binding may hand it, counts too.
            before = scene.paint_errors
            errors: list[BaseException] = []
            hook = sys.excepthook
            sys.excepthook = lambda _kind, error, _trace: errors.append(error)
            try:
                scene.set_view_scale(self.view_scale())  # tokens size their words by the zoom
                super().paintEvent(event)
            except Exception as error:
                errors.append(error)
            finally:
                sys.excepthook = hook
            if errors:
                scene.paint_failed(errors[0])
            if scene.paint_errors == before:
                if scene.failure is not None:
                    scene.resume()  # paused by a paint, and this one worked
                return
        # Paused: black over whatever this paint drew, before it ever reaches the screen.
        painter = QPainter(self.viewport())
        painter.fillRect(self.viewport().rect(), BLACK)
        painter.end()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.real_scale is not None:
            self.place_real()
        elif self.follow:
            self._follow_gm()
        elif not self._user_zoomed:
            self.fit_map()
        else:
            self.shownChanged.emit()


class TurnedBanner(QWidget):
    """The banner drawn turned with the players' picture: the label's own look, painted rotated
    along the edge that is the picture's top (a TV lying between the players)."""

    def __init__(self, owner: PlayerView) -> None:
        super().__init__(owner)
        self.owner = owner
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        try:
            label = self.owner.banner
            rotation = self.owner.view.rotation
            along = self.width() if rotation in (0, 180) else self.height()
            across = self.height() if rotation in (0, 180) else self.width()
            label.resize(along, across)
            picture = label.grab()
            painter.translate(self.width() / 2, self.height() / 2)
            painter.rotate(rotation)
            painter.drawPixmap(QPointF(-along / 2, -across / 2), picture)
        except Exception as error:  # the players' window pauses (black) rather than show a part of it
            painter.resetTransform()
            painter.fillRect(self.rect(), BLACK)
            self.owner.scene.paint_failed(error)
        finally:
            painter.end()


class PlayerView(QWidget):
    """The player view's window: a turn banner over the players' map. One screen or two."""

    closed = Signal()
    screenMoved = Signal()  # the window went to another screen (real size depends on the screen)

    def __init__(
        self, controller: TableController, gm_view: QGraphicsView | None = None, parent: QWidget | None = None
    ):
        super().__init__(parent, Qt.WindowType.Window)
        self.controller = controller
        self.setWindowTitle("Laurels & Loot — Player view")
        self.setObjectName("player_view")
        # One line whatever it says: a long roll label or name loses its middle (the turn and the
        # result stay) rather than widen the window past its screen or re-fit the map under it.
        self.banner = ElidedLabel(mode=Qt.TextElideMode.ElideMiddle)
        self.banner.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setAutoFillBackground(True)
        self.banner.setContentsMargins(12, 6, 12, 6)
        self.view = PlayerMapView(controller, gm_view, self)
        self.turned_banner = TurnedBanner(self)
        self.banner.setParent(self)
        self._watched_window = False
        self.set_scale(round(theme.ui_scale() * 100))
        self.resize(self._first_size(parent))
        controller.eventsApplied.connect(self._refresh_banner)
        controller.encounterReplaced.connect(self._refresh_banner)
        self.scene.failureChanged.connect(self._show_paused)
        self._show_paused()
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.screenRemoved.connect(self.on_screen_removed)
        self._refresh_banner()

    @staticmethod
    def _first_size(parent: QWidget | None) -> QSize:
        """1024 x 700, or less on a smaller screen (the GM's window's): never off its edge."""
        screen = parent.screen() if parent is not None else QGuiApplication.primaryScreen()
        if screen is None:
            return QSize(1024, 700)
        area = screen.availableGeometry()
        return QSize(min(1024, area.width()), min(700, area.height()))

    @property
    def scene(self) -> MapScene:
        return self.view.map_scene

    # -- options -----------------------------------------------------------------------------------

    @property
    def blackout(self) -> bool:
        return self.view.blackout

    def set_blackout(self, on: bool) -> None:
        self.view.set_blackout(on)
        self._show_paused()

    @property
    def paused(self) -> bool:
        """An error paused the players' scene: the window is all black until it works again."""
        return self.scene.failure is not None

    def _show_paused(self, *_: object) -> None:
        self._place()
        self.view.viewport().update()

    @property
    def rotation(self) -> int:
        return self.view.rotation

    def set_rotation(self, degrees: int) -> None:
        """Turn the whole picture clockwise, the banner's words included; the same cells show."""
        self.view.rotation = degrees if degrees in ROTATIONS else self.view.rotation
        self._place()  # the map's room first (its width and height may swap), then its picture
        self.view.set_rotation(degrees)

    def _place(self) -> None:
        """The banner along the picture's top edge, wherever the turn puts it, and the map in the rest."""
        shown = not self.blackout and not self.paused
        thick = self.banner.sizeHint().height() if shown else 0
        w, h = self.width(), self.height()
        rotation = self.view.rotation
        if rotation == 0:
            strip, rest = QRect(0, 0, w, thick), QRect(0, thick, w, h - thick)
        elif rotation == 180:
            strip, rest = QRect(0, h - thick, w, thick), QRect(0, 0, w, h - thick)
        elif rotation == 90:  # the top edge turned to the right
            strip, rest = QRect(w - thick, 0, thick, h), QRect(0, 0, w - thick, h)
        else:
            strip, rest = QRect(0, 0, thick, h), QRect(thick, 0, w - thick, h)
        self.view.setGeometry(rest)
        if rotation == 0:
            self.banner.setGeometry(strip)
        else:
            self.turned_banner.setGeometry(strip)
            self.turned_banner.update()
        self.banner.setVisible(shown and rotation == 0)
        self.turned_banner.setVisible(shown and rotation != 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        handle = self.windowHandle()
        if handle is not None and not self._watched_window:
            self._watched_window = True
            handle.screenChanged.connect(lambda _screen: self.screenMoved.emit())

    def set_scale(self, percent: int) -> None:
        """The UI scale: large type for the banner, readable across a table, and the map's words
        (condition words, labels) larger still with it."""
        font = QFont()
        font.setBold(True)
        font.setPixelSize(round(34 * percent / 100))
        self.banner.setFont(font)
        self.scene.set_ui_scale(percent / 100)
        self._place()

    def set_badly_hurt_below(self, fraction: float) -> None:
        self.scene.badly_hurt_below = fraction
        self.scene.sync()

    def set_share_markers(self, on: bool) -> None:
        """Show the Opponents' condition markers to the players (the Party's always show)."""
        self.scene.set_share_markers(on)

    def set_outside_color(self, color: QColor) -> None:
        self.scene.outside_color = QColor(color)
        self.scene.invalidate(self.scene.sceneRect(), self.scene.SceneLayer.BackgroundLayer)

    def set_full_screen(self, on: bool) -> None:
        if on:
            self.showFullScreen()
        else:
            self.showNormal()

    def _refresh_banner(self, *_: object) -> None:
        self.banner.setText(banner_text(self.controller) + roll_banner(self.controller))
        self.turned_banner.update()

    # -- screens -----------------------------------------------------------------------------------

    def on_screen_removed(self, screen: QScreen | None = None) -> None:
        """A screen went away (a projector unplugged): come back on the primary screen."""
        primary = QGuiApplication.primaryScreen()
        if primary is None or screen is primary:
            return
        full = self.isFullScreen()
        if full:
            self.showNormal()
        self.setScreen(primary)
        area = primary.availableGeometry()
        self.move(area.x() + area.width() // 8, area.y() + area.height() // 8)
        if full:
            self.showFullScreen()

    def closeEvent(self, event: QCloseEvent) -> None:
        super().closeEvent(event)
        self.closed.emit()
