"""The exact damage forecast of an attack: what :meth:`.rules.LnlRules.resolve_attack` can roll, and how likely.

Nothing here is sampled. One exploding die of ``s`` sides totals ``m*s + r`` (``m`` maxima in a
row, then a face ``r`` of ``1..s-1``) with probability ``(1/s)**(m+1)``; the sum of several dice
is the convolution of their distributions. A distribution is a numpy array ``p`` with ``p[k]``
the chance of a total of ``k``; the exploding tail is cut where less than ``TAIL`` (1e-16) of
the mass is left, so every probability is exact to floating point.

The damage formula mirrors ``resolve_attack`` term by term (dice count, 2N for a Power Attack,
the magic term, the ability term, DEX and AP, the sneak attack's AWA precision check, the
minimum damage), and where the damage goes is asked of ``rules.apply_damage`` itself for every
possible amount, so the forecast cannot disagree with the engine about a parry or SP spilling
into IP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lnl_desktop.core.dice.odds import Forecast, Threshold, dice_total, explosions_at_least, mean_of
from lnl_desktop.core.rules.lnl.model import (
    AttackMode,
    LnLFamilyOptions,
    LnLStats,
    Spell,
    Weapon,
    WeaponState,
    formula_terms,
)
from lnl_desktop.core.rules.lnl.rules import apply_damage
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from lnl_desktop.core.rules.lnl.rules import LnlRules

np = lazy_module("numpy")  # imported at first use: the first window needs none of it

D20 = 20


def precision_chance(awa_bonus: int, dc: int) -> float:
    """The chance that d20 + ``awa_bonus`` reaches ``dc`` (no natural 1 or 20 rule)."""
    passing = sum(1 for face in range(1, D20 + 1) if face + awa_bonus >= dc)
    return passing / D20


@dataclass(frozen=True)
class _Terms:
    base: int
    sides: int
    fixed: int  # magic term + ability term - DEX term (everything but the dice and AP)
    ap: int  # the AP term when armour counts
    ap_ignored: bool  # armour never counts (a spell that ignores it)
    precision: float | None  # chance that the AWA check ignores AP, None if there is no check
    direct: bool
    formula: str


def _terms(
    attacker: LnLStats,
    target: LnLStats,
    means: Weapon | Spell,
    mode: AttackMode,
    options: LnLFamilyOptions,
    ignore_dex: bool,
    rules: LnlRules,
) -> _Terms:
    """The edition's own damage plan (what ``resolve_attack`` rolls), with the precision check left as a chance."""
    plan = rules.damage_plan(attacker, target, means, mode, options, ignore_dex=ignore_dex)
    precision = precision_chance(*plan.precision) if plan.precision is not None else None
    unless = f" unless the {attacker.PERCEPTION.value} check succeeds" if precision is not None else ""
    magic_dice = plan.magic_term // plan.magic_bonus if plan.magic_bonus else 0
    ability = plan.ability.value if plan.ability else None
    terms = formula_terms(
        magic_dice,
        plan.magic_bonus,
        plan.magic_term,
        ability,
        plan.ability_term,
        plan.dex_term,
        plan.dex_ignored,
        plan.ap,
        plan.ap_ignored,
        unless,
    )
    words = [f"{plan.base}{means.die}!", *terms]
    return _Terms(
        base=plan.base,
        sides=plan.sides,
        fixed=plan.magic_term + plan.ability_term - plan.dex_term,
        ap=plan.ap,
        ap_ignored=plan.ap_ignored,
        precision=precision,
        direct=plan.direct,
        formula=" ".join(words),
    )


def _clamped(totals: np.ndarray, offset: int, minimum: int) -> np.ndarray:
    """Damage distribution (index = damage) of ``max(minimum, total + offset)``."""
    top = len(totals) - 1 + offset
    size = max(top, minimum) + 1
    out = np.zeros(size, dtype=np.float64)
    # Totals that land at or below the minimum all become the minimum.
    cut = minimum - offset  # totals <= cut are raised to the minimum
    if cut >= 0:
        out[minimum] = totals[: min(cut, len(totals) - 1) + 1].sum()
        start = cut + 1
    else:
        start = 0
    if start < len(totals):
        out[start + offset : len(totals) + offset] += totals[start:]
    return out


def _pct(p: float) -> str:
    """A chance in words a GM reads at a glance: 0%, <1%, 35%, >99%, 100%."""
    if p <= 0.0:
        return "0%"
    if p >= 1.0 - 1e-12:
        return "100%"
    if p < 0.005:
        return "<1%"
    if p > 0.995:
        return ">99%"
    return f"{p * 100:.0f}%"


def forecast_with(
    rules: LnlRules,
    attacker: LnLStats,
    target: LnLStats,
    means: Weapon | Spell,
    mode: AttackMode,
    options: LnLFamilyOptions,
    *,
    ignore_dex: bool = False,
) -> Forecast:
    """The exact distribution of what ``rules.resolve_attack`` (L&L or an edition of its family) would do
    with these arguments, and where it goes."""
    terms = _terms(attacker, target, means, mode, options, ignore_dex, rules)
    fixed = terms.fixed
    totals = dice_total(terms.base, terms.sides)
    minimum = options.minimum_damage

    if terms.ap_ignored:
        dist = _clamped(totals, fixed, minimum)
    elif terms.precision is None:
        dist = _clamped(totals, fixed - terms.ap, minimum)
    else:
        # The AWA check comes first and is independent of the dice: a mixture of the two cases.
        with_ap = _clamped(totals, fixed - terms.ap, minimum)
        without_ap = _clamped(totals, fixed, minimum)
        dist = np.zeros(max(len(with_ap), len(without_ap)), dtype=np.float64)
        dist[: len(without_ap)] += terms.precision * without_ap
        dist[: len(with_ap)] += (1.0 - terms.precision) * with_ap

    amounts = np.nonzero(dist)[0]
    # Sums of many terms can round a hair past 1 (all the mass on one value): keep them probabilities.
    damage = {int(d): min(1.0, float(dist[d])) for d in amounts}
    mean = mean_of(dist)

    # Where each amount goes, asked of the engine's own rule. The explosions only decide whether
    # a parrying weapon shatters, never how much it stops, so 0 is passed here and the shattering
    # chance is worked out on its own below.
    taken: dict[int, float] = {}
    p_sp_empty = p_down = 0.0
    sp_empty_from: int | None = None
    down_from: int | None = None
    parried_with: str | None = None
    for amount, p in damage.items():  # in increasing order of damage
        app = apply_damage(target, amount, terms.direct, 0, options)
        through = app.to_sp + app.to_ip
        taken[through] = taken.get(through, 0.0) + p
        if app.stamina_after == 0:
            p_sp_empty += p
            sp_empty_from = amount if sp_empty_from is None else sp_empty_from
        if app.injury_after == 0:
            p_down += p
            down_from = amount if down_from is None else down_from
        parried_with = parried_with or app.parried_with
    mean_taken = math.fsum(t * p for t, p in taken.items()) / max(math.fsum(taken.values()), 1e-300)

    p_shatter = None
    parry = target.parry
    if parry is not None and parry.weapon is not None:
        weapon = target.weapon(parry.weapon)
        if weapon.state is not WeaponState.BROKEN:
            needed = weapon.magic_bonus + 1 - parry.explosions
            p_shatter = explosions_at_least(terms.base, terms.sides, needed)

    # The chart's lines in the family's words: SP emptied on the way, then down at 0 IP.
    thresholds = []
    if sp_empty_from is not None:
        thresholds.append(Threshold("SP 0", sp_empty_from, min(1.0, p_sp_empty)))
    if down_from is not None:
        thresholds.append(Threshold("down", down_from, min(1.0, p_down), down=True))
    parried = _Parried(parried_with, p_shatter, mean_taken) if parried_with is not None else None
    return Forecast(
        damage=damage,
        mean=mean,
        taken={t: min(1.0, p) for t, p in sorted(taken.items())},
        p_down=min(1.0, p_down),
        summary=_summary(mean, parried, terms, min(1.0, p_sp_empty), min(1.0, p_down), target),
        dice=terms.base,
        sides=terms.sides,
        formula=terms.formula,
        mean_taken=mean_taken,
        down_from=down_from,
        where=f"to {'IP (direct)' if terms.direct else 'SP first'}",
        thresholds=tuple(thresholds),
        notes=_notes(means),
        means_label=means_label(means),
    )


def means_label(means: Weapon | Spell) -> str:
    """The weapon or spell as the forecast's title names it: a weapon's magic bonus after its name."""
    if isinstance(means, Weapon) and means.magic_bonus:
        return f"{means.name} +{means.magic_bonus}"
    return means.name  # a spell, or a weapon without a bonus


@dataclass(frozen=True)
class _Parried:
    """A parry in force on the target: what it stops the blow with, and what it lets through."""

    with_: str  # the weapon's name, or "shield"
    shatters: float | None  # a parrying weapon's chance to shatter on this blow; None for the shield
    mean_taken: float


def _notes(means: Weapon | Spell) -> tuple[str, ...]:
    """The family's line about the weapon itself: broken until repaired (a parry is said in the summary)."""
    broken = isinstance(means, Weapon) and means.state is WeaponState.BROKEN
    return ("broken until repaired",) if broken else ()


def _summary(
    mean: float, parried: _Parried | None, terms: _Terms, p_sp_empty: float, p_down: float, target: LnLStats
) -> str:
    parts = [f"Mean {mean:.1f} damage"]
    if parried is not None:
        if parried.shatters is not None:
            # A weapon parry stops the whole blow: SP and IP cannot change, only the weapon may break.
            parts.append(f"parried with {parried.with_}: all stopped, {_pct(parried.shatters)} it shatters")
            return " · ".join(parts)
        parts.append(f"parried with the {parried.with_}: mean {parried.mean_taken:.1f} gets through")
    if not terms.direct and target.stamina > 0:
        parts.append(f"{_pct(p_sp_empty)} to empty SP")
    elif terms.direct:
        parts.append("direct to IP")
    if target.injury > 0:
        parts.append(f"{_pct(p_down)} to put it down")
    else:
        parts.append("already down")
    if terms.precision is not None:
        parts.append(f"AWA check {_pct(terms.precision)}")
    return " · ".join(parts)
