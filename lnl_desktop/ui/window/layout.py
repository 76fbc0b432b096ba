"""The main window's layout: the side panel right of the map (the fight's order above, the work of
a turn below), its width and its split following the work until the GM moves a splitter, Map only,
full screen, Reset layout, and the layout kept in the settings between runs. A part of
:class:`~lnl_desktop.ui.window.main_window.MainWindow`."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabBar, QTabWidget

if TYPE_CHECKING:
    from collections.abc import Callable

    from lnl_desktop.ui.docks.actions import ActionPanel
    from lnl_desktop.ui.docks.turns import TurnsPanel
    from lnl_desktop.ui.plumbing.controller import TableController
    from lnl_desktop.ui.plumbing.theme import Presentation

# The side panel's width at 100 %: the Turns dock's columns and the Action dock's inputs fit.
SIDE_PANEL_PX = 390
# The Action dock's height at least, in lines of text, while a turn is under way (its choices, the
# verdict, the forecast and Roll) and while none is (its one line of what to do next).
ACTION_WORK_LINES = 13
ACTION_IDLE_LINES = 5
KEPT_LINES = 2  # the turn order keeps up to this many lines of room it no longer needs (no twitch)
OWN_SPLIT_KEY = "window/own_split"  # the GM moved the side panel's splitters: keep them there
# Saved dock layouts of another shape (before the one side panel; before the Dice dock) are not restored.
LAYOUT_VERSION = 4  # 4: the Party and Session docks


class SidePanelLayout(QMainWindow):
    """Where the docks are and how much room each part of the side panel gets."""

    controller: TableController
    settings: QSettings
    presentation: Presentation
    turns_panel: TurnsPanel
    action_panel: ActionPanel
    docks: dict[str, QDockWidget]
    map_only_action: QAction
    full_screen_action: QAction
    _hidden_docks: list[QDockWidget]
    _front_docks: list[QDockWidget]
    _own_split: bool
    _split_at_press: tuple[int, int] | None
    _side_scale: int
    _balance_timer: QTimer
    _place_prompts_dock: Callable[[], None]  # the window's: the "Rules call for" dock's place

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()
        self.full_screen_action.setChecked(self.isFullScreen())

    def reset_layout(self) -> None:
        self._own_split = False
        self.settings.remove(OWN_SPLIT_KEY)
        self._arrange_default_layout()
        self.map_only_action.setChecked(False)

    def toggle_docks(self) -> None:
        """Map only: every open dock goes (the map fills the window); again, they come back where
        they were, the same tabs in front. Each dock's own View entry still brings it alone."""
        if self._hidden_docks:
            for dock in self._hidden_docks:
                dock.show()
            for dock in self._front_docks:
                dock.raise_()
            self._hidden_docks = []
        else:
            self._hidden_docks = [d for d in self.docks.values() if d.toggleViewAction().isChecked()]
            self._front_docks = self._docks_in_front()
            for dock in self._hidden_docks:
                dock.hide()
        self.map_only_action.setChecked(bool(self._hidden_docks))

    def _docks_in_front(self) -> list[QDockWidget]:
        """The docks whose tabs are the current ones (and those not in a tab group)."""
        bars = [bar for bar in self.findChildren(QTabBar) if bar.parent() is self and bar.isVisible()]
        front = {bar.tabText(bar.currentIndex()) for bar in bars}
        tabbed = {bar.tabText(i) for bar in bars for i in range(bar.count())}
        return [
            d
            for d in self.docks.values()
            if d.toggleViewAction().isChecked() and (d.windowTitle() in front or d.windowTitle() not in tabbed)
        ]

    def _arrange_default_layout(self) -> None:
        """Every dock where it starts: one side panel right of the map, the fight's order above
        (Turns, Rules call for, Combatants, Bestiary, Dice) and the work of a turn below (Action,
        sheet, Round log, Forecast, Odds, History), as tabs. The map gets the rest: at 1366 x 768 that is
        over 60 % of the window. Built afresh rather than restored from a saved default:
        restoreState() over tabbed docks leaves stray tab bars on screen (Qt 6)."""
        side = Qt.DockWidgetArea.RightDockWidgetArea
        above = ["Turns", "Combatants", "Bestiary", "Party", "Session", "Dice"]  # the table's tools beside its order
        below = ["Action", "Sheet", "Round log", "Forecast", "Odds", "History"]
        for title in above + below:
            dock = self.docks[title]
            dock.setFloating(False)
            self.removeDockWidget(dock)
        self._hidden_docks = []
        self.addDockWidget(side, self.docks["Turns"])
        self.splitDockWidget(self.docks["Turns"], self.docks["Action"], Qt.Orientation.Vertical)
        for group in (above, below):
            for before, after in itertools.pairwise(group):
                self.tabifyDockWidget(self.docks[before], self.docks[after])
        for title in above + below:
            self.docks[title].show()
        self.setTabPosition(side, QTabWidget.TabPosition.North)
        self.docks["Turns"].raise_()
        self.docks["Action"].raise_()
        self._place_prompts_dock()
        self._size_side_panel()
        self._drop_stray_tab_bars()

    def _size_side_panel(self) -> None:
        """The side panel's width and its split: enough for the Turns columns and the Action
        dock's two columns of inputs, the rest for the map. The width then stays as it is, whatever
        the phase (the docks ask for no more than it: the map would re-fit and its tokens jump)."""
        # Its words grow with the UI scale (150 % on a projector): so does its width, up to a share
        # of the window that leaves the map the larger part.
        self._side_scale = self.presentation.scale
        if self._own_split:
            return
        width = min(round(SIDE_PANEL_PX * self.presentation.scale / 100), round(self.width() * 0.42))
        self.resizeDocks([self.docks["Turns"]], [width], Qt.Orientation.Horizontal)
        self._balance_side_panel()

    def _side_split(self) -> tuple[QDockWidget, QDockWidget] | None:
        """The Turns and Action docks when they are stacked in the side panel as the app arranges them."""
        turns, action = self.docks["Turns"], self.docks["Action"]
        # Another tab of the Action dock's group may be in front (the Round log, the Sheet): it holds
        # the lower part of the column in the Action dock's place. A tab behind is moved off screen.
        group = [action, *self.tabifiedDockWidgets(action)]
        action = next((d for d in group if abs(d.x() - turns.x()) <= 1 and d.y() > turns.y()), action)
        for dock in (turns, action):
            if dock.isFloating() or not dock.toggleViewAction().isChecked():
                return None
            if self.dockWidgetArea(dock) != Qt.DockWidgetArea.RightDockWidgetArea:
                return None
        if turns.y() >= action.y() or abs(turns.x() - action.x()) > 1:
            return None  # not one above the other (moved by the GM, or a tab of the same group)
        return turns, action

    def side_panel_wants(self) -> int | None:
        """The Turns dock's height the side panel aims at: every line of the turn order in view,
        as long as the Action dock keeps the room of its work (more while a turn is under way)."""
        aims = self._side_panel_aims()
        return None if aims is None else aims[0]

    def _side_panel_aims(self) -> tuple[int, int] | None:
        """The Turns dock's height aimed at, and the most it may have (the Action dock's work below)."""
        split = self._side_split()
        if split is None:
            return None
        turns, action = split
        column = action.geometry().bottom() - turns.y() + 1
        line = self.action_panel.fontMetrics().height()
        lines = ACTION_WORK_LINES if self.controller.encounter.combat.turn is not None else ACTION_IDLE_LINES
        around = turns.height() - self.turns_panel.height()  # what the dock adds round its panel
        wanted = self.turns_panel.height_for_every_row(self.turns_panel.width()) + max(0, around) + 2
        gap = action.y() - turns.geometry().bottom() - 1  # the splitter, and the Action group's tabs
        room = column - gap - lines * line
        least = 6 * line
        return max(min(wanted, room), least), max(room, least)

    def _balance_side_panel(self) -> None:
        """Give the side panel's height to the part with work: the turn order in full, the Action
        dock the rest. Not once the GM has moved the splitter."""
        if self._own_split or not self.isVisible():
            return
        aims = self._side_panel_aims()
        split = self._side_split()
        if aims is None or split is None:
            return
        wanted, most = aims
        turns, action = split
        height = turns.height()
        if wanted <= height <= wanted + 8:
            return  # near enough: a few pixels more are not worth the panel twitching
        if wanted < height <= min(most, wanted + KEPT_LINES * self.action_panel.fontMetrics().height()):
            # A line or two to spare while the Action dock has its room (between two turns the turn's
            # buttons hide): kept, or the whole side panel is laid out and painted again twice a turn.
            return
        total = turns.height() + action.height()
        self.resizeDocks([turns, action], [wanted, max(1, total - wanted)], Qt.Orientation.Vertical)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Every event of the Turns list's viewport passes here (its paints): a resize is told by its class
        # first, the rest let by before their type is read (slow in Python).
        if isinstance(event, QResizeEvent) and hasattr(self, "_balance_timer"):
            self._balance_timer.start()
        return super().eventFilter(watched, event)

    def event(self, event: QEvent) -> bool:
        """A splitter the GM drags (the main window's own mouse events): its position is the GM's
        from then on, kept through phases, turns and the next run."""
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress:
            self._split_at_press = self._side_sizes()
        handled = super().event(event)
        if kind == QEvent.Type.MouseButtonRelease and self._split_at_press is not None:
            if self._side_sizes() != self._split_at_press:
                self._own_split = True
                self.settings.setValue(OWN_SPLIT_KEY, True)
            self._split_at_press = None
        return handled

    def _side_sizes(self) -> tuple[int, int]:
        turns = self.docks["Turns"]
        return turns.width(), turns.height()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if hasattr(self, "_balance_timer"):  # resized while being built
            self._balance_timer.start()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._balance_timer.start()  # once the docks have their first geometry

    def _drop_stray_tab_bars(self) -> None:
        """Rearranging tabbed docks leaves the old groups' tab bars on screen (a Qt 6 quirk): hide
        every tab bar and let the layout show again the ones it really uses."""
        for bar in self.findChildren(QTabBar):
            if bar.parent() is self:
                bar.hide()
        self.layout().invalidate()
        self.layout().activate()
        for bar in self.findChildren(QTabBar):
            if bar.parent() is self:
                # Whole names and scroll arrows rather than six names cut to "Acti…" on a laptop.
                bar.setElideMode(Qt.TextElideMode.ElideNone)
                bar.setUsesScrollButtons(True)

    def _restore_layout(self) -> bool:
        """The window and dock layout of the last run; False when there is none to restore."""
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        return isinstance(state, QByteArray) and self.restoreState(state, LAYOUT_VERSION)

    def _save_layout(self) -> None:
        """The window and dock layout, for the next run."""
        self.settings.setValue("window/geometry", self.saveGeometry())
        if self._hidden_docks:
            self.toggle_docks()  # saved with the docks out: the next run starts with them
        self.settings.setValue("window/state", self.saveState(LAYOUT_VERSION))
