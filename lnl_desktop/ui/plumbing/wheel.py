"""The mouse wheel scrolls, it never edits: one filter on the whole application.

Qt lets a wheel turned over a combo box, a spin box or a slider change its value, even one the GM
never clicked: scrolling down the Sheet moved Tombril's Side from Party to Opponents. Here such a
field takes the wheel only while it has the keyboard focus (clicked or tabbed into); otherwise the
wheel scrolls the panel round it. A wheel never gives it the focus either (StrongFocus, not
WheelFocus). And a table inside a panel that has nothing to scroll up or down (the Sheet's Weapons)
passes an up-and-down wheel to the panel rather than scrolling itself sideways.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QScrollBar,
    QSlider,
    QWidget,
)

from lnl_desktop.ui.plumbing.widgets import nearest_ancestor

# What a wheel would edit. Not QScrollBar: scrolling is what a wheel is for.
EDITORS = (QComboBox, QAbstractSpinBox, QSlider)


class WheelGuard(QObject):
    """The application's event filter: see the module's docstring."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Every event of the application passes here: only a wheel or a plain event (a Polish) on
        # an editor can matter, the rest are let by before their type is read (slow in Python).
        if not isinstance(event, QWheelEvent) and (type(event) is not QEvent or not isinstance(watched, EDITORS)):
            return False
        kind = event.type()
        if kind == QEvent.Type.Polish and isinstance(watched, EDITORS):
            # Before its first show: a wheel over it must not give it the focus (and so the wheel).
            if watched.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                watched.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            return False
        if kind != QEvent.Type.Wheel or not isinstance(event, QWheelEvent) or not isinstance(watched, QWidget):
            return False
        if isinstance(watched, EDITORS):
            if has_focus(watched):
                return False  # the GM is working in it: the wheel steps its value
            scroll_panel(watched, event)
            return True
        area = watched.parentWidget()
        # Tables and lists only: a chart or the map keeps its own wheel (a zoom).
        if isinstance(area, QAbstractItemView) and area.viewport() is watched and up_and_down(event):
            bar = area.verticalScrollBar()
            if bar.maximum() == bar.minimum() and outer_area(area) is not None:
                scroll_panel(area, event)  # not sideways: the panel round it scrolls instead
                return True
        return False


def has_focus(widget: QWidget) -> bool:
    """The field or its own line edit has the keyboard focus."""
    focused = QApplication.focusWidget()
    return focused is not None and (focused is widget or widget.isAncestorOf(focused))


def up_and_down(event: QWheelEvent) -> bool:
    delta = event.angleDelta()
    return abs(delta.y()) > abs(delta.x())


def outer_area(widget: QWidget) -> QAbstractScrollArea | None:
    """The nearest scroll area ``widget`` sits in (not ``widget`` itself)."""
    return nearest_ancestor(widget, QAbstractScrollArea)


def scroll_panel(widget: QWidget, event: QWheelEvent) -> None:
    """Scroll the nearest panel round ``widget`` that can scroll the wheel's way; none: nothing."""
    vertical = up_and_down(event)
    area = outer_area(widget)
    while area is not None:
        bar: QScrollBar = area.verticalScrollBar() if vertical else area.horizontalScrollBar()
        if bar.maximum() > bar.minimum():
            at = QPointF(bar.mapFromGlobal(event.globalPosition().toPoint()))
            moved = QWheelEvent(
                at,
                event.globalPosition(),
                event.pixelDelta(),
                event.angleDelta(),
                event.buttons(),
                event.modifiers(),
                event.phase(),
                event.inverted(),
                event.source(),
            )
            QApplication.sendEvent(bar, moved)
            return
        area = outer_area(area)


_guard: WheelGuard | None = None


def install() -> None:
    """Filter every widget's wheel (once per application; again after a new QApplication)."""
    global _guard
    app = QApplication.instance()
    if app is None or (_guard is not None and _guard.parent() is app):
        return
    _guard = WheelGuard(app)
    app.installEventFilter(_guard)
    # Fields made before the filter (it may come after the first window is painted): as a Polish would.
    for widget in QApplication.allWidgets():
        if isinstance(widget, EDITORS) and widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
            widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
