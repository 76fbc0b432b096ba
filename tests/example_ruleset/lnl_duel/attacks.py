"""Duel's attacks: who a Strike strikes (the engine turns the striker), and its exact forecast."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lnl_desktop.core.dice.odds import Forecast, Threshold
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.rules.shared import FeetMovement, attack_of_action
from lnl_duel.model import DuelStats
from lnl_duel.rules import strike_damage


class DuelAttacks:
    """A Strike is the one attack: it turns its striker to the target; its damage is forecast exactly."""

    checks_modes = False

    def attack_of(self, encounter: Encounter, action: Any) -> tuple[str, str] | None:
        return attack_of_action(encounter, action, FeetMovement.provocation_word)

    def checks(self, encounter: Encounter, attacker: Any, target: Any, means: Any, mode: Any) -> list[Any]:
        return []

    def concealment(self, encounter: Encounter, attacker: Any, target: Any) -> list[Any]:
        return []

    def sections(self, encounter: Encounter, attacker: Any, target: Any, means: Any) -> tuple[Any, ...]:
        return ()

    def forecast(self, attacker: Any, target: Any, means: Any, mode: Any, options: Any, *, ignore_dex: bool = False,
                 encounter: Encounter | None = None, extras: Mapping[str, Any] | None = None) -> Any:  # fmt: skip
        """A Strike's damage, face by face of the striker's die; the chance it leaves the target at 0 HP."""
        if not isinstance(attacker, DuelStats) or not isinstance(target, DuelStats) or target.down:
            return None  # a Strike on a fallen foe is refused: nothing to forecast
        least, sides = options.minimum_damage, attacker.damage_die
        damage: dict[int, float] = {}
        taken: dict[int, float] = {}
        for face in range(1, sides + 1):
            d = strike_damage(face, target.defense, least)
            damage[d] = damage.get(d, 0.0) + 1 / sides
            taken[min(d, target.hp)] = taken.get(min(d, target.hp), 0.0) + 1 / sides
        p_down = sum(p for d, p in damage.items() if d >= target.hp)
        mean = sum(d * p for d, p in damage.items())
        down_from = target.hp if target.hp else None
        return Forecast(
            damage=damage,
            mean=mean,
            taken=taken,
            p_down=p_down,
            summary=f"≈ {mean:.1f} damage; {p_down:.0%} to drop {target.name}",
            dice=1,
            sides=sides,
            formula=f"1d{sides} - {target.defense} defense",
            mean_taken=sum(d * p for d, p in taken.items()),
            down_from=down_from,
            where="to HP",
            exploding=False,
            thresholds=(Threshold("0 HP", target.hp, p_down, down=True),),
        )
