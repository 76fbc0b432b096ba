"""Group d10 at the table (RULES §13): the engine's handlers for the ruleset's actions and prompts:
declarations, attacks and free attacks with criticals and mishaps, minions and wounds, parry /
dodge, disengage, items, sprints, grapples, saving throws and opposed rolls (timer dice: timers.py).

Every roll goes through the dice source, so the GM may type the faces of physical dice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.events import ActionTaken, Event, Override, RulesEvent, WentDown
from lnl_desktop.core.encounter.model import Pending, Phase
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.sight import sees
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.common import Check, pending_item
from lnl_desktop.core.rules.d10.conditions import HIDDEN, disarm, release, set_grapple
from lnl_desktop.core.rules.d10.model import (
    AS_DECLARED,
    DECLARED_LABEL,
    MISHAPS,
    ON_20,
    PICK_UP_DECLARED,
    SAVE_DC,
    SAVE_DICE,
    SKILL_NAMES,
    STAKES,
    BreakFree,
    D10Attack,
    D10Combatant,
    D10Options,
    D10Weapon,
    Declare,
    Disengage,
    FreeAttack,
    Grapple,
    LetGo,
    Mishap,
    OpposedRoll,
    ParryDodge,
    SavingThrow,
    Sprint,
    StandUp,
    Stealth,
    Tier,
    UseItem,
    WeaponKind,
)
from lnl_desktop.core.rules.d10.rules import (
    NAME,
    Edge,
    attack_checks,
    combat_of,
    damage_after,
    declaration_check,
    edge_of,
    grapple_checks,
    helpless,
    item_checks,
    may_free_attack,
    roll_d20s,
    roll_weapon,
    shown_d20,
    stand_checks,
    tier_of,
    to_hit,
    tripped,
    turn_attack_checks,
)

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


# -- the engine's handlers -------------------------------------------------------------------------


def _c(engine: Table, cid: str) -> D10Combatant:
    return engine.combatant(cid)  # type: ignore[no-any-return]


def melee_reach(c: D10Combatant) -> float:
    """A foe's reach (RULES §13): that of its longest melee weapon in hand, 5 ft (10 ft with a reach weapon)."""
    return float(max((w.reach for w in c.weapons if w.skill == "melee" and not w.dropped), default=5))


def provocations(engine: Table, mover: D10Combatant, path: list[tuple[int, int]]) -> list:
    """The steps of ``path`` that leave a foe's reach (RULES §13): stepping round it within reach is free."""
    e = engine.encounter
    return engagement.provocations(e, mover, path, melee_reach, lambda s, m: may_free_attack(e, s, m), leaving=True)


def after_move(engine: Table, mover: D10Combatant, path: list[tuple[int, int]], forced: bool) -> list[Event]:
    if forced or mover.disengaged:
        return []
    strikers = [cid for step in provocations(engine, mover, path) for cid in step.attackers]
    return engagement.queue(
        engine.encounter,
        mover,
        strikers,
        "free attack",
        lambda name: f"{name} may make a free attack on {mover.name} (moved away from it)",
        f"{mover.name} moves away",
        NAME,
    )


def _overridden(engine: Table, c: D10Combatant, keys: tuple[str, ...], what: str, override: bool) -> list[Event]:
    declared = combat_of(engine.encounter).declared.get(c.id)
    if not override or declared is None or declared in keys or declared == "other":
        return []
    said = DECLARED_LABEL.get(declared, declared)
    text = f"GM override: {c.name} declared “{said}” and {what} instead"
    return [Override(round=engine.encounter.combat.round, text=text, actors=(c.id,))]


def take_action(
    engine: Table,
    c: D10Combatant,
    key: str,
    title: str,
    checks: list[Check],
    override: bool,
    does: str,
    detail: str = "",
    keys: tuple[str, ...] | None = None,
) -> list[Event]:
    """Take the turn's action ``key`` once its checks hold, the declaration among them (or the GM's
    override, logged): its next action has come, so a parry / dodge in force ends."""
    keys = keys or AS_DECLARED.get(key, (key,))
    engine.require(
        title,
        [*engine.turn_checks(c, needs_action=True), *checks, *declaration_check(engine.encounter, c, keys, override)],
    )
    engine.use_action(c, "attack" if key == "cast" else key, detail)
    c.parrying = False
    return _overridden(engine, c, keys, does, override)


def declare(engine: Table, a: Declare, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    combat = combat_of(e)
    c = _c(engine, a.combatant)
    if a.action not in DECLARED_LABEL:
        raise IllegalAction(f"{c.name}: declare", [f"{a.action!r} is not an action to declare"])
    target = e.by_id().get(a.target) if a.target else None
    if a.target and (target is None or target.id == c.id):
        said = "itself" if a.target == c.id else f"{a.target!r}, who is not in the encounter"
        raise IllegalAction(f"{c.name}: declare", [f"it cannot declare against {said}"])
    label = DECLARED_LABEL[a.action] + (f" on {target.name}" if target is not None else "")
    under_way = combat.phase is Phase.FIGHTING and not engine.round_over
    actions, targets = (
        (combat.declared, combat.declared_targets) if under_way else (combat.declaring, combat.declaring_targets)
    )
    old, old_target = actions.get(c.id), targets.get(c.id, "")
    if old == a.action and old_target == a.target:
        raise IllegalAction(f"{c.name}: declare", [f"already declared {label}"])
    actions[c.id] = a.action
    if a.target:
        targets[c.id] = a.target
    else:
        targets.pop(c.id, None)
    if not under_way:
        coming = "round 1" if combat.phase is not Phase.FIGHTING else f"round {combat.round + 1}"
        return [
            ActionTaken(
                round=combat.round,
                text=f"{c.name} declares for {coming}: {label}",
                actors=(c.id,),
                combatant=c.id,
                action="declare",
                detail=a.action,
            )
        ]
    was = DECLARED_LABEL.get(old, "nothing") if old else "nothing"
    if old_target in e.by_id():
        was += f" on {e.combatant(old_target).name}"
    return [
        Override(
            round=combat.round,
            text=f"GM override: {c.name}'s declared action changes from {was} to {label}",
            actors=(c.id,),
        )
    ]


def change_of_plan(engine: Table, c: D10Combatant, t: D10Combatant) -> list[Event]:
    """Attacking another than the declared target is allowed (RULES §13): the log says so."""
    e = engine.encounter
    planned = combat_of(e).declared_targets.get(c.id)
    if not planned or planned == t.id or planned not in e.by_id():
        return []
    text = f"Change of plan: {c.name} declared an attack on {e.combatant(planned).name} and attacks {t.name} instead"
    return [Override(round=e.combat.round, text=text, actors=(c.id, t.id))]


def attack(engine: Table, a: D10Attack, dice: DiceSource) -> list[Event]:
    c, t = _c(engine, a.attacker), _c(engine, a.target)
    weapon = c.weapon(a.weapon)
    skill = a.skill or weapon.skill
    checks = turn_attack_checks(engine.encounter, c) + attack_checks(engine.encounter, c, t, weapon, skill)
    if a.subdual and helpless(t):
        checks.append(Check("Awake", False, f"{t.name} is unconscious already: a plain attack finishes it"))
    key = "cast" if skill == "casting" else "attack"
    events: list[Event] = take_action(
        engine, c, key, f"{c.name}: attack", checks, a.override, "attacks", f"{weapon.name} at {t.name}"
    )
    events += change_of_plan(engine, c, t)
    edge = edge_of(
        engine.encounter,
        c,
        t,
        gm_edge=a.gm_edge,
        gm_reason=a.gm_reason,
        cover=a.cover,
        called_shot=a.called_shot,
        extreme_range=a.extreme_range,
        subdual=a.subdual,
    )
    events += strike(engine, c, t, weapon, skill, edge, dice, subdual=a.subdual, on_20=a.on_20, ignores_dr=a.ignores_dr)
    if c.drop_condition(HIDDEN):
        text = f"{c.name} is seen: its attack gave it away (no longer hidden)"
        events.append(Override(round=engine.encounter.combat.round, text=text, actors=(c.id,)))
    return events


def could_see(engine: Table, watcher: D10Combatant, c: D10Combatant) -> bool:
    """Whether ``watcher`` has a line of sight to ``c`` (no wall or closed door on every line);
    off the map, it is taken to see it."""
    tokens = engine.encounter.tokens
    tw, tc = tokens.get(watcher.id), tokens.get(c.id)
    if tw is None or tc is None:
        return True
    return sees(engine.encounter.map, tw.cell, watcher.size, tc.cell, c.size)


def stealth(engine: Table, a: Stealth, dice: DiceSource) -> list[Event]:
    """The Stealth action (RULES §13): d20 + stealth against d20 + the best perception of the foes
    who could see it; higher (a tie is seen), it is hidden until its attack gives it away."""
    c = _c(engine, a.combatant)
    e = engine.encounter
    events = take_action(engine, c, "stealth", f"{c.name}: stealth", [], a.override, "uses Stealth")
    face = roll_plain(dice, 20, f"d20 for {c.name} ({SKILL_NAMES['stealth']})").face
    total = face + c.stealth
    said = f"{c.name} uses Stealth: d20 {face} {c.stealth:+d} Stealth = {total}"
    foes: list[D10Combatant] = [f for f in e.combatants if f.side is not c.side and not f.down]  # type: ignore[misc]
    watchers = [f for f in foes if could_see(engine, f, c)]
    detail: dict[str, int | float | str | bool | None] = {"combatant": c.id, "d20": face, "total": total}
    if watchers:
        best = max(watchers, key=lambda f: f.perception)
        fw = roll_plain(dice, 20, f"d20 for {best.name} ({SKILL_NAMES['perception']}, the best)").face
        seen_total = fw + best.perception
        hidden = total > seen_total
        said += (
            f" against {best.name} d20 {fw} {best.perception:+d} Perception = {seen_total}"
            " (the best of the foes who could see it)"
        )
        detail.update(watcher=best.id, perception=seen_total)
    else:
        hidden = True
        said += " (no foe could see it)"
    detail.update(hidden=hidden)
    if hidden:
        c.add_condition(HIDDEN)
        result = "hidden: its next attack on an unsuspecting foe has advantage; its move is still free"
    else:
        c.drop_condition(HIDDEN)
        result = "seen" + (" (a tie: it must roll higher)" if watchers and total == seen_total else "")
    text = f"{said}: {result}"
    return [
        *events,
        RulesEvent(round=e.combat.round, text=text, actors=(c.id,), ruleset=NAME, name="stealth", detail=detail),
    ]


def strike(
    engine: Table,
    c: D10Combatant,
    t: D10Combatant,
    weapon: D10Weapon,
    skill: str,
    edge: Edge,
    dice: DiceSource,
    *,
    subdual: bool = False,
    on_20: str = ON_20[0],
    what: str = "attacks",
    ignores_dr: bool = False,
) -> list[Event]:
    e = engine.encounter
    options: D10Options = e.options  # type: ignore[assignment]
    rnd = e.combat.round
    hit = to_hit(e, c, t, skill, edge)
    faces, face = roll_d20s(dice, edge, f"d20 to hit {t.name}")
    shown = shown_d20(faces, face, edge)
    reasons = "" if edge.mode == "normal" else f"; {edge.words()}"
    head = (
        f"{c.name} {what} {t.name} with {weapon.name}: {shown} {hit.terms()} = {face + hit.bonus} "
        f"vs Defense {t.defense}{reasons}"
    )
    detail: dict[str, int | float | str | bool | None] = {
        "attacker": c.id,
        "target": t.id,
        "weapon": weapon.name,
        "d20": face,
        "dice": len(faces),
        "edge": edge.mode,
        # The roll in words, for the Action dock's result.
        "to_hit": f"{shown} {hit.terms()} = {face + hit.bonus}",
        "defense": t.defense,
        "edge_words": "" if edge.mode == "normal" else edge.words(),
        "what": what,
    }
    if not hit.hits(face):
        events: list[Event] = []
        text = f"{head}: miss" + (" (natural 1: critical failure)" if face == 1 else "")
        events.append(RulesEvent(round=rnd, text=text, actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail))
        if face == 1:
            e.combat.pending.append(
                Pending(
                    kind="mishap",
                    who=c.id,
                    text=f"{c.name} rolled a natural 1: pick a mishap (drops weapon, trips prone, overextended)",
                    urgent=True,
                    round=rnd,
                )
            )
        return events
    critical = face == 20
    if critical and on_20 == "grapple":
        set_grapple(c, t)
        text = f"{head}: natural 20, critical: no damage, {c.name} grapples {t.name}"
        detail.update(critical=True, outcome=f"{c.name} grapples {t.name}")
        held = f"{t.name} is grappled by {c.name}: Move 0 until it breaks free (an opposed roll on its turn)"
        return [
            RulesEvent(round=rnd, text=text, actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail),
            Override(round=rnd, text=f"Critical: {held}", actors=(t.id,)),
        ]
    rolled_faces, rolled = roll_weapon(dice, weapon, options)
    double = critical and on_20 == "double damage"
    dr = 0 if ignores_dr else t.dr
    amount = damage_after(rolled, double, dr)
    tier = tier_of(weapon, options)
    dice_text = (
        f"{weapon.die} {rolled}"
        if tier is Tier.COMMON
        else f"{weapon.die} {'/'.join(str(f) for f in rolled_faces)} ({tier.value}: {rolled})"
    )
    armor = " (ignores DR)" if ignores_dr and t.dr else f" -{t.dr} DR" if t.dr else ""
    formula = f"{dice_text}{' x2 critical' if double else ''}{armor} = {amount}"
    detail.update(damage=amount, critical=critical, damage_roll=formula, dr=dr, ignores_dr=ignores_dr)
    events = []
    finishing = helpless(t) and not subdual
    before, minion_died = hit_hp(t, amount, any_hit=True)
    outcome = f"{t.name} is a minion: dies on any hit" if minion_died else f"{t.name} {t.hp}/{t.hp_max} HP"
    detail.update(outcome=outcome)
    crit = " (natural 20: critical)" if critical else ""
    text = f"{head}{crit}: hit; damage {formula} → {outcome}"
    events.append(RulesEvent(round=rnd, text=text, actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail))
    if critical and on_20 == "disarm" and not t.down:
        events.append(Override(round=rnd, text=f"Critical: {disarm(t)}", actors=(t.id,)))
    elif critical and on_20 == "knock prone" and not t.down:
        t.add_condition("prone")
        words = "attackers have advantage against it until it stands (its move action)"
        events.append(Override(round=rnd, text=f"Critical: {t.name} is knocked prone: {words}", actors=(t.id,)))
    events += after_hit(engine, t, before, minion_died, subdual)
    if finishing and amount > 0 and t.hp == 0 and not t.dead:
        # Knocked out at 0 HP by subdual: a damaging blow finishes it.
        t.dead = True
        text = f"{t.name} is finished off: unconscious at 0 HP, it dies"
        events.append(WentDown(round=rnd, text=text, actors=(t.id,), combatant=t.id, overkill=0))
    return events


def hit_hp(t: D10Combatant, dealt: int, *, any_hit: bool = False) -> tuple[int, bool]:
    """Take ``dealt`` (after DR) off ``t``'s HP, not below 0: a minion dies on any damage, or on any
    hit at all with ``any_hit`` (a to-hit roll that lands). Its HP before, and whether a minion died."""
    before = t.hp
    if t.minion and (any_hit or dealt > 0):
        t.hp, t.dead = 0, True
        return before, True
    t.hp = max(0, t.hp - dealt)
    return before, False


def after_hit(engine: Table, t: D10Combatant, before: int, minion_died: bool, subdual: bool = False) -> list[Event]:
    """What a blow's damage sets off (RULES §13): a minion's death, exactly 1 HP a lasting wound, 0 HP
    dead (unconscious from subdual); one that is down loses its free attacks and lets go of its grapples."""
    rnd = engine.encounter.combat.round
    events: list[Event] = []
    if minion_died:
        events.append(WentDown(round=rnd, text=f"{t.name} dies", actors=(t.id,), combatant=t.id, overkill=0))
    elif t.hp != before:
        events += hp_effects(engine, t, subdual)
    if t.down:
        events += engagement.lapse(engine.encounter, "free attack", t)
        events += release_all(engine, t)
    return events


# -- grapples and standing up (RULES §13; the conditions they set in conditions.py) ----------------


def release_all(engine: Table, grappler: D10Combatant) -> list[Event]:
    """A grappler that goes down lets go of whoever it held."""
    events: list[Event] = []
    for other in engine.encounter.combatants:
        held: D10Combatant = other  # type: ignore[assignment]
        if held.holder == grappler.id:
            release(held)
            text = f"{held.name} is no longer grappled ({grappler.name} is down)"
            events.append(Override(round=engine.encounter.combat.round, text=text, actors=(held.id,)))
    return events


def break_free_checks(engine: Table, c: D10Combatant) -> list[Check]:
    holder = c.holder
    if not c.has("grappled"):
        return [Check("Grappled", False, f"{c.name} is not grappled")]
    if holder is None or holder not in engine.encounter.by_id():
        return [
            Check(
                "Its grappler",
                False,
                f"nobody holds {c.name} in the app: the GM removes “grappled” on the sheet, or uses an opposed roll",
            )
        ]
    return [Check("Grappled", True, f"held by {_c(engine, holder).name}")]


def _contest(engine: Table, x: D10Combatant, y: D10Combatant, dice: DiceSource, what: str) -> tuple[int, int, str]:
    """d20 + feats of strength each (x first): the totals and the words."""
    bx, by = x.strength, y.strength
    fx = roll_plain(dice, 20, f"d20 for {x.name} ({SKILL_NAMES['strength']})").face
    fy = roll_plain(dice, 20, f"d20 for {y.name} ({SKILL_NAMES['strength']})").face
    words = (
        f"{what}: {x.name} d20 {fx} {bx:+d} feats of strength = {fx + bx} against "
        f"{y.name} d20 {fy} {by:+d} feats of strength = {fy + by}"
    )
    return fx + bx, fy + by, words


def _contest_event(engine: Table, name: str, said: str, result: str, totals: tuple[int, int], **who: str) -> RulesEvent:
    """The log line of a grapple or a break-free: the two totals, who won, the rolls in words; ``who``
    names the two sides (first the one who rolled first), as the results read them."""
    first, second = totals
    detail: dict[str, int | float | str | bool | None] = {
        **who,
        "first": first,
        "second": second,
        "won": first > second,
        "rolls": said.split(": ", 1)[1],
    }
    return RulesEvent(
        round=engine.encounter.combat.round,
        text=f"{said}: {result}",
        actors=tuple(who.values()),
        ruleset=NAME,
        name=name,
        detail=detail,
    )


def grapple(engine: Table, a: Grapple, dice: DiceSource) -> list[Event]:
    c, t = _c(engine, a.attacker), _c(engine, a.target)
    checks = turn_attack_checks(engine.encounter, c) + grapple_checks(engine.encounter, c, t)
    events = take_action(engine, c, "grapple", f"{c.name}: grapple", checks, a.override, "grapples", t.name)
    tx, ty, said = _contest(engine, c, t, dice, f"{c.name} grapples {t.name}")
    won = tx > ty
    if won:
        set_grapple(c, t)
        result = f"{t.name} is grappled by {c.name}: Move 0 until it breaks free"
    else:
        result = f"{t.name} evades the grapple" + (" (a tie: the grappler must roll higher)" if tx == ty else "")
    return [*events, _contest_event(engine, "grapple", said, result, (tx, ty), attacker=c.id, target=t.id)]


def break_free(engine: Table, a: BreakFree, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    checks = turn_attack_checks(engine.encounter, c) + break_free_checks(engine, c)
    holder = c.holder
    holder_name = _c(engine, holder).name if holder and holder in engine.encounter.by_id() else "?"
    events = take_action(
        engine, c, "break free", f"{c.name}: break free", checks, a.override, "tries to break free", holder_name
    )
    assert holder is not None
    g = _c(engine, holder)
    tx, ty, said = _contest(engine, c, g, dice, f"{c.name} tries to break free of {g.name}")
    won = tx > ty
    if won:
        release(c)
        result = f"{c.name} breaks free"
    else:
        result = f"{c.name} is still grappled" + (" (a tie: it must roll higher)" if tx == ty else "")
    return [*events, _contest_event(engine, "break free", said, result, (tx, ty), combatant=c.id, grappler=g.id)]


def let_go(engine: Table, a: LetGo, dice: DiceSource) -> list[Event]:
    g, t = _c(engine, a.grappler), _c(engine, a.target)
    if t.holder != g.id:
        raise IllegalAction(f"{g.name}: let go", [f"{g.name} does not hold {t.name}"])
    release(t)
    text = f"{g.name} lets go of {t.name}: it is no longer grappled"
    return [
        RulesEvent(round=engine.encounter.combat.round, text=text, actors=(g.id, t.id), ruleset=NAME, name="let go")
    ]


def stand_up(engine: Table, a: StandUp, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    engine.require(
        f"{c.name}: stand up", [*engine.turn_checks(c, needs_action=False), *stand_checks(engine.encounter, c)]
    )
    # Tripped: getting up is part of the attack the trip cost it, so its move stays.
    trip = tripped(c) and c.lost_attack_round == engine.encounter.combat.round
    c.drop_condition("prone")
    c.stood_up = not trip
    said = "getting up is part of the attack its trip cost, its move stays" if trip else "standing takes its move"
    text = f"{c.name} stands up: no longer prone; {said} this turn"
    return [
        RulesEvent(
            round=engine.encounter.combat.round, text=text, actors=(c.id,), ruleset=NAME, name="stand up", detail={}
        )
    ]


# -- saving throws ---------------------------------------------------------------------------------


def saving_throw(engine: Table, a: SavingThrow, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    title = f"{c.name}: saving throw"
    low, high = SAVE_DC
    problems = []
    if not low <= a.dc <= high:
        problems.append(f"the DC must be {low} to {high} (not {a.dc})")
    if a.skill not in SKILL_NAMES:
        problems.append(f"{a.skill!r} is not a skill ({', '.join(SKILL_NAMES.values())})")
    if a.damage_die not in SAVE_DICE:
        problems.append(f"{a.damage_die!r} is not a damage die ({', '.join(SAVE_DICE)})")
    if c.dead:
        problems.append(f"{c.name} is dead")
    if problems:
        raise IllegalAction(title, problems)
    rnd = engine.encounter.combat.round
    bonus = c.skill(a.skill)
    face = roll_plain(dice, 20, f"save d20 for {c.name} ({SKILL_NAMES[a.skill]}, DC {a.dc})").face
    total = face + bonus
    saved = total >= a.dc
    what = f" against {a.what.strip()}" if a.what.strip() else ""
    roll = f"d20 {face} {bonus:+d} {SKILL_NAMES[a.skill]} = {total} vs DC {a.dc}"
    detail: dict[str, int | float | str | bool | None] = {
        "combatant": c.id,
        "d20": face,
        "total": total,
        "dc": a.dc,
        "saved": saved,
        "roll": roll,
        "what": a.what.strip(),
    }
    condition = a.condition.strip()
    consequences: list[str] = []
    follow: list[Event] = []
    if not saved:
        if condition and condition.casefold() != "none":
            if c.add_condition(condition):
                consequences.append(f"{c.name} is {condition}")
            else:
                consequences.append(f"{c.name} was already {condition}")
        if a.damage_die != "none" and not c.down:
            rolled = roll_plain(dice, int(a.damage_die[1:]), f"{a.damage_die} damage{what}").face
            dr = 0 if a.ignores_dr else c.dr
            amount = damage_after(rolled, False, dr)
            armor = " (ignores DR)" if a.ignores_dr and c.dr else f" -{c.dr} DR" if c.dr else ""
            before, minion_died = hit_hp(c, amount)
            outcome = f"{c.name} is a minion: dies" if minion_died else f"{c.name} {c.hp}/{c.hp_max} HP"
            follow += after_hit(engine, c, before, minion_died)
            formula = f"{a.damage_die} {rolled}{armor} = {amount}"
            detail.update(damage=amount, damage_roll=formula, outcome=outcome)
            consequences.append(f"damage {formula} → {outcome}")
        if not consequences:
            consequences.append("the GM tells what follows")
    result = "saved" if saved else "failed: " + "; ".join(consequences)
    text = f"{c.name} saves{what} ({SKILL_NAMES[a.skill]}): {roll}: {result}"
    return [
        RulesEvent(round=rnd, text=text, actors=(c.id,), ruleset=NAME, name="save", detail=detail),
        *follow,
    ]


def hp_effects(engine: Table, t: D10Combatant, subdual: bool) -> list[Event]:
    """Exactly 1 HP: a lasting wound (not from subdual); 0 HP: dead, or unconscious from subdual."""
    rnd = engine.encounter.combat.round
    if t.hp == 1 and not subdual and not t.has("wounded"):
        t.conditions.append("wounded")
        return [Override(round=rnd, text=f"{t.name} is at 1 HP: a lasting wound (Wounded)", actors=(t.id,))]
    if t.hp == 0:
        if subdual:
            t.add_condition("unconscious")
            return [
                WentDown(
                    round=rnd,
                    text=f"{t.name} is knocked unconscious (subdual)",
                    actors=(t.id,),
                    combatant=t.id,
                    overkill=0,
                )
            ]
        t.dead = True
        return [WentDown(round=rnd, text=f"{t.name} dies (0 HP)", actors=(t.id,), combatant=t.id, overkill=0)]
    return []


def free_attack(engine: Table, a: FreeAttack, dice: DiceSource) -> list[Event]:
    pending = engine.encounter.combat.pending
    item = pending_item(engine.encounter, a.index, "free attack", "Free attack")
    c, t = _c(engine, item.who), _c(engine, item.target or "")
    melee = [w for w in c.weapons if w.kind is not WeaponKind.RANGED]
    weapon = c.weapon(a.weapon) if a.weapon else (melee[0] if melee else None)
    if weapon is None:
        raise IllegalAction(f"{c.name}: free attack", [f"{c.name} has no melee weapon"])
    if c.down or t.down:
        raise IllegalAction(f"{c.name}: free attack", [f"{(c if c.down else t).name} is down"])
    pending.pop(a.index)
    edge = edge_of(engine.encounter, c, t)
    return strike(engine, c, t, weapon, "melee", edge, dice, on_20=a.on_20, what="makes a free attack on")


def mishap(engine: Table, a: Mishap, dice: DiceSource) -> list[Event]:
    item = pending_item(engine.encounter, a.index, "mishap", "Mishap")
    if a.choice not in MISHAPS:
        raise IllegalAction("Mishap", [f"{a.choice!r} is not one of: {', '.join(MISHAPS)}"])
    engine.encounter.combat.pending.pop(a.index)
    c = _c(engine, item.who)
    rnd = engine.encounter.combat.round
    if a.choice == "none":
        return [Override(round=rnd, text=f"{c.name}'s critical failure: no mishap (the GM's pick)", actors=(c.id,))]
    if a.choice == "drops weapon":
        c.lost_attack_round = rnd + 1
        c.add_condition("dropped weapon")
        words = "drops its weapon and loses its attack next round"
    elif a.choice == "trips prone":
        c.lost_attack_round = rnd + 1
        c.add_condition("prone")
        words = "trips and falls prone: it loses its attack next round, attackers gain advantage"
    else:
        c.overextended_round = rnd + 1
        words = "is overextended: its foes gain advantage against it next round"
    return [Override(round=rnd, text=f"{c.name}'s critical failure: {words}", actors=(c.id,))]


def parry(engine: Table, a: ParryDodge, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    turn = engine.encounter.combat.turn
    moved = turn.feet_used if turn is not None and turn.combatant == c.id else 0
    checks = [Check("Not moved yet", not moved, f"moved {moved:g} ft; Parry / dodge uses the move too")]
    events = take_action(engine, c, "parry", f"{c.name}: parry / dodge", checks, a.override, "parries")
    c.parrying = True
    text = f"{c.name} parries and dodges: attacks against it at disadvantage until its next action; no move"
    return [
        *events,
        ActionTaken(round=engine.encounter.combat.round, text=text, actors=(c.id,), combatant=c.id, action="parry"),
    ]


def disengage(engine: Table, a: Disengage, dice: DiceSource) -> list[Event]:
    c, t = _c(engine, a.combatant), _c(engine, a.target)
    weapon = c.weapon(a.weapon)
    checks = turn_attack_checks(engine.encounter, c) + attack_checks(engine.encounter, c, t, weapon, weapon.skill)
    events = take_action(engine, c, "disengage", f"{c.name}: disengage", checks, a.override, "disengages", t.name)
    edge = edge_of(engine.encounter, c, t)
    hit = to_hit(engine.encounter, c, t, weapon.skill, edge)
    faces, face = roll_d20s(dice, edge, f"d20 to disengage from {t.name}")
    ok = hit.hits(face)
    if ok:
        c.disengaged = True
    shown = shown_d20(faces, face, edge)
    outcome = "it moves freely this turn, no free attacks" if ok else "the move provokes as usual"
    verdict = "success" if ok else "failure"
    text = (
        f"{c.name} disengages from {t.name}: {shown} {hit.terms()} = {face + hit.bonus} "
        f"vs Defense {t.defense}: {verdict}, {outcome}"
    )
    detail: dict[str, int | float | str | bool | None] = {
        "combatant": c.id,
        "target": t.id,
        "d20": face,
        "success": ok,
        "to_hit": f"{shown} {hit.terms()} = {face + hit.bonus}",
        "defense": t.defense,
        "edge_words": "" if edge.mode == "normal" else edge.words(),
    }
    return [
        *events,
        RulesEvent(
            round=engine.encounter.combat.round,
            text=text,
            actors=(c.id, t.id),
            ruleset=NAME,
            name="disengage",
            detail=detail,
        ),
    ]


def use_item(engine: Table, a: UseItem, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    text = a.text.strip()
    checks = item_checks(c, text, a.pick_up)
    said = text or f"picks up {a.pick_up}"
    keys = PICK_UP_DECLARED if a.pick_up else None
    events = take_action(
        engine, c, "item", f"{c.name}: use / ready an item", checks, a.override, "uses an item", said, keys
    )
    if a.pick_up:
        index = next(i for i, w in enumerate(c.weapons) if w.name == a.pick_up)
        c.weapons[index] = c.weapons[index].model_copy(update={"dropped": False})
        words = f"{c.name} picks up {a.pick_up}" + (f" ({text})" if text else "") + ": it can strike with it again"
    else:
        words = f"{c.name} uses / readies {text} (its move is still free)"
    return [
        *events,
        ActionTaken(
            round=engine.encounter.combat.round, text=words, actors=(c.id,), combatant=c.id, action="item", detail=said
        ),
    ]


def sprint(engine: Table, a: Sprint, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    events = take_action(engine, c, "sprint", f"{c.name}: sprint / flee", [], a.override, "sprints")
    reach = engine.encounter.options.sprint_moves * c.move_ft
    words = f"{c.name} sprints: up to {reach:g} ft this turn; leaving an adjacent foe gives it a free attack"
    return [
        *events,
        ActionTaken(round=engine.encounter.combat.round, text=words, actors=(c.id,), combatant=c.id, action="sprint"),
    ]


def opposed(engine: Table, a: OpposedRoll, dice: DiceSource) -> list[Event]:
    x, y = _c(engine, a.first), _c(engine, a.second)
    if x.id == y.id:
        raise IllegalAction("Opposed roll", ["pick two different combatants"])
    said_stake = a.what.strip().casefold()
    stake = a.stake if a.stake and a.stake != STAKES[0] else said_stake if said_stake in STAKES[1:] else ""
    if stake not in ("", *STAKES[1:]):
        raise IllegalAction("Opposed roll", [f"{a.stake!r} is not one of: {', '.join(STAKES)}"])
    if stake == "break free" and x.holder != y.id:
        raise IllegalAction("Opposed roll", [f"{y.name} does not hold {x.name}: nothing to break free of"])
    bx, by = x.skill(a.first_skill), y.skill(a.second_skill)
    fx = roll_plain(dice, 20, f"d20 for {x.name} ({SKILL_NAMES[a.first_skill]})").face
    fy = roll_plain(dice, 20, f"d20 for {y.name} ({SKILL_NAMES[a.second_skill]})").face
    tx, ty = fx + bx, fy + by
    winner = x if tx > ty else y if ty > tx else None
    what = f" ({a.what.strip()})" if a.what.strip() else ""
    result = f"{winner.name} wins" if winner else "a tie: nothing changes"
    text = (
        f"Opposed roll{what}: {x.name} d20 {fx} {bx:+d} {SKILL_NAMES[a.first_skill]} = {tx} against "
        f"{y.name} d20 {fy} {by:+d} {SKILL_NAMES[a.second_skill]} = {ty}: {result}"
    )
    detail: dict[str, int | float | str | bool | None] = {
        "first": tx,
        "second": ty,
        "winner": winner.id if winner else None,
        "stake": stake,
    }
    events: list[Event] = [
        RulesEvent(
            round=engine.encounter.combat.round,
            text=text,
            actors=(x.id, y.id),
            ruleset=NAME,
            name="opposed roll",
            detail=detail,
        )
    ]
    rnd = engine.encounter.combat.round
    if stake == "grapple" and winner is x:
        set_grapple(x, y)
        events.append(Override(round=rnd, text=f"{y.name} is grappled by {x.name}: Move 0", actors=(y.id,)))
    elif stake == "break free" and winner is x:
        release(x)
        events.append(Override(round=rnd, text=f"{x.name} breaks free of {y.name}", actors=(x.id,)))
    return events
