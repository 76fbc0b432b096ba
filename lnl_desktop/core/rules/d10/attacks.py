"""How a Group d10 attack is checked and forecast (RULES §13). Its attacks are checked as actions
(:class:`~lnl_desktop.core.rules.d10.actions.D10Actions`), not by an attack mode; it has no sneak
attack's points and no concealment ways; the forecast is odds.py's, with the action's own inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.rules.d10.model import ON_20, D10Combatant
from lnl_desktop.core.rules.shared import PlainAttacks

if TYPE_CHECKING:
    from lnl_desktop.core.dice.odds import Forecast


class D10Attacks(PlainAttacks):
    """Who strikes whom, and the exact odds of a weapon or spell attack."""

    checks_modes = False  # an attack is checked by D10Actions.checks, with its declaration

    def forecast(
        self,
        attacker: D10Combatant,
        target: D10Combatant,
        means: Any,
        mode: Any,
        options: Any,
        *,
        ignore_dex: bool = False,
        encounter: Encounter | None = None,
        extras: Mapping[str, Any] | None = None,
    ) -> Forecast | None:
        """The odds of a weapon or spell attack with the action's inputs (an edge, cover, subdual...); None
        for anything else, or without the encounter (its surprise and its positions count)."""
        if encounter is None or str(mode) not in ("weapon attack", "spell attack"):
            return None
        from lnl_desktop.core.rules.d10.odds import forecast_strike  # at the first forecast

        more = dict(extras or {})
        if more.get("ignores_dr"):
            target = target.model_copy(update={"dr": 0})  # the forecast's damage as the roll will land it
        return forecast_strike(
            encounter,
            attacker,
            target,
            means,
            "casting" if str(mode) == "spell attack" else means.skill,
            gm_edge=str(more.get("gm_edge", "none")),
            gm_reason=str(more.get("gm_reason", "")),
            cover=bool(more.get("cover", False)),
            called_shot=bool(more.get("called_shot", False)),
            extreme_range=bool(more.get("extreme_range", False)),
            subdual=bool(more.get("subdual", False)),
            on_20=str(more.get("on_20", ON_20[0])),
        )
