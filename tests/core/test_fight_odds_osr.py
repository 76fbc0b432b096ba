"""Whole-fight odds in Old-School d20: the fast simulator (rules/osr/sim.py) against the same tactic
through the engine (rules/osr/tactic.py), a planted rule change, a mid-fight state with a turn under
way, and the ruleset's own round pieces (death saves, morale flight)."""

from __future__ import annotations

import numpy as np
import pytest

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files.storage import load
from lnl_desktop.core.rules.fight import OPPONENTS, PARTY
from lnl_desktop.core.rules.osr import OsrAttack, sim, tactic
from lnl_desktop.core.rules.osr.model import SaveCategory
from lnl_desktop.core.rules.osr.rounds import NOBODY
from lnl_desktop.core.rules.osr.rules import save_bonus
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.core.sim import agreement, reference, run
from lnl_desktop.core.sim.field import battlefield
from lnl_desktop.paths import resource

# Thousands of fights played through the engine: longer than the suite's minute; five still end a hang.
pytestmark = pytest.mark.timeout(300)

DEMO = "goblin-ambush-osr.lnl"
GOBLINS = ("hobgoblin-chief", "goblin-1", "goblin-2", "goblin-3", "goblin-archer")


def demo():  # type: ignore[no-untyped-def]
    return load(resource("encounters", DEMO))


def drop(odds, cid: str) -> float:  # type: ignore[no-untyped-def]
    return next(c.drop for c in odds.combatants if c.id == cid)


@pytest.fixture(scope="module")
def slow():  # type: ignore[no-untyped-def]
    # 400 engine fights of the demo take about 15 s.
    return reference.reference_odds(demo(), 400, seed=7)


def test_fast_agrees_with_the_engine(slow) -> None:  # type: ignore[no-untyped-def]
    fast = run.fight_odds(demo(), 4000, seed=7)
    assert agreement.disagreements(fast, slow) == []


def test_a_planted_rule_change_is_caught(slow, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    original = sim._Fights.damage
    # Damage doubled in the fast path only.
    monkeypatch.setattr(
        sim._Fights, "damage", lambda self, idx, target, amount: original(self, idx, target, 2 * amount)
    )
    fast = run.fight_odds(demo(), 4000, seed=7)
    assert agreement.disagreements(fast, slow) != []


def _chief_hits_tombril() -> Engine:
    """Round 1, the Opponents first (d20 1 for the Party, 20 for them): the chief's longsword hits
    Tombril for 8 (6 of 14 HP left), and the chief's turn is still under way."""
    engine = Engine(demo())
    engine.apply(act.StartCombat(situation=NOBODY), ScriptedDice([1, 20]))
    engine.apply(act.BeginTurn("hobgoblin-chief"))
    engine.apply(OsrAttack("hobgoblin-chief", "tombril", "Longsword"), ScriptedDice([19, 8]))
    return engine


def test_mid_fight_odds_are_of_that_state() -> None:
    start = run.fight_odds(demo(), 4000, seed=3)
    engine = _chief_hits_tombril()
    assert engine.encounter.combatant("tombril").hp == 6
    hurt = run.fight_odds(engine.encounter, 4000, seed=3)
    assert drop(hurt, "tombril") > drop(start, "tombril") + 0.1
    again = run.fight_odds(engine.encounter, 4000, seed=3)
    assert again.as_json() == hurt.as_json()
    assert run.fight_odds(engine.encounter, 4000, seed=4).as_json() != hurt.as_json()


def test_mid_fight_agrees_with_the_engine() -> None:
    encounter = _chief_hits_tombril().encounter
    fast = run.fight_odds(encounter, 4000, seed=5)
    assert agreement.disagreements(fast, reference.reference_odds(encounter, 200, seed=5)) == []


def _outcome(encounter, fights: int = 4000, seed: int = 1):  # type: ignore[no-untyped-def]
    engine = Engine(encounter.model_copy(deep=True))
    field = battlefield(engine)
    return field, engine.ruleset.fights.simulate(encounter, field, fights, np.random.default_rng(seed))


def test_death_saves_and_morale_show_in_the_outcome() -> None:
    encounter = demo()
    field, out = _outcome(encounter)
    k = {cid: field.index(cid) for cid in field.ids}
    hp = out.health[:, :, 0]
    # A PC at 0 HP makes a death save: some die, some lie unconscious at 0 HP.
    tombril = k["tombril"]
    assert out.dead[:, tombril].any()
    assert (out.down[:, tombril] & ~out.dead[:, tombril] & (hp[:, tombril] == 0)).any()
    # A monster or an NPC at 0 HP is defeated, never dead.
    for cid in (*GOBLINS, "brannoc"):
        assert not out.dead[:, k[cid]].any()
    # Morale: goblins that fled are out of the fight with HP left; the Party wins those fights.
    fled = np.zeros(out.fights, dtype=np.bool_)
    for cid in GOBLINS:
        fled |= out.down[:, k[cid]] & (hp[:, k[cid]] > 0)
    assert fled.mean() > 0.2
    assert (out.winner[fled] == PARTY).mean() > 0.9
    # Hired Brannoc (morale 8) flees now and then; the Party's PCs never do.
    assert (out.down[:, k["brannoc"]] & (hp[:, k["brannoc"]] > 0)).any()
    for cid in ("tombril", "cedryk", "janine"):
        assert not (out.down[:, k[cid]] & (hp[:, k[cid]] > 0)).any()


def test_morale_twelve_fights_to_the_death() -> None:
    encounter = demo()
    for c in encounter.combatants:
        if c.morale is not None:  # type: ignore[attr-defined]
            c.morale = 12  # type: ignore[attr-defined]
    _, out = _outcome(encounter)
    hp = out.health[:, :, 0]
    assert not (out.down & (hp > 0)).any()  # nobody flees: out means at 0 HP
    assert (out.winner == OPPONENTS).any()


def test_opponents_given_the_surprised_condition_sit_out_round_one_as_the_engine_has_them() -> None:
    # RULES §12: the *surprised* condition, given before combat, takes the creature's round-1 turn.
    engine = Engine(demo())
    for c in engine.encounter.combatants:
        if c.side.value == "Opponents":
            engine.apply(act.SetCondition(c.id, "surprised"))
    encounter = engine.encounter
    fast = run.fight_odds(encounter, 4000, seed=3)
    # Fewer blows land on the Party: someone of it drops in far fewer fights.
    assert fast.someone_drops < run.fight_odds(demo(), 4000, seed=3).someone_drops - 0.05
    assert agreement.disagreements(fast, reference.reference_odds(encounter, 200, seed=3)) == []


def test_a_wight_only_silver_harms_in_the_fight_agrees_with_the_engine() -> None:
    # RULES §12: the Party's plain blades do nothing to the wight; Cedryk's silver dagger does.
    engine = Engine(demo())
    wight = next(c for c in get_ruleset("osr").bestiary() if c["name"] == "Wight")
    engine.apply(act.AddCombatant({**wight, "side": "Opponents"}, cell=(7, 6), facing=180))
    cedryk = engine.encounter.combatant("cedryk")
    silver = {"name": "Silver dagger", "damage": "1d4", "kind": "melee", "properties": ["silver"]}
    weapons = [w.model_dump(mode="json") for w in cedryk.weapons] + [silver]
    engine.apply(act.EditCombatant("cedryk", {"weapons": weapons}))
    encounter = engine.encounter
    fast = run.fight_odds(encounter, 4000, seed=11)
    assert 0 < drop(fast, "wight") < 1
    assert agreement.disagreements(fast, reference.reference_odds(encounter, 300, seed=11)) == []


def _wight_in_the_demo() -> Engine:
    """The demo with the bestiary's wight (harmed only by silver or magic) at (7, 6), behind Tombril,
    and a silver dagger for Cedryk."""
    engine = Engine(demo())
    wight = next(c for c in get_ruleset("osr").bestiary() if c["name"] == "Wight")
    engine.apply(act.AddCombatant({**wight, "side": "Opponents"}, cell=(7, 6), facing=180))
    cedryk = engine.encounter.combatant("cedryk")
    silver = {"name": "Silver dagger", "damage": "1d4", "kind": "melee", "properties": ["silver"]}
    engine.apply(
        act.EditCombatant("cedryk", {"weapons": [w.model_dump(mode="json") for w in cedryk.weapons] + [silver]})
    )
    return engine


def test_the_engine_played_wight_walks_round_the_fallen_to_its_foe() -> None:
    # RULES §12: moving while engaged provokes. The fallen lie in a row between the wight and Brannoc;
    # the cheapest way past them steps along Brannoc's reach, a longer one keeps clear until its end.
    engine = _wight_in_the_demo()
    engine.apply(act.RemoveToken("janine"))
    engine.apply(act.PlaceToken("janine", (6, 7)))
    engine.apply(act.RemoveToken("cedryk"))  # Brannoc is the wight's one foe on the map
    for cid in ("tombril", "janine", "hobgoblin-chief", "goblin-1"):
        engine.apply(act.DamageByHand(cid, 50))
    engine.apply(act.StartCombat(situation=NOBODY), ScriptedDice([1, 20]))
    tactic._answer(engine)
    engine.apply(act.BeginTurn("wight"))
    field = battlefield(engine)
    tactic._take_turn(engine, field, field.gap_ft.copy()[None, :, :], engine.combatant("wight"))
    e = engine.encounter
    assert e.distance_between(e.combatant("wight"), e.combatant("brannoc")) == 5
    assert e.combat.turn is not None and e.combat.turn.attacks == 1
    assert not e.combat.pending  # nobody was provoked


def test_a_shot_that_cannot_harm_is_not_taken_when_a_blade_can() -> None:
    # RULES §12: Cedryk's shortbow does the wight nothing; his silver dagger does, so he closes in.
    engine = _wight_in_the_demo()
    cedryk, wight = engine.combatant("cedryk"), engine.combatant("wight")
    assert tactic._shot(engine, cedryk, wight) is None
    # Brannoc, whose blades cannot harm it, turns to a goblin even with the wight nearer.
    engine.apply(act.StartCombat(situation=NOBODY), ScriptedDice([20, 1]))
    field = battlefield(engine)
    brannoc = engine.combatant("brannoc")
    target = tactic._target(engine, field, field.gap_ft.copy()[None, :, :], brannoc)
    assert target is not None and target.id != "wight"


def _dies_by_rules(bonus: int, overkill: int) -> float:
    """RULES §12: a PC at 0 HP dies when d20 + its Poison or Death bonus falls short of 11 + the overkill."""
    return sum(face + bonus < 11 + overkill for face in range(1, 21)) / 20


def test_the_simulator_rolls_a_fallen_pcs_death_save_against_11_plus_the_overkill() -> None:
    # A blow that takes Tombril from his HP to 0 with 0, 3 and 6 beyond: the share of fights where he
    # dies is the d20's exact chance against DC 11, 14, 17 (4,000 fights: within 4 standard errors).
    encounter = demo()
    engine = Engine(encounter.model_copy(deep=True))
    field = battlefield(engine)
    tombril = field.index("tombril")
    bonus = save_bonus(encounter, encounter.combatant("tombril"), SaveCategory.POISON)
    for overkill in (0, 3, 6):
        rng = np.random.default_rng(overkill)
        f = sim._Fights(sim._tables_of(encounter, field), encounter, field, 4000, rng)
        hp = int(f.hp[0, tombril])
        f.damage(np.arange(f.n), np.full(f.n, tombril), np.full(f.n, hp + overkill))
        assert f.down[:, tombril].all()
        expected = _dies_by_rules(bonus, overkill)
        assert 0.05 < expected < 0.95  # a share the save moves, both ways
        assert abs(f.dead[:, tombril].mean() - expected) < 4 * np.sqrt(expected * (1 - expected) / f.n)


def test_a_death_save_the_engine_called_for_is_rolled_against_its_dc_in_the_odds() -> None:
    # Tombril brought to exactly 0 HP by hand in round 1: the engine asks for his death save (DC 11,
    # nothing beyond 0); every fight of the odds rolls it first, so he dies in that d20's share of them.
    engine = Engine(demo())
    engine.apply(act.StartCombat(situation=NOBODY), ScriptedDice([1, 20]))
    tombril = engine.encounter.combatant("tombril")
    engine.apply(act.DamageByHand("tombril", tombril.hp))
    pending = [p for p in engine.encounter.combat.pending if p.kind == "death save"]
    assert [p.who for p in pending] == ["tombril"]
    encounter = engine.encounter
    bonus = save_bonus(encounter, encounter.combatant("tombril"), SaveCategory.POISON)
    expected = _dies_by_rules(bonus, 0)
    assert 0.05 < expected < 0.95
    fights = 4000
    odds = run.fight_odds(encounter, fights, seed=9)
    die = next(c.die for c in odds.combatants if c.id == "tombril")
    assert die is not None
    assert abs(die - expected) < 4 * np.sqrt(expected * (1 - expected) / fights)
