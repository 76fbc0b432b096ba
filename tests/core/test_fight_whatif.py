"""The fight odds' what-if: a plan pinned for one combatant (it retreats; it attacks a chosen foe
first) changes the odds as it should, in the fast simulator and through the engine alike."""

from __future__ import annotations

import pytest

from lnl_desktop.core.files.storage import load
from lnl_desktop.core.rules.fight import Plan
from lnl_desktop.core.sim.agreement import disagreements
from lnl_desktop.core.sim.reference import reference_odds
from lnl_desktop.core.sim.run import fight_odds
from lnl_desktop.paths import resource

# Thousands of fights played through the engine: longer than the suite's minute; five still end a hang.
pytestmark = pytest.mark.timeout(300)


def odds_of(odds, cid: str):  # type: ignore[no-untyped-def]
    return next(c for c in odds.combatants if c.id == cid)


@pytest.mark.parametrize("demo", ["hill-giant.lnl", "goblin-ambush-osr.lnl", "bandit-mill-d10.lnl"])
def test_one_who_retreats_never_drops_and_the_rest_fight_on_without_them(demo: str) -> None:
    encounter = load(resource("encounters", demo))
    plans = (Plan("tombril", "retreat"),)
    base = fight_odds(encounter, 4000, seed=5)
    what_if = fight_odds(encounter, 4000, seed=5, plans=plans)
    tombril = odds_of(what_if, "tombril")
    assert tombril.drop == 0.0 and [c.id for c in what_if.combatants] == [c.id for c in base.combatants]
    assert what_if.party_wins < base.party_wins  # the Party fights a man short
    assert disagreements(what_if, reference_odds(encounter, 60, seed=5, plans=plans), z=4, slack=0.12) == []


def test_a_foe_attacked_first_drops_more_often_fast_and_through_the_engine() -> None:
    encounter = load(resource("encounters", "bandit-mill-d10.lnl"))
    plans = (Plan("cedryk", "attack", "bandit-captain"),)
    base = fight_odds(encounter, 6000, seed=8)
    what_if = fight_odds(encounter, 6000, seed=8, plans=plans)
    assert odds_of(what_if, "bandit-captain").drop > odds_of(base, "bandit-captain").drop + 0.08
    assert disagreements(what_if, reference_odds(encounter, 60, seed=8, plans=plans), z=4, slack=0.12) == []


def test_a_plan_that_cannot_be_is_refused_with_the_reason() -> None:
    encounter = load(resource("encounters", "hill-giant.lnl"))
    with pytest.raises(ValueError, match="cannot attack 'janine': not a foe on the map"):
        fight_odds(encounter, 10, plans=(Plan("tombril", "attack", "janine"),))
    names = {c.id: c.name for c in encounter.combatants}
    assert Plan("tombril", "retreat").words(names) == "Tombril retreats"
    assert Plan("cedryk", "attack", "half-orc").words(names) == "Cedryk the Sneaky attacks Half-orc first"


def test_a_pinned_sneak_attack_strikes_harder_fast_and_through_the_engine() -> None:
    encounter = load(resource("encounters", "hill-giant.lnl"))
    plans = (Plan("cedryk", "attack", "half-orc", "sneak attack"),)
    base = fight_odds(encounter, 6000, seed=9, plans=(Plan("cedryk", "attack", "half-orc"),))
    sneaky = fight_odds(encounter, 6000, seed=9, plans=plans)
    assert odds_of(sneaky, "half-orc").drop > odds_of(base, "half-orc").drop
    assert disagreements(sneaky, reference_odds(encounter, 60, seed=9, plans=plans), z=4, slack=0.12) == []
    names = {c.id: c.name for c in encounter.combatants}
    assert plans[0].words(names) == "Cedryk the Sneaky sneak attacks Half-orc first"
