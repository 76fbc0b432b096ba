"""The Forecast dock: follows the attack plan, shows the core's numbers, loads pyqtgraph only when shown."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pytestqt.qtbot import QtBot

from lnl_desktop.core.dice.odds import Forecast
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.lnl import forecast_attack
from lnl_desktop.core.rules.lnl.model import AttackMode
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.docks.forecast import NO_COMBAT, ForecastPanel
from lnl_desktop.ui.plumbing.controller import AttackPlan, TableController

SHORTSWORD = AttackPlan(attacker="tombril", target="hill-giant", means="Shortsword")


@pytest.fixture
def controller(qtbot: QtBot) -> TableController:
    return TableController(storage.load(demo_encounter_path()))


@pytest.fixture
def panel(qtbot: QtBot, controller: TableController) -> ForecastPanel:
    widget = ForecastPanel(controller)
    qtbot.addWidget(widget)
    widget.resize(500, 320)
    return widget


def core_forecast(controller: TableController, plan: AttackPlan):
    enc = controller.encounter
    attacker, target = enc.combatant(plan.attacker), enc.combatant(plan.target)
    means = attacker.spell(plan.means) if plan.mode == AttackMode.SPELL else attacker.weapon(plan.means)
    return forecast_attack(attacker, target, means, plan.mode, enc.options, ignore_dex=plan.ignore_dex)


def sp_0(fc: Forecast | None) -> float:
    """The chance the forecast gives the blow of emptying the target's SP (its "SP 0" line; 0 without one)."""
    assert fc is not None
    return next((t.chance for t in fc.thresholds if t.label == "SP 0"), 0.0)


def test_importing_the_module_does_not_import_pyqtgraph() -> None:
    code = (
        "import sys\n"
        "import lnl_desktop.ui.docks.forecast\n"
        "assert 'pyqtgraph' not in sys.modules, 'pyqtgraph imported'\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok" in result.stdout


def test_a_panel_never_shown_builds_no_chart(panel: ForecastPanel, controller: TableController) -> None:
    controller.set_plan(SHORTSWORD)
    assert panel.plot is None
    assert panel.forecast is None  # nothing computed while hidden


def test_shows_the_mean_the_core_computes_with_bars(panel: ForecastPanel, controller: TableController) -> None:
    controller.set_plan(SHORTSWORD)
    panel.show()
    expected = core_forecast(controller, SHORTSWORD)
    assert panel.plot is not None
    assert not panel.showing_hint
    assert f"Mean {expected.mean:.1f} damage" in panel.summary_label.text()
    assert panel.summary_label.text() == expected.summary
    assert panel.bar_count() > 10
    assert panel.mean_line is not None and panel.mean_line.value() == pytest.approx(expected.mean)
    assert "Tombril" in panel.title_label.text() and "Hill Giant" in panel.title_label.text()
    assert "5d6!" in panel.formula_label.text()
    assert "damage" in panel.plot.getPlotItem().getAxis("bottom").labelText
    assert "chance %" in panel.plot.getPlotItem().getAxis("left").labelText


def test_power_attack_updates_the_numbers(panel: ForecastPanel, controller: TableController) -> None:
    controller.set_plan(SHORTSWORD)
    panel.show()
    before = panel.summary_label.text()
    power = AttackPlan(attacker="tombril", target="hill-giant", means="Shortsword", mode=AttackMode.POWER)
    controller.set_plan(power)
    expected = core_forecast(controller, power)
    assert panel.summary_label.text() == expected.summary != before
    assert f"Mean {expected.mean:.1f}" in panel.summary_label.text()
    assert "10d6!" in panel.formula_label.text()
    assert panel.mean_line.value() == pytest.approx(expected.mean)


def test_an_incomplete_plan_shows_the_hint(panel: ForecastPanel, controller: TableController) -> None:
    panel.show()
    assert panel.showing_hint and panel.hint_text == NO_COMBAT
    controller.set_plan(AttackPlan(attacker="tombril", means="Shortsword"))
    assert panel.showing_hint and panel.hint_text.startswith("Pick a target for Tombril")
    controller.set_plan(AttackPlan(attacker="tombril", target="hill-giant"))
    assert panel.showing_hint and panel.hint_text == "Tombril has no weapon chosen: pick one in the Action dock."
    controller.set_plan(SHORTSWORD)
    assert not panel.showing_hint
    controller.set_plan(None)
    assert panel.showing_hint


def test_a_new_hp_total_is_followed_and_an_unrelated_event_recomputes_nothing(
    panel: ForecastPanel, controller: TableController
) -> None:
    controller.set_plan(SHORTSWORD)
    panel.show()
    first = panel.forecast
    assert controller.do(act.EditCombatant("janine", {"notes": "watching"})) is not None
    assert panel.forecast is first  # nothing it depends on changed: no new forecast
    assert controller.do(act.EditCombatant("hill-giant", {"stamina": 30})) is not None
    assert panel.forecast is not first
    expected = core_forecast(controller, SHORTSWORD)
    assert sp_0(panel.forecast) == pytest.approx(sp_0(expected))
    assert panel.summary_label.text() == expected.summary
    controller.undo_stack.undo()
    assert sp_0(panel.forecast) == pytest.approx(sp_0(first))


def test_hidden_panel_catches_up_when_shown_again(panel: ForecastPanel, controller: TableController) -> None:
    controller.set_plan(SHORTSWORD)
    panel.show()
    panel.hide()
    sneak = AttackPlan(attacker="cedryk", target="half-orc", means="Dagger", mode=AttackMode.SNEAK)
    controller.set_plan(sneak)
    assert "Tombril" in panel.title_label.text()  # not recomputed while hidden
    panel.show()
    expected = core_forecast(controller, sneak)
    assert panel.summary_label.text() == expected.summary
    assert "AWA check" in panel.summary_label.text()


def test_tooltip_words(panel: ForecastPanel, controller: TableController) -> None:
    controller.set_plan(SHORTSWORD)
    panel.show()
    fc = panel.forecast
    text = panel.tooltip_at(31.2)
    assert text.startswith(f"31 damage: {fc.damage[31] * 100:.1f}%")
    assert "31 or more" in text


def test_a_spell_and_an_unknown_weapon(panel: ForecastPanel, controller: TableController) -> None:
    panel.show()
    spell = AttackPlan(attacker="janine", target="half-orc", means="Searing Light", mode=AttackMode.SPELL)
    controller.set_plan(spell)
    assert not panel.showing_hint
    assert panel.summary_label.text() == core_forecast(controller, spell).summary
    controller.set_plan(AttackPlan(attacker="tombril", target="hill-giant", means="Warhammer"))
    assert panel.showing_hint and "Warhammer" in panel.hint_text
