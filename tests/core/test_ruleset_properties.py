"""Properties every ruleset must keep (hypothesis), whatever its stat block and round procedure.

For each registered ruleset, random encounters are built and played through the engine from
what the ruleset itself describes: its bestiary (or creatures of another ruleset passed through
its ``convert``), its sheet's numbers, its start procedure's situations, its action kinds and
the means it offers for them. Then:

- every state the engine reaches saves and loads back to an equal encounter;
- a refused action changes nothing;
- undo of every applied action (random undos and redos mixed in, conversions to another
  ruleset included) brings the encounter back exactly, as ``model_dump`` sees it.

Nothing here names a ruleset: a new one is tested the moment it is registered.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from lnl_desktop.core import (
    Engine,
    MapGrid,
    RandomDice,
    RulesError,
    Side,
)
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Undone
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.registry import Ruleset, all_rulesets

RULESETS = all_rulesets()
CHECK = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
SIDES = list(Side)


# -- what each ruleset offers, found through its own descriptions ---------------------------------


def _valid(ruleset: Ruleset, data: dict[str, Any]) -> bool:
    try:
        ruleset.stat_block.model_validate(data | {"side": SIDES[-1].value})
    except ValidationError:
        return False
    return True


_POOLS: dict[str, list[dict[str, Any]]] = {}


def creature_pool(ruleset: Ruleset) -> list[dict[str, Any]]:
    """The ruleset's bestiary, then every other ruleset's creatures passed through its ``convert``."""
    if ruleset.name not in _POOLS:
        pool = list(ruleset.bestiary())
        for other in RULESETS.values():
            if other.name == ruleset.name:
                continue
            for creature in other.bestiary():
                dump = other.stat_block.model_validate(creature | {"side": SIDES[-1].value}).model_dump(mode="json")
                data, _ = ruleset.convert(dump, other)
                data = {k: v for k, v in data.items() if k not in ("id", "side")}
                if _valid(ruleset, data):
                    pool.append(data)
        _POOLS[ruleset.name] = pool
    return _POOLS[ruleset.name]


def sheet_keys(ruleset: Ruleset) -> list[str]:
    """The whole-number fields the sheet edits (level, SP, HP...), and the shared ones every sheet has."""
    spec = ruleset.views.sheet()
    keys = [key for row in (*spec.identity, *spec.numbers) for key in row.keys]
    return [*keys, "move_ft", "vision_deg", "concealed", "distracted"]


def sheet_rows(ruleset: Ruleset) -> dict[str, Any]:
    spec = ruleset.views.sheet()
    return {key: row for row in (*spec.identity, *spec.numbers) for key in row.keys}


def extras(draw: Any, spec: Any, means: list[str]) -> dict[str, Any]:
    """Values for an action's own inputs (cover, a second weapon...), as the Action dock would offer."""
    values: dict[str, Any] = {}
    for setting in spec.extras:
        if draw(st.integers(0, 2)):
            values[setting.key] = setting.default
        elif setting.kind == "int":
            values[setting.key] = draw(st.integers(setting.low, setting.high))
        elif setting.kind == "choice":
            values[setting.key] = draw(st.sampled_from(setting.choices))
        elif setting.kind == "bool":
            values[setting.key] = draw(st.booleans())
        else:
            values[setting.key] = draw(st.sampled_from(["", *means]))
    return values


def state(engine: Engine) -> tuple[dict[str, Any], list[Any]]:
    dump = engine.encounter.model_dump()
    return dump, dump.pop("log")


def story(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log without its undo lines (every undo stays in the log: RULES §8)."""
    return [entry for entry in log if entry["kind"] != Undone.model_fields["kind"].default]


# -- random actions, built from the ruleset's descriptions -----------------------------------------

faces = st.one_of(st.none(), st.integers(1, 6))

# What a GM does at each moment of an encounter, most likely first (repeats weigh a kind more).
_ALWAYS = ["edit", "edit", "face", "forced", "undo", "undo", "redo", "walls"]
_KINDS = {
    "setup": [*_ALWAYS, "add", "add", "remove", "move", "place", "unplace", "paint", "map", "options", "convert"]
    + ["start"] * 6,
    "between turns": [*_ALWAYS, *["begin"] * 6, "next", "end combat", "act", "declare"],
    "round over": [*_ALWAYS, "next", "next", "next", "next", "begin", "end combat"],
    "in a turn": [*_ALWAYS, *["act"] * 6, *["approach"] * 3, "move", "end turn", "begin", "remove"],
    "acted": [*_ALWAYS, *["end turn"] * 5, "approach", "move", "act"],
    "ended": [*_ALWAYS, "start", "start", "remove", "add", "convert"],
}


def _moment(engine: Engine) -> str:
    combat = engine.encounter.combat
    if combat.phase is Phase.SETUP:
        return "setup"
    if combat.phase is Phase.ENDED:
        return "ended"
    if combat.turn is not None:
        return "acted" if combat.turn.action else "in a turn"
    return "round over" if engine.round_over else "between turns"


@st.composite
def actions(draw: Any, engine: Engine) -> act.Action | str | None:
    """A random action for the encounter as it is now; 'undo' or 'redo'; None when there is nothing to draw."""
    e = engine.encounter
    ruleset = engine.ruleset
    ids = [c.id for c in e.combatants] or ["nobody"]
    turn = e.combat.turn
    me = turn.combatant if turn is not None and draw(st.integers(0, 3)) else draw(st.sampled_from(ids))
    cells = st.tuples(st.integers(0, e.map.width - 1), st.integers(0, e.map.height - 1))
    kind = draw(st.sampled_from(_KINDS[_moment(engine)]))
    if kind in ("undo", "redo"):
        return kind
    declaring = ruleset.rounds.declarations(engine)
    if (
        declaring is not None
        and e.combatants
        and (kind == "declare" or (declaring.missing and draw(st.integers(0, 1))))
    ):
        # A ruleset with a declare phase: a missing declaration first (else combat never starts), or any.
        who = draw(st.sampled_from(list(declaring.missing) or ids))
        return declaring.build(who, draw(st.sampled_from([key for key, _ in declaring.choices])))
    if kind == "add":
        pool = creature_pool(ruleset)
        if not pool:
            return None
        creature = draw(st.sampled_from(pool))
        side = draw(st.sampled_from(SIDES))
        cell = draw(st.one_of(st.none(), cells))
        return act.AddCombatant(creature | {"side": side.value}, cell, draw(st.sampled_from([0, 90, 180, 270])))
    if kind == "remove":
        return act.RemoveCombatant(me)
    if kind == "edit":
        if not e.combatants:
            return None
        c = e.combatant(me)
        key = draw(st.sampled_from(sheet_keys(ruleset)))
        row = sheet_rows(ruleset).get(key)
        now = getattr(c, key, 0)
        if row is not None and row.kind == "text":
            return act.EditCombatant(me, {key: draw(st.sampled_from(["", "Boss", "Wolves"]))})
        if row is not None and row.kind == "choice":
            return act.EditCombatant(me, {key: draw(st.sampled_from(row.choices))})
        if row is not None and row.kind == "optional int" and (now is None or not draw(st.integers(0, 3))):
            return act.EditCombatant(me, {key: None if now is not None else draw(st.integers(-1, 14))})
        if isinstance(now, bool):
            return act.EditCombatant(me, {key: not now})
        return act.EditCombatant(me, {key: now + draw(st.integers(-12, 6))})  # damage, mostly
    if kind in ("move", "forced"):
        return act.Move(me, to=draw(cells), forced=kind == "forced")
    if kind == "approach":
        # As close to a creature of the other side as this turn's movement allows (the engine says where).
        if me not in e.tokens:
            return None
        c = e.combatant(me)
        foes = [f for f in e.combatants if f.side is not c.side and f.id in e.tokens]
        if not foes:
            return None
        fx, fy = e.tokens[draw(st.sampled_from(foes)).id].cell
        cells_left = sorted(engine.reach(me).cells() - {e.tokens[me].cell})
        if not cells_left:
            return None
        closest = min(cells_left, key=lambda cell: max(abs(cell[0] - fx), abs(cell[1] - fy)))
        return act.Move(me, to=closest if draw(st.integers(0, 3)) else draw(st.sampled_from(cells_left)))
    if kind == "face":
        return act.Face(me, draw(st.sampled_from([0, 45, 90, 180, 270])))
    if kind == "place":
        return act.PlaceToken(me, draw(cells), draw(st.sampled_from([0, 90, 180, 270])))
    if kind == "unplace":
        return act.RemoveToken(me)
    if kind == "walls":
        return map_action(draw, e.map, cells)
    if kind == "paint":
        return act.PaintTerrain(draw(st.sampled_from(["walls", "difficult"])), (draw(cells),), draw(st.booleans()))
    if kind == "map":
        key = draw(st.sampled_from(["width", "height", "feet_per_cell"]))
        return act.EditMap({key: draw(st.integers(3, 12) if key != "feet_per_cell" else st.sampled_from([5, 10]))})
    if kind == "options":
        switches = [k for k, v in e.options.model_dump().items() if isinstance(v, bool)]
        if not switches:
            return None
        key = draw(st.sampled_from(switches))
        return act.EditOptions({key: not getattr(e.options, key)})
    if kind == "start":
        situation = draw(st.sampled_from(ruleset.rounds.start_procedure().situations))
        first = draw(st.sampled_from(SIDES)) if situation.by_hand else None
        surprised = draw(st.sampled_from([None, first.other])) if first is not None else None
        return act.StartCombat(situation.key, draw(faces), first, surprised, draw(faces))
    if kind == "next":
        return act.NextRound(draw(faces))
    if kind == "end combat":
        return act.EndCombat()
    if kind == "begin":
        waiting = engine.waiting()
        return act.BeginTurn(draw(st.sampled_from(waiting)).id if waiting else me)
    if kind == "end turn":
        return act.EndTurn()
    if kind == "convert":
        others = [name for name in RULESETS if name != ruleset.name]
        return act.ConvertRuleset(draw(st.sampled_from(others))) if others else None
    pending = e.combat.pending
    if pending and draw(st.integers(0, 2)):
        # Something the rules call for: one of its choices with its settings' defaults, or skip it.
        index = draw(st.integers(0, len(pending) - 1))
        prompt = ruleset.prompts.prompt(engine, pending[index])
        if not prompt.choices or not draw(st.integers(0, 3)):
            return act.SkipPending(index, "random")
        values = {setting.key: setting.default for setting in prompt.settings}
        return draw(st.sampled_from(prompt.choices)).build(values)
    # One of the ruleset's own actions, set up as the Action dock would.
    kinds = ruleset.actions.kinds()
    if not kinds or not e.combatants:
        return None
    spec = draw(st.sampled_from([*kinds, *(k for k in kinds if k.targeted), *(k for k in kinds if k.targeted)]))
    c = e.combatant(me) if me in {x.id for x in e.combatants} else e.combatants[0]
    means = [name for name, _, _ in ruleset.actions.choices(spec, c)]
    if spec.uses in ("weapon", "spell", "choice") and not means:
        return None
    mean = draw(st.sampled_from(means)) if means else None
    if spec.targeted:
        foes = [f.id for f in e.combatants if f.side is not c.side]
        target = draw(st.sampled_from(foes if foes and draw(st.integers(0, 4)) else ids))
        ignore_dex = spec.ignore_dex and draw(st.booleans())
        override = spec.gm_override and draw(st.booleans())
        more = extras(draw, spec, means)
        if spec.allies:
            friends = [f.id for f in e.combatants if f.side is c.side]
            target = draw(st.sampled_from(friends if draw(st.integers(0, 4)) else ids))
        return spec.build(c.id, target, mean, ignore_dex=ignore_dex, override=override, **more)  # type: ignore[no-any-return]
    if spec.uses == "text":
        return spec.build(c.id, draw(st.sampled_from(["grapple", "", "reload"])))  # type: ignore[no-any-return]
    if mean is not None:
        return spec.build(c.id, mean)  # type: ignore[no-any-return]
    return spec.build(c.id)  # type: ignore[no-any-return]


def map_action(draw: Any, grid: MapGrid, cells: Any) -> act.Action:
    """A wall or door drawn or taken away, a door opened or closed, fog of war, cells revealed or hidden."""
    corners = st.tuples(st.integers(0, grid.width), st.integers(0, grid.height))
    lines = [*grid.segments, *grid.doors]
    line = draw(st.sampled_from(lines)) if lines and draw(st.integers(0, 3)) else None
    a, b = (line.a, line.b) if line is not None else (draw(corners), draw(corners))
    kind = draw(st.sampled_from(["wall", "wall", "remove", "door", "fog", "reveal"]))
    if kind == "wall":
        return act.AddWall(draw(corners), draw(corners), door=draw(st.booleans()), open=draw(st.booleans()))
    if kind == "remove":
        return act.RemoveWall(a, b)
    if kind == "door":
        return act.SetDoor(a, b, draw(st.booleans()))
    if kind == "fog":
        return act.SetFog(draw(st.booleans()))
    return act.RevealCells(tuple(draw(st.lists(cells, max_size=4))), shown=draw(st.booleans()))


# -- the properties --------------------------------------------------------------------------------


def play(ruleset: Ruleset, data: st.DataObject) -> None:
    width, height = data.draw(st.integers(6, 12), label="width"), data.draw(st.integers(5, 9), label="height")
    walls = data.draw(
        st.frozensets(st.tuples(st.integers(0, width - 1), st.integers(0, height - 1)), max_size=5), label="walls"
    )
    encounter = ruleset.new_encounter(name="Random", map=MapGrid(width=width, height=height, walls=walls))
    engine = Engine(encounter, dice=RandomDice(data.draw(st.integers(0, 2**32 - 1), label="seed")))
    start = state(engine)
    pool = creature_pool(ruleset)

    done: list[tuple[dict[str, Any], list[Any]]] = []  # the state before each applied action
    undone: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (state before, state after) of undone actions

    def apply(action: act.Action) -> None:
        full = engine.encounter.model_dump()
        before, can_undo = state(engine), engine.can_undo
        try:
            engine.apply(action)
        except RulesError:
            assert engine.encounter.model_dump() == full, action  # refused: nothing changed
            assert engine.can_undo == can_undo
            return
        done.append(before)
        undone.clear()
        again = storage.loads(storage.dumps(engine.encounter))
        assert again == engine.encounter, action
        assert again.model_dump() == engine.encounter.model_dump(), action

    # A few creatures on each side to begin with, the sides facing each other across the middle
    # of the map (or off the map when the cell is taken).
    for number, side in enumerate(SIDES):
        columns = st.integers(max(0, width // 2 - 2 + 2 * number), min(width - 1, width // 2 - 1 + 2 * number))
        for _ in range(data.draw(st.integers(1, 2), label=f"{side.value} creatures")):
            creature = data.draw(st.sampled_from(pool), label="creature")
            cell = data.draw(st.tuples(columns, st.integers(0, height - 1)), label="cell")
            count = len(engine.encounter.combatants)
            apply(act.AddCombatant(creature | {"side": side.value}, cell))
            if len(engine.encounter.combatants) == count:  # the cell was taken: off the map, then
                apply(act.AddCombatant(creature | {"side": side.value}))

    for _ in range(data.draw(st.integers(10, 40), label="steps")):
        action = data.draw(actions(engine), label="action")
        if action is None:
            continue
        if action == "undo":
            if not done:
                continue
            before, before_log = done.pop()
            after, _ = state(engine)
            engine.undo()
            now, log = state(engine)
            assert now == before
            assert story(log) == story(before_log)
            undone.append((before, after))
            continue
        if action == "redo":
            if not undone:
                continue
            before, after = undone.pop()
            previous = state(engine)
            assert previous[0] == before
            engine.redo()
            assert state(engine)[0] == after  # the very same dice, the very same result
            done.append(previous)
            continue
        assert not isinstance(action, str)
        apply(action)

    # A real file, then every applied action undone, back to the empty encounter.
    with tempfile.TemporaryDirectory() as folder:
        path = storage.save(engine.encounter, Path(folder) / "random.lnl")
        assert storage.load(path) == engine.encounter
    while done:
        before, before_log = done.pop()
        engine.undo()
        now, log = state(engine)
        assert now == before
        assert story(log) == story(before_log)
    assert state(engine)[0] == start[0]
    assert engine.ruleset is ruleset
    assert not engine.can_undo


@pytest.mark.parametrize("name", list(RULESETS))
def test_random_encounters_save_load_and_undo_exactly(name: str) -> None:
    ruleset = RULESETS[name]
    if not creature_pool(ruleset):
        pytest.skip(f"{ruleset.title} has no bestiary and no other ruleset's creature converts to it")

    @CHECK
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        play(ruleset, data)

    check()


@pytest.mark.parametrize("name", list(RULESETS))
def test_every_bestiary_creature_joins_saves_and_leaves_exactly(name: str) -> None:
    ruleset = RULESETS[name]
    creatures = ruleset.bestiary()
    if not creatures:
        pytest.skip(f"{ruleset.title} has no bestiary: no ready-made creatures to check")
    engine = Engine(ruleset.new_encounter(map=MapGrid(width=40, height=8)))
    befores = []
    for number, creature in enumerate(creatures):
        side = SIDES[number % len(SIDES)]
        befores.append(state(engine)[0])
        engine.apply(act.AddCombatant(creature | {"side": side.value}, (4 * number % 40, 4 * (number // 10))))
    assert len(engine.encounter.combatants) == len(creatures)
    assert set(engine.encounter.tokens) == {c.id for c in engine.encounter.combatants}
    assert storage.loads(storage.dumps(engine.encounter)) == engine.encounter
    assert engine.encounter.combat.phase is Phase.SETUP
    for before in reversed(befores):
        engine.undo()
        assert state(engine)[0] == before
