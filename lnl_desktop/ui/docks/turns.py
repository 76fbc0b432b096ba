"""The Turns dock: the round, who acts now, and the GM's picks of who goes next.

RULES §2: the initiative d6 says which side acts first; inside that side the members take their
turns in any order, then the other side does. The dock groups the combatants by side with their
state this round (waiting, acting now, acted, surprised, down), lets the GM begin the turn of
anyone of the acting side who has not acted (double-click or "Take turn"), end it, roll or type
the next round's initiative, start and end the combat. A step that cannot be taken now is disabled
with the reason (:meth:`TurnsPanel.availability`, which the main window's menus read too), and a
refusal shown in the dock goes as soon as the encounter changes. A ruleset's word for a combatant
(``ruleset.tokens.token_word``: flees, surrenders, dead) follows its state ("waiting · flees"). It keeps
no copy of the encounter: it is redrawn from the engine after every event, undo included. Rows
look combatants up by id, and only the rows whose contents changed are built again; after a change
of some combatants alone (:attr:`Engine.touched`), only their rows are worked out again, unless
what every row reads (the acting side, the declarations, the names rows give) changed too.

A ruleset that sets a turn order each round (``combat.order``: Old-School d20's group or
individual initiative) has it shown instead of the sides: each place in order with its roll, its
members under it, the place acting now highlighted. Its round notes (``ruleset.rounds.notes``: a
timer die counting down) are small lines under the round's heading.

Who may begin a turn, and each combatant's state this round, are the engine's answers
(:meth:`Engine.turn_refusals`, :meth:`Engine.turn_state`): the dock only shows them. The list is a
:class:`~lnl_desktop.ui.models.turns.TurnsModel` in a tree view; the declare phase and the row's
commands are :mod:`lnl_desktop.ui.docks.declare`, the next round's dice and the round's settings
:mod:`lnl_desktop.ui.docks.round_dice`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QContextMenuEvent, QKeyEvent, QKeySequence, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import CombatStarted, Event
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.core.rules.specs import DeclareSpec
from lnl_desktop.ui.dialogs.combat import StartCombatDialog
from lnl_desktop.ui.dialogs.faces import DieAsked, dice_asked
from lnl_desktop.ui.docks.declare import DeclarePhase
from lnl_desktop.ui.docks.round_dice import RoundDice
from lnl_desktop.ui.docks.round_state import RoundState
from lnl_desktop.ui.docks.turns_list import TurnsView
from lnl_desktop.ui.docks.turns_rows import OUT_OF_COMBAT, RESIZE_PRECISION, RowsRead, TurnRows
from lnl_desktop.ui.models.turns import ID_ROLE, LineView, TurnsModel
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.widgets import RefusalLabel

SECONDS_PER_ROUND = 6
START = "Start combat…"
START_DECLARE_FIRST = "Start combat… (declare first)"  # a declare phase's missing declarations


# The encounter's parts the dock never reads: a change of these alone (and of tokens) leaves it as it was.
_UNREAD_PARTS = frozenset({"fog", "map", "lights", "drawings", "templates"})


class TurnsPanel(TurnRows, RoundState, DeclarePhase, RoundDice, QWidget):
    """Round, banner, the combatants by side with their state, and the turn buttons."""

    # The combat's outcome read in words, when a combat starts ("Party surprised: Opponents act first").
    combatStarted = Signal(str)
    # What may be done now may have changed (:meth:`availability`): for the main window's menu entries.
    availabilityChanged = Signal()

    # The keys of :meth:`availability`.
    AVAILABILITY = ("start", "next_round", "end_combat", "end_turn")

    _STYLE = """
        QLabel#round { font-size: 12pt; font-weight: bold; }
        QLabel#banner { font-size: 12pt; font-weight: bold; border-radius: 4px; padding: 3px 8px;
                        border: 1px solid #b9b9b9; }
        QTreeView QComboBox { padding: 0px 4px; }
        QLabel#reading { padding: 2px 8px; }
        QLabel#notes { padding: 0px 8px; font-size: 9pt; color: #5a4a00; }
        QComboBox[missing="true"] { background: #fff3c4; border: 1px solid #c9a400; border-radius: 2px; }
        QLineEdit[invalid="true"] { border: 2px solid #c62828; background: #fdecea; }
    """

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Turns")
        self.scaled_style = style.keep_scaled(self, self._STYLE)  # its point sizes follow the UI scale
        self.controller = controller
        self._available: dict[str, str] | None = None  # what availability() said when last announced
        self.start_dialog: StartCombatDialog | None = None
        self._quiet = False  # while the list changes: its selection is not the GM's
        self._tree_shown: tuple[Any, ...] | None = None  # what every row read alike, and the groups, when last shown
        self._combos_for: tuple[Any, ...] | None = None  # the declare phase the Declared combos were made for
        self._now_cache: RowsRead | None = None  # while the tree is refreshed: what its rows read alike
        self._tree_step: int | None = None  # the engine's step (Engine.touched) the tree was refreshed at
        self._round_dice: list[DieAsked] | None = []  # what the next round reads (a dry run), None if refused
        self.setting_editors: dict[str, QWidget] = {}
        self._settings_of = ""  # the ruleset the settings' editors were built for
        self.reading = ""  # how this round's dice were read, in full (the label may show it shortened)
        self.declare_spec: DeclareSpec | None = None  # the ruleset's declare phase, as of the last refresh
        self._declared_column: int | None = None  # the Declared column's index, when shown
        self.context_menu: QMenu | None = None  # the row's menu on show (right click, menu key)

        self.round_label = QLabel(self)
        self.round_label.setObjectName("round")
        self.round_label.setToolTip("A round is about 6 seconds (RULES §2); elapsed time counts finished rounds")
        self.banner = QLabel(self)
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.reading_label = QLabel(self)
        self.reading_label.setObjectName("reading")
        self.reading_label.setWordWrap(True)
        self.reading_label.setToolTip("How this round's die was read")
        # Shortened to the panel's width, never widening it: the side panel keeps its width.
        self.reading_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        # The ruleset's notes on the round (a timer die counting down): small lines, hidden when none.
        self.notes_label = QLabel(self)
        self.notes_label.setObjectName("notes")
        self.notes_label.setWordWrap(True)
        self.notes_label.setToolTip("What the rules keep track of this round")
        self.notes_label.hide()
        # In setup, how dangerous the encounter is: the fight odds' one line (the main window's worker).
        self.odds_label = QLabel(self)
        self.odds_label.setObjectName("notes")
        self.odds_label.setWordWrap(True)
        self.odds_label.hide()

        self.turns_model = TurnsModel(self)
        self.tree = TurnsView(self.turns_model, self)
        self.tree.setToolTip("Double-click a combatant of the acting side to begin its turn")
        header = self.tree.header()
        header.setStretchLastSection(False)
        # Columns fit the rows in view and a hundred more, not up to a thousand: a row built again
        # (a hit) measured every row of a 500-token fight, 7 ms an action.
        header.setResizeContentsPrecision(RESIZE_PRECISION)
        self.tree.doubleClicked.connect(self._on_double_click)
        self.tree.selectionModel().selectionChanged.connect(lambda *_: self._on_row_selected())
        # The row's commands (the ruleset's, and its declaration): right click, the menu key, Shift+F10.
        self.tree.installEventFilter(self)
        self.tree.viewport().installEventFilter(self)

        self.start_button = QPushButton("Start combat…", self)
        self.start_button.setToolTip("Pick the surprise situation and roll (or type) the first d6")
        self.start_button.clicked.connect(self.start_combat)
        self.take_turn_button = QPushButton("Take turn", self)
        self.take_turn_button.clicked.connect(self.take_selected_turn)
        self.end_turn_button = QPushButton("End turn", self)
        self.end_turn_button.clicked.connect(self.end_turn)
        self.end_combat_button = QPushButton("End combat…", self)
        self.end_combat_button.setToolTip("End the combat (asks first; Undo brings it back)")
        self.end_combat_button.clicked.connect(lambda: self.end_combat())
        # Fill every missing declaration at once: the first choice on a click, any other from its menu.
        self.declare_all_button = QToolButton(self)
        self.declare_all_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.declare_all_button.setMenu(QMenu(self.declare_all_button))
        self.declare_all_button.clicked.connect(lambda: self.declare_all())
        self.declare_all_button.hide()

        # The main window puts this in its menus; Space is its shortcut there.
        self.end_turn_action = QAction("&End turn", self)
        self.end_turn_action.setShortcut(QKeySequence(Qt.Key.Key_Space))
        self.end_turn_action.setStatusTip("End the active combatant's turn")
        self.end_turn_action.triggered.connect(self.end_turn)

        self.initiative_edit = QLineEdit(self)
        self.initiative_edit.setPlaceholderText("roll")
        self.initiative_edit.setMaximumWidth(56)
        self.initiative_edit.setToolTip("Leave empty for the app to roll, or type the face of your own d6 (1-6)")
        self.initiative_edit.setAccessibleName("Initiative faces")
        self.initiative_edit.textChanged.connect(lambda *_: self._refresh_next_round())
        self.initiative_edit.returnPressed.connect(lambda: self.next_round_button.click())
        self.next_round_button = QPushButton("Next round", self)
        self.next_round_button.clicked.connect(lambda: self.roll_next_round())
        # Named by the dice the next round reads (a dry run): "Initiative d6:", "Initiative: 3 d10".
        self.initiative_caption = QLabel("Initiative:", self)

        # The ruleset's round settings (light, initiative by group...): one small editor each.
        self.settings_bar = QWidget(self)
        self.settings_layout = QHBoxLayout(self.settings_bar)
        self.settings_layout.setContentsMargins(0, 0, 0, 0)
        self.settings_layout.setSpacing(4)

        self.message_label = RefusalLabel(self)

        turn_row = QHBoxLayout()
        turn_row.addWidget(self.take_turn_button)
        turn_row.addWidget(self.end_turn_button)
        turn_row.addStretch(1)
        turn_row.addWidget(self.declare_all_button)
        # Start and End combat share the turn buttons' row: on a laptop every line of this dock is
        # a line less of the turn order.
        turn_row.addWidget(self.start_button)
        turn_row.addWidget(self.end_combat_button)
        round_row = QHBoxLayout()
        round_row.addWidget(self.initiative_caption)
        round_row.addWidget(self.initiative_edit)
        round_row.addWidget(self.next_round_button, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.round_label)
        layout.addWidget(self.notes_label)
        # The buttons right under the round's heading: lines below that come and go (the declare
        # banner's names, the odds) and the side panel's split would move them from under the mouse.
        layout.addLayout(turn_row)
        layout.addWidget(self.banner)
        layout.addWidget(self.reading_label)
        layout.addWidget(self.odds_label)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.settings_bar)
        layout.addLayout(round_row)
        layout.addWidget(self.message_label)

        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self._on_replaced)
        controller.selectionChanged.connect(self._follow_selection)
        self.refresh()

    # -- what the dock shows -------------------------------------------------------------------

    def show_odds(self, verdict: str, tip: str) -> None:
        """The fight odds' line in setup ("Party wins 64 % ± 1.0 % · someone drops in 71 % · 3–5 rounds");
        empty: none."""
        self.odds_label.setText(f"Odds: {verdict}" if verdict else "")
        # The ± on the line is the margin: said where the GM points at it.
        margin = "± : 95 % of counts of so many fights fall within it of the true chance"
        self.odds_label.setToolTip(f"{tip}\n{margin}" if verdict and "±" in verdict else tip)
        self.odds_label.setVisible(bool(verdict))

    def state_of(self, cid: str) -> str:
        """This round's state of a combatant: waiting, acting now, acted, surprised, down ('' outside combat)."""
        c = self._now().by_id.get(cid)
        return OUT_OF_COMBAT if c is None else self.controller.engine.turn_state(c.id)

    def _now(self) -> RowsRead:
        """What the rows read alike: the refresh's own while the tree is refreshed, else worked out now."""
        if self._now_cache is not None:
            return self._now_cache
        encounter = self.controller.encounter
        side = self.controller.engine.acting_side() if encounter.combat.phase is Phase.FIGHTING else None
        return RowsRead(encounter.by_id(), side)

    def may_begin(self, cid: str) -> tuple[bool, str]:
        """Whether the GM may begin this combatant's turn now, and why not (the engine's words)."""
        c = self._now().by_id.get(cid)
        if c is None:
            return False, "nobody is picked"
        return self._may_begin(c)

    def _may_begin(self, c: Any) -> tuple[bool, str]:
        reasons = self.controller.engine.turn_refusals(c.id)
        return (False, "; ".join(reasons)) if reasons else (True, f"Begin {c.name}'s turn")

    def item_for(self, cid: str) -> LineView | None:
        """The line of combatant ``cid`` in the list (a place of the turn order held by it alone, or a
        row in a group), read as a tree widget item is, or None."""
        index = self.turns_model.index_of(cid)
        return LineView(index) if index.isValid() else None

    def _lines(self) -> list[LineView]:
        """Every line of the list, each group's heading before its members."""
        found: list[LineView] = []
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            found += [item, *(item.child(j) for j in range(item.childCount()))]
        return found

    def row_count(self) -> int:
        """The lines of the turn order: every place, group heading and combatant."""
        return len(self._lines())

    def list_height_for_every_row(self) -> int:
        """The list's height with every line in view, its header and frame included."""
        rows = self.tree.rows_height()
        header = self.tree.header_height() if not self.tree.isHeaderHidden() else 0
        scroll = self.tree.horizontalScrollBar()
        below = scroll.sizeHint().height() if scroll.isVisible() else 0
        return header + rows + 2 * self.tree.frameWidth() + below + 2

    def _keep_start_width(self) -> None:
        """With a declare phase, Start combat is as wide as its longer words: once everyone has declared
        it keeps its place (right-aligned, a narrower button would move under the GM's mouse)."""
        button = self.start_button
        metrics = button.fontMetrics()
        if self.declare_spec is None:
            button.setMinimumWidth(0)
            return
        padding = button.sizeHint().width() - metrics.horizontalAdvance(button.text())
        button.setMinimumWidth(padding + max(metrics.horizontalAdvance(t) for t in (START, START_DECLARE_FIRST)))

    def height_for_every_row(self, width: int | None = None) -> int:
        """The dock's height at ``width`` (its own by default) with every line of the turn order in
        view: what the side panel gives it when it can."""
        width = width or self.width()
        layout = self.layout()
        total = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else layout.totalSizeHint().height()
        list_hint = self.tree.sizeHint().height()
        return total - list_hint + self.list_height_for_every_row()

    def selected_id(self) -> str | None:
        selection = self.tree.selectionModel()
        current = selection.currentIndex()
        # The list selects whole lines, one at a time, and moves its current line with them: the
        # current line's own check is enough. selectedRows() would ask every cell of the selection
        # through Python, several times a refresh.
        if current.isValid() and selection.isSelected(current):
            cid = current.siblingAtColumn(0).data(ID_ROLE)
        elif selection.hasSelection():  # selected without being made current (by code)
            rows = selection.selectedRows()
            cid = rows[0].data(ID_ROLE) if rows else None
        else:
            cid = None
        return cid if isinstance(cid, str) else None

    @property
    def message(self) -> str:
        """The refusal shown in the dock ("" when none). It goes when the encounter changes (an
        action, undo, redo, another encounter): it told of the state before."""
        return self.message_label.shown_text

    # -- the GM's moves ------------------------------------------------------------------------

    def start_combat(self) -> StartCombatDialog:
        """Open the Start combat dialog (window-modal); its Start applies the settings it changed
        (``EditOptions``), then ``StartCombat`` with the typed faces, if any."""
        dialog = StartCombatDialog(self.controller.encounter, self)
        dialog.accepted.connect(lambda: self.apply_start(dialog.action(), dialog.dice(), dialog.option_changes()))
        dialog.finished.connect(dialog.deleteLater)
        self.start_dialog = dialog
        dialog.open()
        return dialog

    def apply_start(
        self, action: act.StartCombat, dice: DiceSource | None = None, options: dict[str, Any] | None = None
    ) -> bool:
        """Start the combat: first the ``options`` set before round 1 (one undoable step), then the
        start itself (another). A refused start takes the options back: nothing is left changed."""
        if options and self._do(act.EditOptions(dict(options))) is None:
            return False
        events = self._do(action, dice)
        if events is None:
            if options:
                refusal = self.controller.refusal or "refused"
                self.controller.undo_stack.undo()
                self._refuse(refusal)
            self._name_the_missing("start the combat")
            return False
        started = next((e for e in events if isinstance(e, CombatStarted)), None)
        if started is not None:
            self.combatStarted.emit(started.text)
        return True

    def begin_turn(self, cid: str) -> bool:
        """Begin ``cid``'s turn (``BeginTurn``); a refusal is shown in the dock."""
        if self._do(act.BeginTurn(cid)) is None:
            return False
        self.controller.select(cid)
        return True

    def take_selected_turn(self) -> bool:
        cid = self.selected_id()
        if cid is None:
            self._refuse("Pick a combatant of the acting side first")
            return False
        return self.begin_turn(cid)

    def end_turn(self) -> bool:
        """End the active combatant's turn (the main window's Space)."""
        if self.controller.encounter.combat.turn is None:
            self._refuse("No turn is under way")
            return False
        return self._do(act.EndTurn()) is not None

    def end_combat(self, confirm: bool = True) -> bool:
        combat = self.controller.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            self._refuse("No combat is under way")
            return False
        if confirm:
            answer = QMessageBox.question(
                self,
                "End combat",
                f"End the combat after {combat.round} round{'s' if combat.round != 1 else ''}? Undo brings it back.",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return False
        return self._do(act.EndCombat()) is not None

    # -- the row's menu ----------------------------------------------------------------------------

    def _menu_for_current_row(self) -> None:
        selection = self.tree.selectionModel()
        index = self.tree.currentIndex()
        if not index.isValid() or not selection.isSelected(index):
            selected = selection.selectedRows()
            index = selected[0] if selected else QModelIndex()
        cid = index.siblingAtColumn(0).data(ID_ROLE) if index.isValid() else None
        if not isinstance(cid, str):
            return
        rect = self.tree.visualItemRect(index.siblingAtColumn(0))
        self.show_row_menu(cid, self.tree.viewport().mapToGlobal(rect.bottomLeft()))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Every paint and layout of the list passes here: those are let by before asking their type,
        # which is slow to read in Python.
        if not isinstance(event, (QWheelEvent, QContextMenuEvent, QKeyEvent)):
            return False
        kind = event.type()
        if kind == QEvent.Type.Wheel and isinstance(watched, QComboBox) and not watched.hasFocus():
            # A combo of the Declared column never changes under a wheel that scrolls the list.
            event.ignore()
            return True
        if kind == QEvent.Type.ContextMenu and isinstance(event, QContextMenuEvent):
            if watched is self.tree.viewport() and event.reason() == QContextMenuEvent.Reason.Mouse:
                line = self.tree.line_at(event.pos())
                cid = line.data(0, ID_ROLE) if line is not None else None
                if isinstance(cid, str):
                    self.show_row_menu(cid, event.globalPos())
                return True
            if watched is self.tree or watched is self.tree.viewport():
                self._menu_for_current_row()
                return True
        if kind == QEvent.Type.KeyPress and watched is self.tree and isinstance(event, QKeyEvent):
            shift_f10 = event.key() == Qt.Key.Key_F10 and event.modifiers() == Qt.KeyboardModifier.ShiftModifier
            if event.key() == Qt.Key.Key_Menu or shift_f10:
                self._menu_for_current_row()
                return True
        return super().eventFilter(watched, event)

    def _do(self, action: act.Action, dice: DiceSource | None = None) -> list[Event] | None:
        events = self.controller.do(action, dice)
        if events is None:
            self._refuse(self.controller.refusal or "refused")
        else:
            self._clear_message()
        return events

    def _refuse(self, text: str) -> None:
        self.message_label.refuse(visible(text, lines=True))

    def _clear_message(self) -> None:
        self.message_label.clear_refusal()

    # -- keeping in step -----------------------------------------------------------------------

    def _on_events(self, events: list[Event]) -> None:
        self._clear_message()  # a refusal told of the state before: it no longer holds
        touched = self.controller.engine.touched
        if (
            self._tree_step is not None
            and touched.step == self._tree_step + 1
            and touched.combatants == frozenset()
            and touched.tokens is not None
            and touched.parts <= _UNREAD_PARTS
        ):
            # A token moved, the fog grew: nothing the dock shows changed (no relayout of the side panel).
            self._tree_step = touched.step
            return
        self.refresh()

    def _on_replaced(self) -> None:
        self._clear_message()
        self.refresh()

    def refresh(self) -> None:
        encounter = self.controller.encounter
        combat = encounter.combat
        fighting = combat.phase is Phase.FIGHTING
        self.declare_spec = self.declarations()
        self._refresh_settings()
        self._refresh_header()
        self._refresh_notes()
        self._refresh_tree()

        turn = combat.turn
        available = self.availability()
        # Shown only outside a fight (and End combat only in one); the one not shown is disabled too, with why.
        self.start_button.setVisible(combat.phase is not Phase.FIGHTING)
        self.start_button.setEnabled(not available["start"])
        undeclared = self._missing_words("start the combat", limit=len(encounter.combatants))
        self.start_button.setText(START_DECLARE_FIRST if undeclared and not fighting else START)
        self._keep_start_width()
        if available["start"]:
            self.start_button.setToolTip(available["start"])
        elif undeclared:
            self.start_button.setToolTip(f"{undeclared}: the rules roll no initiative before everyone has declared")
        else:
            self.start_button.setToolTip("Pick the surprise situation and roll (or type) the first d6")
        self.end_combat_button.setVisible(fighting)
        self.end_combat_button.setEnabled(not available["end_combat"])
        self.end_combat_button.setToolTip(available["end_combat"] or "End the combat (asks first; Undo brings it back)")

        self.take_turn_button.setVisible(fighting)
        self.end_turn_button.setVisible(fighting)
        why_not = available["end_turn"]
        self.end_turn_button.setEnabled(not why_not)
        who = visible(encounter.combatant(turn.combatant).name) if turn is not None else ""
        self.end_turn_button.setText(
            self._named(self.end_turn_button, f"End {who}'s turn", "End turn", turn is not None)
        )
        # A stunned, paralyzed... creature's turn offers only End turn: say why (RULES §10).
        stopped = encounter.combatant(turn.combatant).incapacitated_by if turn is not None else None
        only = f"{who} is {stopped}: only End turn (Space)" if stopped else f"End {who}'s turn (Space)"
        self.end_turn_button.setToolTip(why_not or only)
        self.end_turn_action.setEnabled(not why_not)
        self.end_turn_action.setText(f"&End {who}'s turn" if turn is not None else "&End turn")
        self.end_turn_action.setToolTip(f"End turn: {why_not}" if why_not else f"End {who}'s turn (Space)")
        self.end_turn_action.setStatusTip(f"End turn: {why_not}" if why_not else f"End {who}'s turn")
        self._refresh_take_turn()

        over = self.controller.engine.round_over
        # What the next round reads, by a dry run of it on a copy (only while it can be rolled).
        self._round_dice = dice_asked(self._round_dry_run()) if over else []
        # No faces to type while the rules refuse the roll (Group d10: declare first) or read no die.
        typed = over and bool(self._round_dice)
        self.next_round_button.setVisible(over)
        for widget in (self.initiative_caption, self.initiative_edit):
            widget.setVisible(typed)
        self._refresh_next_round()
        self._refresh_declare_all()
        self._announce()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.controller.encounter.combat.order:
            self._show_reading()

    def _refresh_take_turn(self) -> None:
        cid = self.selected_id()
        if cid is None:
            waiting = self.controller.engine.waiting()
            ok = False
            if waiting and self.controller.encounter.combat.order:
                why = f"Pick who goes next in the list: {', '.join(visible(c.name) for c in waiting)}"
            else:
                why = "Pick a combatant of the acting side in the list" if waiting else self._no_turn_reason()
            name = ""
        else:
            ok, why = self.may_begin(cid)
            c = self.controller.combatant(cid)
            name = visible(c.name) if c is not None else ""
        self.take_turn_button.setEnabled(ok)
        self.take_turn_button.setText(self._named(self.take_turn_button, f"Take {name}'s turn", "Take turn", ok))
        self.take_turn_button.setToolTip(visible(why if ok else f"Cannot begin a turn: {why}"))

    def _named(self, button: QPushButton, named: str, plain_words: str, name_it: bool) -> str:
        """A turn button's words with the combatant's name when they fit a third of the panel: a
        long name would widen the side panel (and the map would re-fit); the banner names it anyway."""
        room = max(self.width(), round(300 * style.ui_scale())) // 3
        if name_it and button.fontMetrics().horizontalAdvance(named) + 16 <= room:
            return named
        return plain_words

    def _no_turn_reason(self) -> str:
        combat = self.controller.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return "combat has not started"
        if combat.turn is not None:
            return f"{visible(self.controller.encounter.combatant(combat.turn.combatant).name)}'s turn is under way"
        return "the round is over: roll initiative for the next one"

    # -- selection -----------------------------------------------------------------------------

    def _on_double_click(self, index: QModelIndex) -> None:
        cid = index.siblingAtColumn(0).data(ID_ROLE)
        if isinstance(cid, str):
            # Beginning the turn changes the list; Qt is still handing this line to other slots
            # of the signal, so the change waits until the signal is delivered.
            QTimer.singleShot(0, self, lambda: self.begin_turn(cid))

    def _on_row_selected(self) -> None:
        if self._quiet:
            return  # the list changing, not the GM picking
        self._refresh_take_turn()
        cid = self.selected_id()
        if cid is not None:
            self.controller.select(cid)

    def _follow_selection(self, cid: str) -> None:
        index = self.turns_model.index_of(cid) if cid else QModelIndex()
        self._quiet = True
        try:
            selection = self.tree.selectionModel()
            if index.isValid():
                flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
                selection.setCurrentIndex(index, flags)
            else:
                selection.clearSelection()
        finally:
            self._quiet = False
        self._refresh_take_turn()
