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
members under it, the place acting now highlighted. The dice the next round reads, and the
typed faces, are found by a dry run of ``NextRound`` on a copy of the encounter; the ruleset's
round settings (light, initiative by group or individual) have one small editor each.

A ruleset with a declare phase (``Ruleset.declarations``: every combatant's action is declared
before initiative) adds a Declared column: a narrow combo per combatant able to act. While the
declarations are open (before combat, between rounds) a pick is one undoable, logged step and the
banner names who must still declare before the initiative roll ("All: <choice>" fills them in at
once); during a round a change asks first, and the log records it as a GM override. A ruleset's
commands on a combatant (``Ruleset.row_actions``: put it in a group of its own) make up the row's
context menu (right click, the menu key or Shift+F10), and its round notes (``Ruleset.round_notes``:
a timer die counting down) are small lines under the round's heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QContextMenuEvent, QFont, QKeyEvent, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core.dice.rolls import DiceSource, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import CombatStarted, Event, InitiativeRolled, Override
from lnl_desktop.core.encounter.model import Phase, Side, TurnSlot
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.base import DeclareSpec
from lnl_desktop.ui import style
from lnl_desktop.ui.combat_dialogs import (
    DieAsked,
    FaceProbe,
    FacesRefused,
    StartCombatDialog,
    check_faces,
    describe_die,
    dice_asked,
    dice_words,
    engine_dry_run,
    parse_faces,
    plain,
    rollers,
    set_setting_value,
    setting_changed,
    setting_editor,
    setting_value,
)
from lnl_desktop.ui.controller import TableController
from lnl_desktop.ui.widgets import RefusalLabel

ID_ROLE = Qt.ItemDataRole.UserRole + 1
SECONDS_PER_ROUND = 6

# The states a combatant shows this round.
WAITING = "waiting"
ACTING = "acting now"
ACTED = "acted"
SURPRISED = "surprised"
DOWN = "down"
OUT_OF_COMBAT = ""

GREY = QColor("#8a8a8a")
_PALE = {Side.PARTY: "#e3f0fa", Side.OPPONENTS: "#fbe9dc"}
NEXT_PLACE = QColor("#fff3c4")  # the place of the turn order whose members may act now

NOT_IN_ORDER = "Not in this round's order"

DECLARED = "Declared"  # the column of a ruleset with a declare phase
MISSING_MARK = QColor("#fff3c4")  # the cell of a combatant who must still declare
NAMES_SHOWN = 4  # the banner names this many of those who must still declare, then counts the rest
RESIZE_PRECISION = 100  # rows measured (besides those in view) when a column fits its contents


def names_said(names: list[str], limit: int = NAMES_SHOWN) -> str:
    """'Tombril, Ogre' or 'Goblin 1, …, Goblin 6 and 3 more': a list of names that keeps the banner short."""
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} and {len(names) - limit} more"


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
    who has acted this round, and the acting side."""

    by_id: dict[str, Any]
    acted: frozenset[str]
    side: Side | None


# The parts of the encounter besides the combatants that rows read: the round's state, and the
# options (whether a creature that is down still takes turns).
_ROWS_READ = frozenset({"combat", "options"})


def slot_title(place: int, slot: TurnSlot) -> str:
    """'1. Party — d20 12 +1 INIT = 13': a place of the turn order, its title and roll."""
    return f"{place}. {slot.title} — {slot.roll}" if slot.roll else f"{place}. {slot.title}"


_EXAMPLE_FACES = (14, 7, 11, 3, 17, 9, 5, 20, 2, 12)


def typed_example(asked: list[DieAsked]) -> str:
    """For several dice: an example of typing them, and what happens on a tie ("" for one die)."""
    if len(asked) < 2:
        return ""
    faces = [_EXAMPLE_FACES[i % len(_EXAMPLE_FACES)] % d.sides or d.sides for i, d in enumerate(asked)]
    whose = []
    for i, (die, face) in enumerate(zip(asked, faces, strict=True)):
        found = re.search(r"\bfor (?:the )?(.+?)(?: \(|$)", die.purpose)
        whose.append(
            f"{face} for {'the ' if 'for the ' in die.purpose else ''}{found.group(1)}"
            if found
            else f"{face} as die {i + 1}"
        )
    shown = whose if len(whose) <= 4 else [*whose[:3], "and so on"]
    return (
        f"\nFor example, {' '.join(map(str, faces))} reads {', '.join(shown)}."
        "\nIf a tie makes the rules roll again, type those dice after these: the button says which die is missing."
    )


def _elapsed(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{minutes}:{rest:02d}" if minutes else f"{rest} s"


class TurnsPanel(QWidget):
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
        QTreeWidget QComboBox { padding: 0px 4px; }
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
        self._following = False
        self._tree_shown: tuple[Any, ...] | None = None  # what the tree was last built from
        self._items: dict[str, QTreeWidgetItem] = {}  # each combatant's row in the tree
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

        self.tree = QTreeWidget(self)
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels(["Combatant", "This round", "SP", "IP"])
        self.tree.setRootIsDecorated(False)
        self.tree.setItemsExpandable(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setToolTip("Double-click a combatant of the acting side to begin its turn")
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        # Columns fit the rows in view and a hundred more, not up to a thousand: a row built again
        # (a hit) measured every row of a 500-token fight, 7 ms an action.
        header.setResizeContentsPrecision(RESIZE_PRECISION)
        self.tree.itemDoubleClicked.connect(self._on_double_click)
        self.tree.itemSelectionChanged.connect(self._on_row_selected)
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
        layout.addWidget(self.banner)
        layout.addWidget(self.reading_label)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.settings_bar)
        layout.addLayout(turn_row)
        layout.addLayout(round_row)
        layout.addWidget(self.message_label)

        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self._on_replaced)
        controller.selectionChanged.connect(self._follow_selection)
        self.refresh()

    # -- what the dock shows -------------------------------------------------------------------

    def state_of(self, cid: str) -> str:
        """This round's state of a combatant: waiting, acting now, acted, surprised, down ('' outside combat)."""
        now = self._now()
        c = now.by_id.get(cid)
        return OUT_OF_COMBAT if c is None else self._state(c, now)

    def _now(self) -> _Now:
        """What the rows read alike: the refresh's own while the tree is refreshed, else worked out now."""
        if self._now_cache is not None:
            return self._now_cache
        encounter = self.controller.encounter
        combat = encounter.combat
        side = self.controller.engine.acting_side() if combat.phase is Phase.FIGHTING else None
        return _Now(encounter.by_id(), frozenset(combat.acted), side)

    def _state(self, c: Any, now: _Now) -> str:
        encounter = self.controller.encounter
        combat = encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return OUT_OF_COMBAT
        if combat.turn is not None and combat.turn.combatant == c.id:
            return ACTING
        if c.down and self.controller.engine.ruleset.turn_refusal(encounter, c) is not None:
            return DOWN
        if c.id in now.acted:
            return ACTED
        if c.surprised:
            return SURPRISED
        return WAITING

    def may_begin(self, cid: str) -> tuple[bool, str]:
        """Whether the GM may begin this combatant's turn now, and why not."""
        now = self._now()
        c = now.by_id.get(cid)
        if c is None:
            return False, "nobody is picked"
        return self._may_begin(c, now)

    def _may_begin(self, c: Any, now: _Now) -> tuple[bool, str]:
        engine = self.controller.engine
        combat = self.controller.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return False, "combat has not started"
        if combat.turn is not None:
            return False, f"{self.controller.encounter.combatant(combat.turn.combatant).name}'s turn is under way"
        state = self._state(c, now)
        if state == ACTED:
            return False, f"{c.name} has already acted this round"
        if state == DOWN:
            return False, f"{c.name} is down"
        if state == SURPRISED:
            return False, f"{c.name} is surprised in round 1"
        side = now.side
        if side is None:
            return False, "the round is over: roll initiative for the next one"
        if not combat.order and c.side is not side:
            return False, f"the {side.value} are acting now; the {c.side.value} come after"
        # The ruleset's turn order: someone comes before ``c`` in it.
        later = engine.ruleset.order_refusal(engine, c)
        if later is not None:
            return False, later
        return True, f"Begin {c.name}'s turn"

    def item_for(self, cid: str) -> QTreeWidgetItem | None:
        """The row of combatant ``cid`` in the list (a place of the turn order held by it alone, or a
        row in a group), or None."""
        return self._items.get(cid)

    def row_count(self) -> int:
        """The lines of the turn order: every place, group heading and combatant."""
        count = 0
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            count += 1 + (item.childCount() if item.isExpanded() else 0)
        return count

    def list_height_for_every_row(self) -> int:
        """The list's height with every line in view, its header and frame included."""
        rows = 0
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            children = [item.child(j) for j in range(item.childCount())] if item.isExpanded() else []
            for line in (item, *children):
                # Rows with a Declared combo are taller than a heading: each as it is laid out.
                height = self.tree.visualItemRect(line).height()
                rows += height if height > 0 else self.tree.fontMetrics().height() + 8
        header = self.tree.header().sizeHint().height() if not self.tree.isHeaderHidden() else 0
        scroll = self.tree.horizontalScrollBar()
        below = scroll.sizeHint().height() if scroll.isVisible() else 0
        return header + rows + 2 * self.tree.frameWidth() + below + 2

    def height_for_every_row(self, width: int | None = None) -> int:
        """The dock's height at ``width`` (its own by default) with every line of the turn order in
        view: what the side panel gives it when it can."""
        width = width or self.width()
        layout = self.layout()
        total = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else layout.totalSizeHint().height()
        list_hint = self.tree.sizeHint().height()
        return total - list_hint + self.list_height_for_every_row()

    def selected_id(self) -> str | None:
        items = self.tree.selectedItems()
        cid = items[0].data(0, ID_ROLE) if items else None
        return cid if isinstance(cid, str) else None

    @property
    def message(self) -> str:
        """The refusal shown in the dock ("" when none). It goes when the encounter changes (an
        action, undo, redo, another encounter): it told of the state before."""
        return self.message_label.shown_text

    # -- what may be done now ------------------------------------------------------------------

    def availability(self) -> dict[str, str]:
        """Why each of the combat's steps cannot be taken now, "" when it can: "start" (Start combat),
        "next_round" (Next round), "end_combat" and "end_turn". The dock's buttons and
        ``end_turn_action`` are disabled with these words as their tooltips; the main window's menu
        entries may do the same. ``availabilityChanged`` is emitted when any of them changed.

        These follow the encounter's state. Faces typed in the initiative box that cannot make the
        next round disable the dock's Next round button (its tooltip says why) but not "next_round":
        asking for the round then (Ctrl+R) refuses with the reason, for the GM to correct the box."""
        encounter = self.controller.encounter
        combat = encounter.combat
        fighting = combat.phase is Phase.FIGHTING
        idle = self._not_fighting()
        if fighting:
            start = "A fight is under way: end the combat first"
        elif not encounter.side(Side.PARTY) or not encounter.side(Side.OPPONENTS):
            start = "Both sides need at least one combatant"
        else:
            start = ""
        turn = combat.turn
        next_round = idle or self._turn_under_way()
        if combat.phase is Phase.ENDED:
            end_combat = "The combat is already over"
        else:
            end_combat = "" if fighting else "No combat yet: there is nothing to end"
        end_turn = idle or ("" if turn is not None else "No turn is under way: take one first")
        return {"start": start, "next_round": next_round, "end_combat": end_combat, "end_turn": end_turn}

    def _not_fighting(self) -> str:
        """Why nothing of a fight can be done now ("" during one)."""
        phase = self.controller.encounter.combat.phase
        if phase is Phase.ENDED:
            return "The combat is over: Start combat begins a new one"
        if phase is not Phase.FIGHTING:
            return "No combat yet: start the combat first"
        return ""

    def _turn_under_way(self) -> str:
        """What holds up the next round: "Tombril's turn is under way: end it first" ("" when no turn is)."""
        turn = self.controller.encounter.combat.turn
        if turn is None:
            return ""
        return f"{self.controller.encounter.combatant(turn.combatant).name}'s turn is under way: end it first"

    def _announce(self) -> None:
        """Emit ``availabilityChanged`` when what may be done now is not what was last said."""
        available = self.availability()
        if available != self._available:
            self._available = available
            self.availabilityChanged.emit()

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

    def next_round(self, face: int | None = None) -> bool:
        """Roll (``face`` None) or read the next round's initiative d6."""
        if self._do(act.NextRound(face)) is None:
            self._name_the_missing("roll initiative")
            return False
        return True

    def next_round_faces(self, faces: list[int]) -> bool:
        """The next round with these faces of the GM's own dice, once a dry run says they fit exactly."""
        problem = check_faces(faces, self._round_dry_run())
        if problem is not None:
            self._refuse(f"Initiative: {problem}")
            self._name_the_missing("roll initiative")
            return False
        if self._do(act.NextRound(), ScriptedDice(faces)) is None:
            self._name_the_missing("roll initiative")
            return False
        return True

    def _name_the_missing(self, then: str) -> None:
        """After a refusal: when declarations are missing, the message names everyone who must still declare."""
        spec = self.declarations()
        if spec is None or not spec.missing:
            return
        by_id = self.controller.encounter.by_id()
        names = [by_id[cid].name if cid in by_id else cid for cid in spec.missing]
        said = self.message
        if not all(name in said for name in names):
            words = f"Declare for: {', '.join(names)} — then {then}"
            self._refuse(f"{said.rstrip('.')}. {words}" if said else words)

    def _round_dry_run(self) -> Any:
        return engine_dry_run(self.controller.encounter, act.NextRound())

    def roll_next_round(self) -> bool:
        """What Next round does (its button, Enter in the box, the main window's Ctrl+R): the faces
        typed in the box, checked by a dry run first, or the app's roll when it is empty; the box
        is cleared once the round has begun. A refusal is said in the dock."""
        text = self.initiative_edit.text()
        if not text.strip():
            done = self.next_round()
        else:
            try:
                faces = parse_faces(text)
            except FacesRefused as error:
                self._refuse(f"Initiative: {error}")
                return False
            done = self.next_round_faces(faces)
        if done:
            self.initiative_edit.clear()
        return done

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

    # -- declarations and the row's commands -------------------------------------------------------

    def declarations(self) -> DeclareSpec | None:
        """The ruleset's declare phase as it stands (None for a ruleset without one)."""
        engine = self.controller.engine
        try:
            return engine.ruleset.declarations(engine)
        except RulesError:
            return None

    def declare(self, cid: str, key: str, confirm: bool = True) -> bool:
        """Declare ``key`` for ``cid`` (a pick in the Declared column or the row's menu): one undoable,
        logged step. During a round the declarations are locked: a change asks first (``confirm``) and
        the log records it as a GM override. A refusal is said in the dock."""
        spec = self.declarations()
        c = self.controller.combatant(cid)
        if spec is None or c is None:
            self._refuse("Nobody declares actions under these rules")
            return False
        if spec.declared.get(cid) == key:
            return True
        if not spec.open and confirm:
            answer = QMessageBox.question(
                self,
                "Change a declaration",
                f"Change {c.name}'s declared action during the round? The log records a GM override.",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No,
            )
            if answer != QMessageBox.StandardButton.Yes:
                self._show_declaration(cid)
                return False
        try:
            action = spec.build(cid, key)
        except RulesError as refused:
            self._refuse(str(refused))
            self._show_declaration(cid)
            return False
        if self._do(action) is None:
            self._show_declaration(cid)
            return False
        return True

    def declare_all(self, key: str | None = None) -> int:
        """Declare ``key`` (the first choice by default) for everyone who must still declare, as one
        undo step; how many were declared. Checked first on a copy: a refusal changes nothing."""
        spec = self.declarations()
        if spec is None or not spec.missing or not spec.choices:
            self._refuse("Everyone has declared")
            return 0
        key = key or spec.choices[0][0]
        label = dict(spec.choices).get(key, key)
        names = self._names(spec.missing)
        if not spec.open:
            answer = QMessageBox.question(
                self,
                "Declare during the round",
                f"Declare {label} for {names} during the round? The log records GM overrides.",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return 0
        try:
            steps = [spec.build(cid, key) for cid in spec.missing]
            engine_dry_run(self.controller.encounter, *steps)(None)
        except RulesError as refused:
            self._refuse(str(refused))
            return 0
        stack = self.controller.undo_stack
        several = len(steps) > 1
        if several:
            stack.beginMacro(f"All: {label} ({len(steps)} declarations)")
        done = 0
        try:
            for step in steps:
                if self._do(step) is None:
                    break
                done += 1
        finally:
            if several:
                stack.endMacro()
        return done

    def declare_combo(self, cid: str) -> QComboBox | None:
        """The Declared column's combo of ``cid``, if it has one."""
        item = self.item_for(cid)
        column = self._declared_column
        if item is None or column is None:
            return None
        widget = self.tree.itemWidget(item, column)
        return widget if isinstance(widget, QComboBox) else None

    def row_menu(self, cid: str) -> QMenu | None:
        """The row's context menu: its declaration, then the ruleset's commands on it (None if neither)."""
        c = self.controller.combatant(cid)
        if c is None:
            return None
        engine = self.controller.engine
        menu = QMenu(self)
        menu.setToolTipsVisible(True)
        spec = self.declarations()
        if spec is not None and self._may_declare(spec, c):
            current = spec.declared.get(cid)
            sub = menu.addMenu(f"Declare for {c.name}")
            sub.setToolTipsVisible(True)
            for key, label in spec.choices:
                entry = sub.addAction(label)
                entry.setCheckable(True)
                entry.setChecked(key == current)
                entry.setToolTip(self._declare_tip(spec, c))
                entry.triggered.connect(lambda _=False, key=key: self.declare(cid, key))
        try:
            commands = engine.ruleset.row_actions(engine, c)
        except RulesError:
            commands = ()
        if commands and not menu.isEmpty():
            menu.addSeparator()
        for command in commands:
            entry = menu.addAction(command.label)
            entry.setToolTip(command.tip)
            entry.setStatusTip(command.tip)
            entry.triggered.connect(lambda _=False, command=command: self.apply_row_action(command))
        if menu.isEmpty():
            menu.deleteLater()
            return None
        return menu

    def show_row_menu(self, cid: str, where: QPoint) -> QMenu | None:
        """Pop up the row's menu at ``where`` (global); the menu shown, or None when it has nothing."""
        menu = self.row_menu(cid)
        if menu is None:
            return None
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.context_menu = menu
        menu.destroyed.connect(lambda *_: setattr(self, "context_menu", None))
        menu.popup(where)
        return menu

    def apply_row_action(self, command: Any) -> bool:
        """Apply one of the ruleset's row commands (a ``RowAction``) as one undoable step."""
        try:
            action = command.build()
        except RulesError as refused:
            self._refuse(str(refused))
            return False
        return self._do(action) is not None

    def _menu_for_current_row(self) -> None:
        item = self.tree.currentItem()
        if item is None or not item.isSelected():
            selected = self.tree.selectedItems()
            item = selected[0] if selected else None
        cid = item.data(0, ID_ROLE) if item is not None else None
        if item is None or not isinstance(cid, str):
            return
        rect = self.tree.visualItemRect(item)
        self.show_row_menu(cid, self.tree.viewport().mapToGlobal(rect.bottomLeft()))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Wheel and isinstance(watched, QComboBox) and not watched.hasFocus():
            # A combo of the Declared column never changes under a wheel that scrolls the list.
            event.ignore()
            return True
        if kind == QEvent.Type.ContextMenu and isinstance(event, QContextMenuEvent):
            if watched is self.tree.viewport() and event.reason() == QContextMenuEvent.Reason.Mouse:
                item = self.tree.itemAt(event.pos())
                cid = item.data(0, ID_ROLE) if item is not None else None
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

    def _may_declare(self, spec: DeclareSpec, c: Any) -> bool:
        """Whether ``c`` gets a declaration: able to act, or one is asked of it or recorded for it."""
        return c.id in spec.missing or c.id in spec.declared or not c.down

    def _declare_tip(self, spec: DeclareSpec, c: Any) -> str:
        if c.id in spec.missing:
            return f"{c.name} must still declare an action before the initiative roll"
        if spec.open:
            return f"{c.name}'s declared action for the coming round: it may change freely until initiative"
        return f"{c.name}'s declared action this round: changing it is a GM override, and the log says so"

    def _names(self, ids: tuple[str, ...] | list[str], limit: int = NAMES_SHOWN) -> str:
        by_id = self.controller.encounter.by_id()
        return names_said([by_id[cid].name if cid in by_id else cid for cid in ids], limit)

    def _missing_words(self, then: str, limit: int = NAMES_SHOWN) -> str:
        """'Declare for: Tombril, Ogre — then roll initiative' ("" when nobody must declare)."""
        spec = self.declare_spec
        if spec is None or not spec.missing:
            return ""
        return f"Declare for: {self._names(spec.missing, limit)} — then {then}"

    def _show_declaration(self, cid: str) -> None:
        """Put ``cid``'s combo back to what is declared (after a refusal, or a change not confirmed)."""
        combo = self.declare_combo(cid)
        spec = self.declarations()
        if combo is None or spec is None:
            return
        key = spec.declared.get(cid)
        with QSignalBlocker(combo):
            combo.setCurrentIndex(combo.findData(key) if key is not None else -1)

    def _on_declare_picked(self, cid: str, combo: QComboBox, index: int) -> None:
        key = combo.itemData(index)
        if isinstance(key, str):
            self.declare(cid, key)

    def _do(self, action: act.Action, dice: DiceSource | None = None) -> list[Event] | None:
        events = self.controller.do(action, dice)
        if events is None:
            self._refuse(self.controller.refusal or "refused")
        else:
            self._clear_message()
        return events

    def _refuse(self, text: str) -> None:
        self.message_label.refuse(text)

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
        self.start_button.setText("Start combat… (declare first)" if undeclared and not fighting else "Start combat…")
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
        who = encounter.combatant(turn.combatant).name if turn is not None else ""
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

    def _refresh_declare_all(self) -> None:
        """The "All: <choice>" button: shown while someone must still declare."""
        spec = self.declare_spec
        button = self.declare_all_button
        shown = spec is not None and bool(spec.missing) and bool(spec.choices)
        button.setVisible(shown)
        if spec is None or not shown:
            return
        label = spec.choices[0][1]
        short = label if len(label) <= 14 else label[:13] + "…"
        button.setText(f"All: {short}")
        names = self._names(spec.missing, limit=len(spec.missing))
        button.setToolTip(
            f"Declare {label} for everyone who has not declared yet ({names}): one undo step. "
            "The arrow offers the other choices"
        )
        button.setAccessibleName(f"Declare {label} for all who have not declared")
        menu = button.menu()
        menu.clear()
        for choice, words in spec.choices:
            entry = menu.addAction(f"All: {words}")
            entry.triggered.connect(lambda _=False, choice=choice: self.declare_all(choice))

    def _refresh_notes(self) -> None:
        """The ruleset's lines under the round's heading (a timer die counting down); hidden when none."""
        engine = self.controller.engine
        try:
            notes = tuple(engine.ruleset.round_notes(engine))
        except RulesError:
            notes = ()
        text = "\n".join(notes)
        if self.notes_label.text() != text:
            self.notes_label.setText(text)
        self.notes_label.setVisible(bool(notes))

    def _refresh_header(self) -> None:
        encounter = self.controller.encounter
        combat = encounter.combat
        engine = self.controller.engine
        # The banner names a few of those who must still declare; its tooltip names them all.
        spec = self.declare_spec
        everyone = len(spec.missing) if spec is not None else 0
        then = "start the combat" if combat.phase is Phase.SETUP else "roll initiative"
        self.banner.setToolTip(self._missing_words(then, limit=everyone))
        if combat.phase is Phase.SETUP:
            self.round_label.setText("No combat yet")
            undeclared = self._missing_words("start the combat")
            self._set_banner(undeclared or "Place the tokens, then start the combat.", None)
            self.reading = ""
            self.reading_label.setText("")
            self.reading_label.hide()
            return
        elapsed = _elapsed(engine.elapsed_seconds)
        self.round_label.setText(f"{combat.round_name} · {elapsed} elapsed")
        self.round_label.setToolTip(
            f"A round is about {engine.ruleset.round_seconds} seconds; elapsed time counts finished rounds"
        )
        ready = engine.waiting() if combat.order and combat.phase is Phase.FIGHTING else []
        if combat.phase is Phase.ENDED:
            self._set_banner(f"Combat over after {combat.round} round{'s' if combat.round != 1 else ''}.", None)
        elif combat.turn is not None:
            c = encounter.combatant(combat.turn.combatant)
            self._set_banner(f"{c.name}'s turn ({c.side.value}): end it when done (Space)", c.side)
        elif engine.round_over:
            undeclared = self._missing_words("roll initiative")
            over = f"{combat.round_name} is over"
            self._set_banner(
                f"{over}. {undeclared}" if undeclared else f"{over}: roll initiative for the next round", None
            )
        elif ready:
            slot = self._acting_slot()
            if len(ready) == 1:
                self._set_banner(f"{ready[0].name} acts next: take the turn", ready[0].side)
            else:
                who = slot.title if slot is not None else ", ".join(c.name for c in ready)
                self._set_banner(f"{who}: pick who goes next", ready[0].side)
        else:
            side = engine.acting_side()
            assert side is not None
            verb = "acts" if side is Side.PARTY else "act"
            self._set_banner(f"{side.value} {verb}: pick who goes next", side)
        self.reading = self._reading()
        self._show_reading()
        self.reading_label.setVisible(bool(self.reading))

    def _show_reading(self) -> None:
        """The reading in full, or on one line when the turn order below lists the rolls anyway
        (a long individual initiative would take the list's room); the tooltip has it all."""
        one_line = bool(self.controller.encounter.combat.order)
        self.reading_label.setWordWrap(not one_line)
        self.reading_label.setToolTip(
            f"How this round's dice were read: {self.reading}" if one_line else "How this round's die was read"
        )
        if not one_line:
            self.reading_label.setText(self.reading)
            return
        room = max(self.width() - 24, 120)
        metrics = self.reading_label.fontMetrics()
        self.reading_label.setText(metrics.elidedText(self.reading, Qt.TextElideMode.ElideRight, room))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.controller.encounter.combat.order:
            self._show_reading()

    def _reading(self) -> str:
        """Round 1's surprise outcome in words, or this round's initiative reading."""
        combat = self.controller.encounter.combat
        log = self.controller.encounter.log
        if combat.round == combat.first_round:
            for i in range(len(log) - 1, -1, -1):
                event = log[i]
                if isinstance(event, CombatStarted):
                    extra = log[i + 1] if i + 1 < len(log) else None
                    text = event.text
                    if isinstance(extra, Override) and extra.text.startswith("Cannot be surprised"):
                        text += f". {extra.text}"
                    return text
            return ""
        for event in reversed(log):
            if isinstance(event, InitiativeRolled) and event.round == combat.round:
                return event.text
        return ""

    def _set_banner(self, text: str, side: Side | None) -> None:
        self.banner.setText(text)
        back = _PALE[side] if side is not None else "#f2f2f2"
        edge = style.side_color(side).name() if side is not None else "#b9b9b9"
        self.banner.setStyleSheet(f"background: {back}; border-left: 6px solid {edge};")

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
        """Build the list again where what it shows changed; ``only``: the combatants whose rows may
        have changed if what all rows read alike (the acting side, the declarations) did not."""
        encounter = self.controller.encounter
        engine = self.controller.engine
        keep = self.selected_id() or self.controller.selected
        groups = self._order_groups() if encounter.combat.order else self._side_groups()
        spec = self.declare_spec
        # What every row reads alike, besides the round's state: the acting side, who declared what,
        # and the names the rows' words give (whose turn is under way, who acts first in the order).
        now = self._now()
        turn = encounter.combat.turn
        holder = now.by_id.get(turn.combatant) if turn is not None else None
        alike = (
            now.side,
            None if spec is None else (tuple(spec.missing), dict(spec.declared)),
            tuple((c.id, c.name) for c in engine.waiting()) if encounter.combat.order else None,
            None if holder is None else holder.name,
        )
        old = self._tree_shown
        if only is not None and old is not None and old[5] == alike and self._same_members(old[4], groups):
            rows = tuple(
                (
                    head,
                    tuple(
                        self._row_content(c) if c.id in only else was for c, was in zip(members, contents, strict=True)
                    ),
                )
                for (head, members), (_, contents) in zip(groups, old[4], strict=True)
            )
        else:
            # Every event refreshes the dock; the tree is rebuilt only when what it shows changed.
            rows = tuple((head, tuple(self._row_content(c) for c in members)) for head, members in groups)
        declaring = None if spec is None else (spec.choices, spec.open)
        # The bars' columns are the ruleset's (SP and IP in L&L); a declare phase adds its column first.
        sample = encounter.combatants[0] if encounter.combatants else None
        ruleset = engine.ruleset
        gauges = [g.label for g in ruleset.gauges(sample)] if sample is not None else list(ruleset.gauge_labels())
        shown = (keep, self.tree.font().key(), declaring, tuple(gauges), rows, alike)
        if shown == old:
            return
        self._tree_shown = shown
        if old is not None and old[1:4] == shown[1:4] and self._same_places(old[4], rows):
            self._replace_rows(old[4], groups, rows, keep)
            return
        with QSignalBlocker(self.tree):
            self.tree.clear()
            self._items = {}
            declared = [DECLARED] if spec is not None else []
            self._declared_column = 2 if spec is not None else None
            self.tree.setColumnCount(2 + len(declared) + len(gauges))
            self.tree.setHeaderLabels(["Combatant", "This round", *declared, *gauges])
            header = self.tree.header()
            for column in range(1, self.tree.columnCount()):
                header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
            if spec is not None:
                when = "for the coming round" if spec.open else "this round (a change is a GM override)"
                self.tree.headerItem().setToolTip(
                    2, f"The action each combatant declared before initiative, {when}. Pick one in the list"
                )
            # A combo is taller than a line of text: the rows follow their contents then.
            self.tree.setUniformRowHeights(spec is None)
            for head, members in groups:
                if head.single and members:
                    self._add_single(head, members[0])
                    continue
                group = QTreeWidgetItem(self.tree, [head.title])
                group.setFirstColumnSpanned(True)
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                group.setToolTip(0, head.tip)
                font = QFont(self.tree.font())
                font.setBold(True)
                group.setFont(0, font)
                if head.done:
                    group.setForeground(0, QBrush(GREY))
                elif head.side is not None:
                    group.setForeground(0, QBrush(style.side_color(head.side)))
                if head.next:
                    group.setBackground(0, QBrush(NEXT_PLACE))
                for c in members:
                    self._add_row(group, c)
                group.setExpanded(True)
            item = self.item_for(keep) if keep else None
            if item is not None:
                item.setSelected(True)
                self.tree.setCurrentItem(item)

    @staticmethod
    def _same_places(old: tuple[Any, ...], rows: tuple[Any, ...]) -> bool:
        """Whether the list keeps its groups and each row its combatant: only rows' contents changed."""
        return len(old) == len(rows) and all(
            head == old_head and [content[0] for content in contents] == [content[0] for content in old_contents]
            for (head, contents), (old_head, old_contents) in zip(rows, old, strict=True)
        )

    @staticmethod
    def _same_members(old: tuple[Any, ...], groups: list[tuple[_Head, list[Any]]]) -> bool:
        """Whether the list's groups are as they were, with the same combatants in the same places."""
        return len(old) == len(groups) and all(
            head == old_head
            and len(members) == len(contents)
            and all(c.id == content[0] for c, content in zip(members, contents, strict=True))
            for (head, members), (old_head, contents) in zip(groups, old, strict=True)
        )

    def _replace_rows(
        self, old: tuple[Any, ...], groups: list[tuple[_Head, list[Any]]], rows: tuple[Any, ...], keep: str | None
    ) -> None:
        """Build again just the rows whose contents changed (a hit takes SP off one combatant: one row)."""
        with QSignalBlocker(self.tree):
            for place, ((head, members), (_, contents), (_, old_contents)) in enumerate(
                zip(groups, rows, old, strict=True)
            ):
                for index, (c, content, was) in enumerate(zip(members, contents, old_contents, strict=True)):
                    if content == was:
                        continue
                    if head.single:
                        self.tree.takeTopLevelItem(place)
                        self._add_single(head, c, place)
                    else:
                        group = self.tree.topLevelItem(place)
                        group.takeChild(index)
                        self._add_row(group, c, index=index)
            kept = self._items.get(keep) if keep else None
            if kept is not None and not kept.isSelected():
                kept.setSelected(True)
                self.tree.setCurrentItem(kept)

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

    def _acting_slot(self) -> TurnSlot | None:
        """The place of the turn order that acts now: the one of the turn under way, or the first
        whose members may still act."""
        combat = self.controller.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return None
        if combat.turn is not None:
            return next((s for s in combat.order if combat.turn.combatant in s.members), None)
        ready = {c.id for c in self.controller.engine.waiting()}
        return next((s for s in combat.order if ready & set(s.members)), None)

    def _row_content(self, c: Any) -> tuple[object, ...]:
        """Everything a combatant's row shows: its texts, tooltips, colours and fonts follow from these."""
        now = self._now()
        return (
            c.id,
            c.name,
            c.side,
            c.surprised,
            c.cannot_be_surprised,
            self.controller.engine.ruleset.gauges(c),
            self._state(c, now),
            self._may_begin(c, now),
            self._token_word(c),
            self._declaration_of(c),
        )

    def _declaration_of(self, c: Any) -> tuple[str | None, bool] | None:
        """What the Declared column shows for ``c``: its declaration and whether one is missing (None: no combo)."""
        spec = self.declare_spec
        if spec is None or not self._may_declare(spec, c):
            return None
        return spec.declared.get(c.id), c.id in spec.missing

    def _token_word(self, c: Any) -> str:
        """The ruleset's word for the combatant's state ("flees", "surrenders", "dead"), or ""."""
        try:
            return str(self.controller.engine.ruleset.token_word(c) or "")
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

    def _add_single(self, head: _Head, c: Any, index: int | None = None) -> QTreeWidgetItem:
        """A place of the order held by one combatant: one row, its title and roll first."""
        item = self._add_row(self.tree, c, head.title, index)
        item.setToolTip(0, f"{head.tip}. {item.toolTip(0)}")
        if head.next:
            for column in range(self.tree.columnCount()):
                item.setBackground(column, QBrush(NEXT_PLACE))
        return item

    def _add_row(
        self, group: QTreeWidgetItem | QTreeWidget, c: Any, title: str = "", index: int | None = None
    ) -> QTreeWidgetItem:
        """Combatant ``c``'s row at the end of ``group`` (or at ``index`` in it)."""
        now = self._now()
        state = self._state(c, now)
        label = state
        if state == WAITING and c.surprised and c.cannot_be_surprised:
            label = "waiting (cannot be surprised)"
        word = self._token_word(c)
        if word:
            label = f"{label} · {word}" if label else word  # who flees, surrenders, is dead
        gauges = [f"{g.now}/{g.most}" for g in self.controller.engine.ruleset.gauges(c)]
        spec = self.declare_spec
        declared = [""] if spec is not None else []
        item = QTreeWidgetItem([title or c.name, label, *declared, *gauges])
        if isinstance(group, QTreeWidget):
            group.insertTopLevelItem(group.topLevelItemCount() if index is None else index, item)
        else:
            group.insertChild(group.childCount() if index is None else index, item)
        item.setData(0, ID_ROLE, c.id)
        self._items[c.id] = item
        if spec is not None:
            self._add_declare_combo(item, c, spec)
        ok, why = self._may_begin(c, now)
        item.setToolTip(0, why if ok else f"Cannot begin the turn: {why}")
        item.setToolTip(1, why if ok else f"Cannot begin the turn: {why}")
        if state in (ACTED, SURPRISED, DOWN):
            for column in range(self.tree.columnCount()):
                item.setForeground(column, QBrush(GREY))
        if state == DOWN:
            font = QFont(self.tree.font())
            font.setItalic(True)
            font.setStrikeOut(True)
            item.setFont(0, font)
        if state == ACTING:
            font = QFont(self.tree.font())
            font.setBold(True)
            for column in range(self.tree.columnCount()):
                item.setFont(column, font)
                item.setBackground(column, QBrush(QColor(_PALE[c.side])))
        elif ok:
            font = QFont(self.tree.font())
            font.setBold(True)
            item.setFont(1, font)
            item.setForeground(1, QBrush(QColor("#1b7a3a")))
        return item

    def _add_declare_combo(self, item: QTreeWidgetItem, c: Any, spec: DeclareSpec) -> None:
        """The Declared cell: a narrow combo of the choices (empty until declared), or nothing for
        a combatant who cannot act and has no declaration."""
        if not self._may_declare(spec, c):
            return
        combo = QComboBox()
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(7)
        combo.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # a wheel over the list scrolls it, never picks
        combo.installEventFilter(self)
        combo.setPlaceholderText("declare…")
        for key, label in spec.choices:
            combo.addItem(label, key)
        current = spec.declared.get(c.id)
        if current is not None and combo.findData(current) < 0:
            combo.addItem(current, current)  # a declaration the choices do not list (kept as it is)
        combo.setCurrentIndex(combo.findData(current) if current is not None else -1)
        missing = c.id in spec.missing
        combo.setProperty("missing", missing)
        combo.setToolTip(self._declare_tip(spec, c))
        combo.setAccessibleName(f"{c.name}'s declared action")
        view = combo.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 24)  # the list pops up as wide as its words
        combo.activated.connect(lambda index, cid=c.id, combo=combo: self._on_declare_picked(cid, combo, index))
        self.tree.setItemWidget(item, 2, combo)
        if missing:
            item.setBackground(2, QBrush(MISSING_MARK))

    def _refresh_take_turn(self) -> None:
        cid = self.selected_id()
        if cid is None:
            waiting = self.controller.engine.waiting()
            ok = False
            if waiting and self.controller.encounter.combat.order:
                why = f"Pick who goes next in the list: {', '.join(c.name for c in waiting)}"
            else:
                why = "Pick a combatant of the acting side in the list" if waiting else self._no_turn_reason()
            name = ""
        else:
            ok, why = self.may_begin(cid)
            c = self.controller.combatant(cid)
            name = c.name if c is not None else ""
        self.take_turn_button.setEnabled(ok)
        self.take_turn_button.setText(self._named(self.take_turn_button, f"Take {name}'s turn", "Take turn", ok))
        self.take_turn_button.setToolTip(why if ok else f"Cannot begin a turn: {why}")

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
            return f"{self.controller.encounter.combatant(combat.turn.combatant).name}'s turn is under way"
        return "the round is over: roll initiative for the next one"

    def _refresh_next_round(self) -> None:
        """The caption, the typed faces and the button of the next round, from what it reads (a dry run)."""
        asked = self._round_dice or []
        single = len(asked) == 1
        if single:
            self.initiative_caption.setText(f"Initiative d{asked[0].sides}:")
            self.initiative_edit.setPlaceholderText("roll")
            self.initiative_edit.setMaximumWidth(56)
        elif asked:
            names = ", ".join(rollers(asked))
            short = f" ({names})" if names and len(names) <= 28 else ""
            self.initiative_caption.setText(f"Initiative: {dice_words(asked)}{short}")
            self.initiative_edit.setPlaceholderText(f"roll, or type {dice_words(asked)}")
            self.initiative_edit.setMaximumWidth(min(56 + 22 * len(asked), 200))
        order = "\n".join(f"{i}. {describe_die(d)}" for i, d in enumerate(asked, 1))
        caption_tip = f"The next round reads, in this order:\n{order}" if asked else "The next round rolls no die"
        self.initiative_caption.setToolTip(caption_tip)
        self.initiative_edit.setToolTip(
            "Leave empty for the app to roll, or type the face of your own d6 (1-6)"
            if single and asked[0].sides == 6
            else f"Leave empty for the app to roll, or type the faces of your own dice in this order:\n{order}"
            + typed_example(asked)
        )
        text = self.initiative_edit.text()
        blocked = self._not_fighting() or self._turn_under_way()
        if blocked:  # the button is not shown then; disabled all the same, with why
            self.next_round_button.setText("Next round")
            self.next_round_button.setEnabled(False)
            self.next_round_button.setToolTip(blocked)
            self._mark(False)
            return
        undeclared = self._missing_words("roll initiative", limit=len(self.controller.encounter.combatants))
        if undeclared:
            self.next_round_button.setText("Next round: declare first")
            self.next_round_button.setEnabled(True)
            self.next_round_button.setToolTip(f"{undeclared}: the rules roll no initiative before that")
            self._mark(False)
            return
        if self._round_dice is None:
            self.next_round_button.setText("Next round")
            self.next_round_button.setEnabled(True)
            self.next_round_button.setToolTip("Begin the next round (the rules may refuse it: they say why)")
            self._mark(False)
            return
        if not text.strip() or not asked:
            roll = f"the initiative d{asked[0].sides}" if single else dice_words(asked)
            self.next_round_button.setText(f"Next round: roll {roll}" if asked else "Next round")
            self.next_round_button.setEnabled(True)
            self.next_round_button.setToolTip(self._roll_tip(asked))
            self._mark(False)
            return
        try:
            faces = parse_faces(text)
            problem = check_faces(faces, self._round_dry_run())
        except FacesRefused as error:
            faces, problem = [], str(error)
        if problem is not None:
            self.next_round_button.setText("Next round")
            self.next_round_button.setEnabled(False)
            self.next_round_button.setToolTip(f"Initiative: {problem}")
            self._mark(True)
            return
        words, tip = self._preview(faces)
        self.next_round_button.setText(f"Next round: {words}")
        self.next_round_button.setEnabled(True)
        self.next_round_button.setToolTip(tip)
        self._mark(False)

    def _roll_tip(self, asked: list[DieAsked]) -> str:
        """What the app's roll reads: the faces of a one-die side initiative, or the dice in order."""
        if not asked:
            return "The next round rolls no die"
        if len(asked) == 1:
            sides = asked[0].sides
            try:
                readings = [(face, self.controller.engine.ruleset.initiative(face)) for face in range(1, sides + 1)]
            except RulesError:
                readings = []
            if readings:
                spans: list[str] = []
                start = 0
                for i in range(1, len(readings) + 1):
                    if i == len(readings) or readings[i][1] is not readings[start][1]:
                        low, high = readings[start][0], readings[i - 1][0]
                        faces = f"{low}" if low == high else f"{low}-{high}"
                        spans.append(f"{faces} {readings[start][1].acts_first}")
                        start = i
                return f"The app rolls the d{sides}: {', '.join(spans)}"
        return "The app rolls " + ", then ".join(describe_die(d) for d in asked)

    def _preview(self, faces: list[int]) -> tuple[str, str]:
        """What the next round would be with these faces (a dry run): the button's words and its tooltip."""
        engine = self._round_dry_run()(FaceProbe(faces))
        combat = engine.encounter.combat  # type: ignore[attr-defined]
        log = engine.encounter.log  # type: ignore[attr-defined]
        said = next((e.text for e in log if isinstance(e, InitiativeRolled)), "")
        if combat.order:
            lines = [slot_title(i, s) for i, s in enumerate(combat.order, 1)]
            return f"{combat.order[0].title} first", "\n".join(lines)
        first = combat.first_side
        shown = " ".join(map(str, faces))
        return (f"{shown}, {first.acts_first}" if first is not None else shown), f"Read your dice: {said}"

    # -- the round's settings ----------------------------------------------------------------

    def _refresh_settings(self) -> None:
        """One small editor per round setting of the ruleset, showing the encounter's options."""
        ruleset = self.controller.engine.ruleset
        if ruleset.name != self._settings_of:
            self._build_settings()
        options = self.controller.encounter.options
        for key, editor in self.setting_editors.items():
            set_setting_value(editor, getattr(options, key, None))
        self.settings_bar.setVisible(bool(self.setting_editors))

    def _build_settings(self) -> None:
        ruleset = self.controller.engine.ruleset
        self._settings_of = ruleset.name
        while self.settings_layout.count():
            child = self.settings_layout.takeAt(0)
            widget = child.widget() if child is not None else None
            if widget is not None:
                widget.deleteLater()
        self.setting_editors = {}
        for setting in ruleset.round_settings():
            editor = setting_editor(setting, self.settings_bar)
            if not isinstance(editor, QCheckBox):
                caption = QLabel(f"{setting.label}:", self.settings_bar)
                caption.setToolTip(setting.tip)
                caption.setBuddy(editor)
                self.settings_layout.addWidget(caption)
            self.settings_layout.addWidget(editor)
            self.settings_layout.addSpacing(6)
            setting_changed(editor).connect(lambda *_, key=setting.key: self.change_setting(key))
            self.setting_editors[setting.key] = editor
        self.settings_layout.addStretch(1)

    def set_setting(self, key: str, value: Any) -> bool:
        """Change a round setting as the GM does in its editor (``EditOptions``, one undoable step)."""
        set_setting_value(self.setting_editors[key], value)
        return self.change_setting(key)

    def change_setting(self, key: str) -> bool:
        editor = self.setting_editors[key]
        value = setting_value(editor)
        options = self.controller.encounter.options
        if plain(getattr(options, key, None)) == value:
            return True
        ok = self._do(act.EditOptions({key: value})) is not None
        if not ok:
            set_setting_value(editor, getattr(options, key, None))
        return ok

    def _mark(self, invalid: bool) -> None:
        if bool(self.initiative_edit.property("invalid")) != invalid:
            self.initiative_edit.setProperty("invalid", invalid)
            self.initiative_edit.style().unpolish(self.initiative_edit)
            self.initiative_edit.style().polish(self.initiative_edit)

    # -- selection -----------------------------------------------------------------------------

    def _on_double_click(self, item: QTreeWidgetItem, column: int) -> None:
        cid = item.data(0, ID_ROLE)
        if isinstance(cid, str):
            # Beginning the turn rebuilds the tree; Qt is still handing this item to other slots
            # of the signal, so the rebuild waits until the signal is delivered.
            QTimer.singleShot(0, self, lambda: self.begin_turn(cid))

    def _on_row_selected(self) -> None:
        self._refresh_take_turn()
        cid = self.selected_id()
        if cid is not None and not self._following:
            self.controller.select(cid)

    def _follow_selection(self, cid: str) -> None:
        item = self.item_for(cid) if cid else None
        self._following = True
        try:
            with QSignalBlocker(self.tree):
                self.tree.clearSelection()
                if item is not None:
                    item.setSelected(True)
                    self.tree.setCurrentItem(item)
        finally:
            self._following = False
        self._refresh_take_turn()
