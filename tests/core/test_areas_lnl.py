"""Area effects in the Laurels & Loot family (RULES §14), through the engine with scripted dice.

One roll for every target, each target's own DEX and AP, SP then IP (or IP at once for a direct
spell), a parry as against any blow, the caster's action, one undo step and one log entry. Every
number is worked out by hand from RULES §5, §6 and §14.
"""

from __future__ import annotations

import re
import time

import pytest
from pydantic import ValidationError

from lnl_desktop.core import (
    Combatant,
    Encounter,
    Engine,
    IllegalAction,
    MapGrid,
    RulesError,
    RulesOptions,
    ScriptedDice,
    Side,
    SurpriseSituation,
    Token,
    WeaponState,
)
from lnl_desktop.core.dice.odds import dice_total
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.actions import AreaEffect
from lnl_desktop.core.encounter.events import AreaEffectResolved, Override, WentDown
from lnl_desktop.core.encounter.validation import explain
from lnl_desktop.core.files.storage import load
from lnl_desktop.core.map.areas import AreaShape
from lnl_desktop.core.rules.classic import CLASSIC, ClassicCombatant
from lnl_desktop.core.rules.lnl import LNL
from lnl_desktop.core.rules.lnl.model import ShieldDestroyed, WeaponBroken
from lnl_desktop.paths import resource

PARTY, OPP = Side.PARTY, Side.OPPONENTS
FIREBALL = {"name": "Fireball", "die": "d6", "range_ft": 150, "area": {"shape": "circle", "size_ft": 20}}
# A 20 ft circle round the centre of cell (8, 8): every cell within four steps of it.
CENTRE = (8.5, 8.5)


# -- helpers -------------------------------------------------------------------------------------


def mage(level: int = 9, **spell) -> Combatant:
    """Janine, far from the blast at (1, 1), with a Fireball (5d6 at level 9)."""
    return Combatant(
        id="janine",
        name="Janine",
        side=PARTY,
        level=level,
        stamina_max=20,
        injury_max=10,
        spells=[FIREBALL | spell],
    )


def giant(**fields) -> Combatant:
    data = {"id": "giant", "name": "Giant", "side": OPP, "level": 12, "dex_bonus": 2, "armor": 1}
    return Combatant(**(data | {"stamina_max": 30, "injury_max": 20} | fields))


def tombril(**fields) -> Combatant:
    data = {"id": "tombril", "name": "Tombril", "side": PARTY, "level": 9, "dex_bonus": 3}
    return Combatant(**(data | {"stamina_max": 12, "injury_max": 10} | fields))


def make_engine(*combatants: Combatant, cells: dict[str, tuple[int, int]] | None = None) -> Engine:
    """Janine at (1, 1), the Giant at (8, 8), Tombril at (10, 8) unless told; dice all scripted."""
    where = {"janine": (1, 1), "giant": (8, 8), "tombril": (10, 8)} | (cells or {})
    encounter = Encounter(
        map=MapGrid(width=20, height=20),
        combatants=list(combatants),
        tokens={c.id: Token(cell=where[c.id]) for c in combatants},
        options=RulesOptions(),
    )
    return Engine(encounter, dice=ScriptedDice([]))


def fireball(*targets: str, **fields) -> AreaEffect:
    data = {"shape": "circle", "origin": CENTRE, "size_ft": 20, "targets": targets}
    return AreaEffect(**(data | {"caster": "janine", "means": "Fireball"} | fields))


def free(*targets: str, dice: str = "3d6", **fields) -> AreaEffect:
    # A 20 ft square laid from the corner (7, 7) towards the south-east: cells 7 to 10 both ways.
    extras = {key: fields.pop(key) for key in ("dex_applies", "ap_applies", "direct") if key in fields}
    return AreaEffect(
        shape="square",
        origin=(7.0, 7.0),
        size_ft=20,
        direction=135,
        targets=targets,
        dice=dice,
        **fields,
        extras=extras,
    )


def the_entry(events) -> AreaEffectResolved:
    found = [e for e in events if isinstance(e, AreaEffectResolved)]
    assert len(found) == 1
    return found[0]


def by_name(entry: AreaEffectResolved) -> dict[str, object]:
    return {t.name: t for t in entry.targets}


def fighting(engine: Engine, turn: str | None = "janine") -> None:
    """Round 1, the Party first (d6 4), and ``turn``'s turn begun."""
    engine.start_combat(SurpriseSituation.NOBODY, face=4)
    if turn is not None:
        engine.begin_turn(turn)


def state(engine: Engine) -> dict:
    return engine.encounter.model_dump(mode="json")


# -- the stat block ------------------------------------------------------------------------------


def test_a_spell_carries_its_area_and_old_files_load_without_one():
    assert mage().spells[0].area.shape is AreaShape.CIRCLE and mage().spells[0].area.size_ft == 20
    demo = load(resource("encounters", "hill-giant.lnl"))
    assert [s.area for c in demo.combatants for s in c.spells] == [None]  # Janine's Searing Light strikes one


@pytest.mark.parametrize(
    ("area", "words"),
    [
        ({"shape": "blob", "size_ft": 20}, "Spell 1, Area: Shape must be one of 'circle', 'cone', 'line' or 'square'"),
        ({"shape": "cone", "size_ft": 17}, "Spell 1, Area, Size (ft): 17 ft is not a multiple of 5 ft"),
        ({"shape": "line", "size_ft": 300}, "Spell 1, Area: Size (ft) cannot be above 200"),
        ({"shape": "square", "size_ft": 0}, "Spell 1, Area: Size (ft) cannot be below 5"),
    ],
)
def test_a_bad_area_on_the_stat_block_is_refused_in_the_sheets_words(area, words):
    with pytest.raises(ValidationError) as excinfo:
        mage(area=area)
    assert words in explain(excinfo.value)


def test_the_sheet_refuses_a_bad_area_and_changes_nothing():
    engine = make_engine(mage(), giant())
    before = state(engine)
    with pytest.raises(RulesError, match="Spell 1, Area, Size \\(ft\\): 12 ft is not a multiple of 5 ft"):
        engine.edit("janine", spells=[FIREBALL | {"area": {"shape": "cone", "size_ft": 12}}])
    assert state(engine) == before


def test_area_means_and_the_spec_in_the_rules_words():
    c = mage(level=5, ability="AWA")
    c = c.model_copy(update={"spells": [*c.spells, c.spells[0].model_copy(update={"name": "Bolt", "area": None})]})
    (means,) = LNL.areas.means(c)
    assert (means.name, means.area.words) == ("Fireball", "a 20 ft radius circle")
    assert means.words == "3d6! (level 5) + AWA, DEX and AP apply, SP then IP"
    direct = mage(direct=True, dex_applies=False)
    assert LNL.areas.means(direct)[0].words == "5d6! (level 9), AP applies, not DEX, direct: IP at once"
    spec = LNL.areas.spec()
    assert [s.key for s in spec.settings] == ["dex_applies", "ap_applies", "direct"]  # beside the shared dice
    assert not spec.saves and not spec.cover
    notes = " ".join(spec.notes)
    for words in ("One roll for every target", "explodes", "DEX bonus and AP", "IP at once", "parrying", "No exertion"):
        assert words in notes
    classic = CLASSIC.areas.spec()
    assert [s.key for s in classic.settings] == ["dex_applies", "ap_applies"]
    assert "no direct damage" in " ".join(classic.notes)


# -- one roll, every target --------------------------------------------------------------------


def test_one_roll_strikes_two_targets_each_through_its_own_dex_and_ap():
    # Janine (level 9: 5 dice) rolls 5, 3, 4, 3, 2 = 17 once. The Giant: 17 - 2 DEX - 1 AP = 14 off
    # its 30 SP. Tombril: 17 - 3 DEX = 14 against 12 SP: 12 to SP, the 2 left spill into IP.
    engine = make_engine(mage(), giant(), tombril())
    dice = ScriptedDice([5, 3, 4, 3, 2])
    events = engine.apply(fireball("giant", "tombril"), dice)
    assert dice.remaining == []
    entry = the_entry(events)
    assert entry.text == (
        "Fireball (Janine, a 20 ft radius circle): 5d6! = 17 — Giant 17 - 2 DEX - 1 AP = 14 (SP 30 → 16); "
        "Tombril 17 - 3 DEX = 14 (SP 12 → 0, IP 10 → 8)"
    )
    assert (entry.caster, entry.effect, entry.area, entry.dice, entry.faces, entry.total) == (
        "janine",
        "Fireball",
        "a 20 ft radius circle",
        "5d6!",
        [5, 3, 4, 3, 2],
        17,
    )
    giant_, tombril_ = by_name(entry)["Giant"], by_name(entry)["Tombril"]
    assert (giant_.defences, giant_.damage, giant_.result) == ("- 2 DEX - 1 AP", 14, "SP 30 → 16")
    assert (tombril_.defences, tombril_.damage, tombril_.result) == ("- 3 DEX", 14, "SP 12 → 0, IP 10 → 8")
    g, t = engine.encounter.combatant("giant"), engine.encounter.combatant("tombril")
    assert (g.stamina, g.injury, t.stamina, t.injury) == (16, 20, 0, 8)
    assert events == [entry]  # nobody down, no parry: the one entry says it all
    assert engine.encounter.log[-1] is entry
    assert "Giant: - 2 DEX - 1 AP; 14 damage; SP 30 → 16" in entry.details()


def test_every_die_explodes_and_the_caster_s_ability_adds_once():
    # Level 5: 3 dice of d6 roll 6, 2, 6; the two 6s explode into 1 and 6, that 6 into 4: 25, + 2 AWA = 27.
    janine = mage(level=5, ability="AWA").model_copy(update={"awa_bonus": 2})
    engine = make_engine(janine, giant(stamina=30, stamina_max=40))
    entry = the_entry(engine.apply(fireball("giant"), ScriptedDice([6, 2, 6, 1, 6, 4])))
    assert (entry.dice, entry.total) == ("3d6! + 2 AWA", 27)
    assert entry.faces == [6, 2, 6, 1, 6, 4]
    assert entry.text.endswith("3d6! + 2 AWA = 27 — Giant 27 - 2 DEX - 1 AP = 24 (SP 30 → 6)")


def test_a_direct_spell_goes_to_ip_at_once_and_a_target_goes_down():
    engine = make_engine(mage(direct=True, ap_applies=False), giant(injury=10), tombril())
    events = engine.apply(fireball("giant", "tombril"), ScriptedDice([5, 3, 4, 3, 2]))
    entry = the_entry(events)
    # The Giant: 17 - 2 DEX = 15 against 10 IP: down, 5 overkill; its SP untouched. Tombril: 17 - 3 = 14: down too.
    assert entry.text == (
        "Fireball (Janine, a 20 ft radius circle): 5d6! = 17 — Giant 17 - 2 DEX = 15 (IP 10 → 0, down, 5 overkill); "
        "Tombril 17 - 3 DEX = 14 (IP 10 → 0, down, 4 overkill)"
    )
    g = engine.encounter.combatant("giant")
    assert (g.stamina, g.injury, g.down) == (30, 0, True)
    downs = [e for e in events if isinstance(e, WentDown)]
    assert [(d.combatant, d.overkill, d.text) for d in downs] == [
        ("giant", 5, "Giant is down (5 overkill)"),
        ("tombril", 4, "Tombril is down (4 overkill)"),
    ]
    assert events[0] is entry  # the one entry first, then what follows each blow


def test_damage_below_zero_is_zero_and_says_so():
    engine = make_engine(mage(level=1), giant(dex_bonus=4, armor=3))
    entry = the_entry(engine.apply(fireball("giant"), ScriptedDice([2])))
    assert entry.text.endswith("Giant 2 - 4 DEX - 3 AP = -5, so 0 (no harm)")
    assert by_name(entry)["Giant"].damage == 0


# -- the GM's free effect ------------------------------------------------------------------------


def test_a_free_effect_rolls_its_dice_exploding_with_the_gms_fields():
    # Falling rocks 3d6+1: 6, 2, 3 and the 6 explodes into 5: 16 + 1 = 17. DEX does not apply, AP does.
    engine = make_engine(giant(), tombril(armor=2))
    action = free("giant", "tombril", dice="3d6+1", name="Falling rocks", dex_applies=False)
    entry = the_entry(engine.apply(action, ScriptedDice([6, 2, 3, 5])))
    assert entry.text == (
        "Falling rocks (a 20 ft square): 3d6!+1 = 17 — Giant 17 - 1 AP = 16 (SP 30 → 14); "
        "Tombril 17 - 2 AP = 15 (SP 12 → 0, IP 10 → 7)"
    )
    assert entry.caster == "" and entry.faces == [6, 2, 3, 5]


def test_a_free_direct_effect_in_or_out_of_combat_uses_nobodys_action():
    engine = make_engine(mage(), giant(), tombril())
    fighting(engine, turn="tombril")
    entry = the_entry(engine.apply(free("giant", dice="2d4", direct=True), ScriptedDice([3, 1])))
    assert entry.text == "Area effect (a 20 ft square): 2d4! = 4 — Giant 4 - 2 DEX - 1 AP = 1 (IP 20 → 19)"
    assert engine.encounter.combat.turn.action is None  # Tombril's turn goes on, its action still open


@pytest.mark.parametrize(
    ("dice", "reason"),
    [
        ("", "a free effect names its dice"),
        ("4d6kh3", "every die counts"),
        ("2d1", "2 to 20 sides"),
        ("50d6", "at most 40"),
        ("3", "rolls no dice"),
        ("2d", "at 3"),
    ],
)
def test_a_free_effect_s_dice_that_cannot_be_rolled_are_refused(dice, reason):
    engine = make_engine(giant())
    with pytest.raises(IllegalAction) as excinfo:
        engine.apply(free("giant", dice=dice))
    assert reason in " ".join(excinfo.value.reasons)


# -- a parry protects as against any blow (§6) ---------------------------------------------------


def test_a_weapon_parry_stops_the_blow_and_an_exploding_die_can_shatter_it():
    # Tombril parries with a plain sword: the Fireball's one exploding die (a 6) shatters it; the blow
    # is still fully stopped. The Giant, not parrying, takes it.
    t = tombril(weapons=[{"name": "Sword", "die": "d6"}], parry={"weapon": "Sword"})
    engine = make_engine(mage(), giant(), t)
    events = engine.apply(fireball("giant", "tombril"), ScriptedDice([6, 3, 4, 3, 2, 1]))
    entry = the_entry(events)
    assert entry.total == 19
    assert by_name(entry)["Tombril"].result == "all 16 stopped by the Sword parry, which shatters"
    assert by_name(entry)["Tombril"].damage == 0
    t = engine.encounter.combatant("tombril")
    assert (t.stamina, t.injury, t.parry, t.weapon("Sword").state) == (12, 10, None, WeaponState.BROKEN)
    broken = [e for e in events if isinstance(e, WeaponBroken)]
    assert [b.text for b in broken] == ["Tombril's Sword shatters; the parry stops nothing more"]


def test_a_shield_parry_takes_double_and_lets_the_rest_through_when_destroyed():
    # 17 - 3 DEX - 1 AP (the shield's armour) = 13; doubled 26 is more than the shield's 10:
    # it is destroyed and Tombril takes 13 - ceil(10 / 2) = 8.
    t = tombril(shield={"armor": 1, "durability": 10, "durability_max": 10}, parry={"shield": True})
    engine = make_engine(mage(), t)
    events = engine.apply(fireball("tombril"), ScriptedDice([5, 3, 4, 3, 2]))
    entry = the_entry(events)
    assert entry.text.endswith("Tombril 17 - 3 DEX - 1 AP = 13 (shield 10 → 0, destroyed, SP 12 → 4)")
    assert by_name(entry)["Tombril"].damage == 8
    assert [e.text for e in events if isinstance(e, ShieldDestroyed)] == ["Tombril's shield is destroyed"]


# -- the caster's action -------------------------------------------------------------------------


def test_the_area_spell_is_the_caster_s_action():
    engine = make_engine(mage(), giant(), tombril())
    fighting(engine)
    engine.apply(fireball("giant"), ScriptedDice([1, 1, 1, 1, 1]))
    turn = engine.encounter.combat.turn
    assert (turn.action, turn.action_detail) == ("spell", "Fireball (a 20 ft radius circle)")
    with pytest.raises(IllegalAction) as excinfo:
        engine.apply(fireball("giant"), ScriptedDice([1, 1, 1, 1, 1]))
    assert excinfo.value.reasons == ["Action not used yet: already took its action (spell)"]
    # The blow counts as Janine's attack on the Giant, from afar (RULES §7's distraction).
    combat = engine.encounter.combat
    assert [(r.attacker, r.target) for r in combat.attacks] == [("janine", "giant")]
    assert combat.ranged_hits == {"giant": ["janine"]}


def test_not_the_caster_s_turn_is_refused_and_changes_nothing_unless_the_gm_overrides():
    engine = make_engine(mage(), giant(), tombril())
    fighting(engine, turn="tombril")
    before = state(engine)
    with pytest.raises(IllegalAction) as excinfo:
        engine.apply(fireball("giant"), ScriptedDice([1, 1, 1, 1, 1]))
    assert excinfo.value.action == "Janine casting Fireball"
    assert excinfo.value.reasons == ["Janine's turn: it is Tombril's turn"]
    assert state(engine) == before
    events = engine.apply(fireball("giant", override=True), ScriptedDice([1, 1, 1, 1, 1]))
    assert [e.text for e in events if isinstance(e, Override)] == [
        "GM override for Janine's Fireball: Janine's turn: it is Tombril's turn"
    ]
    assert engine.encounter.combat.turn.action is None  # Tombril's action is not spent on Janine's spell


def test_out_of_combat_the_caster_needs_no_turn():
    engine = make_engine(mage(), giant())
    entry = the_entry(engine.apply(fireball("giant"), ScriptedDice([1, 1, 1, 1, 1])))
    assert entry.total == 5


def test_the_spell_must_be_the_caster_s_and_strike_its_own_area():
    engine = make_engine(mage(), giant())
    with pytest.raises(IllegalAction) as excinfo:
        engine.apply(fireball("giant", means="Meteor"))
    assert excinfo.value.reasons == ["Janine has no spell named 'Meteor' (area spells: Fireball)"]
    with pytest.raises(IllegalAction) as excinfo:
        engine.apply(fireball("giant", size_ft=30))
    assert excinfo.value.reasons == ["Fireball strikes a 20 ft radius circle, not a 30 ft radius circle"]
    bolt = mage().model_copy(update={"spells": [mage().spells[0].model_copy(update={"area": None})]})
    engine = make_engine(bolt, giant())
    with pytest.raises(IllegalAction) as excinfo:
        engine.apply(fireball("giant"))
    assert "strikes one target, not an area" in excinfo.value.reasons[0]


# -- undo and the log ----------------------------------------------------------------------------


def test_one_undo_step_puts_everything_back_on_the_demo():
    engine = Engine(load(resource("encounters", "hill-giant.lnl")), dice=ScriptedDice([]))
    janine = engine.encounter.combatant("janine")
    engine.edit("janine", spells=[*(s.model_dump(mode="json") for s in janine.spells), FIREBALL])
    fighting(engine, turn=None)
    # The Half-orc parries with its axe (a parry ends when combat starts: set it after).
    engine.edit("half-orc", parry={"weapon": engine.encounter.combatant("half-orc").weapons[0].name})
    engine.begin_turn("janine")
    before = state(engine)
    log_length = len(engine.encounter.log)
    targets = ("tombril", "hill-giant", "half-orc", "half-orc-glaive")
    # Janine (level 4: 2 dice) rolls 6, 4; the 6 explodes into 6, that into 3: 19.
    action = fireball(*targets, origin=(12.0, 7.0))
    events = engine.apply(action, ScriptedDice([6, 4, 6, 3]))
    entry = the_entry(events)
    assert entry.text == (
        "Fireball (Janine the Pious, a 20 ft radius circle): 2d6! = 19 — "
        "Tombril 19 - 5 DEX - 3 AP = 11 (SP 55 → 44); Hill Giant 19 - 3 DEX - 1 AP = 15 (SP 68 → 53); "
        "Half-orc 19 - 1 DEX - 3 AP = 15 (all 15 stopped by the Battleaxe parry, which shatters); "
        "Half-orc Glaive 19 - 3 AP = 16 (SP 14 → 0, IP 15 → 13)"
    )
    for name in ("Tombril", "Hill Giant", "Half-orc", "Half-orc Glaive"):
        assert re.search(rf"{name} 19 [-\w ]*= \d+ \(", entry.text), name
    assert "Fireball" in engine.undo_text  # one step: the whole effect
    engine.undo()
    after = state(engine)
    assert len(engine.encounter.log) == log_length + 1  # the Undone line
    after["log"], before["log"] = after["log"][:log_length], before["log"][:log_length]
    assert after == before
    engine.redo()
    assert the_entry(engine.encounter.log[-3:]).text == entry.text


# -- L&L Classic ---------------------------------------------------------------------------------


def test_classic_fire_mage_from_the_bestiary_strikes_sp_first():
    engine = Engine(load(resource("encounters", "hill-giant-classic.lnl")), dice=ScriptedDice([]))
    mage_ = next(c for c in CLASSIC.bestiary() if c["name"] == "Fire Mage")
    engine.apply(act.AddCombatant(mage_ | {"side": "Opponents"}, (12, 12)))
    cid = engine.encounter.combatants[-1].id
    assert engine.encounter.combatant(cid).wis_bonus == 2
    # Level 5: 3 dice roll 4, 4, 5 = 13. Tombril 13 - 5 DEX - 3 AP = 5; the Giant 13 - 3 - 1 = 9.
    action = AreaEffect(
        shape="circle",
        origin=(12.0, 7.0),
        size_ft=20,
        targets=("tombril", "hill-giant"),
        caster=cid,
        means="Fireball",
    )
    assert CLASSIC.areas.means(engine.encounter.combatant(cid))[0].words == (
        "3d6! (level 5), DEX and AP apply, SP then IP"
    )
    entry = the_entry(engine.apply(action, ScriptedDice([4, 4, 5])))
    assert entry.text == (
        "Fireball (Fire Mage, a 20 ft radius circle): 3d6! = 13 — "
        "Tombril 13 - 5 DEX - 3 AP = 5 (SP 55 → 50); Hill Giant 13 - 3 DEX - 1 AP = 9 (SP 68 → 59)"
    )


def test_classic_has_no_direct_area_damage():
    engine = Engine(load(resource("encounters", "hill-giant-classic.lnl")), dice=ScriptedDice([]))
    with pytest.raises(IllegalAction) as excinfo:
        engine.apply(
            AreaEffect(
                shape="circle",
                origin=(12.0, 7.0),
                size_ft=20,
                targets=("tombril",),
                dice="2d6",
                extras={"direct": True},
            )
        )
    assert excinfo.value.reasons == ["L&L Classic has no direct damage: all damage comes off SP first"]
    with pytest.raises(ValidationError, match="no direct damage"):
        ClassicCombatant(name="M", side=OPP, level=3, stamina_max=5, injury_max=5, spells=[FIREBALL | {"direct": True}])
    # A free effect spills past SP into IP as in L&L: 2d6 4 + 3 = 7 on Tombril's 0 SP.
    engine.edit("tombril", stamina=0)
    action = AreaEffect(
        shape="circle",
        origin=(12.0, 7.0),
        size_ft=20,
        targets=("tombril",),
        dice="2d6",
        extras={"dex_applies": False, "ap_applies": False},
    )
    entry = the_entry(engine.apply(action, ScriptedDice([4, 3])))
    assert by_name(entry)["Tombril"].result == "IP 14 → 7"


# -- the forecast --------------------------------------------------------------------------------


def _numbers(odds) -> tuple[float, int, int, bool]:
    m = re.fullmatch(r"≈ (\d+\.\d) \((\d+)-(\d+)(\+?)\)", odds.damage)
    assert m, odds.damage
    return float(m[1]), int(m[2]), int(m[3]), bool(m[4])


def test_the_forecast_is_exact_and_agrees_with_the_resolution():
    engine = make_engine(mage(), giant(), tombril())
    action = fireball("giant", "tombril")
    odds = LNL.areas.forecast(engine.encounter, action)
    assert set(odds) == {"giant", "tombril"}
    mean, low, likely, more = _numbers(odds["giant"])
    # 5 exploding d6 average 5 x 4.2 = 21; the Giant takes 3 off, Tombril 3.
    assert (mean, low, more) == (18.0, 2, True)
    totals = dice_total(5, 6)
    # Tombril goes down when 17 - 3 ... any roll of 25 or more (12 SP + 10 IP + 3 DEX).
    assert odds["tombril"].drop == pytest.approx(float(totals[25:].sum()), abs=1e-12)
    assert odds["giant"].drop == pytest.approx(float(totals[53:].sum()), abs=1e-12)  # 30 + 20 + 3
    assert "5d6! - 2 DEX - 1 AP" in odds["giant"].words and "to put it down" in odds["giant"].words
    for faces in ([1, 1, 1, 1, 1], [5, 3, 4, 3, 2], [6, 6, 5, 4, 3, 2, 1]):
        fresh = make_engine(mage(), giant(), tombril())
        entry = the_entry(fresh.apply(action, ScriptedDice(faces)))
        for t in entry.targets:
            _, low, likely, more = _numbers(odds[t.combatant])
            assert low <= t.damage and (more or t.damage <= likely)


def test_the_forecast_sees_a_parry_and_a_target_already_down_and_is_fast():
    t = tombril(weapons=[{"name": "Sword", "die": "d6", "magic_bonus": 1}], parry={"weapon": "Sword"})
    engine = make_engine(mage(), giant(injury=0), t)
    action = fireball("giant", "tombril")
    LNL.areas.forecast(engine.encounter, action)  # the first call imports numpy
    started = time.perf_counter()
    odds = LNL.areas.forecast(engine.encounter, action)
    assert (time.perf_counter() - started) / 2 < 0.005
    assert odds["tombril"].damage == "≈ 0.0 (0-0)" and odds["tombril"].drop == 0.0
    assert "parrying with the Sword" in odds["tombril"].words and "it shatters" in odds["tombril"].words
    assert odds["giant"].drop is None and "already down" in odds["giant"].words
    assert LNL.areas.forecast(engine.encounter, free("giant", dice="4d6kh3")) == {}  # nothing to forecast yet
    free_odds = LNL.areas.forecast(engine.encounter, free("giant", dice="2d4+1", dex_applies=False))
    # Two exploding d4 average 2 x 10/3; + 1 - 1 AP: 6.7, at least 2.
    assert _numbers(free_odds["giant"])[:2] == (6.7, 2)


# -- the bestiaries ------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", [LNL, CLASSIC])
def test_both_bestiaries_have_a_fire_mage_with_a_fireball(ruleset):
    mage_ = next(c for c in ruleset.bestiary() if c["name"] == "Fire Mage")
    c = ruleset.stat_block.model_validate(mage_ | {"side": "Opponents"})
    (means,) = ruleset.areas.means(c)
    assert (means.name, means.area.shape, means.area.size_ft) == ("Fireball", AreaShape.CIRCLE, 20)
