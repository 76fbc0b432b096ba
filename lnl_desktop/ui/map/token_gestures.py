"""The gestures on a token (:mod:`lnl_desktop.ui.map.gestures` has what they share).

- :class:`MoveToken`: a token dragged along its route, with waypoints (right click or W pins one,
  Backspace drops the last) and Shift for a forced move; a click without a drag begins a turn or
  picks the attack's target.
- :class:`TurnToken`: a right-drag turns a token (Alt: 15 degree steps); a right click that turns
  nothing opens its menu.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import replace

from PySide6.QtCore import QObject, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QCursor, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QApplication

from lnl_desktop.core.encounter.actions import (
    BeginTurn,
    Face,
)
from lnl_desktop.core.encounter.map_model import MapGrid
from lnl_desktop.core.encounter.model import Phase, Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map import grid, visibility
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.lazy import loaded
from lnl_desktop.ui.map.drag import MoveDrag, Route
from lnl_desktop.ui.map.geometry import footprint_centre
from lnl_desktop.ui.map.gestures import Gesture, MapSurface
from lnl_desktop.ui.map.rules_overlays import VIEW_LATER_CELLS
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.controller import AttackPlan, TableController

# -- moving a token --------------------------------------------------------------------------------


class ViewAhead:
    """What a dragged Party token will see where it is dropped, worked out on a worker while the GM
    drags, into the map's cache of views, cut to the token's field of vision where sight has a facing
    (a move keeps the facing): the Party move after the drop finds it made (a view of a walled 300 x 300
    map is 2-5 ms of the move's frame, the cut another millisecond). One worker at a time, for the
    latest cell the drag asked about; it is given plain data and touches no Qt object."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wanted: tuple[MapGrid, Cell, int, float | None, float] | None = None
        self._working = False
        self._idle = threading.Event()  # set while no worker runs
        self._idle.set()

    @staticmethod
    def worth_it(grid_map: MapGrid, cone: bool) -> bool:
        """Whether a view of ``grid_map`` costs enough to be worked out ahead: a big map with walls, or
        where the view is cut to a field of vision (a millisecond over a big open map)."""
        if grid_map.width * grid_map.height < VIEW_LATER_CELLS:
            return False
        return bool(cone or grid_map.segments or grid_map.doors or grid_map.walls) and loaded("numpy")

    def ask(
        self, grid_map: MapGrid, cell: Cell, size: int, facing: float | None = None, vision_deg: float = 360
    ) -> bool:
        """Work out the view from ``cell`` (a creature of ``size``, facing ``facing`` with ``vision_deg``
        of vision; None: all round) unless it is known: whether a worker was asked to."""
        if not (0 <= cell[0] < grid_map.width and 0 <= cell[1] < grid_map.height):
            return False
        if visibility.view_known(grid_map, cell, size, facing, vision_deg):
            return False
        with self._lock:
            self._wanted = (grid_map, cell, size, facing, vision_deg)
            if self._working:
                return True  # the running worker takes it next
            self._working = True
            self._idle.clear()
        threading.Thread(target=self._work, name="lnl-view-ahead", daemon=True).start()
        return True

    def wait(self, timeout: float = 5.0) -> bool:
        """Until the worker has nothing left to do (tests): whether it finished in ``timeout`` seconds."""
        return self._idle.wait(timeout)

    def _work(self) -> None:
        while True:
            with self._lock:
                wanted, self._wanted = self._wanted, None
                if wanted is None:
                    self._working = False
                    self._idle.set()
                    return
            with contextlib.suppress(ValueError):  # off the map for its size: the move says why
                visibility.visible_mask(*wanted)


VIEW_AHEAD = ViewAhead()


def drop_eyes(controller: TableController, cid: str) -> tuple[float | None, float]:
    """The facing and the degrees of vision ``cid``'s view at a drop cell is cut to: (None, 360) where
    sight has no facing (the ruleset's) or the creature sees all round."""
    token = controller.encounter.tokens.get(cid)
    mover = controller.combatant(cid)
    if token is None or mover is None or not controller.engine.ruleset.sight_uses_facing or mover.vision_deg >= 360:
        return None, 360
    return float(token.facing), float(mover.vision_deg)


def view_ahead_for_drop(controller: TableController, cid: str, anchor: Cell, size: int) -> bool:
    """A placed Party token dragged over the map from a dock (its drop is a move): its view from
    ``anchor`` worked out ahead as a token's own drag does. Whether a worker was asked to."""
    encounter = controller.encounter
    mover = controller.combatant(cid) if cid in encounter.tokens and encounter.fog.enabled else None
    if mover is None or mover.side is not Side.PARTY:
        return False
    eyes = drop_eyes(controller, cid)
    if not ViewAhead.worth_it(encounter.map, eyes[0] is not None):
        return False
    return VIEW_AHEAD.ask(encounter.map, anchor, size, *eyes)


class MoveToken(Gesture):
    """A token dragged to where it goes, along the route through its waypoints; the release is one
    Move. Until the cursor has moved a few pixels it is a click, which does what combat needs next
    (:meth:`clicked`)."""

    keeps_hover = True
    holds_token = True
    STEERING_KEYS = (Qt.Key.Key_W, Qt.Key.Key_Backspace, Qt.Key.Key_Escape)

    def __init__(self, view: MapSurface, drag: MoveDrag, press: QPoint, targets: bool) -> None:
        super().__init__(view)
        self.drag = drag
        self.active = False  # moved far enough to be a drag, not a click
        self.ended = False
        self._hold: QTimer | None = None
        self.pressed_at = press
        self.target: Cell | None = None  # the anchor under the cursor
        self.forced = False
        self.targets = targets  # a click makes the token the plan's target
        # A Party token under fog of war on a big map (walled, or its sight cut to a field of vision): its
        # view where it may be dropped is worked out ahead (VIEW_AHEAD), for the fog the drop will show.
        encounter = view.controller.encounter
        mover = view.controller.combatant(drag.cid)
        self._eyes = drop_eyes(view.controller, drag.cid)  # a drag never turns the token: asked once
        self.sees_for_party = (
            mover is not None
            and mover.side is Side.PARTY
            and encounter.fog.enabled
            and ViewAhead.worth_it(encounter.map, self._eyes[0] is not None)
        )

    @classmethod
    def pressed(cls, view: MapSurface, cid: str, cell: Cell, press: QPoint, targets: bool) -> MoveToken | None:
        """The gesture of a press on ``cid``'s token at ``cell``; None (and why, said) when the
        engine will not say where it may go."""
        token = view.controller.encounter.tokens[cid]
        try:
            drag = MoveDrag(view.controller, cid, grab=(cell[0] - token.cell[0], cell[1] - token.cell[1]))
        except (RulesError, ValueError) as error:
            view.refuse(str(error))
            return None
        return cls(view, drag, press, targets)

    @staticmethod
    def targets_on_click(controller: TableController, cid: str) -> bool:
        """A click on ``cid`` picks the target of the attack being set up (not the active one)."""
        turn = controller.encounter.combat.turn
        plan = controller.plan
        if turn is None or plan is None or plan.attacker != turn.combatant:
            return False
        return cid != turn.combatant or bool(getattr(plan, "allies", False))  # Defend may pick oneself

    def start(self) -> None:
        self.view.overlays.prime(self.drag.cid, self.drag.mover_inputs())
        # The selected combatant's rings, hidden at the press (MapView), show at the release or
        # once the press is held without a drag.
        if isinstance(self.view, QObject):
            self._hold = QTimer(self.view)  # the view's child: it goes with the view
            self._hold.setSingleShot(True)
            self._hold.timeout.connect(self._held)
            self._hold.start(QApplication.startDragTime())

    def _held(self) -> None:
        if not self.active and not self.ended:
            self.view.overlays.set_selected_hidden(False)

    @property
    def dragged_token(self) -> str | None:
        return self.drag.cid

    def grabbing(self) -> bool:
        return self.active

    def steers(self, key: int) -> bool:
        # W is also "paint walls": during a drag it pins a waypoint instead.
        return key in self.STEERING_KEYS

    def press(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.RightButton and self.active:
            self.pin_waypoint()

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        if not self.active:
            moved = (event.position().toPoint() - self.pressed_at).manhattanLength()
            if moved >= QApplication.startDragDistance():
                self._activate()
        if self.active:
            self.drag_to(cell, bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        clicked = None if self.active else self.drag.cid
        forced = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier) or self.forced
        self._finish(cell, forced)
        if clicked is not None:
            self.clicked(clicked)

    def key_press(self, event: QKeyEvent) -> bool:
        if not self.active:
            return False
        key = event.key()
        if key == Qt.Key.Key_W:
            self.pin_waypoint()
            return True
        if key == Qt.Key.Key_Backspace:
            self.unpin_waypoint()
            return True
        if key == Qt.Key.Key_Shift and self.target is not None:
            self.drag_to(self.view.cell_under_cursor() or self.target, True, again=True)
            return True
        return False

    def key_release(self, event: QKeyEvent) -> bool:
        if event.key() != Qt.Key.Key_Shift or not self.active:
            return False
        if self.target is not None:
            self.drag_to(self.view.cell_under_cursor() or self.target, False, again=True)
        return True

    def _activate(self) -> None:
        view, drag = self.view, self.drag
        self.active = True
        view.drag_layer.show_press(drag)
        view.overlays.set_selected_hidden(True)
        item = view.map_scene.tokens.get(drag.cid)
        if item is not None:
            item.set_dragged(True)
        view.refresh_hover()
        view.update_cursor()

    def drag_to(self, cell: Cell, forced: bool, again: bool = False) -> None:
        """The cursor is over ``cell``: recompute only when the cell or the Shift key changed."""
        view, drag = self.view, self.drag
        target = drag.anchor_for(cell)
        if not again and target == self.target and forced == self.forced:
            return
        self.target = target
        self.forced = forced
        route = drag.route_to(target) if not forced else None
        if route is None:
            route = Route(target, [drag.start, target], True, 0.0, [[drag.start, target]], [True])
        info = view.drag_layer.show_route(drag, route, forced)
        if self.sees_for_party:
            VIEW_AHEAD.ask(view.controller.encounter.map, target, drag.size, *self._eyes)
        item = view.map_scene.tokens.get(drag.cid)
        if item is not None:
            item.move_to(target)
            item.set_ghost_bad(target != drag.start and drag.end_looks_bad(target, view.map_scene.occupant))
        view.say(info)

    def pin_waypoint(self) -> None:
        if not self.active or self.target is None:
            return
        if self.drag.pin(self.target):
            self.drag_to(self.view.cell_under_cursor() or self.target, self.forced, again=True)

    def unpin_waypoint(self) -> None:
        if self.active and self.drag.unpin() and self.target is not None:
            self.drag_to(self.view.cell_under_cursor() or self.target, self.forced, again=True)

    def _finish(self, cell: Cell, forced: bool) -> None:
        action = None
        if self.active and self.view.on_map(cell):
            action = self.drag.action(self.drag.anchor_for(cell), forced)
        self.end()
        self.view.say("")
        if action is not None:
            self.view.do(action)

    def cancel(self) -> None:
        self.end()
        self.view.say("")

    def end(self) -> None:
        self.ended = True
        if self._hold is not None:
            self._hold.stop()
            self._hold.deleteLater()
            self._hold = None
        view = self.view
        item = view.map_scene.tokens.get(self.drag.cid)
        if item is not None:
            item.set_dragged(False)
            item.reset_position()
            item.set_ghost_bad(False)
        view.drag_layer.hide()
        view.overlays.set_selected_hidden(False)
        super().end()
        view.refresh_hover()
        view.update_cursor()

    def clicked(self, cid: str) -> None:
        """A press and release on a token without a drag: between turns it begins the turn of one
        who may act now; while an attack is being set up it picks the target."""
        controller = self.view.controller
        engine = controller.engine
        combat = controller.encounter.combat
        if self.targets and combat.turn is not None:
            plan = controller.plan
            controller.set_plan(replace(plan or AttackPlan(combat.turn.combatant), target=cid))
        elif combat.phase is Phase.FIGHTING and combat.turn is None and any(c.id == cid for c in engine.waiting()):
            self.view.do(BeginTurn(cid))


# -- turning a token -------------------------------------------------------------------------------


class TurnToken(Gesture):
    """A right-drag that turns a token to face the cursor; the release is one Face action, or the
    token's menu when it turned nothing."""

    keeps_hover = True
    holds_token = True

    def __init__(self, view: MapSurface, cid: str, name: str, centre: QPointF, facing: int) -> None:
        super().__init__(view)
        self.cid = cid
        self.name = name
        self.centre = centre
        self.facing = facing
        self.preview = facing

    @classmethod
    def pressed(cls, view: MapSurface, cid: str) -> TurnToken | None:
        """The gesture of a right press on ``cid``'s token (selected by it)."""
        token = view.controller.encounter.tokens[cid]
        c = view.controller.combatant(cid)
        if c is None:
            return None
        view.controller.select(cid)
        return cls(view, cid, c.name, footprint_centre(token.cell, c.size), token.facing)

    def move(self, event: QMouseEvent, cell: Cell) -> None:
        point = self.view.scene_pos(event.position())
        fine = bool(event.modifiers() & Qt.KeyboardModifier.AltModifier)
        dx, dy = point.x() - self.centre.x(), point.y() - self.centre.y()
        if dx * dx + dy * dy < (0.3 * style.CELL_PX) ** 2:
            return  # too close to the centre to tell a direction
        bearing = grid.direction_deg((self.centre.x(), self.centre.y()), (point.x(), point.y()))
        facing = grid.snap_facing(bearing, 15 if fine else 45)
        if facing != self.preview:
            self.preview = facing
            item = self.view.map_scene.tokens.get(self.cid)
            if item is not None:
                item.set_preview_facing(facing)
        self.view.say(f"{self.name}: face {facing}°" + ("" if fine else " (Alt: 15° steps)"))

    def release(self, event: QMouseEvent, cell: Cell) -> None:
        if event.button() != Qt.MouseButton.RightButton:
            return
        view = self.view
        self._end_preview()
        if self.preview != self.facing:
            view.do(Face(self.cid, self.preview))
        else:
            # A right-click that turned nothing: the token's menu.
            view.context_menu = view.token_menu(self.cid)
            view.context_menu.popup(QCursor.pos())

    def cancel(self) -> None:
        self._end_preview()

    def _end_preview(self) -> None:
        self.end()
        item = self.view.map_scene.tokens.get(self.cid)
        if item is not None:
            item.set_preview_facing(None)
        self.view.say("")
