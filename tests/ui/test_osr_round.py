"""Whole rounds of the Old-School d20 demo (The Hobgoblin Ford) in the real main window, from the
docks as a GM plays them: the Start combat dialog with typed initiative faces, the Turns dock's
order, the Action dock's attacks with typed dice, the Rules call for dock's counter-attacks and
the morale check it asks for at once when the first goblin falls; one round under group
initiative and one under individual initiative."""

from __future__ import annotations

from pathlib import Path

import pytest
from action_steps import attack as roll_attack
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.paths import resource
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    w = MainWindow(
        storage.load(resource("encounters", "goblin-ambush-osr.lnl")),
        None,
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
        recovery=RecoveryStore(tmp_path / "r"),
    )
    qtbot.addWidget(w)
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    return w


def attack(window: MainWindow, kind: str, weapon: str, target: str, faces: list[int]) -> str:
    """Set up an attack in the Action dock and roll it with typed faces; the log line."""
    return roll_attack(window, kind, weapon, target, faces)[0].text


def start(window: MainWindow, faces: str, initiative: str = "group") -> None:
    turns = window.turns_panel
    dialog = turns.start_combat()
    dialog.set_situation("nobody surprised")
    dialog.set_setting("initiative", initiative)
    dialog.set_initiative_faces(faces)
    assert dialog.problem() is None, dialog.problem()
    dialog.accept()
    assert window.controller.encounter.combat.phase.value == "fighting", window.controller.refusal


def test_a_round_under_group_initiative_with_a_morale_check_prompted_by_a_death(
    window: MainWindow, qtbot: QtBot
) -> None:
    controller, turns, prompts = window.controller, window.turns_panel, window.prompts_panel
    start(window, "15 5")  # Party 15 + Tombril's INIT 1 = 16; Opponents 5 + the chief's 1 = 6
    order = controller.encounter.combat.order
    assert [s.title for s in order] == ["Party (Tombril leads)", "Opponents (Hobgoblin chief leads)"]
    group = turns.tree.topLevelItem(0)
    assert "d20 15 +1 INIT = 16" in group.text(0)

    # Tombril cuts down Goblin 1 (AC 12): d20 14 + 3 + 2 = 19, 1d8 6 + 2 = 8 ≥ 4 HP.
    assert turns.begin_turn("tombril")
    line = attack(window, "melee", "Longsword", "goblin-1", [14, 6])
    assert line == (
        "Tombril attacks Goblin 1 with Longsword: d20 14 +3 attack bonus +2 STR = 19 vs AC 12: hit; "
        "damage Longsword [6]+2 = 8 → Goblin 1 0/4 HP"
    )
    # The first of the Opponents has fallen: the morale check is asked at once, in a dialog.
    qtbot.waitUntil(lambda: prompts.dialog is not None and prompts.dialog.isVisible())
    assert "Morale" in prompts.dialog.windowTitle()
    card = prompts.dialog.card
    assert card.apply_faces(0, [4, 4]) is not None  # 8: the chief (morale 9) stands, the goblins (7) break
    log = controller.encounter.log
    morale = next(e for e in reversed(log) if e.text.startswith("Morale of the Opponents"))
    assert morale.text.startswith(
        "Morale of the Opponents: 2d6 [4+4] = 8; Hobgoblin chief (morale 9) stands; Goblin 2 (morale 7) flees"
    )
    assert controller.encounter.combatant("goblin-2").morale_result == "flees"
    qtbot.waitUntil(lambda: prompts.dialog is None or not prompts.dialog.isVisible())
    assert turns.end_turn()

    # Brannoc steps away from the chief: its counter-attack is queued in the Rules call for dock.
    assert turns.begin_turn("brannoc")
    assert window.map_view is not None
    assert controller.do(act.Move("brannoc", to=(6, 9))) is not None
    assert [(p.kind, p.who) for p in controller.encounter.combat.pending] == [("counter-attack", "hobgoblin-chief")]
    card = prompts.cards[0]
    assert card.apply_faces(0, [3]) is not None  # d20 3: a miss
    assert controller.encounter.combat.pending == []
    assert turns.end_turn()

    # Cedryk shoots the archer; Janine defends.
    assert turns.begin_turn("cedryk")
    line = attack(window, "ranged", "Shortbow", "goblin-archer", [20, 4])
    assert "(natural 20: always hits): hit" in line
    assert turns.end_turn()
    assert turns.begin_turn("janine")
    window.action_panel.set_kind("defend")
    window.action_panel.set_target("janine")
    assert window.action_panel.roll() is not None
    assert "Janine defends (+2 AC)" in controller.encounter.log[-1].text
    assert turns.end_turn()

    # The Opponents' turns: the goblins that broke flee, as their tokens say.
    assert "Hobgoblin chief" in {c.name for c in controller.engine.waiting()}
    assert window.map_view.scene().tokens["goblin-2"].look.word == "flees"
    for c in list(controller.engine.waiting()):
        assert turns.begin_turn(c.id)
        assert turns.end_turn()
    assert controller.engine.round_over
    assert turns.next_round_faces([9, 12])
    assert controller.encounter.combat.round == 2
    assert controller.engine.elapsed_seconds == 10


def test_a_round_under_individual_initiative_follows_each_roll(window: MainWindow) -> None:
    controller, turns = window.controller, window.turns_panel
    # One d20 each, in the encounter's order: Tombril, Cedryk, Janine, Brannoc, the chief, goblins 1-3, the archer.
    start(window, "10 18 4 7 15 12 3 9 11", "individual")
    order = [s.title for s in controller.encounter.combat.order]
    assert order == [
        "Cedryk",  # 18 + 2
        "Hobgoblin chief",  # 15 + 1
        "Goblin 1",  # 12
        "Tombril",  # 10 + 1 = 11, a tie with the archer: PCs first
        "Goblin archer",  # 11
        "Goblin 3",  # 9
        "Brannoc",  # 7
        "Janine",  # 4
        "Goblin 2",  # 3
    ]
    assert [c.name for c in controller.engine.waiting()] == ["Cedryk"]
    assert not turns.begin_turn("tombril")
    assert "Cedryk acts before Tombril in the initiative order" in turns.message
    for name in order:
        (who,) = controller.engine.waiting()
        assert who.name == name
        assert turns.begin_turn(who.id)
        if name == "Goblin 1":
            line = attack(window, "melee", "Short sword", "tombril", [1])
            assert line.endswith("(natural 1: always misses): miss")
        assert turns.end_turn()
    assert controller.engine.round_over
    # The GM switches back to group initiative for round 2 from the Turns dock.
    assert turns.set_setting("initiative", "group")
    assert turns.next_round_faces([2, 19])
    assert [s.title.split(" (")[0] for s in controller.encounter.combat.order] == ["Opponents", "Party"]
    controller.undo_stack.undo()
    controller.undo_stack.undo()
    assert controller.encounter.options.initiative == "individual"
    assert controller.encounter.combat.round == 1


def test_the_demo_round_refuses_a_bad_typed_initiative_face_and_keeps_everything(window: MainWindow) -> None:
    dialog = window.turns_panel.start_combat()
    dialog.set_situation("nobody surprised")
    dialog.set_initiative_faces("15 25")
    assert "25" in (dialog.problem() or "")
    before = window.controller.encounter.model_dump()
    dialog.reject()
    assert window.controller.encounter.model_dump() == before


def test_a_pc_dropped_to_0_is_asked_for_the_death_save_at_once_with_the_dc_shown(
    window: MainWindow, qtbot: QtBot
) -> None:
    controller, turns, prompts = window.controller, window.turns_panel, window.prompts_panel
    assert controller.do(act.EditCombatant("janine", {"hp": 3})) is not None
    assert controller.do(act.Move("janine", to=(9, 7), forced=True)) is not None  # next to the chief
    start(window, "2 19")  # the Opponents first
    assert turns.begin_turn("hobgoblin-chief")
    # d20 15 + 2 + 0 = 17 against Janine's AC 12; 1d8 8: 8 damage on 3 HP, overkill 5: DC 16.
    line = attack(window, "melee", "Longsword", "janine", [15, 8])
    assert line.endswith("→ Janine 0/7 HP")
    qtbot.waitUntil(lambda: prompts.dialog is not None and prompts.dialog.isVisible())
    assert "Death save" in prompts.dialog.windowTitle()
    assert "against DC 16 (11 + 5 overkill)" in prompts.dialog.card.spec.text
    assert prompts.dialog.card.apply_faces(0, [14]) is not None  # 14 + 2 = 16: saved
    assert (
        controller.encounter.log[-1].text
        == "Janine's death save: d20 14 +2 = 16 vs DC 16: success: unconscious at 0 HP"
    )
    janine = controller.encounter.combatant("janine")
    assert janine.down and not janine.dead and "unconscious" in janine.conditions
    assert window.map_view.scene().tokens["janine"].look.word == "unconscious"
