"""Group d10's area effects (RULES §13, §14): a fire bomb, an area spell, a falling ceiling. The
damage is rolled once for every target; each takes it minus its DR (not below 0), half of that
(rounded down) under cover; a minion dies if it takes any damage; exactly 1 HP is a lasting wound
and 0 HP is dead, as after any blow (:func:`play.hit_hp` and :func:`play.after_hit` land it).

A combatant's area is a weapon with an ``area`` (its ``area_dice`` of its die: 2 with a d6 rolls
2d6, never with tiers); the GM's free effect names its dice. A caster in a running combat uses its
attack action on it, declared as an attack or a spell. The forecast is exact: the dice's
distribution through each target's DR and cover."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from lnl_desktop.core.dice import notation
from lnl_desktop.core.dice.odds import dice_total
from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter.actions import AreaEffect
from lnl_desktop.core.encounter.areas import Area, area_words
from lnl_desktop.core.encounter.events import AreaEffectResolved, AreaTarget, Event
from lnl_desktop.core.encounter.model import Encounter, Phase
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.map.areas import AreaShape
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.d10 import play
from lnl_desktop.core.rules.d10.model import D10Combatant, D10Weapon
from lnl_desktop.core.rules.d10.rules import damage_after, turn_attack_checks
from lnl_desktop.core.rules.specs import AreaMeans, AreaOdds, AreaSpec, Setting

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

# An area attack is the turn's attack action: declared as an attack, or as a spell for an area spell.
AREA_DECLARED = ("attack", "cast")
MOST_AREA_DICE = 10
MOST_OUTCOMES = 50_000  # a keep term's dice the forecast enumerates at most (6 d6: 46,656)

NOTES = (
    "The damage is rolled once for every target: a weapon's area dice (never with tiers), or the effect's dice.",
    "Each target takes the damage minus its DR, not below 0 (Ignores DR: armour does not help).",
    "A target under cover takes half, rounded down, after DR.",
    "A minion dies if it takes any damage; DR that soaks it all leaves it standing.",
    "Exactly 1 HP is a lasting wound (Wounded); 0 HP is dead, as after any blow.",
    "A caster in combat uses its attack action, declared as an attack or a spell; friends are struck too.",
)

# A free effect's "Ignores DR" (AreaEffect.extras "direct"); a caster's weapon strikes as it is, DR helping.
IGNORES_DR = Setting("direct", "Ignores DR (armour does not help)", "", "bool", False)


# -- the stat block's areas, and converting one from another ruleset -------------------------------


def dice_count(damage: Any) -> int:
    """The number of dice of a damage text such as '2d6+1' (1 when it names none)."""
    head = str(damage or "").strip().lower().split("d", 1)[0]
    return int(head) if head.isdigit() and int(head) > 0 else 1


def converted_area(area: Any, count: int) -> dict[str, Any]:
    """Another ruleset's area for a Group d10 weapon: ``area`` and ``area_dice`` (``count`` dice, at
    most :data:`MOST_AREA_DICE`), or nothing when it has none or it is not an area."""
    if area is None:
        return {}
    try:
        checked = area if isinstance(area, Area) else Area.model_validate(area)
    except ValidationError:
        return {}
    return {"area": checked.model_dump(mode="json"), "area_dice": max(1, min(MOST_AREA_DICE, count))}


def means_words(weapon: D10Weapon) -> str:
    """'2d6 once for all, DR applies, cover halves'."""
    return f"{weapon.area_roll} once for all, DR applies, cover halves"


# -- what an area effect is made of ---------------------------------------------------------------


@dataclass(frozen=True)
class Effect:
    """An area effect read from its action: who uses it with which weapon, its name, its dice."""

    caster: D10Combatant | None
    weapon: D10Weapon | None
    name: str
    dice: notation.DiceExpression
    area: str  # "a 10 ft radius circle"
    ignores_dr: bool


def effect_of(encounter: Encounter, action: AreaEffect) -> Effect:
    """The effect ``action`` names, or IllegalAction with what is wrong in it."""
    title = action.name.strip() or action.means or "Area effect"
    by_id = encounter.by_id()
    caster: D10Combatant | None = by_id.get(action.caster) if action.caster else None  # type: ignore[assignment]
    if action.caster and caster is None:
        raise IllegalAction(title, [f"there is no combatant {action.caster!r}"])
    weapon = None
    if action.means:
        if caster is None:
            raise IllegalAction(title, [f"{action.means} is a combatant's weapon: name who uses it"])
        try:
            weapon = caster.weapon(action.means)
        except RulesError as error:
            raise IllegalAction(title, [str(error)]) from None
        if weapon.area is None:
            raise IllegalAction(title, [f"{weapon.name} has no area: give it one on the sheet, or attack one foe"])
        text = weapon.area_roll
    else:
        text = action.dice.strip()
        if not text:
            raise IllegalAction(title, ["name the damage dice (2d6, say)"])
    try:
        dice = notation.parse(text)
    except notation.NotationError as error:
        raise IllegalAction(title, [f"dice {text!r}: {error}"]) from None
    try:
        shape = AreaShape(action.shape)
    except ValueError:
        raise IllegalAction(title, [f"{action.shape!r} is not a shape"]) from None
    name = action.name.strip() or (weapon.name if weapon is not None else "Area effect")
    ignores_dr = bool(action.extra("direct", False))  # the dialog's "Ignores DR"
    return Effect(caster, weapon, name, dice, area_words(shape, action.size_ft), ignores_dr)


# -- the resolution (RULES §14, Group d10) ---------------------------------------------------------


def landing(total: int, t: D10Combatant, ignores_dr: bool, cover: bool) -> tuple[int, int]:
    """The damage after DR (not below 0), and what ``t`` takes: half of that under cover, rounded down."""
    after = damage_after(total, False, 0 if ignores_dr else t.dr)
    return after, after // 2 if cover else after


def _steps(total: int, after: int, dealt: int, t: D10Combatant, ignores_dr: bool, cover: bool) -> tuple[str, str]:
    """The defences in words ('- 2 DR, cover: half') and the sum ('9 - 2 DR = 7, cover: half = 3')."""
    defences: list[str] = []
    said = str(total)
    if t.dr and ignores_dr:
        defences.append("ignores DR")
        said += " (ignores DR)"
    elif t.dr:
        defences.append(f"- {t.dr} DR")
        said += f" - {t.dr} DR = {after}"
    if cover:
        defences.append("cover: half")
        said += f", cover: half = {dealt}"
    return ", ".join(defences), said


def _result(t: D10Combatant, before: int, dealt: int, minion_died: bool, wounded: bool) -> str:
    """'HP 7 → 2', 'minion dies', 'HP 3 → 0, dead', 'HP 5 → 1, a lasting wound', 'no damage, HP 7'."""
    if minion_died:
        return "minion dies"
    if dealt == 0 or t.hp == before:
        return f"no damage, HP {t.hp}"
    said = f"HP {before} → {t.hp}"
    if t.hp == 0:
        return f"{said}, dead"
    if t.hp == 1 and not wounded and t.has("wounded"):
        return f"{said}, a lasting wound"
    return said


# -- the forecast ---------------------------------------------------------------------------------


def _convolve(a: dict[int, float], b: dict[int, float]) -> dict[int, float]:
    out: dict[int, float] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, 0.0) + p * q
    return out


def _term_odds(term: notation.Term) -> dict[int, float] | None:
    """The exact distribution of one term's total (unsigned), None when too many outcomes to count."""
    if not term.dice:
        return {term.constant: 1.0}
    if term.keep is None:
        if term.explode:
            p = dice_total(term.count, term.sides)
            return {k: float(v) for k, v in enumerate(p) if v > 0}
        one = {k: 1 / term.sides for k in range(1, term.sides + 1)}
        out = {0: 1.0}
        for _ in range(term.count):
            out = _convolve(out, one)
        return out
    if term.explode or term.sides**term.count > MOST_OUTCOMES:
        return None
    how, n = term.keep
    weight = 1 / term.sides**term.count
    counted: dict[int, float] = {}
    for faces in itertools.product(range(1, term.sides + 1), repeat=term.count):
        ordered = sorted(faces, reverse=how == "h")
        k = sum(ordered[:n])
        counted[k] = counted.get(k, 0.0) + weight
    return counted


def total_odds(dice: notation.DiceExpression) -> dict[int, float] | None:
    """P(the damage rolled is k), a total below 0 counted as 0; None when it cannot be counted."""
    out = {0: 1.0}
    for term in dice.terms:
        odds = _term_odds(term)
        if odds is None:
            return None
        out = _convolve(out, {term.sign * k: p for k, p in odds.items()})
    floored: dict[int, float] = {}
    for k, p in out.items():
        floored[max(0, k)] = floored.get(max(0, k), 0.0) + p
    return dict(sorted(floored.items()))


def dealt_odds(total: dict[int, float], t: D10Combatant, ignores_dr: bool, cover: bool) -> dict[int, float]:
    """P(``t`` takes k) after its DR and cover."""
    out: dict[int, float] = {}
    for k, p in total.items():
        dealt = landing(k, t, ignores_dr, cover)[1]
        out[dealt] = out.get(dealt, 0.0) + p
    return dict(sorted(out.items()))


class D10Areas:
    """Area effects: a combatant's area weapons, the free effect's inputs, the exact odds and the roll."""

    def means(self, c: D10Combatant) -> tuple[AreaMeans, ...]:
        return tuple(
            AreaMeans(w.name, w.area, means_words(w), w.max_range_ft)
            for w in c.weapons
            if w.area is not None and not w.dropped
        )

    def spec(self) -> AreaSpec:
        return AreaSpec(
            settings=(IGNORES_DR,),
            free_only=("direct",),
            cover=True,
            default_dice="2d6",
            notes=NOTES,
        )

    def forecast(self, encounter: Encounter, action: AreaEffect) -> dict[str, AreaOdds]:
        try:
            effect = effect_of(encounter, action)
        except IllegalAction:
            return {}
        total = total_odds(effect.dice)
        if total is None:
            return {}
        open_ended = effect.dice.maximum is None  # an exploding die: no greatest
        by_id = encounter.by_id()
        covered = set(action.cover)
        out: dict[str, AreaOdds] = {}
        for cid in action.targets:
            t: D10Combatant | None = by_id.get(cid)  # type: ignore[assignment]
            if t is None:
                continue
            if t.dead:
                out[cid] = AreaOdds(damage="already dead", drop=None, words=f"{t.name} is dead already")
                continue
            cover = cid in covered
            dealt = dealt_odds(total, t, effect.ignores_dr, cover)
            mean = math.fsum(k * p for k, p in dealt.items())
            low, high = min(dealt), max(dealt)
            span = f"{low}+" if open_ended else f"{low}-{high}" if low != high else f"{low}"
            how = effect.dice.text
            if t.dr:
                how += " (ignores DR)" if effect.ignores_dr else f" - {t.dr} DR"
            how += ", half under cover" if cover else ""
            if t.minion:
                drop: float | None = math.fsum(p for k, p in dealt.items() if k > 0)
                fate = f"dies (a minion, any damage) {drop * 100:.1f}%"
            elif t.hp == 0:
                drop, fate = None, "down already (0 HP)"
            else:
                drop = math.fsum(p for k, p in dealt.items() if k >= t.hp)
                fate = f"dies (0 HP) {drop * 100:.1f}%"
                if t.hp > 1 and not t.has("wounded"):
                    wound = dealt.get(t.hp - 1, 0.0)
                    fate += f", a lasting wound (1 HP) {wound * 100:.1f}%" if wound else ""
            words = f"{t.name} ({t.hp} HP): {how}: {span} damage, {mean:.1f} on average; {fate}"
            out[cid] = AreaOdds(damage=f"≈ {mean:.1f} ({span})", drop=drop, words=words)
        return out

    def resolve(self, engine: Table, action: AreaEffect, dice: DiceSource) -> list[Event]:
        e = engine.encounter
        effect = effect_of(e, action)
        c, weapon = effect.caster, effect.weapon
        events: list[Event] = []
        if c is not None:
            checks = [Check("Able to act", not c.down, f"{c.name} is {'dead' if c.dead else 'down'}")]
            if weapon is not None and weapon.dropped:
                checks.append(Check("In hand", False, f"{weapon.name} is dropped: a Use / ready an item picks it up"))
            title = f"{c.name}: {effect.name}"
            if e.combat.phase is Phase.FIGHTING:
                checks = turn_attack_checks(e, c) + checks[1:]  # its turn says whether it may act
                events += play.take_action(
                    engine,
                    c,
                    "attack",
                    title,
                    checks,
                    action.override,
                    f"uses {effect.name}",
                    f"{effect.name} on {effect.area}",
                    keys=AREA_DECLARED,
                )
            else:
                engine.require(title, checks)
        rolled = notation.roll(effect.dice, dice)
        total = max(0, rolled.total)
        covered = set(action.cover)
        targets: list[AreaTarget] = []
        parts: list[str] = []
        follow: list[Event] = []
        for cid in action.targets:
            t: D10Combatant = engine.combatant(cid)
            if t.dead:
                targets.append(AreaTarget(combatant=t.id, name=t.name, result="already dead"))
                parts.append(f"{t.name} (already dead)")
                continue
            cover = cid in covered
            after, dealt = landing(total, t, effect.ignores_dr, cover)
            defences, said = _steps(total, after, dealt, t, effect.ignores_dr, cover)
            wounded = t.has("wounded")
            before, minion_died = play.hit_hp(t, dealt)
            follow += play.after_hit(engine, t, before, minion_died)
            result = _result(t, before, dealt, minion_died, wounded)
            targets.append(AreaTarget(combatant=t.id, name=t.name, defences=defences, damage=dealt, result=result))
            parts.append(f"{t.name} {said} ({result})")
        who = f"{c.name}, " if c is not None else ""
        roll_words = rolled.words() + (" → 0" if rolled.total < 0 else "")
        text = f"{effect.name} ({who}{effect.area}): {effect.dice.text} {roll_words} — " + "; ".join(parts)
        actors = tuple(dict.fromkeys(([c.id] if c is not None else []) + list(action.targets)))
        events.append(
            AreaEffectResolved(
                round=e.combat.round,
                text=text,
                actors=actors,
                caster=c.id if c is not None else "",
                effect=effect.name,
                area=effect.area,
                dice=effect.dice.text,
                faces=[d.face for term in rolled.terms for d in term.dice],
                total=total,
                targets=targets,
            )
        )
        return events + follow
