"""A whole fight run to the end from the window's docks, as a GM would: app dice, every turn.

The GM lines the two sides up face to face, starts the combat, and round after round lets each
combatant of the acting side take its turn in the Turns dock and attack the nearest foe in reach
with the Action dock's Roll button, until one side is down. Nothing may get stuck.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.dice.rolls import RandomDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.lnl.examples import demo_line_up_actions
from lnl_desktop.paths import demo_encounter_path
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore


@pytest.mark.parametrize("seed", [3, 11])
def test_a_whole_fight_runs_to_the_end_from_the_docks(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    window = MainWindow(
        storage.load(demo_encounter_path()),
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
        recovery=RecoveryStore(tmp_path),
    )
    qtbot.addWidget(window)
    window.show()
    controller, turns, panel = window.controller, window.turns_panel, window.action_panel
    controller.engine.dice = RandomDice(seed)
    for action in demo_line_up_actions():
        assert controller.do(action) is not None

    assert controller.do(act.StartCombat(face=4)) is not None
    encounter = controller.encounter
    attacks = 0

    def side_down(side: Side) -> bool:
        return all(c.down for c in encounter.side(side))

    for _ in range(60):  # rounds
        if side_down(Side.PARTY) or side_down(Side.OPPONENTS):
            break
        while controller.engine.waiting():
            who = controller.engine.waiting()[0]
            assert turns.begin_turn(who.id)
            foes = [f for f in encounter.combatants if f.side is not who.side and not f.down]
            for weapon in who.weapons:
                if weapon.state.value == "broken":
                    continue
                target = next(
                    (
                        f
                        for f in foes
                        if not any(c.blocks for c in controller.engine.attack_checks(who.id, f.id, weapon.name))
                    ),
                    None,
                )
                if target is not None:
                    panel.set_kind("attack")
                    panel.set_means(weapon.name)
                    panel.set_target(target.id)
                    assert panel.allowed()[0], panel.allowed()[1]
                    assert panel.roll_button.isEnabled()
                    panel.roll_button.click()
                    assert panel.last_result is not None
                    attacks += 1
                    break
            assert turns.end_turn()
        if side_down(Side.PARTY) or side_down(Side.OPPONENTS):
            break
        assert controller.engine.round_over
        assert turns.next_round()

    assert side_down(Side.PARTY) or side_down(Side.OPPONENTS), "the fight never ended"
    assert attacks >= 3
    # Every attack is in the log with its formula, and the whole fight undoes back to the start.
    assert sum(1 for e in encounter.log if e.kind == "attack") == attacks
    while controller.undo_stack.canUndo():
        controller.undo_stack.undo()
    assert encounter.combat.round == 0
    assert all(c.stamina == c.stamina_max and c.injury == c.injury_max for c in encounter.combatants)
