"""The main window: the battle map in the middle, docks around it, menus, files and autosave."""

from __future__ import annotations

import itertools
import os
from dataclasses import replace
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, QStandardPaths, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QDockWidget,
    QFileDialog,
    QGraphicsScene,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSizePolicy,
    QStatusBar,
    QStyle,
    QStyleOption,
    QTabBar,
    QTabWidget,
    QUndoView,
    QWidget,
)

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import CombatStarted, TurnStarted
from lnl_desktop.core.encounter.model import Encounter, Phase
from lnl_desktop.core.engine.engine import HistoryStep
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.journal import Step
from lnl_desktop.core.rules.base import PromptSpec
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource
from lnl_desktop.ui.controller import TableController
from lnl_desktop.ui.docks.actions import ActionPanel
from lnl_desktop.ui.docks.prompts import PromptsPanel, ToolDialog, table_tools, tool_label
from lnl_desktop.ui.docks.turns import TurnsPanel
from lnl_desktop.ui.focus import FocusKeeper
from lnl_desktop.ui.folders import Folders
from lnl_desktop.ui.map.view import MapView
from lnl_desktop.ui.mime import FileDrops
from lnl_desktop.ui.recovery import FileLock, Orphan, RecoveryStore
from lnl_desktop.ui.theme import SCALES, THEMES, Presentation, outside_color
from lnl_desktop.ui.toast import Toast

if TYPE_CHECKING:
    from lnl_desktop.ui.docks.bestiary import BestiaryPanel
    from lnl_desktop.ui.docks.combatants import CombatantsPanel
    from lnl_desktop.ui.docks.forecast import ForecastPanel
    from lnl_desktop.ui.docks.log import RoundLog
    from lnl_desktop.ui.docks.sheet import CombatantSheet
    from lnl_desktop.ui.player_view import PlayerView
    from lnl_desktop.ui.ruleset_dialogs import ConvertDialog, NewEncounterDialog

# The panels behind the side panel's tabs, made when first shown: title -> (module, class).
LAZY_PANELS = {
    "Combatants": ("lnl_desktop.ui.docks.combatants", "CombatantsPanel"),
    "Sheet": ("lnl_desktop.ui.docks.sheet", "CombatantSheet"),
    "Round log": ("lnl_desktop.ui.docks.log", "RoundLog"),
    "Forecast": ("lnl_desktop.ui.docks.forecast", "ForecastPanel"),
    "Bestiary": ("lnl_desktop.ui.docks.bestiary", "BestiaryPanel"),
}
APP_TITLE = "Laurels & Loot Desktop"
MAX_RECENT = 8
# While changes go on, the whole encounter is rewritten at most this often (the journal in between).
SNAPSHOT_INTERVAL_MS = 3000
FILE_FILTER = "Encounters (*.lnl);;All files (*)"
# A dock has one name, on its tab, in the View menu and in its floating title bar. Docks renamed
# keep the object name saved layouts know them by.
SAVED_NAMES = {"Sheet": "combatant_sheet", "History": "undo_history"}
# The UI scale menu: presets named for where the program is shown.
SCALE_PRESETS = {100: "100 % (laptop)", 125: "125 %", 150: "150 % (projector)", 200: "200 % (projector, far seats)"}
# The side panel's width at 100 %: the Turns dock's columns and the Action dock's inputs fit.
SIDE_PANEL_PX = 390
# The Action dock's height at least, in lines of text, while a turn is under way (its choices, the
# verdict, the forecast and Roll) and while none is (its one line of what to do next).
ACTION_WORK_LINES = 13
ACTION_IDLE_LINES = 5
OWN_SPLIT_KEY = "window/own_split"  # the GM moved the side panel's splitters: keep them there
MESSAGE_LINES = 2  # the status bar's message: lines it may wrap onto
ASK_REMOVE_KEY = "confirm/remove_token_in_combat"
# Saved dock layouts of another shape (before the one side panel) are not restored.
LAYOUT_VERSION = 2


def default_recovery_folder() -> Path:
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(location or Path.home() / ".lnl-desktop")


class MainWindow(QMainWindow):
    def __init__(
        self,
        encounter: Encounter,
        path: Path | None = None,
        *,
        settings: QSettings | None = None,
        recovery: RecoveryStore | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings if settings is not None else QSettings()
        self.recovery = recovery if recovery is not None else RecoveryStore(default_recovery_folder())
        # This window's journal: every change is on disk before the screen shows it.
        self.window_recovery = self.recovery.open_window()
        self.journal = self.window_recovery.journal
        self._journal_failed = False
        self.controller = TableController(encounter, self)
        self.folders = Folders(self.settings, beside=lambda: self.path)  # where the file dialogs open
        self.controller.engine.subscribe_history(self._journal_step)
        self.path: Path | None = None
        self.file_lock: FileLock | None = None
        self.read_only = False  # the file is open in another window: Save writes elsewhere
        self._set_path(path)
        if path is not None:
            self._claim_file(path)
        self.journal.reset(encounter, path, unsaved=False)

        self.map_view = MapView(self.controller)
        self.setCentralWidget(self.map_view)
        self.turns_panel = TurnsPanel(self.controller)
        self.action_panel = ActionPanel(self.controller)
        self.docks: dict[str, QDockWidget] = {}
        # The tabs behind Turns and Action are built when first shown (or first asked for): the
        # first window waits only for what it shows.
        self._panels: dict[str, QWidget] = {}
        side = Qt.DockWidgetArea.RightDockWidgetArea
        self._add_dock("Turns", self.turns_panel, side, "Ctrl+1")
        self._add_dock("Combatants", None, side, "Ctrl+2")
        self._add_dock("Action", self.action_panel, side, "Ctrl+3")
        self._add_dock("Sheet", None, side, "Ctrl+4")
        self._add_dock("Round log", None, side, "Ctrl+5")
        self._add_dock("Forecast", None, side, "Ctrl+6")
        self._add_dock("Bestiary", None, side, "Ctrl+7")
        self._add_dock("History", None, side, "Ctrl+8")
        self._build_prompts()
        self._hidden_docks: list[QDockWidget] = []  # what "Map only" put away, to bring back
        self._front_docks: list[QDockWidget] = []  # and which of them were the tabs in front
        self.controller.eventsApplied.connect(self._bring_action_forward)
        # The side panel's split follows the work (the order, or the turn under way) until the GM
        # moves a splitter: from then on it stays where the GM put it.
        self._own_split = str(self.settings.value(OWN_SPLIT_KEY, "false")).lower() == "true"
        self._split_at_press: tuple[int, int] | None = None
        # Once the docks have taken in the change (a new row is laid out when the event loop turns).
        self._balance_timer = QTimer(self, singleShot=True, interval=0)
        self._balance_timer.timeout.connect(self._balance_side_panel)
        self.controller.eventsApplied.connect(lambda _events: self._balance_timer.start())
        self.controller.encounterReplaced.connect(self._balance_timer.start)
        for dock in self.docks.values():
            # Another tab brought forward (the Sheet, the Round log) may change what the order needs.
            dock.visibilityChanged.connect(lambda _shown: self._balance_timer.start())
        # A scroll bar coming or going narrows or widens the order's rows: measured again then.
        self.turns_panel.tree.viewport().installEventFilter(self)

        self.player_view: PlayerView | None = None
        self.presentation = Presentation.load(self.settings)

        self._build_status_bar()
        self._build_actions()
        self._build_player_actions()
        self._build_menus()
        self._build_toolbar()

        stack = self.controller.undo_stack
        stack.cleanChanged.connect(self._refresh_title)
        self._history_at = (stack.index(), stack.count())
        stack.indexChanged.connect(self._on_history_changed)
        self.controller.message.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.toast = Toast(self.map_view)
        self.controller.refused.connect(self.toast.say)
        # A refusal describes the state it was made in: it goes when the state changes.
        self.controller.eventsApplied.connect(lambda _events: self.toast.dismiss())
        self.controller.encounterReplaced.connect(self.toast.dismiss)
        self.controller.encounterReplaced.connect(self._refresh_title)
        self.setAcceptDrops(True)  # a Universal VTT map dropped on the window is imported
        self.file_drops = FileDrops(self)
        for drops in (self.file_drops, self.map_view.files_dropped):
            drops.wanted = _is_map_file
            drops.dropped.connect(self._import_dropped)
        self.controller.eventsApplied.connect(lambda _events: self._refresh_fog_action())
        self.controller.encounterReplaced.connect(self._refresh_fog_action)
        self._refresh_fog_action()
        self._snapshot_timer = QTimer(self, singleShot=True, interval=SNAPSHOT_INTERVAL_MS)
        self._snapshot_timer.timeout.connect(self.autosave)

        self.focus_keeper = FocusKeeper(self, self.map_view)
        self.map_view.setFocus(Qt.FocusReason.OtherFocusReason)  # Space ends a turn from the start

        self._refresh_round()
        self.resize(1400, 900)
        if not self._restore_layout():
            self._own_split = False  # a layout of the app's own: nothing of the GM's to keep
            self._arrange_default_layout()
        self._settle_prompts_dock()
        self._refresh_title()
        self._refresh_recent_menu()
        self.apply_presentation()
        QTimer.singleShot(0, self.map_view.fit_map)

    # -- construction ------------------------------------------------------------------------

    def _add_dock(self, title: str, widget: QWidget | None, area: Qt.DockWidgetArea, shortcut: str) -> None:
        """A dock in the side panel; without ``widget`` its panel is made when the dock is first shown."""
        # One name on the tab, in the View menu and on the floating dock's title bar: short, as five
        # tabs share the side panel's width.
        dock = QDockWidget(title, self)
        dock.setObjectName(SAVED_NAMES.get(title, title.replace(" ", "_").lower()))  # saveState() needs names
        if widget is not None:
            dock.setWidget(widget)
        else:
            dock.visibilityChanged.connect(lambda visible, t=title: visible and self._panel(t))
        self.addDockWidget(area, dock)
        toggle = dock.toggleViewAction()
        toggle.setText(title)
        # Docked, the tab names the dock: its title bar would only take a line of the panel's height.
        dock.topLevelChanged.connect(lambda floating, d=dock: self._title_bar_for(d, floating))
        self._title_bar_for(dock, False)
        toggle.setShortcut(QKeySequence(shortcut))
        toggle.setStatusTip(f"Show or hide the {title} dock")
        self.docks[title] = dock

    def _panel(self, title: str) -> QWidget:
        """The panel of a dock built on demand, made now if this is the first time it is needed."""
        panel = self._panels.get(title)
        if panel is None:
            panel = self._panels[title] = self._make_panel(title)
            self.docks[title].setWidget(panel)
        return panel

    def _make_panel(self, title: str) -> QWidget:
        if title == "History":
            undo_view = QUndoView(self.controller.undo_stack)
            undo_view.setEmptyLabel("Encounter opened")
            # One line per step: without this every push measures every row again (slower each round).
            undo_view.setUniformItemSizes(True)
            return undo_view
        module, name = LAZY_PANELS[title]
        panel: QWidget = getattr(import_module(module), name)(self.controller)
        if hasattr(panel, "folders"):
            panel.folders = self.folders  # "Picture…" and Export open where the last file was
        return panel

    @property
    def combatants_panel(self) -> CombatantsPanel:
        return cast("CombatantsPanel", self._panel("Combatants"))

    @property
    def sheet(self) -> CombatantSheet:
        return cast("CombatantSheet", self._panel("Sheet"))

    @property
    def round_log(self) -> RoundLog:
        return cast("RoundLog", self._panel("Round log"))

    @property
    def forecast_panel(self) -> ForecastPanel:
        return cast("ForecastPanel", self._panel("Forecast"))

    @property
    def bestiary(self) -> BestiaryPanel:
        return cast("BestiaryPanel", self._panel("Bestiary"))

    @property
    def undo_view(self) -> QUndoView:
        return cast(QUndoView, self._panel("History"))

    @staticmethod
    def _title_bar_for(dock: QDockWidget, floating: bool) -> None:
        """A floating dock gets its own title bar back (to move and close it); a docked one has its tab."""
        if floating:
            if dock.titleBarWidget() is not None:
                dock.setTitleBarWidget(None)
        elif dock.titleBarWidget() is None:
            dock.setTitleBarWidget(QWidget(dock))

    def _build_status_bar(self) -> None:
        self.setStatusBar(StatusBar(self))  # its message wraps rather than being cut off
        self.cell_label = QLabel()
        self.drag_label = QLabel()
        self.round_label = QLabel()
        self.ruleset_label = QLabel()
        for label in (self.drag_label, self.cell_label, self.round_label, self.ruleset_label):
            label.setContentsMargins(8, 0, 8, 0)
            self.statusBar().addPermanentWidget(label)
        self.map_view.cellHovered.connect(self._show_cell)
        self.map_view.dragInfo.connect(self.drag_label.setText)
        self.controller.eventsApplied.connect(lambda events: self._refresh_round())
        self.controller.encounterReplaced.connect(self._refresh_round)
        self._refresh_round()

    def _action(self, text: str, slot: object, shortcut: QKeySequence | str | None = None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut if isinstance(shortcut, QKeySequence) else QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tip)
        action.triggered.connect(slot)
        return action

    def _build_actions(self) -> None:
        key = QKeySequence.StandardKey
        self.new_action = self._action(
            "&New…", self.new_file, key.New, "Start an empty encounter: its name and its ruleset"
        )
        self.convert_action = self._action(
            "Con&vert to another ruleset…",
            self.convert_ruleset,
            None,
            "Before combat: turn this encounter into another ruleset's (undoable)",
        )
        self.open_action = self._action("&Open…", self.open_file, key.Open, "Open an encounter file (.lnl)")
        self.import_map_action = self._action(
            "&Import map…",
            self.import_map,
            "Ctrl+I",
            "A Universal VTT map (.dd2vtt, .uvtt, .df2vtt): its picture, walls and doors become this map (undoable)",
        )
        self.fog_action = self._action(
            "Fog of &war for the players",
            lambda on: self.controller.do(act.SetFog(bool(on))),
            None,
            "The player view shows only what the Party sees, and dimmer what it has seen (undoable)",
        )
        self.fog_action.setCheckable(True)
        self.save_action = self._action("&Save", self.save, key.Save, "Save the encounter")
        self.save_as_action = self._action("Save &As…", self.save_as, key.SaveAs, "Save the encounter under a new name")
        self.quit_action = self._action("&Quit", self.close, key.Quit, "Close the program")
        stack = self.controller.undo_stack
        self.undo_action = stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(key.Undo)
        self.redo_action = stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.undo_action.setStatusTip("Undo the last change")
        self.redo_action.setStatusTip("Redo the change just undone")
        # The menu says what will be undone; the toolbar keeps a steady short label.
        self.undo_action.setIconText("Undo")
        self.redo_action.setIconText("Redo")

        self.tool_group = QActionGroup(self)
        self.tool_actions: dict[str, QAction] = {}
        for name, text, shortcut, tip in (
            ("select", "&Select and move", "V", "Select tokens and drag them to move (Shift-drag: forced move)"),
            ("walls", "Paint &walls", "W", "Drag to paint walls (right-drag erases)"),
            ("difficult", "Paint &difficult terrain", "T", "Drag to paint difficult terrain (right-drag erases)"),
            ("erase", "&Erase terrain", "X", "Drag to erase walls and difficult terrain"),
            (
                "wall_lines",
                "Draw wall &lines",
                "L",
                "Drag between cell corners to draw a wall line (right-click: remove)",
            ),
            ("doors", "Draw d&oors", "O", "Drag between cell corners to draw a door; click a door to open or close it"),
            ("erase_lines", "Erase wall lines and doors", "Shift+L", "Click a wall line or door to remove it"),
            ("fog", "Reveal or hide &fog", "F", "Drag over cells to show them to the players (right-drag: hide)"),
        ):
            action = self._action(text, lambda _=False, n=name: self.map_view.set_tool(n), shortcut, tip)
            action.setCheckable(True)
            self.tool_group.addAction(action)
            self.tool_actions[name] = action
        self.tool_actions["select"].setChecked(True)
        self.map_view.toolChanged.connect(lambda name: self.tool_actions[name].setChecked(True))

        self.zoom_in_action = self._action("Zoom &in", self.map_view.zoom_in, key.ZoomIn, "Zoom in")
        self.zoom_in_action.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self.zoom_out_action = self._action("Zoom &out", self.map_view.zoom_out, key.ZoomOut, "Zoom out")
        self.zoom_reset_action = self._action("&Actual size", self.map_view.zoom_reset, "Ctrl+0", "Zoom to 100%")
        self.fit_action = self._action("&Fit map to window", self.map_view.fit_map, "Ctrl+F", "Show the whole map")
        self.turn_left_action = self._action(
            "Turn token &left", lambda: self.map_view.turn_selected(-45), "[", "Turn the selected token 45° left"
        )
        self.turn_right_action = self._action(
            "Turn token &right", lambda: self.map_view.turn_selected(45), "]", "Turn the selected token 45° right"
        )
        self.remove_token_action = self._action(
            "&Remove token from map", self.remove_token, key.Delete, "Take the selected token off the map"
        )
        self.map_settings_action = self._action(
            "Map &settings…", self.edit_map_settings, None, "Map size, feet per cell, diagonal rule"
        )
        self.background_action = self._action(
            "&Background image…", self.edit_background, None, "Put a battle-map picture under the grid"
        )
        self.remove_background_action = self._action(
            "Remove background image", self.remove_background, None, "Take the picture away"
        )
        self.full_screen_action = self._action(
            "&Full screen", self.toggle_full_screen, key.FullScreen, "Full screen (F11)"
        )
        self.full_screen_action.setShortcuts([QKeySequence("F11")])
        self.full_screen_action.setCheckable(True)
        self.map_only_action = self._action(
            "&Map only (hide the docks)",
            self.toggle_docks,
            "Tab",
            "Hide every dock so the map fills the window; Tab on the map brings them back",
        )
        self.map_only_action.setCheckable(True)
        # Tab moves the focus in the docks' forms: it hides the docks only while the map has the focus.
        self.map_only_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.map_view.addAction(self.map_only_action)
        self.reset_layout_action = self._action(
            "Reset &layout", self.reset_layout, None, "Put every dock back where it started"
        )
        self.about_action = self._action("&About Laurels && Loot Desktop", self._show_about)
        self.start_combat_action = self._action(
            "&Start combat…", self.turns_panel.start_combat, "Ctrl+Return", "Pick the situation and roll round 1"
        )
        self.next_round_action = self._action(
            "&Next round",
            lambda: self.next_round(),
            "Ctrl+R",
            "Begin the next round: the app rolls initiative, or reads the faces typed in the Turns dock",
        )
        self.end_combat_action = self._action(
            "&End combat…", lambda: self.turns_panel.end_combat(), None, "End the fight"
        )
        self.forecast_action = self._action(
            "Damage &forecast", self.show_forecast, "Ctrl+D", "Show the damage forecast of the attack being set up"
        )
        self.damage_heal_action = self._action(
            "&Damage / Heal…",
            lambda: self.sheet.open_damage_heal(self.controller.selected),
            "Ctrl+Shift+D",
            "Damage or healing by hand for the selected combatant (a trap, a potion), with a reason",
        )
        self.rules_options_action = self._action(
            "Rules &options…",
            self.edit_rules_options,
            None,
            "The encounter's rules switches: the ruleset's choices, an attacker turning to face its target (undoable)",
        )
        self.export_log_action = self._action(
            "&Export round log…",
            lambda: self.round_log.export(),
            "Ctrl+E",
            "Save the round log as Markdown, HTML or CSV",
        )
        self.addAction(self.turns_panel.end_turn_action)  # Space works wherever the focus is in the window
        self._combat_steps = {
            "start": (self.start_combat_action, self.start_combat_action.statusTip()),
            "next_round": (self.next_round_action, self.next_round_action.statusTip()),
            "end_combat": (self.end_combat_action, self.end_combat_action.statusTip()),
        }
        self.turns_panel.availabilityChanged.connect(self._refresh_combat_steps)
        self._refresh_combat_steps()

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([self.new_action, self.open_action])
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.demo_menu = file_menu.addMenu("Open &demo")
        # Filled when first opened: listing the demos loads every ruleset, which the start need not wait for.
        self.demo_menu.aboutToShow.connect(self._fill_demo_menu)
        file_menu.addAction(self.import_map_action)
        file_menu.addAction(self.convert_action)
        file_menu.addSeparator()
        file_menu.addActions([self.save_action, self.save_as_action])
        file_menu.addSeparator()
        file_menu.addAction(self.export_log_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)

        edit_menu = bar.addMenu("&Edit")
        edit_menu.addActions([self.undo_action, self.redo_action])
        edit_menu.addSeparator()
        edit_menu.addActions([self.turn_left_action, self.turn_right_action, self.remove_token_action])

        map_menu = bar.addMenu("&Map")
        map_menu.addActions(self.tool_group.actions())
        map_menu.addSeparator()
        map_menu.addActions([self.zoom_in_action, self.zoom_out_action, self.zoom_reset_action, self.fit_action])
        map_menu.addSeparator()
        map_menu.addActions([self.map_settings_action, self.background_action, self.remove_background_action])
        map_menu.addSeparator()
        map_menu.addActions([self.fog_action, self.hide_token_action])

        combat_menu = bar.addMenu("&Combat")
        combat_menu.setToolTipsVisible(True)  # a disabled step says why
        combat_menu.addActions(
            [self.start_combat_action, self.turns_panel.end_turn_action, self.next_round_action, self.end_combat_action]
        )
        combat_menu.addSeparator()
        combat_menu.addAction(self.damage_heal_action)
        combat_menu.addAction(self.rules_options_action)
        combat_menu.addAction(self.forecast_action)
        combat_menu.addAction(self.prompts_action)
        self._build_tool_entries(combat_menu)

        view_menu = bar.addMenu("&View")
        for dock in self.docks.values():
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addSeparator()
        view_menu.addActions([self.map_only_action, self.full_screen_action, self.reset_layout_action])
        view_menu.addSeparator()
        view_menu.addAction(self.player_view_action)
        player_menu = view_menu.addMenu("Pla&yer view options")
        player_menu.addActions(
            [
                self.player_full_screen_action,
                self.follow_gm_action,
                self.share_overlays_action,
                self.blackout_action,
                self.badly_hurt_action,
            ]
        )
        view_menu.addAction(self.hide_token_action)
        theme_menu = view_menu.addMenu("&Theme")
        theme_menu.addActions(self.theme_group.actions())
        scale_menu = view_menu.addMenu("UI &scale")
        scale_menu.addActions(self.scale_group.actions())

        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.about_action)

    def _build_toolbar(self) -> None:
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main_toolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        toolbar.addActions([self.open_action, self.save_action])
        toolbar.addSeparator()
        toolbar.addActions([self.undo_action, self.redo_action])
        toolbar.addSeparator()
        for name, text in (
            ("select", "Select"),
            ("walls", "Walls"),
            ("wall_lines", "Lines"),
            ("doors", "Doors"),
            ("difficult", "Difficult"),
            ("erase", "Erase"),
            ("fog", "Fog"),
        ):
            button_action = self.tool_actions[name]
            button_action.setIconText(text)
            toolbar.addAction(button_action)
        toolbar.addSeparator()
        self.fit_action.setIconText("Fit")
        toolbar.addActions([self.fit_action])
        toolbar.addSeparator()
        self.start_combat_action.setIconText("Start combat")
        self.turns_panel.end_turn_action.setIconText("End turn")
        toolbar.addActions([self.start_combat_action, self.turns_panel.end_turn_action])

    def _build_player_actions(self) -> None:
        def toggle(text: str, slot: object, shortcut: str | None, tip: str) -> QAction:
            action = self._action(text, slot, shortcut, tip)
            action.setCheckable(True)
            return action

        self.player_view_action = toggle(
            "&Player view", self.show_player_view, "F10", "A second window for the players: put it on any screen"
        )
        self.player_full_screen_action = toggle(
            "Player view &full screen", self._player_full_screen, "Shift+F10", "The player view fills its screen"
        )
        self.follow_gm_action = toggle(
            "&Follow the GM's view", self._follow_gm, None, "The player view shows what the GM's map shows"
        )
        self.share_overlays_action = toggle(
            "&Share overlays", self._share_overlays, None, "Show the GM's movement areas and range rings to the players"
        )
        self.blackout_action = toggle("&Blackout", self._blackout, "Ctrl+B", "Blank the player view (a scene change)")
        self.badly_hurt_action = self._action(
            '"&Badly hurt" below…', self.ask_badly_hurt, None, "When the players read an Opponent as badly hurt"
        )
        self.hide_token_action = self._action(
            "&Hide/reveal selected token from players",
            self.toggle_selected_hidden,
            "Ctrl+H",
            "Hide the selected token from the player view, or show it again",
        )
        self.theme_group = QActionGroup(self)
        for name in THEMES:
            label = {"system": "&System", "light": "&Light, high contrast", "dark": "&Dark, high contrast"}[name]
            action = self._action(label, lambda _=False, n=name: self.set_presentation(theme=n))
            action.setCheckable(True)
            action.setChecked(name == self.presentation.theme)
            action.setData(name)
            self.theme_group.addAction(action)
        self.scale_group = QActionGroup(self)
        for percent in SCALES:
            action = self._action(
                SCALE_PRESETS.get(percent, f"{percent} %"),
                lambda _=False, n=percent: self.set_presentation(scale=n),
                None,
                f"Text, tokens and labels at {percent} %; the window still fits a 768-pixel-high screen",
            )
            action.setCheckable(True)
            action.setChecked(percent == self.presentation.scale)
            self.scale_group.addAction(action)
        # The player window's keys work while it has the focus too.
        self._player_keys = [
            self.player_view_action,
            self.player_full_screen_action,
            self.blackout_action,
            self.hide_token_action,
            self.turns_panel.end_turn_action,
        ]

    # -- player view and presentation -------------------------------------------------------

    def ensure_player_view(self) -> PlayerView:
        from lnl_desktop.ui.player_view import PlayerView

        if self.player_view is None:
            view = PlayerView(self.controller, self.map_view, self)
            view.addActions(self._player_keys)
            view.closed.connect(lambda: self.player_view_action.setChecked(False))
            view.view.set_follow(self.follow_gm_action.isChecked())
            view.view.set_share_overlays(self.share_overlays_action.isChecked())
            view.set_blackout(self.blackout_action.isChecked())
            self.player_view = view
            self._apply_presentation_to_player()
        return self.player_view

    def show_player_view(self, on: bool = True) -> None:
        if on:
            view = self.ensure_player_view()
            view.show()
            view.raise_()
        elif self.player_view is not None:
            self.player_view.hide()
        self.player_view_action.setChecked(on)

    def _player_full_screen(self, on: bool) -> None:
        self.show_player_view(True)
        self.ensure_player_view().set_full_screen(on)

    def _follow_gm(self, on: bool) -> None:
        if self.player_view is not None:
            self.player_view.view.set_follow(on)

    def _share_overlays(self, on: bool) -> None:
        if self.player_view is not None:
            self.player_view.view.set_share_overlays(on)

    def _blackout(self, on: bool) -> None:
        if self.player_view is not None:
            self.player_view.set_blackout(on)
        self.statusBar().showMessage("Player view blacked out" if on else "Player view back", 5000)

    def toggle_selected_hidden(self) -> None:
        cid = self.controller.selected
        token = self.controller.encounter.tokens.get(cid) if cid else None
        if cid is None or token is None:
            self.controller.message.emit("Select a token on the map to hide or reveal it")
            return
        self.controller.do(act.SetHidden(cid, not token.hidden))

    def ask_badly_hurt(self) -> None:
        """How hurt an Opponent must be before the players read "badly hurt" instead of "wounded"."""
        current = round(self.presentation.badly_hurt_below * 100)
        percent, ok = QInputDialog.getInt(
            self,
            "Condition words for the players",
            'An Opponent reads "badly hurt" below this share of its SP + IP (any damage reads "wounded"):',
            current,
            5,
            95,
            5,
        )
        if ok:
            self.set_presentation(badly_hurt_below=percent / 100)

    def set_presentation(self, **changes: object) -> None:
        self.presentation = replace(self.presentation, **changes)
        self.presentation.save(self.settings)
        self.apply_presentation()

    def apply_presentation(self) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            self.presentation.apply(app)
        self.map_view.set_ui_scale(self.presentation.scale / 100)
        if getattr(self, "_side_scale", self.presentation.scale) != self.presentation.scale:
            self._size_side_panel()
        scene = self.map_view.map_scene
        scene.outside_color = outside_color(self.presentation.theme)
        scene.badly_hurt_below = self.presentation.badly_hurt_below
        scene.invalidate(scene.sceneRect(), QGraphicsScene.SceneLayer.BackgroundLayer)
        self._apply_presentation_to_player()

    def _apply_presentation_to_player(self) -> None:
        if self.player_view is None:
            return
        self.player_view.set_scale(self.presentation.scale)
        self.player_view.set_outside_color(outside_color(self.presentation.theme))
        self.player_view.set_badly_hurt_below(self.presentation.badly_hurt_below)

    # -- status and title --------------------------------------------------------------------

    def _refresh_combat_steps(self) -> None:
        """Start combat, Next round and End combat are enabled only when they can be taken; when
        not, their tooltip and status tip say why (before the GM tries, not after)."""
        why_not = self.turns_panel.availability()
        for key, (action, tip) in self._combat_steps.items():
            reason = why_not.get(key, "")
            action.setEnabled(not reason)
            action.setToolTip(reason or tip)
            action.setStatusTip(reason or tip)

    def _show_cell(self, x: int, y: int) -> None:
        if x < 0:
            self.cell_label.setText("")
            return
        feet = self.controller.encounter.map.feet_per_cell
        self.cell_label.setText(f"Cell ({x}, {y}) · {x * feet} ft, {y * feet} ft")

    def _refresh_round(self) -> None:
        combat = self.controller.encounter.combat
        convert = getattr(self, "convert_action", None)  # the status bar comes before the menus
        if convert is not None:
            convert.setEnabled(combat.phase is Phase.SETUP)
        if combat.phase is Phase.SETUP:
            self.round_label.setText("Setting up")
            return
        turn = combat.turn
        who = f" · {self.controller.encounter.combatant(turn.combatant).name}'s turn" if turn else ""
        self.round_label.setText(f"{combat.round_name} · {self.controller.engine.elapsed_seconds} s{who}")

    def _refresh_title(self) -> None:
        name = self.controller.encounter.name
        where = self.path.name if self.path else "unsaved"
        if self.read_only:
            where += " (read-only: open in another window)"
        ruleset = self.controller.engine.ruleset.title
        self.setWindowTitle(f"{name} — {where}[*] — {ruleset} — {APP_TITLE}")
        self.setWindowModified(not self.controller.undo_stack.isClean())
        self.ruleset_label.setText(ruleset)
        self.ruleset_label.setToolTip(f"This encounter follows {ruleset}: {self.controller.engine.ruleset.about}")

    def _on_history_changed(self) -> None:
        self._say_undo_or_redo()
        self._refresh_title()
        if self.controller.undo_stack.isClean():
            # Back at the saved state (undo): the file holds it, nothing to recover.
            self._snapshot_timer.stop()
            self._reset_journal(unsaved=False)
        elif not self._snapshot_timer.isActive():
            # Not restarted by each change: a GM who never pauses still gets a fresh copy.
            self._snapshot_timer.start()

    def _say_undo_or_redo(self) -> None:
        """After Undo or Redo the status bar says what changed, not the result that was undone."""
        stack = self.controller.undo_stack
        index, count = stack.index(), stack.count()
        before, before_count = self._history_at
        self._history_at = (index, count)
        if self.controller.pushing or count != before_count:
            return  # a new step: the controller has said its result
        if index < before:
            undone = [stack.text(i) for i in range(index, before)]
            self.statusBar().showMessage(f"Undone: {'; '.join(reversed(undone))}", 10000)
        elif index > before:
            redone = [stack.text(i) for i in range(before, index)]
            self.statusBar().showMessage(f"Redone: {'; '.join(redone)}", 10000)

    def _journal_step(self, step: HistoryStep) -> None:
        """The engine changed the encounter: write it down before any view hears of it."""
        try:
            self.journal.record(step, self.controller.encounter)
        except OSError as error:
            self._journal_error(error)
        else:
            self._journal_failed = False

    def _reset_journal(self, *, unsaved: bool, checkpoint: bool = False) -> None:
        try:
            self.journal.reset(self.controller.encounter, self.path, unsaved=unsaved, checkpoint=checkpoint)
        except OSError as error:
            self._journal_error(error)

    def _journal_error(self, error: OSError) -> None:
        # Said once per failure streak: the GM should save, the table must not stop.
        if not self._journal_failed:
            self._journal_failed = True
            QMessageBox.warning(
                self,
                "Recovery copy not written",
                f"The recovery copy of this encounter could not be written ({error.strerror or error}). "
                "Work goes on, but save it now: a crash would lose the changes since the last save.",
            )

    # -- files -------------------------------------------------------------------------------

    def _set_path(self, path: Path | None) -> None:
        self.path = path
        self.controller.base_dir = path.parent if path else None

    def is_dirty(self) -> bool:
        return not self.controller.undo_stack.isClean()

    def confirm_discard(self) -> bool:
        """Ask before unsaved work would be lost. True: go on (saved or discarded)."""
        if not self.is_dirty():
            return True
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            f"Save the changes to {self.path.name if self.path else self.controller.encounter.name}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_file(self) -> NewEncounterDialog | None:
        """Ask for the new encounter's name and ruleset (window-modal); it replaces this one when accepted."""
        from lnl_desktop.ui.ruleset_dialogs import NewEncounterDialog

        if not self.confirm_discard():
            return None
        dialog = NewEncounterDialog(self.controller.engine.ruleset.name, self)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)

        def create() -> None:
            encounter = dialog.encounter()
            if encounter is not None:
                self._replace(encounter, None)
                self.statusBar().showMessage(f"New {self.controller.engine.ruleset.title} encounter", 5000)

        dialog.accepted.connect(create)
        dialog.finished.connect(dialog.deleteLater)
        self.new_dialog = dialog
        dialog.open()
        return dialog

    def _show_about(self) -> None:
        from lnl_desktop.ui.about import show_about

        show_about(self, self.controller.engine.ruleset)

    def _fill_demo_menu(self) -> None:
        """One entry per ruleset with a demo: the built-in ones, then the installed ones."""
        if self.demo_menu.actions():
            return
        from lnl_desktop.core.rules.registry import all_rulesets

        for ruleset in all_rulesets().values():
            if ruleset.demo() is None:
                continue
            self.demo_menu.addAction(
                self._action(
                    f"{ruleset.title} demo".replace("&", "&&"),  # a lone & would underline the next letter
                    lambda _=False, n=ruleset.name: self.open_demo(n),
                    None,
                    f"Open the built-in {ruleset.title} demo encounter as an unsaved copy",
                )
            )

    def open_demo(self, ruleset: str) -> bool:
        """A ruleset's built-in demo encounter, as an unsaved copy (the program's own file stays as it is)."""
        if not self.confirm_discard():
            return False
        name = get_ruleset(ruleset).demo()
        if name is None:
            return False
        # A built-in ruleset names its demo among the program's resources; an installed one gives a path.
        path = Path(name) if Path(name).is_absolute() else resource("encounters", name)
        try:
            encounter = storage.load(path)
        except RulesError as error:
            QMessageBox.warning(self, "Cannot open the demo", str(error))
            return False
        self._replace(encounter, None)
        self.statusBar().showMessage(f"Opened the {get_ruleset(ruleset).title} demo (an unsaved copy)", 5000)
        return True

    def convert_ruleset(self) -> ConvertDialog | None:
        """Ask which ruleset to convert to, showing what will be dropped; the conversion is one undo step."""
        from lnl_desktop.ui.ruleset_dialogs import ConvertDialog

        if self.controller.encounter.combat.phase is not Phase.SETUP:
            self.statusBar().showMessage("Convert: only an encounter before combat can change its ruleset", 10000)
            return None
        dialog = ConvertDialog(self.controller.encounter, self)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)

        def convert() -> None:
            target = dialog.target()
            if target is not None and self.controller.do(act.ConvertRuleset(target.name)) is None:
                QMessageBox.warning(self, "Not converted", self.controller.refusal or "refused")

        dialog.accepted.connect(convert)
        dialog.finished.connect(dialog.deleteLater)
        self.convert_dialog = dialog
        dialog.open()
        return dialog

    def open_file(self) -> None:
        if not self.confirm_discard():
            return
        name, _ = QFileDialog.getOpenFileName(self, "Open encounter", self.folders.start(), FILE_FILTER)
        if name:
            self.folders.remember(Path(name))
            self.load(Path(name))

    def load(self, path: Path) -> bool:
        """Open an encounter file; a bad file opens nothing and the current encounter stays.

        A file open in another window is offered read-only (or not opened at all)."""
        try:
            encounter = storage.load(path)
        except RulesError as error:
            QMessageBox.warning(self, "Cannot open encounter", str(error))
            self.statusBar().showMessage(f"Not opened: {str(error).splitlines()[0]}", 10000)
            return False
        lock = self.recovery.file_lock(path)
        if not self._holds_lock_for(path) and lock.in_use() and not ask_read_only(self, path, lock.holder()):
            self.statusBar().showMessage(f"Not opened: {path.name} is open in another window", 10000)
            return False
        self._replace(encounter, path)
        self._remember_recent(path)
        self.statusBar().showMessage(f"Opened {path.name}{' read-only' if self.read_only else ''}", 5000)
        return True

    def _replace(self, encounter: Encounter, path: Path | None) -> None:
        if path is None or not self._holds_lock_for(path):
            self._release_file()
            if path is not None:
                self._claim_file(path)
        self._set_path(path)
        self.controller.replace_encounter(encounter)
        # Just opened is just saved: an empty stack's clear() would keep an earlier "never clean".
        self.controller.undo_stack.setClean()
        self._snapshot_timer.stop()
        self._reset_journal(unsaved=False)
        self._refresh_title()
        self.map_view.fit_map()

    def adopt(self, orphan: Orphan) -> None:
        """Take over the work of a window that did not close cleanly: it becomes this window's
        unsaved work (in this window's journal), with its undo history, and the old folder goes
        (or is kept, when a part of it could not be read)."""
        found = orphan.found
        if found.encounter is None:
            return  # nothing could be rebuilt: nothing to take over
        path = found.original if found.original is not None and found.original.exists() else None
        start = found.start if found.start is not None else found.encounter
        self._replace(start, path)
        # Each step again through the undo stack (and so into this window's journal): Undo works.
        replayed = found.start is not None and self._replay_steps(found.steps)
        if not replayed or self.controller.encounter.model_dump() != found.encounter.model_dump():
            self._replace(found.encounter, path)  # the work as it was read, without its history
        self.controller.undo_stack.resetClean()  # recovered work is unsaved work
        if not self.window_recovery.exists():
            self._reset_journal(unsaved=True)
        kept = orphan.discard()
        self._refresh_title()
        note = f" ({found.problem})" if found.problem else ""
        note += f"; the recovery folder is kept in {kept}" if kept else ""
        self.statusBar().showMessage(f"Recovered the unsaved work on {found.summary}{note}", 15000)

    def _replay_steps(self, steps: list[Step]) -> bool:
        """Recovered steps, applied, undone and redone through the undo stack as the GM did them."""
        stack = self.controller.undo_stack
        for step in steps:
            if step.kind == "undo":
                if not stack.canUndo():
                    return False
                stack.undo()
            elif step.kind == "redo" and stack.canRedo():
                stack.redo()  # the very same faces: the engine keeps them with the undone action
            elif step.kind == "state" and step.encounter is not None:
                self.controller.replace_encounter(step.encounter)  # an undo past the last save
                self._reset_journal(unsaved=True)
            elif step.action is None or self.controller.do(step.action, ScriptedDice(list(step.faces))) is None:
                return False
        return True

    def _holds_lock_for(self, path: Path) -> bool:
        return self.file_lock is not None and not self.read_only and same_file(self.file_lock.path, path)

    def _claim_file(self, path: Path) -> bool:
        """Lock ``path`` for this window; when another window has it, this one only reads it."""
        lock = self.recovery.file_lock(path)
        self.read_only = not lock.acquire()
        self.file_lock = None if self.read_only else lock
        return not self.read_only

    def _release_file(self) -> None:
        if self.file_lock is not None:
            self.file_lock.release()
        self.file_lock = None
        self.read_only = False

    def save(self) -> bool:
        if self.path is None or self.read_only:
            return self.save_as()
        return self.save_to(self.path)

    def save_as(self) -> bool:
        start = str(self.path) if self.path else self.folders.start(f"{self.controller.encounter.name}.lnl")
        name, _ = QFileDialog.getSaveFileName(self, "Save encounter", start, FILE_FILTER)
        if not name:
            return False
        path = Path(name)
        self.folders.remember(path)
        if path.suffix != storage.SUFFIX:
            path = path.with_suffix(storage.SUFFIX)
        return self.save_to(path)

    def save_to(self, path: Path) -> bool:
        """Save to ``path``, which this window then holds; refused while another window has it open."""
        lock = None
        if not self._holds_lock_for(path):
            lock = self.recovery.file_lock(path)
            if not lock.acquire():
                QMessageBox.warning(
                    self,
                    "Cannot save",
                    f"{path.name} is open in {lock.holder()}: saving here would overwrite that window's "
                    "work. Save under another name, or close it there first.",
                )
                return False
        try:
            storage.save(self.controller.encounter, path)
        except OSError as error:
            if lock is not None:
                lock.release()
            QMessageBox.warning(self, "Cannot save", f"{path.name} could not be written: {error.strerror or error}")
            return False
        if lock is not None:
            self._release_file()
            self.file_lock = lock
        self._set_path(path)
        self.controller.undo_stack.setClean()
        self._snapshot_timer.stop()
        self._reset_journal(unsaved=False)
        self._remember_recent(path)
        self._refresh_title()
        self.statusBar().showMessage(f"Saved {path.name}", 5000)
        return True

    def autosave(self) -> None:
        """Rewrite the whole encounter as the recovery base (the journal keeps the steps between)."""
        if self.is_dirty():
            self._reset_journal(unsaved=True, checkpoint=True)  # the journals before it keep the Undo history

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value or []]

    def _remember_recent(self, path: Path) -> None:
        entry = str(path.resolve())
        recent = [entry] + [p for p in self.recent_files() if p != entry]
        self.settings.setValue("recent_files", recent[:MAX_RECENT])
        self._refresh_recent_menu()

    def _refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_files()
        for number, name in enumerate(recent, 1):
            action = self.recent_menu.addAction(f"&{number} {Path(name).name}")
            action.setStatusTip(name)
            action.triggered.connect(lambda _=False, n=name: self._open_recent(Path(n)))
        if recent:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear list", self._clear_recent)
        self.recent_menu.setEnabled(bool(recent))

    def _open_recent(self, path: Path) -> None:
        if self.confirm_discard():
            self.load(path)

    def _clear_recent(self) -> None:
        self.settings.setValue("recent_files", [])
        self._refresh_recent_menu()

    # -- map ---------------------------------------------------------------------------------

    def edit_map_settings(self) -> None:
        from lnl_desktop.ui.dialogs import MapSettingsDialog

        dialog = MapSettingsDialog(self.controller.encounter.map, self)
        if dialog.exec() and dialog.changes():
            self.controller.do(act.EditMap(dialog.changes()))

    def edit_background(self) -> None:
        from lnl_desktop.ui.dialogs import BackgroundDialog

        dialog = BackgroundDialog(
            self.controller.encounter.map.background, self.controller.base_dir, self, folders=self.folders
        )
        if dialog.exec():
            self.controller.do(act.EditMap({"background": dialog.background()}))

    def remove_background(self) -> None:
        if self.controller.encounter.map.background is None:
            self.statusBar().showMessage("The map has no background image", 5000)
            return
        self.controller.do(act.EditMap({"background": None}))

    def remove_token(self) -> bool:
        """Delete: the selected token off the map. During a fight one key press must not lose a
        combatant's place by accident: asked once, with "don't ask again"."""
        cid = self.controller.selected
        token = self.controller.encounter.tokens.get(cid) if cid else None
        fighting = self.controller.encounter.combat.phase is not Phase.SETUP
        ask = self.settings.value(ASK_REMOVE_KEY, True) not in (False, "false")
        if cid is not None and token is not None and fighting and ask and not self._confirm_remove(cid):
            return False
        return self.map_view.remove_selected() is not None

    def _confirm_remove(self, cid: str) -> bool:
        name = self.controller.encounter.combatant(cid).name
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Remove the token?")
        box.setText(f"Take {name}'s token off the map in the middle of the fight?")
        box.setInformativeText(f"{name} stays in the fight, off the map. Undo (Ctrl+Z) puts the token back.")
        remove = box.addButton("Remove token", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        never = QCheckBox("Don't ask again")
        box.setCheckBox(never)
        self.remove_box = box  # for tests: the box while it is open
        box.exec()
        self.remove_box = None
        if box.clickedButton() is not remove:
            return False
        if never.isChecked():
            self.settings.setValue(ASK_REMOVE_KEY, False)
        return True

    def import_map(self) -> bool:
        """File ▸ Import map…: a Universal VTT file replaces the map in one undoable step."""
        from lnl_desktop.ui.import_map import import_map_dialog

        return import_map_dialog(self, self.controller, self.folders)

    def _refresh_fog_action(self) -> None:
        self.fog_action.setChecked(self.controller.encounter.fog.enabled)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """A map maker's file dragged onto the window (the map view takes it too, beside tokens)."""
        if self.file_drops.accepts(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        if self.file_drops.accepts(event.mimeData()):
            event.acceptProposedAction()
            self.file_drops.take(event.mimeData())
        else:
            event.ignore()

    def _import_dropped(self, path: Path) -> None:
        self.folders.remember(path)
        from lnl_desktop.ui.import_map import import_map_file

        import_map_file(self, self.controller, path)

    def edit_rules_options(self) -> None:
        """The encounter's rules options; what the GM changed is applied as one undoable step."""
        from lnl_desktop.ui.options_dialog import RulesOptionsDialog

        def apply(changes: dict[str, object]) -> str | None:
            done = self.controller.do(act.EditOptions(changes)) is not None
            return None if done else self.controller.refusal or "the rules refused the change"

        options, title = self.controller.encounter.options, self.controller.engine.ruleset.title
        dialog = RulesOptionsDialog(options, title, self, apply=apply)
        self.rules_options_dialog = dialog  # for tests: the dialog while it is open
        try:
            dialog.exec()
        finally:
            self.rules_options_dialog = None

    def show_forecast(self) -> None:
        """Ctrl+D: the Forecast tab forward. Only on the GM's word: it never takes the Round log's
        place by itself."""
        dock = self.docks["Forecast"]
        dock.show()
        dock.raise_()

    def _bring_action_forward(self, events: list[object]) -> None:
        """A turn began: the Action tab comes forward, it is what the GM works in now. The combat
        began: the Turns tab does (the Bestiary or the Combatants may be in front from setting up)."""
        combat = self.controller.encounter.combat
        if any(isinstance(e, CombatStarted) for e in events) and combat.phase is Phase.FIGHTING:
            dock = self.docks["Turns"]
            if dock.toggleViewAction().isChecked() and not self.docks["Rules call for"].isVisible():
                dock.raise_()
        if any(isinstance(e, TurnStarted) for e in events) and combat.turn is not None:
            dock = self.docks["Action"]
            if dock.toggleViewAction().isChecked():  # open, if perhaps behind another tab
                dock.raise_()

    def next_round(self) -> bool:
        """Ctrl+R: the Turns dock's own Next round, so the faces typed in its box are read (checked
        first) and the box is cleared after; a refusal is said in the dock and the status bar."""
        done = self.turns_panel.roll_next_round()
        if not done and self.turns_panel.message:
            self.statusBar().showMessage(self.turns_panel.message, 10000)
        return done

    # -- rolls on the GM's demand -------------------------------------------------------------

    def _build_tool_entries(self, menu: QMenu) -> None:
        """The ruleset's rolls on demand (Old-School d20: a morale check per side) at the end of the
        Combat menu, listed afresh each time it opens (who checks morale changes); none when the
        ruleset offers none."""
        self.combat_menu = menu
        self.tool_entries: list[QAction] = []
        self.tool_dialog: ToolDialog | None = None
        menu.aboutToShow.connect(self.refresh_tool_entries)
        self.refresh_tool_entries()

    def refresh_tool_entries(self) -> None:
        for entry in self.tool_entries:
            self.combat_menu.removeAction(entry)
            entry.deleteLater()
        self.tool_entries = []
        specs = table_tools(self.controller)
        if specs:
            self.tool_entries.append(self.combat_menu.addSeparator())
        for spec in specs:
            tip = f"{spec.text}: {spec.choices[0].tip}" if spec.choices and spec.choices[0].tip else spec.text
            entry = self._action(
                tool_label(spec).replace("&", "&&"), lambda _=False, s=spec: self.open_tool(s), None, tip
            )
            self.combat_menu.addAction(entry)
            self.tool_entries.append(entry)

    def open_tool(self, spec: PromptSpec) -> ToolDialog:
        """Open a roll on demand in its dialog (one at a time), over the window without blocking it."""
        if self.tool_dialog is not None:
            self.tool_dialog.close()
        dialog = ToolDialog(self.controller, spec, self)
        dialog.finished.connect(lambda _=0, d=dialog: self._tool_closed(d))
        self.tool_dialog = dialog
        dialog.ask()
        return dialog

    def _tool_closed(self, dialog: ToolDialog) -> None:
        if self.tool_dialog is dialog:
            self.tool_dialog = None
        dialog.deleteLater()

    # -- what the rules call for ---------------------------------------------------------------

    def _build_prompts(self) -> None:
        """The "Rules call for" dock: the queue of counter-attacks, death saves and morale checks
        the ruleset asks for. It comes out by itself when an item is queued (an urgent one is also
        asked at once in a dialog) and goes again when it came out by itself and the queue empties.
        It is a tab of the Turns dock: at 1366 x 768 the left column has no height to spare."""
        self.prompts_panel = PromptsPanel(self.controller)
        self._add_dock("Rules call for", self.prompts_panel, Qt.DockWidgetArea.RightDockWidgetArea, "Ctrl+9")
        self.tabifyDockWidget(self.docks["Turns"], self.docks["Rules call for"])  # where a saved layout lacks it
        self._prompts_shown_by_itself = False
        self.prompts_action = self._action(
            "&Rules call for…",
            self.show_prompts,
            None,
            "Show what the rules call for now: counter-attacks, death saves, morale checks",
        )
        self.prompts_panel.queued.connect(self._prompts_queued)
        self.prompts_panel.countChanged.connect(self._prompts_counted)
        self.controller.encounterReplaced.connect(self._settle_prompts_dock)

    def show_prompts(self) -> None:
        """Bring the "Rules call for" dock out (the GM asked: it stays until closed)."""
        self._prompts_shown_by_itself = False
        dock = self.docks["Rules call for"]
        dock.show()
        dock.raise_()

    def _prompts_queued(self, indices: list[int]) -> None:
        dock = self.docks["Rules call for"]
        if not dock.isVisible():
            self._prompts_shown_by_itself = True
            dock.show()
        dock.raise_()

    def _prompts_counted(self, count: int) -> None:
        if count == 0 and self._prompts_shown_by_itself:
            self._prompts_shown_by_itself = False
            self.docks["Rules call for"].hide()
            if self.docks["Turns"].toggleViewAction().isChecked():
                self.docks["Turns"].raise_()  # its tab neighbour: the fight's order comes back

    def _place_prompts_dock(self) -> None:
        """The default place: a tab of the Turns dock, the Turns on top until something waits."""
        dock = self.docks["Rules call for"]
        dock.setFloating(False)
        self.removeDockWidget(dock)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        self.tabifyDockWidget(self.docks["Turns"], dock)
        self._settle_prompts_dock()
        if dock.isVisible():
            dock.raise_()
        else:
            self.docks["Turns"].raise_()

    def _settle_prompts_dock(self) -> None:
        """On show only while something waits (a restored or reset layout included)."""
        waiting = bool(self.controller.encounter.combat.pending)
        self.docks["Rules call for"].setVisible(waiting)
        self._prompts_shown_by_itself = waiting

    # -- layout ------------------------------------------------------------------------------

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
        (Turns, Rules call for, Combatants, Bestiary) and the work of a turn below (Action, sheet,
        Round log, Forecast, History), as tabs. The map gets the rest: at 1366 x 768 that is
        over 60 % of the window. Built afresh rather than restored from a saved default:
        restoreState() over tabbed docks leaves stray tab bars on screen (Qt 6)."""
        side = Qt.DockWidgetArea.RightDockWidgetArea
        above = ["Turns", "Combatants", "Bestiary"]
        below = ["Action", "Sheet", "Round log", "Forecast", "History"]
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
        return max(min(wanted, room), 6 * line)

    def _balance_side_panel(self) -> None:
        """Give the side panel's height to the part with work: the turn order in full, the Action
        dock the rest. Not once the GM has moved the splitter."""
        if self._own_split or not self.isVisible():
            return
        wanted = self.side_panel_wants()
        split = self._side_split()
        if wanted is None or split is None:
            return
        turns, action = split
        if wanted <= turns.height() <= wanted + 8:
            return  # near enough: a few pixels more are not worth the panel twitching
        total = turns.height() + action.height()
        self.resizeDocks([turns, action], [wanted, max(1, total - wanted)], Qt.Orientation.Vertical)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and hasattr(self, "_balance_timer"):
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

    def _restore_layout(self) -> bool:
        """The window and dock layout of the last run; False when there is none to restore."""
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        return isinstance(state, QByteArray) and self.restoreState(state, LAYOUT_VERSION)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.confirm_discard():
            event.ignore()
            return
        self.settings.setValue("window/geometry", self.saveGeometry())
        if self._hidden_docks:
            self.toggle_docks()  # saved with the docks out: the next run starts with them
        self.settings.setValue("window/state", self.saveState(LAYOUT_VERSION))
        self._snapshot_timer.stop()
        self.window_recovery.close()  # a clean exit leaves nothing to recover
        self._release_file()
        if self.player_view is not None:
            self.player_view.close()
        event.accept()


class StatusBar(QStatusBar):
    """The status bar: its message wraps onto a second line rather than being cut off at the
    first one's end (an action's result ends with the numbers the GM reads). Qt's own bar paints a
    message on one line, clipped where the permanent labels begin; here a word-wrapping label of two
    lines' height, kept with the permanent labels (which Qt never hides), shows it, and the bar keeps
    that height whatever it says: the map above never changes size, so it never re-fits.
    ``showMessage``/``currentMessage`` work as ever."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.words = QLabel(self)
        self.words.setObjectName("statusWords")
        self.words.setWordWrap(True)
        self.words.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.words.setTextFormat(Qt.TextFormat.PlainText)
        self.words.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.words.setContentsMargins(4, 0, 4, 0)
        self.addPermanentWidget(self.words, 1)
        self.messageChanged.connect(self._show_words)
        self._fit_height()

    def _show_words(self, text: str) -> None:
        self.words.setText(text)
        self.words.setToolTip(text)

    def _fit_height(self) -> None:
        lines = self.words.fontMetrics().lineSpacing() * MESSAGE_LINES
        self.words.setFixedHeight(lines + 2)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # the UI scale: two lines of the new size
            self._fit_height()

    def paintEvent(self, event: QPaintEvent) -> None:
        """The bar's panel only: the message is the label's to show, wrapped."""
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelStatusBar, option, painter, self)


def _is_map_file(path: str | os.PathLike[str]) -> bool:
    """For drops on the window: the importer is loaded when a file is first dragged over it."""
    from lnl_desktop.ui.import_map import is_map_file

    return is_map_file(path)


def same_file(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def ask_read_only(parent: QWidget | None, path: Path, holder: str) -> bool:
    """The file is open in another window: read it without saving over it, or leave it."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Information)
    box.setWindowTitle("Encounter already open")
    box.setText(f"{path.name} is open in {holder}.")
    box.setInformativeText(
        "Open it read-only here? You can look and try things; Save will ask for another name, so "
        "the other window's work is never overwritten."
    )
    read_only = box.addButton("Open read-only", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(read_only)
    box.exec()
    return box.clickedButton() is read_only
