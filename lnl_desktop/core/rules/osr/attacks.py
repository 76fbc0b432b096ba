"""Old-School d20's attacks (RULES §12) as the shared core asks about them: who strikes whom, and the
exact forecast of a blow. Its checks are the actions' own (the Action dock's attack checks in
``actions.py``): no attack mode is checked apart, no sneak attack, no concealment's ways."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lnl_desktop.core.dice.odds import Forecast
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.rules.osr.model import OsrCombatant
from lnl_desktop.core.rules.osr.odds import forecast_strike
from lnl_desktop.core.rules.shared import PlainAttacks


class OsrAttacks(PlainAttacks):
    """Who an attack or a counter-attack strikes, and the forecast of a melee, ranged or charging blow."""

    checks_modes = False  # an attack is checked by the Action dock's action (actions.OsrActions.checks)

    def forecast(
        self,
        attacker: OsrCombatant,
        target: OsrCombatant,
        means: Any,
        mode: Any,
        options: Any,
        *,
        ignore_dex: bool = False,
        encounter: Encounter | None = None,
        extras: Mapping[str, Any] | None = None,
    ) -> Forecast | None:
        if encounter is None:
            return None  # the to-hit chance needs the positions (range, facing, light)
        style = str(mode) if str(mode) in ("melee", "ranged", "charge") else ("melee" if means.melee else "ranged")
        more = dict(extras or {})
        return forecast_strike(
            encounter,
            attacker,
            target,
            means,
            style,  # type: ignore[arg-type]
            cover=str(more.get("cover", "none")),
            second=str(more.get("second", "") or ""),
            subdual=bool(more.get("subdual", False)),
            ability=str(more.get("ability", "best")),
            gm_modifier=int(more.get("gm_modifier", 0) or 0),
            gm_edge=str(more.get("gm_edge", "none") or "none"),
            gm_reason=str(more.get("gm_reason", "") or ""),
        )
