"""The main window: the battle map in the middle, docks around it, the status bar and title; the
wiring between them, the menus (:mod:`.menus`), the layout (:mod:`.layout`) and the encounter file
(:mod:`.document`)."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QSettings, QStandardPaths, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence, QPaintEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QGraphicsScene,
    QInputDialog,
    QMessageBox,
    QSizePolicy,
    QUndoView,
    QWidget,
)

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import AreaEffectResolved, CombatStarted, TurnStarted
from lnl_desktop.core.encounter.model import Encounter, Phase
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.ui.docks.actions import ActionPanel
from lnl_desktop.ui.docks.prompts import PromptsPanel
from lnl_desktop.ui.docks.turns import TurnsPanel
from lnl_desktop.ui.map.view import MapView
from lnl_desktop.ui.plumbing import collector, wheel
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.fight_odds import FightOddsService
from lnl_desktop.ui.plumbing.focus import FocusKeeper
from lnl_desktop.ui.plumbing.mime import FileDrops
from lnl_desktop.ui.plumbing.party import WindowParty
from lnl_desktop.ui.plumbing.theme import Presentation, outside_color
from lnl_desktop.ui.plumbing.toast import Toast
from lnl_desktop.ui.plumbing.widgets import ElidedLabel, Held
from lnl_desktop.ui.window.dock_toggle import bring_to_front_on_toggle
from lnl_desktop.ui.window.document import Document, ask_read_only
from lnl_desktop.ui.window.layout import OWN_SPLIT_KEY, SidePanelLayout
from lnl_desktop.ui.window.menus import WindowMenus
from lnl_desktop.ui.window.recovery import RecoveryStore
from lnl_desktop.ui.window.status_bar import StatusBar

if TYPE_CHECKING:
    from lnl_desktop.ui.dialogs.rulesets import ConvertDialog
    from lnl_desktop.ui.docks.bestiary import BestiaryPanel
    from lnl_desktop.ui.docks.combatants import CombatantsPanel
    from lnl_desktop.ui.docks.dice import DicePanel
    from lnl_desktop.ui.docks.forecast import ForecastPanel
    from lnl_desktop.ui.docks.log import RoundLog
    from lnl_desktop.ui.docks.sheet import CombatantSheet
    from lnl_desktop.ui.window.player_view import PlayerView

# The panels behind the side panel's tabs, made when first shown: title -> (module, class).
LAZY_PANELS = {
    "Combatants": ("lnl_desktop.ui.docks.combatants", "CombatantsPanel"),
    "Sheet": ("lnl_desktop.ui.docks.sheet", "CombatantSheet"),
    "Round log": ("lnl_desktop.ui.docks.log", "RoundLog"),
    "Dice": ("lnl_desktop.ui.docks.dice", "DicePanel"),
    "Forecast": ("lnl_desktop.ui.docks.forecast", "ForecastPanel"),
    "Bestiary": ("lnl_desktop.ui.docks.bestiary", "BestiaryPanel"),
    "Odds": ("lnl_desktop.ui.docks.odds", "FightOddsPanel"),
    "Party": ("lnl_desktop.ui.docks.party", "PartyPanel"),
}
APP_TITLE = "Laurels & Loot Desktop"
# A dock has one name, on its tab, in the View menu and in its floating title bar. Docks renamed
# keep the object name saved layouts know them by.
SAVED_NAMES = {"Sheet": "combatant_sheet", "History": "undo_history"}
ASK_REMOVE_KEY = "confirm/remove_token_in_combat"


def default_recovery_folder() -> Path:
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(location or Path.home() / ".lnl-desktop")


class MainWindow(WindowMenus, SidePanelLayout):
    def __init__(
        self,
        encounter: Encounter,
        path: Path | None = None,
        *,
        settings: QSettings | None = None,
        recovery: RecoveryStore | None = None,
    ) -> None:
        super().__init__()
        collector.install()  # workers run beside this window: garbage is collected on this thread only
        # The application-wide watchers (the wheel, the focus) come once the window is first painted:
        # see _watch_application.
        self._watching = False
        self.settings = settings if settings is not None else QSettings()
        recovery = recovery if recovery is not None else RecoveryStore(default_recovery_folder())
        self.controller = TableController(encounter, self)
        self.controller.acting.connect(collector.gm_acted)  # no big collection in the frame of the GM's action
        # The file shown, its lock, and its journal: every change is on disk before the screen shows it.
        self.document = Document(self.controller, path, self, settings=self.settings, recovery=recovery)
        # Asked by this module's name, looked up at each asking: the question can be replaced here.
        self.document.confirm_read_only = lambda path, holder: ask_read_only(self, path, holder)
        self.folders = self.document.folders  # where the file dialogs open

        self.map_view = MapView(self.controller)
        self.setCentralWidget(self.map_view)
        self.turns_panel = TurnsPanel(self.controller)
        self.action_panel = ActionPanel(self.controller)
        self.action_panel.area_button.lay.connect(
            lambda m, cid: self.map_view.lay_template(m.area.shape, m.area.size_ft, m.name, cid, m.name)
        )
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
        self._add_dock("Dice", None, side, "")
        self._add_dock("Forecast", None, side, "Ctrl+6")
        self._add_dock("Bestiary", None, side, "Ctrl+7")
        self._add_dock("Party", None, side, "Ctrl+Shift+P")
        self._add_dock("History", None, side, "Ctrl+8")
        self._add_dock("Odds", None, side, "Ctrl+Shift+O")
        # Whole-fight odds (GM only): for the Odds dock while it shows, and the Turns dock's verdict in setup.
        self.fight_odds = FightOddsService(self.controller, self)
        self.fight_odds.wants.append(lambda: self.controller.encounter.combat.phase is Phase.SETUP)
        self.fight_odds.ready.connect(self._odds_verdict)
        self.fight_odds.stale.connect(self._odds_stale)
        self.fight_odds.failed.connect(lambda words: self.turns_panel.show_odds("", words))
        self.fight_odds.changed()
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
        self.party = WindowParty(self.controller, self.settings, self)  # the roster beside the encounter
        self.party.problem.connect(lambda text: self.toast.say(text))  # a party file gone (the toast comes later)
        # A party character picked in the Party dock: the Sheet (which shows it) comes to the front.
        self.party.picked.connect(lambda cid: cid and self._panel("Sheet") and self.docks["Sheet"].raise_())
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
        self.document.titleChanged.connect(self._refresh_title)
        self.document.message.connect(lambda text, ms: self.statusBar().showMessage(text, ms))
        self.document.replaced.connect(self.map_view.fit_map)
        self.document.recentChanged.connect(self._refresh_recent_menu)
        self.setAcceptDrops(True)  # a Universal VTT map dropped on the window is imported
        self.file_drops = FileDrops(self)
        for drops in (self.file_drops, self.map_view.files_dropped):
            drops.wanted = _is_map_file
            drops.dropped.connect(self._import_dropped)
        self.controller.eventsApplied.connect(lambda _events: self._refresh_fog_action())
        self.controller.encounterReplaced.connect(self._refresh_fog_action)
        self._refresh_fog_action()

        self.focus_keeper: FocusKeeper | None = None
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

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._watching:
            self._watching = True
            QTimer.singleShot(0, self, self.watch_application)

    def watch_application(self) -> None:
        """The filters on every event of the application: the wheel scrolls the panels, never edits a
        field the GM has not clicked; the focus goes back to the map. Right after the first paint (no
        key or wheel can come before it): through the build and first paint, every event Qt sends to
        any of its objects would cross into Python, the object and the event wrapped for it (thousands:
        some 50-80 ms of the start)."""
        self._watching = True
        wheel.install()
        if self.focus_keeper is None:
            self.focus_keeper = FocusKeeper(self, self.map_view)

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
        bring_to_front_on_toggle(dock)  # a tab behind comes to the front, not hidden
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
        if title not in LAZY_PANELS:  # a dock that makes its own panel when first shown (Session)
            return self.docks[title].widget()
        module, name = LAZY_PANELS[title]
        panel: QWidget = getattr(import_module(module), name)(self.controller)
        if hasattr(panel, "folders"):
            panel.folders = self.folders  # "Picture…" and Export open where the last file was
        if hasattr(panel, "attach"):
            panel.attach(self.fight_odds)  # the Odds dock: the window's one worker
        if hasattr(panel, "attach_party"):
            panel.attach_party(self.party)  # the Party dock and the Sheet: the window's roster
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
    def dice_panel(self) -> DicePanel:
        return cast("DicePanel", self._panel("Dice"))

    def _odds_stale(self) -> None:
        if self.controller.encounter.combat.phase is not Phase.SETUP:
            self.turns_panel.show_odds("", "")  # in combat the Odds dock has them

    def _odds_verdict(self, odds: Any, final: bool) -> None:
        """The Turns dock's one line in setup: how dangerous is this encounter."""
        if self.controller.encounter.combat.phase is Phase.SETUP:
            first = "" if final else " (first estimate)"
            tip = f"{odds.fights:,} fights by the default tactic{first}; the Odds dock (Ctrl+Shift+O) has the rest"
            self.turns_panel.show_odds(odds.verdict(), tip)
        else:
            self.turns_panel.show_odds("", "")

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
        # No words of theirs may widen the window (a ruler's reading did, past the screen): each
        # is cut to its room with "…", the whole on hover.
        self.cell_label = ElidedLabel()
        self.drag_label = ElidedLabel()
        self.round_label = ElidedLabel()
        self.ruleset_label = ElidedLabel()
        # Shown only while the players' window is paused by an error (it shows black meanwhile).
        self.player_paused_label = ElidedLabel("Player view paused")
        self.player_paused_label.setObjectName("playerPaused")
        self.player_paused_label.setStyleSheet("QLabel#playerPaused { color: white; background: #b00020; }")
        self.player_paused_label.hide()
        # A drag's or a ruler's words take what room the others leave (the cell, the round and the
        # ruleset stay whole), shared with the message; shown only while there are some.
        self.drag_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        for label in (self.player_paused_label, self.drag_label, self.cell_label, self.round_label, self.ruleset_label):
            label.setContentsMargins(8, 0, 8, 0)
        # The two whose words change at every step of a drag are held apart from the bar's layout.
        self.drag_words = Held(self.drag_label)
        self.drag_words.hide()
        self.cell_words = Held(self.cell_label)
        for shown in (self.player_paused_label, self.drag_words, self.cell_words, self.round_label, self.ruleset_label):
            self.statusBar().addPermanentWidget(shown, 2 if shown is self.drag_words else 0)
        self.map_view.cellHovered.connect(self._show_cell)
        self.map_view.dragInfo.connect(self._show_drag_info)
        self.controller.eventsApplied.connect(lambda events: self._refresh_round())
        self.controller.encounterReplaced.connect(self._refresh_round)
        self._refresh_round()

    # -- player view and presentation -------------------------------------------------------

    def ensure_player_view(self) -> PlayerView:
        from lnl_desktop.ui.window.player_view import PlayerView

        if self.player_view is None:
            view = PlayerView(self.controller, self.map_view, self)
            view.addActions(self._player_keys)
            view.closed.connect(lambda: self.player_view_action.setChecked(False))
            view.view.set_follow(self.follow_gm_action.isChecked())
            view.view.set_share_overlays(self.share_overlays_action.isChecked())
            view.set_share_markers(self.share_markers_action.isChecked())
            view.set_blackout(self.blackout_action.isChecked())
            view.scene.failureChanged.connect(self._player_view_paused)
            self.player_view = view
            self.table_display.attach(view)  # real size and the turn, however the view was opened
            self._apply_presentation_to_player()
            if view.scene.failure is not None:  # it could not even be built
                self._player_view_paused(view.scene.failure)
        return self.player_view

    def _player_view_paused(self, reason: str) -> None:
        """The players' window shows black because of an error (``reason``), or works again ("")."""
        label = self.player_paused_label
        label.setVisible(bool(reason))
        if reason:
            text = f"The player view is paused (the players see black): {reason}"
            label.setToolTip(text)
            # After the action's own words (said once the change is applied), not under them.
            QTimer.singleShot(0, lambda: self.statusBar().showMessage(text, 30000))
        else:
            label.setToolTip("")
            self.statusBar().showMessage("The player view works again", 10000)

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

    def share_with_devices(self) -> None:
        from lnl_desktop.ui.window.share import open_share_dialog  # loaded when first asked for

        open_share_dialog(self)

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
            'An Opponent reads "badly hurt" below this share of its health bars together (any damage reads "wounded"):',
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

    def _show_drag_info(self, text: str) -> None:
        self.drag_label.setText(text)
        if self.drag_words.isVisibleTo(self) != bool(text):
            self.drag_words.setVisible(bool(text))

    def _show_cell(self, x: int, y: int) -> None:
        if x < 0:
            self.cell_label.setText("")
            return
        grid = self.controller.encounter.map
        feet = grid.feet_per_cell
        self.cell_label.setText(f"Cell ({x}, {y}) · {x * feet} ft, {y * feet} ft")
        # Room for the map's farthest cell, in the widest digits: the bar is not laid out again as the words change.
        far_x, far_y = (int("8" * len(str(n - 1))) for n in (grid.width, grid.height))
        self.cell_words.make_room_for(f"Cell ({far_x}, {far_y}) · {far_x * feet} ft, {far_y * feet} ft")

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
        name = visible(self.controller.encounter.name)
        path = self.document.path
        where = visible(path.name) if path else "unsaved"
        if self.document.read_only:
            where += " (read-only: open in another window)"
        recovered = self.document.recovered_from
        if recovered is not None:  # Save asks where: the recovery folder named this file, the GM did not
            where = f"recovered from {visible(recovered.name)}, not saved yet"
        ruleset = self.controller.engine.ruleset.title
        self.setWindowTitle(f"{name} — {where}[*] — {ruleset} — {APP_TITLE}")
        self.setWindowModified(not self.controller.undo_stack.isClean())
        self.ruleset_label.setText(ruleset)
        self.ruleset_label.setToolTip(f"This encounter follows {ruleset}: {self.controller.engine.ruleset.about}")

    def _on_history_changed(self) -> None:
        self._say_undo_or_redo()
        self._refresh_title()
        self.document.history_changed()

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

    # -- the encounter ---------------------------------------------------------------------

    def _show_about(self) -> None:
        from lnl_desktop.ui.dialogs.about import show_about

        show_about(self, self.controller.engine.ruleset)

    def convert_ruleset(self) -> ConvertDialog | None:
        """Ask which ruleset to convert to, showing what will be dropped; the conversion is one undo step."""
        from lnl_desktop.ui.dialogs.rulesets import ConvertDialog

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

    # -- map ---------------------------------------------------------------------------------

    def edit_map_settings(self) -> None:
        from lnl_desktop.ui.dialogs.map_settings import MapSettingsDialog

        dialog = MapSettingsDialog(self.controller.encounter.map, self)
        if dialog.exec() and dialog.changes():
            self.controller.do(act.EditMap(dialog.changes()))

    def edit_background(self) -> None:
        from lnl_desktop.ui.dialogs.map_settings import BackgroundDialog

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
        from lnl_desktop.ui.dialogs.damage_heal import confirm_remove_token

        asked, never = confirm_remove_token(self, self.controller.encounter.combatant(cid).name)
        if asked and never:
            self.settings.setValue(ASK_REMOVE_KEY, False)
        return asked

    def import_map(self) -> bool:
        """File ▸ Import map…: a Universal VTT file replaces the map in one undoable step."""
        from lnl_desktop.ui.dialogs.import_map import import_map_dialog

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
        from lnl_desktop.ui.dialogs.import_map import import_map_file

        import_map_file(self, self.controller, path)

    def edit_rules_options(self) -> None:
        """The encounter's rules options; what the GM changed is applied as one undoable step."""
        from lnl_desktop.ui.dialogs.options import RulesOptionsDialog

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

    def show_dice(self) -> None:
        """Ctrl+Shift+R: the Dice tab forward, the cursor in its expression field."""
        dock = self.docks["Dice"]
        dock.show()
        dock.raise_()
        self.dice_panel.focus_field()

    def _bring_action_forward(self, events: list[object]) -> None:
        """A turn began or an area effect was rolled: the Action tab comes forward, it is what the GM
        works in now (or where the result is). The combat began: the Turns tab does (the Bestiary
        or the Combatants may be in front from setting up)."""
        combat = self.controller.encounter.combat
        if any(isinstance(e, CombatStarted) for e in events) and combat.phase is Phase.FIGHTING:
            dock = self.docks["Turns"]
            if dock.toggleViewAction().isChecked() and not self.docks["Rules call for"].isVisible():
                dock.raise_()
        started = any(isinstance(e, TurnStarted) for e in events) and combat.turn is not None
        # An area effect is rolled from the map or its dialog: its result box is in the Action tab.
        if started or any(isinstance(e, AreaEffectResolved) for e in events):
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

    # -- closing ---------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.document.confirm_discard():
            event.ignore()
            return
        self._save_layout()
        self.document.close()
        if self.player_view is not None:
            self.player_view.close()
        sharing = sys.modules.get("lnl_desktop.ui.window.share")  # only loaded once asked for (with numpy)
        if sharing is not None:
            sharing.stop_sharing(self)  # the server stops, every connection closes
        event.accept()


def _is_map_file(path: str | os.PathLike[str]) -> bool:
    """For drops on the window: the importer is loaded when a file is first dragged over it."""
    from lnl_desktop.ui.dialogs.import_map import is_map_file

    return is_map_file(path)
