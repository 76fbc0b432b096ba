"""A ruleset from outside the program: the example package in tests/example_ruleset, installed with pip.

pip installs it into a temporary folder (no network: ``--no-index``, the venv's own setuptools);
``plugin_child.py`` then runs with PYTHONPATH set to that folder, so the registry finds "duel"
through its ``lnl_desktop.rulesets`` entry point in a fresh process, as the app would, and plays
it: a start of combat, turns, Strikes with typed faces, undo and redo, a file round trip, the
journal, the capabilities' descriptors, the fight odds against their engine-played reference and a
conversion. A second folder holds a distribution whose
entry points are broken: they are reported, and the built-in rulesets work on.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from lnl_desktop.core.files import storage

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tests" / "example_ruleset"
CHILD = Path(__file__).with_name("plugin_child.py")


# -- installing the example package --------------------------------------------------------------


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder pip installed the example package into."""
    if importlib.util.find_spec("setuptools") is None or int(version("setuptools").split(".")[0]) < 70:
        pytest.fail(
            "setuptools>=70.1 (a test extra) is not in this environment, so the example ruleset package cannot be "
            "built; the test installs nothing from the network: run `python3 dev.py test` to bring the venv up to date"
        )
    work = tmp_path_factory.mktemp("duel")
    # Built from a copy: an in-tree build would leave build/ and an egg-info in tests/example_ruleset.
    source = shutil.copytree(
        PACKAGE, work / "source", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    what = source
    target = work / "site-packages"
    pip = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index"]
    pip += ["--disable-pip-version-check", "--quiet", "--target", str(target), str(what)]
    result = subprocess.run(pip, capture_output=True, text=True, timeout=120, cwd=work)
    assert result.returncode == 0, f"pip could not install the example ruleset:\n{result.stdout}{result.stderr}"
    return target


BROKEN_ENTRY_POINTS = """\
[lnl_desktop.rulesets]
broken = lnl_no_such_module:RULES
not_a_ruleset = lnl_duel:ROLL
duel_again = lnl_duel:DUEL
"""


@pytest.fixture(scope="session")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with an installed distribution whose three entry points are each wrong in their own way."""
    folder = tmp_path_factory.mktemp("broken")
    info = folder / "lnl_broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lnl-broken\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(BROKEN_ENTRY_POINTS, encoding="utf-8")
    return folder


def run_child(mode: str, *path: Path) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(p) for p in path))
    result = subprocess.run(
        [sys.executable, str(CHILD), mode], capture_output=True, text=True, env=env, timeout=120, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def play(installed: Path) -> dict[str, Any]:
    return run_child("play", installed)


# -- found through the entry point ---------------------------------------------------------------


def test_the_installed_package_is_found_through_its_entry_point(play: dict[str, Any], installed: Path) -> None:
    assert play["rulesets"] == ["lnl", "classic", "osr", "d10", "duel"]
    assert play["entry_points"] == ["duel"]
    assert play["problems"] == []
    assert Path(play["module_folder"]) == installed  # the installed copy, not the source folder
    assert play["same_object"]
    assert play["title"] == "Duel (example)"
    assert list(installed.glob("lnl_duel-*.dist-info/entry_points.txt"))


def test_nothing_in_the_program_names_the_example() -> None:
    program = ROOT / "lnl_desktop"
    assert [p for p in program.rglob("*.py") if "lnl_duel" in p.read_text(encoding="utf-8")] == []


# -- played by the engine ------------------------------------------------------------------------


def test_an_encounter_of_the_ruleset_holds_its_stat_blocks(play: dict[str, Any]) -> None:
    assert play["types"] == ["DuelRulesetEncounter", "DuelStats", "DuelStats"]
    assert play["engine_ruleset"] == "duel"


def test_start_of_combat_a_turn_and_a_strike_with_typed_faces(play: dict[str, Any]) -> None:
    assert play["opening"] == ["combat started", "Round 1: d6 5, Party acts first"]
    assert play["acting"] == "Party"
    assert play["waiting"] == ["ann"]
    assert play["wrong_side"] == ["the Party are acting now"]
    # Ann's d8 shows 7; the Ogre's defense 2 comes off: 5 of its 10 HP.
    assert play["strike"] == [
        [
            "rules",
            "Ann strikes Ogre: d8 7 - defense 2 = 5; Ogre has 5/10 HP",
            {"face": 7, "defense": 2, "damage": 5, "hp": 5},
        ],
        # A plug-in's attack (an action with ``attacker`` and ``target``) turns the attacker too.
        ["turned", "Ann turns to face Ogre", None],
    ]
    assert play["hp_after_strike"] == 5
    assert play["turn_action"] == "strike"
    assert play["second_strike"] == ["Action not used yet: already took its action (strike)"]


def test_undo_restores_the_encounter_exactly_and_redo_rolls_the_same(play: dict[str, Any]) -> None:
    assert play["undo_log_tail"] == "undone"
    assert play["undo_differences"] == []
    assert play["redo_differences"] == []


def test_the_fight_goes_on_to_a_fall(play: dict[str, Any]) -> None:
    assert play["hp_ann"] == 9  # the Ogre's 1 less Ann's defense 1 is 0, raised to the minimum damage 1
    assert play["round_over"]
    assert play["round_2_acting"] == "Opponents"
    assert play["killing_blow"] == [
        ["rules", "Ann strikes Ogre: d8 8 - defense 2 = 6; Ogre has 0/10 HP"],
        ["down", "Ogre is down"],
    ]
    assert play["overkill"] == 1
    assert play["ogre_down"]
    assert not play["ogre_may_act"]
    assert play["round_3_waiting"] == ["ann"]
    assert play["strike_the_fallen"] == ["Target is up: Ogre is already down"]


# -- files, journal, views, conversion -----------------------------------------------------------


def test_files_round_trip_through_the_ruleset_s_own_model(play: dict[str, Any]) -> None:
    assert play["file_ruleset"] == "duel"
    assert play["file_version"] == storage.VERSION
    assert play["round_trip_equal"]
    assert play["round_trip_text_equal"]
    assert play["loaded_types"] == ["DuelRulesetEncounter", "DuelStats", "DuelStats"]
    assert play["loaded_plays_on"] == ["action", "turn ended", "round ended"]
    assert play["csv_rows"] > 10


def test_the_journal_writes_and_reads_the_ruleset_s_action(play: dict[str, Any]) -> None:
    assert play["journal_line"] == {"type": "lnl_duel.model:Strike", "attacker": "ann", "target": "ogre"}
    assert play["journal_round_trip"]


def test_the_views_descriptors(play: dict[str, Any]) -> None:
    assert play["sheet_keys"] == [["hp", "hp_max"], ["damage_die"], ["defense"]]
    assert play["columns"] == [["HP", "9/10"], ["Die", "d8"], ["Def", 1]]
    assert play["gauges"] == [["HP", 9, 10, "health"]]
    assert play["action_kinds"] == [["strike", "weapon", True, True], ["other", "text", False, False]]
    assert play["built"] == [
        "Strike(attacker='ann', target='ogre')",
        "OtherAction(combatant='ann', text='shouts')",
    ]
    assert play["notes"] == [["Ogre:", "defense 2, so 1 to 6 damage; 0 HP left."]]
    assert play["start"] == [["roll"], "Opponents act first", "Party acts first"]
    assert play["bestiary"] == ["Fencer", "Brute"]
    assert play["bestiary_problems"] == []
    assert play["forecast"] is None  # the Ogre is down: no Strike on it to forecast
    # The Ogre's d6 less Ann's defense 1, at least 1: 1, 1, 2, 3, 4, 5; none reaches her 9 HP.
    assert play["forecast_on_ann"] == ["to HP", "1d6 - 1 defense", 2.667, [["0 HP", 9, 0.0, True]]]


def test_its_fight_odds_are_true_odds_the_engine_agrees_with(play: dict[str, Any]) -> None:
    # Neither side sure to win, and the engine's own fights within chance of the fast simulator's.
    assert play["odds"] == [4000, 200, True, []]
    assert play["odds_health"] == ["HP"]


def test_an_lnl_encounter_converts_to_the_ruleset_and_back_by_undo(play: dict[str, Any]) -> None:
    assert play["converted"] == ["duel", "DuelStats"]
    assert play["converted_hp"] == 18  # 12 SP + 6 IP
    notes = play["convert_notes"]
    assert notes[0].startswith("Tom: dropped armor, awa_bonus")
    assert notes[1] == "Tom: 18 HP (its SP + IP, or 10)"
    assert notes[2] == "option not in Duel (example): Dash adds this many Moves (was 1.0)"
    assert play["unconverted"] == ["lnl", "lnl", "Encounter"]


# -- a broken plug-in ----------------------------------------------------------------------------


def test_broken_entry_points_are_reported_and_the_built_in_rulesets_work_on(installed: Path, broken: Path) -> None:
    seen = run_child("broken", installed, broken)
    problems = seen["problems"]
    assert len(problems) == 3, problems
    assert any(
        p.startswith("ruleset 'broken' (lnl_no_such_module:RULES) could not be loaded:") and "lnl_no_such_module" in p
        for p in problems
    )
    assert "ruleset 'not_a_ruleset' (lnl_duel:ROLL) could not be loaded: 'roll' is not a Ruleset" in problems
    assert "ruleset 'duel' from lnl_duel:DUEL is already defined; ignored" in problems
    assert seen["rulesets"] == ["lnl", "classic", "osr", "d10", "duel"]
    assert seen["built_in_titles"] == ["Laurels & Loot", "L&L Classic", "Old-School d20", "Group d10"]
    assert seen["lnl_still_saves"]
    assert seen["asking_for_broken"] == [
        "RulesError",
        "ruleset: there is no ruleset 'broken' (known: lnl, classic, osr, d10, duel)",
    ]


def test_the_main_window_follows_the_installed_ruleset(installed: Path) -> None:
    """Its title, bestiary, new combatant, columns, sheet, actions, checks and bars, and a Strike with a typed
    face through the Action dock, undone from the menu: the docks read the ruleset, no line of them names it."""
    seen = run_child("window", installed)
    assert "Duel (example)" in seen["title"]
    assert seen["bestiary"] == ["Fencer", "Brute"] and seen["added"] == "DuelStats"
    assert seen["columns"] == ["Name", "Side", "HP", "Die", "Def", "Move", "Status"]
    assert {"HP (now / max)", "Damage die", "Defense"} <= set(seen["sheet"])
    assert not {"Level", "AWA bonus", "SP (now / max)"} & set(seen["sheet"])
    assert seen["kinds"] == ["Strike", "Something else…"] and seen["button"] == "Strike"
    assert ["Target is up", "ok"] in seen["checks"]
    assert seen["strike"] == [
        "New combatant strikes Fencer: d6 6 - defense 2 = 4; Fencer has 6/10 HP",
        "New combatant turns to face Fencer",
    ]
    assert seen["hp"] == [10, 6] and seen["hp_after_undo"] == 10
    assert seen["turns_headers"] == ["Combatant", "This round", "HP"]


def test_a_ruleset_with_no_start_of_its_own_opens_by_the_gm_s_hand() -> None:
    """The shared pieces play (core/rules/shared.py): the GM says who acts first, the order is then kept."""
    from lnl_desktop.core.encounter.model import CombatantBase, Side
    from lnl_desktop.core.engine.engine import Engine
    from lnl_desktop.core.errors import IllegalAction
    from lnl_desktop.core.rules.base import Ruleset
    from lnl_desktop.core.rules.shared import (
        D20Conditions,
        FeetMovement,
        GmSaysRounds,
        NoActions,
        NoPrompts,
        PlainAttacks,
        SideTurns,
    )

    class Bare(Ruleset):
        name = "bare"
        title = "Bare"
        stat_block = CombatantBase

        def __init__(self) -> None:
            self.views = None  # nothing of a bare ruleset is shown: the engine alone plays it here
            self.conditions = D20Conditions(self.title)
            self.rounds = GmSaysRounds(self.title)
            self.turns = SideTurns()
            self.movement = FeetMovement()
            self.actions = NoActions()
            self.attacks = PlainAttacks()
            self.health = None
            self.prompts = NoPrompts()
            self.areas = None
            self.fights = None
            self.rest = None

    bare = Bare()
    encounter = bare.new_encounter(combatants=[{"name": "Ann", "side": "Party"}, {"name": "Bob", "side": "Opponents"}])
    engine = Engine(encounter, ruleset=bare)
    with pytest.raises(IllegalAction, match="say which side acts first"):
        engine.start_combat()
    started = engine.start_combat(first_side=Side.OPPONENTS, surprised_side=Side.PARTY)
    assert started[0].text == "Round 1 (GM): Party surprised: Opponents act first"
    assert engine.waiting()[0].name == "Bob"
    engine.begin_turn("bob")
    engine.end_turn()
    assert engine.next_round()[-1].text == "Round 2: the order is kept: Opponents act first"
    assert [c.name for c in engine.waiting()] == ["Bob"]
