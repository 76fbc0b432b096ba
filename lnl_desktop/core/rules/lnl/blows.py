"""One L&L-family blow as the fight odds draw it: the exact damage distribution of an attacker's weapon
against a target (:func:`.odds.forecast_with`'s, kept by its damage plan), ready to sample. The fast
simulator (:mod:`.sim`) and its engine-played reference (:mod:`.tactic`) both pick weapons by it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from lnl_desktop.core.encounter.model import WeaponKind
from lnl_desktop.core.rules.lnl.model import AttackMode, LnLFamilyOptions, LnLStats, Weapon, WeaponState
from lnl_desktop.core.rules.lnl.rules import LnlRules
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy.typing as npt

np = lazy_module("numpy")


class FamilyRuleset(Protocol):
    """What the simulator asks of L&L or L&L Classic (never the package's ``__init__``: no circle):
    its rounds (the start of combat, initiative) and its attacks' edition (the damage formula)."""

    name: str
    rounds: Any
    attacks: Any


def _rules(ruleset: FamilyRuleset) -> LnlRules:
    return ruleset.attacks.rules  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Blow:
    """One weapon of an attacker against one target: the forecast's exact damage, ready to sample."""

    weapon: int  # index in the attacker's weapons
    ranged: bool
    reach_ft: int
    max_range_ft: float
    mean: float
    values: npt.NDArray[Any]  # the damage amounts
    cdf: npt.NDArray[Any]  # their cumulative chances (the last exactly 1)
    dice: int
    sides: int
    direct: bool
    exertion: bool
    specialized: bool


# The forecast's damage distributions by the plan that sets them (every term of RULES §5's formula):
# the odds are worked out again after every change at the table, mostly of the same blows.
_DISTRIBUTIONS: dict[tuple[Any, ...], tuple[float, Any, Any]] = {}
_CACHE_SIZE = 4096


def distribution(
    rules: LnlRules,
    a: LnLStats,
    t: LnLStats,
    weapon: Weapon,
    options: LnLFamilyOptions,
    mode: AttackMode = AttackMode.ATTACK,
    plan: Any = None,
) -> tuple[float, Any, Any]:
    """The mean, the amounts and their cumulative chances of ``a``'s blow on ``t`` with ``weapon``:
    :func:`.odds.forecast_with`'s exact distribution, kept by its damage plan."""
    from lnl_desktop.core.rules.lnl.odds import forecast_with  # the forecast's own: at the first fight odds

    if plan is None:
        plan = rules.damage_plan(a, t, weapon, mode, options)
    key = (type(rules), plan, options.minimum_damage)
    found = _DISTRIBUTIONS.get(key)
    if found is not None:
        return found
    fc = forecast_with(rules, a, t, weapon, mode, options)
    amounts = np.array(sorted(fc.damage), dtype=np.int64)
    chances = np.array([fc.damage[int(d)] for d in amounts], dtype=np.float64)
    cdf = np.cumsum(chances)
    cdf /= cdf[-1]
    cdf[-1] = 1.0
    if len(_DISTRIBUTIONS) >= _CACHE_SIZE:
        _DISTRIBUTIONS.clear()
    _DISTRIBUTIONS[key] = (fc.mean, amounts, cdf)
    return fc.mean, amounts, cdf


def blows(
    rules: LnlRules,
    a: LnLStats,
    t: LnLStats,
    options: LnLFamilyOptions,
    mode: AttackMode = AttackMode.ATTACK,
) -> list[Blow]:
    """Every intact weapon of ``a`` against ``t`` in ``mode`` (a what-if's pinned sneak attack), best
    first (highest mean damage; ties: the first listed)."""
    out: list[tuple[float, int, Blow]] = []
    for w, weapon in enumerate(a.weapons):
        if weapon.state is WeaponState.BROKEN:
            continue
        plan = rules.damage_plan(a, t, weapon, mode, options)
        mean, amounts, cdf = distribution(rules, a, t, weapon, options, mode, plan)
        ranged = weapon.kind is WeaponKind.RANGED
        blow = Blow(
            weapon=w,
            ranged=ranged,
            reach_ft=0 if ranged else weapon.reach,
            max_range_ft=float(weapon.max_range_ft) if ranged and weapon.max_range_ft is not None else math.inf,
            mean=mean,
            values=amounts,
            cdf=cdf,
            dice=plan.base,
            sides=plan.sides,
            direct=rules.is_direct(weapon, mode),
            exertion=rules.costs_exertion(weapon, options),
            specialized=weapon.specialized,
        )
        out.append((-mean, w, blow))
    return [b for _, _, b in sorted(out, key=lambda x: (x[0], x[1]))]


def sample(blow: Blow, rng: Any, count: int) -> npt.NDArray[Any]:
    """``count`` damage amounts of ``blow``, drawn from its exact distribution."""
    idx = np.searchsorted(blow.cdf, rng.random(count), side="right")
    out: npt.NDArray[Any] = blow.values[np.minimum(idx, len(blow.values) - 1)]
    return out


@dataclass(frozen=True)
class Arsenal:
    """Every blow of one attacker against each of its foes as arrays, so that a turn picks, rolls and
    applies each fight's blow at once whatever foe that fight's target is (no loop over the foes).

    Blow ``b`` is ``blows[b]``; ``ranged[j]`` the best blow on foe ``j`` when that is a ranged one (-1:
    not), ``melee[j, m]`` its ``m``-th best melee or reach blow (-1: no more). The damage tables of all
    blows are laid end to end, blow ``b``'s cumulative chances raised by ``b`` (:meth:`roll`)."""

    blows: tuple[Blow, ...]
    any: npt.NDArray[Any]  # [k] whether it has a blow on j at all
    ranged: npt.NDArray[Any]  # [k] blow id or -1
    melee: npt.NDArray[Any]  # [k, m] blow ids, best first, -1 padded
    weapon: npt.NDArray[Any]  # [b] index in the attacker's weapons
    reach_ft: npt.NDArray[Any]  # [b]
    max_range_ft: npt.NDArray[Any]  # [b]
    direct: npt.NDArray[Any]  # [b]
    exertion: npt.NDArray[Any]  # [b]
    specialized: npt.NDArray[Any]  # [b]
    dice: npt.NDArray[Any]  # [b]
    sides: npt.NDArray[Any]  # [b]
    cdf: npt.NDArray[Any]  # every blow's cumulative chances + its id, end to end
    values: npt.NDArray[Any]  # the damage amounts, end to end
    last: npt.NDArray[Any]  # [b] the index of blow b's last amount
    foes: npt.NDArray[Any]  # [k] who it may target

    @cached_property
    def shoots(self) -> bool:
        """Whether its best blow on any foe is a ranged one."""
        return bool((self.ranged >= 0).any())

    @cached_property
    def always(self) -> bool:
        """Whether it has a blow on every combatant it may target (its foes: the others never are)."""
        return bool(self.any[self.foes].all())

    @cached_property
    def close(self) -> bool:
        """Whether it has a melee or reach blow on every foe (none to leave out before closing in)."""
        return bool((self.melee[self.foes, 0] >= 0).all())

    @classmethod
    def of(cls, options: list[list[Blow]], foes: npt.NDArray[Any]) -> Arsenal:
        """The arsenal of an attacker whose blows on foe ``j``, best first, are ``options[j]``; ``foes``:
        [k] whether ``j`` is its foe."""
        k = len(options)
        found: list[Blow] = []
        ids: dict[int, int] = {}

        def bid(blow: Blow) -> int:
            if id(blow) not in ids:
                ids[id(blow)] = len(found)
                found.append(blow)
            return ids[id(blow)]

        width = max((sum(not b.ranged for b in o) for o in options), default=0) or 1
        ranged = np.full(k, -1, dtype=np.int64)
        melee = np.full((k, width), -1, dtype=np.int64)
        for j, o in enumerate(options):
            if o and o[0].ranged:
                ranged[j] = bid(o[0])
            for m, blow in enumerate(b for b in o if not b.ranged):
                melee[j, m] = bid(blow)
        cdf = [b.cdf + n for n, b in enumerate(found)]
        sizes = np.array([len(b.values) for b in found], dtype=np.int64)
        return cls(
            blows=tuple(found),
            any=np.array([bool(o) for o in options], dtype=np.bool_),
            ranged=ranged,
            melee=melee,
            weapon=np.array([b.weapon for b in found], dtype=np.int64),
            reach_ft=np.array([b.reach_ft for b in found], dtype=np.float64),
            max_range_ft=np.array([b.max_range_ft for b in found], dtype=np.float64),
            direct=np.array([b.direct for b in found], dtype=np.bool_),
            exertion=np.array([b.exertion for b in found], dtype=np.bool_),
            specialized=np.array([b.specialized for b in found], dtype=np.bool_),
            dice=np.array([b.dice for b in found], dtype=np.int64),
            sides=np.array([b.sides for b in found], dtype=np.int64),
            cdf=np.concatenate(cdf) if cdf else np.zeros(0),
            values=np.concatenate([b.values for b in found]) if found else np.zeros(0, dtype=np.int64),
            last=np.cumsum(sizes) - 1,
            foes=np.asarray(foes, dtype=np.bool_),
        )

    def roll(self, blow: npt.NDArray[Any], rng: Any) -> npt.NDArray[Any]:
        """One damage amount per entry of ``blow`` (blow ids), each from its blow's exact distribution
        (:func:`sample`'s draw): one search in the tables laid end to end, a uniform draw raised by the id."""
        idx = np.searchsorted(self.cdf, rng.random(blow.shape[0]) + blow, side="right")
        out: npt.NDArray[Any] = self.values[np.minimum(idx, self.last[blow])]
        return out
