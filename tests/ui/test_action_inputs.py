"""The Action dock and a ruleset's own action inputs (``ActionSpec.extras``) and actions aimed at a friend
(``ActionSpec.allies``), as a GM meets them: one editor per input, its value in the action and the log,
the checks asked again when it changes; a guard that offers oneself and the allies, on the list and
on the map.

A small ruleset made for these tests (L&L with two more actions) stands in for any ruleset that
describes such actions; the end of the file tries the same on Old-School d20.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QCheckBox, QComboBox, QSpinBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core import get_ruleset
from lnl_desktop.core.dice.rolls import DiceSource, ScriptedDice, roll_plain
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event, RulesEvent
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.plan import FAIL, OK
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules import registry as rules
from lnl_desktop.core.rules.base import Handler
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.lnl import LnLRuleset
from lnl_desktop.core.rules.lnl.actions import LnlActions
from lnl_desktop.core.rules.lnl.model import Attack
from lnl_desktop.core.rules.registry import register
from lnl_desktop.core.rules.specs import ActionSpec, Setting
from lnl_desktop.paths import demo_encounter_path, resource
from lnl_desktop.ui.docks.actions import ActionPanel
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.plumbing.controller import TableController

NAME = "extras-test"


@dataclass(frozen=True)
class Shove:
    attacker: str
    target: str
    weapon: str
    push: int = 5
    stance: str = "low"
    subdual: bool = False
    second: str = ""


@dataclass(frozen=True)
class Guard:
    guard: str
    ward: str


def shove(engine: Any, a: Shove, dice: DiceSource) -> list[Event]:
    attacker, target = engine.combatant(a.attacker), engine.combatant(a.target)
    title = f"{attacker.name} shoves {target.name}"
    engine.require(title, [*engine.turn_checks(attacker, needs_action=True), *push_checks(a.push)])
    face = roll_plain(dice, 6, f"{attacker.name}'s shove").face
    engine.use_action(attacker, "shove", f"on {target.name}")
    dual = f" and {a.second}" if a.second else ""
    subdual = ", to subdue" if a.subdual else ""
    return [
        RulesEvent(
            round=engine.encounter.combat.round,
            text=f"{title} with {a.weapon}{dual}: d6 {face}, pushed {a.push} ft from a {a.stance} stance{subdual}",
            actors=(attacker.id, target.id),
            ruleset=NAME,
            name="shove",
            detail={"face": face, "push": a.push},
        )
    ]


def guard(engine: Any, a: Guard, dice: DiceSource) -> list[Event]:
    c, ward = engine.combatant(a.guard), engine.combatant(a.ward)
    engine.use_action(c, "guard", "")
    words = f"{c.name} stands on guard" if ward.id == c.id else f"{c.name} guards {ward.name}"
    return [RulesEvent(round=engine.encounter.combat.round, text=words, actors=(c.id,), ruleset=NAME, name="guard")]


def push_checks(push: int) -> list[Check]:
    return [Check("A push the GM allows", push <= 15, f"{push} ft is more than a shove moves anyone (15 ft)")]


PUSH = Setting("push", "Push", "How far the shove pushes, in feet", "int", 5, 0, 30)
STANCE = Setting("stance", "Stance", "Low or high: the GM's call", "choice", "low", choices=("low", "high"))
SUBDUAL = Setting("subdual", "Subdual", "Declared not to harm", "bool", False)
SECOND = Setting("second", "Dual with", "A second weapon in the other hand", "means", "", optional=True)


def build_shove(
    c: str,
    target: str,
    means: str,
    *,
    ignore_dex: bool = False,
    override: bool = False,
    push: int = 5,
    stance: str = "low",
    subdual: bool = False,
    second: str = "",
) -> Shove:
    return Shove(c, target, means, push, stance, subdual, second)


class ExtrasActions(LnlActions):
    """L&L's actions with a Shove that has inputs of its own, and a Guard aimed at oneself or an ally."""

    handlers: ClassVar[Mapping[type, Handler]] = {**LnlActions.handlers, Shove: shove, Guard: guard}

    def kinds(self) -> tuple[ActionSpec, ...]:
        shove_spec = ActionSpec(
            "shove",
            "Shove",
            "Push a foe away with a weapon",
            "weapon",
            build_shove,
            targeted=True,
            rolls=True,
            button="Shove",
            extras=(PUSH, STANCE, SUBDUAL, SECOND),
        )
        guard_spec = ActionSpec(
            "guard",
            "Guard",
            "Stand on guard, or guard an ally",
            "none",
            lambda c, target, means, **toggles: Guard(c, target),
            targeted=True,
            allies=True,
        )
        return (*super().kinds(), shove_spec, guard_spec)

    def checks(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: Any,
        means: str | None,
        text: str,
        target: Any = None,
        extras: Mapping[str, Any] | None = None,
    ) -> list[Any]:
        if spec.key == "shove":
            ExtrasRuleset.checks_asked.append(extras)
            return push_checks(int((extras or {}).get("push", 5)))
        return super().checks(encounter, spec, c, means, text, target)


class ExtrasRuleset(LnLRuleset):
    """L&L with a Shove that has inputs of its own, and a Guard aimed at oneself or an ally."""

    name = NAME
    title = "Extras (test)"
    checks_asked: ClassVar[list[Mapping[str, Any] | None]] = []

    def __init__(self) -> None:
        super().__init__()
        self.actions = ExtrasActions(self.edition)


@pytest.fixture
def extras_ruleset(monkeypatch: pytest.MonkeyPatch) -> ExtrasRuleset:
    """The test ruleset, registered for this test only: the menus of other tests never list it."""
    monkeypatch.setattr(rules, "_loaded", dict(rules._loaded))
    ruleset = register(ExtrasRuleset())
    assert isinstance(ruleset, ExtrasRuleset) and get_ruleset(NAME) is ruleset
    return ruleset


@dataclass
class Table:
    controller: TableController
    panel: ActionPanel
    view: MapView

    def log_texts(self) -> list[str]:
        return [e.text for e in self.controller.encounter.log]


@pytest.fixture
def table(qtbot: QtBot, extras_ruleset: ExtrasRuleset) -> Iterator[Table]:
    """The demo encounter under the test ruleset, Tombril's turn begun (the Party acts first)."""
    ruleset = extras_ruleset
    data = storage.load(demo_encounter_path()).model_dump(mode="json", exclude={"log", "combat", "ruleset"})
    encounter = ruleset.new_encounter(**data)
    controller = TableController(encounter)
    panel = ActionPanel(controller)
    view = MapView(controller)
    for widget, size in ((view, (1200, 800)), (panel, (420, 900))):
        qtbot.addWidget(widget)
        widget.resize(*size)
        widget.show()
    qtbot.waitExposed(view)
    assert controller.do(act.StartCombat(face=5)) is not None, controller.refusal
    assert controller.do(act.BeginTurn("tombril")) is not None, controller.refusal
    yield Table(controller, panel, view)


def click_token(view: MapView, cell: tuple[int, int]) -> None:
    point = view.mapFromScene(view.scene_point_of(cell))
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)


def status(panel: ActionPanel, label: str) -> str:
    return next(r.status for r in panel.rows if r.label == label)


# -- the inputs of an action -------------------------------------------------------------------------


def test_one_editor_per_input_with_its_tooltip_and_default(table: Table) -> None:
    panel = table.panel
    panel.set_kind("shove")
    editors = panel.extra_editors
    assert list(editors) == ["push", "stance", "subdual", "second"]
    push, stance, subdual, second = editors.values()
    assert isinstance(push, QSpinBox) and (push.minimum(), push.maximum(), push.value()) == (0, 30, 5)
    assert isinstance(stance, QComboBox) and [stance.itemText(i) for i in range(stance.count())] == ["low", "high"]
    assert isinstance(subdual, QCheckBox) and subdual.text() == "Subdual" and not subdual.isChecked()
    # A weapon of the one acting, "none" first since it may be left out; not the weapon already swung.
    assert isinstance(second, QComboBox)
    assert [second.itemData(i) for i in range(second.count())] == ["", "Shortbow"]
    assert second.itemText(0) == "none"
    assert push.toolTip() == PUSH.tip and second.toolTip() == SECOND.tip
    assert all(editor.isVisibleTo(panel) for editor in editors.values())
    assert panel.extras() == {"push": 5, "stance": "low", "subdual": False, "second": ""}


def test_the_inputs_reach_the_action_and_the_log(table: Table) -> None:
    panel = table.panel
    panel.set_kind("shove")
    panel.set_target("hill-giant")
    panel.set_extra("push", 10)
    panel.set_extra("stance", "high")
    panel.set_extra("subdual", True)
    panel.set_extra("second", "Shortbow")
    assert panel.action() == Shove("tombril", "hill-giant", "Shortsword", 10, "high", True, "Shortbow")
    # The dock's own editors, as the GM uses them: the spin box and the check box.
    spin = panel.extra_editors["push"]
    assert isinstance(spin, QSpinBox)
    spin.setValue(15)
    assert panel.roll_button.isEnabled()
    panel.roll_button.click()
    assert table.log_texts()[-1].startswith(
        "Tombril shoves Hill Giant with Shortsword and Shortbow: d6 "
    ) and table.log_texts()[-1].endswith("pushed 15 ft from a high stance, to subdue")


def test_typed_faces_are_tried_with_the_inputs(table: Table) -> None:
    panel = table.panel
    panel.set_kind("shove")
    panel.set_target("hill-giant")
    panel.set_extra("push", 0)
    assert panel.faces_button.isVisible() and panel.faces_button.isEnabled()
    assert panel.faces_refusal([4, 4]) is not None  # one d6, not two
    assert panel.faces_refusal([7]) is not None  # not a face of a d6
    assert panel.faces_refusal([4]) is None
    assert panel.apply_faces([4]) is not None
    assert table.log_texts()[-1] == "Tombril shoves Hill Giant with Shortsword: d6 4, pushed 0 ft from a low stance"


def test_the_checks_are_asked_again_with_the_inputs(table: Table) -> None:
    panel = table.panel
    panel.set_kind("shove")
    panel.set_target("hill-giant")
    assert status(panel, "A push the GM allows") == OK
    panel.set_extra("push", 25)
    assert ExtrasRuleset.checks_asked[-1] == {"push": 25, "stance": "low", "subdual": False, "second": ""}
    assert status(panel, "A push the GM allows") == FAIL
    assert not panel.roll_button.isEnabled()
    assert "25 ft is more than a shove moves anyone" in panel.roll_button.toolTip()
    panel.set_extra("push", 15)
    assert status(panel, "A push the GM allows") == OK and panel.roll_button.isEnabled()


def test_the_inputs_are_part_of_the_plan(table: Table) -> None:
    panel, controller = table.panel, table.controller
    panel.set_kind("shove")
    panel.set_target("hill-giant")
    assert controller.plan is not None and dict(controller.plan.extras)["stance"] == "low"
    panel.set_extra("stance", "high")
    assert controller.plan is not None
    assert controller.plan.extras == (("push", 5), ("stance", "high"), ("subdual", False), ("second", ""))
    assert controller.plan.mode is None and controller.plan.means == "Shortsword"


def test_the_inputs_go_back_to_their_defaults_for_another_action_or_combatant(table: Table) -> None:
    panel, controller = table.panel, table.controller
    panel.set_kind("shove")
    panel.set_extra("push", 20)
    panel.set_extra("subdual", True)
    panel.set_kind("attack")
    assert panel.extra_editors == {}  # an L&L attack has no inputs of its own
    panel.set_kind("shove")
    assert panel.extras() == {"push": 5, "stance": "low", "subdual": False, "second": ""}
    spin = panel.extra_editors["push"]
    assert isinstance(spin, QSpinBox) and spin.value() == 5
    panel.set_extra("push", 20)
    assert controller.do(act.EndTurn()) is not None
    assert controller.do(act.BeginTurn("janine")) is not None
    panel.set_kind("shove")
    assert panel.extras()["push"] == 5


def test_an_l_and_l_attack_is_built_as_before(table: Table) -> None:
    panel = table.panel
    panel.set_kind("attack")
    panel.set_target("hill-giant")
    assert panel.extras() == {} and panel.extra_editors == {}
    assert panel.action() == Attack("tombril", "hill-giant", "Shortsword")


# -- an action aimed at a friend -------------------------------------------------------------------


def test_a_guard_offers_oneself_and_the_allies_not_the_foes(table: Table) -> None:
    panel = table.panel
    panel.set_kind("guard")
    combo = panel.target_combo
    offered = [combo.itemData(i) for i in range(1, combo.count())]
    assert offered == ["tombril", "cedryk", "janine"]
    assert combo.itemText(1) == "Tombril (self)"
    assert panel.target() == "tombril"  # oneself to start with, not the nearest foe
    assert panel.roll_button.isEnabled()
    panel.set_target("janine")
    panel.roll_button.click()
    assert table.log_texts()[-1] == "Tombril guards Janine the Pious"


def test_oneself_guarding_is_logged(table: Table) -> None:
    table.panel.set_kind("guard")
    table.panel.roll_button.click()
    assert table.log_texts()[-1] == "Tombril stands on guard"


def test_the_map_picks_an_ally_for_a_guard_and_refuses_a_foe(table: Table) -> None:
    panel, controller, view = table.panel, table.controller, table.view
    foe = panel.target()  # the attack's: the nearest foe
    panel.set_kind("guard")
    click_token(view, (8, 9))  # Janine
    assert panel.target() == "janine"
    assert controller.plan is not None and controller.plan.target == "janine" and controller.plan.allies
    click_token(view, (15, 6))  # the Hill Giant: a foe
    assert panel.target() == "janine"
    assert controller.plan is not None and controller.plan.target == "janine"
    assert "Guard is aimed at Tombril or one of the Party, not at Hill Giant" in panel.message
    # Back to an attack: the foe picked for it before is still there.
    panel.set_kind("attack")
    assert panel.target() == foe


def test_an_attack_still_aims_at_a_foe(table: Table) -> None:
    panel = table.panel
    panel.set_kind("guard")
    panel.set_kind("attack")
    target = panel.target()
    assert target is not None and table.controller.encounter.combatant(target).side.value == "Opponents"
    combo = panel.target_combo
    assert all("(self)" not in combo.itemText(i) for i in range(combo.count()))


# -- Old-School d20 ----------------------------------------------------------------------------------


@pytest.fixture
def osr_table(qtbot: QtBot) -> Iterator[Table]:
    """The Old-School d20 demo; the Party wins the initiative; Brannoc's turn (next to the Hobgoblin
    chief and Goblin 1)."""
    controller = TableController(storage.load(resource("encounters", "goblin-ambush-osr.lnl")))
    panel = ActionPanel(controller)
    qtbot.addWidget(panel)
    panel.resize(420, 900)
    panel.show()
    situation = get_ruleset("osr").rounds.start_procedure().situations[0].key
    assert controller.do(act.StartCombat(situation), ScriptedDice([20, 1])) is not None, controller.refusal
    assert controller.do(act.BeginTurn("brannoc")) is not None, controller.refusal
    yield Table(controller, panel, None)  # type: ignore[arg-type]


def test_old_school_melee_inputs_reach_the_attack(osr_table: Table) -> None:
    panel = osr_table.panel
    panel.set_kind("melee")
    panel.set_target("goblin-1")
    assert set(panel.extra_editors) >= {"cover", "second", "subdual"}
    panel.set_extra("subdual", True)
    panel.set_extra("flat_of_blade", True)  # a Longsword subdues only struck flat
    action = panel.action()
    assert action is not None and action.subdual is True
    assert panel.apply_faces([18, 3]) is not None, panel.message
    assert "subdual" in " ".join(osr_table.log_texts()[-3:]).lower()


def test_old_school_defend_offers_oneself(osr_table: Table) -> None:
    panel = osr_table.panel
    panel.set_kind("defend")
    combo = panel.target_combo
    assert combo.itemText(1) == "Brannoc (self)"
    offered = [combo.itemData(i) for i in range(1, combo.count())]
    assert offered[0] == "brannoc" and set(offered) == {"brannoc", "tombril", "cedryk", "janine"}
    assert panel.target() == "brannoc"
    panel.set_target("tombril")
    panel.roll_button.click()
    assert "Tombril" in osr_table.log_texts()[-1] and "Brannoc" in osr_table.log_texts()[-1]
