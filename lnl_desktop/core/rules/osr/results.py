"""What the Action dock shows of an Old-School d20 roll: the to-hit roll against AC, the damage and
the hit points left, a death save, a saving throw, a morale check, a spell cast, in this ruleset's words."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.encounter.events import ActionTaken, AreaEffectResolved, Override, RulesEvent, WentDown
from lnl_desktop.core.rules.specs import ActionResult, Span, area_result, following, result_line

NAME = "osr"

# The ruleset's events that follow a hit and belong to it (the log's next lines).
_CONSEQUENCES = ("spell interrupted", "subdued", "morale due")
_STYLE_WORDS = {"melee": "melee attack", "ranged": "missile attack", "charge": "charge", "counter": "counter-attack"}


def action_result(encounter: Any, event: Any, after: list[Any]) -> ActionResult | None:
    if isinstance(event, AreaEffectResolved):
        return _area(event, after)
    if isinstance(event, ActionTaken) and event.action == "cast":
        return ActionResult("Spell: " + (event.detail or "cast"), (result_line(event.text),), event)
    if not isinstance(event, RulesEvent) or event.ruleset != NAME:
        return None
    by_id = encounter.by_id()

    def name(cid: Any) -> str:
        c = by_id.get(str(cid))
        return c.name if c is not None else str(cid)

    d = event.detail
    if event.name == "attack":
        return _attack(event, d, name, after)
    if event.name == "death save":
        verdict = "success: unconscious at 0 HP" if d.get("success") else "failure: dead"
        return _roll(event, f"Death save: {verdict}", f"{name(d.get('combatant'))}'s death save: ", d)
    if event.name == "saving throw":
        who, category = name(d.get("combatant")), d.get("category", "")
        verdict = f"{who} saves against {category}" if d.get("success") else f"{who} fails the save against {category}"
        return _roll(event, verdict, "Saving throw: ", d)
    if event.name == "burning":
        who = name(d.get("combatant"))
        headline = f"Burning: {d.get('damage', 0)} fire damage → {who} {d.get('hp', '?')}/{d.get('hp_max', '?')} HP"
        lines = [result_line(event.text)]
        for follow in following(after, (WentDown, Override, RulesEvent), _consequence):
            lines.append(result_line(Span(follow.text, alert=not isinstance(follow, Override))))
        return ActionResult(headline, tuple(lines), event)
    if event.name == "confusion":
        return ActionResult(
            f"Confused: d6 {d.get('d6', '?')}: {name(d.get('combatant'))} {d.get('does', '')}",
            (result_line(event.text),),
            event,
        )
    if event.name == "morale":
        return ActionResult(
            f"Morale of the {d.get('side', '')}: 2d6 = {d.get('roll', '?')}", (result_line(event.text),), event
        )
    return None


def _roll(event: RulesEvent, headline: str, lead: str, d: dict[str, Any]) -> ActionResult:
    roll = d.get("roll")
    if roll is None:  # logged before the roll was kept in words
        return ActionResult(headline, (result_line(event.text),), event)
    return ActionResult(headline, (result_line(lead, Span(f"{roll} vs DC {d.get('dc')}", formula=True)),), event)


def _attack(event: RulesEvent, d: dict[str, Any], name: Any, after: list[Any]) -> ActionResult:
    attacker, target = name(d.get("attacker")), name(d.get("target"))
    style = str(d.get("style", ""))
    what = _STYLE_WORDS.get(style, f"{style} attack")
    which = f" ({d['numbered']})" if d.get("numbered") else ""
    lines = [result_line(f"{attacker}: {what} on {target} with {d.get('weapon', '')}{which}")]
    to_hit = d.get("to_hit")
    hit = bool(d.get("hit"))
    if to_hit is None:  # logged before the roll was kept in words: the log's own line
        lines.append(result_line(event.text))
    else:
        lines.append(result_line("To hit: ", str(to_hit), ": ", Span("hit" if hit else "miss", strong=True)))
    if not hit:
        return ActionResult(f"Miss: {target} is not hit (AC {d.get('ac')})", tuple(lines), event)
    amount = d.get("damage", 0)
    if d.get("damage_roll"):
        lines.append(result_line("Damage: ", Span(str(d["damage_roll"]), formula=True)))
    if d.get("subdual"):
        headline = f"Hit: {amount} subdual damage → {d.get('subdual_total', '?')} subdual against {d.get('hp', '?')} HP"
    else:
        most = f"/{d['hp_max']}" if "hp_max" in d else ""
        critical = "Critical hit" if d.get("critical") else "Hit"
        headline = f"{critical}: {amount} damage → {target} {d.get('hp', '?')}{most} HP"
    for follow in following(after, (WentDown, Override, RulesEvent), _consequence):
        lines.append(result_line(Span(follow.text, alert=not isinstance(follow, Override))))
    return ActionResult(headline, tuple(lines), event)


def _area(event: AreaEffectResolved, after: list[Any]) -> ActionResult:
    """An area effect (RULES §14): the one roll, then each target's save and what it took."""
    return area_result(event, following(after, (WentDown, Override, RulesEvent), _consequence))


def _consequence(event: Any) -> bool:
    """Whether an event after a hit is one of its consequences (not the next roll)."""
    return not isinstance(event, RulesEvent) or (event.ruleset == NAME and event.name in _CONSEQUENCES)
