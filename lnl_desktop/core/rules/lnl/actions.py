"""The L&L family's actions of a turn (:class:`LnlActions`): what the Action dock offers (attack, power,
sneak, spell, parry, dash, leap), their checks and notes worded for the edition that asks, and the
result of one in the family's words; the engine's handlers for them are in :mod:`.play`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import AreaEffectResolved, Override, WentDown
from lnl_desktop.core.encounter.model import Encounter, WeaponKind
from lnl_desktop.core.rules.base import Handler
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.lnl import play
from lnl_desktop.core.rules.lnl.model import (
    Ability,
    Attack,
    AttackMode,
    AttackResolved,
    CastSpell,
    Dash,
    ExertionSpent,
    Leap,
    LnLStats,
    Parry,
    ShieldDestroyed,
    ShieldState,
    WeaponBroken,
    WeaponState,
    WeaponStyle,
)
from lnl_desktop.core.rules.lnl.rules import LnlRules
from lnl_desktop.core.rules.shared import said_checks
from lnl_desktop.core.rules.specs import (
    ActionResult,
    ActionSpec,
    Span,
    area_result,
    following,
    result_line,
)

# -- the Action dock -------------------------------------------------------------------------------

# The parry's choice that is the shield rather than a named weapon (no weapon may be named so); the GM
# names it "shield".
SHIELD_MEANS = "\x00shield"
# The GM override of a sneak attack's eligibility, in the words the Action dock has always shown.
SNEAK_OVERRIDE = "GM override: allow the sneak attack anyway"
SNEAK_OVERRIDE_TIP = "Lets an ineligible sneak attack through; the log names the points overridden"


def _attack(mode: AttackMode) -> Any:
    def build(c: str, target: str, means: str, *, ignore_dex: bool = False, override: bool = False) -> Attack:
        return Attack(c, target, means, mode, ignore_dex=ignore_dex, override=override)

    return build


def _cast(c: str, target: str, means: str, *, ignore_dex: bool = False, override: bool = False) -> CastSpell:
    return CastSpell(c, target, means, ignore_dex=ignore_dex)


def _parry(c: str, means: str) -> Parry:
    return Parry(c, shield=True) if means in (SHIELD_MEANS, "shield") else Parry(c, means)


def action_kinds(r: LnlRules) -> tuple[ActionSpec, ...]:
    sneak_tip = (
        "Direct damage; DEX never subtracted; precision check for finesse and ranged weapons"
        if r.has_direct_damage
        else "Hidden, or the target engaged and your whole path outside its view: DEX not subtracted, AP applies"
    )

    def rolling(key: str, label: str, tip: str, mode: AttackMode, button: str, **more: Any) -> ActionSpec:
        build = _cast if mode is AttackMode.SPELL else _attack(mode)
        uses = "spell" if mode is AttackMode.SPELL else "weapon"
        if more.get("gm_override"):
            more.update(override_label=SNEAK_OVERRIDE, override_tip=SNEAK_OVERRIDE_TIP)
        return ActionSpec(
            key, label, tip, uses, build, targeted=True, mode=mode.value, button=button, rolls=True, **more
        )

    kinds = [
        rolling(
            "attack",
            "Attack",
            "Roll the weapon's damage dice: N by level, exploding",
            AttackMode.ATTACK,
            "Roll the attack",
            ignore_dex=True,
        ),
        rolling(
            "power",
            "Power attack",
            "2N dice instead of N; the weapon breaks after the attack",
            AttackMode.POWER,
            "Roll the Power Attack",
            ignore_dex=True,
        ),
        rolling("sneak", "Sneak attack", sneak_tip, AttackMode.SNEAK, "Roll the sneak attack", gm_override=True),
    ]
    if r.sneak_may_be_power:
        kinds.append(
            rolling(
                "sneak power",
                "Sneak power attack",
                "A sneak attack that is also a Power Attack: 2N dice, DEX not subtracted; the weapon breaks",
                AttackMode.SNEAK_POWER,
                "Roll the sneak power attack",
                gm_override=True,
            )
        )
    kinds += [
        rolling(
            "spell",
            "Cast a damaging spell",
            "N dice of the spell's die by the caster's level, exploding",
            AttackMode.SPELL,
            "Roll the spell",
            ignore_dex=True,
        ),
        ActionSpec(
            "parry",
            "Parry",
            "Stop incoming damage until the next turn, with a weapon or the shield",
            "choice",
            _parry,
            means_caption="Parry with",
            means_names=((SHIELD_MEANS, "shield"),),
        ),
        ActionSpec("dash", "Dash", "Gain extra movement this turn", "none", lambda c: Dash(c)),
        ActionSpec(
            "leap", "Leap", "Gain extra movement over obstacles and difficult terrain", "none", lambda c: Leap(c)
        ),
        ActionSpec(
            "other",
            "Something else…",
            "Grapple, reload, take aim, sheathe… in words, for the log",
            "text",
            lambda c, text: act.OtherAction(c, text),
            button="Take this action",
        ),
    ]
    return tuple(kinds)


def action_available(spec: ActionSpec, c: LnLStats) -> tuple[bool, str]:
    if spec.uses == "weapon":
        return bool(c.weapons), f"{c.name} has no weapon"
    if spec.uses == "spell":
        return bool(c.spells), f"{c.name} knows no damaging spell"
    if spec.key == "parry":
        return bool(c.weapons) or c.shield is not None, f"{c.name} has neither a weapon nor a shield"
    return True, ""


def action_means(spec: ActionSpec, c: LnLStats) -> list[tuple[str, str, str]]:
    """(name, label, why not) of the weapons, spells, or weapons and shield (``"shield"``) for a parry."""
    if spec.uses == "spell":
        return [
            (s.name, f"{s.name} ({c.dice_count}{s.die}{f', {s.range_ft} ft' if s.range_ft else ''})", "")
            for s in c.spells
        ]
    if spec.key == "parry":
        out = [(w.name, f"{w.label} · {w.state.value}", "") for w in c.weapons]
        if c.shield is not None:
            sh = c.shield
            out.append(
                (SHIELD_MEANS, f"{sh.name} (durability {sh.durability}/{sh.durability_max}) · {sh.state.value}", "")
            )
        return out
    if spec.uses == "weapon":
        out = []
        for w in c.weapons:
            style_word = "" if w.kind is WeaponKind.RANGED else f", {w.style.value}"
            broken = f"{w.name} is broken until repaired" if w.state is WeaponState.BROKEN else ""
            out.append((w.name, f"{w.label.removesuffix(')')}{style_word}) · {w.state.value}", broken))
        return out
    return []


def parry_checks(c: LnLStats, means: str | None) -> list[Check]:
    """Whether the weapon or shield can parry, as the engine's parry will check it."""
    if means is None:
        return [Check("A weapon or the shield", False, f"{c.name} has neither")]
    if means in (SHIELD_MEANS, "shield"):
        shield = c.shield
        if shield is None:
            return [Check("Shield carried", False, f"{c.name} has no shield")]
        why = {
            ShieldState.DESTROYED: f"{c.name}'s shield is destroyed",
            ShieldState.STOWED: f"{c.name}'s shield is not carried",
        }.get(shield.state, f"absorbs double damage; {shield.durability} durability left")
        return [Check("Shield carried", shield.state is ShieldState.CARRIED, why)]
    weapon = c.weapon(means)
    if weapon.state is WeaponState.BROKEN:
        return [Check("Weapon ready", False, f"{weapon.name} is broken")]
    if weapon.state is WeaponState.SHEATHED:
        return [Check("Weapon ready", False, f"{weapon.name} is sheathed: a parry needs a ready weapon")]
    holds = weapon.magic_bonus + 1
    return [
        Check("Weapon ready", True, f"it shatters on the {_nth(holds)} exploding die it stops (+{weapon.magic_bonus})")
    ]


def _nth(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def action_notes(
    r: LnlRules, options: Any, spec: ActionSpec, c: LnLStats, means: str | None, target: Any
) -> list[tuple[str, str]]:
    """What the GM should know before the action, in the ruleset's words."""
    notes: list[tuple[str, str]] = []
    mode = AttackMode(spec.mode) if spec.mode else None
    if spec.uses == "weapon" and means is not None and mode is not None:
        w = c.weapon(means)
        n = c.dice_count
        if mode in (AttackMode.POWER, AttackMode.SNEAK_POWER):
            notes.append(
                (
                    "Power Attack:",
                    f"{2 * n}{w.die} instead of {n}{w.die}; the {w.name} breaks after the attack "
                    "(a low roll is the critical fail).",
                )
            )
        if mode in (AttackMode.SNEAK, AttackMode.SNEAK_POWER):
            ap = f"{target.armor_points} AP" if target is not None else "the target's AP"
            precision = r.precision_check(c, target, w, mode) if target is not None else None
            if precision is not None or (
                target is None
                and r.has_direct_damage
                and (w.kind is WeaponKind.RANGED or w.style is WeaponStyle.FINESSE)
            ):
                dc = f" = DC {precision[1]}" if precision is not None else ""
                bonus = c.bonus(c.PERCEPTION)
                notes.append(
                    (
                        f"Precision ({'ranged' if w.kind is WeaponKind.RANGED else 'finesse'}):",
                        f"{c.PERCEPTION.value} check d20 {bonus:+d} against DC 10 + {ap}{dc}. "
                        "Success: armor ignored; failure: it applies.",
                    )
                )
            elif r.has_direct_damage:
                notes.append(("Precision:", f"a power weapon makes no check: {ap} always applies."))
            if r.has_direct_damage:
                notes.append(("", "All of it is direct damage to IP; the target's DEX is never subtracted."))
            else:
                notes.append(("", f"The target's DEX is not subtracted; {ap} applies; the damage comes off SP first."))
        if r.costs_exertion(w, options):
            half = " (halved: specialization)" if w.specialized else ""
            notes.append(("Exertion:", f"the attack costs {c.name} d4 SP{half}."))
        if w.kind is WeaponKind.RANGED and mode not in (AttackMode.SNEAK, AttackMode.SNEAK_POWER):
            if r.has_direct_damage:
                notes.append(("", "Ranged damage is direct: it comes off IP."))
            else:
                notes.append(("", "Ranged damage comes off SP first, like any blow."))
    elif spec.uses == "spell" and means is not None:
        s = c.spell(means)
        where = "direct to IP" if s.direct else "off SP first"
        notes.append(("", f"{c.dice_count}{s.die}, exploding; damage {where}."))
    elif spec.key == "parry":
        notes.append(("", "Until its next turn begins, incoming damage is stopped; it may still move."))
    elif spec.key in ("dash", "leap"):
        extra = c.move_ft * (options.dash_moves if spec.key == "dash" else options.leap_moves)
        over = (
            " and over obstacles and difficult terrain" if spec.key == "leap" and options.leap_ignores_terrain else ""
        )
        notes.append(("", f"+{extra:g} ft of movement this turn{over}."))
    return notes


ABILITY_WORDS = {Ability.AWA: "awareness", Ability.WIS: "wisdom"}


# -- the Action dock's result ------------------------------------------------------------------------


def action_result(encounter: Any, event: Any, after: list[Any]) -> ActionResult | None:
    """An attack or damaging spell (``AttackResolved``) in the L&L family's words: where the damage
    went (SP, IP, a parry), the AWA check of a sneak attack, the dice with their explosions, the
    whole damage formula, DEX and AP, and what followed (exertion, a broken weapon, going down)."""
    if isinstance(event, AreaEffectResolved):  # RULES §14: the one roll, each target, who went down
        return area_result(event, following(after, (WentDown, Override, WeaponBroken, ShieldDestroyed)))
    if not isinstance(event, AttackResolved):
        return None
    by_id = encounter.by_id()

    def name(cid: str) -> str:
        c = by_id.get(cid)
        return c.name if c is not None else cid

    e = event
    attacker, target = name(e.attacker), name(e.target)
    lines = [result_line(f"{attacker}: {e.mode} on {target} with {e.means} ({e.dice_count}{e.die})")]
    if e.precision is not None:
        p = e.precision
        check = f"d20 ({p.face}) {'-' if p.bonus < 0 else '+'} {abs(p.bonus)} = {p.total} vs DC {p.dc}"
        lines.append(result_line("AWA check: ", Span(check, formula=True), f": {p.verdict}"))
    dice: list[str | Span] = ["Dice: "]
    for f in (f for f in e.faces if not f.explosion):
        dice += [Span(f"{f.face}!", strong=True) if f.exploded else str(f.face), " "]
    extra = [f for f in e.faces if f.explosion]
    if extra:
        dice.append("· explosions: ")
        for f in extra:
            dice += [Span(f"{f.face}!", strong=True) if f.exploded else str(f.face), " "]
    dice.append(f"= {e.dice_total}")
    lines.append(result_line(*dice))
    if e.magic_term:
        lines.append(result_line(f"Magic: +{e.magic_bonus} per base die × {e.dice_count} = +{e.magic_term}"))
    lines.append(result_line(Span(e.formula, formula=True, strong=True)))
    dex = "DEX ignored" if e.dex_ignored else f"DEX {e.dex_term:+d} subtracted"
    ap = "AP ignored" if e.ap_ignored else f"AP {e.ap_term} subtracted"
    lines.append(result_line(f"{dex}, {ap}"))
    went = ", ".join(e.where_it_went) or "no harm"
    lines.append(result_line(f"Where it went: {went} → {target} {e.target_sp} SP, {e.target_ip} IP"))
    for follow in following(after, (ExertionSpent, WeaponBroken, WentDown, ShieldDestroyed, Override)):
        harm = isinstance(follow, WeaponBroken | WentDown | ShieldDestroyed)
        lines.append(result_line(Span(follow.text, alert=harm)))
    return ActionResult(_headline(e, target), tuple(lines), e)


def _headline(e: AttackResolved, target: str) -> str:
    if e.parried_with and not (e.to_sp or e.to_ip):
        return f"{e.damage} damage, stopped by {target}'s {e.parried_with} parry"
    kind = "direct damage" if e.direct else "damage"
    if e.to_sp and e.to_ip:
        return f"{e.damage} {kind}: {target} loses {e.to_sp} SP and {e.to_ip} IP → {e.target_sp} SP, {e.target_ip} IP"
    if e.to_sp:
        return f"{e.damage} {kind} off {target}'s SP → {e.target_sp} SP left"
    if e.to_ip:
        return f"{e.damage} {kind} off {target}'s IP → {e.target_ip} IP left"
    return f"{e.damage} {kind}: no harm to {target}"


class LnlActions:
    """The actions of an L&L-family turn."""

    handlers: Mapping[type, Handler] = {
        Attack: play.attack,
        CastSpell: play.cast,
        Parry: play.parry,
        Dash: play.dash,
        Leap: play.leap,
    }
    # Its checks and notes take the action's inputs (a ruleset built on it may read them).
    hooks_with_extras = frozenset({"action_checks", "action_notes"})

    def __init__(self, rules: LnlRules) -> None:
        self.rules = rules

    def kinds(self) -> tuple[ActionSpec, ...]:
        return action_kinds(self.rules)

    def available(self, spec: ActionSpec, c: LnLStats) -> tuple[bool, str]:
        return action_available(spec, c)

    def choices(self, spec: ActionSpec, c: LnLStats) -> list[tuple[str, str, str]]:
        return action_means(spec, c)

    def checks(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: LnLStats,
        means: str | None,
        text: str,
        target: Any = None,
        extras: Mapping[str, Any] | None = None,
    ) -> list[Check]:
        if spec.key == "parry":
            return parry_checks(c, means)
        return said_checks(spec, text)

    def notes(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: LnLStats,
        means: str | None,
        target: Any,
        extras: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, str]]:
        return action_notes(self.rules, encounter.options, spec, c, means, target)

    def still_open(self, encounter: Encounter, c: LnLStats, kind: str | None = None) -> str:
        return ""

    def opening(self, encounter: Encounter, c: LnLStats) -> str | None:
        return None

    def result(self, encounter: Encounter, event: Any, after: list[Any]) -> ActionResult | None:
        return action_result(encounter, event, after)

    def means(self, c: LnLStats, name: str, spell: bool = False) -> Any:
        return c.spell(name) if spell else c.weapon(name)

    def means_names(self, c: LnLStats) -> tuple[str, ...]:
        return tuple(w.name for w in c.weapons)
