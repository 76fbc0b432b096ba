"""Group d10's default tactic played through the engine (the fight odds' reference, core.rules.fight):
one fight, action by action, with the engine's own dice, as the fast simulator (sim.py) plays it.

Every standing combatant declares Attack for each round (the GM's default); the groups act in the
order their d10s give, a group's members in the roster's order. On its turn a combatant stands up if
prone (its move, unless a trip's lost attack pays for it), then picks the nearest standing foe (the
fewest feet of movement to stand in melee reach of it, the first in the roster on a tie): in reach,
it strikes it with its best melee weapon; else, holding a ranged weapon with that foe in sight, in
range and at least 10 ft away, it shoots it from where it stands; else it closes on it by its Move
and strikes it if it gets there. Reach is the weapon's (RULES §13): a reach weapon strikes from 10
ft and closing in stops there, so a foe with a plain blade must come the last 5 ft itself. A natural
1's mishap is the GM's "none"; a free attack the rules offer is taken (the tactic never provokes
one: nobody leaves a foe's reach)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Phase
from lnl_desktop.core.map.sight import sees
from lnl_desktop.core.rules.common import failed
from lnl_desktop.core.rules.d10.model import (
    D10Attack,
    D10Combatant,
    D10Weapon,
    Declare,
    FreeAttack,
    Mishap,
    StandUp,
    TimerNoted,
    UseItem,
    WeaponKind,
)
from lnl_desktop.core.rules.d10.rounds import NONE
from lnl_desktop.core.rules.d10.rules import attack_checks, combat_of
from lnl_desktop.core.rules.fight import MELEE_FT, Battlefield, approach_path, melee_gaps

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

SHOOT_FROM_FT = 10.0  # a shot from where it stands needs the foe at least this far
ATTACKING = ("attack", "cast", "grapple", "other")  # declarations an attack keeps to (rules.declaration_check)


def mean_damage(weapon: D10Weapon, tiers: bool) -> float:
    """The mean of the weapon's die as its tier rolls it (two dice kept high or low with tiers on)."""
    s = weapon.sides
    if not tiers or weapon.tier.value == "common":
        return (s + 1) / 2
    high = sum(max(a, b) for a in range(1, s + 1) for b in range(1, s + 1)) / (s * s)
    return high if weapon.tier.value == "masterwork" else s + 1 - high


def best_weapon(c: D10Combatant, ranged: bool, tiers: bool) -> D10Weapon | None:
    """Its best weapon in hand of the kind: the highest mean damage, then the longest reach (RULES §13:
    a reach weapon strikes from 10 ft), the first listed on a tie."""
    found = [w for w in c.weapons if not w.dropped and (w.kind is WeaponKind.RANGED) == ranged and w.area is None]
    return max(found, key=lambda w: (mean_damage(w, tiers), w.reach), default=None)


def dropped_weapon(c: D10Combatant, tiers: bool) -> D10Weapon | None:
    """The weapon it picks up when it holds none: its best dropped one."""
    found = [w for w in c.weapons if w.dropped and w.area is None]
    return max(found, key=lambda w: mean_damage(w, tiers), default=None)


def _gaps(engine: Table, c: D10Combatant, foes: list[D10Combatant]) -> list[float]:
    """Feet ``c`` must move to stand in melee reach of each foe (the battlefield's measure, live)."""
    return melee_gaps(engine, c.id, foes)


def _standing_foes(engine: Table, c: D10Combatant) -> list[D10Combatant]:
    e = engine.encounter
    return [f for f in e.combatants if f.side is not c.side and not f.down and f.id in e.tokens]  # type: ignore[misc]


def _nearest(
    engine: Table, c: D10Combatant, foes: list[D10Combatant], field: Battlefield
) -> tuple[D10Combatant, float] | None:
    gaps = _gaps(engine, c, foes)
    if not foes or min(gaps) == float("inf"):
        return None
    i = gaps.index(min(gaps))
    if field.prefer is not None and c.id in field.ids:  # the GM's pinned foe first, while it stands
        pinned = int(field.prefer[field.index(c.id)])
        ids = [f.id for f in foes]
        if pinned >= 0 and field.ids[pinned] in ids:
            i = ids.index(field.ids[pinned])
    return foes[i], gaps[i]


def _may_shoot(engine: Table, c: D10Combatant, target: D10Combatant, bow: D10Weapon) -> bool:
    """Whether it shoots ``target`` from where it stands: in sight, within range, at least 10 ft away."""
    e = engine.encounter
    feet = e.distance_between(c, target)
    if feet is None or feet < SHOOT_FROM_FT or (bow.max_range_ft is not None and feet > bow.max_range_ft):
        return False
    return sees(e.map, e.tokens[c.id].cell, c.size, e.tokens[target.id].cell, target.size)


def _within(e: Any, c: D10Combatant, target: D10Combatant, feet: float) -> bool:
    """Whether ``target`` stands within ``feet`` of ``c`` (a weapon's reach)."""
    apart = e.distance_between(c, target)
    return apart is not None and apart <= feet


def _strike(engine: Table, c: D10Combatant, t: D10Combatant, weapon: D10Weapon) -> None:
    """The attack, if the rules let it through now (a wall between, out of range: no attack)."""
    e = engine.encounter
    if failed(attack_checks(e, c, t, weapon, weapon.skill)):
        return
    declared = combat_of(e).declared.get(c.id)
    override = declared is not None and declared not in ATTACKING  # a declaration of the table's, before the odds
    engine.apply(D10Attack(attacker=c.id, target=t.id, weapon=weapon.name, override=override))


def take_turn(engine: Table, c: D10Combatant, field: Battlefield) -> None:
    """``c``'s turn by the default tactic, from BeginTurn to EndTurn."""
    e = engine.encounter
    tiers = bool(getattr(e.options, "weapon_tiers", True))
    engine.apply(act.BeginTurn(c.id))
    able = c.incapacitated_by is None and c.id in field.ids  # off the map (retreated in the what-if): no part
    lost = c.lost_attack_round is not None and c.lost_attack_round == e.combat.round
    if able and c.prone:
        engine.apply(StandUp(c.id))
    foes = _standing_foes(engine, c)
    nearest = _nearest(engine, c, foes, field) if able and foes else None
    if nearest is not None:
        target, gap = nearest
        blade = best_weapon(c, ranged=False, tiers=tiers)
        bow = best_weapon(c, ranged=True, tiers=tiers)
        if blade is None and bow is None:
            spare = dropped_weapon(c, tiers)
            if spare is not None:
                engine.apply(UseItem(c.id, text="", pick_up=spare.name, override=True))
        elif gap <= 0 or (blade is not None and _within(e, c, target, blade.reach)):
            if not lost:
                _strike(engine, c, target, blade or bow)  # type: ignore[arg-type]
        elif bow is not None and _may_shoot(engine, c, target, bow):
            if not lost:
                _strike(engine, c, target, bow)
        else:
            moving = c.held_by is None and engine.ruleset.movement.refusal(engine, c) is None  # type: ignore[attr-defined]
            # A reach weapon stops at its reach: the foe must close in past it (RULES §13).
            reach = blade.reach if blade is not None else MELEE_FT
            path = approach_path(engine, c.id, target.id, reach) if moving else None
            if path is not None:
                engine.apply(act.Move(c.id, path=tuple(path)))
            if blade is not None and _within(e, c, target, blade.reach) and not lost:
                _strike(engine, c, target, blade)
    answer_pending(engine)
    engine.apply(act.EndTurn())


def answer_pending(engine: Table) -> None:
    """The default answers: a mishap is the GM's "none", a free attack is taken, a timer is told."""
    pending = engine.encounter.combat.pending
    while pending:
        item = pending[0]
        if item.kind == "mishap":
            engine.apply(Mishap(0, "none"))
        elif item.kind == "free attack":
            striker, target = engine.combatant(item.who), engine.combatant(item.target or "")
            if striker.down or target.down or not any(w.kind is not WeaponKind.RANGED for w in striker.weapons):
                engine.apply(act.SkipPending(0, "the default tactic"))
            else:
                engine.apply(FreeAttack(0))
        elif item.kind == "timer":
            engine.apply(TimerNoted(0))
        else:
            engine.apply(act.SkipPending(0, "the default tactic"))


def declare_attacks(engine: Table) -> None:
    """Everyone standing declares Attack for the coming round (the GM's default declaration)."""
    combat = combat_of(engine.encounter)
    for c in engine.encounter.combatants:
        if not c.down and combat.declaring.get(c.id) != "attack":
            engine.apply(Declare(c.id, "attack"))


def _side_out(engine: Table, side: Any) -> bool:
    ruleset = engine.ruleset  # type: ignore[attr-defined]
    return all(ruleset.fights.out(c) for c in engine.encounter.combatants if c.side is side)


def _over(engine: Table, field: Battlefield) -> bool:
    sides = {c.side for c in engine.encounter.combatants if c.id in field.ids}
    return any(_side_out(engine, side) for side in sides)


def play_fight(engine: Table, field: Battlefield, max_rounds: int) -> None:
    """The rest of one fight by the default tactic: until one side is out or ``max_rounds`` rounds
    have been played (counted from the table's round, that one included)."""
    combat = engine.encounter.combat
    if combat.phase is not Phase.FIGHTING:
        declare_attacks(engine)
        engine.apply(act.StartCombat(situation=NONE))  # the Start combat dialog's default: no surprise roll
    first = engine.encounter.combat.round
    answer_pending(engine)
    if engine.encounter.combat.turn is not None:
        # A turn under way: the tactic finishes it as it would have begun it (its action may be spent).
        c = engine.combatant(engine.encounter.combat.turn.combatant)
        _finish_turn(engine, c, field)
    while not _over(engine, field):
        ready = engine.waiting()
        if ready:
            take_turn(engine, ready[0], field)
            continue
        if engine.encounter.combat.round - first + 1 >= max_rounds:
            break
        declare_attacks(engine)
        engine.apply(act.NextRound())


def _finish_turn(engine: Table, c: D10Combatant, field: Battlefield) -> None:
    """A turn the table began: the attack if its action is unused and a standing foe is in reach, then EndTurn."""
    e = engine.encounter
    turn = e.combat.turn
    assert turn is not None
    tiers = bool(getattr(e.options, "weapon_tiers", True))
    lost = c.lost_attack_round is not None and c.lost_attack_round == e.combat.round
    foes = _standing_foes(engine, c)
    blade = best_weapon(c, ranged=False, tiers=tiers)
    if turn.action is None and not lost and foes and c.incapacitated_by is None and blade is not None:
        close = [f for f in foes if _within(e, c, f, blade.reach)]
        target = _nearest(engine, c, close, field) if close else None
        if target is not None:
            _strike(engine, c, target[0], blade)
    answer_pending(engine)
    engine.apply(act.EndTurn())
