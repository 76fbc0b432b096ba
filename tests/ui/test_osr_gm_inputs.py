"""The Action dock's Old-School d20 inputs for the GM's call (RULES §12 "Also applied"): a modifier
(-10 to +10), advantage or disadvantage, and why, read by the checks, the forecast and the roll;
subdual refused with a sword unless struck with the flat of the blade."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QComboBox, QLineEdit, QSpinBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core import get_ruleset
from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.paths import resource
from lnl_desktop.ui.docks.actions import ActionPanel
from lnl_desktop.ui.plumbing.controller import TableController


@pytest.fixture
def brannoc(qtbot: QtBot) -> Iterator[tuple[TableController, ActionPanel]]:
    """The Old-School d20 demo, the Party first; Brannoc's turn, a melee attack on Goblin 1."""
    controller = TableController(storage.load(resource("encounters", "goblin-ambush-osr.lnl")))
    panel = ActionPanel(controller)
    qtbot.addWidget(panel)
    panel.resize(420, 900)
    panel.show()
    situation = get_ruleset("osr").rounds.start_procedure().situations[0].key
    assert controller.do(act.StartCombat(situation), ScriptedDice([20, 1])) is not None, controller.refusal
    assert controller.do(act.BeginTurn("brannoc")) is not None, controller.refusal
    panel.set_kind("melee")
    panel.set_target("goblin-1")
    yield controller, panel


def test_the_gms_disadvantage_and_reason_reach_the_forecast_and_the_log(
    brannoc: tuple[TableController, ActionPanel],
) -> None:
    controller, panel = brannoc
    spin, edge, why = (panel.extra_editors[k] for k in ("gm_modifier", "gm_edge", "gm_reason"))
    assert isinstance(spin, QSpinBox) and (spin.minimum(), spin.maximum(), spin.value()) == (-10, 10, 0)
    assert isinstance(edge, QComboBox) and [edge.itemData(i) for i in range(edge.count())] == [
        "none",
        "advantage",
        "disadvantage",
    ]
    assert isinstance(why, QLineEdit)
    panel.set_extra("gm_edge", "disadvantage")
    panel.set_extra("gm_reason", "unstable surface")
    panel.set_extra("gm_modifier", -1)
    assert "disadvantage (GM: unstable surface)" in panel.note_label.text()
    assert "-1 GM: unstable surface" in panel.note_label.text()
    action = panel.action()
    assert action is not None and (action.gm_modifier, action.gm_edge, action.gm_reason) == (
        -1,
        "disadvantage",
        "unstable surface",
    )
    assert panel.apply_faces([15, 4]) is not None, panel.message
    said = next(e.text for e in reversed(controller.encounter.log) if "Goblin 1" in e.text and "d20" in e.text)
    assert "disadvantage (GM: unstable surface): 2d20 [15, 4] keeps 4" in said
    assert "-1 GM: unstable surface" in said


def test_subdual_with_a_sword_is_refused_until_the_flat_of_the_blade_is_ticked(
    brannoc: tuple[TableController, ActionPanel],
) -> None:
    _, panel = brannoc
    assert panel.means() == "Longsword"
    panel.set_extra("subdual", True)
    assert not panel.roll_button.isEnabled()
    assert "Longsword is not a bludgeoning weapon" in panel.roll_button.toolTip()
    panel.set_extra("flat_of_blade", True)
    assert panel.roll_button.isEnabled()
