"""The player view: a second window for a projector or a screen the players see.

It shows the same encounter live through a :class:`MapScene` of its own built in player mode: no
tokens the GM hid, no SP or IP of Opponents (a condition word instead), no selection. With fog of
war on (``encounter.fog.enabled``) it shows what the Party sees now, what it explored dimmed and
the rest black, and no Opponent the Party does not see now. GM overlays (a drag's movement area,
range rings) are painted over it only while "Share overlays" is on, and never over the black. It
may follow the GM's zoom and position or keep its own; a blackout blanks it for scene changes. A
move slides the token along its path for a moment so the table can follow it.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QEasingCurve, QPointF, QRectF, QSize, Qt, QVariantAnimation, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QColor,
    QFont,
    QGuiApplication,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QScreen,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGraphicsView,
    QSizePolicy,
    QStyleOptionGraphicsItem,
    QVBoxLayout,
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
        self.follow = on
        if on:
            self._follow_gm()
        else:
            self.fit_map()

    def fit_map(self) -> None:
        """The whole map, as large as the window allows (no more margin than the aspect ratio needs)."""
        rect = self.map_scene.map_rect()
        self._user_zoomed = False
        self._fitted_map = (self.controller.encounter.map.width, self.controller.encounter.map.height)
        scale = fit_scale(rect, self.viewport().rect(), FIT_MARGIN_PX, 8.0)
        if scale is None:
            return
        self.setTransform(QTransform.fromScale(scale, scale))
        self.centerOn(rect.center())
        self.map_scene.set_view_scale(scale)

    def _follow_gm(self, *_: object) -> None:
        gm = self.gm_view
        if not self.follow or gm is None:
            return
        centre = gm.mapToScene(gm.viewport().rect().center())
        self.setTransform(gm.transform())
        self.centerOn(centre)
        self.map_scene.set_view_scale(self.transform().m11())

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
                # A token hidden, shown or lost in the fog: its overlays come or go everywhere.
                self._shared_unseen = unseen
                self.viewport().update()
        else:
            self._shared_unseen = None
        grid_map = self.controller.encounter.map
        if not self.follow and not self._user_zoomed and self._fitted_map != (grid_map.width, grid_map.height):
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

    def _on_replaced(self) -> None:
        for animation in self.animations.values():
            animation.stop()
        self.animations.clear()
        self._shared_unseen = None
        self.viewport().update()
        if not self.follow:
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
        if steps and not self.follow:
            self.scale(1.2**steps, 1.2**steps)
            self._user_zoomed = True
            self.map_scene.set_view_scale(self.transform().m11())
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
                scene.set_view_scale(self.transform().m11())  # tokens size their words by the zoom
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
        if self.follow:
            self._follow_gm()
        elif not self._user_zoomed:
            self.fit_map()


class PlayerView(QWidget):
    """The player view's window: a turn banner over the players' map. One screen or two."""

    closed = Signal()

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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.banner)
        layout.addWidget(self.view, 1)
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
        self.banner.setVisible(not self.blackout and not self.paused)
        self.view.viewport().update()

    def set_scale(self, percent: int) -> None:
        """The UI scale: large type for the banner, readable across a table, and the map's words
        (condition words, labels) larger still with it."""
        font = QFont()
        font.setBold(True)
        font.setPixelSize(round(34 * percent / 100))
        self.banner.setFont(font)
        self.scene.set_ui_scale(percent / 100)

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
