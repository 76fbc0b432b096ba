"""The party roster's marks on an encounter (RULES §16): which combatants are roster characters, at
which roster version, and the log's lines for the party (a carry-on, a rest, a character added).

Module functions of the engine (a :class:`Table`); :data:`HANDLERS` maps each action to its handler.
The roster itself is :mod:`lnl_desktop.core.session`'s; the encounter only holds the links.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event, PartyLinked, PartyNoted
from lnl_desktop.core.encounter.model import MAX_ROSTER_VERSION, MOST_PARTY_LINKS
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.rules.base import Table

# A party note's words: a line per character (and a few more), each a short sentence.
MOST_NOTE_LINES = 300
MOST_NOTE_LINE_CHARS = 300
MOST_NOTE_KIND_CHARS = 60
# The log's one line says this much of the note; the tooltip (the event's details) says all of it.
SUMMARY_CHARS = 600

# How the log's line opens for the notes the session writes; any other kind reads "The party (kind)".
NOTE_HEADINGS = {
    "carried on": "The party carried on",
    "rest": "The party rested",
    "short rest": "The party took a short rest",
    "night's rest": "The party took a night's rest",
    "added to the party": "Added to the party",
    "removed from the party": "Removed from the party",
}


def roster_version_problem(version: Any) -> str:
    """Why ``version`` is no roster version ("" when it is one)."""
    if isinstance(version, bool) or not isinstance(version, int):
        return f"the roster version {version!r} is not a whole number"
    if not 0 <= version <= MAX_ROSTER_VERSION:
        return f"the roster version {version:,} is not between 0 and {MAX_ROSTER_VERSION:,}"
    return ""


def note_summary(kind: str, lines: tuple[str, ...]) -> str:
    """The log's line for a party note: "The party carried on: Tombril: IP 12 → 7, wounded; Janine:
    shield destroyed", cut short with how many lines are left out when it would run long."""
    heading = NOTE_HEADINGS.get(kind, f"The party ({kind})")
    if not lines:
        return heading
    said: list[str] = []
    length = len(heading)
    for line in lines:
        if said and length + len(line) > SUMMARY_CHARS:
            break
        said.append(line)
        length += len(line) + 2
    rest = len(lines) - len(said)
    more = f"; and {rest} more" if rest else ""
    return f"{heading}: {'; '.join(said)}{more}"


def _link(engine: Table, a: act.LinkParty, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    title = "Party roster links"
    links = a.links
    if not isinstance(links, Mapping) or not links:
        raise IllegalAction(title, ["no combatant named: say whose link to set or clear"])
    names = e.names()
    problems: list[str] = []
    for cid, version in links.items():
        if cid not in names:
            problems.append(f"there is no combatant {cid!r}")
        elif version is None:
            if cid not in e.party_links:
                problems.append(f"{names[cid]} is not linked to the party roster")
        elif why := roster_version_problem(version):
            problems.append(f"{names[cid]}: {why}")
        elif e.party_links.get(cid) == version:
            problems.append(f"{names[cid]} is already linked to the party roster at version {version}")
    linked = {cid for cid, version in links.items() if version is not None} | set(e.party_links)
    if len(linked) > MOST_PARTY_LINKS:
        problems.append(f"an encounter links at most {MOST_PARTY_LINKS:,} combatants to the party roster")
    if problems:
        raise IllegalAction(title, problems)
    events: list[Event] = []
    for cid, version in links.items():
        name = names[cid]
        if version is None:
            del e.party_links[cid]
            text = f"{name} is no longer linked to the party roster"
        else:
            was = e.party_links.get(cid)
            e.party_links[cid] = version
            text = (
                f"{name} is a party roster character (roster version {version})"
                if was is None
                else f"{name}'s party roster version {was} → {version}"
            )
        events.append(PartyLinked(round=e.combat.round, text=text, actors=(cid,), combatant=cid, version=version))
    return events


def _note(engine: Table, a: act.PartyNote, dice: DiceSource) -> list[Event]:
    title = "Party note"
    kind = " ".join(a.kind.split()) if isinstance(a.kind, str) else ""
    if not kind:
        raise IllegalAction(title, ["say what happened to the party (carried on, rest, ...)"])
    if len(kind) > MOST_NOTE_KIND_CHARS:
        raise IllegalAction(title, [f"what happened is longer than {MOST_NOTE_KIND_CHARS} characters"])
    if isinstance(a.lines, str) or not isinstance(a.lines, tuple | list):
        raise IllegalAction(title, ["the note's words are a list of lines"])
    if len(a.lines) > MOST_NOTE_LINES:
        raise IllegalAction(title, [f"the note has {len(a.lines):,} lines; a note holds at most {MOST_NOTE_LINES}"])
    lines: list[str] = []
    for i, line in enumerate(a.lines, 1):
        if not isinstance(line, str):
            raise IllegalAction(title, [f"line {i} is not words: {line!r}"])
        words = " ".join(line.split())
        if len(words) > MOST_NOTE_LINE_CHARS:
            raise IllegalAction(title, [f"line {i} is longer than {MOST_NOTE_LINE_CHARS} characters"])
        if words:
            lines.append(words)
    said = tuple(lines)
    text = note_summary(kind, said)
    return [PartyNoted(round=engine.encounter.combat.round, text=text, note=kind, lines=said)]


HANDLERS: dict[type, Callable[[Table, Any, DiceSource], list[Event]]] = {
    act.LinkParty: _link,
    act.PartyNote: _note,
}
