"""What the Action dock shows of a Group d10 roll: the d20s against Defense with advantage or
disadvantage, a critical, the damage after DR and the HP left, a disengage, an opposed roll,
in this ruleset's words."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.encounter.events import AreaEffectResolved, Override, RulesEvent, WentDown
from lnl_desktop.core.rules.specs import ActionResult, Span, area_result, following, result_line

NAME = "d10"


def action_result(encounter: Any, event: Any, after: list[Any]) -> ActionResult | None:
    if isinstance(event, AreaEffectResolved):  # RULES §14: the one roll, each target, the deaths and wounds
        return area_result(event, following(after, (WentDown, Override)))
    if not isinstance(event, RulesEvent) or event.ruleset != NAME:
        return None
    by_id = encounter.by_id()

    def name(cid: Any) -> str:
        c = by_id.get(str(cid))
        return c.name if c is not None else str(cid)

    d = event.detail
    if event.name == "attack":
        return _attack(event, d, name, after)
    if event.name == "disengage":
        ok = bool(d.get("success"))
        target = name(d.get("target"))
        headline = (
            f"Disengaged from {target}: moves freely, no free attacks"
            if ok
            else f"Not disengaged from {target}: the move provokes as usual"
        )
        return ActionResult(headline, _roll_lines(event, d, ok, "success" if ok else "failure"), event)
    if event.name == "opposed roll":
        winner = d.get("winner")
        headline = f"Opposed roll: {name(winner)} wins" if winner else "Opposed roll: a tie"
        lines = [result_line(event.text)]
        lines += [result_line(Span(f.text, alert=True)) for f in following(after, (Override,))]
        return ActionResult(headline, tuple(lines), event)
    if event.name == "grapple":
        attacker, target = name(d.get("attacker")), name(d.get("target"))
        won = bool(d.get("won"))
        headline = f"Grappled: {target} is held by {attacker} (Move 0)" if won else f"{target} evades the grapple"
        verdict = Span("grappled" if won else "evaded", strong=True)
        return ActionResult(headline, (result_line("Opposed roll: ", str(d.get("rolls", "")), ": ", verdict),), event)
    if event.name == "break free":
        who, holder = name(d.get("combatant")), name(d.get("grappler"))
        won = bool(d.get("won"))
        headline = f"{who} breaks free of {holder}" if won else f"{who} is still grappled by {holder}"
        verdict = Span("free" if won else "still held", strong=True)
        return ActionResult(headline, (result_line("Opposed roll: ", str(d.get("rolls", "")), ": ", verdict),), event)
    if event.name in ("stand up", "let go"):
        headline = event.text.split(":", 1)[0]
        return ActionResult(headline, (result_line(event.text),), event)
    if event.name == "save":
        return _save(event, d, name, after)
    return None


def _save(event: RulesEvent, d: dict[str, Any], name: Any, after: list[Any]) -> ActionResult:
    who = name(d.get("combatant"))
    against = f" against {d['what']}" if d.get("what") else ""
    saved = bool(d.get("saved"))
    headline = f"Saved: {who}{against}" if saved else f"Failed save: {who}{against}"
    verdict = Span("saved" if saved else "failed", strong=True)
    lines = [result_line("Save: ", Span(str(d.get("roll", "")), formula=True), ": ", verdict)]
    if not saved:
        lines.append(result_line(event.text.rsplit("failed: ", 1)[-1]))
    for follow in following(after, (Override, WentDown)):
        lines.append(result_line(Span(follow.text, alert=True)))
    return ActionResult(headline, tuple(lines), event)


def _roll_lines(event: RulesEvent, d: dict[str, Any], ok: bool, verdict: str) -> tuple[tuple[Span, ...], ...]:
    """The to-hit roll against Defense, and where it was not a plain d20, why (advantage, disadvantage)."""
    to_hit = d.get("to_hit")
    if to_hit is None:  # logged before the roll was kept in words: the log's own line
        return (result_line(event.text),)
    lines = [result_line("To hit: ", f"{to_hit} vs Defense {d.get('defense')}: ", Span(verdict, strong=True))]
    if d.get("edge_words"):
        lines.append(result_line(f"Roll: {d['edge_words']}"))
    return tuple(lines)


def _attack(event: RulesEvent, d: dict[str, Any], name: Any, after: list[Any]) -> ActionResult:
    attacker, target = name(d.get("attacker")), name(d.get("target"))
    what = str(d.get("what", "attacks"))
    action = "free attack" if "free attack" in what else "attack"
    hit = "damage" in d or d.get("outcome") is not None
    face = d.get("d20")
    verdict = "hit" if hit else "miss"
    if d.get("critical"):
        verdict += " (natural 20: critical)"
    elif face == 1:
        verdict += " (natural 1: critical failure)"
    lines = [result_line(f"{attacker}: {action} on {target} with {d.get('weapon', '')}")]
    lines += _roll_lines(event, d, hit, verdict)
    if not hit:
        headline = f"Miss: {target} is not hit (Defense {d.get('defense', '?')})"
        if face == 1:
            headline += "; a natural 1: the GM picks a mishap"
        return ActionResult(headline, tuple(lines), event)
    if "damage" not in d:  # a critical that grapples instead of damaging
        for follow in following(after, (Override,)):
            lines.append(result_line(Span(follow.text, alert=True)))
        return ActionResult(f"Critical: no damage, {d.get('outcome', '')}", tuple(lines), event)
    amount, dr = d["damage"], d.get("dr", 0)
    if d.get("damage_roll"):
        lines.append(result_line("Damage: ", Span(str(d["damage_roll"]), formula=True)))
    after_dr = " (ignores DR)" if d.get("ignores_dr") else f" after DR {dr}" if dr else ""
    critical = "Critical hit" if d.get("critical") else "Hit"
    headline = f"{critical}: {amount} damage{after_dr} → {d.get('outcome', target)}"
    for follow in following(after, (Override, WentDown)):
        lines.append(result_line(Span(follow.text, alert=True)))
    return ActionResult(headline, tuple(lines), event)
