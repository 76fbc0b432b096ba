"""The exact odds of an Old-School d20 attack: the chance to hit over the twenty faces of the d20
(natural 1 and 20 included) and the damage distribution on a hit, by convolution of the dice.

Nothing is sampled, and the terms come from :func:`rules.to_hit` and :func:`rules.damage_term`,
the very functions the attack rolls with, so the forecast cannot disagree with the roll.
"""

from __future__ import annotations

import math
from functools import lru_cache

from lnl_desktop.core.dice.odds import Forecast, Threshold
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.rules.osr import rules
from lnl_desktop.core.rules.osr.model import OsrCombatant, OsrOptions, OsrWeapon


@lru_cache(maxsize=64)
def dice_sum(count: int, sides: int) -> tuple[float, ...]:
    """``p[k]`` the chance that ``count`` d``sides`` total ``k`` (plain dice, no explosions)."""
    p = [1.0]
    for _ in range(count):
        q = [0.0] * (len(p) + sides)
        for total, chance in enumerate(p):
            if chance:
                for face in range(1, sides + 1):
                    q[total + face] += chance / sides
        p = q
    return tuple(p)


def weapon_damage(weapon: OsrWeapon, extra: int, minimum: int, critical: int = 0) -> dict[int, float]:
    """One weapon's damage on a hit: its dice (rolled ``critical`` times over on a critical hit) +
    ``extra``, at least ``minimum``."""
    count, sides, _ = weapon.dice
    count *= critical if critical else 1
    out: dict[int, float] = {}
    for total, chance in enumerate(dice_sum(count, sides)):
        if chance:
            amount = max(minimum, total + extra)
            out[amount] = out.get(amount, 0.0) + chance
    return out


def higher_of(a: dict[int, float], b: dict[int, float]) -> dict[int, float]:
    """The distribution of max(X, Y) for independent X and Y (a dual attack keeps the higher)."""
    out: dict[int, float] = {}
    for x, px in a.items():
        for y, py in b.items():
            k = max(x, y)
            out[k] = out.get(k, 0.0) + px * py
    return out


def forecast_strike(
    encounter: Encounter,
    attacker: OsrCombatant,
    target: OsrCombatant,
    weapon: OsrWeapon,
    style: rules.Style,
    *,
    cover: str = "none",
    second: str = "",
    subdual: bool = False,
    ability: str = "best",
    gm_modifier: int = 0,
    gm_edge: str = "none",
    gm_reason: str = "",
) -> Forecast:
    options: OsrOptions = encounter.options  # type: ignore[assignment]
    hit = rules.to_hit(
        encounter,
        attacker,
        target,
        weapon,
        style,
        cover=cover,
        second=second,
        ability=ability,
        gm_modifier=gm_modifier,
        gm_edge=gm_edge,
        gm_reason=gm_reason,
    )
    p_hit = hit.chance
    if cover == "full" and style == "ranged":
        p_hit = 0.0
    crit = hit.critical_rolls if hit.critical else 0
    damage = weapon_damage(weapon, rules.damage_term(weapon, hit), options.minimum_damage, crit)
    formula = f"{weapon.damage}{rules.damage_term(weapon, hit):+d}" if rules.damage_term(weapon, hit) else weapon.damage
    if second:
        other = attacker.weapon(second)
        damage = higher_of(damage, weapon_damage(other, rules.damage_term(other, hit), options.minimum_damage, crit))
        formula += f" or {other.damage}" + (
            f"{rules.damage_term(other, hit):+d}" if rules.damage_term(other, hit) else ""
        )
        formula += ", the higher"
    if hit.unharmed:
        # RULES §12: a weapon that cannot harm the target rolls no damage; with none that can, 0.
        hands = [weapon, *(w for w in attacker.all_weapons() if second and w.name == second)]
        able = [w for w in hands if w.name not in hit.unharmed]
        damage = {0: 1.0}
        for w in able:
            damage = higher_of(damage, weapon_damage(w, rules.damage_term(w, hit), options.minimum_damage, crit))
        formula = formula if able else f"none ({hit.unharmed[weapon.name]})"
    damage = dict(sorted(damage.items()))
    mean = math.fsum(k * p for k, p in damage.items())
    room = max(target.hp - target.subdual, 0) if subdual else target.hp
    p_drop_on_hit = math.fsum(p for k, p in damage.items() if k >= room)
    p_down = p_hit * p_drop_on_hit
    taken = {k: p for k, p in damage.items()}
    how = hit.auto_hit or f"d20 {hit.terms_text()} vs {hit.ac_text()}"
    if hit.edge_text() and not hit.auto_hit:
        how = f"{hit.edge_text()}; {how}"
    if crit:
        formula += f", the dice rolled {rules.times(crit)} (critical hit)"
    drop = "surrenders" if subdual else ("drops to 0 HP (death save)" if target.kind.value == "PC" else "is defeated")
    down_from = room if damage and max(damage) >= room else None
    # The one state a blow reaches here: 0 HP (a PC's death save, a monster defeated), or subdued.
    label = "subdual ≥ HP" if subdual else "0 HP"
    thresholds = () if down_from is None else (Threshold(label, down_from, p_down, down=True),)
    summary = (
        f"To hit: {how}. "
        f"On a hit {mean:.1f} on average; expected {p_hit * mean:.1f}. "
        + "".join(f"{why}. " for why in dict.fromkeys(hit.unharmed.values()))
        + f"{target.name} ({target.hp} HP) {drop}: {_pct(p_down)}"
    )
    return Forecast(
        damage=damage,
        mean=mean,
        taken=taken,
        p_down=p_down,
        summary=summary,
        dice=weapon.dice[0] * (crit or 1),
        sides=weapon.dice[1],
        formula=f"{formula} on a hit, {'subdual' if subdual else 'to HP'}",
        mean_taken=p_hit * mean,
        down_from=down_from,
        p_hit=p_hit,
        where="subdual" if subdual else "to HP",
        exploding=False,
        edge="" if hit.auto_hit else hit.edge_text(),
        thresholds=thresholds,
    )


def _pct(p: float) -> str:
    if p == 0:
        return "0%"
    if p < 0.001:
        return "<0.1%"
    return f"{p * 100:.1f}%".replace(".0%", "%")
