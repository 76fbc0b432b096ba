"""The Forecast dock for a ruleset that rolls to hit: the chance to hit in words first, the damage on a
hit in the chart, the action's own inputs (cover) and the encounter passed to the ruleset, a means
the ruleset forecasts nothing for; and L&L's forecast as it was.

A small ruleset made for these tests (L&L with a to-hit "Swing") stands in for any such ruleset;
Old-School d20 is tried at the end.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from pytestqt.qtbot import QtBot

from lnl_desktop.core import get_ruleset
from lnl_desktop.core.dice.odds import Forecast, Threshold
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules import registry as rules
from lnl_desktop.core.rules.lnl import LnLRuleset, forecast_attack
from lnl_desktop.core.rules.lnl.actions import LnlActions
from lnl_desktop.core.rules.lnl.attacks import LnlAttacks
from lnl_desktop.core.rules.lnl.model import AttackMode
from lnl_desktop.core.rules.lnl.odds import means_label
from lnl_desktop.core.rules.registry import register
from lnl_desktop.core.rules.specs import ActionSpec, Setting
from lnl_desktop.paths import demo_encounter_path, resource
from lnl_desktop.ui.docks.actions import ActionPanel
from lnl_desktop.ui.docks.forecast import ForecastPanel
from lnl_desktop.ui.plumbing.controller import AttackPlan, TableController

NAME = "to-hit-test"

COVER = Setting("cover", "Cover", "-1 to hit per point of cover", "int", 0, 0, 4)


@dataclass(frozen=True)
class Swing:
    attacker: str
    target: str
    weapon: str
    cover: int = 0


class ToHitActions(LnlActions):
    """L&L's actions with a Swing first; the Shortbow is no means of it."""

    hooks_with_extras = frozenset({"action_checks"})  # its notes take no inputs

    def kinds(self) -> tuple[ActionSpec, ...]:
        swing = ActionSpec(
            "swing",
            "Swing",
            "d20 to hit, 1d6 on a hit",
            "weapon",
            lambda c, target, means, *, ignore_dex=False, override=False, cover=0: Swing(c, target, means, cover),
            targeted=True,
            mode="swing",
            extras=(COVER,),
        )
        return (swing, *super().kinds())

    def notes(  # type: ignore[override]
        self, encounter: Encounter, spec: ActionSpec, c: Any, means: str | None, target: Any
    ) -> list[tuple[str, str]]:
        return [] if spec.key == "swing" else super().notes(encounter, spec, c, means, target)

    def means(self, c: Any, name: str, spell: bool = False) -> Any:
        return None if name == "Shortbow" else super().means(c, name, spell)


class ToHitAttacks(LnlAttacks):
    """L&L's attacks, with the Swing's forecast: a chance to hit, then 1d6."""

    def forecast(
        self,
        attacker: Any,
        target: Any,
        means: Any,
        mode: Any,
        options: Any,
        *,
        ignore_dex: bool = False,
        encounter: Encounter | None = None,
        extras: Mapping[str, Any] | None = None,
    ) -> Any:
        if mode != "swing":
            return super().forecast(attacker, target, means, mode, options, ignore_dex=ignore_dex)
        ToHitRuleset.asked.append({"encounter": encounter, "extras": dict(extras or {}), "means": means.name})
        cover = int((extras or {}).get("cover", 0))
        p_hit = (8 - cover) / 20
        damage = {k: 1 / 6 for k in range(1, 7)}
        hp = target.injury
        down_from = hp if hp <= 6 else None
        p_down = p_hit * sum(p for k, p in damage.items() if k >= hp)
        return Forecast(
            damage=damage,
            mean=3.5,
            taken=dict(damage),
            p_down=p_down,
            summary=f"On a hit 3.5 on average; expected {p_hit * 3.5:.2f}",
            dice=1,
            sides=6,
            formula="1d6",
            mean_taken=p_hit * 3.5,
            down_from=down_from,
            p_hit=p_hit,
            where="to HP",
            exploding=False,
            thresholds=(Threshold("down", down_from, p_down, down=True),) if down_from is not None else (),
            means_label=means_label(means),  # L&L's words for its weapon: "Shortsword +2"
        )


class ToHitRuleset(LnLRuleset):
    """L&L with a Swing that rolls a d20 to hit (13 or better, less cover) and does 1d6 on a hit.
    The Shortbow has no forecast."""

    name = NAME
    title = "To-hit (test)"
    asked: ClassVar[list[dict[str, Any]]] = []

    def __init__(self) -> None:
        super().__init__()
        self.actions = ToHitActions(self.edition)
        self.attacks = ToHitAttacks(self.edition)


@pytest.fixture
def to_hit_ruleset(monkeypatch: pytest.MonkeyPatch) -> ToHitRuleset:
    """The test ruleset, registered for this test only: the menus of other tests never list it."""
    monkeypatch.setattr(rules, "_loaded", dict(rules._loaded))
    ruleset = register(ToHitRuleset())
    assert isinstance(ruleset, ToHitRuleset) and get_ruleset(NAME) is ruleset
    return ruleset


@dataclass
class Table:
    controller: TableController
    actions: ActionPanel
    forecast: ForecastPanel


def make_table(qtbot: QtBot, encounter: Encounter) -> Table:
    controller = TableController(encounter)
    actions = ActionPanel(controller)
    forecast = ForecastPanel(controller)
    for widget, size in ((actions, (420, 900)), (forecast, (500, 360))):
        qtbot.addWidget(widget)
        widget.resize(*size)
        widget.show()
    return Table(controller, actions, forecast)


@pytest.fixture
def table(qtbot: QtBot, to_hit_ruleset: ToHitRuleset) -> Iterator[Table]:
    """The demo encounter under the to-hit ruleset; Tombril swings his Shortsword at the Hill Giant."""
    ruleset = to_hit_ruleset
    data = storage.load(demo_encounter_path()).model_dump(mode="json", exclude={"log", "combat", "ruleset"})
    table = make_table(qtbot, ruleset.new_encounter(**data))
    assert table.controller.do(act.StartCombat(face=5)) is not None, table.controller.refusal
    assert table.controller.do(act.BeginTurn("tombril")) is not None, table.controller.refusal
    table.actions.set_kind("swing")
    table.actions.set_target("hill-giant")
    table.actions.set_means("Shortsword")
    yield table


def test_the_chance_to_hit_comes_first_in_words(table: Table) -> None:
    panel = table.forecast
    assert not panel.showing_hint
    assert panel.hit_label.isVisible()
    assert panel.hit_label.text() == "Chance to hit 40% (natural 1 misses, natural 20 hits)"
    assert panel.formula_label.text() == "1d6 · to HP"
    assert panel.summary_label.text() == "On a hit 3.5 on average; expected 1.40"
    assert "'!'" not in panel.formula_label.toolTip() and "explod" not in panel.summary_label.toolTip()
    assert panel.title_label.text() == "Tombril → Hill Giant: Shortsword +2 (swing)"


def test_the_chart_is_the_damage_on_a_hit(table: Table) -> None:
    panel = table.forecast
    assert panel.plot is not None
    item = panel.plot.getPlotItem()
    assert item.titleLabel.text == "damage on a hit"
    assert item.getAxis("bottom").labelText == "damage on a hit"
    assert panel.bar_count() == 6
    assert panel.tooltip_at(3.2).startswith("3 damage on a hit: 16.7%")
    assert panel.mean_line is not None and panel.mean_line.value() == pytest.approx(3.5)
    sp_line, down_line = panel._markers
    assert not sp_line.isVisible()  # no SP to empty in a ruleset of hit points
    assert not down_line.isVisible()  # the Hill Giant's 20 IP are beyond a d6


def test_cover_set_in_the_action_dock_changes_the_chance(table: Table) -> None:
    ToHitRuleset.asked.clear()
    table.actions.set_extra("cover", 3)
    assert table.forecast.hit_label.text() == "Chance to hit 25% (natural 1 misses, natural 20 hits)"
    asked = ToHitRuleset.asked[-1]
    assert asked["extras"] == {"cover": 3}
    assert asked["encounter"] is table.controller.encounter


def test_a_target_a_hit_may_drop_shows_where(table: Table, qtbot: QtBot) -> None:
    assert table.controller.do(act.EditCombatant("hill-giant", {"injury": 4})) is not None, table.controller.refusal
    panel = table.forecast
    down_line = panel._markers[1]
    assert down_line.isVisible() and down_line.value() == pytest.approx(3.5)
    assert "puts it down" in panel.tooltip_at(5)


def test_a_weapon_the_ruleset_forecasts_nothing_for(table: Table) -> None:
    table.actions.set_means("Shortbow")
    assert table.forecast.showing_hint
    assert table.forecast.hint_text == "To-hit (test) gives no forecast for swing."


def test_the_forecast_follows_the_ruleset_word_for_the_mode(table: Table) -> None:
    plan = table.controller.plan
    assert plan is not None and plan.mode == "swing" and plan.means == "Shortsword"
    # An L&L attack set up after it is forecast by L&L's own rule again.
    table.actions.set_kind("attack")
    assert not table.forecast.hit_label.isVisible()
    assert "5d6!" in table.forecast.formula_label.text()


# -- L&L as it was -----------------------------------------------------------------------------------


def test_an_l_and_l_forecast_reads_as_before(qtbot: QtBot) -> None:
    table = make_table(qtbot, storage.load(demo_encounter_path()))
    controller, panel = table.controller, table.forecast
    plan = AttackPlan(attacker="tombril", target="hill-giant", means="Shortsword")
    controller.set_plan(plan)
    enc = controller.encounter
    expected = forecast_attack(
        enc.combatant("tombril"), enc.combatant("hill-giant"), enc.combatant("tombril").weapon("Shortsword"),
        AttackMode.ATTACK, enc.options,
    )  # fmt: skip
    assert not panel.hit_label.isVisible()
    assert panel.summary_label.text() == expected.summary
    assert panel.formula_label.text() == f"{expected.formula} · to SP first"
    assert "'!'" in panel.formula_label.toolTip()
    assert panel.plot is not None
    item = panel.plot.getPlotItem()
    assert item.getAxis("bottom").labelText == "damage" and not item.titleLabel.text
    assert panel.tooltip_at(31).startswith("31 damage: ")
    assert panel._markers[0].label.format == "SP 0"


# -- Old-School d20 ----------------------------------------------------------------------------------


def test_old_school_melee_forecast_shows_its_chance_to_hit(qtbot: QtBot) -> None:
    table = make_table(qtbot, storage.load(resource("encounters", "goblin-ambush-osr.lnl")))
    controller = table.controller
    ruleset = get_ruleset("osr")
    from lnl_desktop.core.dice.rolls import ScriptedDice

    situation = ruleset.rounds.start_procedure().situations[0].key
    assert controller.do(act.StartCombat(situation), ScriptedDice([20, 1])) is not None, controller.refusal
    assert controller.do(act.BeginTurn("brannoc")) is not None, controller.refusal
    table.actions.set_kind("melee")
    table.actions.set_target("goblin-1")
    panel = table.forecast
    assert not panel.showing_hint, panel.hint_text

    def expected() -> Forecast:
        enc = controller.encounter
        attacker, target = enc.combatant("brannoc"), enc.combatant("goblin-1")
        means = ruleset.actions.means(attacker, table.actions.means() or "")
        extras = table.actions.extras()
        return ruleset.attacks.forecast(attacker, target, means, "melee", enc.options, encounter=enc, extras=extras)  # type: ignore[no-any-return]

    first = expected()
    assert first.p_hit is not None
    assert panel.hit_label.text() == f"Chance to hit {round(first.p_hit * 100)}% (natural 1 misses, natural 20 hits)"
    assert panel.summary_label.text() == first.summary
    cover = next(s for s in ruleset.actions.kinds()[0].extras if s.key == "cover")
    table.actions.set_extra("cover", cover.choices[-2])  # the heaviest partial cover
    second = expected()
    assert second.p_hit is not None and second.p_hit < first.p_hit
    assert f"Chance to hit {round(second.p_hit * 100)}%" in panel.hit_label.text()
    table.actions.set_kind("defend")
    assert panel.showing_hint and "no forecast for defend" in panel.hint_text
