"""The Turns dock: the round, who acts now, and the GM's picks of who goes next.

RULES §2: the initiative d6 says which side acts first; inside that side the members take their
turns in any order, then the other side does. The dock groups the combatants by side with their
state this round (waiting, acting now, acted, surprised, down), lets the GM begin the turn of
anyone of the acting side who has not acted (double-click or "Take turn"), end it, roll or type
the next round's initiative, start and end the combat. It keeps no copy of the encounter: it is
redrawn from the engine after every event, undo included.

A ruleset that sets a turn order each round (``combat.order``: Old-School d20's group or
individual initiative) has it shown instead of the sides: each place in order with its roll, its
members under it, the place acting now highlighted. The dice the next round reads, and the
typed faces, are found by a dry run of ``NextRound`` on a copy of the encounter; the ruleset's
round settings (light, initiative by group or individual) have one small editor each.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QFont, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from lnl_desktop.core import actions as act
from lnl_desktop.core.dice import DiceSource, ScriptedDice
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.events import CombatStarted, Event, InitiativeRolled, Override
from lnl_desktop.core.model import Phase, Side, TurnSlot
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


def _elapsed(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{minutes}:{rest:02d}" if minutes else f"{rest} s"


class TurnsPanel(QWidget):
    """Round, banner, the combatants by side with their state, and the turn buttons."""

    # The combat's outcome read in words, when a combat starts ("Party surprised: Opponents act first").
    combatStarted = Signal(str)

    _STYLE = """
        QLabel#round { font-size: 12pt; font-weight: bold; }
        QLabel#banner { font-size: 12pt; font-weight: bold; border-radius: 4px; padding: 6px 8px;
                        border: 1px solid #b9b9b9; }
        QLabel#reading { padding: 2px 8px; }
        QLineEdit[invalid="true"] { border: 2px solid #c62828; background: #fdecea; }
    """

    def __init__(self, controller: TableController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Turns")
        self.setStyleSheet(self._STYLE)
        self.controller = controller
        self.start_dialog: StartCombatDialog | None = None
        self._following = False
        self._tree_shown: tuple[object, ...] | None = None  # what the tree was last built from
        self._round_dice: list[DieAsked] | None = []  # what the next round reads (a dry run), None if refused
        self.setting_editors: dict[str, QWidget] = {}
        self._settings_of = ""  # the ruleset the settings' editors were built for

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
        self.tree.itemDoubleClicked.connect(self._on_double_click)
        self.tree.itemSelectionChanged.connect(self._on_row_selected)

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
        self.next_round_button.clicked.connect(self._next_round_clicked)
        self.initiative_caption = QLabel("Initiative d6:", self)

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
        round_row = QHBoxLayout()
        round_row.addWidget(self.initiative_caption)
        round_row.addWidget(self.initiative_edit)
        round_row.addWidget(self.next_round_button, 1)
        combat_row = QHBoxLayout()
        combat_row.addWidget(self.start_button)
        combat_row.addStretch(1)
        combat_row.addWidget(self.end_combat_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.round_label)
        layout.addWidget(self.banner)
        layout.addWidget(self.reading_label)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.settings_bar)
        layout.addLayout(turn_row)
        layout.addLayout(round_row)
        layout.addWidget(self.message_label)
        layout.addLayout(combat_row)

        controller.eventsApplied.connect(self._on_events)
        controller.encounterReplaced.connect(self.refresh)
        controller.selectionChanged.connect(self._follow_selection)
        self.refresh()

    # -- what the dock shows -------------------------------------------------------------------

    def state_of(self, cid: str) -> str:
        """This round's state of a combatant: waiting, acting now, acted, surprised, down ('' outside combat)."""
        encounter = self.controller.encounter
        combat = encounter.combat
        c = self.controller.combatant(cid)
        if c is None or combat.phase is not Phase.FIGHTING:
            return OUT_OF_COMBAT
        if combat.turn is not None and combat.turn.combatant == cid:
            return ACTING
        if c.down and self.controller.engine.ruleset.turn_refusal(encounter, c) is not None:
            return DOWN
        if cid in combat.acted:
            return ACTED
        if c.surprised:
            return SURPRISED
        return WAITING

    def may_begin(self, cid: str) -> tuple[bool, str]:
        """Whether the GM may begin this combatant's turn now, and why not."""
        engine = self.controller.engine
        combat = self.controller.encounter.combat
        c = self.controller.combatant(cid)
        if c is None:
            return False, "nobody is picked"
        if combat.phase is not Phase.FIGHTING:
            return False, "combat has not started"
        if combat.turn is not None:
            return False, f"{self.controller.encounter.combatant(combat.turn.combatant).name}'s turn is under way"
        state = self.state_of(cid)
        if state == ACTED:
            return False, f"{c.name} has already acted this round"
        if state == DOWN:
            return False, f"{c.name} is down"
        if state == SURPRISED:
            return False, f"{c.name} is surprised in round 1"
        side = engine.acting_side()
        if side is None:
            return False, "the round is over: roll initiative for the next one"
        if c.side is not side:
            return False, f"the {side.value} are acting now; the {c.side.value} come after"
        return True, f"Begin {c.name}'s turn"

    def item_for(self, cid: str) -> QTreeWidgetItem | None:
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            for j in range(group.childCount()):
                item = group.child(j)
                if item.data(0, ID_ROLE) == cid:
                    return item
        return None

    def selected_id(self) -> str | None:
        items = self.tree.selectedItems()
        cid = items[0].data(0, ID_ROLE) if items else None
        return cid if isinstance(cid, str) else None

    @property
    def message(self) -> str:
        """The refusal shown in the dock ("" when none)."""
        return self.message_label.shown_text

    # -- the GM's moves ------------------------------------------------------------------------

    def start_combat(self) -> StartCombatDialog:
        """Open the Start combat dialog (window-modal); its Start applies ``StartCombat``."""
        dialog = StartCombatDialog(self.controller.encounter, self)
        dialog.accepted.connect(lambda: self.apply_start(dialog.action()))
        dialog.finished.connect(dialog.deleteLater)
        self.start_dialog = dialog
        dialog.open()
        return dialog

    def apply_start(self, action: act.StartCombat, dice: DiceSource | None = None) -> bool:
        events = self._do(action, dice)
        if events is None:
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
        return self._do(act.NextRound(face)) is not None

    def _next_round_clicked(self) -> None:
        text = self.initiative_edit.text()
        face: int | None = None
        if text.strip():
            face, problem = check_d6(text)
            if problem is not None:
                self._refuse(f"Initiative: {problem}")
                return
        if self.next_round(face):
            self.initiative_edit.clear()

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
        self.refresh()

    def refresh(self) -> None:
        encounter = self.controller.encounter
        combat = encounter.combat
        fighting = combat.phase is Phase.FIGHTING
        self._refresh_header()
        self._refresh_tree()

        turn = combat.turn
        self.start_button.setVisible(combat.phase is not Phase.FIGHTING)
        self.start_button.setEnabled(bool(encounter.side(Side.PARTY)) and bool(encounter.side(Side.OPPONENTS)))
        if not self.start_button.isEnabled():
            self.start_button.setToolTip("Both sides need at least one combatant")
        else:
            self.start_button.setToolTip("Pick the surprise situation and roll (or type) the first d6")
        self.end_combat_button.setVisible(fighting)

        self.take_turn_button.setVisible(fighting)
        self.end_turn_button.setVisible(fighting)
        self.end_turn_button.setEnabled(turn is not None)
        who = encounter.combatant(turn.combatant).name if turn is not None else ""
        self.end_turn_button.setText(f"End {who}'s turn" if turn is not None else "End turn")
        self.end_turn_button.setToolTip(
            f"End {who}'s turn (Space)" if turn is not None else "No turn is under way: take one first"
        )
        self.end_turn_action.setEnabled(turn is not None)
        self.end_turn_action.setText(f"&End {who}'s turn" if turn is not None else "&End turn")
        self._refresh_take_turn()

        over = self.controller.engine.round_over
        for widget in (self.initiative_caption, self.initiative_edit, self.next_round_button):
            widget.setVisible(over)
        self._refresh_next_round()

    def _refresh_header(self) -> None:
        encounter = self.controller.encounter
        combat = encounter.combat
        engine = self.controller.engine
        if combat.phase is Phase.SETUP:
            self.round_label.setText("No combat yet")
            self._set_banner("Place the tokens, then start the combat.", None)
            self.reading_label.setText("")
            self.reading_label.hide()
            return
        elapsed = _elapsed(engine.elapsed_seconds)
        self.round_label.setText(f"{combat.round_name} · {elapsed} elapsed")
        if combat.phase is Phase.ENDED:
            self._set_banner(f"Combat over after {combat.round} round{'s' if combat.round != 1 else ''}.", None)
        elif combat.turn is not None:
            c = encounter.combatant(combat.turn.combatant)
            self._set_banner(f"{c.name}'s turn ({c.side.value}): end it when done (Space)", c.side)
        elif engine.round_over:
            self._set_banner(f"{combat.round_name} is over: roll initiative for the next round", None)
        else:
            side = engine.acting_side()
            assert side is not None
            verb = "acts" if side is Side.PARTY else "act"
            self._set_banner(f"{side.value} {verb}: pick who goes next", side)
        reading = self._reading()
        self.reading_label.setText(reading)
        self.reading_label.setVisible(bool(reading))

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
        encounter = self.controller.encounter
        combat = encounter.combat
        engine = self.controller.engine
        acting = engine.acting_side()
        first = combat.first_side or Side.PARTY
        keep = self.selected_id() or self.controller.selected
        groups = [(side, self._group_title(side, acting), encounter.side(side)) for side in (first, first.other)]
        # Every event refreshes the dock; the tree is rebuilt only when what it shows changed.
        rows = tuple((side, title, tuple(self._row_content(c) for c in members)) for side, title, members in groups)
        shown = (keep, self.tree.font().key(), rows)
        if shown == self._tree_shown:
            return
        self._tree_shown = shown
        with QSignalBlocker(self.tree):
            self.tree.clear()
            # The bars' columns are the ruleset's (SP and IP in L&L).
            sample = encounter.combatants[0] if encounter.combatants else None
            ruleset = engine.ruleset
            gauges = [g.label for g in ruleset.gauges(sample)] if sample is not None else list(ruleset.gauge_labels())
            self.tree.setColumnCount(2 + len(gauges))
            self.tree.setHeaderLabels(["Combatant", "This round", *gauges])
            for side, title, members in groups:
                group = QTreeWidgetItem(self.tree, [title])
                group.setFirstColumnSpanned(True)
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                font = QFont(self.tree.font())
                font.setBold(True)
                group.setFont(0, font)
                group.setForeground(0, QBrush(style.side_color(side)))
                for c in members:
                    self._add_row(group, c)
                group.setExpanded(True)
            item = self.item_for(keep) if keep else None
            if item is not None:
                item.setSelected(True)
                self.tree.setCurrentItem(item)

    def _row_content(self, c: Any) -> tuple[object, ...]:
        """Everything a combatant's row shows: its texts, tooltips, colours and fonts follow from these."""
        return (
            c.id,
            c.name,
            c.side,
            c.surprised,
            c.cannot_be_surprised,
            self.controller.engine.ruleset.gauges(c),
            self.state_of(c.id),
            self.may_begin(c.id),
        )

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

    def _add_row(self, group: QTreeWidgetItem, c: Any) -> None:
        state = self.state_of(c.id)
        label = state
        if state == WAITING and c.surprised and c.cannot_be_surprised:
            label = "waiting (cannot be surprised)"
        gauges = [f"{g.now}/{g.most}" for g in self.controller.engine.ruleset.gauges(c)]
        item = QTreeWidgetItem(group, [c.name, label, *gauges])
        item.setData(0, ID_ROLE, c.id)
        ok, why = self.may_begin(c.id)
        item.setToolTip(0, why if ok else f"Cannot begin the turn: {why}")
        item.setToolTip(1, why if ok else f"Cannot begin the turn: {why}")
        if state in (ACTED, SURPRISED, DOWN):
            for column in range(4):
                item.setForeground(column, QBrush(GREY))
        if state == DOWN:
            font = QFont(self.tree.font())
            font.setItalic(True)
            font.setStrikeOut(True)
            item.setFont(0, font)
        if state == ACTING:
            font = QFont(self.tree.font())
            font.setBold(True)
            for column in range(4):
                item.setFont(column, font)
                item.setBackground(column, QBrush(QColor(_PALE[c.side])))
        elif ok:
            font = QFont(self.tree.font())
            font.setBold(True)
            item.setFont(1, font)
            item.setForeground(1, QBrush(QColor("#1b7a3a")))

    def _refresh_take_turn(self) -> None:
        cid = self.selected_id()
        if cid is None:
            waiting = self.controller.engine.waiting()
            ok = False
            why = "Pick a combatant of the acting side in the list" if waiting else self._no_turn_reason()
            name = ""
        else:
            ok, why = self.may_begin(cid)
            c = self.controller.combatant(cid)
            name = c.name if c is not None else ""
        self.take_turn_button.setEnabled(ok)
        self.take_turn_button.setText(f"Take {name}'s turn" if ok else "Take turn")
        self.take_turn_button.setToolTip(why if ok else f"Cannot begin a turn: {why}")

    def _no_turn_reason(self) -> str:
        combat = self.controller.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return "combat has not started"
        if combat.turn is not None:
            return f"{self.controller.encounter.combatant(combat.turn.combatant).name}'s turn is under way"
        return "the round is over: roll initiative for the next one"

    def _refresh_next_round(self) -> None:
        text = self.initiative_edit.text()
        if not text.strip():
            self.next_round_button.setText("Next round: roll the initiative d6")
            self.next_round_button.setEnabled(True)
            self.next_round_button.setToolTip("The app rolls the d6: 1-3 Opponents act first, 4-6 the Party")
            self._mark(False)
            return
        face, problem = check_d6(text)
        if problem is None and face is not None:
            try:
                first = self.controller.engine.ruleset.initiative(face)
            except RulesError as error:
                problem = str(error)
        if problem is not None or face is None:
            self.next_round_button.setText("Next round")
            self.next_round_button.setEnabled(False)
            self.next_round_button.setToolTip(f"Initiative: {problem}")
            self._mark(True)
            return
        self.next_round_button.setText(f"Next round: {face}, {first.acts_first}")
        self.next_round_button.setEnabled(True)
        self.next_round_button.setToolTip(f"Read your d6: {face} means {first.acts_first}")
        self._mark(False)

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
