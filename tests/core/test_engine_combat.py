"""Undo, redo and refused actions around attacks: the encounter comes back exactly as it was."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lnl_desktop.core import (
    AttackMode,
    AttackResolved,
    Combatant,
    Encounter,
    Engine,
    IllegalAction,
    MapGrid,
    RandomDice,
    RulesError,
    ScriptedDice,
    Shield,
    Side,
    Spell,
    SurpriseSituation,
    Token,
    Weapon,
    WeaponState,
)
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Undone
from lnl_desktop.core.rules.lnl import script
from lnl_desktop.core.rules.lnl.model import Attack

PARTY, OPP = Side.PARTY, Side.OPPONENTS


def fighter(name: str, side: Side = PARTY, **fields) -> Combatant:
    data = {"name": name, "side": side, "level": 3, "stamina_max": 20, "injury_max": 10}
    data.update(fields)
    return Combatant(**data)


def state(engine: Engine) -> dict:
    """The whole encounter as data, without the log."""
    dump = engine.encounter.model_dump()
    del dump["log"]
    return dump


def arena(dice=None) -> Engine:
    """The Party (hero, archer, mage, rogue) against a guard with a +1 blade and a shield, and an orc.

    The Opponents act first in round 1 so the guard can parry before the Party attacks.
    """
    hero = fighter(
        "Hero",
        str_bonus=2,
        weapons=[Weapon(name="Axe", die="d8", magic_bonus=1), Weapon(name="Spear", die="d6", kind="reach")],
    )
    archer = fighter("Archer", awa_bonus=2, weapons=[Weapon(name="Bow", die="d6", kind="ranged")])
    mage = fighter("Mage", spells=[Spell(name="Fire", die="d6", range_ft=60)])
    rogue = fighter(
        "Rogue", dex_bonus=3, awa_bonus=2, concealed=True, weapons=[Weapon(name="Dagger", die="d4", style="finesse")]
    )
    guard = fighter(
        "Guard",
        OPP,
        stamina_max=40,
        injury_max=20,
        armor=1,
        weapons=[Weapon(name="Blade", die="d6", magic_bonus=1)],
        shield=Shield(armor=1, durability=8, durability_max=10),
    )
    orc = fighter("Orc", OPP, stamina_max=6, injury_max=3, weapons=[Weapon(name="Club", die="d6")])
    encounter = Encounter(
        map=MapGrid(width=12, height=12),
        combatants=[hero, archer, mage, rogue, guard, orc],
        tokens={
            "guard": Token(cell=(5, 5), facing=0),
            "hero": Token(cell=(4, 5), facing=90),
            "rogue": Token(cell=(5, 6), facing=0),
            "archer": Token(cell=(5, 9), facing=0),
            "mage": Token(cell=(1, 1), facing=90),
            "orc": Token(cell=(9, 5), facing=270),
        },
    )
    engine = Engine(encounter, dice=dice if dice is not None else ScriptedDice([]))
    engine.start_combat(SurpriseSituation.NOBODY, face=2)
    return engine


def guard_parries(engine: Engine, shield: bool) -> None:
    engine.begin_turn("guard")
    if shield:
        script.parry(engine, "guard", shield=True)
    else:
        script.parry(engine, "guard", weapon="Blade")
    engine.end_turn()
    engine.begin_turn("orc")
    engine.end_turn()


def no_parry(engine: Engine) -> None:
    for cid in ("guard", "orc"):
        engine.begin_turn(cid)
        engine.end_turn()


# Each scenario: set-up before the attack, the attack itself, and a check that it changed what it should.
Scenario = tuple[Callable[[Engine], None], Callable[[Engine], object], Callable[[Engine], bool]]


def _c(engine: Engine, cid: str) -> Combatant:
    return engine.encounter.combatant(cid)


SCENARIOS: dict[str, Scenario] = {
    "ranged shot with exertion": (
        lambda e: (no_parry(e), e.begin_turn("archer")),
        lambda e: script.attack(e, "archer", "guard", "Bow", faces=[5, 3, 3]),
        lambda e: _c(e, "guard").injury == 20 - (8 + 2 - 2) and _c(e, "archer").stamina == 17,
    ),
    "power attack breaks the weapon": (
        lambda e: (no_parry(e), e.begin_turn("hero")),
        lambda e: script.attack(e, "hero", "guard", "Axe", AttackMode.POWER, faces=[1, 2, 3, 4]),
        lambda e: _c(e, "hero").weapon("Axe").state is WeaponState.BROKEN and _c(e, "guard").stamina < 40,
    ),
    "weapon parry counts an explosion": (
        lambda e: (guard_parries(e, shield=False), e.begin_turn("hero")),
        lambda e: script.attack(e, "hero", "guard", "Axe", faces=[8, 1, 2]),
        lambda e: _c(e, "guard").parry is not None and _c(e, "guard").parry.explosions == 1,
    ),
    "weapon parry shatters": (
        lambda e: (guard_parries(e, shield=False), e.begin_turn("hero")),
        lambda e: script.attack(e, "hero", "guard", "Axe", faces=[8, 8, 1, 1]),
        lambda e: _c(e, "guard").parry is None and _c(e, "guard").weapon("Blade").state is WeaponState.BROKEN,
    ),
    "shield parry wears the shield": (
        lambda e: (guard_parries(e, shield=True), e.begin_turn("hero")),
        lambda e: script.attack(e, "hero", "guard", "Axe", faces=[1, 1]),
        lambda e: _c(e, "guard").shield.durability == 8 - 2 * 4,
    ),
    "shield parry destroys the shield": (
        lambda e: (guard_parries(e, shield=True), e.begin_turn("hero")),
        lambda e: script.attack(e, "hero", "guard", "Axe", faces=[7, 7]),
        lambda e: _c(e, "guard").shield.state.value == "destroyed" and _c(e, "guard").stamina < 40,
    ),
    "sneak attack ends concealment": (
        lambda e: (no_parry(e), e.begin_turn("rogue")),
        lambda e: script.attack(e, "rogue", "guard", "Dagger", AttackMode.SNEAK, faces=[15, 3, 2]),
        lambda e: not _c(e, "rogue").concealed and _c(e, "guard").injury < 20,
    ),
    "a blow that takes the target down": (
        lambda e: (no_parry(e), e.move("orc", to=(4, 4), forced=True), e.begin_turn("hero")),
        lambda e: script.attack(e, "hero", "orc", "Axe", faces=[7, 7]),
        lambda e: _c(e, "orc").down,
    ),
    "a spell": (
        lambda e: (no_parry(e), e.begin_turn("mage")),
        lambda e: script.cast(e, "mage", "orc", "Fire", faces=[2, 3]),
        lambda e: _c(e, "orc").stamina == 6 - 5,
    ),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_undo_of_an_attack_restores_everything(name):
    prepare, attack, changed = SCENARIOS[name]
    engine = arena()
    prepare(engine)
    before = state(engine)
    old_log = list(engine.encounter.log)
    events = attack(engine)
    assert changed(engine), name
    assert state(engine) != before
    assert all(e in engine.encounter.log for e in events)

    undone = engine.undo()
    assert state(engine) == before
    assert len(undone) == 1 and isinstance(undone[0], Undone)
    assert engine.encounter.log == [*old_log, undone[0]]
    assert engine.encounter.combat.turn.action is None  # the action can be taken again
    assert engine.can_redo


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_redo_replays_the_same_faces(name):
    prepare, attack, _ = SCENARIOS[name]
    engine = arena()
    prepare(engine)
    attack(engine)
    after = state(engine)
    first = [e for e in engine.encounter.log if isinstance(e, AttackResolved)][-1]
    engine.undo()
    events = engine.redo()
    again = [e for e in events if isinstance(e, AttackResolved)]
    assert len(again) == 1
    assert again[0].faces == first.faces
    assert again[0].damage == first.damage
    assert state(engine) == after
    assert not engine.can_redo


def test_redo_with_random_dice_replays_the_recorded_faces_not_new_ones():
    engine = arena(dice=RandomDice(seed=7))
    no_parry(engine)
    engine.begin_turn("hero")
    engine.edit("hero", level=12)  # 6 dice: a new roll would almost surely differ
    script.attack(engine, "hero", "guard", "Axe")
    after = state(engine)
    first = [e for e in engine.encounter.log if isinstance(e, AttackResolved)][-1]
    engine.undo()
    again = next(e for e in engine.redo() if isinstance(e, AttackResolved))
    assert again.faces == first.faces
    assert state(engine) == after


def test_undo_and_redo_a_whole_turn():
    engine = arena()
    no_parry(engine)
    start = state(engine)
    engine.begin_turn("archer")
    engine.move("archer", to=(5, 8))
    script.attack(engine, "archer", "guard", "Bow", faces=[6, 2, 4, 1])
    engine.move("archer", to=(6, 9))
    engine.end_turn()
    end = state(engine)
    for _ in range(5):
        engine.undo()
    assert state(engine) == start
    for _ in range(5):
        engine.redo()
    assert state(engine) == end
    with pytest.raises(RulesError):
        engine.redo()


def test_a_new_action_clears_redo():
    engine = arena()
    no_parry(engine)
    engine.begin_turn("archer")
    engine.undo()
    assert engine.can_redo
    engine.begin_turn("hero")
    assert not engine.can_redo
    with pytest.raises(RulesError):
        engine.redo()


def test_undo_with_nothing_to_undo():
    engine = Engine(Encounter(), dice=ScriptedDice([]))
    with pytest.raises(RulesError):
        engine.undo()


def test_undo_of_start_combat_goes_back_to_setup():
    engine = arena()
    engine.undo()
    assert engine.encounter.combat.phase.value == "setup"
    assert engine.encounter.combat.round == 0


def test_every_undo_stays_in_the_log():
    # RULES §8: every event goes into the log, undo included.
    engine = arena()
    no_parry(engine)
    engine.begin_turn("archer")
    engine.move("archer", to=(5, 8))
    engine.undo()
    engine.undo()
    undone = [e for e in engine.encounter.log if isinstance(e, Undone)]
    assert len(undone) == 2


# -- refused actions change nothing -------------------------------------------------------------


ILLEGAL: dict[str, Callable[[Engine], object]] = {
    "melee out of reach": lambda e: script.attack(e, "hero", "orc", "Axe", faces=[3, 3]),
    "reach out of reach": lambda e: script.attack(e, "hero", "orc", "Spear", faces=[3, 3]),
    "attack out of turn": lambda e: script.attack(e, "archer", "guard", "Bow", faces=[3, 3]),
    "attack oneself": lambda e: script.attack(e, "hero", "hero", "Axe", faces=[3, 3]),
    "unknown weapon": lambda e: script.attack(e, "hero", "guard", "Halberd", faces=[3, 3]),
    "dice run out in the explosions": lambda e: script.attack(e, "hero", "guard", "Axe", faces=[8, 2]),
    "a face the die does not have": lambda e: script.attack(e, "hero", "guard", "Axe", faces=[9, 2]),
    "spell through attack": lambda e: script.attack(e, "hero", "guard", "Axe", AttackMode.SPELL, faces=[3, 3]),
    "move too far": lambda e: e.move("hero", to=(10, 11)),
    "move onto an enemy": lambda e: e.move("hero", to=(5, 5)),
    "begin a second turn": lambda e: e.begin_turn("archer"),
    "parry without a shield": lambda e: script.parry(e, "hero", shield=True),
    "next round during a turn": lambda e: e.next_round(face=3),
    "bad edit": lambda e: e.edit("guard", stamina=41),
    "edit to a d7": lambda e: e.edit("hero", weapons=[{"name": "Axe", "die": "d7"}]),
    "grow onto a neighbour": lambda e: e.edit("hero", size=2),
    "shrink the map under a token": lambda e: e.apply(act.EditMap({"width": 3})),
    "a second action": lambda e: script.attack(e, "hero", "guard", "Axe", faces=[3, 3]),
    "a second move past the Move": lambda e: e.move("hero", to=(4, 0)),
}
PREPARE: dict[str, Callable[[Engine], object]] = {
    "a second action": lambda e: script.dash(e, "hero"),
    "a second move past the Move": lambda e: e.move("hero", to=(4, 8)),
}


@pytest.mark.parametrize("name", list(ILLEGAL))
def test_an_illegal_action_changes_nothing(name):
    engine = arena()
    no_parry(engine)
    engine.begin_turn("hero")
    if name in PREPARE:
        PREPARE[name](engine)
    attempt = ILLEGAL[name]
    before = engine.encounter.model_dump()
    undo_text, can_redo = engine.undo_text, engine.can_redo
    with pytest.raises(ValueError) as excinfo:
        attempt(engine)
    assert isinstance(excinfo.value, RulesError), type(excinfo.value)
    assert excinfo.value.reasons
    assert engine.encounter.model_dump() == before
    assert engine.undo_text == undo_text and engine.can_redo == can_redo


def test_an_illegal_action_raises_illegal_action_with_every_reason():
    engine = arena()
    no_parry(engine)
    engine.begin_turn("archer")
    engine.move("archer", to=(4, 6))  # 5 ft from the guard, diagonally
    with pytest.raises(IllegalAction) as excinfo:
        script.attack(engine, "archer", "guard", "Bow", AttackMode.POWER, faces=[3, 3, 3, 3, 1])
    assert len(excinfo.value.reasons) == 1 and "10 ft" in excinfo.value.reasons[0]
    checks = engine.attack_checks("archer", "guard", "Bow")
    assert [ch.label for ch in checks if ch.blocks] == ["At least 10 ft away"]


def test_apply_takes_plain_action_values():
    engine = arena()
    no_parry(engine)
    engine.apply(act.BeginTurn("hero"))
    events = engine.apply(Attack("hero", "guard", "Axe"), ScriptedDice([3, 4]))
    hit = next(e for e in events if isinstance(e, AttackResolved))
    assert hit.damage == 3 + 4 + 2 + 2 - 0 - 2
    assert engine.encounter.combatant("guard").stamina == 40 - hit.damage
