"""Conditions given and taken away, and the durations the app counts down (RULES §10 "How long a
condition lasts").

A duration runs out at the end of the affected creature's turn (N rounds, the end of its next
turn, a save each turn) or at the start of a named creature's turn. What runs out is taken away
with its log line inside the very action that ended the turn (or began the other's), so one undo
puts the turn and the condition back together.
"""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.conditions import condition_key
from lnl_desktop.core.encounter.durations import duration_words, given_words, left_words, save_words
from lnl_desktop.core.encounter.events import ConditionChanged, Event
from lnl_desktop.core.encounter.model import MOST_CONDITIONS, CombatantBase, ConditionDuration, DurationKind, Phase
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.rules.base import Table

MAX_NAME = 60  # a condition's name, as the sheet's line holds it


def _written(c: CombatantBase, key: str) -> str | None:
    """How ``c``'s conditions spell ``key`` (any case), or None when it does not have it."""
    wanted = key.casefold()
    return next((w for w in c.conditions if w.casefold() == wanted), None)


def _drop(c: CombatantBase, written: str) -> None:
    # New list and dict, not changed in place: the undo history compares containers with their copies.
    c.conditions = [w for w in c.conditions if w != written]
    c.durations = {k: d for k, d in c.durations.items() if k != written}


def _event(engine: Table, c: CombatantBase, condition: str, change: str, text: str, **more: Any) -> ConditionChanged:
    return ConditionChanged(
        round=engine.encounter.combat.round,
        text=text,
        actors=(c.id,),
        combatant=c.id,
        condition=condition,
        change=change,  # type: ignore[arg-type]
        **more,
    )


def _in_its_turn(engine: Table, c: CombatantBase) -> bool:
    combat = engine.encounter.combat
    return combat.phase is Phase.FIGHTING and combat.turn is not None and combat.turn.combatant == c.id


# -- given and taken away by the GM ------------------------------------------------------------------


def duration_problems(engine: Table, c: CombatantBase, d: ConditionDuration) -> list[str]:
    """Why ``d`` cannot be counted for ``c`` in this encounter (a creature that is not in it, a save
    the ruleset cannot roll), in words; empty when it can."""
    problems: list[str] = []
    if d.kind is DurationKind.START_OF_TURN_OF and d.creature not in engine.encounter.names():
        problems.append(f"no combatant {d.creature!r} to end it at the start of its turn")
    if d.kind is DurationKind.SAVE:
        problem = engine.ruleset.conditions.save_problem(c, d.save, d.dc)
        if problem:
            problems.append(problem)
    return problems


def set_condition(engine: Table, a: act.SetCondition, dice: DiceSource) -> list[Event]:
    """Give a condition (with its duration), change the duration of one it has, or take one away."""
    key = condition_key(a.condition)
    title = f"{'Give' if a.on else 'Remove'} {key or 'a condition'}"
    try:
        c = engine.combatant(a.combatant)
    except RulesError:
        raise IllegalAction(title, [f"there is no combatant {a.combatant!r}"]) from None
    if not key:
        raise IllegalAction(title, ["name the condition"])
    title = f"{title} ({c.name})"
    written = _written(c, key)
    if not a.on:
        if written is None:
            # "grappled" takes away "grappled by Ogre" where that is the only one of the kind.
            near = [w for w in c.conditions if w.casefold().startswith(key.casefold() + " ")]
            if len(near) != 1:
                raise IllegalAction(title, [f"{c.name} is not {key}"])
            written = near[0]
        _drop(c, written)
        return [_event(engine, c, written, "removed", f"{c.name} is no longer {written}")]
    if len(key) > MAX_NAME:
        raise IllegalAction(title, [f"a condition's name is at most {MAX_NAME} characters"])
    d = a.duration
    names = engine.encounter.names()
    if d is not None:
        problems = duration_problems(engine, c, d)
        if problems:
            raise IllegalAction(title, problems)
        # Counted from the turn after this one when it is given during the creature's own turn.
        d = d.model_copy(
            update={
                "given_in_its_turn": _in_its_turn(engine, c) and d.kind is not DurationKind.START_OF_TURN_OF,
                "rounds_given": d.rounds if d.kind is DurationKind.ROUNDS else None,
            }
        )
    lasts = f" ({duration_words(d, names)})" if d is not None else ""
    if written is None:
        if len(c.conditions) >= MOST_CONDITIONS:
            raise IllegalAction(title, [f"{c.name} has {MOST_CONDITIONS} conditions already, the most a sheet holds"])
        c.conditions = [*c.conditions, key]
        if d is not None:
            c.durations = {**c.durations, key: d}
        return [_event(engine, c, key, "given", f"{c.name} is {key}{lasts}", duration=_words(d, names))]
    old = c.durations.get(written)
    if _same(old, d):
        raise IllegalAction(title, [f"{c.name} is already {written}{lasts}"])
    was = left_words(old, names) if old is not None else "until removed"
    c.durations = {k: v for k, v in c.durations.items() if k != written}
    if d is not None:
        c.durations[written] = d
    now = lasts or " (until removed)"
    return [_event(engine, c, written, "changed", f"{c.name} is {written}{now}, was {was}", duration=_words(d, names))]


def _words(d: ConditionDuration | None, names: dict[str, str]) -> str:
    return "" if d is None else duration_words(d, names)


def _same(old: ConditionDuration | None, new: ConditionDuration | None) -> bool:
    if old is None or new is None:
        return old is new
    fields = ("kind", "rounds", "creature", "save", "dc")
    return all(getattr(old, f) == getattr(new, f) for f in fields)


# -- counted by the app --------------------------------------------------------------------------------


def turn_ended(engine: Table, c: CombatantBase, dice: DiceSource, skipped: bool = False) -> list[Event]:
    """Count ``c``'s durations at the end of its turn (``skipped``: the round ended before it took
    one, which counts as well, or a stunned creature whose turn the GM passes over stays stunned)."""
    if not c.durations:
        return []
    events: list[Event] = []
    names = engine.encounter.names()
    kept: dict[str, ConditionDuration] = {}
    gone: list[str] = []
    why = " (its turn passed)" if skipped else ""
    for written, d in c.durations.items():
        if _written(c, written) is None:
            continue  # its condition was taken away by a rule of the ruleset's own: the duration goes too
        if d.given_in_its_turn:
            # Given during this very turn: its count starts with the next one.
            kept[written] = d.model_copy(update={"given_in_its_turn": False})
            continue
        if d.kind is DurationKind.ROUNDS:
            left = (d.rounds or 1) - 1
            if left <= 0:
                gone.append(written)
                events.append(
                    _event(
                        engine,
                        c,
                        written,
                        "ended",
                        f"{c.name} is no longer {written} ({given_words(d, names)}){why}",
                        duration=given_words(d, names),
                    )
                )
            else:
                counted = d.model_copy(update={"rounds": left})
                kept[written] = counted
                events.append(
                    _event(
                        engine,
                        c,
                        written,
                        "counted",
                        f"{c.name}: {written}, {left_words(counted, names)}{why}",
                        duration=left_words(counted, names),
                    )
                )
        elif d.kind is DurationKind.END_OF_NEXT_TURN:
            gone.append(written)
            words = duration_words(d, names)
            text = f"{c.name} is no longer {written} ({words}){why}"
            events.append(_event(engine, c, written, "ended", text, duration=words))
        elif d.kind is DurationKind.SAVE:
            ended = _save(engine, c, written, d, dice, names, why)
            events.append(ended)
            if ended.change == "ended":
                gone.append(written)
            else:
                kept[written] = d
        else:
            kept[written] = d
    for written in gone:
        c.conditions = [w for w in c.conditions if w != written]
    if kept != c.durations:
        c.durations = kept
    return events


def _save(
    engine: Table,
    c: CombatantBase,
    written: str,
    d: ConditionDuration,
    dice: DiceSource,
    names: dict[str, str],
    why: str,
) -> ConditionChanged:
    """Roll ``c``'s save each turn against ``written``: an "ended" event if it succeeds, else "kept"."""
    words = duration_words(d, names)
    problem = engine.ruleset.conditions.save_problem(c, d.save, d.dc)
    if problem:
        # A file from another ruleset may name a save this one cannot roll: the GM decides.
        text = f"{c.name} stays {written}: its save cannot be rolled ({problem}); remove it by hand"
        return _event(engine, c, written, "kept", text, duration=words)
    purpose = f"{c.name}'s save against {written} ({save_words(d)})"
    roll = engine.ruleset.conditions.save(engine.encounter, c, d.save, d.dc, dice, purpose)
    if roll.saved:
        text = f"{c.name} is no longer {written} (saves: {roll.words}){why}"
        return _event(engine, c, written, "ended", text, duration=words, roll=roll.words, face=roll.face)
    text = f"{c.name} stays {written} (fails the save: {roll.words}){why}"
    return _event(engine, c, written, "kept", text, duration=words, roll=roll.words, face=roll.face)


def turn_started(engine: Table, starting: CombatantBase) -> list[Event]:
    """End every condition lasting "until the start of X's next turn" whose X is ``starting``; and
    those whose X is down or gone from the fight, since X's turn will never come to end them."""
    e = engine.encounter
    by_id = e.by_id()
    events: list[Event] = []
    names = {cid: c.name for cid, c in by_id.items()}
    for c in e.combatants:
        if not c.durations:
            continue
        gone: list[str] = []
        for written, d in c.durations.items():
            if d.kind is not DurationKind.START_OF_TURN_OF or _written(c, written) is None:
                continue
            creature = by_id.get(d.creature or "")
            if d.creature == starting.id:
                note = ""
            elif creature is None:
                note = ": that creature has left the fight"
            elif creature.down:
                note = f": {creature.name} is down"
            else:
                continue
            gone.append(written)
            words = duration_words(d, names)
            text = f"{c.name} is no longer {written} ({words}){note}"
            events.append(_event(engine, c, written, "ended", text, duration=words))
        if gone:
            c.conditions = [w for w in c.conditions if w not in gone]
            c.durations = {k: v for k, v in c.durations.items() if k not in gone}
    return events
