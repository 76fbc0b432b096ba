"""Whole-fight odds, the shared part: the map's plan both the fast simulator and its engine reference
move by, the odds summarised from simulated fights (in words, as text and as JSON), the agreement
check between two samples, movement by gaps, and the command line's refusal of a bad file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.fight import NEITHER, OPPONENTS, PARTY, close_in, empty_outcome, nearest_foes
from lnl_desktop.core.sim.agreement import disagreements
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.core.sim.odds import margin, summarise
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
    assert odds.verdict() == "Party wins 64% · someone drops in 71% · 2–6 rounds"
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
    with pytest.raises(RulesError, match="41 combatants are on the map: the fight odds are worked out for up to 40"):
        battlefield(Engine(big_maps.build(size=40, tokens=41, fog=False)))
    with pytest.raises(RulesError, match="the fight odds need both sides on the map"):
        battlefield(Engine(big_maps.build(size=20, tokens=3, party=3, fog=False)))
