"""The undo shadow compares only where an action declared it may write, and misses nothing.

A move, a turn of the facing, a token hidden, placed or taken off, a door, the fog: each of the engine's
handlers names where it writes (a token, a combatant, the combat state, the fog), and the shadow compares
just those containers and the encounter's parts instead of every combatant. These tests play whole fights
of every ruleset's demo (attacks, counter-attacks queued by a move, turns, rounds) with the check on that
compares the encounter in full after every declared action as well, so an undeclared write fails; they
replay the same fight on an engine that declares nothing and find the very same undo records; and undo
and redo still put every state back exactly.
"""

from __future__ import annotations

from typing import Any

import pytest

from lnl_desktop.core.dice.rolls import RandomDice, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter, Side
from lnl_desktop.core.engine import history
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.engine.history import HistoryStep
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.fight import MAX_ROUNDS
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.core.sim.field import battlefield, simulator
from lnl_desktop.paths import resource

RULESETS = ("lnl", "classic", "osr", "d10")


@pytest.fixture(autouse=True)
def verified(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every declared action is compared in full as well: a write outside its declaration fails."""
    monkeypatch.setattr(history, "VERIFY_DECLARED_WRITES", True)


def demo(ruleset: str) -> Encounter:
    name = get_ruleset(ruleset).demo()
    assert name is not None
    return storage.load(resource("encounters", name))


def snapshot(engine: Engine) -> tuple[dict[str, Any], list[object]]:
    e = engine.encounter
    sets = [sorted(c.model_fields_set) for c in e.combatants] + [
        (cid, sorted(t.model_fields_set)) for cid, t in e.tokens.items()
    ]
    return e.model_dump(exclude={"log"}), sets


def leaves(engine: Engine) -> list[tuple[tuple[object, ...], object]]:
    """The last action's undo record, its kept values made comparable."""
    change = engine._undo[-1].change
    assert change is not None and not isinstance(change, history._Swap)
    out = []
    for path, value in change.leaves:
        if isinstance(value, history._Cut):
            value = ("cut", value.length)
        elif isinstance(value, history._Reinsert):
            value = ("reinsert", value.items)
        elif isinstance(value, history._Cells):  # the explored cells' flat indices
            value = ("cells", sorted(value.added.tolist()), sorted(value.removed.tolist()))
        elif isinstance(value, history._Delta):
            value = ("delta", value.added, value.removed)
        elif isinstance(value, history._Keys):
            value = ("keys", value.order, value.gone)
        out.append((tuple("fields set" if key is history._FIELDS_SET else key for key in path), value))
    return out


def party_and_foe(engine: Engine) -> tuple[str, str]:
    e = engine.encounter
    party = next(c.id for c in e.combatants if c.side is Side.PARTY and c.id in e.tokens)
    foe = next(c.id for c in e.combatants if c.side is not Side.PARTY and c.id in e.tokens)
    return party, foe


def free_cell(engine: Engine, near: tuple[int, int]) -> tuple[int, int]:
    e = engine.encounter
    taken = {cell for cell in e.occupied_by()} | set(e.map.walls)
    x, y = near
    for r in range(1, 6):
        for cell in ((x + r, y), (x - r, y), (x, y + r), (x, y - r)):
            if cell not in taken and 0 <= cell[0] < e.map.width and 0 <= cell[1] < e.map.height:
                return cell
    raise AssertionError("no free cell near the Party")


def the_map_actions(engine: Engine) -> None:
    """Every declared kind before the fight: the fog, a door, a Party member turned, hidden, moved, taken
    off and placed again."""
    party, foe = party_and_foe(engine)
    e = engine.encounter
    x, y = e.tokens[party].cell
    if not e.fog.enabled:
        engine.apply(act.SetFog(True))
    hidden = [(cx, cy) for cy in range(e.map.height) for cx in range(e.map.width) if (cx, cy) not in e.fog.explored]
    engine.apply(act.RevealCells(tuple(hidden[-2:])))
    engine.apply(act.AddWall((x + 3.0, y - 1.0), (x + 3.0, y + 2.0), door=True))
    engine.apply(act.SetDoor((x + 3.0, y - 1.0), (x + 3.0, y + 2.0), True))
    engine.apply(act.Face(party, (e.tokens[party].facing + 90) % 360))
    engine.apply(act.SetHidden(foe, not e.tokens[foe].hidden))
    engine.apply(act.SetHidden(party, True))
    engine.apply(act.SetHidden(party, False))
    there = free_cell(engine, (x, y))
    engine.apply(act.Move(party, there, forced=True))
    engine.apply(act.Move(party, (x, y), forced=True))
    engine.apply(act.RemoveToken(party))
    engine.apply(act.PlaceToken(party, (x, y), 90))
    engine.apply(act.RemoveWall((x + 3.0, y - 1.0), (x + 3.0, y + 2.0)))


def played(ruleset: str, seed: int) -> tuple[Engine, list[HistoryStep], list[Any]]:
    """A demo fought through: the map's actions, then the ruleset's own tactic round after round."""
    engine = Engine(demo(ruleset), RandomDice(seed))
    steps: list[HistoryStep] = []
    records: list[Any] = []
    states = [snapshot(engine)]

    def heard(step: HistoryStep) -> None:
        steps.append(step)
        records.append(leaves(engine))
        states.append(snapshot(engine))

    engine.subscribe_history(heard)
    the_map_actions(engine)
    simulator(engine.ruleset).play(engine, battlefield(engine), MAX_ROUNDS)
    engine._history_listeners.remove(heard)
    return engine, steps, [records, states]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_whole_fight_writes_only_where_each_action_declared_and_undo_puts_every_state_back(ruleset: str) -> None:
    engine, steps, (records, states) = played(ruleset, seed=5)
    kinds = {type(step.action) for step in steps}
    assert {act.Move, act.Face, act.SetHidden, act.PlaceToken, act.SetDoor, act.BeginTurn, act.EndTurn} <= kinds
    assert any(isinstance(step.action, act.Move) and not step.action.forced for step in steps)  # moves in turns
    assert len(steps) > 20
    # The same actions with the same dice on an engine that declares nothing: the same undo records.
    full = Engine(demo(ruleset), RandomDice(0))
    full._writes = {}  # type: ignore[misc]
    for step, record in zip(steps, records, strict=True):
        assert step.action is not None
        full.apply(step.action, ScriptedDice(step.faces))
        assert leaves(full) == record, type(step.action).__name__
    # Undo goes back through every state; redo comes forward through them again.
    for expected in reversed(states[:-1]):
        engine.undo()
        assert snapshot(engine) == expected
    for expected in states[1:]:
        engine.redo()
        assert snapshot(engine) == expected


def test_an_undeclared_write_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    # A move that says it writes only its token, while its turn's feet and path change too.
    monkeypatch.setitem(Engine._writes, act.Move, lambda a: frozenset({("tokens", a.combatant)}))
    engine = Engine(demo("lnl"), RandomDice(1))
    party, _ = party_and_foe(engine)
    engine.apply(act.Move(party, free_cell(engine, engine.encounter.tokens[party].cell), forced=True))  # no turn
    engine.start_combat()
    who = engine.waiting()[0].id
    engine.begin_turn(who)
    start = engine.encounter.tokens[who].cell
    with pytest.raises(AssertionError, match="did not declare"):
        engine.apply(act.Move(who, free_cell(engine, start)))


def test_a_move_among_hundreds_compares_its_own_token_combatant_and_the_combat_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine = Engine(demo("lnl"), RandomDice(1))
    e = engine.encounter
    # 400 more Opponents, each with its token: the shadow lists thousands of containers.
    template = next(c for c in e.combatants if c.side is Side.OPPONENTS)
    for n in range(400):
        e.combatants.append(template.model_copy(update={"id": f"extra{n}", "name": f"Extra {n}"}, deep=True))
        e.tokens[f"extra{n}"] = e.tokens[template.id].model_copy(update={"cell": (n % 40, 60 + n // 40)})
    engine.replace(e)
    party, _ = party_and_foe(engine)
    start = e.tokens[party].cell
    engine.apply(act.Move(party, free_cell(engine, start), forced=True))  # the shadow is made
    shadow = engine._shadow
    assert shadow is not None and len(shadow.entries) > 2000
    looked: list[int] = []
    compare = history._Shadow._dirty

    def counting(self: history._Shadow, writes: history.Writes = None) -> list[int]:
        if writes is not None:
            looked.append(len(self.tops) + sum(len(self.roots.get(root, ())) for root in writes))
        return compare(self, writes)

    monkeypatch.setattr(history, "VERIFY_DECLARED_WRITES", False)
    monkeypatch.setattr(history._Shadow, "_dirty", counting)
    engine.apply(act.Move(party, start, forced=True))
    assert looked and max(looked) < 40  # not thousands
    assert engine.encounter.tokens[party].cell == start
    engine.undo()
    assert engine.encounter.tokens[party].cell != start
    assert len(looked) == 2 and max(looked) < 40  # the undo follows the same few
