"""The "Rules call for" queue as a GM uses it: what waits, Roll, typed faces, Skip, undo, refusals,
an urgent item asked at once, and the dock in the main window.

A small ruleset made here (L&L's rules plus a queue) asks about two kinds of items: a free attack
(a "means" weapon and a bonus, rolled: d20 + bonus) and an urgent death save (a d20). Items are
queued by two actions of its own, so they come and go through the engine like the real ones.
The demo encounter in round 1 with Tombril's turn begun.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QComboBox, QMessageBox, QSpinBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.dice.rolls import DiceSource, ScriptedDice
from lnl_desktop.core.encounter.events import Event, RulesEvent
from lnl_desktop.core.encounter.model import Pending, WeaponKind
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules import registry as rules
from lnl_desktop.core.rules.base import Handler
from lnl_desktop.core.rules.lnl import LnLRuleset
from lnl_desktop.core.rules.lnl.actions import LnlActions
from lnl_desktop.core.rules.lnl.views import LnlPrompts
from lnl_desktop.core.rules.registry import get_ruleset, register
from lnl_desktop.core.rules.specs import PromptChoice, PromptSpec, Setting
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.docks.prompts import NOTHING_WAITING, PromptDialog, PromptsPanel
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore

# -- a ruleset with a queue -------------------------------------------------------------------------


@dataclass(frozen=True)
class Provoke:
    """Queue a free attack of ``who`` on ``target`` (as a move out of reach would)."""

    who: str
    target: str


@dataclass(frozen=True)
class Fall:
    """``who`` drops to 0: an urgent death save is queued."""

    who: str


@dataclass(frozen=True)
class FreeAttack:
    index: int
    weapon: str
    bonus: int


@dataclass(frozen=True)
class DeathSave:
    index: int


def _provoke(engine: Any, a: Provoke, dice: DiceSource) -> list[Event]:
    combat = engine.encounter.combat
    who, target = engine.combatant(a.who), engine.combatant(a.target)
    text = f"{who.name} may attack {target.name}"
    combat.pending.append(Pending(kind="free attack", who=who.id, target=target.id, text=text, round=combat.round))
    return [RulesEvent(round=combat.round, text=f"{target.name} provokes {who.name}", ruleset=QUEUE, name="provoked")]


def _fall(engine: Any, a: Fall, dice: DiceSource) -> list[Event]:
    combat = engine.encounter.combat
    c = engine.combatant(a.who)
    text = f"{c.name} is at 0: d20 ≥ 11 or dead"
    combat.pending.append(Pending(kind="death save", who=c.id, text=text, number=11, urgent=True, round=combat.round))
    return [RulesEvent(round=combat.round, text=f"{c.name} falls", ruleset=QUEUE, name="fell")]


def _taken(engine: Any, index: int, kind: str) -> Pending:
    pending = engine.encounter.combat.pending
    if not 0 <= index < len(pending) or pending[index].kind != kind:
        raise IllegalAction(kind.capitalize(), ["nothing of the kind is waiting there"])
    return pending[index]  # type: ignore[no-any-return]


def _free_attack(engine: Any, a: FreeAttack, dice: DiceSource) -> list[Event]:
    item = _taken(engine, a.index, "free attack")
    who = engine.combatant(item.who)
    weapon = who.weapon(a.weapon)
    if weapon.kind is WeaponKind.RANGED:
        raise IllegalAction(
            f"{who.name}'s free attack", [f"a free attack is made in melee, not with the {weapon.name}"]
        )
    face = dice.roll(20, f"free attack d20 for {who.name}")
    engine.encounter.combat.pending.pop(a.index)
    text = f"{who.name} attacks {engine.combatant(item.target).name} with the {weapon.name}: {face} + {a.bonus}"
    return [RulesEvent(round=engine.encounter.combat.round, text=text, ruleset=QUEUE, name="free attack")]


def _death_save(engine: Any, a: DeathSave, dice: DiceSource) -> list[Event]:
    item = _taken(engine, a.index, "death save")
    face = dice.roll(20, "death save d20")
    engine.encounter.combat.pending.pop(a.index)
    saved = "lives" if face >= (item.number or 11) else "dies"
    text = f"{engine.combatant(item.who).name}'s death save: {face}, {saved}"
    return [RulesEvent(round=engine.encounter.combat.round, text=text, ruleset=QUEUE, name="death save")]


QUEUE = "ui-test-queue"


class QueueingActions(LnlActions):
    handlers: ClassVar[Mapping[type, Handler]] = {
        **LnlActions.handlers,
        Provoke: _provoke,
        Fall: _fall,
        FreeAttack: _free_attack,
        DeathSave: _death_save,
    }


class QueueingPrompts(LnlPrompts):
    def prompt(self, engine: Any, item: Any) -> PromptSpec:
        index = engine.encounter.combat.pending.index(item)
        if item.kind == "free attack":
            weapon = Setting("weapon", "With", "The weapon of the attack", "means", "Battleaxe")
            bonus = Setting("bonus", "Bonus", "A situational bonus", "int", 0, -2, 2)
            roll = PromptChoice(
                "Roll the free attack",
                "d20 + bonus",
                lambda v: FreeAttack(index, str(v["weapon"]), int(v["bonus"])),
                rolls=True,
            )
            return PromptSpec("Free attack", item.text, (weapon, bonus), (roll,))
        if item.kind == "death save":
            roll = PromptChoice("Roll the death save", "d20 ≥ 11", lambda v: DeathSave(index), rolls=True)
            return PromptSpec("Death save", item.text, (), (roll,))
        return super().prompt(engine, item)


class Queueing(LnLRuleset):
    name = QUEUE
    title = "Queueing (test)"

    def __init__(self) -> None:
        super().__init__()
        self.actions = QueueingActions(self.edition)
        self.prompts = QueueingPrompts()

    def demo(self) -> str | None:
        return None


def queueing() -> Any:
    try:
        return get_ruleset(QUEUE)
    except RulesError:
        return register(Queueing)


@pytest.fixture(autouse=True, scope="module")
def _forget_the_test_ruleset() -> Iterator[None]:
    """The registry has no way to take a ruleset out: the later tests (File ▸ New's list, the demo
    menu) must not meet this one."""
    yield
    rules._loaded.pop(QUEUE, None)


def encounter_data() -> dict[str, Any]:
    return storage.load(demo_encounter_path()).model_dump(mode="json", exclude={"ruleset", "log"})


def fighting(controller: TableController) -> TableController:
    controller.engine.start_combat(face=5)  # the Party acts first
    controller.engine.begin_turn("tombril")
    return controller


@pytest.fixture
def table(qtbot: QtBot) -> tuple[TableController, PromptsPanel]:
    controller = fighting(TableController(queueing().new_encounter(**encounter_data())))
    panel = PromptsPanel(controller)
    qtbot.addWidget(panel)
    panel.resize(380, 500)
    panel.show()
    qtbot.waitExposed(panel)
    return controller, panel


def log_texts(controller: TableController) -> list[str]:
    return [e.text for e in controller.encounter.log]


# -- the queue ---------------------------------------------------------------------------------------


def test_nothing_waiting_is_said_when_the_queue_is_empty(table) -> None:
    _, panel = table
    assert panel.cards == []
    assert panel.empty_label.isVisible()
    assert panel.empty_label.text() == NOTHING_WAITING


def test_a_queued_item_shows_its_stakes_inputs_and_buttons(table, qtbot: QtBot) -> None:
    controller, panel = table
    with qtbot.waitSignal(panel.queued) as queued:
        controller.do(Provoke("half-orc", "tombril"))
    assert queued.args == [[0]]
    assert not panel.empty_label.isVisible()
    [card] = panel.cards
    assert card.isVisible()
    assert card.title_label.text() == "Free attack"
    assert card.text_label.text() == "Half-orc may attack Tombril"
    weapon = card.editors["weapon"]
    assert isinstance(weapon, QComboBox)
    half_orc = controller.encounter.combatant("half-orc")
    assert [weapon.itemText(i) for i in range(weapon.count())] == [w.name for w in half_orc.weapons]
    assert weapon.currentText() == "Battleaxe"
    bonus = card.editors["bonus"]
    assert isinstance(bonus, QSpinBox) and (bonus.minimum(), bonus.maximum()) == (-2, 2)
    assert [b.text() for b in card.choice_buttons] == ["Roll the free attack"]
    assert card.faces_buttons[0].text() == "Type faces…"
    assert card.skip_button.text() == "Skip"


def test_roll_applies_the_action_the_prompt_builds(table) -> None:
    controller, panel = table
    controller.do(Provoke("half-orc", "tombril"))
    card = panel.cards[0]
    card.editors["bonus"].setValue(2)  # type: ignore[attr-defined]
    controller.engine.dice = ScriptedDice([17])
    steps = controller.undo_stack.count()
    card.choice_buttons[0].click()
    # The attack, then the attacker turned to face its target, in the same step.
    assert log_texts(controller)[-2:] == [
        "Half-orc attacks Tombril with the Battleaxe: 17 + 2",
        "Half-orc turns to face Tombril",
    ]
    assert controller.encounter.combat.pending == []
    assert controller.undo_stack.count() == steps + 1
    assert panel.cards == [] and panel.empty_label.isVisible()
    controller.undo_stack.undo()
    assert [c.text_label.text() for c in panel.cards] == ["Half-orc may attack Tombril"]


def test_typed_faces_are_checked_before_they_are_applied(table) -> None:
    controller, panel = table
    controller.do(Provoke("half-orc", "tombril"))
    dialog = panel.cards[0].type_faces(0)
    assert dialog is not None
    assert "d20" in dialog.hint_label.text()
    dialog.edit.setText("25")
    assert not dialog.ok_button.isEnabled()
    assert "25 is not a face of a d20" in (dialog.reason or "")
    dialog.edit.setText("9 4")
    assert not dialog.ok_button.isEnabled()  # a face left over
    dialog.edit.setText("9")
    assert dialog.ok_button.isEnabled()
    dialog.accept()
    assert log_texts(controller)[-2] == "Half-orc attacks Tombril with the Battleaxe: 9 + 0"
    assert controller.encounter.combat.pending == []


def test_a_refused_action_says_why_on_its_card_and_changes_nothing(table) -> None:
    controller, panel = table
    controller.do(Provoke("half-orc-archer", "tombril"))
    card = panel.cards[0]
    weapon = card.editors["weapon"]
    assert isinstance(weapon, QComboBox)
    ranged = next(w.name for w in controller.encounter.combatant("half-orc-archer").weapons if w.kind.value == "ranged")
    weapon.setCurrentIndex(weapon.findData(ranged))
    before = log_texts(controller)
    steps = controller.undo_stack.count()
    card.choice_buttons[0].click()
    assert f"a free attack is made in melee, not with the {ranged}" in card.refusal
    assert card.refusal_label.isVisible()
    assert log_texts(controller) == before
    assert controller.undo_stack.count() == steps
    assert len(controller.encounter.combat.pending) == 1


def test_skip_takes_it_off_with_the_reason_logged_and_undo_brings_it_back(table) -> None:
    controller, panel = table
    controller.do(Provoke("half-orc", "tombril"))
    card = panel.cards[0]
    card.reason_edit.setText("the Half-orc is busy")
    card.skip_button.click()
    assert controller.encounter.combat.pending == []
    assert log_texts(controller)[-1] == "GM skips the free attack (Half-orc may attack Tombril): the Half-orc is busy"
    assert panel.cards == [] and panel.empty_label.isVisible()
    controller.undo_stack.undo()
    assert [c.title_label.text() for c in panel.cards] == ["Free attack"]
    assert controller.encounter.combat.pending[0].who == "half-orc"


def test_the_inputs_set_on_a_card_stay_while_other_items_come_and_go(table) -> None:
    controller, panel = table
    controller.do(Provoke("half-orc", "tombril"))
    panel.cards[0].editors["bonus"].setValue(-1)  # type: ignore[attr-defined]
    controller.do(Provoke("half-orc-glaive", "tombril"))
    assert len(panel.cards) == 2
    assert panel.cards[0].values()["bonus"] == -1
    panel.cards[1].skip_button.click()
    assert panel.cards[0].values()["bonus"] == -1


# -- urgent items ------------------------------------------------------------------------------------


def test_an_urgent_item_is_asked_at_once_and_closing_the_dialog_leaves_it_waiting(table) -> None:
    controller, panel = table
    controller.do(Fall("janine"))
    dialog = panel.dialog
    assert isinstance(dialog, PromptDialog)
    assert dialog.isVisible() and not dialog.isModal()
    assert "Death save" in dialog.windowTitle()
    assert dialog.heading.text() == "Now: Death save"
    assert dialog.card is not None and dialog.card.text_label.text() == "Janine the Pious is at 0: d20 ≥ 11 or dead"
    assert dialog.card.choice_buttons[0].isDefault()
    assert panel.cards[0].title_label.text() == "Now: Death save"  # marked in words, not only colour
    dialog.close()
    assert panel.dialog is None
    assert [p.kind for p in controller.encounter.combat.pending] == ["death save"]
    assert [c.title_label.text() for c in panel.cards] == ["Now: Death save"]


def test_rolling_in_the_dialog_takes_the_item_and_closes_it(table) -> None:
    controller, panel = table
    controller.do(Fall("janine"))
    dialog = panel.dialog
    assert dialog is not None and dialog.card is not None
    controller.engine.dice = ScriptedDice([14])
    dialog.card.choice_buttons[0].click()
    assert log_texts(controller)[-1] == "Janine the Pious's death save: 14, lives"
    assert not dialog.isVisible()
    assert panel.dialog is None
    assert panel.cards == []


def test_the_dialog_closes_when_the_item_is_taken_in_the_dock(table) -> None:
    controller, panel = table
    controller.do(Fall("janine"))
    dialog = panel.dialog
    assert dialog is not None
    panel.cards[0].skip_button.click()
    assert not dialog.isVisible()
    assert panel.dialog is None


def test_an_undo_that_brings_an_item_back_does_not_ask_again(table) -> None:
    controller, panel = table
    controller.do(Fall("janine"))
    assert panel.dialog is not None
    panel.cards[0].skip_button.click()
    controller.undo_stack.undo()
    assert [p.kind for p in controller.encounter.combat.pending] == ["death save"]
    assert panel.dialog is None  # it waits in the dock; the GM asked for the undo
    controller.undo_stack.redo()
    controller.undo_stack.undo()
    controller.undo_stack.undo()  # the fall itself
    controller.undo_stack.redo()  # falls again: asked again
    assert panel.dialog is not None


def test_two_urgent_items_are_asked_one_after_the_other(table) -> None:
    controller, panel = table
    controller.do(Fall("janine"))
    controller.do(Fall("cedryk"))
    first = panel.dialog
    assert first is not None and first.card is not None
    assert "Janine" in first.card.text_label.text()
    first.close()
    second = panel.dialog
    assert second is not None and second is not first and second.card is not None
    assert "Cedryk" in second.card.text_label.text()


# -- the dock in the main window --------------------------------------------------------------------


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    encounter = queueing().new_encounter(**encounter_data())
    main = MainWindow(encounter, settings=settings, recovery=RecoveryStore(tmp_path / "recovery"))
    qtbot.addWidget(main)
    main.resize(1366, 768)
    main.show()
    qtbot.waitExposed(main)
    fighting(main.controller)
    return main


def test_the_dock_comes_out_when_something_is_queued_and_goes_when_the_queue_empties(window: MainWindow) -> None:
    dock, turns = window.docks["Rules call for"], window.docks["Turns"]
    assert not dock.isVisible()
    assert not turns.visibleRegion().isEmpty()
    window.controller.do(Provoke("half-orc", "tombril"))
    QApplication.processEvents()
    assert dock.isVisible() and not dock.visibleRegion().isEmpty()  # on top of its tab group
    assert window.prompts_panel.cards[0].isVisible()
    # A tab of the Turns dock: the window still fits a 1366 x 768 screen.
    assert turns in window.tabifiedDockWidgets(dock) and turns.visibleRegion().isEmpty()
    assert window.minimumSizeHint().height() <= 768
    assert window.height() <= 768
    window.prompts_panel.cards[0].skip_button.click()
    QApplication.processEvents()
    assert not dock.isVisible()
    assert not turns.visibleRegion().isEmpty()  # the Turns are back


def test_the_combat_menu_shows_the_dock_and_it_says_nothing_waits(window: MainWindow) -> None:
    combat = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Combat")
    entry = next(a for a in combat.actions() if a.text() == "&Rules call for…")
    entry.trigger()
    assert window.docks["Rules call for"].isVisible()
    assert window.prompts_panel.empty_label.isVisible()
    window.controller.do(Provoke("half-orc", "tombril"))
    window.prompts_panel.cards[0].skip_button.click()
    assert window.docks["Rules call for"].isVisible()  # the GM brought it out: it stays


def test_an_urgent_item_in_the_window_pops_its_dialog_over_the_window(window: MainWindow, qtbot: QtBot) -> None:
    window.controller.do(Fall("janine"))
    dialog = window.prompts_panel.dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.parent() is window
    assert window.docks["Rules call for"].isVisible()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible()
    assert [c.title_label.text() for c in window.prompts_panel.cards] == ["Now: Death save"]


# -- the Old-School d20 ruleset ---------------------------------------------------------------------


def test_old_school_counter_attacks_wait_in_the_dock_and_a_morale_check_is_asked_at_once(qtbot: QtBot) -> None:
    """The goblin ambush demo: Goblin 1 steps away from Tombril and Brannoc, who may counter-attack;
    Tombril's typed faces (d20 8: 13 hits AC 12; d8 5) fell it, and the Opponents' morale is asked."""
    from lnl_desktop.core.dice.rolls import RandomDice
    from lnl_desktop.core.encounter.actions import Move
    from lnl_desktop.paths import resource

    controller = TableController(storage.load(resource("encounters", "goblin-ambush-osr.lnl")))
    controller.engine.dice = RandomDice(3)
    controller.engine.start_combat("nobody surprised")
    controller.engine.begin_turn("goblin-1")
    panel = PromptsPanel(controller)
    qtbot.addWidget(panel)
    panel.show()
    controller.do(Move("goblin-1", to=(10, 8)))
    assert [(c.title_label.text(), c.item.who) for c in panel.cards] == [
        ("Counter-attack", "tombril"),
        ("Counter-attack", "brannoc"),
    ]
    tombril = panel.cards[0]
    weapon = tombril.editors["weapon"]
    assert isinstance(weapon, QComboBox)
    names = [w.name for w in controller.encounter.combatant("tombril").weapons]
    assert [weapon.itemText(i) for i in range(weapon.count())] == names
    dialog = tombril.type_faces(0)
    assert dialog is not None and "d20" in dialog.hint_label.text()
    dialog.edit.setText("8 5")
    assert dialog.ok_button.isEnabled(), dialog.reason
    dialog.accept()
    assert controller.encounter.combatant("goblin-1").down
    kinds = [p.kind for p in controller.encounter.combat.pending]
    assert kinds == ["morale"]  # Brannoc's counter-attack on the fallen goblin lapsed
    assert "Goblin 1 is down: lapsed" in controller.encounter.log[-2].text
    assert panel.dialog is not None and panel.dialog.isVisible()
    assert "Morale" in panel.dialog.windowTitle()
