"""Whole-fight odds, the shared part: the map's plan both the fast simulator and its engine reference
move by, the odds summarised from simulated fights (in words, as text and as JSON), the agreement
check between two samples, movement by gaps, the fights played in batches (the same odds as one run,
memory that of one batch), and the command line's refusals and interruption in its own words."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.fight import (
    NEITHER,
    OPPONENTS,
    PARTY,
    SimOutcome,
    close_in,
    empty_outcome,
    nearest_foes,
)
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.core.sim.agreement import disagreements
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.core.sim.odds import margin, summarise
from lnl_desktop.core.sim.run import batch_size, fight_odds
from lnl_desktop.paths import demo_encounter_path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import big_maps


@pytest.fixture(scope="module")
def field():  # type: ignore[no-untyped-def]
    return battlefield(Engine(storage.load(demo_encounter_path())))


def test_the_maps_plan_measures_the_way_to_each_foe(field) -> None:  # type: ignore[no-untyped-def]
    i, giant, half_orc = field.index("tombril"), field.index("hill-giant"), field.index("half-orc")
    assert field.side[i] == PARTY and field.side[giant] == OPPONENTS
    assert np.isinf(field.gap_ft[i, field.index("janine")])  # no gap to a friend
    # Tombril at (8, 6), the Giant's 2 x 2 at (15, 6): 35 ft apart, six cells east to stand beside it.
    assert field.gap_ft[i, giant] == 30.0 and field.dist_ft[i, giant] == 35.0
    assert 0 < field.gap_ft[i, half_orc] < np.inf
    assert field.standing.all() and field.move_ft[i] == 30.0


def test_movement_by_gaps_closes_both_ways_and_targets_the_nearest_standing_foe(field) -> None:  # type: ignore[no-untyped-def]
    n = 3
    gap = np.repeat(field.gap_ft[None], n, axis=0).copy()
    standing = np.ones((n, field.size), dtype=bool)
    standing[2, field.index("half-orc")] = False
    targets = nearest_foes(gap, standing, field.foes())
    j = field.index("janine")
    assert targets[0, j] == field.index("half-orc") and targets[2, j] != field.index("half-orc")
    mover = np.full(n, j)
    moved = close_in(gap, mover, targets[:, j], np.full(n, 30.0), np.array([True, False, True]))
    t = targets[0, j]
    assert moved[0] == min(30.0, field.gap_ft[j, t]) and moved[1] == 0.0
    assert gap[0, j, t] == max(0.0, field.gap_ft[j, t] - 30.0)
    assert gap[0, t, j] == max(0.0, field.gap_ft[t, j] - moved[0])


def test_the_odds_of_simulated_fights_in_words_as_text_and_as_json(field) -> None:  # type: ignore[no-untyped-def]
    n = 1000
    outcome = empty_outcome(n, field.size, ("SP", "IP"))
    outcome.winner[:640] = PARTY
    outcome.winner[640:990] = OPPONENTS
    outcome.winner[990:] = NEITHER
    outcome.rounds[:] = 3
    outcome.rounds[:150] = 2
    outcome.rounds[850:] = 6
    outcome.down[:710, field.index("tombril")] = True
    outcome.health[:, field.index("hill-giant")] = (10.0, 20.0)
    odds = summarise(field, outcome, tells_death=False)
    assert (odds.party_wins, odds.opponents_win, odds.neither) == (0.64, 0.35, 0.01)
    assert odds.someone_drops == 0.71 and odds.rounds_range() == (2, 6)
    assert odds.verdict() == "Party wins 64% ± 3.0% · someone drops in 71% · 2–6 rounds"
    text = odds.text().splitlines()
    assert text[1].startswith("Party wins       64.0 % ± 3.0") and text[2].startswith("Opponents win    35.0 %")
    assert any(line.startswith("Tombril") and "drops  71.0 %" in line for line in text)
    data = json.loads(odds.as_json())
    assert data["fights"] == 1000 and data["party_wins"] == 0.64
    giant = next(c for c in data["combatants"] if c["id"] == "hill-giant")
    assert giant["health_left"] == {"SP": 10.0, "IP": 20.0} and giant["die"] is None
    assert margin(0.5, 10_000) == pytest.approx(0.0098, abs=1e-4)


def test_two_samples_agree_within_chance_and_a_real_difference_is_named(field) -> None:  # type: ignore[no-untyped-def]
    def odds(party: int, n: int, tombril: int):  # type: ignore[no-untyped-def]
        outcome = empty_outcome(n, field.size, ("SP", "IP"))
        outcome.winner[:party] = PARTY
        outcome.winner[party:] = OPPONENTS
        outcome.down[:tombril, field.index("tombril")] = True
        return summarise(field, outcome, tells_death=False)

    assert disagreements(odds(2560, 4000, 800), odds(262, 400, 84)) == []
    found = disagreements(odds(2560, 4000, 800), odds(180, 400, 200))
    assert any(line.startswith("Party wins: 64.0% fast vs 45.0% through the engine") for line in found)
    assert any(line.startswith("Tombril drops") for line in found)


def test_the_command_line_refuses_a_bad_file_as_opening_it_does(tmp_path: Path) -> None:
    bad = tmp_path / "broken.lnl"
    bad.write_text('{"format": 3, "encounter": ')
    odds = subprocess.run([sys.executable, "-m", "lnl_desktop", "odds", str(bad)], capture_output=True, text=True)
    assert odds.returncode == 2 and odds.stdout == ""
    assert odds.stderr.startswith("lnl-desktop: broken.lnl")
    missing = subprocess.run(
        [sys.executable, "-m", "lnl_desktop", "odds", str(tmp_path / "none.lnl")], capture_output=True, text=True
    )
    assert missing.returncode == 2 and "none.lnl" in missing.stderr
    few = subprocess.run(
        [sys.executable, "-m", "lnl_desktop", "odds", str(demo_encounter_path()), "--fights", "0"],
        capture_output=True,
        text=True,
    )
    assert few.returncode == 2 and "--fights 0: from 1 to 1,000,000" in few.stderr


def test_a_battle_too_big_or_a_side_missing_is_refused_with_the_reason() -> None:
    with pytest.raises(RulesError, match="61 combatants are on the map: the fight odds are worked out for up to 60"):
        battlefield(Engine(big_maps.build(size=40, tokens=61, fog=False)))
    with pytest.raises(RulesError, match="the fight odds need both sides on the map"):
        battlefield(Engine(big_maps.build(size=20, tokens=3, party=3, fog=False)))


DEMOS = ("hill-giant.lnl", "hill-giant-classic.lnl", "goblin-ambush-osr.lnl", "bandit-mill-d10.lnl")
ODDS = [sys.executable, "-m", "lnl_desktop", "odds"]


def skirmish(path: Path) -> Path:
    """A 40-combatant skirmish (20 heroes, 20 goblins on a 20 x 20 map) saved as ``path``."""
    storage.save(big_maps.build(size=20, tokens=40, party=20, fog=False), path)
    return path


def joined(outcomes: list[SimOutcome]) -> SimOutcome:
    first = outcomes[0]
    return SimOutcome(
        winner=np.concatenate([o.winner for o in outcomes]),
        rounds=np.concatenate([o.rounds for o in outcomes]),
        down=np.concatenate([o.down for o in outcomes]),
        dead=np.concatenate([o.dead for o in outcomes]),
        health=np.concatenate([o.health for o in outcomes]),
        health_fields=first.health_fields,
    )


@pytest.mark.parametrize("demo", DEMOS)
def test_fights_in_batches_sum_to_the_odds_of_the_same_fights_played_as_one(demo: str) -> None:
    encounter = storage.load(demo_encounter_path().parent / demo)
    engine = Engine(encounter)
    field = battlefield(engine)
    ruleset = engine.ruleset
    rng = np.random.default_rng(17)
    outcomes = [ruleset.fights.simulate(encounter, field, n, rng) for n in (64, 64, 64, 64, 44)]
    whole = summarise(field, joined(outcomes), ruleset.fights.tells_death)
    batched = fight_odds(encounter, 300, seed=17, field=field, batch=64)
    assert batched.as_json() == whole.as_json()
    assert fight_odds(encounter, 300, seed=17, field=field, batch=64).as_json() == batched.as_json()
    assert batched.fights == 300
    assert batched.party_wins + batched.opponents_win + batched.neither == pytest.approx(1.0)
    assert sum(batched.rounds.values()) == pytest.approx(1.0)
    assert all(0.0 <= c.drop <= 1.0 for c in batched.combatants)
    # As many fights as fit one batch are played as one, as before batches.
    assert batch_size(field.size) >= 10_000
    played = ruleset.fights.simulate(encounter, field, 500, np.random.default_rng(5))
    one = summarise(field, played, ruleset.fights.tells_death)
    assert fight_odds(encounter, 500, seed=5, field=field).as_json() == one.as_json()


def test_a_batch_of_forty_combatants_stays_within_about_100_mb() -> None:
    assert 1000 <= batch_size(40) <= 2500 and batch_size(40) * 32 * 40 * 40 <= 100_000_000
    # L&L's simulator measures its own fights (float32 tables): 10,000 fights of 40 are one batch, within 300 MB.
    lnl = get_ruleset("lnl").fights
    assert batch_size(40, lnl.fight_bytes) >= 10_000 and batch_size(40, lnl.fight_bytes) * 26_000 <= 300_000_000
    with pytest.raises(ValueError, match="seed -5"):
        fight_odds(storage.load(demo_encounter_path()), 10, seed=-5)


MEMORY_CHILD = """
import resource, sys
sys.path.insert(0, {benchmarks!r})
import big_maps
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.core.sim.run import batch_size, fight_odds

encounter = big_maps.build(size=20, tokens=40, party=20, fog=False)
field = battlefield(Engine(encounter))
size = batch_size(field.size)
fight_odds(encounter, size, seed=1, field=field, batch=size)
one = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
odds = fight_odds(encounter, 3 * size, seed=2, field=field, batch=size)
three = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(size, odds.fights, one // 1024, three // 1024)
"""


def test_many_fights_of_forty_combatants_take_the_memory_of_one_batch() -> None:
    child = MEMORY_CHILD.format(benchmarks=str(Path(big_maps.__file__).parent))
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    size, fights, one_mb, three_mb = (int(w) for w in done.stdout.split())
    assert fights == 3 * size
    # Three batches' fights at once would take two batches' arrays more (some 160 MB).
    assert three_mb - one_mb < 40, (one_mb, three_mb)
    assert three_mb < 400, three_mb


def test_the_command_line_refuses_a_negative_seed_and_hostile_numbers_in_its_own_words() -> None:
    demo = str(demo_encounter_path())
    negative = subprocess.run([*ODDS, demo, "--seed", "-5", "--fights", "10"], capture_output=True, text=True)
    assert negative.returncode == 2 and negative.stdout == ""
    assert negative.stderr.startswith("usage: lnl-desktop odds") and "Traceback" not in negative.stderr
    assert "--seed -5: a whole number from 0 up" in negative.stderr
    from lnl_desktop.odds_cli import parse_args

    assert parse_args([demo, "--seed", str(2**200)]).seed == 2**200
    for argv, words in (
        (["--seed", "9" * 4301], "is not a whole number"),
        (["--fights", "9" * 4000], "from 1 to 1,000,000"),
        (["--fights", "-3"], "--fights -3: from 1 to 1,000,000"),
        (["--fights", "1e6"], "'1e6' is not a whole number"),
        (["--fights", " 5 "], "' 5 ' is not a whole number"),  # int() reads all three
        (["--fights", "\u0665"], "is not a whole number"),  # an Arabic-Indic five
        (["--fights", "1_000"], "'1_000' is not a whole number"),
        (["--seed", "+7"], "'+7' is not a whole number"),
    ):
        refused = subprocess.run([*ODDS, demo, *argv], capture_output=True, text=True)
        assert refused.returncode == 2 and words in refused.stderr and "Traceback" not in refused.stderr
        assert len(refused.stderr) < 300


def test_the_command_line_refuses_a_pipe_a_folder_or_a_device_in_a_line(tmp_path: Path) -> None:
    import os

    pipe = tmp_path / "pipe.lnl"
    os.mkfifo(pipe)
    (tmp_path / "folder.lnl").mkdir()
    for path in (pipe, tmp_path / "folder.lnl", Path("/dev/zero")):
        refused = subprocess.run([*ODDS, str(path)], capture_output=True, text=True, timeout=60)
        assert refused.returncode == 2 and refused.stdout == ""
        assert refused.stderr.startswith(f"lnl-desktop: {path.name} is a") and refused.stderr.count("\n") == 1


def test_ctrl_c_stops_the_command_line_in_a_line(tmp_path: Path) -> None:
    field = skirmish(tmp_path / "skirmish.lnl")
    odds = subprocess.Popen([*ODDS, str(field), "--fights", "1000000"], stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)  # well into the fights (or the map's plan before them)
    odds.send_signal(signal.SIGINT)
    _, err = odds.communicate(timeout=60)
    assert odds.returncode == 130 and err == "lnl-desktop: stopped\n"
