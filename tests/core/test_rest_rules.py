"""Rest between fights, each ruleset's ``rest`` capability (RULES §16), by the numbers with typed faces:
what a short rest, a night's rest and a day of rest give back, that the dead gain nothing, what a fight
leaves behind (``after_fight``), the carry-on summary's words, and each [D] option changing the result."""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core.dice.rolls import DiceExhausted, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.base import Rest
from lnl_desktop.core.rules.registry import get_ruleset


def rest_of(name: str) -> Rest:
    rest = get_ruleset(name).rest
    assert rest is not None, f"{name} has no rest"
    return rest


def options(name: str, **changed: Any) -> Any:
    return get_ruleset(name).options_model(**changed)


def lnl_character(name: str = "lnl", **fields: Any) -> Any:
    data = {"name": "Tombril", "side": "Party", "level": 3, "stamina_max": 55, "injury_max": 12}
    data |= {"stamina": 12, "injury": 7}
    data |= {
        "weapons": [{"name": "Longsword", "die": "d8"}, {"name": "Dagger", "die": "d4", "state": "sheathed"}],
        "shield": {"name": "Shield", "durability": 10, "durability_max": 10},
    }
    return get_ruleset(name).stat_block.model_validate(data | fields)


def osr_character(**fields: Any) -> Any:
    data = {"name": "Aldric", "side": "Party", "kind": "PC", "hp_max": 9, "hp": 3}
    return get_ruleset("osr").stat_block.model_validate(data | fields)


def d10_character(**fields: Any) -> Any:
    data = {"name": "Mara", "side": "Party", "hp_max": 14, "hp": 1, "conditions": ["wounded"]}
    data |= {"weapons": [{"name": "Axe", "die": "d8"}]}
    return get_ruleset("d10").stat_block.model_validate(data | fields)


def healed_by_hand(name: str, c: Any, gains: tuple[tuple[str, int], ...]) -> Any:
    """``c`` after ``gains`` land as healing by hand (RULES §16: the same rules as §10's)."""
    ruleset = get_ruleset(name)
    engine = Engine(ruleset.new_encounter(combatants=[c.model_dump(mode="json")]))
    for kind, amount in gains:
        engine.apply(act.DamageByHand(c.id, amount, heal=True, kind=kind, reason="rest"))
    return engine.encounter.combatants[0]


# -- every built-in ruleset has rest, its kinds those of healing by hand -------------------------------------


@pytest.mark.parametrize("name", ["lnl", "classic", "osr", "d10"])
def test_every_built_in_ruleset_rests(name: str) -> None:
    rest = rest_of(name)
    assert isinstance(rest, Rest)
    heal_kinds = {key for key, _ in get_ruleset(name).health.kinds(heal=True)}
    keys = [key for key, _ in rest.kinds()]
    for kind in keys:
        assert rest.dice(kind, options(name)) in ("", "1d3")
    assert keys == {"lnl": ["short", "night"], "classic": ["short", "night"], "osr": ["day", "short"]}.get(
        name, ["night"]
    )
    # Whatever a rest gives back is a kind healing by hand knows.
    hurt = {"lnl": lnl_character, "classic": lambda: lnl_character("classic"), "osr": osr_character}.get(
        name, d10_character
    )()
    for kind in keys:
        gains = rest.gains(hurt, kind, options(name), ScriptedDice([2]))
        assert {k for k, _ in gains} <= heal_kinds


@pytest.mark.parametrize("name", ["lnl", "classic", "osr", "d10"])
def test_an_unknown_rest_is_refused_naming_the_kinds(name: str) -> None:
    rest = rest_of(name)
    c = {"lnl": lnl_character, "classic": lambda: lnl_character("classic"), "osr": osr_character}.get(
        name, d10_character
    )()
    with pytest.raises(RulesError) as refused:
        rest.gains(c, "week", options(name), ScriptedDice([]))
    message = str(refused.value)
    assert "'week'" in message and get_ruleset(name).title in message
    for key, _ in rest.kinds():
        assert key in message
    with pytest.raises(RulesError):
        rest.dice("week", options(name))


# -- L&L and Classic: all SP, a night all SP and 1 IP --------------------------------------------------------


@pytest.mark.parametrize("name", ["lnl", "classic"])
def test_lnl_short_and_night_rest_by_the_numbers(name: str) -> None:
    rest, c = rest_of(name), lnl_character(name)
    short = rest.gains(c, "short", options(name), ScriptedDice([]))
    assert short == (("stamina", 43),)
    night = rest.gains(c, "night", options(name), ScriptedDice([]))
    assert night == (("stamina", 43), ("injury", 1))
    after = healed_by_hand(name, c, night)
    assert (after.stamina, after.injury) == (55, 8)
    assert rest.summary(c, after) == "SP 12 → 55, IP 7 → 8"
    assert (c.stamina, c.injury) == (12, 7)  # the character given is never changed


@pytest.mark.parametrize("name", ["lnl", "classic"])
def test_lnl_rest_at_the_maximum_gives_nothing_past_it(name: str) -> None:
    rest = rest_of(name)
    full_ip = lnl_character(name, injury=12)
    assert rest.gains(full_ip, "night", options(name), ScriptedDice([])) == (("stamina", 43),)
    fresh = lnl_character(name, stamina=55, injury=12)
    assert rest.gains(fresh, "night", options(name), ScriptedDice([])) == ()
    # Two IP a night, one short of the maximum: only the one.
    assert rest.gains(lnl_character(name, injury=11), "night", options(name, night_rest_ip=2), ScriptedDice([]))[1] == (
        "injury",
        1,
    )


@pytest.mark.parametrize("name", ["lnl", "classic"])
def test_lnl_dead_gains_nothing_and_down_gets_up(name: str) -> None:
    rest = rest_of(name)
    dead = lnl_character(name, injury=0, conditions=["Dead"])
    assert rest.dead(dead)
    assert rest.gains(dead, "night", options(name), ScriptedDice([])) == ()
    down = lnl_character(name, injury=0)
    assert not rest.dead(down)
    gains = rest.gains(down, "night", options(name), ScriptedDice([]))
    up = healed_by_hand(name, down, gains)
    assert not up.down and up.injury == 1
    assert rest.summary(down, up) == "SP 12 → 55, IP 0 → 1, back on its feet"


@pytest.mark.parametrize("name", ["lnl", "classic"])
def test_lnl_options_change_the_rest(name: str) -> None:
    rest, c = rest_of(name), lnl_character(name)
    assert rest.gains(c, "short", options(name, short_rest_restores_sp=False), ScriptedDice([])) == ()
    # The night still restores all SP; its IP is the option's.
    assert rest.gains(c, "night", options(name, night_rest_ip=3), ScriptedDice([])) == (
        ("stamina", 43),
        ("injury", 3),
    )
    assert rest.gains(c, "night", options(name, night_rest_ip=0), ScriptedDice([])) == (("stamina", 43),)


@pytest.mark.parametrize("name", ["lnl", "classic"])
def test_lnl_leaving_a_fight_ends_the_parry_and_keeps_the_damage(name: str) -> None:
    rest = rest_of(name)
    broken = [
        {"name": "Longsword", "die": "d8", "state": "broken"},
        {"name": "Dagger", "die": "d4", "state": "sheathed"},
    ]
    c = lnl_character(
        name,
        weapons=broken,
        shield={"name": "Shield", "durability": 0, "durability_max": 10, "state": "destroyed"},
        parry={"weapon": "Dagger"},
        conditions=["wounded"],
    )
    out = rest.after_fight(c)
    assert out is not c and out.parry is None and c.parry is not None
    assert [w.state.value for w in out.weapons] == ["broken", "sheathed"]
    assert out.shield.state.value == "destroyed" and out.conditions == ["wounded"]
    out.conditions.append("exhausted")
    assert c.conditions == ["wounded"]  # a deep copy: the fight's combatant is left alone


@pytest.mark.parametrize("name", ["lnl", "classic"])
def test_lnl_summary_words(name: str) -> None:
    rest = rest_of(name)
    before = lnl_character(name, stamina=55, injury=12, conditions=["exhausted 1"])
    after = lnl_character(
        name,
        stamina=0,
        injury=7,
        conditions=["wounded", "exhausted 2"],
        weapons=[{"name": "Longsword", "die": "d8", "state": "broken"}, {"name": "Dagger", "die": "d4"}],
        shield={"name": "Shield", "durability": 0, "durability_max": 10, "state": "destroyed"},
    )
    assert rest.summary(before, after) == (
        "SP 55 → 0, IP 12 → 7, wounded, exhausted 1 → exhausted 2, Longsword broken, shield destroyed"
    )
    assert rest.summary(before, before) == ""
    dinged = lnl_character(name, shield={"name": "Shield", "durability": 4, "durability_max": 10})
    assert rest.summary(lnl_character(name), dinged) == "shield durability 10 → 4"
    dead = lnl_character(name, injury=0, conditions=["dead"])
    assert rest.summary(lnl_character(name, conditions=[]), dead) == "IP 7 → 0, dead"
    cured = lnl_character(name, conditions=[])
    assert rest.summary(lnl_character(name, conditions=["exhausted"]), cured) == "no longer exhausted"


# -- Old-School d20: 1d3 HP a day, rolled per character -------------------------------------------------------


def test_osr_day_of_rest_rolls_its_die_per_character() -> None:
    rest, c = rest_of("osr"), osr_character()
    assert rest.dice("day", options("osr")) == "1d3"
    assert rest.dice("short", options("osr")) == ""
    dice = ScriptedDice([2])
    gains = rest.gains(c, "day", options("osr"), dice)
    assert gains == (("hp", 2),) and dice.remaining == []
    after = healed_by_hand("osr", c, gains)
    assert after.hp == 5
    assert rest.summary(c, after) == "HP 3 → 5"


def test_osr_day_of_rest_capped_at_the_maximum_and_rolled_even_at_it() -> None:
    rest = rest_of("osr")
    assert rest.gains(osr_character(hp=8), "day", options("osr"), ScriptedDice([3])) == (("hp", 1),)
    # At full HP the die is still rolled, so typed faces go one per character.
    dice = ScriptedDice([3, 1])
    assert rest.gains(osr_character(hp=9), "day", options("osr"), dice) == ()
    assert dice.remaining == [1]
    with pytest.raises(DiceExhausted, match="Aldric's day of rest"):
        rest.gains(osr_character(), "day", options("osr"), ScriptedDice([]))


def test_osr_short_rest_gives_nothing_and_the_dead_roll_nothing() -> None:
    rest = rest_of("osr")
    dice = ScriptedDice([2])
    assert rest.gains(osr_character(), "short", options("osr"), dice) == ()
    assert dice.remaining == [2]
    dead = osr_character(hp=0, dead=True)
    assert rest.dead(dead)
    assert rest.gains(dead, "day", options("osr"), dice) == ()
    assert dice.remaining == [2]


def test_osr_options_change_the_rest() -> None:
    rest = rest_of("osr")
    two_d4 = options("osr", day_rest_dice="2d4")
    assert rest.dice("day", two_d4) == "2d4"
    assert rest.gains(osr_character(hp=1), "day", two_d4, ScriptedDice([3, 4])) == (("hp", 7),)
    short = options("osr", short_rest_dice="1d2")
    assert rest.gains(osr_character(), "short", short, ScriptedDice([2])) == (("hp", 2),)
    # Subdual is bruising: a day takes it away unless the option says the GM does.
    bruised = osr_character(subdual=4)
    gains = rest.gains(bruised, "day", options("osr"), ScriptedDice([1]))
    assert gains == (("hp", 1), ("subdual", 4))
    after = healed_by_hand("osr", bruised, gains)
    assert (after.hp, after.subdual) == (4, 0)
    assert rest.summary(bruised, after) == "HP 3 → 4, subdual 4 → 0"
    kept = options("osr", day_rest_clears_subdual=False)
    assert rest.gains(bruised, "day", kept, ScriptedDice([1])) == (("hp", 1),)
    with pytest.raises(ValueError, match="day_rest_dice"):
        options("osr", day_rest_dice="a lot")


def test_osr_leaving_a_fight_ends_its_fight_only_fields() -> None:
    rest = rest_of("osr")
    npc = osr_character(
        kind="NPC",
        morale=7,
        morale_passes=2,
        morale_result="surrenders",
        defending="aldric",
        casting="Sleep",
        subdual=3,
        conditions=["exhausted 1"],
        id="aldric",
    )
    out = rest.after_fight(npc)
    assert (out.defending, out.casting, out.morale_passes, out.morale_result) == (None, None, 0, None)
    assert (out.hp, out.subdual, out.conditions) == (3, 3, ["exhausted 1"])
    assert npc.morale_passes == 2 and npc.casting == "Sleep"
    dead = rest.after_fight(osr_character(hp=0, dead=True))
    assert dead.dead and rest.summary(osr_character(), dead) == "HP 3 → 0, dead"


# -- Group d10: a night restores all HP, the wound stays ---------------------------------------------------------


def test_d10_night_restores_all_hp_and_the_wound_stays() -> None:
    rest, c = rest_of("d10"), d10_character()
    assert rest.dice("night", options("d10")) == ""
    gains = rest.gains(c, "night", options("d10"), ScriptedDice([]))
    assert gains == (("hp", 13),)
    after = healed_by_hand("d10", c, gains)
    assert after.hp == 14 and after.has("wounded")
    assert rest.summary(c, after) == "HP 1 → 14"
    assert rest.gains(after, "night", options("d10"), ScriptedDice([])) == ()
    dead = d10_character(hp=0, dead=True)
    assert rest.gains(dead, "night", options("d10"), ScriptedDice([])) == ()
    assert rest.gains(c, "night", options("d10", night_rest_restores_hp=False), ScriptedDice([])) == ()


def test_d10_leaving_a_fight_ends_its_fight_only_fields() -> None:
    rest = rest_of("d10")
    c = d10_character(
        parrying=True,
        disengaged=True,
        stood_up=True,
        lost_attack_round=3,
        overextended_round=2,
        grappled_by="ogre",
        conditions=["wounded", "grappled"],
        weapons=[{"name": "Axe", "die": "d8", "dropped": True}],
    )
    out = rest.after_fight(c)
    assert not (out.parrying or out.disengaged or out.stood_up)
    assert (out.lost_attack_round, out.overextended_round, out.grappled_by) == (None, None, None)
    assert out.conditions == ["wounded"] and not out.weapons[0].dropped
    assert c.grappled_by == "ogre" and c.weapons[0].dropped  # the fight's copy left alone
    before = d10_character(hp=14, conditions=[])
    assert rest.summary(before, out) == "HP 14 → 1, wounded"
    killed = d10_character(hp=0, dead=True, conditions=[])
    assert rest.summary(before, killed) == "HP 14 → 0, dead"
