"""Group d10's surprise and initiative (RULES §13): the opposed surprise roll, a d10 for each
group, and the declarations locked as a round begins."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.model import Side, TurnSlot
from lnl_desktop.core.rules.d10.model import D10Combatant
from lnl_desktop.core.rules.d10.rules import combat_of

if TYPE_CHECKING:
    from lnl_desktop.core.encounter.model import Encounter
    from lnl_desktop.core.rules.base import Table


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
