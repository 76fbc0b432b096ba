"""The exact damage forecast of an attack: what :meth:`LnLRuleset.resolve_attack` can roll, and how likely.

Nothing here is sampled. One exploding die of ``s`` sides totals ``m*s + r`` (``m`` maxima in a
row, then a face ``r`` of ``1..s-1``) with probability ``(1/s)**(m+1)``; the sum of several dice
is the convolution of their distributions. A distribution is a numpy array ``p`` with ``p[k]``
the chance of a total of ``k``; the exploding tail is cut where less than ``TAIL`` (1e-16) of
the mass is left, so every probability is exact to floating point.

The damage formula mirrors ``resolve_attack`` term by term (dice count, 2N for a Power Attack,
the magic term, the ability term, DEX and AP, the sneak attack's AWA precision check, the
minimum damage), and where the damage goes is asked of ```ruleset.apply_damage`` itself for every
possible amount, so the forecast cannot disagree with the engine about a parry or SP spilling
into IP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from lnl_desktop.core.model import (
    LnLFamilyOptions,
    LnLStats,
    Spell,
    Weapon,
    WeaponState,
)
from lnl_desktop.core.rules.common import AttackMode
from lnl_desktop.core.rules.lnl import LNL, LnLRuleset
from lnl_desktop.lazy import lazy_module

np = lazy_module("numpy")  # imported at first use: the first window needs none of it

TAIL = 1e-16
"""Probability mass an exploding tail may leave out (per die; a sum of dice at most that much in all)."""

D20 = 20


@lru_cache(maxsize=16)
def _exploding_die(sides: int) -> np.ndarray:
    if sides < 2:
        raise ValueError(f"an exploding die needs at least 2 sides (got {sides})")
    q = 1.0 / sides
    # Keep m = 0..depth maxima in a row: what is left out is P(m > depth) = q**(depth + 1) < TAIL.
    depth = 0
    while q ** (depth + 1) >= TAIL:
        depth += 1
    p = np.zeros((depth + 1) * sides, dtype=np.float64)
    for m in range(depth + 1):
        p[m * sides + 1 : (m + 1) * sides] = q ** (m + 1)
    p.setflags(write=False)
    return p


def exploding_die(sides: int) -> np.ndarray:
    """The distribution of one exploding die: ``p[k]`` is the chance its total (explosions included) is ``k``.

    ``p[m*s + r] = (1/s)**(m+1)`` for ``r`` in ``1..s-1``; totals that are a multiple of ``s``
    are impossible (a maximum always rolls again). The array is shared: do not change it.
    """
    return _exploding_die(sides)


def _trim(p: np.ndarray, tail: float) -> np.ndarray:
    """Cut the highest totals while the mass they hold together stays below ``tail``."""
    from_end = np.cumsum(p[::-1])
    keep = len(p) - int(np.searchsorted(from_end, tail, side="left"))
    return p[: max(keep, 1)]


@lru_cache(maxsize=64)
def _dice_total(count: int, sides: int) -> np.ndarray:
    one = _exploding_die(sides)
    total = np.ones(1, dtype=np.float64)  # zero dice total 0
    for _ in range(count):
        total = _trim(np.convolve(total, one), TAIL)
    total.setflags(write=False)
    return total


def dice_total(count: int, sides: int) -> np.ndarray:
    """The distribution of the sum of ``count`` exploding dice of ``sides`` sides (``p[k]`` = P(sum = k)).

    Each step cuts at most ``TAIL`` of mass, so the whole array misses less than ``count * TAIL``.
    The array is cached and shared: do not change it.
    """
    if count < 0:
        raise ValueError(f"cannot roll {count} dice")
    return _dice_total(count, sides)


def mean_of(p: np.ndarray, offset: int = 0) -> float:
    """The mean of a distribution whose index 0 stands for ``offset``."""
    return float(np.dot(np.arange(len(p), dtype=np.float64) + offset, p) / p.sum())


def explosions_at_least(count: int, sides: int, at_least: int) -> float:
    """The chance that ``count`` exploding dice show their maximum at least ``at_least`` times in all.

    Every die's run of maxima is geometric, so the number of maxima is negative binomial:
    ``P(K = k) = C(k + count - 1, k) q**k (1 - q)**count`` with ``q = 1/sides``.
    """
    if at_least <= 0:
        return 1.0
    if count == 0:
        return 0.0
    q = 1.0 / sides
    below = sum(math.comb(k + count - 1, k) * q**k * (1 - q) ** count for k in range(at_least))
    return min(1.0, max(0.0, 1.0 - below))


def precision_chance(awa_bonus: int, dc: int) -> float:
    """The chance that d20 + ``awa_bonus`` reaches ``dc`` (no natural 1 or 20 rule)."""
    passing = sum(1 for face in range(1, D20 + 1) if face + awa_bonus >= dc)
    return passing / D20


@dataclass
class Forecast:
    """What an attack can do, exactly, before it is rolled.

    ``damage`` maps each damage amount (after DEX, AP and the minimum, before any parry) to its
    chance; ``taken`` maps what actually comes off the target (SP + IP, after a parry, capped by
    what the target has) to its chance.
    """

    damage: dict[int, float]
    mean: float
    taken: dict[int, float]
    p_sp_empty: float
    p_down: float
    p_precision: float | None
    summary: str
    direct: bool
    dice: int = 0  # base dice rolled (N, or 2N for a Power Attack)
    sides: int = 0
    formula: str = ""  # "5d6! +10 magic +8 STR -3 DEX -1 AP"
    mean_taken: float = 0.0
    sp_empty_from: int | None = None  # the least damage that leaves the target at 0 SP
    down_from: int | None = None  # the least damage that puts the target down (0 IP)
    parried_with: str | None = None  # what a parry in force stops the blow with
    p_parry_shatters: float | None = None  # a parrying weapon's chance to shatter on this blow
    # A ruleset with to-hit rolls: the chance to hit; ``damage`` is then the distribution on a hit,
    # ``mean`` the mean on a hit, ``mean_taken`` the expected damage over hit and miss, ``p_down`` overall.
    p_hit: float | None = None
    where: str = ""  # where damage goes, in words ("to HP"); empty: the L&L family's SP / IP wording
    exploding: bool = True  # the dice explode (the L&L family); False: plain dice such as 1d8 + 2
    sp_label: str = "SP 0"  # the chart's first threshold line
    edge: str = ""  # advantage or disadvantage on the d20 to hit, with its sources ("advantage (target prone)")

    @property
    def total(self) -> float:
        """The probabilities' sum (1 up to the exploding tail left out)."""
        return math.fsum(self.damage.values())

    def chance_at_least(self, amount: int) -> float:
        """P(damage >= amount), before any parry."""
        return math.fsum(p for d, p in self.damage.items() if d >= amount)


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
    ruleset: LnLRuleset,
) -> _Terms:
    """The ruleset's own damage plan (what ``resolve_attack`` rolls), with the precision check left as a chance."""
    plan = ruleset.damage_plan(attacker, target, means, mode, options, ignore_dex=ignore_dex)
    precision = precision_chance(*plan.precision) if plan.precision is not None else None
    words = [f"{plan.base}{means.die}!"]
    if plan.magic_term:
        words.append(f"{plan.magic_term:+d} magic")
    if plan.ability:
        words.append(f"{plan.ability_term:+d} {plan.ability.value}")
    if plan.dex_term:
        words.append(f"{-plan.dex_term:+d} DEX")
    if precision is not None:
        words.append(f"{-plan.ap:+d} AP unless the {attacker.PERCEPTION.value} check succeeds")
    elif plan.ap and not plan.ap_ignored:
        words.append(f"{-plan.ap:+d} AP")
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


def forecast_attack(
    attacker: LnLStats,
    target: LnLStats,
    means: Weapon | Spell,
    mode: AttackMode,
    options: LnLFamilyOptions,
    *,
    ignore_dex: bool = False,
    ruleset: LnLRuleset | None = None,
) -> Forecast:
    """The exact distribution of what ``resolve_attack`` would do with these arguments, and where it goes."""
    ruleset = ruleset or LNL
    terms = _terms(attacker, target, means, mode, options, ignore_dex, ruleset)
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
        app = ruleset.apply_damage(target, amount, terms.direct, 0, options)
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

    fc = Forecast(
        damage=damage,
        mean=mean,
        taken={t: min(1.0, p) for t, p in sorted(taken.items())},
        p_sp_empty=min(1.0, p_sp_empty),
        p_down=min(1.0, p_down),
        p_precision=terms.precision,
        summary="",
        direct=terms.direct,
        dice=terms.base,
        sides=terms.sides,
        formula=terms.formula,
        mean_taken=mean_taken,
        sp_empty_from=sp_empty_from,
        down_from=down_from,
        parried_with=parried_with,
        p_parry_shatters=p_shatter,
    )
    fc.summary = _summary(fc, target)
    return fc


def _summary(fc: Forecast, target: LnLStats) -> str:
    parts = [f"Mean {fc.mean:.1f} damage"]
    if fc.parried_with is not None:
        if fc.p_parry_shatters is not None:
            # A weapon parry stops the whole blow: SP and IP cannot change, only the weapon may break.
            parts.append(f"parried with {fc.parried_with}: all stopped, {_pct(fc.p_parry_shatters)} it shatters")
            return " · ".join(parts)
        parts.append(f"parried with the {fc.parried_with}: mean {fc.mean_taken:.1f} gets through")
    if not fc.direct and target.stamina > 0:
        parts.append(f"{_pct(fc.p_sp_empty)} to empty SP")
    elif fc.direct:
        parts.append("direct to IP")
    if target.injury > 0:
        parts.append(f"{_pct(fc.p_down)} to put it down")
    else:
        parts.append("already down")
    if fc.p_precision is not None:
        parts.append(f"AWA check {_pct(fc.p_precision)}")
    return " · ".join(parts)
