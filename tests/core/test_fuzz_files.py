"""Fuzzing encounter files: thousands of damaged copies of real files, each either refused with
:class:`EncounterFileError` or loaded as an encounter the program can work with.

"Can work with" means: it saves and loads back equal, an engine built on it answers the turn's
questions (who acts, checks, forecasts, reach) and takes the next step of the round raising
nothing but RulesError, and whatever that step leaves loads back too.

One seed per run drives every mutation; set LNL_FUZZ_SEED to repeat a run (the seed is printed
and named in any failure), LNL_FUZZ_COUNT to run more files.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lnl_desktop.core.dice.rolls import RandomDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter, Phase
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.storage import EncounterFileError
from lnl_desktop.core.rules.lnl import forecast_attack, script
from lnl_desktop.core.rules.lnl.model import AttackMode
from lnl_desktop.paths import demo_encounter_path

# Longer than the suite's one minute a test (thousands of damaged files read): five minutes still ends a hang.
pytestmark = pytest.mark.timeout(300)

COUNT = int(os.environ.get("LNL_FUZZ_COUNT", "2400"))
Path_ = tuple[str | int, ...]


# -- the files to damage ---------------------------------------------------------------------------


def play(engine: Engine, rng: random.Random, steps: int) -> None:
    """Random but mostly legal play: turns with moves and attacks of every kind, parries, rounds."""
    e = engine.encounter
    for _ in range(steps):
        combat = e.combat
        try:
            if combat.turn is None:
                if engine.waiting():
                    engine.begin_turn(rng.choice(engine.waiting()).id)
                else:
                    engine.next_round()
                continue
            me = engine.combatant(combat.turn.combatant)
            foes = [c for c in e.combatants if c.side is not me.side and not c.down]
            choice = rng.random()
            placed = [c for c in foes if c.id in e.tokens]
            if choice < 0.25 and placed and me.id in e.tokens:
                target = e.tokens[rng.choice(placed).id].cell
                engine.move(me.id, (min(target[0] + 1, e.map.width - 1), target[1]))
            elif choice < 0.7 and foes and combat.turn.action is None:
                target = rng.choice(foes)
                for weapon in me.weapons:
                    try:
                        script.attack(engine, me.id, target.id, weapon.name)
                        break
                    except RulesError:
                        continue
                for spell in me.spells:
                    try:
                        script.cast(engine, me.id, target.id, spell.name)
                        break
                    except RulesError:
                        continue
            elif choice < 0.8 and combat.turn.action is None:
                if me.shield is not None:
                    script.parry(engine, me.id, shield=True)
                elif me.weapons:
                    script.parry(engine, me.id, me.weapons[0].name)
            else:
                engine.end_turn()
        except RulesError:
            with contextlib.suppress(RulesError):
                engine.end_turn()


def bases() -> list[tuple[str, dict[str, Any]]]:
    """The demo before combat, two fights under way (mid-turn) and a fight that ended."""
    out = [("demo", storage.to_document(storage.load(demo_encounter_path())))]
    for name, seed, steps, end in (("fight-a", 1, 40, False), ("fight-b", 7, 90, False), ("ended", 3, 60, True)):
        engine = Engine(storage.load(demo_encounter_path()), dice=RandomDice(seed))
        engine.start_combat(face=seed % 6 + 1)
        play(engine, random.Random(seed), steps)
        if end:
            engine.apply(act.EndCombat())
        else:
            while engine.encounter.combat.turn is None:  # leave a turn under way
                play(engine, random.Random(seed + 1), 1)
        out.append((name, storage.to_document(engine.encounter)))
    return out


# -- mutations ------------------------------------------------------------------------------------


def paths(node: Any, here: Path_ = ()) -> Iterator[Path_]:
    yield here
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, (*here, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from paths(value, (*here, index))


def at(document: Any, where: Path_) -> Any:
    for part in where:
        document = document[part]
    return document


def ids_in(document: dict[str, Any]) -> list[str]:
    # An earlier mutation may have broken the list already.
    try:
        found = document["encounter"]["combatants"]
        return [c["id"] for c in found if isinstance(c, dict) and isinstance(c.get("id"), str)]
    except (KeyError, TypeError):
        return []


def other_value(rng: random.Random, ids: list[str]) -> Any:
    return rng.choice(
        [
            True,
            False,
            None,
            0,
            1,
            -1,
            -(10**6),
            2**62,
            10**25,
            int("9" * rng.randint(21, 400)),
            0.5,
            -0.0,
            1e308,
            "5",
            "",
            "x" * rng.randint(1, 5000),
            rng.choice(ids) if ids else "ghost",
            "ghost",
            "setup",
            "fighting",
            "ended",
            "Party",
            "Opponents",
            [],
            [1, 2],
            [999, 999],
            [-1, 0],
            {},
            {"a": 1},
            deep(rng.randint(10, 200)),
        ]
    )


def deep(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


def mutate(rng: random.Random, document: dict[str, Any]) -> str:
    """Change ``document`` in place in one way; return what was done, for a failure message."""
    ids = ids_in(document)
    every = list(paths(document))
    # Most paths lie in the log; aim at the combat state, tokens and sheets more often.
    area = rng.choice(["combat", "combat", "tokens", "combatants", "map", "anywhere"])
    aimed = [p for p in every[1:] if len(p) > 1 and p[1] == area]
    where = rng.choice(aimed or every[1:]) if area != "anywhere" else rng.choice(every[1:])
    parent, key = at(document, where[:-1]), where[-1]
    value = parent[key]
    kind = rng.choice(["drop", "replace", "replace", "nudge", "id", "unknown id", "duplicate", "cell", "swap ids"])
    if kind == "drop":
        if isinstance(parent, list):
            parent.pop(key)  # type: ignore[arg-type]
        else:
            del parent[key]
        return f"dropped {where}"
    if kind == "replace":
        new = other_value(rng, ids)
        parent[key] = new
        return f"{where} = {json.dumps(new)[:60]}"
    if kind == "nudge" and isinstance(value, int | float) and not isinstance(value, bool):
        # A half only where a float holds the number: 2**63 + 0.5 is an OverflowError, not a damaged file.
        half = value + 0.5 if abs(value) < 2**53 else value + 1
        new = rng.choice([value + 1, value - 1, 0, -value, value * 2, half])
        parent[key] = new
        return f"{where}: {value} -> {new}"
    if kind in ("id", "unknown id") and isinstance(value, str):
        new = rng.choice(ids) if kind == "id" and ids else f"ghost-{rng.randint(0, 9)}"
        parent[key] = new
        return f"{where}: {value!r} -> {new!r}"
    if kind == "duplicate" and isinstance(value, list) and value:
        value.append(copy.deepcopy(rng.choice(value)))
        return f"duplicated an entry of {where}"
    if kind == "cell":
        cells = [p for p in every if _is_cell(at(document, p))]
        if cells:
            spot = rng.choice(cells)
            new = rng.choice([[999, 999], [-1, 0], [0, -1], [24, 0], [0, 16], [23, 15], [0, 0], [1]])
            at(document, spot[:-1])[spot[-1]] = new
            return f"cell {spot} = {new}"
    if kind == "swap ids" and len(ids) >= 2:
        a, b = rng.sample(ids, 2)
        text = json.dumps(document).replace(f'"{a}"', "\0").replace(f'"{b}"', f'"{a}"').replace("\0", f'"{b}"')
        document.clear()
        document.update(json.loads(text))
        return f"swapped ids {a} and {b} everywhere"
    if isinstance(parent, dict) and rng.random() < 0.5:
        parent[f"extra{rng.randint(0, 9)}"] = 1
        return f"added a key beside {where}"
    parent[key] = other_value(rng, ids)
    return f"{where} = {json.dumps(parent[key])[:60]}"


def _is_cell(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)


GARBAGE = '{}[]",:0123456789eE.-+ntrufalse\\\x00\u00e9\ufeff \n'


def damage_text(rng: random.Random, text: str) -> tuple[bytes, str]:
    """Text-level damage, as bytes for a file: truncation, flipped bytes, BOMs, garbage."""
    data = text.encode("utf-8")
    kind = rng.choice(["truncate", "flip", "bom", "bom inside", "garbage", "delete"])
    spot = rng.randrange(len(data))
    if kind == "truncate":
        return data[:spot], f"truncated at byte {spot}"
    if kind == "flip":
        flipped = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(flipped))
            flipped[i] ^= 1 << rng.randrange(8)
        return bytes(flipped), "flipped bits"
    if kind == "bom":
        return b"\xef\xbb\xbf" + data, "a BOM in front"
    if kind == "bom inside":
        return data[:spot] + b"\xef\xbb\xbf" + data[spot:], f"a BOM at byte {spot}"
    if kind == "garbage":
        junk = "".join(rng.choice(GARBAGE) for _ in range(rng.randint(1, 20))).encode("utf-8")
        return data[:spot] + junk + data[spot:], f"inserted {junk!r} at byte {spot}"
    end = min(len(data), spot + rng.randint(1, 200))
    return data[:spot] + data[end:], f"deleted bytes {spot}-{end}"


# -- what a loaded file must allow -----------------------------------------------------------------


def consistent(e: Encounter) -> None:
    """What a loaded encounter must hold, checked apart from the model's own validators."""
    ids = {c.id for c in e.combatants}
    combat, turn = e.combat, e.combat.turn
    named = set(combat.acted) | set(combat.ranged_hits) | {s for v in combat.ranged_hits.values() for s in v}
    named |= {r.attacker for r in combat.attacks} | {r.target for r in combat.attacks} | set(e.tokens)
    assert named <= ids, f"names combatants that do not exist: {sorted(named - ids)}"
    assert len(set(combat.acted)) == len(combat.acted), "a combatant acted twice"
    if combat.phase is Phase.SETUP:
        assert combat.round == 0 and turn is None and not combat.acted, "a fight under way in setup"
    else:
        assert combat.round >= 1, f"{combat.phase.value} in round {combat.round}"
    if turn is not None:
        assert combat.phase is Phase.FIGHTING, "a turn outside a fight"
        assert turn.combatant in ids and turn.combatant not in combat.acted, "a turn of nobody, or twice"
        for x, y in [*([turn.start_cell] if turn.start_cell else []), *turn.path]:
            assert 0 <= x < e.map.width and 0 <= y < e.map.height, f"turn cell ({x}, {y}) off the map"
        assert min(turn.feet_before, turn.feet_after, turn.extra_ft, turn.diagonals) >= 0, "negative movement"


def exercise(encounter: Encounter, rng: random.Random) -> None:
    """Round-trip, then the questions the table asks of the engine, then a few steps of play."""
    consistent(encounter)
    assert storage.loads(storage.dumps(encounter)) == encounter, "does not load back equal"
    engine = Engine(encounter, dice=RandomDice(0))
    e = engine.encounter
    asked: list[Callable[[], object]] = [engine.acting_side, engine.waiting, lambda: engine.round_over]
    asked += [lambda c=c: (engine.may_act(c), engine.feet_left(c.id)) for c in e.combatants]  # type: ignore[misc]
    turn = e.combat.turn
    if turn is not None:
        me = engine.combatant(turn.combatant)
        asked.append(lambda: engine.turn_checks(me, needs_action=True))
        if me.id in e.tokens:
            asked.append(lambda: engine.reach(me.id))
            asked.append(lambda: engine.blockers(me.id))
        for target in e.combatants[:4]:
            for weapon in me.weapons[:2]:
                asked.append(lambda t=target, w=weapon: engine.attack_checks(me.id, t.id, w.name))  # type: ignore[misc]
                asked.append(lambda t=target, w=weapon: script.sneak_checks(engine, me.id, t.id, w.name))  # type: ignore[misc]
            asked.append(lambda t=target: engine.concealment_details(me.id, t.id))  # type: ignore[misc]
        if me.weapons and len(e.combatants) > 1:
            target = next(c for c in e.combatants if c.id != me.id)
            asked.append(lambda: forecast_attack(me, target, me.weapons[0], AttackMode.ATTACK, e.options))
    for question in asked:
        with contextlib.suppress(RulesError):
            question()
    # A few steps of play from here: whatever the engine makes of a loadable file loads too.
    if e.combat.phase is not Phase.FIGHTING:
        try:
            engine.start_combat(face=rng.randint(1, 6))
        except RulesError:
            return
    play(engine, rng, rng.randint(1, 6))
    stepped = storage.loads(storage.dumps(e), "after play")
    assert stepped == e, "what the engine made of it does not load back equal"
    consistent(stepped)


def test_damaged_files_are_refused_or_usable(tmp_path: Path) -> None:
    seed = int(os.environ.get("LNL_FUZZ_SEED") or random.SystemRandom().randrange(2**32))
    rng = random.Random(seed)
    print(f"\nfuzzing encounter files with LNL_FUZZ_SEED={seed}")
    originals = bases()
    texts = {name: json.dumps(doc) for name, doc in originals}
    file = tmp_path / "fuzz.lnl"
    started = time.perf_counter()
    outcomes = {"refused": 0, "loaded": 0}
    for n in range(COUNT):
        name, original = rng.choice(originals)
        if rng.random() < 0.7:
            document = copy.deepcopy(original)
            what = "; ".join(mutate(rng, document) for _ in range(rng.choice([1, 1, 1, 2, 3])))
            data = json.dumps(document, indent=rng.choice([None, 1])).encode("utf-8")
        else:
            data, what = damage_text(rng, texts[name])
        described = f"file {n} ({name}: {what}) with LNL_FUZZ_SEED={seed}"
        try:
            if n % 4 == 0:
                file.write_bytes(data)
                encounter = storage.load(file)
            else:
                encounter = storage.loads(data.decode("utf-8", errors="replace"), "fuzz.lnl")
        except EncounterFileError as error:
            assert str(error).startswith("fuzz.lnl"), f"{described}: the message does not name the file: {error}"
            outcomes["refused"] += 1
            continue
        except Exception as error:
            raise AssertionError(f"{described}: {type(error).__name__}: {error}") from error
        try:
            exercise(encounter, rng)
        except Exception as error:
            raise AssertionError(f"{described} loaded, then {type(error).__name__}: {error}") from error
        outcomes["loaded"] += 1
    elapsed = time.perf_counter() - started
    print(f"{COUNT} damaged files in {elapsed:.1f} s: {outcomes['refused']} refused, {outcomes['loaded']} loaded")
    assert outcomes["refused"] and outcomes["loaded"]
