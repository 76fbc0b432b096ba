"""The Action dock's result box in every ruleset's words, Group d10's dock (the declared action, the
initiative dice named, one place for each prompt), and the faces dialogs' words per ruleset.

Each demo encounter is opened in the real main window and one attack is played from the Action dock
with typed faces; the result is read off the dock, not the round log."""

from __future__ import annotations

from pathlib import Path

import pytest
from action_steps import attack, start_classic, start_d10, start_lnl, start_osr
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.d10 import Declare
from lnl_desktop.core.rules.osr import SavingThrow
from lnl_desktop.paths import resource
from lnl_desktop.ui.dialogs.combat import StartCombatDialog
from lnl_desktop.ui.dialogs.faces import FacesDialog, check_faces, parse_faces
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.recovery import RecoveryStore


def open_demo(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> MainWindow:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    w = MainWindow(
        storage.load(resource("encounters", name)),
        None,
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
        recovery=RecoveryStore(tmp_path / "r"),
    )
    qtbot.addWidget(w)
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    return w


def lnl_attack(window: MainWindow) -> None:
    assert window.controller.do(act.BeginTurn("tombril")) is not None
    assert window.controller.do(act.Move("tombril", (14, 6))) is not None
    attack(window, "attack", "Shortsword", "hill-giant", [5, 3, 4, 3, 2])


# -- every ruleset's attack, read in the Action dock ---------------------------------------------------

CASES = {
    "lnl": (
        "hill-giant.lnl",
        start_lnl,
        lnl_attack,
        "31 damage off Hill Giant's SP → 37 SP left",
        ["5 x 2 magic + 8 STR - 3 DEX - 1 AP = 31", "Where it went: 31 to SP"],
    ),
    "classic": (
        "hill-giant-classic.lnl",
        start_classic,
        lnl_attack,
        "31 damage off Hill Giant's SP → 37 SP left",
        ["= 31", "Where it went: 31 to SP"],
    ),
    "osr": (
        "goblin-ambush-osr.lnl",
        start_osr,
        lambda w: (
            w.controller.do(act.BeginTurn("tombril")),
            attack(w, "melee", "Longsword", "goblin-1", [14, 6]),
        ),
        "Hit: 8 damage → Goblin 1 0/4 HP",
        [
            "Tombril: melee attack on Goblin 1 with Longsword",
            "To hit: d20 14 +3 attack bonus +2 STR = 19 vs AC 12: hit",
            "Damage: Longsword [6]+2 = 8",
            "Goblin 1 is defeated (0 HP)",
        ],
    ),
    "d10": (
        "bandit-mill-d10.lnl",
        start_d10,
        lambda w: (
            w.controller.do(act.BeginTurn("tombril")),
            attack(w, "attack", "Longsword", "bandit-1", [3, 14, 2, 6]),
        ),
        "Hit: 6 damage → Bandit 1 is a minion: dies on any hit",
        [
            "Tombril: attack on Bandit 1 with Longsword",
            "To hit: 3/14 (advantage: 14) +3 melee = 17 vs Defense 10: hit",
            "Roll: advantage (surprise)",
            "Damage: d8 2/6 (masterwork: 6) = 6",
            "Bandit 1 dies",
        ],
    ),
}


@pytest.mark.parametrize("ruleset", list(CASES))
def test_one_attack_of_each_ruleset_shows_its_result_in_the_action_dock(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ruleset: str
) -> None:
    demo, start, play, headline, lines = CASES[ruleset]
    window = open_demo(qtbot, tmp_path, monkeypatch, demo)
    panel = window.action_panel
    start(window)
    assert not panel.result_box.isVisibleTo(panel)
    play(window)
    assert panel.result_box.isVisibleTo(panel), f"{ruleset}: the result box is empty"
    assert panel.damage_label.text() == headline
    text = panel.result_text()
    for line in lines:
        assert line in text, f"{line!r} not in {text!r}"
    # Undo takes the result away again: it is read from the round log.
    window.controller.undo_stack.undo()
    assert not panel.result_box.isVisibleTo(panel) or panel.damage_label.text() != headline


def test_an_old_school_miss_and_a_saving_throw_say_so_against_ac_and_dc(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = open_demo(qtbot, tmp_path, monkeypatch, "goblin-ambush-osr.lnl")
    panel = window.action_panel
    start_osr(window)
    assert window.controller.do(act.BeginTurn("tombril")) is not None
    attack(window, "melee", "Longsword", "goblin-1", [3])
    assert panel.damage_label.text() == "Miss: Goblin 1 is not hit (AC 12)"
    assert "To hit: d20 3 +3 attack bonus +2 STR = 8 vs AC 12: miss" in panel.result_text()
    # A saving throw the GM calls for from the sheet shows in the dock too, against its DC.
    bonus = window.controller.combatant("tombril").save_bonus("Spells")
    done = window.controller.do(SavingThrow("tombril", "Spells", 15), ScriptedDice([4]))
    assert done is not None, window.controller.refusal
    assert panel.damage_label.text() == "Tombril fails the save against Spells"
    assert f"Saving throw: d20 4 {bonus:+d} = {4 + bonus} vs DC 15" in panel.result_text()


def test_a_group_d10_free_attack_and_a_natural_1_show_in_the_action_dock(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = open_demo(qtbot, tmp_path, monkeypatch, "bandit-mill-d10.lnl")
    controller, panel, prompts = window.controller, window.action_panel, window.prompts_panel
    start_d10(window)
    assert controller.do(act.Move("cedryk", to=(11, 7), forced=True)) is not None
    assert controller.do(act.BeginTurn("cedryk")) is not None
    assert controller.do(act.Move("cedryk", path=((11, 7), (10, 8), (9, 9)))) is not None
    qtbot.waitUntil(lambda: prompts.cards != [])
    assert prompts.cards[0].apply_faces(0, [2, 15]) is not None  # surprised: disadvantage, the 2 kept
    assert panel.damage_label.text() == "Miss: Cedryk is not hit (Defense 13)"
    text = panel.result_text()
    assert "Ogre: free attack on Cedryk with" in text
    assert "To hit: 2/15 (disadvantage: 2) +4 melee = 6 vs Defense 13: miss" in text
    assert "Roll: disadvantage (surprised)" in text


# -- Group d10's dock -------------------------------------------------------------------------------


def test_the_action_dock_opens_on_the_declared_parry(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = open_demo(qtbot, tmp_path, monkeypatch, "bandit-mill-d10.lnl")
    panel = window.action_panel
    start_d10(window, parry=("janine",))
    assert window.turns_panel.begin_turn("tombril")
    assert panel.kind() == "attack"  # declared an attack
    assert window.turns_panel.end_turn()
    assert window.turns_panel.begin_turn("janine")
    assert panel.kind() == "parry" and panel.kind_combo.currentText() == "Parry / dodge"
    assert panel.checklist_box.title() == "Allowed: every check holds"
    assert panel.roll() is not None
    assert window.controller.combatant("janine").parrying


def test_the_next_rounds_initiative_names_the_d10s(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = open_demo(qtbot, tmp_path, monkeypatch, "bandit-mill-d10.lnl")
    controller, turns = window.controller, window.turns_panel
    start_d10(window)
    while controller.engine.waiting():
        assert turns.begin_turn(controller.engine.waiting()[0].id)
        assert turns.end_turn()
    assert controller.engine.round_over
    # Nobody has declared for round 2 yet: no faces to type, and never a d6.
    assert "d6" not in turns.initiative_caption.text()
    assert not turns.initiative_edit.isVisibleTo(turns)
    assert turns.next_round_button.text() == "Next round: declare first"
    turns.declare_all("attack")
    assert turns.initiative_caption.isVisibleTo(turns)
    assert turns.initiative_caption.text().startswith("Initiative: 3 d10")
    assert "d6" not in turns.initiative_edit.toolTip()


def test_a_natural_1s_mishap_is_asked_in_one_place_at_a_time(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = open_demo(qtbot, tmp_path, monkeypatch, "bandit-mill-d10.lnl")
    panel, prompts = window.action_panel, window.prompts_panel
    start_d10(window)
    assert window.controller.do(act.BeginTurn("tombril")) is not None
    attack(window, "attack", "Longsword", "bandit-1", [1, 1])  # advantage, both 1: a critical failure
    assert panel.damage_label.text().startswith("Miss: Bandit 1 is not hit (Defense 10)")
    assert "a natural 1: the GM picks a mishap" in panel.damage_label.text()
    dialog = prompts.dialog
    assert dialog is not None and dialog.isVisible() and "Critical failure" in dialog.windowTitle()
    [card] = prompts.cards
    # The dock keeps a folded card (its title and a way to the window), not a second copy of the question.
    assert card.asked_elsewhere() and card.title_label.isVisibleTo(card)
    assert not any(button.isVisibleTo(card) for button in card.choice_buttons)
    assert not card.skip_button.isVisibleTo(card) and not card.text_label.isVisibleTo(card)
    assert dialog.card is not None and all(b.isVisibleTo(dialog) for b in dialog.card.choice_buttons)
    dialog.close()  # left waiting: now the dock asks it, in full
    [card] = prompts.cards
    assert not card.asked_elsewhere()
    assert all(button.isVisibleTo(card) for button in card.choice_buttons) and card.skip_button.isVisibleTo(card)


# -- the words of the faces dialogs ----------------------------------------------------------------------


def faces_dialog(window: MainWindow) -> FacesDialog:
    dialog = window.action_panel.type_faces()
    assert dialog is not None, window.action_panel.message
    return dialog


def test_the_old_school_faces_dialog_asks_for_the_d20_to_hit_then_the_damage(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = open_demo(qtbot, tmp_path, monkeypatch, "goblin-ambush-osr.lnl")
    start_osr(window)
    assert window.controller.do(act.BeginTurn("tombril")) is not None
    panel = window.action_panel
    panel.set_kind("melee")
    panel.set_means("Longsword")
    panel.set_target("goblin-1")
    dialog = faces_dialog(window)
    assert dialog.hint_label.text() == (
        "Type 2 dice on a hit (1 on a miss), in this order: the d20 to hit Goblin 1, "
        "then, on a hit, the d8 for Longsword damage."
    )
    example = dialog.edit.placeholderText().removeprefix("e.g. ")
    assert check_faces(parse_faces(example), panel._dry_run()) is None  # the example fits the roll
    dialog.edit.setText("3")  # a miss takes one die
    assert "1 face fits the roll" in dialog.status_label.text()
    dialog.edit.setText("14 6")
    assert "2 faces fit the roll" in dialog.status_label.text()
    dialog.reject()


def test_the_group_d10_faces_dialog_asks_for_the_d20s_with_advantage_then_the_weapons_dice(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = open_demo(qtbot, tmp_path, monkeypatch, "bandit-mill-d10.lnl")
    start_d10(window)
    assert window.controller.do(act.BeginTurn("tombril")) is not None
    panel = window.action_panel
    panel.set_kind("attack")
    panel.set_means("Longsword")
    panel.set_target("bandit-1")
    dialog = faces_dialog(window)
    assert dialog.hint_label.text() == (
        "Type 4 dice on a hit (2 on a miss), in this order: the d20 to hit Bandit 1, then the d20 to hit Bandit 1, "
        "then, on a hit, the 2 d8 for Longsword damage."
    )
    example = parse_faces(dialog.edit.placeholderText().removeprefix("e.g. "))
    assert len(example) == 4 and check_faces(example, panel._dry_run()) is None
    dialog.edit.setText("3 14")  # a miss? 14 + 3 hits Defense 10: the damage is missing
    assert "Too few faces (2 faces typed)" in (dialog.reason or "")
    dialog.reject()


def test_faces_dialogs_count_in_the_singular_and_the_plural(qtbot: QtBot) -> None:
    dialog = FacesDialog("A roll", "Type 1 die", lambda faces: None)
    qtbot.addWidget(dialog)
    dialog.edit.setText("9")
    assert "1 face fits the roll" in dialog.status_label.text()
    dialog.edit.setText("9 4")
    assert "2 faces fit the roll" in dialog.status_label.text()


@pytest.mark.parametrize(
    ("demo", "dice", "sides"), [("bandit-mill-d10.lnl", "3 d10", 10), ("goblin-ambush-osr.lnl", "2 d20", 20)]
)
def test_the_start_combat_example_faces_fit_the_initiative_dice(qtbot: QtBot, demo: str, dice: str, sides: int) -> None:
    encounter = storage.load(resource("encounters", demo))
    if encounter.ruleset == "d10":
        from lnl_desktop.core.engine.engine import Engine

        engine = Engine(encounter)
        for c in encounter.combatants:
            engine.apply(Declare(c.id, "attack"))
    dialog = StartCombatDialog(encounter)
    qtbot.addWidget(dialog)
    dialog.type_initiative_radio.setChecked(True)
    placeholder = dialog.initiative_faces_edit.placeholderText()
    assert placeholder.startswith(f"{dice}, e.g. "), placeholder
    said = placeholder.split("e.g. ")[1]
    assert dialog.problem() == f"Initiative: type the faces of {dice}, e.g. {said}"
    example = parse_faces(said)
    assert all(1 <= face <= sides for face in example)
    assert check_faces(example, dialog.start_dry_run()) is None
