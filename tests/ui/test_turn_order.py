"""A ruleset that sets a turn order every round, at the table: the Start combat dialog, the Turns
dock's order with its rolls, typed faces for several dice, and the round settings.

The ruleset here is a small stand-in for Old-School d20 (RULES §12), defined in this file: group
initiative (one d20 per side + its leader's INIT) or individual initiative (a d20 + INIT each),
highest first, the Party first on a tie; light and the initiative mode are options the GM sets
before the first round and may change each round. The encounter: Ann (INIT +1, the Party's
leader) and Bo for the Party, an Orc (INIT +0, the Opponents' leader) and a Goblin (INIT +2).
Faces are typed as a GM reads them off the table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from plain_ruleset import compose
from pydantic import Field
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.events import CombatStarted, Override
from lnl_desktop.core.encounter.model import CombatantBase, OptionsBase, Phase, Side, TurnSlot
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.common import Opening, RoundOrder
from lnl_desktop.core.rules.registry import Ruleset, get_ruleset, register
from lnl_desktop.core.rules.shared import GmSaysRounds
from lnl_desktop.core.rules.specs import (
    Setting,
    SheetRow,
    SheetSpec,
    Situation,
    StartProcedure,
)
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.dialogs.combat import StartCombatDialog
from lnl_desktop.ui.docks.turns import TurnsPanel
from lnl_desktop.ui.docks.turns_rows import ACTED, ACTING, NEXT_PLACE, WAITING
from lnl_desktop.ui.plumbing.controller import TableController

LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier

# -- the stand-in ruleset ----------------------------------------------------------------------------


class OrderStats(CombatantBase):
    hp: int = Field(default=5, ge=0, le=99)
    hp_max: int = Field(default=5, ge=1, le=99)
    init: int = Field(default=0, ge=-5, le=5, description="added to the initiative d20")
    leader: bool = False

    @property
    def down(self) -> bool:
        return self.hp == 0


class OrderOptions(OptionsBase):
    light: Literal["normal", "dim", "dark"] = "normal"
    initiative: Literal["group", "individual"] = "group"


LIGHT = Setting(
    "light",
    "Light",
    "The round's light: dim -2, dark -5 to attacks",
    "choice",
    "normal",
    choices=("normal", "dim", "dark"),
)
INITIATIVE = Setting(
    "initiative",
    "Initiative",
    "group: a d20 per side; individual: a d20 each",
    "choice",
    "group",
    choices=("group", "individual"),
)


def roll_order(engine: Any, dice: DiceSource) -> tuple[list[TurnSlot], str]:
    """Highest total first; a tie keeps the Party first (the order rolled in)."""
    e = engine.encounter
    slots: list[TurnSlot] = []
    if e.options.initiative == "group":
        for side in (Side.PARTY, Side.OPPONENTS):
            members = e.side(side)
            leader = next((c for c in members if c.leader), members[0])
            face = roll_plain(dice, 20, f"initiative d20 for the {side.value} ({leader.name}, INIT {leader.init:+d})")
            total = face.face + leader.init
            roll = f"d20 {face.face} + INIT {leader.init} = {total}"
            slots.append(TurnSlot(title=side.value, members=[c.id for c in members], roll=roll, total=total))
    else:
        for c in e.combatants:
            if c.down:
                continue
            face = roll_plain(dice, 20, f"initiative d20 for {c.name} (INIT {c.init:+d})")
            total = face.face + c.init
            roll = f"d20 {face.face} + INIT {c.init} = {total}"
            slots.append(TurnSlot(title=c.name, members=[c.id], roll=roll, total=total))
    slots.sort(key=lambda s: -(s.total or 0))
    return slots, "; ".join(f"{s.title} {s.roll}" for s in slots)


class OrderRounds(GmSaysRounds):
    """Surprise said by the GM, then a turn order rolled each round (RULES §13's kind)."""

    def start_procedure(self) -> StartProcedure:
        words = {"nobody": "Nobody is surprised", "party": "The Party is surprised: it takes no action in round 1"}
        return StartProcedure(
            question="Who is surprised?",
            situations=(
                Situation("nobody", "Nobody is surprised", "Both sides saw each other coming"),
                Situation("party", "The Party is surprised", "Party members take no action in round 1"),
            ),
            die_label="initiative",
            reading=lambda situation, face: words[situation],
            surprise_die=False,
            rolls_initiative=True,
            settings=(LIGHT, INITIATIVE),
        )

    def settings(self) -> tuple[Setting, ...]:
        return (LIGHT, INITIATIVE)

    def open_combat(self, engine: Any, action: Any, dice: DiceSource) -> Opening:
        if action.situation not in ("nobody", "party"):
            raise IllegalAction("Start combat", [f"{action.situation!r} is not a situation"])
        surprised = Side.PARTY if action.situation == "party" else None
        slots, words = roll_order(engine, dice)
        first = engine.combatant(slots[0].members[0]).side
        text = f"Round 1: light {engine.encounter.options.light}; {words}"
        return Opening(action.situation, first, surprised, text, order=tuple(slots))

    def round_order(self, engine: Any, action: Any, dice: DiceSource) -> RoundOrder:
        slots, words = roll_order(engine, dice)
        first = engine.combatant(slots[0].members[0]).side
        return RoundOrder(first, None, f"light {engine.encounter.options.light}; {words}", order=tuple(slots))


class OrderRuleset(Ruleset):
    name = "test-order"
    title = "Turn order (test)"
    stat_block = OrderStats
    options_model = OrderOptions
    round_seconds = 10

    def __init__(self) -> None:
        sheet = SheetSpec(identity=(), numbers_title="Numbers", numbers=(SheetRow("HP", ("hp", "hp_max"), "HP"),))
        compose(self, sheet, OrderRounds(self.title), hp_bar=True)


def the_ruleset() -> Ruleset:
    try:
        return get_ruleset(OrderRuleset.name)
    except RulesError:
        return register(OrderRuleset())


def new_encounter() -> Any:
    ruleset = the_ruleset()
    return ruleset.new_encounter(
        name="Four in a corridor",
        combatants=[
            {"id": "ann", "name": "Ann", "side": "Party", "init": 1, "leader": True},
            {"id": "bo", "name": "Bo", "side": "Party"},
            {"id": "orc", "name": "Orc", "side": "Opponents", "leader": True},
            {"id": "goblin", "name": "Goblin", "side": "Opponents", "init": 2},
        ],
        tokens={"ann": {"cell": [2, 2]}, "bo": {"cell": [2, 3]}, "orc": {"cell": [6, 2]}, "goblin": {"cell": [6, 3]}},
    )


# -- the table -------------------------------------------------------------------------------------


@dataclass
class Table:
    controller: TableController
    turns: TurnsPanel

    @property
    def combat(self) -> Any:
        return self.controller.encounter.combat

    @property
    def options(self) -> Any:
        return self.controller.encounter.options


@pytest.fixture
def table(qtbot: QtBot) -> Iterator[Table]:
    controller = TableController(new_encounter())
    turns = TurnsPanel(controller)
    qtbot.addWidget(turns)
    turns.resize(380, 520)
    turns.show()
    qtbot.waitExposed(turns)
    yield Table(controller, turns)


def start(table: Table, faces: str, **settings: str) -> StartCombatDialog:
    dialog = table.turns.start_combat()
    for key, value in settings.items():
        dialog.set_setting(key, value)
    QTest.keyClicks(dialog.initiative_faces_edit, faces)
    assert dialog.start_button.isEnabled(), dialog.start_button.toolTip()
    dialog.start_button.click()
    return dialog


def headings(turns: TurnsPanel) -> list[str]:
    return [turns.tree.topLevelItem(i).text(0) for i in range(turns.tree.topLevelItemCount())]


def members(turns: TurnsPanel, heading: int) -> list[str]:
    group = turns.tree.topLevelItem(heading)
    return [group.child(j).text(0) for j in range(group.childCount())]


def pick_row(turns: TurnsPanel, cid: str) -> None:
    item = turns.item_for(cid)
    assert item is not None
    QTest.mouseClick(turns.tree.viewport(), LEFT, NONE, turns.tree.visualItemRect(item).center())


def double_click_row(turns: TurnsPanel, cid: str) -> None:
    item = turns.item_for(cid)
    assert item is not None
    point = turns.tree.visualItemRect(item).center()
    QTest.mouseClick(turns.tree.viewport(), LEFT, NONE, point)
    QTest.mouseDClick(turns.tree.viewport(), LEFT, NONE, point)
    QApplication.processEvents()


def play_out_the_round(table: Table) -> None:
    while table.controller.engine.waiting():
        cid = table.controller.engine.waiting()[0].id
        assert table.turns.begin_turn(cid), table.turns.message
        assert table.turns.end_turn()
    assert table.controller.engine.round_over


def choose(combo: QComboBox, value: str) -> None:
    """What a GM does with a combo box: pick an entry (``activated`` is the user's signal)."""
    index = combo.findData(value)
    assert index >= 0, value
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


# -- the Start combat dialog ---------------------------------------------------------------------


def test_the_start_dialog_reads_no_surprise_die_and_checks_the_typed_initiative_faces(qtbot: QtBot) -> None:
    dialog = StartCombatDialog(new_encounter())
    qtbot.addWidget(dialog)
    dialog.show()
    assert not dialog.die_box.isVisibleTo(dialog)  # the situation alone says who is surprised
    assert dialog.settings_box.isVisibleTo(dialog) and dialog.roll_box.isVisibleTo(dialog)
    assert "Initiative: 2 d20 (Party, Opponents)" in dialog.initiative_hint.text()
    assert dialog.roll_initiative_radio.text() == "Roll 2 d20"
    assert dialog.start_button.isEnabled()  # the app rolls
    assert "The app rolls round 1's initiative" in dialog.outcome_label.text()

    dialog.set_initiative_faces("12")
    assert not dialog.start_button.isEnabled()
    assert dialog.start_button.toolTip() == (
        "Initiative: Too few faces (1 face typed): the initiative d20 for the Opponents (Orc, INIT +0)"
    )
    dialog.set_initiative_faces("12 21")
    assert "21 is not a face of a d20 (1 to 20)" in dialog.start_button.toolTip()
    dialog.set_initiative_faces("12 7 3")
    assert "1 face left over (3)" in dialog.start_button.toolTip()
    dialog.set_initiative_faces("12 7")
    assert dialog.start_button.isEnabled()
    # The outcome is read off the typed faces by a dry run, before anything is applied.
    assert "Party d20 12 + INIT 1 = 13; Opponents d20 7 + INIT 0 = 7" in dialog.outcome_label.text()
    assert dialog.dice() is not None and dialog.option_changes() == {}

    # Individual initiative takes a d20 each: the faces typed for two sides are now too few.
    dialog.set_setting("initiative", "individual")
    assert dialog.option_changes() == {"initiative": "individual"}
    assert not dialog.start_button.isEnabled()
    assert "Too few faces (2 faces typed): the initiative d20 for Orc (INIT +0)" in dialog.start_button.toolTip()
    assert dialog.dice() is None


def test_the_settings_are_set_before_the_start_and_each_is_undone_on_its_own(table: Table) -> None:
    controller = table.controller
    start(table, "12 7 3 18", light="dim", initiative="individual")
    assert table.options.light == "dim" and table.options.initiative == "individual"
    assert table.combat.phase is Phase.FIGHTING
    assert [s.title for s in table.combat.order] == ["Goblin", "Ann", "Bo", "Orc"]  # 20, 13, 7, 3
    log = controller.encounter.log
    assert isinstance(log[-2], Override) and log[-2].text == "Ruleset options: light dim, initiative individual"
    assert isinstance(log[-1], CombatStarted) and log[-1].text.startswith("Round 1: light dim; Goblin d20 18")

    controller.undo_stack.undo()  # the start
    assert table.combat.phase is Phase.SETUP and table.options.initiative == "individual"
    assert table.turns.setting_editors["initiative"].currentText() == "individual"
    controller.undo_stack.undo()  # the settings
    assert table.options.light == "normal" and table.options.initiative == "group"
    assert table.turns.setting_editors["light"].currentText() == "normal"


def test_the_real_encounter_is_not_touched_by_the_dry_runs(table: Table) -> None:
    before = table.controller.encounter.model_dump_json()
    dialog = table.turns.start_combat()
    dialog.set_setting("initiative", "individual")
    dialog.set_initiative_faces("1 2 3 4")
    dialog.reject()
    assert table.controller.encounter.model_dump_json() == before
    assert not table.controller.undo_stack.canUndo()


# -- the order in the Turns dock -------------------------------------------------------------------


def test_the_dock_shows_the_groups_in_order_with_their_rolls_and_who_must_wait(table: Table) -> None:
    turns = table.turns
    start(table, "7 15")  # Party 7 + 1 = 8, Opponents 15 + 0 = 15
    assert headings(turns) == ["1. Opponents — d20 15 + INIT 0 = 15 ◀", "2. Party — d20 7 + INIT 1 = 8"]
    assert members(turns, 0) == ["Orc", "Goblin"] and members(turns, 1) == ["Ann", "Bo"]
    assert turns.tree.topLevelItem(0).background(0).color() == NEXT_PLACE
    assert turns.tree.topLevelItem(1).background(0).style() == Qt.BrushStyle.NoBrush
    assert turns.banner.text() == "Opponents: pick who goes next"
    assert turns.reading == "Round 1: light normal; Opponents d20 15 + INIT 0 = 15; Party d20 7 + INIT 1 = 8"

    # Ann's place comes later: the button says why, and a double-click is refused with the reason.
    pick_row(turns, "ann")
    assert not turns.take_turn_button.isEnabled()
    reason = "Orc, Goblin act before Ann in the initiative order"
    assert turns.take_turn_button.toolTip() == f"Cannot begin a turn: {reason}"
    double_click_row(turns, "ann")
    assert table.combat.turn is None and reason in turns.message

    pick_row(turns, "goblin")
    assert turns.take_turn_button.isEnabled()
    turns.take_turn_button.click()
    assert turns.state_of("goblin") == ACTING
    assert turns.banner.text().startswith("Goblin's turn")
    turns.end_turn()
    turns.begin_turn("orc")
    turns.end_turn()
    assert turns.state_of("orc") == ACTED
    # The Opponents are done: the Party's place is the one acting now.
    assert headings(turns) == ["1. Opponents — d20 15 + INIT 0 = 15", "2. Party — d20 7 + INIT 1 = 8 ◀"]
    assert turns.tree.topLevelItem(1).background(0).color() == NEXT_PLACE
    assert turns.may_begin("ann") == (True, "Begin Ann's turn")


def test_individual_initiative_shows_one_place_per_combatant(table: Table) -> None:
    turns = table.turns
    start(table, "12 7 3 18", initiative="individual")
    # A d20 each, in the encounter's order (Ann, Bo, Orc, Goblin); the places by total.
    assert headings(turns) == [
        "1. Goblin — d20 18 + INIT 2 = 20",
        "2. Ann — d20 12 + INIT 1 = 13",
        "3. Bo — d20 7 + INIT 0 = 7",
        "4. Orc — d20 3 + INIT 0 = 3",
    ]
    goblin = turns.item_for("goblin")
    assert goblin is not None and goblin.text(1) == WAITING
    assert goblin.background(0).color() == NEXT_PLACE
    assert turns.banner.text() == "Goblin acts next: take the turn"
    assert turns.may_begin("ann") == (False, "Goblin acts before Ann in the initiative order")
    double_click_row(turns, "goblin")
    assert table.combat.turn is not None and table.combat.turn.combatant == "goblin"


# -- the next round --------------------------------------------------------------------------------


def test_next_round_takes_the_faces_of_every_die_the_ruleset_reads(table: Table) -> None:
    turns = table.turns
    start(table, "12 7")
    play_out_the_round(table)
    assert turns.next_round_button.isVisible() and turns.initiative_edit.isVisible()
    assert turns.initiative_caption.text() == "Initiative: 2 d20 (Party, Opponents)"
    assert turns.initiative_edit.placeholderText() == "roll, or type 2 d20"
    assert turns.next_round_button.text() == "Next round: roll 2 d20"

    turns.initiative_edit.setText("5")
    assert not turns.next_round_button.isEnabled()
    assert turns.next_round_button.toolTip() == (
        "Initiative: Too few faces (1 face typed): the initiative d20 for the Opponents (Orc, INIT +0)"
    )
    turns.initiative_edit.setText("5 x")
    assert "'x' is not a die face" in turns.next_round_button.toolTip()
    turns.initiative_edit.setText("5, 18")
    assert turns.next_round_button.isEnabled()
    assert turns.next_round_button.text() == "Next round: Opponents first"
    assert turns.next_round_button.toolTip() == "1. Opponents — d20 18 + INIT 0 = 18\n2. Party — d20 5 + INIT 1 = 6"
    assert table.combat.round == 1  # a preview changes nothing
    turns.next_round_button.click()
    assert table.combat.round == 2 and not turns.initiative_edit.text()
    assert headings(turns) == ["1. Opponents — d20 18 + INIT 0 = 18 ◀", "2. Party — d20 5 + INIT 1 = 6"]
    assert turns.round_label.text() == "Round 2 · 10 s elapsed"

    table.controller.undo_stack.undo()
    assert table.combat.round == 1 and turns.next_round_button.isVisible()
    assert headings(turns)[0] == "1. Party — d20 12 + INIT 1 = 13"


def test_the_typed_faces_follow_a_change_of_the_initiative_setting(table: Table) -> None:
    turns = table.turns
    start(table, "12 7")
    play_out_the_round(table)
    choose(turns.setting_editors["initiative"], "individual")
    assert table.options.initiative == "individual"
    assert turns.initiative_caption.text() == "Initiative: 4 d20 (Ann, Bo, Orc, Goblin)"
    turns.initiative_edit.setText("5 18")
    assert not turns.next_round_button.isEnabled()
    assert "Too few faces (2 faces typed)" in turns.next_round_button.toolTip()
    turns.initiative_edit.setText("5 18 9 1")
    assert turns.next_round_button.text() == "Next round: Bo first"
    turns.initiative_edit.setText("")
    turns.next_round_button.click()  # the app rolls four d20s
    assert table.combat.round == 2 and len(table.combat.order) == 4


# -- the round settings ----------------------------------------------------------------------------


def test_a_round_setting_is_one_undoable_logged_step_and_its_editor_follows_undo(table: Table) -> None:
    turns, controller = table.turns, table.controller
    assert turns.settings_bar.isVisible()
    light = turns.setting_editors["light"]
    assert isinstance(light, QComboBox) and light.currentText() == "normal"
    assert light.toolTip() == "The round's light: dim -2, dark -5 to attacks"
    start(table, "12 7")
    choose(light, "dark")
    assert table.options.light == "dark"
    assert controller.encounter.log[-1].text == "Ruleset options: light dark"
    assert controller.undo_stack.undoText() == "Ruleset options: light dark"
    controller.undo_stack.undo()
    assert table.options.light == "normal" and light.currentText() == "normal"
    controller.undo_stack.redo()
    assert light.currentText() == "dark"


def test_l_and_l_has_no_round_settings_and_keeps_its_one_d6(qtbot: QtBot) -> None:
    controller = TableController(storage.load(demo_encounter_path()))
    turns = TurnsPanel(controller)
    qtbot.addWidget(turns)
    turns.show()
    assert not turns.settings_bar.isVisible() and not turns.setting_editors
    dialog = StartCombatDialog(controller.encounter)
    qtbot.addWidget(dialog)
    assert not dialog.settings_box.isVisibleTo(dialog) and not dialog.roll_box.isVisibleTo(dialog)
    assert dialog.option_changes() == {} and dialog.dice() is None


# -- Old-School d20 itself ------------------------------------------------------------------------


def test_old_school_d20_plays_its_order_in_the_dock(qtbot: QtBot) -> None:
    osr = get_ruleset("osr")
    demo = osr.demo()
    assert demo is not None, "Old-School d20 ships a demo encounter"
    from lnl_desktop.paths import resource

    controller = TableController(storage.load(resource("encounters", demo)))
    turns = TurnsPanel(controller)
    qtbot.addWidget(turns)
    turns.resize(380, 520)
    turns.show()
    assert {"light", "initiative"} <= set(turns.setting_editors)
    dialog = turns.start_combat()
    assert not dialog.die_box.isVisibleTo(dialog) and dialog.roll_box.isVisibleTo(dialog)
    faces = " ".join(["10"] * 30)
    dialog.set_initiative_faces(faces)
    assert "left over" in dialog.start_button.toolTip()  # the dry run counts the dice for it
    dialog.set_initiative_faces(None)
    dialog.start_button.click()
    order = controller.encounter.combat.order
    assert order, "Old-School d20 sets a turn order"
    assert headings(turns)[0].startswith(f"1. {order[0].title} — {order[0].roll}")
    ready = controller.engine.waiting()
    assert ready and turns.may_begin(ready[0].id)[0]
