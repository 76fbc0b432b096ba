"""Old-School d20 at the table (RULES §12): the engine's handlers for the ruleset's actions and
prompts: attacks and counter-attacks, damage and what 0 HP sets off, death saves, saving throws,
Defend, Move, Stand up, spells, and the conditions that act as a turn begins.

Every roll goes through the dice source, so the GM may type the faces of physical dice and the
journal replays them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.events import ActionTaken, Event, RulesEvent, WentDown
from lnl_desktop.core.encounter.model import Encounter, Pending
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.grid import token_distance_ft
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.common import Check, failed, pending_item
from lnl_desktop.core.rules.osr import condition_table as cond
from lnl_desktop.core.rules.osr.model import (
    Burn,
    Cast,
    Confusion,
    CounterAttack,
    DeathSave,
    Defend,
    Kind,
    MoraleResult,
    OsrAttack,
    OsrCombatant,
    OsrOptions,
    OsrWeapon,
    SaveCategory,
    SavingThrow,
    StandUp,
    TakeMove,
    parse_dice,
)
from lnl_desktop.core.rules.osr.morale import morale_triggers, side_counts
from lnl_desktop.core.rules.osr.rules import (
    NAME,
    Damage,
    Style,
    attack_checks,
    attacks_left,
    death_save_dc,
    gm_checks,
    gm_words,
    may_counter,
    movement_checks,
    reach_of,
    roll_damage,
    save_bonus,
    spell_checks,
    times,
    to_hit,
)

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

# -- the engine's handlers ------------------------------------------------------------------------


@dataclass(frozen=True)
class GmCall:
    """The GM's situational modifier and advantage or disadvantage, with the reason (RULES §12)."""

    modifier: int = 0
    edge: str = "none"
    reason: str = ""


def _osr(engine: Table, cid: str) -> OsrCombatant:
    return engine.combatant(cid)  # type: ignore[no-any-return]


def provocations(engine: Table, mover: OsrCombatant, path: list[tuple[int, int]]) -> list:
    e = engine.encounter
    return engagement.provocations(e, mover, path, reach_of, lambda s, t: may_counter(e, s, t))


def queue_counters(engine: Table, mover: OsrCombatant, strikers: list[str], why: str) -> list[Event]:
    return engagement.queue(
        engine.encounter,
        mover,
        strikers,
        "counter-attack",
        lambda name: f"{name} may counter-attack {mover.name} ({why})",
        f"{mover.name} {why}",
        NAME,
    )


def after_move(engine: Table, c: OsrCombatant, path: list[tuple[int, int]], forced: bool) -> list[Event]:
    if forced or not path:
        return []
    _fear_allows(engine.encounter, c, path)
    strikers = [cid for step in provocations(engine, c, path) for cid in step.attackers]
    return queue_counters(engine, c, strikers, "moves out of melee")


def attack(engine: Table, a: OsrAttack, dice: DiceSource) -> list[Event]:
    c, t = _osr(engine, a.attacker), _osr(engine, a.target)
    weapon = c.weapon(a.weapon)
    e = engine.encounter
    turn = e.combat.turn
    following = turn is not None and turn.combatant == c.id and turn.action is not None
    number, of = attacks_left(e, c)
    title = f"{c.name}: {a.style} attack" + (f" {number} of {of}" if following and number else "")
    checks = engine.turn_checks(c, needs_action=True, kind=a.style)
    # The next of several attacks: the movement was judged at the first (a charge's claws follow it).
    style = a.style if not following or a.style == "ranged" or turn.action != "charge" else "counter"  # type: ignore[union-attr]
    checks += attack_checks(
        e,
        c,
        t,
        weapon,
        style,
        cover=a.cover,
        second=a.second,
        subdual=a.subdual,
        flat_of_blade=a.flat_of_blade,
        gm_modifier=a.gm_modifier,
        gm_edge=a.gm_edge,
    )
    if following and a.style == "charge":
        checks.append(Check("Not a second charge", False, "the next attack is a melee or a ranged attack"))
    engine.require(title, checks)
    engaged = engagement.engaged_by(e, c, reach_of, lambda s, m: may_counter(e, s, m))
    if following:
        assert turn is not None
        turn.action_detail += f"; {weapon.name} at {t.name}"
    else:
        engine.use_action(c, a.style, f"{weapon.name} at {t.name}")
    turn = e.combat.turn
    assert turn is not None
    turn.attacks += 1
    weapons = [weapon] + ([c.weapon(a.second)] if a.second else [])
    numbered = f"attack {turn.attacks} of {c.attacks}" if c.attacks > 1 else ""
    gm = GmCall(a.gm_modifier, a.gm_edge, a.gm_reason)
    flat = a.subdual and a.flat_of_blade and not weapon.bludgeoning
    events = strike(
        engine,
        c,
        t,
        weapons,
        a.style,
        dice,
        cover=a.cover,
        subdual=a.subdual,
        ability=a.ability,
        numbered=numbered,
        gm=gm,
        flat=flat,
    )
    if a.style == "ranged" and engaged:
        events += queue_counters(engine, c, engaged, "shoots while engaged")
    return events


def counter_attack(engine: Table, a: CounterAttack, dice: DiceSource) -> list[Event]:
    pending = engine.encounter.combat.pending
    item = pending_item(engine.encounter, a.index, "counter-attack", "Counter-attack")
    c, t = _osr(engine, item.who), _osr(engine, item.target or "")
    weapon = c.weapon(a.weapon) if a.weapon else c.best_melee()
    reasons = failed(
        [
            Check("Able to strike", not c.down and not cond.helpless(c), f"{c.name} cannot attack now"),
            Check("A melee weapon", weapon.melee, f"{weapon.name} is a missile weapon"),
            Check("A foe standing", not t.down, f"{t.name} is down already"),
            *gm_checks(a.gm_modifier, a.gm_edge),
        ]
    )
    if reasons:
        raise IllegalAction(f"{c.name}: counter-attack", reasons)
    pending.pop(a.index)
    return strike(engine, c, t, [weapon], "counter", dice, gm=GmCall(a.gm_modifier, a.gm_edge, a.gm_reason))


def strike(
    engine: Table,
    c: OsrCombatant,
    t: OsrCombatant,
    weapons: list[OsrWeapon],
    style: Style,
    dice: DiceSource,
    *,
    cover: str = "none",
    subdual: bool = False,
    ability: str = "best",
    numbered: str = "",
    gm: GmCall | None = None,
    flat: bool = False,
) -> list[Event]:
    """Roll to hit and, on a hit, the damage; apply it and what 0 HP sets off. ``numbered`` says
    which of a monster's several attacks this is ("attack 2 of 3"); ``gm`` the GM's modifier and
    edge; ``flat`` a blade struck flat to subdue."""
    e = engine.encounter
    options: OsrOptions = e.options  # type: ignore[assignment]
    second = weapons[1].name if len(weapons) > 1 else ""
    gm = gm or GmCall()
    hit = to_hit(
        e,
        c,
        t,
        weapons[0],
        style,
        cover=cover,
        second=second,
        ability=ability,
        gm_modifier=gm.modifier,
        gm_edge=gm.edge,
        gm_reason=gm.reason,
    )
    what = {"counter": "counter-attacks", "charge": "charges", "ranged": "shoots at"}.get(style, "attacks")
    means = " and ".join(w.name for w in weapons) + (" (the flat of the blade)" if flat else "")
    if hit.auto_hit:
        face = None
        roll_text = hit.auto_hit
        hits = True
    elif hit.edge:
        # Advantage or disadvantage: 2d20, the higher or the lower kept (RULES §12).
        first = roll_plain(dice, 20, f"d20 to hit {t.name} ({hit.edge_text()})").face
        other = roll_plain(dice, 20, f"second d20 to hit {t.name} ({hit.edge_text()})").face
        face = max(first, other) if hit.edge > 0 else min(first, other)
        hits = hit.hits(face)
        natural = " (natural 20: always hits)" if face == 20 else " (natural 1: always misses)" if face == 1 else ""
        roll_text = (
            f"{hit.edge_text()}: 2d20 [{first}, {other}] keeps {face} {hit.terms_text()} = {face + hit.bonus} "
            f"vs {hit.ac_text()}{natural}"
        )
    else:
        face = roll_plain(dice, 20, f"d20 to hit {t.name}").face
        hits = hit.hits(face)
        natural = " (natural 20: always hits)" if face == 20 else " (natural 1: always misses)" if face == 1 else ""
        cancel = f"{hit.edge_text()}: " if hit.advantage else ""
        roll_text = f"{cancel}d20 {face} {hit.terms_text()} = {face + hit.bonus} vs {hit.ac_text()}{natural}"
    detail: dict[str, int | float | str | bool | None] = {
        "attacker": c.id,
        "target": t.id,
        "weapon": means,
        "style": style,
        "d20": face,
        "bonus": hit.bonus,
        "ac": hit.ac,
        "hit": hits,
        "to_hit": roll_text,  # the roll in words, for the Action dock's result
        "numbered": numbered,
    }
    which = f" ({numbered})" if numbered else ""
    head = f"{c.name} {what} {t.name} with {means}{which}: {roll_text}"
    if not hits:
        event = RulesEvent(
            round=e.combat.round, text=f"{head}: miss", actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail
        )
        return [event]
    damage = roll_damage(dice, c, weapons, hit, options.minimum_damage)
    detail.update(damage=damage.amount, subdual=subdual)
    hit_words = "hit"
    if hit.critical:
        hit_words = f"critical hit (unconscious, within 5 ft: the damage dice rolled {times(hit.critical_rolls)})"
        detail.update(critical=True)
    if subdual:
        return _subdue(engine, c, t, damage, head, detail, hit_words)
    before = t.hp
    killed_before, out_before = side_counts(e, t.side)
    t.hp = max(0, t.hp - damage.amount)
    overkill = max(0, damage.amount - before)
    detail.update(hp=t.hp, overkill=overkill, hp_max=t.hp_max, damage_roll=damage.text())
    text = f"{head}: {hit_words}; damage {damage.text()} → {t.name} {t.hp}/{t.hp_max} HP"
    events: list[Event] = [
        RulesEvent(round=e.combat.round, text=text, actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail)
    ]
    if damage.amount > 0:  # a hit that cannot harm (RULES §12) deals no damage to break a spell
        events += interrupt(engine, t, f"{damage.amount} damage")
    if t.hp == 0:
        events += at_zero(engine, t, overkill, before)
        events += engagement.lapse(engine.encounter, "counter-attack", t)
    events += morale_triggers(engine, t.side, killed_before, out_before)
    return events


def _subdue(
    engine: Table, c: OsrCombatant, t: OsrCombatant, damage: Damage, head: str, detail: dict, hit_words: str = "hit"
) -> list[Event]:
    e = engine.encounter
    t.subdual += damage.amount
    detail.update(subdual_total=t.subdual, hp=t.hp, damage_roll=damage.text())
    text = f"{head}: {hit_words}; subdual damage {damage.text()} → {t.subdual} subdual against {t.hp} HP"
    events: list[Event] = [
        RulesEvent(round=e.combat.round, text=text, actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail)
    ]
    events += interrupt(engine, t, f"{damage.amount} subdual damage")
    if t.subdual >= t.hp and t.morale_result is None:
        t.morale_result = MoraleResult.SURRENDERS
        events.append(
            RulesEvent(
                round=e.combat.round,
                text=f"{t.name} is subdued ({t.subdual} subdual ≥ {t.hp} HP) and surrenders",
                actors=(t.id,),
                ruleset=NAME,
                name="subdued",
                detail={"combatant": t.id},
            )
        )
    return events


def at_zero(engine: Table, t: OsrCombatant, overkill: int, before: int) -> list[Event]:
    e = engine.encounter
    rnd = e.combat.round
    if t.kind is not Kind.PC:
        return [
            WentDown(round=rnd, text=f"{t.name} is defeated (0 HP)", actors=(t.id,), combatant=t.id, overkill=overkill)
        ]
    dc = death_save_dc(overkill)
    bonus = save_bonus(e, t, SaveCategory.POISON)
    text = (
        f"{t.name} drops to 0 HP: death save d20 {bonus:+d} (Poison or Death) against DC {dc} "
        f"(11 + {overkill} overkill)"
    )
    e.combat.pending.append(Pending(kind="death save", who=t.id, text=text, number=dc, urgent=True, round=rnd))
    return [WentDown(round=rnd, text=text, actors=(t.id,), combatant=t.id, overkill=overkill)]


def death_save(engine: Table, a: DeathSave, dice: DiceSource) -> list[Event]:
    item = pending_item(engine.encounter, a.index, "death save", "Death save")
    engine.encounter.combat.pending.pop(a.index)
    pc = _osr(engine, item.who)
    dc = item.number or 11
    bonus = save_bonus(engine.encounter, pc, SaveCategory.POISON)
    face = roll_plain(dice, 20, f"death save d20 for {pc.name} (DC {dc})").face
    total = face + bonus
    if total >= dc:
        if "unconscious" not in pc.conditions:
            pc.conditions.append("unconscious")
        outcome = "success: unconscious at 0 HP"
    else:
        pc.dead = True
        outcome = "failure: dead"
    text = f"{pc.name}'s death save: d20 {face} {bonus:+d} = {total} vs DC {dc}: {outcome}"
    detail: dict[str, int | float | str | bool | None] = {
        "combatant": pc.id,
        "d20": face,
        "dc": dc,
        "success": total >= dc,
        "roll": f"d20 {face} {bonus:+d} = {total}",
    }
    return [
        RulesEvent(
            round=engine.encounter.combat.round,
            text=text,
            actors=(pc.id,),
            ruleset=NAME,
            name="death save",
            detail=detail,
        )
    ]


def saving_throw(engine: Table, a: SavingThrow, dice: DiceSource) -> list[Event]:
    c = _osr(engine, a.combatant)
    try:
        category = SaveCategory(a.category)
    except ValueError:
        known = ", ".join(s.value for s in SaveCategory)
        raise IllegalAction(f"{c.name}: saving throw", [f"no category {a.category!r} (one of {known})"]) from None
    if not 1 <= a.dc <= 40:
        raise IllegalAction(f"{c.name}: saving throw", [f"DC {a.dc}: give a DC from 1 to 40"])
    wrong = failed(gm_checks(a.gm_modifier, a.gm_edge))
    if wrong:
        raise IllegalAction(f"{c.name}: saving throw", wrong)
    bonus = save_bonus(engine.encounter, c, category) + a.gm_modifier
    said = f" ({category.value}, DC {a.dc})"
    gm = gm_words(a.gm_reason)
    if a.gm_edge in ("advantage", "disadvantage"):
        # The GM's advantage or disadvantage: 2d20, the higher or the lower kept (RULES §12).
        edge = f"{a.gm_edge} ({gm})"
        first = roll_plain(dice, 20, f"saving throw d20 for {c.name}{said}, {edge}").face
        other = roll_plain(dice, 20, f"second saving throw d20 for {c.name}{said}, {edge}").face
        face = max(first, other) if a.gm_edge == "advantage" else min(first, other)
        dice_words = f"{edge}: 2d20 [{first}, {other}] keeps {face}"
    else:
        face = roll_plain(dice, 20, f"saving throw d20 for {c.name}{said}").face
        dice_words = f"d20 {face}"
    total = face + bonus
    outcome = "saved" if total >= a.dc else "failed"
    why = f" ({a.reason.strip()})" if a.reason.strip() else ""
    terms = f"{bonus - a.gm_modifier:+d}" + (f" {a.gm_modifier:+d} {gm}" if a.gm_modifier else "")
    text = f"{c.name} saves against {category.value}{why}: {dice_words} {terms} = {total} vs DC {a.dc}: {outcome}"
    detail: dict[str, int | float | str | bool | None] = {
        "combatant": c.id,
        "category": category.value,
        "d20": face,
        "dc": a.dc,
        "success": total >= a.dc,
        "roll": f"{dice_words} {terms} = {total}",
    }
    events: list[Event] = [
        RulesEvent(
            round=engine.encounter.combat.round,
            text=text,
            actors=(c.id,),
            ruleset=NAME,
            name="saving throw",
            detail=detail,
        )
    ]
    if total < a.dc:
        events += interrupt(engine, c, f"failed a save against {category.value}")
    return events


def defend(engine: Table, a: Defend, dice: DiceSource) -> list[Event]:
    c = _osr(engine, a.combatant)
    ally = _osr(engine, a.ally) if a.ally and a.ally != c.id else None
    checks = engine.turn_checks(c, needs_action=True) + movement_checks(engine.encounter, c, "defend")
    if ally is not None:
        feet = engine.encounter.distance_between(c, ally)
        checks.append(Check("An ally", ally.side is c.side, f"{ally.name} is not on {c.name}'s side"))
        checks.append(Check("Adjacent", feet is not None and feet <= 5, f"{ally.name} is not next to {c.name}"))
    engine.require(f"{c.name}: defend", checks)
    engine.use_action(c, "defend", ally.name if ally else "")
    c.defending = ally.id if ally else c.id
    words = f"guards {ally.name} (+2 AC to {ally.name})" if ally else "defends (+2 AC)"
    return [_taken(engine, c, "defend", f"{c.name} {words} until its next turn; no move")]


def stand_up(engine: Table, a: StandUp, dice: DiceSource) -> list[Event]:
    c = _osr(engine, a.combatant)
    cost = c.move_ft / 2
    left = engine.feet_left(c.id) or 0.0
    written = cond.entry(c, "prone")
    checks = engine.turn_checks(c, needs_action=False)
    checks.append(Check("Prone", written is not None, f"{c.name} is not prone"))
    checks.append(
        Check(f"{cost:g} ft of movement left", left >= cost, f"{left:g} ft left: standing costs half the Move")
    )
    engine.require(f"{c.name}: stand up", checks)
    turn = engine.encounter.combat.turn
    assert turn is not None
    if turn.action is None:
        turn.feet_before += cost
    else:
        turn.feet_after += cost
    c.conditions = [x for x in c.conditions if x != written]
    return [_taken(engine, c, "stand up", f"{c.name} stands up (half its Move, {cost:g} ft)")]


def take_move(engine: Table, a: TakeMove, dice: DiceSource) -> list[Event]:
    c = _osr(engine, a.combatant)
    engine.use_action(c, "move")
    return [_taken(engine, c, "move", f"{c.name} moves (up to {c.move_ft} ft this turn)")]


def cast(engine: Table, a: Cast, dice: DiceSource) -> list[Event]:
    c = _osr(engine, a.caster)
    text = a.text.strip()
    checks = engine.turn_checks(c, needs_action=True) + movement_checks(engine.encounter, c, "cast")
    checks.append(Check("Say the spell", bool(text), "type the spell's name"))
    target = _osr(engine, a.target) if a.target else None
    checks += spell_checks(engine.encounter, c, target, a.harmful)
    engine.require(f"{c.name}: cast a spell", checks)
    engine.use_action(c, "cast", text)
    at = f" at {_osr(engine, a.target).name}" if a.target else ""
    if a.lasting:
        c.casting = text
        words = (
            f"{c.name} begins casting {text}{at}: it goes off as its next turn begins, "
            "unless damage or a failed save interrupts it"
        )
        return [_taken(engine, c, "cast", words)]
    return [_taken(engine, c, "cast", f"{c.name} casts {text}{at} (no move this turn)")]


def interrupt(engine: Table, c: OsrCombatant, why: str) -> list[Event]:
    """A spell under way is lost when its caster takes damage or fails a save (RULES §12)."""
    if c.casting is None:
        return []
    spell, c.casting = c.casting, None
    return [
        RulesEvent(
            round=engine.encounter.combat.round,
            text=f"{c.name}'s {spell} is interrupted: {why}",
            actors=(c.id,),
            ruleset=NAME,
            name="spell interrupted",
            detail={"combatant": c.id, "spell": spell},
        )
    ]


def _taken(engine: Table, c: OsrCombatant, action: str, text: str) -> Event:
    return ActionTaken(round=engine.encounter.combat.round, text=text, actors=(c.id,), combatant=c.id, action=action)


# -- conditions that act -------------------------------------------------------------------------

BURNING_DICE = "1d6"  # RULES §12: a burning creature's fire damage each turn
CONFUSION = {1: "attacks the nearest creature", 2: "moves randomly", 3: "moves randomly", 4: "moves randomly"}


def _fear_allows(encounter: Encounter, c: OsrCombatant, path: list[tuple[int, int]]) -> None:
    """A frightened creature's move may not end closer to what it fears (RULES §12); the engine
    undoes the move when this refuses it."""
    feared = cond.source(encounter, c, "frightened")
    token = encounter.tokens.get(feared.id) if feared is not None else None
    if feared is None or token is None or len(path) < 2:
        return
    grid = encounter.map

    def feet(cell: tuple[int, int]) -> float:
        return token_distance_ft(cell, c.size, token.cell, feared.size, grid.diagonal, grid.feet_per_cell)

    if feet(path[-1]) < feet(path[0]):
        raise IllegalAction(
            f"Move of {c.name}",
            [
                f"{c.name} is frightened of {feared.name}: a move may not end closer to it "
                f"({feet(path[-1]):g} ft, from {feet(path[0]):g} ft)"
            ],
        )


def turn_start_conditions(engine: Table, c: OsrCombatant) -> list[Event]:
    """Burning and confused act as the creature's turn begins: each is asked for at once."""
    e = engine.encounter
    rnd = e.combat.round
    events: list[Event] = []
    asks = []
    if cond.has(c, "burning"):
        asks.append(("burning", f"{c.name} is burning: {e.options.burning_dice} fire damage as its turn begins"))
    if cond.has(c, "confused"):
        asks.append(
            (
                "confused",
                f"{c.name} is confused: a d6 as its turn begins (1 attack the nearest, 2-4 move randomly, 5-6 nothing)",
            )
        )
    for kind, text in asks:
        e.combat.pending.append(Pending(kind=kind, who=c.id, text=text, urgent=True, round=rnd))
        events.append(
            RulesEvent(
                round=rnd, text=text, actors=(c.id,), ruleset=NAME, name=f"{kind} due", detail={"combatant": c.id}
            )
        )
    return events


def burn(engine: Table, a: Burn, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    item = pending_item(e, a.index, "burning", "Burning")
    t = _osr(engine, item.who)
    e.combat.pending.pop(a.index)
    burning = e.options.burning_dice  # RULES §12 [D]: 1d6 unless the GM set another
    count, sides, flat = parse_dice(burning)
    faces = [roll_plain(dice, sides, f"fire damage d{sides} for {t.name}").face for _ in range(count)]
    amount = max(0, sum(faces) + flat)
    shown = "+".join(str(f) for f in faces)
    return hurt(engine, t, amount, f"{t.name} burns: {burning} [{shown}] = {amount} fire damage", "burning")


def hurt(engine: Table, t: OsrCombatant, amount: int, head: str, name: str) -> list[Event]:
    """Damage that is no attack (fire) lands as a hit's would: HP, a spell interrupted, a monster
    defeated or a PC's death save at 0 (again at 0: against 11 + the damage), the morale prompts."""
    e = engine.encounter
    before = t.hp
    killed_before, out_before = side_counts(e, t.side)
    t.hp = max(0, t.hp - amount)
    overkill = max(0, amount - before)
    detail: dict[str, int | float | str | bool | None] = {
        "combatant": t.id,
        "damage": amount,
        "hp": t.hp,
        "hp_max": t.hp_max,
    }
    text = f"{head} → {t.name} {t.hp}/{t.hp_max} HP"
    events: list[Event] = [
        RulesEvent(round=e.combat.round, text=text, actors=(t.id,), ruleset=NAME, name=name, detail=detail)
    ]
    if amount:
        events += interrupt(engine, t, f"{amount} damage")
    if t.hp == 0 and amount and not t.dead:
        events += at_zero(engine, t, overkill, before)
        events += engagement.lapse(e, "counter-attack", t)
    events += morale_triggers(engine, t.side, killed_before, out_before)
    return events


def confusion(engine: Table, a: Confusion, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    item = pending_item(e, a.index, "confused", "Confusion")
    c = _osr(engine, item.who)
    e.combat.pending.pop(a.index)
    face = roll_plain(dice, 6, f"confusion d6 for {c.name}").face
    does = CONFUSION.get(face, "does nothing")
    text = f"{c.name} is confused: d6 {face}: {does} this turn"
    detail: dict[str, int | float | str | bool | None] = {"combatant": c.id, "d6": face, "does": does}
    return [RulesEvent(round=e.combat.round, text=text, actors=(c.id,), ruleset=NAME, name="confusion", detail=detail)]
