"""Area effects in the Laurels & Loot family (RULES §14): a stat block's area spells, what a GM's
free effect asks, the one roll on every target, and each target's forecast.

One roll for all: an area spell rolls its die N times by the caster's level, exploding, exactly as
:meth:`.rules.LnlRules.damage_plan` plans a single-target spell; a free effect (a trap, a falling
ceiling) rolls the dice the GM typed, exploding as §5. Each target then takes that total through its
own defences: its DEX bonus and AP as the spell (or the GM) says, a parry as against any blow (§6),
SP first then IP, or IP at once for a direct spell. Spells cost no exertion.

The edition's own rules do the work (``damage_plan``, :func:`.rules.apply_damage`, :func:`.rules.damage_after`),
and :mod:`.play` writes each blow into the encounter, so an area effect cannot disagree with a spell
cast on one target.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lnl_desktop.core.dice.notation import MOST_CHARACTERS, parse
from lnl_desktop.core.dice.rolls import DiceSource, DieFace, roll_exploding
from lnl_desktop.core.encounter.actions import AreaEffect
from lnl_desktop.core.encounter.areas import area_words
from lnl_desktop.core.encounter.events import AreaEffectResolved, AreaTarget, Event, Override
from lnl_desktop.core.encounter.model import Encounter, Phase
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.map.areas import AreaShape
from lnl_desktop.core.rules.common import Check, failed
from lnl_desktop.core.rules.lnl.model import ActionKind, AttackMode, LnLFamilyOptions, LnLStats, Spell, formula_terms
from lnl_desktop.core.rules.lnl.outcome import Application
from lnl_desktop.core.rules.lnl.play import after_blow, land, record_blow
from lnl_desktop.core.rules.lnl.rules import DamagePlan, LnlRules, apply_damage, damage_after, dice_count
from lnl_desktop.core.rules.specs import AreaMeans, AreaOdds, AreaSpec, Setting
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

np = lazy_module("numpy")  # the forecast's, imported at its first use

# A free effect's dice explode like every damage die of the rules; these bounds keep the roll and
# its exact forecast quick (d4 to d10 are the rules' own dice).
FREE_SIDES = (2, 20)
FREE_MOST_DICE = 40
_LIKELY = 0.99  # the forecast's range ends where 99% of the rolls do no more
_SHAPES = frozenset(s.value for s in AreaShape)


# -- what the stat block and the dialog show ------------------------------------------------------


def _applies(dex: bool, ap: bool) -> str:
    if dex and ap:
        return "DEX and AP apply"
    if dex:
        return "DEX applies, not AP"
    if ap:
        return "AP applies, not DEX"
    return "neither DEX nor AP applies"


def spell_words(c: LnLStats, spell: Spell) -> str:
    """'3d6! (level 5), DEX and AP apply, SP then IP': what an area spell of ``c``'s does."""
    ability = f" + {spell.ability.value}" if spell.ability else ""
    where = "direct: IP at once" if spell.direct else "SP then IP"
    applies = _applies(spell.dex_applies, spell.ap_applies)
    return f"{dice_count(c.level)}{spell.die}! (level {c.level}){ability}, {applies}, {where}"


def area_means(c: LnLStats) -> tuple[AreaMeans, ...]:
    """The combatant's spells that strike an area."""
    return tuple(AreaMeans(s.name, s.area, spell_words(c, s), s.range_ft) for s in c.spells if s.area is not None)


# A free effect's own fields (a caster's spell says them itself): AreaEffect.extras of the same keys.
DEX_APPLIES = Setting("dex_applies", "DEX applies", "", "bool", True)
AP_APPLIES = Setting("ap_applies", "AP applies", "", "bool", True)
DIRECT = Setting("direct", "Direct (to IP at once)", "", "bool", False)


def area_spec(rules: LnlRules) -> AreaSpec:
    """What a free effect asks in L&L (or Classic, which has no direct damage) and how §14 reads here."""
    settings: tuple[Setting, ...] = (DEX_APPLIES, AP_APPLIES)
    where = "SP first, then IP (no direct damage in this edition)"
    if rules.has_direct_damage:
        settings += (DIRECT,)
        where = "SP first, then IP; a direct effect goes to IP at once"
    return AreaSpec(
        settings=settings,
        free_only=tuple(s.key for s in settings),
        default_dice="2d6",
        notes=(
            "One roll for every target: an area spell rolls its die N times by the caster's level "
            "(1 die at levels 1-2, one more at every odd level); a free effect rolls its own dice",
            "Every die explodes: a die showing its maximum adds another, without limit",
            "Each target takes its own DEX bonus and AP off the roll, as the spell's fields say",
            where,
            "A parrying target is protected as against any blow: a weapon stops it all (its exploding "
            "dice count against the weapon), a shield takes double",
            "No exertion: an area spell is its caster's action for the turn",
        ),
    )


# -- the effect: what it rolls, and each target's terms -------------------------------------------


@dataclass(frozen=True)
class _Effect:
    """An area effect made ready to roll: its exploding dice terms ``(sign, count, sides)``, a fixed
    part (a free effect's constants), and how each target's defences read it."""

    name: str
    caster: LnLStats | None
    spell: Spell | None
    terms: tuple[tuple[int, int, int], ...]
    fixed: int
    dice_words: str  # "5d6!", "3d6!+2"
    dex_applies: bool
    ap_applies: bool
    direct: bool

    def plan(self, rules: LnlRules, target: LnLStats, options: LnLFamilyOptions) -> DamagePlan:
        """The target's damage plan: a spell's is the ruleset's own (as CastSpell), a free effect's its fields."""
        if self.caster is not None and self.spell is not None:
            return rules.damage_plan(self.caster, target, self.spell, AttackMode.SPELL, options)
        _, count, sides = self.terms[0] if len(self.terms) == 1 else (1, 0, 0)
        return DamagePlan(
            base=count,
            die=f"d{sides}" if sides else self.dice_words,
            sides=sides,
            magic_bonus=0,
            magic_term=0,
            ability=None,
            ability_term=0,
            dex_term=target.dex_bonus if self.dex_applies else 0,
            dex_ignored=not self.dex_applies,
            ap=target.armor_points,
            ap_ignored=not self.ap_applies,
            direct=self.direct,
            precision=None,
            exertion=False,
            attack_kind="area",
        )


def _free_dice(text: str) -> tuple[tuple[tuple[int, int, int], ...], int, str]:
    """A free effect's dice in the project's notation, every die exploding (§5): the terms, the constants,
    the words. IllegalAction with the reason for what L&L cannot roll."""
    title = "Free effect's dice"
    text = text.strip()
    if not text:
        raise IllegalAction(title, ["a free effect names its dice (3d6, 2d8+2)"])
    if len(text) > MOST_CHARACTERS:
        raise IllegalAction(title, [f"at most {MOST_CHARACTERS} characters"])
    try:
        expression = parse(text)
    except RulesError as error:
        raise IllegalAction(title, [str(error)]) from None
    terms: list[tuple[int, int, int]] = []
    fixed = 0
    words: list[str] = []
    reasons: list[str] = []
    for term in expression.terms:
        sign = "-" if term.sign < 0 else ("+" if words else "")
        if not term.dice:
            fixed += term.sign * term.constant
            words.append(f"{sign}{term.constant}")
            continue
        if term.keep is not None:
            reasons.append(f"{term.text}: every die counts in L&L damage (no keeping the highest or lowest)")
        if not FREE_SIDES[0] <= term.sides <= FREE_SIDES[1]:
            reasons.append(f"{term.text}: damage dice explode, so they have {FREE_SIDES[0]} to {FREE_SIDES[1]} sides")
        terms.append((term.sign, term.count, term.sides))
        words.append(f"{sign}{term.count}d{term.sides}!")
    count = sum(n for _, n, _ in terms)
    if count > FREE_MOST_DICE:
        reasons.append(f"{count} dice: at most {FREE_MOST_DICE} in one effect")
    if not terms:
        reasons.append(f"{text} rolls no dice: write the dice (3d6), or give the damage by hand")
    if reasons:
        raise IllegalAction(title, reasons)
    return tuple(terms), fixed, "".join(words)


def _effect(rules: LnlRules, encounter: Encounter, action: AreaEffect, strict: bool) -> _Effect:
    """The effect ``action`` names: its caster's area spell, or the GM's free effect. ``strict`` refuses
    a spell laid on a shape or size other than its own (the GM's override allows it)."""
    if not action.caster:
        if action.extra("direct", False) and not rules.has_direct_damage:
            raise IllegalAction(
                action.name or "Free effect", [f"{rules.title} has no direct damage: all damage comes off SP first"]
            )
        terms, fixed, words = _free_dice(action.dice)
        return _Effect(
            name=action.name or "Area effect",
            caster=None,
            spell=None,
            terms=terms,
            fixed=fixed,
            dice_words=words,
            dex_applies=action.extra("dex_applies", True),
            ap_applies=action.extra("ap_applies", True),
            direct=action.extra("direct", False),
        )
    caster: LnLStats = encounter.combatant(action.caster)  # type: ignore[assignment]
    title = f"{caster.name}'s {action.means or 'area spell'}"
    spells = {s.name: s for s in caster.spells}
    with_area = ", ".join(s.name for s in caster.spells if s.area is not None) or "none"
    spell = spells.get(action.means)
    if spell is None:
        said = f"{caster.name} has no spell named {action.means!r}" if action.means else "name the spell"
        raise IllegalAction(title, [f"{said} (area spells: {with_area})"])
    if spell.area is None:
        raise IllegalAction(title, [f"{spell.name} strikes one target, not an area: cast it on its target"])
    if strict and (spell.area.shape.value != action.shape or spell.area.size_ft != action.size_ft):
        laid = area_words(AreaShape(action.shape), action.size_ft) if action.shape in _SHAPES else action.shape
        raise IllegalAction(title, [f"{spell.name} strikes {spell.area.words}, not {laid}"])
    plan_n = dice_count(caster.level)
    return _Effect(
        name=spell.name,
        caster=caster,
        spell=spell,
        terms=((1, plan_n, int(spell.die[1:])),),
        fixed=0,
        dice_words=f"{plan_n}{spell.die}!",
        dex_applies=spell.dex_applies,
        ap_applies=spell.ap_applies,
        direct=rules.is_direct(spell, AttackMode.SPELL),
    )


# -- the resolution --------------------------------------------------------------------------------


def _result(ap: Application, sp_before: int, ip_before: int, shield_before: int | None) -> str:
    """Where one target's damage went, in the log's words: 'SP 4 → 0, IP 10 → 6, down'."""
    parts: list[str] = []
    if ap.parried_with is not None and ap.parried_with != "shield":
        shatters = ", which shatters" if ap.parry_weapon_shattered else ""
        parts.append(f"all {ap.stopped} stopped by the {ap.parried_with} parry{shatters}")
    elif ap.parried_with == "shield":
        after = ap.shield_durability_after
        destroyed = ", destroyed" if ap.shield_destroyed else ""
        parts.append(f"shield {shield_before} → {after}{destroyed}")
    if ap.to_sp:
        parts.append(f"SP {sp_before} → {ap.stamina_after}")
    if ap.to_ip:
        parts.append(f"IP {ip_before} → {ap.injury_after}")
    if ip_before and not ap.injury_after:
        parts.append("down")
    if ap.overkill:
        parts.append(f"{ap.overkill} overkill")
    if not (ap.to_sp or ap.to_ip or ap.overkill or ap.parried_with):
        parts.append("no harm")
    return ", ".join(parts)


def _roll(effect: _Effect, dice: DiceSource) -> tuple[list[DieFace], int]:
    """The one roll every target shares, each die through the dice source (typed faces replay it):
    the faces and the total with each term's sign and the constants."""
    faces: list[DieFace] = []
    total = effect.fixed
    who = f"{effect.caster.name}'s " if effect.caster is not None else ""
    for sign, count, sides in effect.terms:
        rolled = roll_exploding(dice, count, sides, f"{who}{effect.name} damage")
        faces += rolled
        total += sign * sum(f.face for f in rolled)
    return faces, total


@dataclass(frozen=True)
class _Struck:
    """One target's numbers, for the log entry."""

    target: AreaTarget
    raw: int
    damage: int


def resolve_area(rules: LnlRules, engine: Table, action: AreaEffect, dice: DiceSource) -> list[Event]:
    """RULES §14 in the L&L family: one roll, each target's DEX, AP and parry, SP then IP (or IP at once)."""
    encounter = engine.encounter
    options: LnLFamilyOptions = encounter.options  # type: ignore[assignment]
    effect = _effect(rules, encounter, action, strict=not action.override)
    caster = effect.caster
    fighting = encounter.combat.phase is Phase.FIGHTING
    uses_action = False
    overridden: list[str] = []
    if caster is not None:
        # As CastSpell: the caster's turn and its action, refused unless the GM overrides.
        turn = engine.turn_checks(caster, needs_action=True) if fighting else []
        checks = [*turn, Check("Caster is up", not caster.down, f"{caster.name} is down")]
        reasons = failed(checks)
        if reasons and not action.override:
            raise IllegalAction(f"{caster.name} casting {effect.name}", reasons)
        overridden = reasons
        uses_action = fighting and not failed(turn)

    faces, rolled = _roll(effect, dice)
    explosions = sum(1 for f in faces if f.exploded)  # each counts against a parrying weapon (§6)
    area = area_words(AreaShape(action.shape), action.size_ft)
    struck: list[_Struck] = []
    follow: list[Event] = []
    ability_term, ability_words = 0, ""
    for cid in action.targets:
        target: LnLStats = engine.combatant(cid)
        plan = effect.plan(rules, target, options)
        if plan.ability is not None:  # the caster's bonus: the same for every target
            ability_term = plan.ability_term
            ability_words = f" {'+' if ability_term >= 0 else '-'} {abs(ability_term)} {plan.ability.value}"
        ap_term = 0 if plan.ap_ignored else plan.ap
        raw, damage = damage_after(rolled, plan, ap_term, options.minimum_damage)
        sp_before, ip_before = target.stamina, target.injury
        shield_before = target.shield.durability if target.shield is not None else None
        application = apply_damage(target, damage, plan.direct, explosions, options)  # type: ignore[arg-type]
        was_up = land(target, application)
        if caster is not None and effect.spell is not None and caster.id != target.id and fighting:
            record_blow(engine, caster, target, ranged=effect.spell.range_ft is None or effect.spell.range_ft > 5)
        # Only what takes something off: "- 2 DEX - 1 AP", nothing for a DEX of 0 or no armour.
        no_dex, no_ap = plan.dex_ignored or not plan.dex_term, plan.ap_ignored or not ap_term
        defences = formula_terms(0, 0, 0, None, 0, plan.dex_term, no_dex, ap_term, no_ap)
        numbers = AreaTarget(
            combatant=target.id,
            name=target.name,
            defences=" ".join(defences),
            damage=damage - application.stopped,
            result=_result(application, sp_before, ip_before, shield_before),
        )
        struck.append(_Struck(numbers, raw, damage))
        follow += after_blow(engine, target, application, was_up)
    if uses_action and caster is not None:
        engine.use_action(caster, ActionKind.SPELL, f"{effect.name} ({area})")

    total = rolled + ability_term
    dice_words = f"{effect.dice_words}{ability_words}"
    rnd = encounter.combat.round
    who = f"{caster.name}, " if caster is not None else ""
    text = f"{effect.name} ({who}{area}): {dice_words} = {total} — " + "; ".join(_line(total, s) for s in struck)
    actors = tuple(dict.fromkeys([*([caster.id] if caster is not None else []), *action.targets]))
    events: list[Event] = [
        AreaEffectResolved(
            round=rnd,
            text=text,
            actors=actors,
            caster=caster.id if caster is not None else "",
            effect=effect.name,
            area=area,
            dice=dice_words,
            faces=[f.face for f in faces],
            total=total,
            targets=[s.target for s in struck],
        )
    ]
    if overridden and caster is not None:
        events.append(
            Override(
                round=rnd,
                text=f"GM override for {caster.name}'s {effect.name}: {'; '.join(overridden)}",
                actors=(caster.id,),
            )
        )
    return events + follow


def _line(total: int, s: _Struck) -> str:
    """'Giant 17 - 3 DEX - 1 AP = 13 (SP 30 → 17)': one target's part of the log entry."""
    t = s.target
    sums = f"{total} {t.defences} = {s.raw}" if t.defences else f"{total}"
    if s.raw != s.damage:
        sums += f", so {s.damage}"
    return f"{t.name} {sums} ({t.result})"


# -- the forecast ----------------------------------------------------------------------------------


def _rolled_odds(effect: _Effect) -> tuple[np.ndarray, int]:
    """The exact distribution of the shared roll: ``p[k]`` the chance of a total of ``k + offset``."""
    from lnl_desktop.core.dice.odds import dice_total

    p = np.ones(1, dtype=np.float64)
    offset = effect.fixed
    for sign, count, sides in effect.terms:
        term = dice_total(count, sides)
        if sign < 0:  # dice taken away: the same chances, read from the top down
            term = term[::-1]
            offset -= len(term) - 1
        p = np.convolve(p, term) if len(p) > 1 else term
    return p, offset


def area_forecast(rules: LnlRules, encounter: Encounter, action: AreaEffect) -> Mapping[str, AreaOdds]:
    """Each target's exact chances before the roll: what gets through its DEX, AP and parry, and
    the chance it goes down (0 IP). Empty when the effect cannot be rolled as it stands."""
    from lnl_desktop.core.dice.odds import explosions_at_least
    from lnl_desktop.core.rules.lnl.odds import _clamped, _pct

    ids = {c.id for c in encounter.combatants}
    if action.caster and action.caster not in ids:
        return {}
    try:
        effect = _effect(rules, encounter, action, strict=False)
    except IllegalAction:
        return {}
    options: LnLFamilyOptions = encounter.options  # type: ignore[assignment]
    rolled, offset = _rolled_odds(effect)
    out: dict[str, AreaOdds] = {}
    for cid in action.targets:
        if cid not in ids:
            continue
        target: LnLStats = encounter.combatant(cid)  # type: ignore[assignment]
        plan = effect.plan(rules, target, options)
        ap_term = 0 if plan.ap_ignored else plan.ap
        shift = offset + plan.magic_term + plan.ability_term - plan.dex_term - ap_term
        dist = _clamped(rolled, shift, options.minimum_damage)
        # What gets through, and whether it goes down, asked of the ruleset's own rule for every amount.
        through: dict[int, float] = {}
        p_down = 0.0
        parried_with: str | None = None
        for amount in np.nonzero(dist)[0]:
            p = float(dist[amount])
            app = apply_damage(target, int(amount), plan.direct, 0, options)  # type: ignore[arg-type]
            got = int(amount) - app.stopped
            through[got] = through.get(got, 0.0) + p
            if app.injury_after == 0:
                p_down += p
            parried_with = parried_with or app.parried_with
        mass = math.fsum(through.values())
        mean = math.fsum(d * p for d, p in through.items()) / mass
        amounts = sorted(through)
        low, likely, running = amounts[0], amounts[-1], 0.0
        for d in amounts:
            running += through[d]
            if running >= _LIKELY * mass:
                likely = d
                break
        more = "+" if likely < amounts[-1] else ""
        formula = " ".join(
            [
                f"{effect.dice_words}",
                *formula_terms(
                    0,
                    0,
                    0,
                    plan.ability.value if plan.ability else None,
                    plan.ability_term,
                    plan.dex_term,
                    plan.dex_ignored,
                    ap_term,
                    plan.ap_ignored,
                ),
            ]
        )
        words = [f"{formula}: mean {mean:.1f} gets through"]
        if more:
            words.append(f"99% of rolls {likely} or less (the dice explode: no top)")
        if parried_with is not None:
            words.append(f"parrying with the {parried_with}")
            parry = target.parry
            if parry is not None and parry.weapon is not None and len(effect.terms) == 1:
                _, count, sides = effect.terms[0]
                needed = target.weapon(parry.weapon).magic_bonus + 1 - parry.explosions
                words.append(f"{_pct(explosions_at_least(count, sides, needed))} it shatters")
        words.append("direct to IP" if plan.direct else "SP first, then IP")
        drop: float | None = min(1.0, p_down / mass)
        if target.down:
            drop = None
            words.append("already down")
        else:
            words.append(f"{_pct(drop)} to put it down")
        out[cid] = AreaOdds(damage=f"≈ {mean:.1f} ({low}-{likely}{more})", drop=drop, words="; ".join(words))
    return out


class LnlAreas:
    """Area effects of the L&L family (RULES §14)."""

    def __init__(self, rules: LnlRules) -> None:
        self.rules = rules

    def means(self, c: LnLStats) -> tuple[AreaMeans, ...]:
        return area_means(c)

    def spec(self) -> AreaSpec:
        return area_spec(self.rules)

    def forecast(self, encounter: Encounter, action: AreaEffect) -> Mapping[str, AreaOdds]:
        return area_forecast(self.rules, encounter, action)

    def resolve(self, engine: Table, action: AreaEffect, dice: DiceSource) -> list[Event]:
        return resolve_area(self.rules, engine, action, dice)
