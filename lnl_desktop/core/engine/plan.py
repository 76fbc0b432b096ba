"""An action plan: what the GM is about to do on a turn, and the checklist it must pass first.

The Action dock describes the action it is setting up as an :class:`ActionPlan` (who acts, which
action, with what, at whom, the GM's toggles and the action's own inputs) and :func:`checklist`
answers with all the dock shows before a die is rolled: every check with its reason (the engine's
and the ruleset's, from the very calls the engine makes when it applies the action), which of them
the GM override lets through, the distance to the target, what the engine would refuse, and the
ruleset's notes. The dock only draws the answer.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.base import Ruleset
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.specs import ActionSpec

if TYPE_CHECKING:
    from lnl_desktop.core.encounter.model import CombatantBase, Encounter
    from lnl_desktop.core.engine.engine import Engine

# A line's status: ok / fail / n/a for a condition, yes / no for a way to satisfy the one above,
# overridden for a failing check the GM lets through, head for a heading (a section of checks an attack mode brings).
OK, FAIL, NA, YES, NO, OVERRIDDEN, HEAD = "ok", "fail", "n/a", "yes", "no", "overridden", "head"

# The engine's checks carry their failure reason even when they hold; these labels' reasons also
# say something when the check holds (a distance), so they are shown either way.
_SAYS_WHY_WHEN_OK = ("Within", "At least", "In spell range")


@dataclass(frozen=True)
class ActionPlan:
    """The action the GM is setting up for the acting combatant, before anything is rolled.

    ``kind`` is an :class:`ActionSpec` key of the encounter's ruleset; ``means`` the weapon, spell or
    ruleset's own choice as its key (L&L's parry: a weapon's name, or its key for the shield), None until chosen;
    ``target`` the chosen combatant (a foe, or for an action aimed at one's own side, oneself or an
    ally); ``words`` the action in words (an action that ``uses`` "text"); ``override`` whether the
    GM override is ticked, ``ignore_dex`` the GM's "ignore the target's DEX"; ``extras`` the values
    of the action's own inputs (:attr:`ActionSpec.extras`) in the spec's order.
    """

    actor: str
    kind: str
    means: str | None = None
    target: str | None = None
    words: str = ""
    override: bool = False
    ignore_dex: bool = False
    extras: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class CheckRow:
    """One line of the checklist: ok / fail / n/a for a condition, yes / no for a detail under it."""

    status: str
    label: str
    reason: str = ""
    detail: bool = False  # an indented point under the condition above (a way to satisfy it)

    @property
    def blocks(self) -> bool:
        return self.status == FAIL


@dataclass(frozen=True)
class Checklist:
    """What an :class:`ActionPlan` must pass, as the dock lists it.

    ``override_offered``: a check the GM may override blocks, or is let through, now (an
    attack the GM may override always offers it); ``overriding``: the override is offered and ticked, so
    the action goes to the engine with ``override``. ``distance``: feet to the target (None with no
    target or one off the map). ``notes``: what the GM should know first, (bold head, sentence) pairs.
    """

    rows: tuple[CheckRow, ...]
    override_offered: bool = False
    overriding: bool = False
    distance: float | None = None
    notes: tuple[tuple[str, str], ...] = ()

    @property
    def refusals(self) -> list[str]:
        """What the engine would refuse the action for: each failing check with its reason."""
        return [f"{r.label}: {r.reason}" if r.reason else r.label for r in self.rows if r.blocks]

    @property
    def allowed(self) -> bool:
        return not any(r.blocks for r in self.rows)


def row(check: Check, always_reason: bool = False) -> CheckRow:
    """A check as a line of the checklist (its reason shown where it says something)."""
    status = NA if not check.applies else OK if check.ok else FAIL
    shown = status != OK or always_reason or check.label.startswith(_SAYS_WHY_WHEN_OK)
    return CheckRow(status, check.label, check.reason if shown else "")


def _let_through(plain: list[Check], overridden: list[Check]) -> list[CheckRow]:
    """The checks as the GM override leaves them: one that fails without it and holds with it is let
    through (⚑, in the ruleset's words when it has some); the rest are as they are with it."""
    failing = {check.label: check for check in plain if check.blocks}
    rows: list[CheckRow] = []
    for check in overridden:
        was = failing.get(check.label)
        if was is not None and not check.blocks:
            words = check.reason if check.reason and check.reason != was.reason else f"{was.reason} (GM override)"
            rows.append(CheckRow(OVERRIDDEN, check.label, words))
        else:
            rows.append(row(check))
    return rows


def _overridden(line: CheckRow) -> CheckRow:
    """A failing check let through by the GM override (shown ⚑, with the reason it failed)."""
    return CheckRow(OVERRIDDEN, line.label, f"{line.reason} (GM override)", line.detail) if line.blocks else line


def checked_attack_mode(ruleset: Ruleset, spec: ActionSpec) -> str | None:
    """The attack mode of a spec, where the ruleset checks attacks of that mode by their mode (its own
    ``attacks.checks``, with its sections: ``ruleset.attacks.checks_modes``); None where its
    ``actions.checks`` checks them (a word of its own such as "melee")."""
    mode, checked = spec.mode or None, ruleset.attacks.checks_modes
    if mode is None or not checked:
        return None
    return mode if checked is True or mode in checked else None


def action_spec(ruleset: Ruleset, kind: str) -> ActionSpec:
    """The ruleset's description of the action ``kind``."""
    for spec in ruleset.actions.kinds():
        if spec.key == kind:
            return spec
    raise RulesError(f"{ruleset.title} has no action {kind!r}")


def _extras_for(ruleset: Ruleset, spec: ActionSpec, plan: ActionPlan, hook: str, override: bool) -> dict[str, Any]:
    """``extras=`` for a ruleset hook that takes the action's own inputs (``ruleset.actions.hooks_with_extras``),
    nothing for one that does not. An action the GM may override adds ``override``."""
    if not (spec.extras or spec.gm_override) or hook not in ruleset.actions.hooks_with_extras:
        return {}
    extras = dict(plan.extras)
    if spec.gm_override:
        extras["override"] = override
    return {"extras": extras}


def _combatant(encounter: Encounter, cid: str | None) -> Any:
    """The combatant ``cid``, or None when none is chosen or it is gone."""
    if not cid:
        return None
    try:
        return encounter.combatant(cid)
    except RulesError:
        return None


def checklist(engine: Engine, plan: ActionPlan, spec: ActionSpec | None = None) -> Checklist:
    """Every check the planned action must pass, with what the GM override lets through, the distance
    to the target, what the engine would refuse and the ruleset's notes. ``spec`` is the plan's
    :class:`ActionSpec` when the caller has it at hand (else it is looked up)."""
    ruleset = engine.ruleset
    encounter = engine.encounter
    spec = spec if spec is not None else action_spec(ruleset, plan.kind)
    c = engine.combatant(plan.actor)
    rows, offered = _checks(engine, plan, spec, c)
    overriding = spec.gm_override and offered and plan.override
    target = _combatant(encounter, plan.target)
    notes = ruleset.actions.notes(
        encounter, spec, c, plan.means, target, **_extras_for(ruleset, spec, plan, "action_notes", overriding)
    )
    distance = encounter.distance_between(c, target) if target is not None else None
    return Checklist(tuple(rows), offered, overriding, distance, tuple(notes))


def _turn_rows(engine: Engine, c: Any) -> list[CheckRow]:
    return [row(check) for check in engine.turn_checks(c, needs_action=True)]


def _checks(engine: Engine, plan: ActionPlan, spec: ActionSpec, c: Any) -> tuple[list[CheckRow], bool]:
    """The checklist's lines, and whether the GM override is offered."""
    name = plan.means
    if spec.uses in ("weapon", "spell") and name is None:
        what = spec.uses
        return [*_turn_rows(engine, c), CheckRow(FAIL, f"A {what}", f"{c.name} has no {what}")], False
    chosen = plan.target
    if spec.targeted and chosen is None:
        where = f"{c.name} or an ally" if spec.allies else "its token"
        pick = CheckRow(FAIL, "A target", f"click {where} on the map or pick it in the list")
        return [*_turn_rows(engine, c), pick], False
    ruleset = engine.ruleset
    mode = checked_attack_mode(ruleset, spec)
    if mode is not None and name is not None and chosen is not None:
        rows = [row(check) for check in engine.attack_checks(c.id, chosen, name, mode)]
        if spec.gm_override:
            rows += _section_rows(engine, c, chosen, name, spec.uses == "spell", plan.override)
            return rows, True  # as ever for an attack the GM may override: its sections are on show
        return rows, False
    target = _combatant(engine.encounter, chosen)
    plain = _action_checks(engine, plan, spec, c, target, override=False)
    if not spec.gm_override:
        return [*_turn_rows(engine, c), *(row(check) for check in plain)], False
    # The GM may override the action's own checks (never the turn's: an action already used).
    ticked = plan.override
    if "action_checks" in ruleset.actions.hooks_with_extras:
        # The ruleset hears of the override (``extras["override"]``) and says what it lets through:
        # the checks that fail without it and hold with it; the others still block.
        rows = _let_through(plain, _action_checks(engine, plan, spec, c, target, override=True))
        offered = ticked or any(r.status == OVERRIDDEN for r in rows)
    else:
        # Checks that cannot hear of it: every failing one is the GM's to let through.
        rows = [_overridden(row(check)) for check in plain]
        offered = ticked or any(check.blocks for check in plain)
    if not ticked:
        rows = [row(check) for check in plain]
    return [*_turn_rows(engine, c), *rows], offered


def _action_checks(
    engine: Engine, plan: ActionPlan, spec: ActionSpec, c: Any, target: Any, override: bool
) -> list[Check]:
    """The ruleset's checks of an action that is not an attack checked by mode, with the GM override on or off."""
    ruleset = engine.ruleset
    return ruleset.actions.checks(  # type: ignore[no-any-return]
        engine.encounter,
        spec,
        c,
        plan.means,
        plan.words,
        target,
        **_extras_for(ruleset, spec, plan, "action_checks", override),
    )


def _section_rows(engine: Engine, c: Any, chosen: str, means: str, spell: bool, override: bool) -> list[CheckRow]:
    """The sections the ruleset adds to the attack (:meth:`Attacks.sections`), each under its heading:
    its checks one by one (let through when the GM override is ticked) and under a check the ways to
    satisfy it."""
    a, t = engine.combatant(c.id), engine.combatant(chosen)
    weapon = engine.means(a, means, spell=spell)
    rows: list[CheckRow] = []
    for section in engine.ruleset.attacks.sections(engine.encounter, a, t, weapon):
        rows.append(CheckRow(HEAD, section.head))
        for check in section.checks:
            line = row(check, always_reason=True)
            rows.append(_overridden(line) if override else line)
            rows += [
                CheckRow(YES if way.ok else NO, way.label, way.reason, detail=True)
                for way in section.details.get(check.label, ())
            ]
    return rows


def nearest_foe(encounter: Encounter, c: CombatantBase, unseen: AbstractSet[str] = frozenset()) -> str | None:
    """The foe still standing nearest to ``c``'s token (the first of equals), or None (none on the map).

    ``unseen``: the creatures hidden from the players. A Party member's default is never one of them
    (with overlays shared, its target marker would be missing and give it away); anyone else takes
    one only when no other foe stands on the map."""
    best: tuple[bool, float, str] | None = None
    party = c.side is Side.PARTY
    for other in encounter.combatants:
        if other.side is c.side or other.down:
            continue
        hidden = other.id in unseen
        if hidden and party:
            continue
        feet = encounter.distance_between(c, other)
        if feet is not None and (best is None or (hidden, feet) < best[:2]):
            best = (hidden, feet, other.id)
    return best[2] if best else None
