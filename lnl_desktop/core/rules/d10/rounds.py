"""Group d10's rounds (RULES §13): the Start combat dialog's surprise roll (the opposed roll of the
ambushers' Stealth against the defenders' Perception), a d10 for each group every round, the declare
phase and the declarations locked as a round begins, the Turns dock's row menu and round notes, the
timers ticking down and what a combat's end clears."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Phase, Side, TurnSlot
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.common import Opening, RoundOrder
from lnl_desktop.core.rules.d10 import model, timers
from lnl_desktop.core.rules.d10.model import D10Combat, D10Combatant
from lnl_desktop.core.rules.d10.rules import combat_of
from lnl_desktop.core.rules.specs import DeclareSpec, RowAction, Setting, Situation, StartProcedure

if TYPE_CHECKING:
    from lnl_desktop.core.encounter.model import Encounter
    from lnl_desktop.core.rules.base import Table

# The Start combat dialog's situations: is there a surprise roll, and who ambushes whom.
NONE, PARTY, OPPONENTS, STUMBLED = "no surprise", "Party ambushes", "Opponents ambush", "both stumbled"
AT = "@"  # a declared choice's key and its target's id: "attack@ogre"


def surprise_roll(engine: Table, situation: str, dice: DiceSource) -> tuple[Side | None, bool, str]:
    """The opposed roll: the ambushers' d20 + their lowest Stealth against the defenders' d20 +
    their highest Perception (plain d20s when both stumbled); higher: surprise; by 5: full."""
    e = engine.encounter
    able = [c for c in e.combatants if not c.down]
    if situation == "no surprise":
        return None, False, "no surprise roll"
    if situation == "both stumbled":
        fp = roll_plain(dice, 20, "surprise d20 for the Party (plain)").face
        fo = roll_plain(dice, 20, "surprise d20 for the Opponents (plain)").face
        if fp == fo:
            return None, False, f"both stumbled: Party d20 {fp}, Opponents d20 {fo}: a tie, no surprise"
        winner = Side.PARTY if fp > fo else Side.OPPONENTS
        full = abs(fp - fo) >= engine.encounter.options.full_surprise_margin
        kind = "full surprise" if full else "surprise"
        return winner, full, f"both stumbled: Party d20 {fp}, Opponents d20 {fo}: {winner.value} gain {kind}"
    ambushers = Side.PARTY if situation == "Party ambushes" else Side.OPPONENTS
    defenders = ambushers.other
    sneaks = [c for c in able if c.side is ambushers]
    watchers = [c for c in able if c.side is defenders]
    stealth = min((c.stealth for c in sneaks), default=0)  # type: ignore[attr-defined]
    sneak = min(sneaks, key=lambda c: c.stealth).name if sneaks else "nobody"  # type: ignore[attr-defined]
    perception = max((c.perception for c in watchers), default=0)  # type: ignore[attr-defined]
    watch = max(watchers, key=lambda c: c.perception).name if watchers else "nobody"  # type: ignore[attr-defined]
    fa = roll_plain(dice, 20, f"surprise d20 for the {ambushers.value} (+{stealth} Stealth, {sneak})").face
    fd = roll_plain(dice, 20, f"surprise d20 for the {defenders.value} (+{perception} Perception, {watch})").face
    ta, td = fa + stealth, fd + perception
    said = (
        f"{ambushers.value} d20 {fa} {stealth:+d} Stealth ({sneak}, the lowest) = {ta} against "
        f"{defenders.value} d20 {fd} {perception:+d} Perception ({watch}, the highest) = {td}"
    )
    if ta <= td:
        return None, False, f"{said}: {'a tie, ' if ta == td else ''}no surprise"
    full = ta - td >= engine.encounter.options.full_surprise_margin
    if full:
        return (
            ambushers,
            True,
            f"{said}: full surprise (by {ta - td}): the {defenders.value} take no actions this round",
        )
    return (
        ambushers,
        False,
        f"{said}: surprise: the {ambushers.value} roll with advantage, the {defenders.value} with disadvantage",
    )


def groups(encounter: Encounter) -> list[tuple[str, list[D10Combatant]]]:
    """The initiative groups: the Party, then the Opponents' groups in the order they first appear."""
    found: dict[str, list[D10Combatant]] = {}
    for c in encounter.combatants:
        found.setdefault(c.group_name, []).append(c)  # type: ignore[attr-defined]
    party = found.pop(Side.PARTY.value, [])
    return ([(Side.PARTY.value, party)] if party else []) + list(found.items())


def roll_initiative(engine: Table, dice: DiceSource) -> tuple[list[TurnSlot], str]:
    """A d10 for each group, highest first; ties: the Party's group first, then a re-roll between GM groups."""
    rolled: list[tuple[str, list[D10Combatant], int, list[int]]] = []
    for name, members in groups(engine.encounter):
        if not any(not m.down for m in members):
            continue
        face = roll_plain(dice, 10, f"initiative d10 for {name}").face
        rolled.append((name, members, face, []))
    by_face: dict[int, list[tuple[str, list[D10Combatant], int, list[int]]]] = {}
    for entry in rolled:
        by_face.setdefault(entry[2], []).append(entry)
    party_first = bool(getattr(engine.encounter.options, "party_first_on_ties", True))
    for tied in by_face.values():
        # [D] the Party's group first on a tie; off: the Party re-rolls with the GM's groups.
        gm = [x for x in tied if x[0] != Side.PARTY.value or not party_first]
        while len(gm) > 1:
            for x in gm:
                x[3].append(roll_plain(dice, 10, f"tie-break d10 for {x[0]}").face)
            last = [x[3][-1] for x in gm]
            gm = [x for x in gm if last.count(x[3][-1]) > 1]

    def key(x: tuple[str, list[D10Combatant], int, list[int]]) -> tuple[int, bool, list[int]]:
        return (x[2], party_first and x[0] == Side.PARTY.value, x[3])

    rolled.sort(key=key, reverse=True)
    slots = []
    for name, members, face, again in rolled:
        roll = f"d10 {face}" + (f" (re-roll {', '.join(str(f) for f in again)})" if again else "")
        slots.append(TurnSlot(title=name, members=[m.id for m in members], roll=roll, total=face))
    listed = "; ".join(f"{s.title} {s.roll}" for s in slots)
    return slots, f"initiative: {listed}"


def lock_declarations(engine: Table) -> list[str]:
    """The coming round's declarations become this round's; who has not declared (and may act)."""
    combat = combat_of(engine.encounter)
    missing = missing_declarations(engine)
    if missing:
        return missing
    combat.declared = dict(combat.declaring)
    combat.declaring = {}
    combat.declared_targets = dict(combat.declaring_targets)
    combat.declaring_targets = {}
    return []


def missing_declarations(engine: Table) -> list[str]:
    combat = combat_of(engine.encounter)
    return [c.name for c in engine.encounter.combatants if not c.down and c.id not in combat.declaring]


def _declaration(cid: str, key: str) -> model.Declare:
    """The Declare a choice makes; "Attack <itself>" (one list serves every row) is a plain Attack."""
    action, _, target = key.partition(AT)
    return model.Declare(cid, action, "" if target == cid else target)


class D10Rounds:
    """The start of combat and each round: surprise, a d10 per group, the declarations."""

    def __init__(self, title: str) -> None:
        self.title = title

    def start_procedure(self) -> StartProcedure:
        def reading(situation: str, face: int) -> str:
            return {
                NONE: "No surprise roll: round 1 is a normal round",
                PARTY: "The Party's lowest Stealth against the Opponents' highest Perception",
                OPPONENTS: "The Opponents' lowest Stealth against the Party's highest Perception",
                STUMBLED: "Both stumbled into each other: a plain d20 each",
            }.get(situation, "")

        return StartProcedure(
            question="Is there a surprise roll?",
            situations=(
                Situation(NONE, "No surprise", "Both sides saw each other coming"),
                Situation(
                    PARTY,
                    "The Party ambushes",
                    "d20 + the Party's lowest Stealth against d20 + the Opponents' highest Perception",
                ),
                Situation(
                    OPPONENTS,
                    "The Opponents ambush",
                    "d20 + the Opponents' lowest Stealth against d20 + the Party's highest Perception",
                ),
                Situation(STUMBLED, "Both stumbled into each other", "A plain d20 each: the higher side has surprise"),
            ),
            die_label="surprise",
            reading=reading,
            surprise_die=False,
            rolls_initiative=True,
        )

    def declarations(self, engine: Table) -> DeclareSpec | None:
        combat: D10Combat = engine.encounter.combat  # type: ignore[assignment]
        open_ = combat.phase is not Phase.FIGHTING or engine.round_over
        declared = combat.declaring if open_ else combat.declared
        targets = combat.declaring_targets if open_ else combat.declared_targets
        missing = tuple(c.id for c in engine.encounter.combatants if not c.down and c.id not in combat.declaring)
        # An attack may name its target (RULES §13): "Attack Ogre" after the plain choices.
        aimed = tuple((f"attack{AT}{c.id}", f"Attack {c.name}") for c in engine.encounter.combatants if not c.down)
        return DeclareSpec(
            choices=(*model.DECLARE, *aimed),
            open=open_,
            declared={cid: key + (f"{AT}{targets[cid]}" if cid in targets else "") for cid, key in declared.items()},
            missing=missing if open_ else (),
            build=_declaration,
        )

    def row_actions(self, engine: Table, c: D10Combatant) -> tuple[RowAction, ...]:
        if c.side is not Side.OPPONENTS:
            return ()
        actions = []
        others = sorted(
            {
                x.group
                for x in engine.encounter.combatants
                if x.side is Side.OPPONENTS and x.group and x.group != c.group
            }
        )
        if c.group != c.name:
            actions.append(
                RowAction(
                    f"Put {c.name} in a group of its own",
                    "It rolls its own initiative d10 from the next round (a boss apart)",
                    lambda: act.EditCombatant(c.id, {"group": c.name}),
                )
            )
        for name in others:
            actions.append(
                RowAction(
                    f"Move {c.name} to the group {name}",
                    f"It rolls with {name} from the next round",
                    lambda n=name: act.EditCombatant(c.id, {"group": n}),
                )
            )
        if c.group:
            actions.append(
                RowAction(
                    "Back to the Opponents' main group",
                    "It rolls with the Opponents from the next round",
                    lambda: act.EditCombatant(c.id, {"group": ""}),
                )
            )
        return tuple(actions)

    def notes(self, engine: Table) -> tuple[str, ...]:
        combat: D10Combat = engine.encounter.combat  # type: ignore[assignment]
        notes = []
        for timer in combat.timers:
            rounds = "round" if timer.rounds_left == 1 else "rounds"
            notes.append(f"Timer {timer.die} ({timer.face}): {timer.event} in {timer.rounds_left} {rounds}")
        if combat.ambushers is not None and combat.round == combat.first_round and combat.phase is Phase.FIGHTING:
            kind = "full surprise" if combat.full_surprise else "surprise"
            notes.append(f"This round: the {combat.ambushers.value} have {kind}")
        return tuple(notes)

    def open_combat(self, engine: Table, action: Any, dice: DiceSource) -> Opening:
        situation = action.situation
        if situation not in (NONE, PARTY, OPPONENTS, STUMBLED):
            raise RulesError(f"Start combat: {situation!r} is not one of: {NONE}, {PARTY}, {OPPONENTS}, {STUMBLED}")
        missing = missing_declarations(engine)
        if missing:
            raise IllegalAction("Start combat", [f"declare first for: {', '.join(missing)}"])
        ambushers, full, said = surprise_roll(engine, situation, dice)
        lock_declarations(engine)
        combat = combat_of(engine.encounter)
        # Carried into the fight's combat state (a ruleset's own fields carry over).
        combat.ambushers, combat.full_surprise = ambushers, full
        slots, words = roll_initiative(engine, dice)
        first = engine.combatant(slots[0].members[0]).side if slots else Side.PARTY
        surprised = ambushers.other if ambushers is not None and full else None
        return Opening(
            situation=situation,
            first_side=first,
            surprised_side=surprised,
            text=f"Round 1: {said}; {words}",
            order=tuple(slots),
        )

    def round_order(self, engine: Table, action: Any, dice: DiceSource) -> RoundOrder:
        missing = lock_declarations(engine)
        if missing:
            raise IllegalAction("Next round", [f"declare first for: {', '.join(missing)}"])
        slots, words = roll_initiative(engine, dice)
        first = engine.combatant(slots[0].members[0]).side if slots else Side.PARTY
        return RoundOrder(first, None, words, order=tuple(slots))

    def initiative(self, face: int) -> Side:
        raise IllegalAction("Initiative", [f"{self.title} has no side initiative"])

    def settings(self) -> tuple[Setting, ...]:
        return ()

    def on_round_start(self, engine: Table) -> list[Event]:
        combat = combat_of(engine.encounter)
        events: list[Event] = []
        events += engagement.lapse(engine.encounter, "free attack")
        if combat.round > combat.first_round:
            events += timers.tick_timers(engine)
        return events

    def on_combat_start(self, engine: Table) -> None:
        return None

    def on_combat_end(self, engine: Table) -> None:
        for c in engine.encounter.combatants:
            c.parrying = False  # type: ignore[attr-defined]
            c.disengaged = False  # type: ignore[attr-defined]
            c.stood_up = False  # type: ignore[attr-defined]
        combat_of(engine.encounter).pending = []
