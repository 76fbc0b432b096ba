"""The undo history keeps what each action changed, not the whole encounter (bounded memory).

Structural guards, no clocks: a move's undo step holds the moved token and the turn's movement
and nothing of the other combatants, a long fight's history holds no combatant at all, the
history per round does not grow with the number of bystanders, and undo still puts back the
exact state (values, set fields, the objects themselves) for the kinds of change it stores
compactly: lists cut back, items put back, combatants replaced by an edit, removed or added.
"""

from __future__ import annotations

import gc
import types
from typing import Any

from pydantic import BaseModel

from lnl_desktop.core import Combatant, Encounter, Engine, MapGrid, RandomDice, Side, Token, Weapon
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import TurnState
from lnl_desktop.core.rules.lnl import script

PARTY, OPP = Side.PARTY, Side.OPPONENTS


def fighter(name: str, side: Side = PARTY, **fields: Any) -> Combatant:
    data: dict[str, Any] = {
        "name": name,
        "side": side,
        "level": 3,
        "stamina_max": 200,
        "injury_max": 100,
        "weapons": [Weapon(name="Sword", die="d6"), Weapon(name="Bow", die="d6", kind="ranged")],
    }
    data.update(fields)
    return Combatant(**data)


def duel(bystanders: int = 0, seed: int = 1) -> Engine:
    """Ana and Orc face to face in the middle; ``bystanders`` Opponents far away, all down."""
    combatants = [fighter("Ana"), fighter("Orc", OPP)]
    tokens = {"ana": Token(cell=(10, 10), facing=90), "orc": Token(cell=(11, 10), facing=270)}
    for n in range(bystanders):
        # Down (0 IP): they take no turns, so only the duel changes anything.
        combatants.append(fighter(f"Bystander {n}", OPP, injury=0))
        tokens[f"bystander-{n}"] = Token(cell=(n % 20, 20 + n // 20))
    encounter = Encounter(map=MapGrid(width=30, height=30), combatants=combatants, tokens=tokens)
    engine = Engine(encounter, RandomDice(seed))
    engine.start_combat(face=4)
    return engine


def play_round(engine: Engine) -> None:
    """Each fighter steps aside and back, attacks the other and ends the turn; the GM heals; next round."""
    take_turns(engine)
    for c in list(engine.encounter.combatants):
        if not c.id.startswith("bystander") and (c.stamina < c.stamina_max or c.injury < c.injury_max):
            engine.edit(c.id, stamina=c.stamina_max, injury=c.injury_max)
    engine.next_round()


def take_turns(engine: Engine) -> None:
    while engine.waiting():
        who = engine.waiting()[0].id
        foe = "orc" if who == "ana" else "ana"
        engine.begin_turn(who)
        x, y = engine.encounter.tokens[who].cell
        engine.move(who, (x, y - 1))
        engine.move(who, (x, y))
        script.attack(engine, who, foe, "Sword")
        engine.end_turn()


def last_step_paths(engine: Engine) -> list[tuple[Any, ...]]:
    """Where the last undo step's kept values go (the engine's private record, read for this guard)."""
    change = engine._undo[-1].change
    assert change is not None
    return [path for path, _ in change.leaves]


def held_by_history(engine: Engine) -> list[object]:
    """Every object the undo history holds that the encounter does not hold itself."""

    def reachable(root: object, skip: set[int]) -> list[object]:
        found: list[object] = []
        stack = [root]
        while stack:
            item = stack.pop()
            if id(item) in skip or isinstance(item, type | types.ModuleType | types.FunctionType):
                continue
            skip.add(id(item))
            found.append(item)
            stack.extend(gc.get_referents(item))
        return found

    in_encounter: set[int] = set()
    reachable(engine.encounter, in_encounter)
    return reachable(engine._undo, in_encounter)


def state(engine: Engine) -> dict[str, Any]:
    return engine.encounter.model_dump(exclude={"log"})


def test_a_moves_undo_step_holds_the_moved_token_and_the_turns_movement_only() -> None:
    engine = duel(bystanders=30)
    engine.begin_turn("ana")
    engine.move("ana", (10, 9))
    paths = last_step_paths(engine)
    assert paths, "the move changed something"
    assert all(p[:2] == ("tokens", "ana") or p[:2] == ("combat", "turn") for p in paths), paths
    held = held_by_history(engine)
    assert not [o for o in held if isinstance(o, Combatant | Token | Encounter)]


def test_an_attacks_undo_step_holds_the_targets_points_not_the_combatants() -> None:
    engine = duel(bystanders=5)
    engine.begin_turn("ana")
    script.attack(engine, "ana", "orc", "Sword", faces=[4, 3])
    orc = engine.encounter.combatants.index(engine.combatant("orc"))
    touched = {p[:2] for p in last_step_paths(engine) if p[0] == "combatants"}
    assert touched == {("combatants", orc)}


def test_a_long_fights_history_holds_no_combatant_and_a_few_objects_per_action() -> None:
    engine = duel()
    for _ in range(20):
        play_round(engine)
    steps = len(engine._undo)
    held = held_by_history(engine)
    assert not [o for o in held if isinstance(o, Combatant | Encounter)]
    # The turn put back by undoing an end of turn is the one model a step keeps whole.
    turns = [o for o in held if isinstance(o, TurnState)]
    assert len(turns) <= steps // 4
    assert len(held) < 30 * steps, f"{len(held)} objects for {steps} steps"


def test_the_history_of_a_round_does_not_grow_with_the_bystanders() -> None:
    def kept_in_five_rounds(bystanders: int) -> tuple[int, int]:
        """(values kept, models kept) by five rounds' undo steps."""
        engine = duel(bystanders)
        # The first new round marks everyone "not surprised" (a field set once): not counted.
        play_round(engine)
        steps = len(engine._undo)
        for _ in range(5):
            play_round(engine)
        changes = [r.change for r in engine._undo[steps:]]
        leaves = [leaf for change in changes if change is not None for leaf in change.leaves]
        models = [o for o in held_by_history(engine) if isinstance(o, BaseModel)]
        return len(leaves), len(models)

    assert kept_in_five_rounds(40) == kept_in_five_rounds(0)


def test_undo_puts_back_the_same_objects_and_the_set_fields() -> None:
    engine = duel(bystanders=2)
    bystander = engine.combatant("bystander-0")
    fields_before = engine.combatant("ana").model_fields_set
    before = state(engine)
    engine.edit("ana", level=5)  # the edit makes a new Combatant with every field set
    assert engine.combatant("ana").model_fields_set != fields_before
    engine.undo()
    assert state(engine) == before
    assert engine.combatant("ana").model_fields_set == fields_before
    assert engine.combatant("bystander-0") is bystander  # untouched objects are not swapped


def test_lists_cut_back_and_items_put_back_come_back_exactly() -> None:
    engine = duel()
    play_round(engine)
    take_turns(engine)  # the attacks of this round and the one before are remembered
    assert len(engine.encounter.combat.attacks) == 4
    before = state(engine)
    engine.next_round()  # forgets the older round's attacks, empties the acted list
    assert len(engine.encounter.combat.attacks) == 2
    engine.undo()
    assert state(engine) == before
    engine.redo()
    engine.begin_turn(engine.waiting()[0].id)
    path_before = list(engine.encounter.combat.turn.path)  # type: ignore[union-attr]
    engine.move(engine.encounter.combat.turn.combatant, (12, 12))  # type: ignore[union-attr]
    engine.undo()
    assert engine.encounter.combat.turn.path == path_before  # type: ignore[union-attr]


def test_removing_and_adding_combatants_undo_and_redo_exactly() -> None:
    engine = duel(bystanders=3)
    start = state(engine)
    engine.apply(act.RemoveCombatant("bystander-1"))
    removed = state(engine)
    engine.apply(
        act.AddCombatant({"name": "Ghost", "side": "Opponents", "level": 1, "stamina_max": 5, "injury_max": 3})
    )
    added = state(engine)
    engine.undo()
    assert state(engine) == removed
    engine.undo()
    assert state(engine) == start
    assert [c.id for c in engine.encounter.combatants][2:] == ["bystander-0", "bystander-1", "bystander-2"]
    engine.redo()
    engine.redo()
    assert state(engine) == added


def test_log_events_share_their_field_sets_and_copies_stay_apart() -> None:
    engine = duel()
    engine.begin_turn("ana")
    engine.move("ana", (10, 9))
    engine.move("ana", (10, 10))
    first, second = engine.encounter.log[-2:]
    assert first.model_fields_set is second.model_fields_set  # one set for events made alike
    copy = first.model_copy(update={"text": "changed"})
    assert copy.text == "changed" and second.text != "changed"
    assert first.model_fields_set == second.model_fields_set


def test_a_second_creature_of_a_kind_numbers_both_and_one_undo_takes_both_back() -> None:
    engine = duel()
    orc = {"name": "Orc", "side": "Opponents", "level": 1, "stamina_max": 5, "injury_max": 3}
    start = state(engine)
    engine.apply(act.AddCombatant(orc))
    names = [c.name for c in engine.encounter.combatants]
    assert names[1:] == ["Orc 1", "Orc 2"]
    assert engine.encounter.log[-1].text == "Orc 2 joins the Opponents (Orc is now Orc 1)"
    engine.apply(act.AddCombatant(orc))
    assert [c.name for c in engine.encounter.combatants][1:] == ["Orc 1", "Orc 2", "Orc 3"]
    engine.undo()
    engine.undo()
    assert state(engine) == start
    assert [c.name for c in engine.encounter.combatants][1:] == ["Orc"]
    # A name that ends in a number is the GM's own: it is not renamed.
    engine.apply(act.AddCombatant({**orc, "name": "Guard 7"}))
    engine.apply(act.AddCombatant({**orc, "name": "Guard 7"}))
    assert [c.name for c in engine.encounter.combatants][2:] == ["Guard 7", "Guard 7 2"]
