"""The exact odds of a Group d10 attack: the kept d20 of one, two or three dice (advantage,
cinematic advantage, disadvantage), natural 1 and 20 on the kept die, and the damage on a hit with
the weapon's tier, the critical's doubling and DR, from the same terms the roll uses."""

from __future__ import annotations

import math

from lnl_desktop.core.dice.odds import Forecast, Threshold
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.rules.d10 import rules
from lnl_desktop.core.rules.d10.model import ON_20, D10Combatant, D10Options, D10Weapon, Tier


def kept_face(dice: int, keep_high: bool) -> dict[int, float]:
    """P(the kept d20 shows f): the highest of ``dice`` d20s, or the lowest."""
    out = {}
    for f in range(1, 21):
        if keep_high:
            out[f] = (f / 20) ** dice - ((f - 1) / 20) ** dice
        else:
            out[f] = ((21 - f) / 20) ** dice - ((20 - f) / 20) ** dice
    return out


def hit_chance(hit: rules.ToHit) -> float:
    faces = kept_face(hit.edge.dice, hit.edge.keep_high)
    return math.fsum(p for f, p in faces.items() if hit.hits(f))


def weapon_roll(weapon: D10Weapon, options: D10Options) -> dict[int, float]:
    """The damage die as the tier rolls it: one die, or two keeping the higher (masterwork) or lower (shoddy)."""
    s = weapon.sides
    tier = rules.tier_of(weapon, options)
    if tier is Tier.COMMON:
        return {k: 1 / s for k in range(1, s + 1)}
    # Of the s * s pairs, 2k - 1 have k as their higher die, 2(s - k) + 1 as their lower.
    if tier is Tier.MASTERWORK:
        return {k: (2 * k - 1) / (s * s) for k in range(1, s + 1)}
    return {k: (2 * (s - k) + 1) / (s * s) for k in range(1, s + 1)}


def forecast_strike(
    encounter: Encounter,
    attacker: D10Combatant,
    target: D10Combatant,
    weapon: D10Weapon,
    skill: str,
    *,
    gm_edge: str = "none",
    gm_reason: str = "",
    cover: bool = False,
    called_shot: bool = False,
    extreme_range: bool = False,
    subdual: bool = False,
    on_20: str = ON_20[0],
) -> Forecast:
    options: D10Options = encounter.options  # type: ignore[assignment]
    edge = rules.edge_of(
        encounter,
        attacker,
        target,
        gm_edge=gm_edge,
        gm_reason=gm_reason,
        cover=cover,
        called_shot=called_shot,
        extreme_range=extreme_range,
        subdual=subdual,
    )
    hit = rules.to_hit(encounter, attacker, target, skill, edge)
    faces = kept_face(edge.dice, edge.keep_high)
    p_hit = math.fsum(p for f, p in faces.items() if hit.hits(f))
    p_crit = faces[20]
    rolled = weapon_roll(weapon, options)
    damage: dict[int, float] = {}
    if p_hit > 0:
        for critical, weight in ((True, p_crit / p_hit), (False, (p_hit - p_crit) / p_hit)):
            doubled = critical and on_20 == "double damage"
            none = critical and on_20 == "grapple"
            for k, p in rolled.items():
                amount = 0 if none else rules.damage_after(k, doubled, target.dr)
                damage[amount] = damage.get(amount, 0.0) + p * weight
    damage = {k: p for k, p in sorted(damage.items()) if p > 0}
    mean = math.fsum(k * p for k, p in damage.items())
    if target.minion:
        p_down, down_from = p_hit, 0
    else:
        p_down = p_hit * math.fsum(p for k, p in damage.items() if k >= target.hp)
        down_from = target.hp if damage and max(damage) >= target.hp else None
    tier = rules.tier_of(weapon, options)
    tier_words = (
        ""
        if tier is Tier.COMMON
        else f" ({tier.value}: two dice, the {'higher' if tier is Tier.MASTERWORK else 'lower'})"
    )
    crit_words = {"double damage": "doubled on a 20", "grapple": "a 20 grapples, no damage"}.get(
        on_20, f"a 20 also {on_20}s"
    )
    formula = f"{weapon.die}{tier_words}, {crit_words}" + (f", -{target.dr} DR" if target.dr else "")
    fate = "dies on any hit (minion)" if target.minion else ("falls unconscious" if subdual else "dies")
    thresholds = _thresholds(target, damage, p_hit, p_down, down_from, subdual)
    summary = (
        f"To hit: {edge.words()}; d20 {hit.terms()} vs Defense {hit.defense}. "
        f"Critical {p_crit * 100:.1f}%. On a hit {mean:.1f} on average; expected {p_hit * mean:.1f}. "
        f"{target.name} ({target.hp} HP) {fate}: {p_down * 100:.1f}%"
    )
    return Forecast(
        damage=damage,
        mean=mean,
        taken=dict(damage),
        p_down=p_down,
        summary=summary,
        dice=1 if tier is Tier.COMMON else 2,
        sides=weapon.sides,
        formula=formula,
        mean_taken=p_hit * mean,
        down_from=down_from,
        p_hit=p_hit,
        where="to HP",
        exploding=False,
        thresholds=thresholds,
    )


def _thresholds(
    target: D10Combatant,
    damage: dict[int, float],
    p_hit: float,
    p_down: float,
    down_from: int | None,
    subdual: bool,
) -> tuple[Threshold, ...]:
    """The states a blow's damage may reach, least first: 1 HP (a lasting wound, RULES §13: not from
    subdual, not twice), then 0 HP (dead, or unconscious from subdual; a minion dies on any hit)."""
    out: list[Threshold] = []
    wound_from = target.hp - 1
    if (
        not target.minion
        and not subdual
        and wound_from >= 1
        and not target.has("wounded")
        and damage
        and max(damage) >= wound_from
    ):
        p_wound = p_hit * math.fsum(p for k, p in damage.items() if k >= wound_from)
        out.append(Threshold("wound", wound_from, p_wound))
    if down_from is not None:
        label = "dies" if target.minion else "out" if subdual else "dead"
        out.append(Threshold(label, down_from, p_down, down=True))
    return tuple(out)
