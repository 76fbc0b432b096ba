"""Group d10's declared target in the Turns dock (RULES §13): the Declared combo offers "Attack <name>"
after the plain choices; a pick is one logged, undoable step, and the attack on another is allowed
and logged as a change of plan."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core import get_ruleset
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.files import storage
from lnl_desktop.paths import resource
from lnl_desktop.ui.docks.turns import TurnsPanel
from lnl_desktop.ui.plumbing.controller import TableController


def test_a_gm_declares_an_attack_on_a_named_foe_from_the_declared_combo(qtbot: QtBot) -> None:
    demo = get_ruleset("d10").demo()
    assert demo is not None
    controller = TableController(storage.load(resource("encounters", demo)))
    turns = TurnsPanel(controller)
    qtbot.addWidget(turns)
    turns.resize(400, 560)
    turns.show()
    qtbot.waitExposed(turns)
    combatants = controller.encounter.combatants
    hero = next(c for c in combatants if c.side is Side.PARTY)
    foe = next(c for c in combatants if c.side is Side.OPPONENTS)

    combo = turns.declare_combo(hero.id)
    assert isinstance(combo, QComboBox)
    index = combo.findText(f"Attack {foe.name}")
    assert index >= 0 and combo.itemText(0) == "Attack"
    combo.setCurrentIndex(index)
    combo.activated.emit(index)

    assert controller.encounter.log[-1].text == f"{hero.name} declares for round 1: Attack on {foe.name}"
    assert controller.encounter.combat.declaring_targets == {hero.id: foe.id}
    combo = turns.declare_combo(hero.id)
    assert combo is not None and combo.currentText() == f"Attack {foe.name}"
    controller.undo_stack.undo()
    assert controller.encounter.combat.declaring_targets == {}
    combo = turns.declare_combo(hero.id)
    assert combo is not None and combo.currentIndex() == -1
