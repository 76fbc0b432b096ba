"""The round and the turn (RULES §3, §10): combat started, a round ended and the next begun, combat
ended, a turn begun and ended, an action said in words, a pending roll skipped. Handler functions of
the engine (a :class:`Table`), in :data:`HANDLERS`; ``turn_refusals`` is the query both ask."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import (
    ActionTaken,
    CombatEnded,
    CombatStarted,
    Event,
    InitiativeRolled,
    Override,
    RoundEnded,
    TurnEnded,
    TurnStarted,
)
from lnl_desktop.core.encounter.model import (
    CombatState,
    Phase,
    Side,
    TurnState,
)
from lnl_desktop.core.engine import conditions
from lnl_desktop.core.engine.words import feet_words
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.base import Table


def start_combat(engine: Table, a: act.StartCombat, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    if e.combat.phase is Phase.FIGHTING:
        raise IllegalAction("Start combat", ["combat is already under way"])
    if not e.side(Side.PARTY) or not e.side(Side.OPPONENTS):
        raise IllegalAction("Start combat", ["both sides need at least one combatant"])
    if not a.situation:  # no situation said: the ruleset's first
        a = replace(a, situation=engine.ruleset.rounds.start_procedure().situations[0].key)
    # The ruleset reads the dice (or the GM's hand): the first round, who acts first, who is surprised.
    opening = engine.ruleset.rounds.open_combat(engine, a, dice)
    first = opening.first_round
    # A ruleset's own combat fields (its CombatState's, such as declarations) carry over into the fight.
    carried = {k: getattr(e.combat, k) for k in type(e.combat).model_fields if k not in CombatState.model_fields}
    e.combat = type(e.combat)(
        **carried,
        phase=Phase.FIGHTING,
        round=first,
        first_round=first,
        situation=opening.situation,
        initiative_face=opening.initiative_face or opening.face,
        first_side=opening.first_side,
        surprised_side=opening.surprised_side,
        order=list(opening.order),
    )
    surprised = opening.surprised_side
    for c in e.combatants:
        c.surprised = (c.side is surprised or c.id in opening.surprised) and not c.cannot_be_surprised
    engine.ruleset.rounds.on_combat_start(engine)
    events: list[Event] = [
        CombatStarted(
            round=first,
            text=opening.text,
            situation=opening.situation,
            face=opening.face,
            first_side=opening.first_side.value,
            surprised_side=surprised.value if surprised else None,
        )
    ]
    awake = [c.name for c in e.side(surprised) if c.cannot_be_surprised] if surprised else []
    if awake:
        events.append(Override(round=first, text=f"Cannot be surprised, act normally: {', '.join(awake)}"))
    events += engine.ruleset.rounds.on_round_start(engine)
    return events


def next_round(engine: Table, a: act.NextRound, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    combat = e.combat
    if combat.phase is not Phase.FIGHTING:
        raise IllegalAction("Next round", ["combat has not started"])
    if combat.turn is not None:
        raise IllegalAction("Next round", [f"{engine.combatant(combat.turn.combatant).name}'s turn is still under way"])
    order = engine.ruleset.rounds.round_order(engine, a, dice)
    events: list[Event] = []
    name = combat.round_name
    passed = [c for c in e.combatants if engine.may_act(c)]
    if passed:
        skipped = ", ".join(c.name for c in passed)
        events.append(Override(round=combat.round, text=f"{name} ended before {skipped} acted"))
    for c in passed:
        # A turn passed over still counts its conditions down: a stunned creature the GM skips
        # would otherwise stay stunned for ever.
        events += conditions.turn_ended(engine, c, dice, skipped=True)
    events.append(RoundEnded(round=combat.round, text=f"{name} ends"))
    combat.round += 1
    combat.initiative_face = order.face
    combat.first_side = order.first_side
    combat.surprised_side = None
    combat.acted = []
    combat.order = list(order.order)
    combat.free_attacks = {}
    combat.attacks = [r for r in combat.attacks if r.round >= combat.round - 1]
    for c in e.combatants:
        c.surprised = False
    events.append(
        InitiativeRolled(
            round=combat.round,
            text=f"Round {combat.round}: {order.text}",
            face=order.face,
            first_side=order.first_side.value,
        )
    )
    events += engine.ruleset.rounds.on_round_start(engine)
    return events


def end_combat(engine: Table, a: act.EndCombat, dice: DiceSource) -> list[Event]:
    combat = engine.encounter.combat
    if combat.phase is not Phase.FIGHTING:
        raise IllegalAction("End combat", ["combat is not under way"])
    combat.phase = Phase.ENDED
    combat.turn = None
    for c in engine.encounter.combatants:
        c.surprised = False
    engine.ruleset.rounds.on_combat_end(engine)
    return [CombatEnded(round=combat.round, text=f"Combat ends after {combat.round} round(s)")]


def turn_refusals(engine: Table, cid: str) -> list[str]:
    """Why ``cid`` may not begin a turn now, in the words a refused ``BeginTurn`` gives (empty
    when it may): no fight, another turn under way, acted already, the ruleset's refusal (down,
    surprised in this round), the round over, or someone before it in the order or the other side acting."""
    e = engine.encounter
    c = engine.combatant(cid)
    combat = e.combat
    if combat.phase is not Phase.FIGHTING:
        return ["combat has not started"]
    if combat.turn is not None:
        return [f"{engine.combatant(combat.turn.combatant).name}'s turn is still under way"]
    refusal = engine.ruleset.turns.turn_refusal(e, c)
    if c.id in combat.acted:
        return [f"{c.name} has already acted this round"]
    if refusal is not None:
        return [refusal]
    if engine.acting_side() is None:
        return ["the round is over: roll initiative for the next one"]
    later = engine.ruleset.turns.order_refusal(engine, c)
    return [] if later is None else [later]


def begin_turn(engine: Table, a: act.BeginTurn, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    c = engine.combatant(a.combatant)
    combat = e.combat
    reasons = turn_refusals(engine, c.id)
    if reasons:
        raise IllegalAction(f"{c.name}'s turn", reasons)
    token = e.tokens.get(c.id)
    combat.turn = TurnState(
        combatant=c.id,
        start_cell=token.cell if token else None,
        concealed_at_start=c.concealed,
        path=[token.cell] if token else [],
    )
    events: list[Event] = [TurnStarted(round=combat.round, text=f"{c.name}'s turn", actors=(c.id,), combatant=c.id)]
    # Conditions lasting "until the start of its next turn" end as it begins (RULES §10).
    events += conditions.turn_started(engine, c)
    events += engine.ruleset.turns.on_turn_start(engine, c)
    # "Hit by a ranged attack since its last turn" ends when that turn comes.
    combat.ranged_hits.pop(c.id, None)
    return events


def end_turn(engine: Table, a: act.EndTurn, dice: DiceSource) -> list[Event]:
    combat = engine.encounter.combat
    turn = combat.turn
    if turn is None:
        raise IllegalAction("End turn", ["no turn is under way"])
    c = engine.combatant(turn.combatant)
    combat.acted.append(c.id)
    combat.turn = None
    did = turn.action or "no action"
    events: list[Event] = [
        TurnEnded(
            round=combat.round,
            text=f"{c.name} ends the turn ({did}, moved {feet_words(turn.feet_used)})",
            actors=(c.id,),
            combatant=c.id,
            feet_used=turn.feet_used,
        )
    ]
    # Its conditions' durations count at the end of its turn, in this same undo step (RULES §10).
    events += conditions.turn_ended(engine, c, dice)
    if engine.acting_side() is None:
        events.append(RoundEnded(round=combat.round, text=f"Everyone has acted: {combat.round_phrase} is over"))
    return events


def other_action(engine: Table, a: act.OtherAction, dice: DiceSource) -> list[Event]:
    c = engine.combatant(a.combatant)
    text = a.text.strip()
    if not text:
        raise IllegalAction(f"{c.name}'s action", ["say what the action is"])
    engine.use_action(c, "other", text)  # the word a turn keeps for an action said in words
    return [
        ActionTaken(
            round=engine.encounter.combat.round,
            text=f"{c.name}: {text}",
            actors=(c.id,),
            combatant=c.id,
            action="other",
            detail=text,
        )
    ]


def skip_pending(engine: Table, a: act.SkipPending, dice: DiceSource) -> list[Event]:
    pending = engine.encounter.combat.pending
    if not 0 <= a.index < len(pending):
        raise IllegalAction("Skip", ["nothing is waiting there (it was rolled or skipped already)"])
    item = pending.pop(a.index)
    why = f": {a.reason.strip()}" if a.reason.strip() else ""
    return [Override(round=engine.encounter.combat.round, text=f"GM skips the {item.kind} ({item.text}){why}")]


HANDLERS: dict[type, Callable[[Table, Any, DiceSource], list[Event]]] = {
    act.StartCombat: start_combat,
    act.NextRound: next_round,
    act.EndCombat: end_combat,
    act.BeginTurn: begin_turn,
    act.EndTurn: end_turn,
    act.OtherAction: other_action,
    act.SkipPending: skip_pending,
}
