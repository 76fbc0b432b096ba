"""A ruleset whose combatants declare their actions before initiative, at the table: the Turns dock's
Declared column, the banner and buttons that say who must still declare, "All: <choice>", a change
during the round asked first and logged as a GM override, the row's context menu of the ruleset's
commands (right click, the menu key, Shift+F10), and the ruleset's notes under the round's heading.

A small ruleset made for these tests (L&L with a declare phase, opponents' groups and a countdown)
stands in for any ruleset that describes them; the end of the file plays the same on Group d10.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from pydantic import Field
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QContextMenuEvent, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QMenu, QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core import get_ruleset
from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event, Override, RulesEvent
from lnl_desktop.core.encounter.model import CombatState, Encounter, Phase, Side, TurnSlot
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules import registry as rules
from lnl_desktop.core.rules.base import Handler
from lnl_desktop.core.rules.common import Opening, RoundOrder
from lnl_desktop.core.rules.lnl import LnLRuleset
from lnl_desktop.core.rules.lnl.actions import LnlActions
from lnl_desktop.core.rules.lnl.rounds import LnlRounds
from lnl_desktop.core.rules.registry import register
from lnl_desktop.core.rules.specs import DeclareSpec, RowAction
from lnl_desktop.paths import demo_encounter_path, resource
from lnl_desktop.ui.docks.declare import DECLARED
from lnl_desktop.ui.docks.turns import TurnsPanel
from lnl_desktop.ui.plumbing import style
from lnl_desktop.ui.plumbing.controller import TableController

NAME = "declare-test"
CHOICES = (("attack", "Attack"), ("parry", "Parry / dodge"), ("move", "Move only"))
LABEL = dict(CHOICES)
COLLAPSE = 3  # the round the ceiling comes down in (the countdown of the round notes)

# -- the stand-in ruleset ----------------------------------------------------------------------------


class DeclareCombat(CombatState):
    declaring: dict[str, str] = Field(default_factory=dict, description="declared for the coming round")
    declared: dict[str, str] = Field(default_factory=dict, description="this round's declarations, locked")
    groups: dict[str, str] = Field(default_factory=dict, description="an opponent's own group, by id")


@dataclass(frozen=True)
class Declare:
    combatant: str
    key: str


@dataclass(frozen=True)
class SetGroup:
    combatant: str
    group: str  # "" for the Opponents' group


def open_now(engine: Any) -> bool:
    """Declarations are open before combat and between rounds; locked while a round is under way."""
    return engine.encounter.combat.phase is not Phase.FIGHTING or engine.round_over


def missing(engine: Any) -> list[Any]:
    combat = engine.encounter.combat
    return [c for c in engine.encounter.combatants if not c.down and c.id not in combat.declaring]


def declare(engine: Any, a: Declare, dice: DiceSource) -> list[Event]:
    combat = engine.encounter.combat
    c = engine.combatant(a.combatant)
    if a.key not in LABEL:
        raise IllegalAction(f"{c.name}: declare", [f"{a.key!r} is not an action to declare"])
    if open_now(engine):
        combat.declaring = {**combat.declaring, c.id: a.key}
        return [
            RulesEvent(
                round=combat.round,
                text=f"{c.name} declares: {LABEL[a.key]}",
                actors=(c.id,),
                ruleset=NAME,
                name="declare",
            )
        ]
    was = LABEL.get(combat.declared.get(c.id, ""), "nothing")
    combat.declared = {**combat.declared, c.id: a.key}
    text = f"GM override: {c.name}'s declared action changes from {was} to {LABEL[a.key]}"
    return [Override(round=combat.round, text=text, actors=(c.id,))]


def set_group(engine: Any, a: SetGroup, dice: DiceSource) -> list[Event]:
    combat = engine.encounter.combat
    c = engine.combatant(a.combatant)
    groups = {k: v for k, v in combat.groups.items() if k != c.id}
    if a.group:
        groups[c.id] = a.group
    combat.groups = groups
    words = f"{c.name} forms the group {a.group}" if a.group else f"{c.name} is back in the Opponents' group"
    return [RulesEvent(round=combat.round, text=words, actors=(c.id,), ruleset=NAME, name="group")]


def lock(engine: Any, title: str) -> None:
    """The coming round's declarations become this round's, once everyone able to act has declared."""
    undeclared = missing(engine)
    if undeclared:
        raise IllegalAction(title, [f"declare first for: {', '.join(c.name for c in undeclared)}"])
    combat = engine.encounter.combat
    combat.declared, combat.declaring = dict(combat.declaring), {}


def group_order(engine: Any, first: Side) -> tuple[TurnSlot, ...]:
    """The first side's groups, then the other's: the Party is one group, the Opponents one each."""
    e = engine.encounter
    groups: dict[str, list[str]] = {}
    for c in e.combatants:
        title = c.side.value if c.side is Side.PARTY else e.combat.groups.get(c.id, Side.OPPONENTS.value)
        groups.setdefault(title, []).append(c.id)
    firsts = [t for t in groups if (t == Side.PARTY.value) == (first is Side.PARTY)]
    lasts = [t for t in groups if t not in firsts]
    return tuple(TurnSlot(title=t, members=groups[t]) for t in (*firsts, *lasts))


class DeclareActions(LnlActions):
    handlers: ClassVar[Mapping[type, Handler]] = {**LnlActions.handlers, Declare: declare, SetGroup: set_group}


class DeclareRounds(LnlRounds):
    """L&L's rounds with a declare phase before each initiative roll, opponents' groups and a countdown."""

    def declarations(self, engine: Any) -> DeclareSpec | None:
        combat = engine.encounter.combat
        is_open = open_now(engine)
        return DeclareSpec(
            choices=CHOICES,
            open=is_open,
            declared=dict(combat.declaring if is_open else combat.declared),
            missing=tuple(c.id for c in missing(engine)) if is_open else (),
            build=lambda cid, key: Declare(cid, key),
        )

    def open_combat(self, engine: Any, a: act.StartCombat, dice: DiceSource) -> Opening:
        lock(engine, "Start combat")
        opening = super().open_combat(engine, a, dice)
        return dataclasses.replace(opening, order=group_order(engine, opening.first_side))

    def round_order(self, engine: Any, a: act.NextRound, dice: DiceSource) -> RoundOrder:
        lock(engine, "Next round")
        order = super().round_order(engine, a, dice)
        return dataclasses.replace(order, order=group_order(engine, order.first_side))

    def row_actions(self, engine: Any, c: Any) -> tuple[RowAction, ...]:
        if c.side is not Side.OPPONENTS:
            return ()
        grouped = engine.encounter.combat.groups.get(c.id)
        commands = []
        if grouped != c.name:
            commands.append(
                RowAction(
                    f"Put {c.name} in a group of its own",
                    "It rolls its own initiative from the next round",
                    lambda: SetGroup(c.id, c.name),
                )
            )
        if grouped:
            commands.append(
                RowAction("Back to the Opponents' group", "It rolls with the Opponents", lambda: SetGroup(c.id, ""))
            )
        return tuple(commands)

    def notes(self, engine: Any) -> tuple[str, ...]:
        combat = engine.encounter.combat
        if combat.phase is not Phase.FIGHTING or combat.round >= COLLAPSE:
            return ()
        left = COLLAPSE - combat.round
        return (
            f"Timer d6: the ceiling collapses in {left} round{'s' if left != 1 else ''}",
            "The torches gutter: dim light",
        )


class DeclareRuleset(LnLRuleset):
    """L&L with a declare phase before each initiative roll, opponents' groups and a countdown."""

    name = NAME
    title = "Declare (test)"
    combat_model = DeclareCombat

    def __init__(self) -> None:
        super().__init__()
        self.actions = DeclareActions(self.edition)
        self.rounds = DeclareRounds(self.title)


@pytest.fixture
def declare_ruleset(monkeypatch: pytest.MonkeyPatch) -> DeclareRuleset:
    """The test ruleset, registered for this test only: the menus of other tests never list it."""
    monkeypatch.setattr(rules, "_loaded", dict(rules._loaded))
    ruleset = register(DeclareRuleset())
    assert isinstance(ruleset, DeclareRuleset) and get_ruleset(NAME) is ruleset
    return ruleset


def the_demo(ruleset: Any) -> Encounter:
    data = storage.load(demo_encounter_path()).model_dump(mode="json", exclude={"log", "combat", "ruleset"})
    return ruleset.new_encounter(**data)  # type: ignore[no-any-return]


# -- the table -------------------------------------------------------------------------------------


@dataclass
class Table:
    controller: TableController
    turns: TurnsPanel

    @property
    def log(self) -> list[str]:
        return [e.text for e in self.controller.encounter.log]

    @property
    def combat(self) -> Any:
        return self.controller.encounter.combat


def table_for(qtbot: QtBot, encounter: Encounter) -> Table:
    controller = TableController(encounter)
    turns = TurnsPanel(controller)
    qtbot.addWidget(turns)
    turns.resize(400, 560)  # about the Turns dock's room in a 1366x768 window
    turns.show()
    qtbot.waitExposed(turns)
    return Table(controller, turns)


@pytest.fixture
def table(qtbot: QtBot, declare_ruleset: DeclareRuleset) -> Iterator[Table]:
    """The demo encounter (Tombril, Cedryk, Janine against the Hill Giant and three half-orcs) under the
    test ruleset, before combat."""
    yield table_for(qtbot, the_demo(declare_ruleset))


def headers(turns: TurnsPanel) -> list[str]:
    head = turns.tree.headerItem()
    return [head.text(i) for i in range(turns.tree.columnCount())]


def combo_of(turns: TurnsPanel, cid: str) -> QComboBox:
    combo = turns.declare_combo(cid)
    assert combo is not None, f"no Declared combo for {cid}"
    return combo


def choose(combo: QComboBox, key: str) -> None:
    """What a GM does with a combo box: pick an entry (``activated`` is the user's signal)."""
    index = combo.findData(key)
    assert index >= 0, key
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def shown(combo: QComboBox) -> str:
    """What the combo shows: its entry, or the placeholder while nothing is declared."""
    return combo.currentText() if combo.currentIndex() >= 0 else f"<{combo.placeholderText()}>"


def declare_everyone(table: Table, key: str = "attack") -> None:
    spec = table.turns.declarations()
    assert spec is not None
    for cid in spec.missing:
        choose(combo_of(table.turns, cid), key)
    assert not table.turns.declarations().missing  # type: ignore[union-attr]


def start(table: Table, face: int = 5) -> None:
    assert table.turns.apply_start(act.StartCombat(face=face)), table.turns.message


def play_out_the_round(table: Table) -> None:
    while table.controller.engine.waiting():
        cid = table.controller.engine.waiting()[0].id
        assert table.turns.begin_turn(cid), table.turns.message
        assert table.turns.end_turn(), table.turns.message
    assert table.controller.engine.round_over


def ask(monkeypatch: pytest.MonkeyPatch, answer: QMessageBox.StandardButton) -> list[str]:
    """Answer the dock's questions with ``answer``; the questions asked, in order."""
    asked: list[str] = []

    def question(parent: Any, title: str, text: str, *args: Any, **kwargs: Any) -> QMessageBox.StandardButton:
        asked.append(text)
        return answer

    monkeypatch.setattr(QMessageBox, "question", question)
    return asked


def right_click(turns: TurnsPanel, cid: str) -> QMenu:
    item = turns.item_for(cid)
    assert item is not None
    point = turns.tree.visualItemRect(item).center()
    viewport = turns.tree.viewport()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, viewport.mapToGlobal(point))
    QApplication.sendEvent(viewport, event)
    menu = turns.context_menu
    assert menu is not None and menu.isVisible(), f"no menu on {cid}'s row"
    return menu


def entries(menu: QMenu) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]


def entry(menu: QMenu, text: str) -> Any:
    found = next((a for a in menu.actions() if a.text() == text), None)
    assert found is not None, f"{text!r} not in {entries(menu)}"
    return found


# -- a ruleset without a declare phase ----------------------------------------------------------------


@pytest.mark.parametrize("encounter", ["hill-giant.lnl", "hill-giant-classic.lnl", "goblin-ambush-osr.lnl"])
def test_the_rulesets_without_a_declare_phase_show_no_declared_column(qtbot: QtBot, encounter: str) -> None:
    table = table_for(qtbot, storage.load(resource("encounters", encounter)))
    turns = table.turns
    assert DECLARED not in headers(turns)
    assert turns.declare_combo(table.controller.encounter.combatants[0].id) is None
    assert not turns.declare_all_button.isVisibleTo(turns)
    assert not turns.notes_label.isVisibleTo(turns)
    assert turns.banner.text() == "Place the tokens, then start the combat."
    assert turns.start_button.text() == "Start combat…"
    # No commands on a row: no menu.
    assert turns.row_menu(table.controller.encounter.combatants[-1].id) is None


# -- the Declared column ------------------------------------------------------------------------------


def test_the_declared_column_has_a_narrow_combo_per_combatant_and_the_banner_names_who_must_declare(
    table: Table,
) -> None:
    turns = table.turns
    assert headers(turns) == ["Combatant", "This round", DECLARED, "SP", "IP"]
    assert "declared before initiative" in turns.tree.headerItem().toolTip(2)
    for c in table.controller.encounter.combatants:
        combo = combo_of(turns, c.id)
        assert [combo.itemText(i) for i in range(combo.count())] == ["Attack", "Parry / dodge", "Move only"]
        assert shown(combo) == "<declare…>"
        assert combo.property("missing") is True
        assert combo.isVisibleTo(turns)
        assert "must still declare" in combo.toolTip()
        assert combo.width() <= 130, "the Turns dock is cramped: the combos stay narrow"
    assert turns.tree.columnWidth(2) <= 140
    # Seven must declare: the banner names four and counts the rest (its tooltip names them all);
    # the Start button says so too.
    assert turns.banner.text() == (
        "Declare for: Tombril, Cedryk the Sneaky, Janine the Pious, Hill Giant and 3 more — then start the combat"
    )
    assert turns.banner.toolTip() == (
        "Declare for: Tombril, Cedryk the Sneaky, Janine the Pious, Hill Giant, Half-orc, Half-orc Glaive, "
        "Half-orc Archer — then start the combat"
    )
    assert turns.start_button.text() == "Start combat… (declare first)"
    assert "Half-orc Archer" in turns.start_button.toolTip()
    assert turns.declare_all_button.isVisibleTo(turns)
    assert turns.declare_all_button.text() == "All: Attack"


def test_a_pick_is_one_logged_step_that_undo_takes_back(table: Table) -> None:
    turns, stack = table.turns, table.controller.undo_stack
    choose(combo_of(turns, "tombril"), "parry")
    assert table.log[-1] == "Tombril declares: Parry / dodge"
    assert shown(combo_of(turns, "tombril")) == "Parry / dodge"
    assert combo_of(turns, "tombril").property("missing") is False
    assert "Tombril," not in turns.banner.text()
    assert turns.banner.text().startswith("Declare for: Cedryk the Sneaky, Janine the Pious")
    assert stack.count() == 1

    # Before initiative a declaration changes freely: no question asked.
    choose(combo_of(turns, "tombril"), "move")
    assert table.log[-1] == "Tombril declares: Move only"

    stack.undo()
    assert shown(combo_of(turns, "tombril")) == "Parry / dodge"
    stack.undo()
    assert shown(combo_of(turns, "tombril")) == "<declare…>"
    assert table.log[-1] == "Undone: Tombril declares: Parry / dodge"
    assert turns.banner.text().startswith("Declare for: Tombril, ")


def test_missing_declarations_block_the_start_with_their_names_and_all_fills_them_in_one_step(table: Table) -> None:
    turns, stack = table.turns, table.controller.undo_stack
    choose(combo_of(turns, "tombril"), "attack")
    choose(combo_of(turns, "hill-giant"), "move")

    assert not turns.apply_start(act.StartCombat(face=5))
    assert table.combat.phase is Phase.SETUP
    for name in ("Cedryk the Sneaky", "Janine the Pious", "Half-orc", "Half-orc Glaive", "Half-orc Archer"):
        assert name in turns.message
    assert "Tombril" not in turns.message

    # "All: Attack": everyone still to declare, one undo step; those who declared keep theirs.
    before = stack.count()
    turns.declare_all_button.click()
    assert stack.count() == before + 1
    assert stack.undoText() == "All: Attack (5 declarations)"
    assert shown(combo_of(turns, "hill-giant")) == "Move only"
    assert all(shown(combo_of(turns, cid)) == "Attack" for cid in ("cedryk", "janine", "half-orc-archer"))
    assert not turns.declare_all_button.isVisibleTo(turns)
    assert turns.banner.text() == "Place the tokens, then start the combat."
    assert turns.start_button.text() == "Start combat…"
    assert sum(text.endswith("declares: Attack") for text in table.log) == 1 + 5  # Tombril's, then the five

    stack.undo()
    assert shown(combo_of(turns, "cedryk")) == "<declare…>"
    assert shown(combo_of(turns, "tombril")) == "Attack"
    stack.redo()
    assert shown(combo_of(turns, "cedryk")) == "Attack"

    start(table)
    assert table.combat.phase is Phase.FIGHTING
    assert table.combat.declared["hill-giant"] == "move"


def test_all_offers_every_choice_from_its_menu(table: Table) -> None:
    menu = table.turns.declare_all_button.menu()
    assert entries(menu) == ["All: Attack", "All: Parry / dodge", "All: Move only"]
    entry(menu, "All: Parry / dodge").trigger()
    assert all(shown(combo_of(table.turns, c.id)) == "Parry / dodge" for c in table.controller.encounter.combatants)


def test_during_the_round_the_declarations_stay_shown_and_a_change_asks_and_logs_an_override(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = table.turns
    declare_everyone(table, "attack")
    start(table)
    # Round 1: everyone's declaration on show, locked.
    combo = combo_of(turns, "tombril")
    assert shown(combo) == "Attack" and combo.isVisibleTo(turns)
    assert "GM override" in combo.toolTip()
    assert "a change is a GM override" in turns.tree.headerItem().toolTip(2)
    assert not turns.declare_all_button.isVisibleTo(turns)

    # The GM thinks better of it: nothing changes, the combo shows the declaration again.
    asked = ask(monkeypatch, QMessageBox.StandardButton.No)
    logged = len(table.log)
    choose(combo_of(turns, "tombril"), "parry")
    assert asked == ["Change Tombril's declared action during the round? The log records a GM override."]
    assert len(table.log) == logged
    assert shown(combo_of(turns, "tombril")) == "Attack"

    asked = ask(monkeypatch, QMessageBox.StandardButton.Yes)
    choose(combo_of(turns, "tombril"), "parry")
    assert len(asked) == 1
    assert table.log[-1] == "GM override: Tombril's declared action changes from Attack to Parry / dodge"
    assert isinstance(table.controller.encounter.log[-1], Override)
    assert shown(combo_of(turns, "tombril")) == "Parry / dodge"
    table.controller.undo_stack.undo()
    assert shown(combo_of(turns, "tombril")) == "Attack"


def test_missing_declarations_block_the_next_round_with_their_names(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = table.turns
    declare_everyone(table)
    start(table)
    play_out_the_round(table)
    # Between rounds the declarations are open again, for round 2: everyone must declare anew.
    assert turns.banner.text().startswith("Round 1 is over. Declare for: Tombril, Cedryk the Sneaky")
    assert turns.banner.text().endswith("— then roll initiative")
    assert turns.next_round_button.text() == "Next round: declare first"
    assert "Half-orc Archer" in turns.next_round_button.toolTip()
    asked = ask(monkeypatch, QMessageBox.StandardButton.No)
    choose(combo_of(turns, "hill-giant"), "parry")  # open again: no question
    assert asked == []
    assert table.log[-1] == "Hill Giant declares: Parry / dodge"

    turns.next_round_button.click()
    assert table.combat.round == 1
    assert "declare first for: Tombril, Cedryk the Sneaky, Janine the Pious" in turns.message
    assert "Hill Giant," not in turns.message
    # Typed faces are refused for the same reason, with the names.
    QTest.keyClicks(turns.initiative_edit, "4")
    assert not turns.roll_next_round()
    assert "Tombril" in turns.message

    assert turns.declare_all() == 6
    turns.initiative_edit.clear()
    assert turns.next_round(4)
    assert table.combat.round == 2
    assert table.combat.declared["hill-giant"] == "parry"
    assert not turns.message


# -- the row's commands -----------------------------------------------------------------------------


def test_the_rulesets_row_commands_are_the_rows_context_menu_and_apply_as_one_step(table: Table) -> None:
    turns = table.turns
    menu = right_click(turns, "hill-giant")
    assert entries(menu) == ["Declare for Hill Giant", "Put Hill Giant in a group of its own"]
    put = entry(menu, "Put Hill Giant in a group of its own")
    assert put.toolTip() == "It rolls its own initiative from the next round"
    put.trigger()
    menu.close()
    assert table.log[-1] == "Hill Giant forms the group Hill Giant"
    assert table.combat.groups == {"hill-giant": "Hill Giant"}

    # The menu follows: now the giant may go back.
    menu = right_click(turns, "hill-giant")
    assert entries(menu)[1:] == ["Back to the Opponents' group"]
    menu.close()

    # A Party member has no command of the ruleset's: its menu only declares.
    menu = right_click(turns, "tombril")
    assert entries(menu) == ["Declare for Tombril"]
    declare_menu = entry(menu, "Declare for Tombril").menu()
    assert entries(declare_menu) == ["Attack", "Parry / dodge", "Move only"]
    entry(declare_menu, "Move only").trigger()
    menu.close()
    assert table.log[-1] == "Tombril declares: Move only"
    assert entry(right_click(turns, "tombril").actions()[0].menu(), "Move only").isChecked()

    table.controller.undo_stack.undo()
    table.controller.undo_stack.undo()
    assert table.combat.groups == {}


@pytest.mark.parametrize("key", ["menu", "shift+f10"])
def test_the_row_menu_opens_from_the_keyboard_on_the_selected_row(table: Table, key: str) -> None:
    turns = table.turns
    table.controller.select("half-orc")
    turns.tree.setFocus()
    if key == "menu":
        QTest.keyClick(turns.tree, Qt.Key.Key_Menu)
    else:
        QTest.keyClick(turns.tree, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    menu = turns.context_menu
    assert menu is not None and menu.isVisible()
    assert entries(menu) == ["Declare for Half-orc", "Put Half-orc in a group of its own"]
    # It opens under the selected row.
    item = turns.item_for("half-orc")
    assert item is not None
    row = turns.tree.visualItemRect(item)
    assert menu.pos() == turns.tree.viewport().mapToGlobal(row.bottomLeft())
    entry(menu, "Put Half-orc in a group of its own").trigger()
    menu.close()
    assert table.log[-1] == "Half-orc forms the group Half-orc"


def test_several_groups_of_the_opponents_each_have_a_place_in_the_order(table: Table) -> None:
    turns = table.turns
    entry(right_click(turns, "hill-giant"), "Put Hill Giant in a group of its own").trigger()
    declare_everyone(table)
    start(table, face=5)  # 5: the Party acts first
    titles = [turns.tree.topLevelItem(i).text(0) for i in range(turns.tree.topLevelItemCount())]
    assert titles == ["1. Party ◀", "2. Hill Giant", "3. Opponents"]
    giant, opponents = turns.tree.topLevelItem(1), turns.tree.topLevelItem(2)
    assert opponents.childCount() == 3  # the half-orcs under their group's heading
    assert giant.data(0, Qt.ItemDataRole.UserRole + 1) == "hill-giant"  # a place of one: its own row
    assert opponents.foreground(0).color() == style.side_color(Side.OPPONENTS)
    assert combo_of(turns, "hill-giant") is not None and combo_of(turns, "half-orc") is not None


def test_a_wheel_over_a_combo_scrolls_the_list_and_never_declares(table: Table) -> None:
    combo = combo_of(table.turns, "tombril")
    logged = len(table.log)
    center = QPointF(combo.rect().center())
    wheel = QWheelEvent(
        center,
        QPointF(combo.mapToGlobal(combo.rect().center())),
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(combo, wheel)
    assert len(table.log) == logged
    assert shown(combo_of(table.turns, "tombril")) == "<declare…>"


# -- the round's notes -------------------------------------------------------------------------------


def test_the_round_notes_show_under_the_heading_and_hide_when_there_are_none(table: Table) -> None:
    turns = table.turns
    notes = turns.notes_label
    assert not notes.isVisibleTo(turns)
    declare_everyone(table)
    start(table)
    assert notes.isVisibleTo(turns)
    assert notes.text() == "Timer d6: the ceiling collapses in 2 rounds\nThe torches gutter: dim light"
    assert notes.wordWrap()
    assert notes.font().pointSizeF() < turns.round_label.font().pointSizeF()
    layout = turns.layout()
    assert layout.indexOf(notes) == layout.indexOf(turns.round_label) + 1  # right under the round's heading
    play_out_the_round(table)
    turns.declare_all()
    assert turns.next_round(3)
    assert notes.text().startswith("Timer d6: the ceiling collapses in 1 round\n")
    play_out_the_round(table)
    turns.declare_all()
    assert turns.next_round(3)
    assert not notes.isVisibleTo(turns)
    table.controller.undo_stack.undo()
    assert notes.isVisibleTo(turns)


# -- Group d10 ---------------------------------------------------------------------------------------


def group_d10() -> Any:
    """Group d10 as the program registers it: a build without it fails here rather than skipping."""
    return get_ruleset("d10")


def test_group_d10s_demo_declares_starts_and_overrides_in_the_dock(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    ruleset = group_d10()
    demo = ruleset.demo()
    assert demo is not None
    table = table_for(qtbot, storage.load(resource("encounters", demo)))
    turns = table.turns
    assert DECLARED in headers(turns)
    combatants = table.controller.encounter.combatants
    first = combatants[0]
    assert turns.banner.text().startswith(f"Declare for: {first.name}")
    assert turns.start_button.text() == "Start combat… (declare first)"
    spec = turns.declarations()
    assert spec is not None and spec.open
    # The Start combat dialog says who must declare before Start, and its Start is refused.
    dialog = turns.start_combat()
    assert "declare first for: " + first.name in (dialog.problem() or "")
    dialog.accept()
    assert table.combat.phase is Phase.SETUP
    dialog.reject()
    start_action = act.StartCombat(situation=ruleset.rounds.start_procedure().situations[0].key)
    assert not turns.apply_start(start_action)
    assert first.name in turns.message

    label = spec.choices[0][1]
    assert turns.declare_all_button.text().startswith("All: ")
    assert turns.declare_all() == len(spec.missing)
    assert all(shown(combo_of(turns, cid)) == label for cid in spec.missing)
    assert turns.apply_start(start_action), turns.message
    assert table.combat.phase is Phase.FIGHTING
    assert table.combat.order

    # During round 1 the declarations are shown and locked: a change is asked first and logged.
    other_key, other_label = spec.choices[2]
    asked = ask(monkeypatch, QMessageBox.StandardButton.Yes)
    choose(combo_of(turns, first.id), other_key)
    assert asked == [f"Change {first.name}'s declared action during the round? The log records a GM override."]
    assert table.log[-1].startswith(f"GM override: {first.name}'s declared action changes")
    assert shown(combo_of(turns, first.id)) == other_label

    # Several places of the Opponents in the order, each under its own heading or row.
    titles = [turns.tree.topLevelItem(i).text(0) for i in range(turns.tree.topLevelItemCount())]
    assert len(titles) == len(table.combat.order) >= 3
    for place, slot in enumerate(table.combat.order, 1):
        assert titles[place - 1].startswith(f"{place}. {slot.title} — d10 ")

    # An opponent's row offers its group commands, which apply as one undoable step.
    opponent = next(c for c in combatants if c.side is Side.OPPONENTS and c.group != c.name)
    menu = right_click(turns, opponent.id)
    own = f"Put {opponent.name} in a group of its own"
    assert entries(menu)[0] == f"Declare for {opponent.name}"
    assert own in entries(menu)
    entry(menu, own).trigger()
    menu.close()
    assert table.controller.encounter.combatant(opponent.id).group == opponent.name
    table.controller.undo_stack.undo()
    assert table.controller.encounter.combatant(opponent.id).group != opponent.name
