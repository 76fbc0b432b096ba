"""The engine's occupancy index (who covers each cell) agrees with one worked out afresh from every
token after any sequence of moves, placings, removals, size and side changes, knock-downs, undos and
redos; and a move still refuses an occupied cell and cannot pass an enemy that stands."""

from __future__ import annotations

import random
from typing import Any

import pytest

from lnl_desktop.core import Combatant, Encounter, Engine, MapGrid, RandomDice, Side, Token, Weapon
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.occupancy import rebuilt_blockers
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map.grid import footprint

PARTY, OPP = Side.PARTY, Side.OPPONENTS


def fighter(name: str, side: Side, **fields: Any) -> Combatant:
    return Combatant(
        name=name, side=side, level=2, stamina_max=20, injury_max=10, weapons=[Weapon(name="Sword", die="d6")], **fields
    )


def table(count: int, seed: int) -> Engine:
    rng = random.Random(seed)
    combatants = [fighter(f"Fighter {n}", PARTY if n % 3 == 0 else OPP) for n in range(count)]
    cells = rng.sample([(x, y) for x in range(12) for y in range(12)], count)
    tokens = {c.id: Token(cell=cell) for c, cell in zip(combatants, cells, strict=True) if rng.random() < 0.8}
    return Engine(Encounter(map=MapGrid(width=12, height=12), combatants=combatants, tokens=tokens), RandomDice(seed))


def by_hand(engine: Engine, cid: str) -> tuple[frozenset, frozenset]:
    """What bars ``cid``'s way read straight off the tokens, as the rules say it (no index involved)."""
    e = engine.encounter
    mover = e.combatant(cid)
    enemies, occupied = set(), set()
    for c in e.combatants:
        token = e.tokens.get(c.id)
        if token is None or c.id == cid:
            continue
        cells = footprint(token.cell, c.size)
        occupied.update(cells)
        if c.side is not mover.side and not c.down:
            enemies.update(cells)
    return frozenset(enemies), frozenset(occupied)


def random_action(engine: Engine, rng: random.Random) -> act.Action:
    e = engine.encounter
    c = rng.choice(e.combatants)
    cell = (rng.randrange(12), rng.randrange(12))
    kind = rng.randrange(8)
    if kind <= 2:
        return act.Move(c.id, cell, forced=True) if c.id in e.tokens else act.PlaceToken(c.id, cell)
    if kind == 3:
        return act.RemoveToken(c.id) if c.id in e.tokens else act.PlaceToken(c.id, cell)
    if kind == 4:
        return act.EditCombatant(c.id, {"size": rng.choice((1, 1, 2))})
    if kind == 5:
        return act.EditCombatant(c.id, {"side": rng.choice(list(Side))})
    if kind == 6:
        return act.DamageByHand(c.id, rng.choice((5, 40)), heal=rng.random() < 0.3)
    if rng.random() < 0.5:
        return act.RemoveCombatant(c.id)
    return act.AddCombatant({"name": "Newcomer", "side": rng.choice(list(Side)), "level": 1}, cell=cell)


@pytest.mark.parametrize("seed", range(6))
def test_the_kept_index_agrees_with_one_worked_out_afresh_after_actions_undos_and_redos(seed: int) -> None:
    engine = table(14, seed)
    rng = random.Random(seed)
    applied = refused = 0
    for _ in range(160):
        roll = rng.random()
        try:
            if roll < 0.2 and engine.can_undo:
                engine.undo()
            elif roll < 0.3 and engine.can_redo:
                engine.redo()
            else:
                engine.apply(random_action(engine, rng))
                applied += 1
        except RulesError:
            refused += 1  # refused: changes nothing, the index must still agree
        for c in engine.encounter.combatants:
            kept = engine.blockers(c.id)
            assert kept == by_hand(engine, c.id), (seed, c.id)
            assert kept == rebuilt_blockers(engine.encounter, c.id)
    assert applied > 60 and refused > 0  # the sequence did move, place, edit and get refused


def test_a_move_through_the_index_refuses_an_occupied_cell_and_passes_no_standing_enemy() -> None:
    combatants = [fighter("Ana", PARTY), fighter("Orc", OPP), fighter("Bo", PARTY)]
    tokens = {"ana": Token(cell=(0, 1)), "orc": Token(cell=(1, 1)), "bo": Token(cell=(3, 3))}
    encounter = Encounter(map=MapGrid(width=5, height=5), combatants=combatants, tokens=tokens)
    engine = Engine(encounter, RandomDice(1))
    with pytest.raises(RulesError):
        engine.apply(act.Move("ana", (1, 1), forced=True))  # the Orc stands there
    engine.apply(act.Move("orc", (2, 2), forced=True))
    engine.apply(act.Move("ana", (1, 1), forced=True))  # free now: the index followed the Orc
    assert engine.encounter.tokens["ana"].cell == (1, 1)
    engine.undo()
    enemies, occupied = engine.blockers("ana")
    assert enemies == {(2, 2)} and occupied == {(2, 2), (3, 3)}
    engine.undo()  # the Orc back on (1, 1)
    assert engine.blockers("ana") == (frozenset({(1, 1)}), frozenset({(1, 1), (3, 3)}))
