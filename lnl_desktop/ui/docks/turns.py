"""The Turns dock: the round, who acts now, and the GM's picks of who goes next.

RULES §2: the initiative d6 says which side acts first; inside that side the members take their
turns in any order, then the other side does. The dock groups the combatants by side with their
state this round (waiting, acting now, acted, surprised, down), lets the GM begin the turn of
anyone of the acting side who has not acted (double-click or "Take turn"), end it, roll or type
the next round's initiative, start and end the combat. A step that cannot be taken now is disabled
with the reason (:meth:`TurnsPanel.availability`, which the main window's menus read too), and a
refusal shown in the dock goes as soon as the encounter changes. A ruleset's word for a combatant
(``Ruleset.token_word``: flees, surrenders, dead) follows its state ("waiting · flees"). It keeps
no copy of the encounter: it is redrawn from the engine after every event, undo included. Rows
look combatants up by id, and only the rows whose contents changed are built again; after a change
of some combatants alone (:attr:`Engine.touched`), only their rows are worked out again, unless
what every row reads (the acting side, the declarations, the names rows give) changed too.

A ruleset that sets a turn order each round (``combat.order``: Old-School d20's group or
individual initiative) has it shown instead of the sides: each place in order with its roll, its
members under it, the place acting now highlighted. Its round notes (``Ruleset.round_notes``: a
timer die counting down) are small lines under the round's heading.

Who may begin a turn, and each combatant's state this round, are the engine's answers
(:meth:`Engine.turn_refusals`, :meth:`Engine.turn_state`): the dock only shows them. The list is a
:class:`~lnl_desktop.ui.models.turns.TurnsModel` in a tree view; the declare phase and the row's
commands are :mod:`lnl_desktop.ui.docks.declare`, the next round's dice and the round's settings
:mod:`lnl_desktop.ui.docks.round_dice`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QContextMenuEvent, QFont, QKeyEvent, QKeySequence, QResizeEvent
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
from lnl_desktop.core.encounter.model import Phase, Side
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.base import DeclareSpec
from lnl_desktop.ui.dialogs.combat import StartCombatDialog
from lnl_desktop.ui.dialogs.faces import DieAsked, dice_asked
from lnl_desktop.ui.docks.declare import DECLARED, MISSING_MARK, DeclarePhase
from lnl_desktop.ui.docks.round_dice import RoundDice, slot_title
from lnl_desktop.ui.docks.round_state import PALE, RoundState
from lnl_desktop.ui.docks.turns_list import TurnsView
from lnl_desktop.ui.models.turns import ID_ROLE, Line, LineView, TurnsModel
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.widgets import RefusalLabel

SECONDS_PER_ROUND = 6
START = "Start combat…"
START_DECLARE_FIRST = "Start combat… (declare first)"  # a declare phase's missing declarations

# The states a combatant shows this round (Engine.turn_state's words).
WAITING = "waiting"
ACTING = "acting now"
ACTED = "acted"
SURPRISED = "surprised"
DOWN = "down"
OUT_OF_COMBAT = ""

GREY = QColor("#8a8a8a")
GREEN = QColor("#1b7a3a")  # the state of a combatant whose turn may begin now
NEXT_PLACE = QColor("#fff3c4")  # the place of the turn order whose members may act now

NOT_IN_ORDER = "Not in this round's order"

RESIZE_PRECISION = 100  # rows measured (besides those in view) when a column fits its contents


@dataclass(frozen=True)
class _Head:
    """The heading of a group in the Turns list: a side, or a place of the round's turn order."""

    title: str
    side: Side | None  # the colour of the heading (None: several sides, or none)
    tip: str
    single: bool = False  # a place held by one combatant: shown as its row
    next: bool = False  # the place acting now (highlighted)
    done: bool = False  # everyone in it has acted (greyed)


@dataclass(frozen=True)
class _Now:
    """What every row of the list reads alike, worked out once per refresh: the combatants by id,
    and the acting side."""

    by_id: dict[str, Any]
    side: Side | None


# The parts of the encounter besides the combatants that rows read: the round's state, and the
# options (whether a creature that is down still takes turns).
_ROWS_READ = frozenset({"combat", "options"})


class TurnsPanel(RoundState, DeclarePhase, RoundDice, QWidget):
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
        self._now_cache: _Now | None = None  # while the tree is refreshed: what its rows read alike
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

    def _now(self) -> _Now:
        """What the rows read alike: the refresh's own while the tree is refreshed, else worked out now."""
        if self._now_cache is not None:
            return self._now_cache
        encounter = self.controller.encounter
        side = self.controller.engine.acting_side() if encounter.combat.phase is Phase.FIGHTING else None
        return _Now(encounter.by_id(), side)

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
        header = self.tree.header().sizeHint().height() if not self.tree.isHeaderHidden() else 0
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
        rows = self.tree.selectionModel().selectedRows()
        cid = rows[0].data(ID_ROLE) if rows else None
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

    def _refresh_tree(self) -> None:
        touched = self.controller.engine.touched
        step, self._tree_step = self._tree_step, touched.step
        if (
            step is not None
            and touched.step == step + 1
            and touched.combatants == frozenset()
            and touched.tokens is not None
            and not touched.parts & _ROWS_READ
        ):
            return  # the one change since the last refresh left every row as it was (a token moved)
        self._now_cache = self._now()  # read by every row: a lookup by id each, not a search
        try:
            # After one change of some combatants alone, the other rows read nothing that changed,
            # unless what all rows read alike did (checked in _fill_tree).
            alone = (
                step is not None
                and touched.step == step + 1
                and touched.combatants is not None
                and not touched.parts & _ROWS_READ
            )
            self._fill_tree(touched.combatants if alone else None)
        finally:
            self._now_cache = None

    def _fill_tree(self, only: frozenset[str] | None = None) -> None:
        """Show the list as it stands; ``only``: the combatants whose rows may have changed, if what
        all rows read alike (the acting side, the declarations, the groups) did not."""
        encounter = self.controller.encounter
        engine = self.controller.engine
        keep = self.selected_id() or self.controller.selected
        groups = self._order_groups() if encounter.combat.order else self._side_groups()
        spec = self.declare_spec
        # What every row reads alike, besides the round's state: the acting side, who declared what,
        # the names the rows' words give (whose turn is under way, who acts first in the order), the
        # list's font, and the groups with their members.
        now = self._now()
        turn = encounter.combat.turn
        holder = now.by_id.get(turn.combatant) if turn is not None else None
        declaring = None if spec is None else (spec.choices, spec.open, tuple(spec.missing), dict(spec.declared))
        alike = (
            now.side,
            declaring,
            tuple((c.id, c.name) for c in engine.waiting()) if encounter.combat.order else None,
            None if holder is None else holder.name,
            self.tree.font().key(),
            tuple((head, tuple(c.id for c in members)) for head, members in groups),
        )
        self._quiet = True
        try:
            if only is not None and alike == self._tree_shown:
                heads = {c.id: head for head, members in groups for c in members}
                for cid in only:
                    c = now.by_id.get(cid)
                    if c is None or cid not in heads:
                        continue
                    line = self._row_content(c, heads[cid])
                    shown = self.turns_model.line(self.turns_model.index_of(cid))
                    if shown is None or shown.look() != line.look():
                        self._add_row(line, c)
            else:
                self._tree_shown = alike
                self._show_groups(groups)
            self._keep_selected(keep)
        finally:
            self._quiet = False

    def _show_groups(self, groups: list[tuple[_Head, list[Any]]]) -> None:
        """Hand the model every line; it tells the list what changed. The Declared combos follow."""
        encounter = self.controller.encounter
        spec = self.declare_spec
        # The bars' columns are the ruleset's (SP and IP in L&L); a declare phase adds its column first.
        sample = encounter.combatants[0] if encounter.combatants else None
        ruleset = self.controller.engine.ruleset
        gauges = (
            [g.label for g in ruleset.views.gauges(sample)]
            if sample is not None
            else list(ruleset.views.gauge_labels())
        )
        declared = [DECLARED] if spec is not None else []
        self._declared_column = 2 if spec is not None else None
        headers = ["Combatant", "This round", *declared, *gauges]
        tips: dict[int, str] = {}
        if spec is not None:
            when = "for the coming round" if spec.open else "this round (a change is a GM override)"
            tips[2] = f"The action each combatant declared before initiative, {when}. Pick one in the list"
        lines: list[Line] = []
        members_of: dict[str, Any] = {}
        for head, members in groups:
            members_of.update((c.id, c) for c in members)
            if head.single and members:
                lines.append(self._row_content(members[0], head))
                continue
            lines.append(self._heading(head, [self._row_content(c, head) for c in members]))
        told, changed = self.turns_model.show(headers, tips, lines)
        if told == "reset":
            self.tree.fit_columns()
            # A combo is taller than a line of text: the rows follow their contents then.
            self.tree.setUniformRowHeights(spec is None)
        if spec is None:
            self._combos_for = None
            return
        combos_for = (spec.choices, spec.open)
        if told == "reset" or combos_for != self._combos_for:
            changed = set(members_of)
        self._combos_for = combos_for
        for cid in changed:
            if cid in members_of:
                self._add_declare_combo(self.turns_model.index_of(cid), members_of[cid], spec)

    def _keep_selected(self, cid: str | None) -> None:
        """The row selected before the list changed is selected still."""
        index = self.turns_model.index_of(cid) if cid else QModelIndex()
        selection = self.tree.selectionModel()
        if index.isValid() and not selection.isSelected(index):
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            selection.setCurrentIndex(index, flags)

    def _side_groups(self) -> list[tuple[_Head, list[Any]]]:
        """RULES §2: the first side's members, then the other side's."""
        encounter = self.controller.encounter
        acting = self.controller.engine.acting_side()
        first = encounter.combat.first_side or Side.PARTY
        return [
            (_Head(self._group_title(side, acting), side, side.value), encounter.side(side))
            for side in (first, first.other)
        ]

    def _order_groups(self) -> list[tuple[_Head, list[Any]]]:
        """The round's turn order: each place with its roll, its members, the one acting now marked."""
        encounter = self.controller.encounter
        engine = self.controller.engine
        by_id = encounter.by_id()
        acting = self._acting_slot()
        groups: list[tuple[_Head, list[Any]]] = []
        placed: set[str] = set()
        for i, slot in enumerate(encounter.combat.order, 1):
            members = [by_id[cid] for cid in slot.members if cid in by_id]
            placed.update(c.id for c in members)
            sides = {c.side for c in members}
            single = len(members) == 1
            title = slot_title(i, slot)
            now = slot is acting
            done = not now and not any(engine.may_act(c) for c in members)
            if now and not single:
                title += " ◀"  # the highlight says it too; the banner says what to do
            state = "acting now" if now else "done this round" if done else "later this round"
            tip = f"{i}. {slot.title}: {slot.roll or 'placed by the rules'} ({state})"
            side = sides.pop() if len(sides) == 1 else None
            groups.append((_Head(title, side, tip, single=single, next=now, done=done), members))
        rest = [c for c in encounter.combatants if c.id not in placed]
        if rest:
            tip = "Not placed in this round's initiative order (down, or added during the round)"
            groups.append((_Head(NOT_IN_ORDER, None, tip, done=True), rest))
        return groups

    def _heading(self, head: _Head, members: list[Line]) -> Line:
        """A group's heading: bold, in its side's colour (grey once done), the place acting now highlighted."""
        font = QFont(self.tree.font())
        font.setBold(True)
        line = Line(None, [head.title], tips={0: head.tip}, fonts={0: font}, children=members)
        if head.done:
            line.fore[0] = GREY
        elif head.side is not None:
            line.fore[0] = style.side_color(head.side)
        if head.next:
            line.back[0] = NEXT_PLACE
        return line

    def _row_content(self, c: Any, head: _Head | None = None) -> Line:
        """Everything a combatant's line shows: its texts, tooltips, colours and fonts, from the
        engine's answers (its state, whether its turn may begin). A place of the order held by ``c``
        alone (``head.single``) is its line, the place's title and roll first."""
        state = self.controller.engine.turn_state(c.id)
        label = state
        if state == WAITING and c.surprised and c.cannot_be_surprised:
            label = "waiting (cannot be surprised)"
        word = self._token_word(c)
        if word:
            label = f"{label} · {word}" if label else word  # who flees, surrenders, is dead
        gauges = [f"{g.now}/{g.most}" for g in self.controller.engine.ruleset.views.gauges(c)]
        spec = self.declare_spec
        declared = [""] if spec is not None else []
        single = head is not None and head.single
        texts = [head.title if single and head is not None else c.name, label, *declared, *gauges]
        ok, why = self._may_begin(c)
        tip = why if ok else f"Cannot begin the turn: {why}"
        line = Line(c.id, texts, tips={0: tip, 1: tip}, state=state, may_begin=ok, declared=self._declaration_of(c))
        columns = range(len(texts))
        if line.declared is not None and line.declared[1]:
            line.back[2] = MISSING_MARK
        if state in (ACTED, SURPRISED, DOWN):
            line.fore.update(dict.fromkeys(columns, GREY))
        if state == DOWN:
            font = QFont(self.tree.font())
            font.setItalic(True)
            font.setStrikeOut(True)
            line.fonts[0] = font
        if state == ACTING:
            font = QFont(self.tree.font())
            font.setBold(True)
            line.fonts.update(dict.fromkeys(columns, font))
            line.back.update(dict.fromkeys(columns, QColor(PALE[c.side])))
        elif ok:
            font = QFont(self.tree.font())
            font.setBold(True)
            line.fonts[1] = font
            line.fore[1] = GREEN
        if single and head is not None:
            line.tips[0] = f"{head.tip}. {tip}"
            if head.next:
                line.back.update(dict.fromkeys(columns, NEXT_PLACE))
        return line

    def _token_word(self, c: Any) -> str:
        """The ruleset's word for the combatant's state ("flees", "surrenders", "dead"), or ""."""
        try:
            return str(self.controller.engine.ruleset.views.token_word(c) or "")
        except (RulesError, ValueError):
            return ""

    def _group_title(self, side: Side, acting: Side | None) -> str:
        combat = self.controller.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return side.value
        if combat.turn is not None and self.controller.encounter.combatant(combat.turn.combatant).side is side:
            return f"{side.value} · acting now"
        if acting is side:
            return f"{side.value} · acting now: pick who goes next"
        if combat.round == combat.first_round and combat.surprised_side is side:
            return f"{side.value} · surprised in {combat.round_phrase}"
        if acting is not None:
            return f"{side.value} · after the {acting.value}"
        return f"{side.value} · done this round"

    def _add_row(self, line: Line, c: Any) -> None:
        """Show combatant ``c``'s line anew in its place, with its Declared combo."""
        self.turns_model.replace(line)
        spec = self.declare_spec
        if spec is not None:
            self._add_declare_combo(self.turns_model.index_of(c.id), c, spec)

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
