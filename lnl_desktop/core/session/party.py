"""The party between fights (RULES §16): brought into an encounter, carried on when the fight ends,
rested. Plain functions of plain values: each returns a new roster or encounter and leaves its
arguments as they were, so the window's undo keeps the old one and the odds' worker may call them.

- :func:`bring_in`: the roster's characters placed in an encounter (its Party start cells, else beside
  its first token), each linked at its roster version (``Encounter.party_links``).
- :func:`carry_on`: each linked character's state as it leaves the fight written back, with a summary
  of what changed; a character the roster changed since the fight brought it in (another fight
  written back first, a rest) is a :class:`Conflict` until the GM says which state wins.
- :func:`rest`: a short rest or a night's rest (the ruleset's ``rest`` capability), through the same
  rules as healing by hand (a scratch engine applies ``DamageByHand(heal=True)``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import Token
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.map.grid import Cell, direction_deg, footprint, footprint_center, snap_facing
from lnl_desktop.core.rules.base import Ruleset
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.core.rules.shared import refuse_unknown_rest
from lnl_desktop.core.session.roster import Roster, noted, with_characters

# A weapon dropped or knocked away in the fight is picked up after it (RULES §16 [D]); lying prone and a
# grapple are where the fight left a creature, not what it carries to the next one.
FIGHT_ONLY = frozenset({"dropped weapon", "disarmed", "prone", "grappled"})


def is_dead(ruleset: Ruleset, c: Any) -> bool:
    return ruleset.rest.dead(c) if ruleset.rest is not None else False


# -- bringing the party in ----------------------------------------------------------------------


def bring_in(encounter: Encounter, roster: Roster, ids: Iterable[str] | None = None) -> Encounter:
    """A copy of ``encounter`` with the roster's characters in it as they stand (all, or ``ids``), each
    linked at its roster version. One already there (by id) takes the roster's state where it stands;
    another is placed on the map's Party start cells in order (top row first), else as near the first
    token as it fits, else the first free cells. The dead stay home. Mid-fight an encounter's own
    copies are the roster's until the fight ends: nothing is changed for one already linked."""
    if roster.ruleset != encounter.ruleset:
        rules = get_ruleset(roster.ruleset)
        raise RulesError(f"the party plays {rules.title}; this encounter {get_ruleset(encounter.ruleset).title}")
    ruleset = get_ruleset(encounter.ruleset)
    wanted = None if ids is None else set(ids)
    combatants = list(encounter.combatants)
    tokens = dict(encounter.tokens)
    links = dict(encounter.party_links)
    in_fight = encounter.combat.round > 0
    index = {c.id: i for i, c in enumerate(combatants)}
    for c in roster.characters:
        if (wanted is not None and c.id not in wanted) or is_dead(ruleset, c):
            continue
        if in_fight and c.id in links:
            continue
        if c.id in index:
            combatants[index[c.id]] = c
            if c.id in tokens and not _fits(encounter, tokens, c.id, tokens[c.id].cell, c.size):
                del tokens[c.id]  # grown since: placed anew below
        else:
            index[c.id] = len(combatants)
            combatants.append(c)
        if c.id not in tokens:
            cell = _place(encounter, tokens, combatants, c.id, c.size)
            if cell is not None:
                tokens[c.id] = Token(cell=cell, facing=_facing_foes(cell, c, combatants, tokens))
        links[c.id] = roster.version(c.id)
    # Nothing shared with the encounter given or the roster: an engine on the copy changes objects in
    # place. The map is immutable, and big: it alone is shared.
    fields = copy.deepcopy(_fields(encounter), {id(encounter.map): encounter.map})
    fields.update(copy.deepcopy({"combatants": combatants, "tokens": tokens}, {id(encounter.map): encounter.map}))
    fields["party_links"] = links
    return type(encounter).model_validate(fields)


def _fields(encounter: Encounter) -> dict[str, Any]:
    return {name: getattr(encounter, name) for name in type(encounter).model_fields}


def _taken(tokens: Mapping[str, Token], combatants: Sequence[Any], but: str) -> set[Cell]:
    sizes = {c.id: c.size for c in combatants}
    return {cell for cid, t in tokens.items() if cid != but for cell in footprint(t.cell, sizes.get(cid, 1))}


def _fits(encounter: Encounter, tokens: Mapping[str, Token], cid: str, anchor: Cell, size: int) -> bool:
    return _free(encounter, _taken(tokens, encounter.combatants, cid), anchor, size)


def _free(encounter: Encounter, taken: set[Cell], anchor: Cell, size: int) -> bool:
    """Whether a token of ``size`` fits at ``anchor``: on the map, no wall, no other token."""
    grid = encounter.map
    return all(
        0 <= x < grid.width and 0 <= y < grid.height and (x, y) not in grid.walls and (x, y) not in taken
        for x, y in footprint(anchor, size)
    )


def _facing_foes(cell: Cell, c: Any, combatants: Sequence[Any], tokens: Mapping[str, Token]) -> int:
    """Facing the nearest token of the other side (the way a party walks in), north when there is none."""
    sizes = {o.id: (o.size, o.side) for o in combatants}
    me = footprint_center(cell, c.size)
    foes = [
        footprint_center(t.cell, sizes[cid][0])
        for cid, t in tokens.items()
        if cid in sizes and sizes[cid][1] is not c.side
    ]
    if not foes:
        return 0
    nearest = min(foes, key=lambda p: (p[0] - me[0]) ** 2 + (p[1] - me[1]) ** 2)
    return snap_facing(direction_deg(me, nearest)) % 360


def _place(
    encounter: Encounter, tokens: Mapping[str, Token], combatants: Sequence[Any], cid: str, size: int
) -> Cell | None:
    """The anchor cell for a newcomer: the first free start cell, else the free cell nearest the first token
    (ring by ring), else the first free cell of the map; None on a full map (it joins without a token)."""
    grid = encounter.map
    taken = _taken(tokens, combatants, cid)

    def free(anchor: Cell) -> bool:
        return _free(encounter, taken, anchor, size)

    starts = sorted(getattr(grid, "start_cells", ()), key=lambda cell: (cell[1], cell[0]))
    for cell in starts:
        if free(cell):
            return cell
    first = next((t.cell for other, t in tokens.items() if other != cid), None)
    if first is not None:
        fx, fy = first
        for ring in range(1, max(grid.width, grid.height)):
            ring_cells = [
                (fx + dx, fy + dy)
                for dy in range(-ring, ring + 1)
                for dx in range(-ring, ring + 1)
                if max(abs(dx), abs(dy)) == ring
            ]
            # nearest first by the grid's plain distance, then top row, then left
            for cell in sorted(ring_cells, key=lambda c: (abs(c[0] - fx) + abs(c[1] - fy), c[1], c[0])):
                if free(cell):
                    return cell
    return next(((x, y) for y in range(grid.height) for x in range(grid.width) if free((x, y))), None)


# -- carrying the party on ---------------------------------------------------------------------


@dataclass(frozen=True)
class Conflict:
    """A character the roster wrote since this fight brought it in: which state wins is the GM's call."""

    cid: str
    name: str
    brought_in_at: int
    roster_now: int
    since: str  # what wrote it meanwhile, in words ("carried on (goblins.lnl)"), "" when unknown

    def words(self) -> str:
        why = f" ({self.since})" if self.since else ""
        return f"{self.name} changed in the party roster after this fight brought them in{why}"


@dataclass(frozen=True)
class CarryOn:
    """What ending a fight writes back: the new roster, the summary (a line per character), the links the
    encounter's copies take (their new versions), and the conflicts left for the GM."""

    roster: Roster
    lines: tuple[str, ...]
    links: Mapping[str, int] = field(default_factory=dict)
    conflicts: tuple[Conflict, ...] = ()

    @property
    def written(self) -> bool:
        return bool(self.links)


def leave_fight(ruleset: Ruleset, c: Any) -> Any:
    """``c`` as it leaves a fight: conditions with a duration end, a dropped weapon is back in hand, no one
    is prone, grappled, surprised or hidden any more; then the ruleset's own part (``rest.after_fight``)."""
    timed = {name.casefold() for name in c.durations}
    kept = [w for w in c.conditions if w.casefold() not in timed and w.strip().casefold() not in FIGHT_ONLY]
    out = c.model_copy(
        update={"conditions": kept, "durations": {}, "surprised": False, "concealed": False, "distracted": False}
    )
    return ruleset.rest.after_fight(out) if ruleset.rest is not None else out


def change_words(ruleset: Ruleset, before: Any, after: Any) -> str:
    """What changed for one character, in the ruleset's words ("" for nothing)."""
    if ruleset.rest is not None:
        return ruleset.rest.summary(before, after)
    said = [
        f"{label} {getattr(before, name)} → {getattr(after, name)}"
        for name, label in ruleset.health.fields().items()
        if getattr(before, name, None) != getattr(after, name, None)
    ]
    gained = [w for w in after.conditions if w not in before.conditions]
    return ", ".join([*said, *gained])


def carry_on(encounter: Encounter, roster: Roster, fight: str, decided: Mapping[str, bool] | None = None) -> CarryOn:
    """Each roster character of ``encounter`` (its ``party_links``) written back as it leaves the fight,
    in one new roster with one log line ("carried on", ``fight``). ``decided``: for a character the roster
    changed since the fight brought it in, True writes the fight's state over it, False keeps the
    roster's; one not decided is left out and listed in ``conflicts``. A character dead in the roster
    stays dead; one no longer in the party is not written back (said so)."""
    ruleset = get_ruleset(encounter.ruleset)
    decided = decided or {}
    lines: list[str] = []
    written: list[Any] = []
    conflicts: list[Conflict] = []
    for c in encounter.combatants:
        if c.id not in encounter.party_links:
            continue
        before = roster.character(c.id)
        if before is None:
            lines.append(f"{c.name}: no longer in the party, not written back")
            continue
        after = leave_fight(ruleset, c)
        if after == before:  # nothing to write: its version stays, so another fight's copy stays current
            lines.append(f"{c.name}: unchanged")
            continue
        brought = encounter.party_links[c.id]
        if roster.version(c.id) != brought:
            choice = decided.get(c.id)
            if choice is None:
                last = roster.last_note(c.id)
                since = "" if last is None else f"{last.kind} ({last.fight})" if last.fight else last.kind
                conflicts.append(Conflict(c.id, c.name, brought, roster.version(c.id), since))
                continue
            if not choice:
                lines.append(f"{c.name}: the roster's state kept")
                continue
        if is_dead(ruleset, before):
            lines.append(f"{c.name}: dead in the roster, stays dead")
            continue
        words = change_words(ruleset, before, after)
        lines.append(f"{c.name}: {words}" if words else f"{c.name}: unchanged")
        written.append(after)
    if not written and not lines:
        return CarryOn(roster, (), {}, tuple(conflicts))
    new = with_characters(roster, written) if written else roster
    new = noted(new, "carried on", lines, fight)
    return CarryOn(new, tuple(lines), {c.id: new.version(c.id) for c in written}, tuple(conflicts))


# -- rest --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rested:
    roster: Roster
    lines: tuple[str, ...]


def rest_words(ruleset: Ruleset, kind: str) -> str:
    if ruleset.rest is None:
        raise RulesError(f"{ruleset.title} has no rules for rest between fights")
    refuse_unknown_rest(ruleset.title, kind, ruleset.rest.kinds())
    return dict(ruleset.rest.kinds())[kind]


def rest(roster: Roster, kind: str, dice: DiceSource, ids: Iterable[str] | None = None) -> Rested:
    """The whole party, or ``ids``, rested (RULES §16): each character's gains, rolled from ``dice`` in the
    roster's order (typed faces line up so), applied as healing by hand is, never above a maximum, the
    dead left as they are. One log line (``kind``'s words) with a line per character."""
    ruleset = get_ruleset(roster.ruleset)
    words = rest_words(ruleset, kind)
    assert ruleset.rest is not None
    wanted = None if ids is None else set(ids)
    chosen = [c for c in roster.characters if wanted is None or c.id in wanted]
    if wanted is not None and (missing := wanted - {c.id for c in chosen}):
        raise RulesError(f"not in the party: {', '.join(sorted(missing))}")
    if not chosen:
        raise RulesError("the party has no one to rest")
    lines: list[str] = []
    rested: list[Any] = []
    for c in chosen:
        if ruleset.rest.dead(c):
            lines.append(f"{c.name}: dead, no rest raises the dead")
            continue
        gains = ruleset.rest.gains(c, kind, roster.options, dice)
        after = healed(ruleset, roster, c, gains, words)
        said = ruleset.rest.summary(c, after)
        lines.append(f"{c.name}: {said}" if said else f"{c.name}: nothing restored")
        if after != c:
            rested.append(after)
    new = with_characters(roster, rested) if rested else roster
    return Rested(noted(new, words, lines), tuple(lines))


def healed(ruleset: Ruleset, roster: Roster, c: Any, gains: Sequence[tuple[str, int]], reason: str) -> Any:
    """``c`` after each (health kind, amount) of ``gains`` lands as healing by hand does (RULES §10): on an
    encounter of its own, through the engine's DamageByHand."""
    if not gains:
        return c
    options = roster.options.model_dump(mode="json")
    table = ruleset.new_encounter(combatants=[c.model_dump(mode="json")], options=options)
    engine = Engine(table)
    for kind, amount in gains:
        if amount > 0:
            engine.apply(act.DamageByHand(c.id, amount, heal=True, kind=kind, reason=reason))
    return engine.encounter.combatants[0]
