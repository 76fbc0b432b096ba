"""Who the players cannot see, worked out in bulk, is who a look at each token one by one finds.

``players_unseen`` runs after every action on maps of hundreds of tokens, so it checks them in a few
array steps; here it is compared on seeded crowds (sizes 1 to 3, hidden ones, some combatants off the
map altogether, a wall the Party cannot see past, fog on and off, the dark with a torch) with the
rule itself read token by token.
"""

from __future__ import annotations

import random

import pytest

from lnl_desktop.core import Combatant, Encounter, Engine, MapGrid, Side, Token
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.party_view import party_light, party_sight, players_unseen
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map.light import DIM


def one_by_one(encounter: Encounter) -> frozenset[str]:
    """The rule read plainly: hidden by the GM, or not of the Party with no cell of its footprint both
    seen by the Party (fog on) and lit for it (in the dark)."""
    levels = party_light(encounter)
    sight = party_sight(encounter).mask if encounter.fog.enabled else None
    h, w = encounter.map.height, encounter.map.width
    unseen = set()
    for c in encounter.combatants:
        token = encounter.tokens.get(c.id)
        if token is None:
            continue
        if token.hidden:
            unseen.add(c.id)
            continue
        if c.side is Side.PARTY or (sight is None and levels is None):
            continue
        x, y = token.cell
        cells = [(x + i, y + j) for i in range(c.size) for j in range(c.size) if x + i < w and y + j < h]
        if not (0 <= x < w and 0 <= y < h):
            cells = []

        def shown(cx: int, cy: int) -> bool:
            return bool((sight is None or sight[cy, cx]) and (levels is None or levels[cy, cx] >= DIM))

        if not any(shown(cx, cy) for cx, cy in cells):
            unseen.add(c.id)
    return frozenset(unseen)


def crowd(seed: int, *, fog: bool) -> Encounter:
    rng = random.Random(seed)
    wall = {(15, y) for y in range(30)}  # the Party (left of it) cannot see beyond
    combatants, tokens, taken = [], {}, set(wall)
    for n in range(60):
        side = Side.PARTY if n < 4 else Side.OPPONENTS
        size = 1 if n < 4 or rng.random() < 0.8 else rng.choice((2, 3))
        cid = f"c{n}"
        combatants.append(Combatant(id=cid, name=f"C {n}", side=side, level=1, stamina_max=4, injury_max=3, size=size))
        if rng.random() < 0.1:
            continue  # not on the map
        for _ in range(50):
            x, y = rng.randrange(10 if side is Side.PARTY else 31 - size), rng.randrange(31 - size)
            cells = {(x + i, y + j) for i in range(size) for j in range(size)}
            if not cells & taken:
                taken |= cells
                tokens[cid] = Token(cell=(x, y), facing=rng.randrange(8) * 45, hidden=rng.random() < 0.1)
                break
    encounter = Encounter(map=MapGrid(width=30, height=30, walls=frozenset(wall)), combatants=combatants, tokens=tokens)
    encounter.fog.enabled = fog
    return encounter


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("fog", [True, False])
def test_players_unseen_agrees_with_the_rule_read_token_by_token(seed: int, fog: bool) -> None:
    encounter = crowd(seed, fog=fog)
    assert players_unseen(encounter) == one_by_one(encounter)
    if fog:
        assert players_unseen(encounter) - {cid for cid, t in encounter.tokens.items() if t.hidden}  # some unseen


@pytest.mark.parametrize("seed", range(3))
def test_in_the_dark_with_a_torch_too(seed: int) -> None:
    engine = Engine(crowd(seed, fog=seed % 2 == 0))
    engine.apply(act.PlaceLight(kind="torch", carrier="c0"))
    engine.apply(act.SetAmbientLight("dark"))
    assert party_light(engine.encounter) is not None
    assert players_unseen(engine.encounter) == one_by_one(engine.encounter)


def random_step(engine: Engine, rng: random.Random) -> None:
    """One change of any kind the players' view reads: a move, a turn, a hide, a token placed or taken
    off, a size or side changed, a combatant added or removed, an undo, a redo (refusals included)."""
    e = engine.encounter
    c = rng.choice(e.combatants)
    cell = (rng.randrange(30), rng.randrange(30))
    roll = rng.random()
    try:
        if roll < 0.1 and engine.can_undo:
            engine.undo()
        elif roll < 0.15 and engine.can_redo:
            engine.redo()
        elif roll < 0.5:
            engine.apply(act.Move(c.id, cell, forced=True) if c.id in e.tokens else act.PlaceToken(c.id, cell))
        elif roll < 0.6:
            engine.apply(act.Face(c.id, rng.randrange(8) * 45))
        elif roll < 0.7:
            engine.apply(act.SetHidden(c.id, rng.random() < 0.5))
        elif roll < 0.77:
            engine.apply(act.RemoveToken(c.id) if c.id in e.tokens else act.PlaceToken(c.id, cell))
        elif roll < 0.85:
            engine.apply(act.EditCombatant(c.id, {"size": rng.choice((1, 1, 2))}))
        elif roll < 0.92:
            engine.apply(act.EditCombatant(c.id, {"side": rng.choice(list(Side))}))
        elif roll < 0.96:
            engine.apply(act.RemoveCombatant(c.id))
        else:
            data = {"name": "Newcomer", "side": rng.choice(list(Side)), "level": 1, "stamina_max": 4, "injury_max": 3}
            engine.apply(act.AddCombatant(data, cell))
    except RulesError:
        pass  # refused: nothing changed, the table must still agree


@pytest.mark.parametrize("seed", range(4))
def test_the_engines_kept_table_agrees_with_a_fresh_look_after_every_change(seed: int) -> None:
    engine = Engine(crowd(seed, fog=True))
    rng = random.Random(seed)
    for _ in range(150):
        random_step(engine, rng)
        assert engine.players_unseen() == players_unseen(engine.encounter) == one_by_one(engine.encounter)
    engine.apply(act.SetFog(False))
    assert engine.players_unseen() == one_by_one(engine.encounter)
