"""The main window's actions, menus and toolbar: every menu entry with its shortcut and tips, the
recent files and demos listed in the File menu, and the ruleset's rolls on demand at the end of the
Combat menu. A part of :class:`~lnl_desktop.ui.window.main_window.MainWindow`, whose slots they call."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QToolButton, QWidget

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.rules.specs import PromptSpec
from lnl_desktop.ui.docks.prompts import ToolDialog, table_tools, tool_label
from lnl_desktop.ui.map.draw_menu import draw_menu, drawings_layer_action
from lnl_desktop.ui.map.light import light_menu
from lnl_desktop.ui.map.template_gestures import template_shapes_menu
from lnl_desktop.ui.plumbing.theme import SCALES, THEMES
from lnl_desktop.ui.plumbing.widgets import SteadyButtons
from lnl_desktop.ui.window.session import WindowSession

if TYPE_CHECKING:
    from collections.abc import Callable

    from lnl_desktop.ui.docks.turns import TurnsPanel
    from lnl_desktop.ui.map.view import MapView
    from lnl_desktop.ui.plumbing.controller import TableController
    from lnl_desktop.ui.plumbing.party import WindowParty
    from lnl_desktop.ui.plumbing.theme import Presentation
    from lnl_desktop.ui.window.document import Document
    from lnl_desktop.ui.window.player_view import PlayerView

SHARE_TIP = "The player view in any browser on the table's network: read-only, behind a join code"
SHARE_MARKERS_KEY = "player_view/opponent_conditions"  # QSettings: the players see Opponents' markers

# The UI scale menu: presets named for where the program is shown.
SCALE_PRESETS = {100: "100 % (laptop)", 125: "125 %", 150: "150 % (projector)", 200: "200 % (projector, far seats)"}


class WindowMenus(QMainWindow):
    """The actions and menus of the main window (built once, in its constructor)."""

    controller: TableController
    document: Document
    map_view: MapView
    turns_panel: TurnsPanel
    docks: dict[str, QDockWidget]
    presentation: Presentation
    prompts_action: QAction
    settings: QSettings
    player_view: PlayerView | None
    party: WindowParty
    _add_dock: Callable[[str, QWidget | None, Qt.DockWidgetArea, str], None]  # the window's

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
            "&New…", self.document.new_file, key.New, "Start an empty encounter: its name and its ruleset"
        )
        self.convert_action = self._action(
            "Con&vert to another ruleset…",
            self.convert_ruleset,
            None,
            "Before combat: turn this encounter into another ruleset's (undoable)",
        )
        self.open_action = self._action("&Open…", self.document.open_file, key.Open, "Open an encounter file (.lnl)")
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
        self.save_action = self._action("&Save", self.document.save, key.Save, "Save the encounter")
        self.save_as_action = self._action(
            "Save &As…", self.document.save_as, key.SaveAs, "Save the encounter under a new name"
        )
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
            (
                "select",
                "&Select and move",
                "V",
                "Select tokens and drag them to move (Shift-drag: forced move); right-click: the menu of the token,"
                " drawing, template or floor there, right-drag: turn a token",
            ),
            ("walls", "Paint &walls", "W", "Drag to paint walls (right-drag erases)"),
            ("difficult", "Paint &difficult terrain", "T", "Drag to paint difficult terrain (right-drag erases)"),
            ("erase", "&Erase terrain", "X", "Drag to erase walls and difficult terrain (either button)"),
            (
                "wall_lines",
                "Draw wall &lines",
                "L",
                "Drag between cell corners to draw a wall line (right-click: remove)",
            ),
            (
                "doors",
                "Draw d&oors",
                "O",
                "Drag between cell corners to draw a door (right-click: remove); the Select tool opens and closes it",
            ),
            (
                "erase_lines",
                "Erase wall lines and doors",
                "Shift+L",
                "Click a wall line or door to remove it (either button)",
            ),
            ("fog", "Reveal or hide &fog", "F", "Drag over cells to show them to the players (right-drag: hide)"),
            ("light", "Place l&ights", "I", "Click a cell to place a light (Map ▸ Light: which); right-click: remove"),
            (
                "draw",
                "Dra&w on the map",
                "P",
                "Drag to draw on the map; right-click: a drawing's menu (colour, erase), elsewhere the shape, colour"
                " and width",
            ),
            (
                "measure",
                "&Measure distance",
                "M",
                "Drag from a cell or a token to measure along the grid (W or right-click: waypoint); changes nothing",
            ),
            (
                "template",
                "Lay an &area template",
                "A",
                "Drag from where an area effect starts to lay a circle, cone, line or square; right-click: a"
                " template's menu, elsewhere the shapes",
            ),
        ):
            action = self._action(text, lambda _=False, n=name: self.map_view.set_tool(n), shortcut, tip)
            action.setCheckable(True)
            self.tool_group.addAction(action)
            self.tool_actions[name] = action
        self.tool_actions["select"].setChecked(True)
        self.map_view.toolChanged.connect(lambda name: self.tool_actions[name].setChecked(True))
        # A tool taken by its key says what its buttons do, right-click included.
        self.map_view.toolChanged.connect(lambda name: self.controller.message.emit(self.tool_hint(name)))
        self.draw_menu = draw_menu(self, self.map_view)
        self.drawings_action = drawings_layer_action(self, self.map_view)
        self.template_menu = template_shapes_menu(
            self, lambda shape: self.map_view.lay_template(shape), self.map_view.template_style
        )

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
        self.roll_dice_action = self._action(
            "&Roll dice…",
            self.show_dice,
            "Ctrl+Shift+R",
            "The Dice dock, the cursor in its expression field: 2d6+3, 4d6kh3, 2d20kl1, 3d6!, a label",
        )
        self.damage_heal_action = self._action(
            "&Damage / Heal…",
            self.damage_heal_selected,
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
        # The session: its file actions, End fight and carry on, Rest…, the Session dock.
        self.session = WindowSession(self, self.controller, self.document, self.party, self.settings)
        self.session.add_dock(self._add_dock, lambda: self.docks["Session"])
        self.session.add_rest_button(self.docks["Party"])

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
        file_menu.addActions([self.session.open_session_action, self.session.new_session_action])
        file_menu.addSeparator()
        file_menu.addActions([self.save_action, self.save_as_action])
        file_menu.addSeparator()
        file_menu.addActions([self.export_log_action, self.session.export_log_action])
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)

        edit_menu = bar.addMenu("&Edit")
        edit_menu.addActions([self.undo_action, self.redo_action])
        edit_menu.addSeparator()
        edit_menu.addActions([self.turn_left_action, self.turn_right_action, self.remove_token_action])

        map_menu = bar.addMenu("&Map")
        map_menu.addActions(self.tool_group.actions())
        map_menu.addMenu(self.draw_menu)
        map_menu.addMenu(self.template_menu)
        map_menu.addSeparator()
        map_menu.addActions([self.zoom_in_action, self.zoom_out_action, self.zoom_reset_action, self.fit_action])
        map_menu.addSeparator()
        map_menu.addActions([self.map_settings_action, self.background_action, self.remove_background_action])
        map_menu.addSeparator()
        map_menu.addActions([self.fog_action, self.hide_token_action])
        map_menu.addMenu(light_menu(self, self.controller, self.map_view))

        combat_menu = bar.addMenu("&Combat")
        combat_menu.setToolTipsVisible(True)  # a disabled step says why
        combat_menu.addActions(
            [self.start_combat_action, self.turns_panel.end_turn_action, self.next_round_action, self.end_combat_action]
        )
        combat_menu.addActions([self.session.carry_on_action, self.session.rest_action, self.session.open_next_action])
        combat_menu.addSeparator()
        combat_menu.addAction(self.damage_heal_action)
        combat_menu.addAction(self.rules_options_action)
        combat_menu.addAction(self.forecast_action)
        combat_menu.addAction(self.roll_dice_action)
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
                self.share_markers_action,
            ]
        )
        player_menu.addSeparator()
        player_menu.addActions([self.table_display.dialog_action, self.table_display.real_size_action])
        player_menu.addMenu(self.table_display.rotation_menu(player_menu))
        view_menu.addAction(self._action("Share with players' de&vices…", self.share_with_devices, None, SHARE_TIP))
        view_menu.addAction(self.hide_token_action)
        view_menu.addAction(self.drawings_action)
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
        SteadyButtons(toolbar, [self.undo_action, self.redo_action])  # their words change with each action
        toolbar.addSeparator()
        for name, text in (
            ("select", "Select"),
            ("walls", "Walls"),
            ("wall_lines", "Lines"),
            ("doors", "Doors"),
            ("difficult", "Difficult"),
            ("erase", "Erase"),
            ("fog", "Fog"),
            ("light", "Light"),
            ("draw", "Draw"),
            ("measure", "Measure"),
            ("template", "Area"),
        ):
            button_action = self.tool_actions[name]
            button_action.setIconText(text)
            toolbar.addAction(button_action)
        draw_button = toolbar.widgetForAction(self.tool_actions["draw"])
        if isinstance(draw_button, QToolButton):  # its arrow opens the shape, colour and width
            draw_button.setMenu(self.draw_menu)
            draw_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        area_button = toolbar.widgetForAction(self.tool_actions["template"])
        if isinstance(area_button, QToolButton):  # its arrow opens the shapes
            area_button.setMenu(self.template_menu)
            area_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
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
        self.share_markers_action = toggle(
            "Show &Opponents' conditions to players",
            self._share_markers,
            None,
            "The player view shows the Opponents' condition markers too (the Party's always show)",
        )
        self.share_markers_action.setChecked(str(self.settings.value(SHARE_MARKERS_KEY, "false")).lower() == "true")
        from lnl_desktop.ui.window.table_display import TableDisplay

        # Real size and the turn: taken on by each player view as it opens (after the entry's own slot).
        self.table_display = TableDisplay(self, self)
        self.player_view_action.triggered.connect(self.table_display.attach_current)
        self.player_full_screen_action.triggered.connect(self.table_display.attach_current)
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

    def tool_hint(self, name: str) -> str:
        """What the map tool ``name`` does with each button (its status tip)."""
        return self.tool_actions[name].statusTip()

    def damage_heal_selected(self) -> None:
        """Ctrl+Shift+D: Damage / Heal for the selected combatant, or why not (never nothing)."""
        from lnl_desktop.ui.map.token_menu import hand_refusal  # the menus' module, loaded at first use

        why = hand_refusal(self.controller, self.controller.selected)
        if why:
            self.map_view.refuse(why)
            return
        self.sheet.open_damage_heal(self.controller.selected)

    def _share_markers(self, on: bool) -> None:
        self.settings.setValue(SHARE_MARKERS_KEY, bool(on))
        if self.player_view is not None:
            self.player_view.set_share_markers(on)

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
                    lambda _=False, n=ruleset.name: self.document.open_demo(n),
                    None,
                    f"Open the built-in {ruleset.title} demo encounter as an unsaved copy",
                )
            )
        self.demo_menu.addSeparator()
        for name, title in self.session.demo_sessions():
            self.demo_menu.addAction(
                self._action(
                    f"Session: {title}".replace("&", "&&"),
                    lambda _=False, n=name: self.session.open_demo_session(n),
                    None,
                    f"Copy the demo session {title} into your documents and open it (a copy made before is opened"
                    " as you left it)",
                )
            )

    def _refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.document.recent_files()
        for number, name in enumerate(recent, 1):
            action = self.recent_menu.addAction(f"&{number} {Path(name).name}")
            action.setStatusTip(name)
            action.triggered.connect(lambda _=False, n=name: self.document.open_recent(Path(n)))
        if recent:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear list", self.document.clear_recent)
        self.recent_menu.setEnabled(bool(recent))

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
