"""Properties over random fighters, weapons, dice and options (hypothesis).

- damage is never negative and every point of it is accounted for;
- SP and IP never go below 0 (nor above their maxima), for the target and the attacker;
- undo after any sequence of random actions (legal or refused, with undo and redo mixed in)
  brings the encounter back exactly, and a refused action changes nothing.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lnl_desktop.core import (
    AttackMode,
    Combatant,
    Encounter,
    Engine,
    MapGrid,
    RandomDice,
    RulesError,
    RulesOptions,
    Shield,
    Side,
    Spell,
    SurpriseSituation,
    Token,
    Weapon,
)
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Undone
from lnl_desktop.core.rules.lnl import script
from lnl_desktop.core.rules.lnl.model import Attack, CastSpell, Dash, Leap, Parry, ParryState
from lnl_desktop.core.rules.lnl.rules import LNL_RULES

PARTY, OPP = Side.PARTY, Side.OPPONENTS
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

dice_names = st.sampled_from(["d4", "d6", "d8", "d10"])
bonuses = st.integers(-3, 10)


@st.composite
def weapons(draw, name: str = "Weapon") -> Weapon:
    kind = draw(st.sampled_from(["melee", "reach", "ranged"]))
    return Weapon(
        name=name,
        die=draw(dice_names),
        kind=kind,
        style=draw(st.sampled_from(["power", "finesse"])),
        reach_ft=draw(st.sampled_from([None, 10, 15])) if kind == "reach" else None,
        magic_bonus=draw(st.integers(0, 4)),
        specialized=draw(st.booleans()),
    )


@st.composite
def spells(draw) -> Spell:
    return Spell(
        name="Spell",
        die=draw(dice_names),
        ability=draw(st.sampled_from([None, "STR", "DEX", "AWA"])),
        dex_applies=draw(st.booleans()),
        ap_applies=draw(st.booleans()),
        direct=draw(st.booleans()),
    )


@st.composite
def combatants(draw, name: str, side: Side) -> Combatant:
    stamina_max = draw(st.integers(0, 60))
    injury_max = draw(st.integers(1, 30))
    shield = None
    if draw(st.booleans()):
        durability_max = draw(st.integers(0, 20))
        shield = Shield(
            armor=draw(st.integers(0, 3)),
            durability=draw(st.integers(0, durability_max)),
            durability_max=durability_max,
        )
    return Combatant(
        name=name,
        side=side,
        level=draw(st.integers(1, 20)),
        str_bonus=draw(bonuses),
        dex_bonus=draw(bonuses),
        awa_bonus=draw(bonuses),
        armor=draw(st.integers(0, 8)),
        stamina=draw(st.integers(0, stamina_max)),
        stamina_max=stamina_max,
        injury=draw(st.integers(0, injury_max)),
        injury_max=injury_max,
        weapons=[draw(weapons("Weapon")), draw(weapons("Guard"))],
        shield=shield,
        spells=[draw(spells())],
    )


@st.composite
def options(draw) -> RulesOptions:
    return RulesOptions(
        minimum_damage=draw(st.integers(0, 2)),
        spill_to_injury=draw(st.booleans()),
        melee_exertion=draw(st.booleans()),
        power_attack_magic_all_dice=draw(st.booleans()),
        sneak_magic_bonus=draw(st.booleans()),
        shield_overflow_half=draw(st.booleans()),
    )


@st.composite
def parries(draw, target: Combatant) -> ParryState | None:
    choice = draw(st.sampled_from(["none", "weapon", "shield"]))
    if choice == "weapon":
        return ParryState(weapon="Guard", explosions=draw(st.integers(0, 4)))
    if choice == "shield" and target.shield is not None:
        return ParryState(shield=True)
    return None


modes = st.sampled_from([AttackMode.ATTACK, AttackMode.POWER, AttackMode.SNEAK, AttackMode.SPELL])


@FAST
@given(
    attacker=combatants("Attacker", PARTY),
    target=combatants("Target", OPP),
    mode=modes,
    opts=options(),
    seed=st.integers(0, 2**32 - 1),
    ignore_dex=st.booleans(),
    data=st.data(),
)
def test_damage_is_never_negative_and_all_of_it_is_accounted_for(attacker, target, mode, opts, seed, ignore_dex, data):
    target = target.model_copy(update={"parry": data.draw(parries(target))})
    means = attacker.spell("Spell") if mode is AttackMode.SPELL else attacker.weapon("Weapon")
    out = LNL_RULES.resolve_attack(attacker, target, means, mode, RandomDice(seed), opts, ignore_dex=ignore_dex)
    ap = out.application
    assert out.damage >= 0
    assert out.damage >= opts.minimum_damage
    assert out.damage == max(out.raw, opts.minimum_damage)
    for amount in (ap.to_sp, ap.to_ip, ap.overkill, ap.stopped, ap.shield_damage):
        assert amount >= 0
    assert ap.to_sp + ap.to_ip + ap.overkill + ap.stopped == out.damage
    assert 0 <= ap.stamina_after == target.stamina - ap.to_sp
    assert 0 <= ap.injury_after == target.injury - ap.to_ip
    if out.direct:
        assert ap.to_sp == 0
    n = (attacker.level + 1) // 2
    assert out.dice_count == (2 * n if mode is AttackMode.POWER else n)
    assert sum(1 for f in out.faces if not f.explosion) == out.dice_count
    assert sum(1 for f in out.faces if f.explosion) == out.explosions
    assert 0 <= out.exertion_cost <= 4


def distance_cell(weapon: Weapon) -> tuple[int, int]:
    """Where to put the target so that the attacker at (0, 0) can reach it with ``weapon``."""
    if weapon.kind.value == "ranged":
        return (3, 0)
    if weapon.kind.value == "reach":
        return (2, 0)
    return (1, 0)


@FAST
@given(
    attacker=combatants("Attacker", PARTY),
    target=combatants("Target", OPP),
    mode=modes,
    opts=options(),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_sp_and_ip_never_go_below_0_through_the_engine(attacker, target, mode, opts, seed, data):
    weapon = attacker.weapon("Weapon")
    encounter = Encounter(
        map=MapGrid(width=6, height=3),
        options=opts,
        combatants=[attacker, target],
        tokens={"attacker": Token(cell=(0, 0), facing=90), "target": Token(cell=distance_cell(weapon), facing=270)},
    )
    engine = Engine(encounter, dice=RandomDice(seed))
    engine.start_combat(SurpriseSituation.NOBODY, face=4)
    parry = data.draw(parries(target))
    if parry is not None:
        engine.edit("target", parry=parry.model_dump())
    if attacker.down:
        return  # a creature at 0 IP takes no turns
    engine.begin_turn("attacker")
    if mode is AttackMode.SPELL:
        script.cast(engine, "attacker", "target", "Spell")
    else:
        script.attack(engine, "attacker", "target", "Weapon", mode, override=True)
    for c in engine.encounter.combatants:
        assert 0 <= c.stamina <= c.stamina_max, c.id
        assert 0 <= c.injury <= c.injury_max, c.id
        assert c.shield is None or 0 <= c.shield.durability <= c.shield.durability_max
    Encounter.model_validate(engine.encounter.model_dump())  # still a valid document


# -- undo after random sequences ----------------------------------------------------------------


def arena(seed: int) -> Engine:
    def member(name, side, **fields):
        data = {"name": name, "side": side, "level": 3, "stamina_max": 12, "injury_max": 6}
        data.update(fields)
        return Combatant(**data)

    combatants = [
        member(
            "Ana",
            PARTY,
            str_bonus=2,
            weapons=[Weapon(name="Axe", die="d8", magic_bonus=1), Weapon(name="Spear", die="d6", kind="reach")],
            shield=Shield(durability=6, durability_max=6),
        ),
        member("Bo", PARTY, awa_bonus=2, weapons=[Weapon(name="Bow", die="d6", kind="ranged", specialized=True)]),
        member(
            "Cy",
            PARTY,
            dex_bonus=3,
            concealed=True,
            weapons=[Weapon(name="Dagger", die="d4", style="finesse")],
            spells=[Spell(name="Fire", die="d6")],
        ),
        member(
            "Orc", OPP, armor=1, weapons=[Weapon(name="Club", die="d6")], shield=Shield(durability=4, durability_max=4)
        ),
        member(
            "Gob",
            OPP,
            dex_bonus=1,
            weapons=[
                Weapon(name="Sling", die="d4", kind="ranged"),
                Weapon(name="Knife", die="d4", style="finesse", magic_bonus=2),
            ],
        ),
    ]
    tokens = {
        "ana": Token(cell=(1, 1), facing=90),
        "bo": Token(cell=(0, 4), facing=90),
        "cy": Token(cell=(3, 3), facing=0),
        "orc": Token(cell=(2, 1), facing=270),
        "gob": Token(cell=(5, 3), facing=270),
    }
    encounter = Encounter(
        map=MapGrid(width=7, height=6, walls=frozenset({(4, 0), (4, 1)}), difficult=frozenset({(3, 4), (4, 4)})),
        combatants=combatants,
        tokens=tokens,
    )
    return Engine(encounter, dice=RandomDice(seed))


IDS = ["ana", "bo", "cy", "orc", "gob"]
cells = st.tuples(st.integers(0, 6), st.integers(0, 5))
KINDS = [
    "begin",
    "end",
    "move",
    "forced",
    "attack",
    "cast",
    "parry",
    "dash",
    "leap",
    "next",
    "edit",
    "face",
    "other",
    "walls",
    "undo",
    "redo",
]


@st.composite
def actions(draw, engine: Engine) -> act.Action | str:
    """A random action, biased towards the combatant whose turn it is; or 'undo' / 'redo'."""
    turn = engine.encounter.combat.turn
    me = turn.combatant if turn is not None and draw(st.integers(0, 4)) else draw(st.sampled_from(IDS))
    c = engine.encounter.combatant(me)
    kind = draw(st.sampled_from(KINDS))
    if kind == "begin":
        waiting = engine.waiting()
        return act.BeginTurn(draw(st.sampled_from(waiting)).id if waiting else me)
    if kind == "end":
        return act.EndTurn()
    if kind in ("move", "forced"):
        return act.Move(me, to=draw(cells), forced=kind == "forced")
    if kind == "attack":
        return Attack(
            me,
            draw(st.sampled_from(IDS)),
            draw(st.sampled_from([w.name for w in c.weapons])),
            draw(st.sampled_from([AttackMode.ATTACK, AttackMode.POWER, AttackMode.SNEAK])),
            ignore_dex=draw(st.booleans()),
            override=draw(st.booleans()),
        )
    if kind == "cast":
        return CastSpell(me, draw(st.sampled_from(IDS)), "Fire")
    if kind == "parry":
        if draw(st.booleans()):
            return Parry(me, shield=True)
        return Parry(me, weapon=draw(st.sampled_from([w.name for w in c.weapons])))
    if kind == "dash":
        return Dash(me)
    if kind == "leap":
        return Leap(me)
    if kind == "next":
        return act.NextRound(draw(st.integers(1, 6)))
    if kind == "edit":
        field = draw(st.sampled_from(["stamina", "injury", "concealed", "distracted", "level"]))
        value = {
            "stamina": st.integers(-1, 13),
            "injury": st.integers(-1, 7),
            "concealed": st.booleans(),
            "distracted": st.booleans(),
            "level": st.integers(0, 6),
        }[field]
        return act.EditCombatant(me, {field: draw(value)})
    if kind == "face":
        return act.Face(me, draw(st.sampled_from([0, 45, 90, 180, 270])))
    if kind == "other":
        return act.OtherAction(me, draw(st.sampled_from(["grapple", "", "reload"])))
    if kind == "walls":
        # A wall or door drawn or taken away, a door opened or closed, fog of war, cells shown or hidden.
        corners = st.tuples(st.integers(0, 7), st.integers(0, 6))
        lines = [*engine.encounter.map.segments, *engine.encounter.map.doors]
        line = draw(st.sampled_from(lines)) if lines and draw(st.integers(0, 3)) else None
        a, b = (line.a, line.b) if line is not None else (draw(corners), draw(corners))
        what = draw(st.sampled_from(["wall", "wall", "remove", "door", "fog", "reveal"]))
        if what == "wall":
            return act.AddWall(draw(corners), draw(corners), door=draw(st.booleans()), open=draw(st.booleans()))
        if what == "remove":
            return act.RemoveWall(a, b)
        if what == "door":
            return act.SetDoor(a, b, draw(st.booleans()))
        if what == "fog":
            return act.SetFog(draw(st.booleans()))
        return act.RevealCells(tuple(draw(st.lists(cells, max_size=4))), shown=draw(st.booleans()))
    return kind


def snapshot(engine: Engine) -> tuple[dict, list]:
    dump = engine.encounter.model_dump()
    log = dump.pop("log")
    return dump, log


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    situation=st.sampled_from(
        [SurpriseSituation.NOBODY, SurpriseSituation.OPPONENTS_AMBUSH, SurpriseSituation.PARTY_AMBUSH]
    ),
    face=st.integers(1, 6),
    data=st.data(),
)
def test_undo_after_random_actions_restores_the_state_exactly(seed, situation, face, data):
    engine = arena(seed)
    start_state = snapshot(engine)
    done: list[tuple[dict, list]] = []  # the state before each applied action
    undone: list[tuple[tuple[dict, list], dict]] = []  # (state before, state after) of undone actions

    done.append(snapshot(engine))
    engine.apply(act.StartCombat(situation, face))

    steps = data.draw(st.integers(1, 25), label="steps")
    for _ in range(steps):
        action = data.draw(actions(engine), label="action")
        if action == "undo":
            if not done:
                continue
            before_state, before_log = done.pop()
            after_state, log_before_undo = snapshot(engine)
            events = engine.undo()
            state, log = snapshot(engine)
            assert state == before_state
            assert len(events) == 1 and isinstance(events[0], Undone)

            # The log is back as it was, keeping every undo line (RULES §8: undo is logged too).
            def story(entries: list[dict]) -> list[dict]:
                return [e for e in entries if e["kind"] != "undone"]

            assert story(log) == story(before_log)
            assert log[-1] == events[0].model_dump()
            undo_lines = [e for e in log if e["kind"] == "undone"]
            assert len(undo_lines) == len([e for e in log_before_undo if e["kind"] == "undone"]) + 1
            undone.append(((before_state, before_log), after_state))
            continue
        if action == "redo":
            if not undone:
                continue
            (before_state, _), after_state = undone.pop()
            before = snapshot(engine)
            assert before[0] == before_state
            engine.redo()
            assert snapshot(engine)[0] == after_state  # the very same dice, the very same result
            done.append(before)
            continue
        full_before = engine.encounter.model_dump()
        before = snapshot(engine)
        can_undo = engine.can_undo
        try:
            engine.apply(action)
        except RulesError:
            assert engine.encounter.model_dump() == full_before, action
            assert engine.can_undo == can_undo
            continue
        done.append(before)
        undone.clear()
        for c in engine.encounter.combatants:
            assert 0 <= c.stamina <= c.stamina_max and 0 <= c.injury <= c.injury_max

    while done:
        before_state, before_log = done.pop()
        engine.undo()
        state, log = snapshot(engine)
        assert state == before_state
        assert log[: len(before_log)] == before_log
        assert all(entry["kind"] == "undone" for entry in log[len(before_log) :])
    assert snapshot(engine)[0] == start_state[0]
    assert not engine.can_undo
