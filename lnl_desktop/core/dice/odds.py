"""Exact dice distributions and the forecast every ruleset's odds fill in.

Nothing here is sampled. One exploding die of ``s`` sides totals ``m*s + r`` (``m`` maxima in a
row, then a face ``r`` of ``1..s-1``) with probability ``(1/s)**(m+1)``; the sum of several dice
is the convolution of their distributions. A distribution is a numpy array ``p`` with ``p[k]``
the chance of a total of ``k``; the exploding tail is cut where less than ``TAIL`` (1e-16) of
the mass is left, so every probability is exact to floating point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from lnl_desktop.lazy import lazy_module

np = lazy_module("numpy")  # imported at first use: the first window needs none of it

TAIL = 1e-16
"""Probability mass an exploding tail may leave out (per die; a sum of dice at most that much in all)."""


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


@dataclass(frozen=True)
class Threshold:
    """A state the ruleset names that an attack's damage may reach: a line on the forecast's chart."""

    label: str  # "SP 0", "0 HP", "down"
    from_amount: int  # the least damage (after the target's defences) that reaches it
    chance: float  # the chance this attack reaches it
    down: bool = False  # reaching it puts the target down (the chart's last line)


@dataclass
class Forecast:
    """What an attack can do, exactly, before it is rolled: a distribution of outcomes the ruleset labels.

    ``damage`` maps each damage amount (after the target's defences, before any parry) to its chance;
    ``taken`` maps what actually comes off the target (after a parry, capped by what the target has)
    to its chance. ``thresholds`` are the states that damage may reach, in the ruleset's words, and
    ``notes`` the ruleset's own lines about the attack.
    """

    damage: dict[int, float]
    mean: float
    taken: dict[int, float]
    p_down: float
    summary: str
    dice: int = 0  # base dice rolled (N, or 2N for a Power Attack)
    sides: int = 0
    formula: str = ""  # "5d6! +10 magic +8 STR -3 DEX -1 AP"
    mean_taken: float = 0.0
    down_from: int | None = None  # the least damage that puts the target down
    # A ruleset with to-hit rolls: the chance to hit; ``damage`` is then the distribution on a hit,
    # ``mean`` the mean on a hit, ``mean_taken`` the expected damage over hit and miss, ``p_down`` overall.
    p_hit: float | None = None
    where: str = ""  # where damage goes, in words ("to HP", "to SP first"); empty: the formula says it
    exploding: bool = True  # the dice explode; False: plain dice such as 1d8 + 2
    edge: str = ""  # advantage or disadvantage on the d20 to hit, with its sources ("advantage (target prone)")
    # The states the damage may reach, least first, in the ruleset's words (a distribution of outcomes
    # the ruleset labels), and lines the ruleset adds ("Parried with Shield: …").
    thresholds: tuple[Threshold, ...] = ()
    notes: tuple[str, ...] = ()
    means_label: str = ""  # the weapon or spell as the title names it ("Shortsword +2"); empty: its name

    @property
    def total(self) -> float:
        """The probabilities' sum (1 up to the exploding tail left out)."""
        return math.fsum(self.damage.values())

    def chance_at_least(self, amount: int) -> float:
        """P(damage >= amount), before any parry."""
        return math.fsum(p for d, p in self.damage.items() if d >= amount)
