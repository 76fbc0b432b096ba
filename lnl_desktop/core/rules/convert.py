"""Converting a setup-phase encounter to another ruleset: what maps is kept, the rest is named.

Every ruleset keeps the shared fields (RULES §10: name, side, Move, size, vision, traits, status,
notes), the map and the tokens. The target ruleset's :meth:`Ruleset.convert` maps the rest of a
combatant and says, in a line each, what it dropped or defaulted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from lnl_desktop.core.encounter.model import CombatantBase, CombatState, Encounter
from lnl_desktop.core.encounter.validation import explain
from lnl_desktop.core.errors import IllegalAction

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Ruleset


def convert_encounter(old: Encounter, target: Ruleset) -> tuple[Encounter, list[str]]:
    """``old`` as an encounter of ``target`` (a new object), and the notes of what did not map."""
    from lnl_desktop.core.rules.registry import get_ruleset

    source = get_ruleset(old.ruleset)
    data = old.model_dump(mode="json")
    notes: list[str] = []
    combatants = []
    for c in data["combatants"]:
        new, said = target.convert(c, source)
        combatants.append(new)
        notes += said
    options, said = target.convert_options(data["options"], source.options_model)
    notes += said
    data.update(ruleset=target.name, combatants=combatants, options=options, combat=CombatState().model_dump())
    try:
        return target.encounter_model.model_validate(data), notes
    except ValidationError as error:
        raise IllegalAction(f"Convert to {target.title}", explain(error).splitlines()) from None


def shared_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The fields every ruleset's combatant has."""
    return {k: v for k, v in data.items() if k in CombatantBase.model_fields}
