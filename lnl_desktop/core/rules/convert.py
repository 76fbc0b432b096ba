"""Converting a setup-phase encounter to another ruleset: what maps is kept, the rest is named.

Every ruleset keeps the shared fields (RULES §10: name, side, Move, size, vision, traits, status,
notes), the map and the tokens. The target ruleset's :meth:`Ruleset.convert` maps the rest of a
combatant and says, in a line each, what it dropped or defaulted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from lnl_desktop.core.encounter.model import Ability, CombatantBase, CombatState, Encounter
from lnl_desktop.core.encounter.validation import explain
from lnl_desktop.core.errors import IllegalAction

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Ruleset
    from lnl_desktop.core.rules.lnl.rules import LnLRuleset

# What a combatant of the L&L family needs that a ruleset outside it may not have.
LNL_DEFAULTS: dict[str, Any] = {"level": 1, "stamina_max": 10, "injury_max": 5}


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


def lnl_family_combatant(target: LnLRuleset, data: dict[str, Any], source: Ruleset) -> tuple[dict[str, Any], list[str]]:
    """A combatant as an L&L or L&L Classic stat block: the third ability renamed (AWA <-> WIS),
    direct damage dropped where the target has none, missing numbers defaulted."""
    name = data.get("name", "?")
    fields = target.stat_block.model_fields
    out = {k: v for k, v in data.items() if k in fields}
    notes: list[str] = []
    mine = target.perception.value
    for ability in (Ability.AWA, Ability.WIS):
        key = f"{ability.value.lower()}_bonus"
        if ability is not target.perception and key in data:
            out[f"{mine.lower()}_bonus"] = data[key]
            if data[key]:
                notes.append(f"{name}: {ability.value} {data[key]:+d} becomes {mine} {data[key]:+d}")
    for spell in out.get("spells", []):
        if spell.get("ability") in (Ability.AWA.value, Ability.WIS.value) and spell["ability"] != mine:
            notes.append(f"{name}: spell {spell.get('name')} adds {mine} instead of {spell['ability']}")
            spell["ability"] = mine
        if spell.get("direct") and not target.has_direct_damage:
            spell["direct"] = False
            notes.append(f"{name}: spell {spell.get('name')} no longer deals direct damage (SP first)")
    for key, value in LNL_DEFAULTS.items():
        if key not in out:
            out[key] = value
            notes.append(f"{name}: {key} defaulted to {value}")
    if "injury_max" in out and "injury" not in out:
        out["injury"] = out["injury_max"]
    dropped = sorted(k for k in data if k not in fields and k not in {"awa_bonus", "wis_bonus"})
    if dropped:
        notes.append(f"{name}: dropped {', '.join(dropped)}")
    return out, notes


def shared_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The fields every ruleset's combatant has."""
    return {k: v for k, v in data.items() if k in CombatantBase.model_fields}
