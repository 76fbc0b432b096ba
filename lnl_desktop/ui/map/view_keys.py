"""The map's keys (a mixin of :class:`~lnl_desktop.ui.map.view.MapView`): a gesture under way
takes its own first (W, Backspace, Escape steer a drag, ahead of the window's shortcuts); else
Escape cancels a preview or clears the selection, Delete removes the selected token, drawing or
template, and [ ] turn the selected token 45 degrees.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent

from lnl_desktop.core.encounter.events import Event
from lnl_desktop.ui.map.gestures import Gesture
from lnl_desktop.ui.map.scene import MapScene
from lnl_desktop.ui.plumbing.controller import TableController


class MapKeys:
    """The view's keyboard."""

    # What the mixin uses of the view it is part of.
    controller: TableController
    map_scene: MapScene
    _gesture: Gesture | None

    if TYPE_CHECKING:  # the view's own, for the type checker

        def _previewing(self) -> bool: ...
        def cancel_gesture(self) -> None: ...
        def remove_selected(self) -> list[Event] | None: ...
        def turn_selected(self, step_deg: int) -> list[Event] | None: ...

    def event(self, event: QEvent) -> bool:
        # During a drag, W, Backspace and Escape steer the drag: they must beat the window's
        # shortcuts (W is also "paint walls"), which Qt would otherwise run first.
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and self._gesture is not None
            and isinstance(event, QKeyEvent)
            and self._gesture.steers(event.key())
        ):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self._gesture is not None and self._gesture.key_press(event):
            return
        key = event.key()
        if key == Qt.Key.Key_Escape:
            if self._previewing():
                self.cancel_gesture()
            else:
                self.controller.select(None)
                self.map_scene.drawings.select(None)
                self.map_scene.templates.select(None, None)
            return
        if self._gesture is None or not self._gesture.holds_token:
            if key == Qt.Key.Key_Delete:
                self.remove_selected()
                return
            if key == Qt.Key.Key_BracketLeft or event.text() == "[":
                self.turn_selected(-45)
                return
            if key == Qt.Key.Key_BracketRight or event.text() == "]":
                self.turn_selected(45)
                return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if self._gesture is not None and self._gesture.key_release(event):
            return
        super().keyReleaseEvent(event)
