"""A dock's View entry and shortcut bring it to the front, and hide it only when it is in front.

Qt's own toggle hides a dock whose tab is behind another (it counts as shown), and a second press
shows it again still behind: the GM pressed the key to see it and saw nothing change twice."""

from __future__ import annotations

from PySide6.QtWidgets import QDockWidget, QTabBar


def in_front(dock: QDockWidget) -> bool:
    """Shown and not behind another dock's tab (a tab behind is 'visible' to Qt, only moved away)."""
    window = dock.parentWidget()
    if not dock.isVisible() or dock.isFloating() or window is None:
        return dock.isVisible()
    title = dock.windowTitle()
    for bar in window.findChildren(QTabBar):
        # The main window's own tab bars (not a tab widget's inside a dock) that hold this dock's tab.
        if bar.parent() is window and bar.isVisible() and title in (bar.tabText(i) for i in range(bar.count())):
            return bar.tabText(bar.currentIndex()) == title
    return True  # not tabbed with another shown dock


def show_or_hide(dock: QDockWidget) -> None:
    """Hide ``dock`` if the GM sees it; otherwise show it and make its tab the current one."""
    if in_front(dock):
        dock.close()
    else:
        dock.show()
        dock.raise_()
    dock.toggleViewAction().setChecked(not dock.isHidden())


def bring_to_front_on_toggle(dock: QDockWidget) -> None:
    """Make ``dock``'s toggle action (View menu entry and shortcut) behave as :func:`show_or_hide`."""
    toggle = dock.toggleViewAction()
    toggle.triggered.disconnect()  # Qt's own toggle (hide whenever shown, behind or not)
    toggle.triggered.connect(lambda _checked: show_or_hide(dock))
