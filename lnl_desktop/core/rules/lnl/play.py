"""The L&L family at the table: the engine's handlers for the actions both Laurels & Loot rulesets
share (attack, cast, parry, dash, leap) and the writing of an attack's outcome into the encounter.

The engine finds these through :attr:`.actions.LnlActions.handlers`; it never imports them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter.events import ActionTaken, Event, Override, WentDown
from lnl_desktop.core.encounter.model import AttackRecord, WeaponKind
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.common import failed
from lnl_desktop.core.rules.lnl.model import (
    SNEAK_MODES,
    ActionKind,
    Attack,
    AttackMode,
    AttackResolved,
    CastSpell,
    Dash,
    ExertionSpent,
    Leap,
    LnLStats,
    Parry,
    ParryStarted,
    ParryState,
    ShieldDestroyed,
    ShieldState,
    WeaponBroken,
    WeaponState,
)
from lnl_desktop.core.rules.lnl.outcome import Application, AttackOutcome

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table
    from lnl_desktop.core.rules.lnl.attacks import LnlAttacks


def _ft(value: float) -> str:
    return f"{value:g} ft"


def _attacks(engine: Table) -> LnlAttacks:
    """The attacks of the engine's ruleset, one of the L&L family (its handlers are these)."""
    return engine.ruleset.attacks  # type: ignore[return-value]


def attack(engine: Table, a: Attack, dice: DiceSource) -> list[Event]:
    attacker, target = engine.combatant(a.attacker), engine.combatant(a.target)
    weapon = attacker.weapon(a.weapon)
    title = f"{attacker.name}'s {a.mode.value} on {target.name}"
    if a.mode is AttackMode.SPELL:
        raise IllegalAction(title, ["cast a spell with CastSpell"])
    checks = engine.turn_checks(attacker, needs_action=True)
    attacks = _attacks(engine)
    checks += attacks.checks(engine.encounter, attacker, target, weapon, a.mode)
    engine.require(title, checks)
    overrides: list[str] = []
    if a.mode in SNEAK_MODES:
        reasons = failed(attacks.sneak_points(engine.encounter, attacker, target, weapon))
        if reasons and not a.override:
            raise IllegalAction(title, reasons)
        overrides = reasons
    outcome = attacks.rules.resolve_attack(
        attacker, target, weapon, a.mode, dice, engine.encounter.options, ignore_dex=a.ignore_dex
    )
    outcome.overrides = overrides
    turn = engine.use_action(attacker, a.mode.value, f"{weapon.name} on {target.name}")
    turn.action_detail = f"{weapon.name} on {target.name}"
    return write_attack(engine, attacker, target, outcome, ranged=weapon.kind is WeaponKind.RANGED)


def cast(engine: Table, a: CastSpell, dice: DiceSource) -> list[Event]:
    caster, target = engine.combatant(a.caster), engine.combatant(a.target)
    spell = caster.spell(a.spell)
    title = f"{caster.name} casting {spell.name} on {target.name}"
    checks = engine.turn_checks(caster, needs_action=True)
    attacks = _attacks(engine)
    checks += attacks.checks(engine.encounter, caster, target, spell, AttackMode.SPELL)
    engine.require(title, checks)
    outcome = attacks.rules.resolve_attack(
        caster, target, spell, AttackMode.SPELL, dice, engine.encounter.options, ignore_dex=a.ignore_dex
    )
    engine.use_action(caster, ActionKind.SPELL, f"{spell.name} on {target.name}")
    # A spell that reaches past melee is a ranged attack for the target's distraction.
    ranged = spell.range_ft is None or spell.range_ft > 5
    return write_attack(engine, caster, target, outcome, ranged=ranged)


def write_attack(engine: Table, attacker: LnLStats, target: LnLStats, o: AttackOutcome, ranged: bool) -> list[Event]:
    """Write an attack's outcome into the encounter and describe it."""
    rnd = engine.encounter.combat.round
    ap = o.application
    was_up = land(target, ap)
    events: list[Event] = []
    if o.breaks_weapon:
        attacker.weapon(o.means).state = WeaponState.BROKEN
    elif o.mode is not AttackMode.SPELL and attacker.weapon(o.means).state is WeaponState.SHEATHED:
        attacker.weapon(o.means).state = WeaponState.READY  # drawing it is part of the attack
    if o.mode in SNEAK_MODES:
        attacker.concealed = False  # the sneak attack gives the attacker away
    spent = min(o.exertion_cost, attacker.stamina)  # exertion never takes SP below 0
    attacker.stamina -= spent
    record_blow(engine, attacker, target, ranged)

    actors = (attacker.id, target.id)
    verb = (
        "casts"
        if o.mode is AttackMode.SPELL
        else {
            AttackMode.ATTACK: "attacks",
            AttackMode.POWER: "power-attacks",
            AttackMode.SNEAK: "sneak-attacks",
            AttackMode.SNEAK_POWER: "sneak-attacks (Power Attack)",
        }[o.mode]
    )
    resolved = AttackResolved(
        round=rnd,
        text="",
        actors=actors,
        attacker=attacker.id,
        target=target.id,
        means=o.means,
        mode=o.mode.value,  # type: ignore[arg-type]
        attack_kind=o.attack_kind,
        die=o.die,
        dice_count=o.dice_count,
        faces=o.faces,
        dice_total=o.dice_total,
        magic_bonus=o.magic_bonus,
        magic_term=o.magic_term,
        ability=o.ability,
        ability_term=o.ability_term,
        dex_term=o.dex_term,
        dex_ignored=o.dex_ignored,
        ap_term=o.ap_term,
        ap_ignored=o.ap_ignored,
        raw=o.raw,
        damage=o.damage,
        direct=o.direct,
        precision=o.precision,
        parried_with=ap.parried_with,
        stopped=ap.stopped,
        shield_damage=ap.shield_damage,
        to_sp=ap.to_sp,
        to_ip=ap.to_ip,
        overkill=ap.overkill,
        target_sp=target.stamina,
        target_ip=target.injury,
        overrides=o.overrides,
    )
    check = ""
    if o.precision is not None:
        p = o.precision
        check = (
            f" AWA check {p.face} + {p.bonus} = {p.total} vs DC {p.dc}: "
            f"{'armor ignored' if p.success else 'armor applies'};"
        )
    kind = "direct " if o.direct else ""
    text = (
        f"{attacker.name} {verb} {target.name} with {o.means} ({o.dice_count}{o.die}):{check} "
        f"{resolved.formula} {kind}damage → {', '.join(resolved.where_it_went) or 'no harm'}. "
        f"{target.name}: {target.stamina} SP, {target.injury} IP"
    )
    events.append(resolved.model_copy(update={"text": text}))
    if o.overrides:
        events.append(
            Override(
                round=rnd,
                text=f"GM override for {attacker.name}'s sneak attack: {'; '.join(o.overrides)}",
                actors=actors,
            )
        )
    if o.exertion_face is not None:
        events.append(
            ExertionSpent(
                round=rnd,
                text=f"{attacker.name} spends {spent} SP of exertion (d4: {o.exertion_face}"
                f"{', halved' if o.exertion_cost != o.exertion_face else ''}"
                f"{'' if spent == o.exertion_cost else f', only {spent} SP left'}): {attacker.stamina} SP",
                actors=(attacker.id,),
                combatant=attacker.id,
                face=o.exertion_face,
                cost=spent,
                stamina=attacker.stamina,
            )
        )
    if o.breaks_weapon:
        events.append(
            WeaponBroken(
                round=rnd,
                text=f"{attacker.name}'s {o.means} breaks after the Power Attack",
                actors=(attacker.id,),
                combatant=attacker.id,
                weapon=o.means,
            )
        )
    return events + after_blow(engine, target, ap, was_up)


def land(target: LnLStats, ap: Application) -> bool:
    """Write where a blow's damage went on its target (SP, IP, what a parry spent); whether it was up before."""
    was_up = not target.down
    target.stamina = ap.stamina_after
    target.injury = ap.injury_after
    if ap.parried_with is not None and target.parry is not None:
        if ap.parry_explosions is not None:
            target.parry = target.parry.model_copy(update={"explosions": ap.parry_explosions})
        if ap.parry_weapon_shattered:
            target.weapon(ap.parry_weapon_shattered).state = WeaponState.BROKEN
        if ap.shield_durability_after is not None and target.shield is not None:
            target.shield.durability = ap.shield_durability_after
        if ap.shield_destroyed and target.shield is not None:
            target.shield.state = ShieldState.DESTROYED
        if ap.parry_ends:
            target.parry = None
    return was_up


def record_blow(engine: Table, attacker: LnLStats, target: LnLStats, ranged: bool) -> None:
    """Remember who struck whom this round (RULES §7: no sneak attack on a target attacked last round),
    and a blow from afar, which distracts the target until its next turn."""
    combat = engine.encounter.combat
    combat.attacks.append(AttackRecord(round=combat.round, attacker=attacker.id, target=target.id))
    if ranged:
        hits = combat.ranged_hits.setdefault(target.id, [])
        if attacker.id not in hits:
            hits.append(attacker.id)


def after_blow(engine: Table, target: LnLStats, ap: Application, was_up: bool) -> list[Event]:
    """What follows a blow for its target, after the blow's own entry: a parrying weapon shattered,
    a shield destroyed, the target down."""
    rnd = engine.encounter.combat.round
    events: list[Event] = []
    if ap.parry_weapon_shattered:
        events.append(
            WeaponBroken(
                round=rnd,
                text=f"{target.name}'s {ap.parry_weapon_shattered} shatters; the parry stops nothing more",
                actors=(target.id,),
                combatant=target.id,
                weapon=ap.parry_weapon_shattered,
            )
        )
    if ap.shield_destroyed:
        events.append(
            ShieldDestroyed(
                round=rnd, text=f"{target.name}'s shield is destroyed", actors=(target.id,), combatant=target.id
            )
        )
    if was_up and target.down:
        over = f" ({ap.overkill} overkill)" if ap.overkill else ""
        events.append(
            WentDown(
                round=rnd,
                text=f"{target.name} is down{over}",
                actors=(target.id,),
                combatant=target.id,
                overkill=ap.overkill,
            )
        )
    return events


def parry(engine: Table, a: Parry, dice: DiceSource) -> list[Event]:
    c = engine.combatant(a.combatant)
    title = f"{c.name}'s parry"
    reasons: list[str] = []
    if a.shield == (a.weapon is not None):
        reasons.append("parry with either a weapon or a shield")
    elif a.shield:
        if c.shield is None:
            reasons.append(f"{c.name} has no shield")
        elif c.shield.state is ShieldState.DESTROYED:
            reasons.append(f"{c.name}'s shield is destroyed")
        elif c.shield.state is not ShieldState.CARRIED:
            reasons.append(f"{c.name}'s shield is not carried")
    else:
        assert a.weapon is not None
        state = c.weapon(a.weapon).state
        if state is WeaponState.BROKEN:
            reasons.append(f"{a.weapon} is broken")
        elif state is WeaponState.SHEATHED:
            reasons.append(f"{a.weapon} is sheathed: a parry needs a ready weapon")
    if reasons:
        raise IllegalAction(title, reasons)
    with_ = "shield" if a.shield else str(a.weapon)
    engine.use_action(c, ActionKind.PARRY, with_)
    c.parry = ParryState(shield=a.shield, weapon=a.weapon)
    return [
        ParryStarted(
            round=engine.encounter.combat.round,
            text=f"{c.name} parries with {'the shield' if a.shield else a.weapon} until the next turn",
            actors=(c.id,),
            combatant=c.id,
            shield=a.shield,
            weapon=a.weapon,
        )
    ]


def dash(engine: Table, a: Dash, dice: DiceSource) -> list[Event]:
    return extra_movement(engine, a.combatant, ActionKind.DASH, engine.encounter.options.dash_moves)


def leap(engine: Table, a: Leap, dice: DiceSource) -> list[Event]:
    return extra_movement(engine, a.combatant, ActionKind.LEAP, engine.encounter.options.leap_moves)


def extra_movement(engine: Table, cid: str, kind: ActionKind, moves: float) -> list[Event]:
    c = engine.combatant(cid)
    turn = engine.use_action(c, kind)
    extra = c.move_ft * moves
    turn.extra_ft += extra
    leap = kind is ActionKind.LEAP
    if leap:
        turn.leaping = True
    left = engine.feet_left(c.id)
    more = " over obstacles and difficult terrain" if leap and engine.encounter.options.leap_ignores_terrain else ""
    return [
        ActionTaken(
            round=engine.encounter.combat.round,
            text=f"{c.name} {'leaps' if leap else 'dashes'}: +{_ft(extra)}{more}, {_ft(left or 0)} of movement left",
            actors=(c.id,),
            combatant=c.id,
            action=kind.value,
            extra_ft=extra,
        )
    ]
