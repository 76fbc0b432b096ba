"""The fight odds in words a GM reads without guessing: what "left" is (the health on average over the
fights that combatant stood at the end), one number where dropping is dying, the undecided fights
named (so that the two sides' wins add up), the ruleset named once in the command's heading, and
the margin on the Turns dock's one line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.fight import MAX_ROUNDS, NEITHER, OPPONENTS, PARTY, empty_outcome
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.core.sim.odds import summarise
from lnl_desktop.paths import demo_encounter_path, resource


@pytest.fixture(scope="module")
def field():  # type: ignore[no-untyped-def]
    return battlefield(Engine(storage.load(demo_encounter_path())))


def test_health_left_is_the_average_over_the_fights_it_stood_at_the_end(field) -> None:  # type: ignore[no-untyped-def]
    """Tombril drops in half the fights (0 IP left there) and stands with 8 IP in the rest: 8 left
    where it stands, not 4, and the words say so."""
    outcome = empty_outcome(100, field.size, ("SP", "IP"))
    outcome.winner[:] = PARTY
    t, giant = field.index("tombril"), field.index("hill-giant")
    outcome.down[:50, t] = True
    outcome.health[50:, t] = (2.0, 8.0)
    outcome.down[:, giant] = True  # down at the end of every fight
    odds = summarise(field, outcome, tells_death=False)
    tombril = next(c for c in odds.combatants if c.id == "tombril")
    assert tombril.health_left == {"SP": 2.0, "IP": 8.0} and tombril.stood == 0.5
    lines = odds.text().splitlines()
    assert "Left: the health on average over the fights it stood at the end" in lines
    assert any(line.startswith("Tombril") and "(SP 2.0, IP 8.0 left)" in line for line in lines)
    assert any(line.startswith("Hill Giant") and "down at the end of every fight" in line for line in lines)
    data = json.loads(odds.as_json())
    assert data["health_left_means"] == "the health on average over the fights it stood at the end"
    assert next(c for c in data["combatants"] if c["id"] == "tombril")["stood"] == 0.5


def test_dropping_and_dying_in_the_same_fights_is_one_column(field) -> None:  # type: ignore[no-untyped-def]
    outcome = empty_outcome(200, field.size, ("HP",))
    outcome.winner[:] = OPPONENTS
    t = field.index("tombril")
    outcome.down[:80, t] = outcome.dead[:80, t] = True
    same = summarise(field, outcome, tells_death=True)
    assert same.drop_is_death and not same.tells_death
    lines = same.text().splitlines()
    row = next(line for line in lines if line.startswith("Tombril"))
    assert "drops & dies  40.0 %" in row and " dies " not in row.replace("drops & dies", "")
    assert "Each one's chance to drop (dropping is dying in these fights)" in lines
    outcome.dead[:30, t] = False  # some only drop: two numbers again
    apart = summarise(field, outcome, tells_death=True)
    assert apart.tells_death and not apart.drop_is_death
    row = next(line for line in apart.text().splitlines() if line.startswith("Tombril"))
    assert "drops  40.0 %" in row and "dies  25.0 %" in row
    assert not summarise(field, outcome, tells_death=False).drop_is_death  # a ruleset that never tells


def test_fights_that_end_undecided_are_named(field) -> None:  # type: ignore[no-untyped-def]
    outcome = empty_outcome(100, field.size, ("SP", "IP"))
    outcome.winner[:82] = PARTY
    outcome.winner[82:97] = OPPONENTS
    outcome.winner[97:] = NEITHER
    odds = summarise(field, outcome, tells_death=False)
    text = odds.text()
    assert f"Undecided         3.0 % ± 3.3  (neither side wins within {MAX_ROUNDS} rounds)" in text
    assert odds.undecided_words() == f"neither side wins within {MAX_ROUNDS} rounds: 3%"
    assert json.loads(odds.as_json())["neither_means"] == f"neither side wins within {MAX_ROUNDS} rounds"


def test_the_turns_docks_line_gives_the_margin(field) -> None:  # type: ignore[no-untyped-def]
    outcome = empty_outcome(400, field.size, ("SP", "IP"))
    outcome.winner[:200] = PARTY
    outcome.winner[200:] = OPPONENTS
    outcome.rounds[:] = 3
    assert summarise(field, outcome, tells_death=False).verdict().startswith("Party wins 50% ± 4.9% · ")


def test_the_odds_command_names_the_ruleset_once() -> None:
    """The demo's name has '(Group d10 demo)' in it already: the heading does not add '(Group d10)'."""
    path = resource("encounters", "bandit-mill-d10.lnl")
    done = subprocess.run(
        [sys.executable, "-m", "lnl_desktop", "odds", str(path), "--fights", "200", "--seed", "1"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    heading = done.stdout.splitlines()[0]
    assert heading.count("Group d10") == 1 and heading.startswith("Bandits at the Mill (Group d10 demo), from")
    assert " dies " not in done.stdout.replace("drops & dies", "")  # one column: 0 HP is dead
