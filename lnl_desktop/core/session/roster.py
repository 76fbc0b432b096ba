"""The party roster (RULES §16, DESIGN.md "The session"): the player characters a GM's session carries
from fight to fight, each with its current state, in a file of its own (``.lnlparty``).

A roster is one ruleset's: its characters are that ruleset's stat block, validated as an encounter's
combatants are, and its options are that ruleset's [D] switches (rest reads them). Each character has
a version, raised every time the roster writes it (taken in, carried on, rested, edited): an encounter
remembers the version it brought a character in at (``Encounter.party_links``), so a carry-on can tell
that the roster changed meanwhile (another fight written back first) and ask which state wins. The
roster's log keeps what happened to the party between and after fights, in order: the session log reads it.

The file is ``{"format": "lnl-party", "version": 1, "roster": {...}}``, read as hardened as an encounter
file (:mod:`lnl_desktop.core.files.storage`) and written atomically, whole, after every change: a roster is
a few characters, so the whole file is its own journal.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from lnl_desktop.core.encounter.model import CombatantBase, OptionsBase
from lnl_desktop.core.encounter.validation import MAX_PROBLEMS, capped, problem_lines
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files.storage import parse_document, read_text, short_name, write_text_atomic
from lnl_desktop.core.rules.registry import get_ruleset

ROSTER_FORMAT = "lnl-party"
ROSTER_VERSION = 1
ROSTER_SUFFIX = ".lnlparty"

MOST_CHARACTERS = 100  # a party and its recurring NPCs; a file with thousands is a mistake
MOST_NOTES = 10_000  # the log of a long campaign's sessions
MOST_NOTE_LINES = 200
MOST_LINE_CHARS = 400


class RosterFileError(RulesError):
    """A roster file that cannot be read or written, with the reason in the GM's words."""


class RosterNote(BaseModel):
    """One line of the roster's log: a character taken in or let go, a fight carried on, a rest."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    at: datetime
    kind: str = Field(min_length=1, max_length=40)  # "added", "removed", "edited", "carried on", "rest"
    fight: str = Field(default="", max_length=200)  # the encounter it follows or comes from (its file's name)
    lines: tuple[str, ...] = Field(default=(), max_length=MOST_NOTE_LINES)

    @model_validator(mode="after")
    def _lines_short(self) -> RosterNote:
        for line in self.lines:
            if len(line) > MOST_LINE_CHARS:
                raise ValueError(f"lines: a line of {len(line):,} characters; at most {MOST_LINE_CHARS}")
        return self

    def words(self) -> str:
        """'Night's rest: Tombril: SP 12 → 55; Janine: nothing restored'."""
        head = self.kind[:1].upper() + self.kind[1:]
        where = f" ({self.fight})" if self.fight else ""
        return f"{head}{where}: " + "; ".join(self.lines) if self.lines else f"{head}{where}"


class Roster(BaseModel):
    """The frame every ruleset's roster shares; :func:`roster_model` narrows it to one ruleset."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # built when a party is first read

    name: str = Field(default="The party", min_length=1, max_length=120)
    ruleset: str = Field(min_length=1, max_length=60)
    options: OptionsBase = Field(default_factory=OptionsBase)
    characters: list[CombatantBase] = Field(default_factory=list, max_length=MOST_CHARACTERS)
    versions: dict[str, int] = Field(default_factory=dict, max_length=MOST_CHARACTERS)
    log: list[RosterNote] = Field(default_factory=list, max_length=MOST_NOTES)

    @model_validator(mode="after")
    def _ids_hold(self) -> Roster:
        seen: set[str] = set()
        for c in self.characters:
            if c.id in seen:
                raise ValueError(f"characters: two characters have the id {c.id!r}")
            seen.add(c.id)
        for cid, version in self.versions.items():
            if cid not in seen:
                raise ValueError(f"versions.{cid}: no character has this id")
            if version < 0:
                raise ValueError(f"versions.{cid}: {version} is below 0")
        return self

    def character(self, cid: str) -> Any | None:
        return next((c for c in self.characters if c.id == cid), None)

    def version(self, cid: str) -> int:
        return self.versions.get(cid, 0)

    def last_note(self, cid: str) -> RosterNote | None:
        """The latest log line that wrote ``cid`` (its name in its lines), for a conflict's words."""
        c = self.character(cid)
        if c is None:
            return None
        return next((n for n in reversed(self.log) if any(line.startswith(f"{c.name}:") for line in n.lines)), None)


@cache
def roster_model(ruleset: str) -> type[Roster]:
    """The roster model of one ruleset: its stat block for characters, its options (RulesError for an
    unknown ruleset, naming the known ones)."""
    rules = get_ruleset(ruleset)
    model: type[Roster] = create_model(  # type: ignore[call-overload]
        f"{type(rules).__name__}Roster",
        __base__=Roster,
        __module__=__name__,
        ruleset=(Literal[rules.name], rules.name),  # type: ignore[valid-type]
        options=(rules.options_model, Field(default_factory=rules.options_model)),
        characters=(list[rules.stat_block], Field(default_factory=list, max_length=MOST_CHARACTERS)),  # type: ignore[name-defined]
    )
    return model


def new_roster(ruleset: str, name: str = "The party", options: OptionsBase | None = None) -> Roster:
    data: dict[str, Any] = {"ruleset": ruleset, "name": name}
    if options is not None:
        data["options"] = options.model_dump(mode="json")
    return roster_model(ruleset).model_validate(data)


def now() -> datetime:
    """The time a note is written, to the second, in local time (what the GM's clock says)."""
    return datetime.now().replace(microsecond=0)


# -- changes: each returns a new roster, the old one untouched (undo keeps it) ---------------------


def noted(roster: Roster, kind: str, lines: list[str] | tuple[str, ...], fight: str = "") -> Roster:
    """``roster`` with one more log line."""
    clipped = tuple(line if len(line) <= MOST_LINE_CHARS else line[: MOST_LINE_CHARS - 1] + "…" for line in lines)
    note = RosterNote(at=now(), kind=kind, fight=fight, lines=clipped[:MOST_NOTE_LINES])
    return roster.model_copy(update={"log": [*roster.log, note][-MOST_NOTES:]})


def with_characters(roster: Roster, characters: list[Any]) -> Roster:
    """``roster`` with each of ``characters`` put in (replacing the one of its id, else added at the end),
    each one's version raised. Validated as the file is: RulesError with the reason."""
    kept = {c.id: c for c in characters}
    listed = [kept.pop(c.id, c) for c in roster.characters]
    if len(listed) + len(kept) > MOST_CHARACTERS:
        raise RulesError(f"a party has at most {MOST_CHARACTERS} characters")
    versions = dict(roster.versions)
    for c in characters:
        versions[c.id] = versions.get(c.id, 0) + 1
    data = {**_shallow(roster), "characters": [*listed, *kept.values()], "versions": versions}
    return _validated(type(roster), data)


def without_character(roster: Roster, cid: str) -> Roster:
    if roster.character(cid) is None:
        raise RulesError(f"{cid!r} is not in the party")
    versions = {k: v for k, v in roster.versions.items() if k != cid}
    data = {**_shallow(roster), "characters": [c for c in roster.characters if c.id != cid], "versions": versions}
    return _validated(type(roster), data)


def _shallow(roster: Roster) -> dict[str, Any]:
    return {name: getattr(roster, name) for name in type(roster).model_fields}


def _validated(model: type[Roster], data: dict[str, Any]) -> Roster:
    # The characters are already their stat block's objects: re-validating them as dicts catches a
    # character of another ruleset (and keeps the roster's checks: ids unique, versions named).
    dumped = {**data, "characters": [c.model_dump(mode="json") for c in data["characters"]]}
    dumped["options"] = data["options"].model_dump(mode="json")
    dumped["log"] = [n.model_dump(mode="json") for n in data["log"]]
    try:
        return model.model_validate_json(json.dumps(dumped), strict=True)
    except ValidationError as error:
        lines = problem_lines(error, "party", limit=MAX_PROBLEMS)
        raise RulesError("; ".join(capped(lines, error.error_count()))) from None


# -- the file ---------------------------------------------------------------------------------


def dumps_roster(roster: Roster) -> str:
    return json.dumps(
        {"format": ROSTER_FORMAT, "version": ROSTER_VERSION, "roster": roster.model_dump(mode="json")},
        indent=1,
        ensure_ascii=False,
    )


def save_roster(roster: Roster, path: str | Path) -> Path:
    """Write the roster atomically: the old file stays whole until the new one is complete."""
    try:
        return write_text_atomic(path, dumps_roster(roster))
    except OSError as error:
        raise RosterFileError(f"{short_name(Path(path).name)} could not be saved: {error.strerror}") from None


def loads_roster(text: str, source: str = "party file", ruleset: str | None = None) -> Roster:
    """The roster ``text`` holds, or RosterFileError saying why; ``ruleset``: the one it must be of."""
    source = short_name(source)
    try:
        document, _version = parse_document(text, source, ROSTER_FORMAT, ROSTER_VERSION, "party roster")
    except RulesError as error:
        raise RosterFileError(str(error)) from None
    data = document.get("roster")
    if not isinstance(data, dict):
        raise RosterFileError(f'{source}: the "roster" object is missing')
    name = data.get("ruleset")
    if not isinstance(name, str):
        raise RosterFileError(f"{source}: roster.ruleset: say which ruleset the party plays (got {name!r})")
    try:
        model = roster_model(name)
    except RulesError as error:
        raise RosterFileError(f"{source}: roster.{error}") from None
    if ruleset is not None and name != ruleset:
        raise RosterFileError(
            f"{source} is a party of {get_ruleset(name).title}; this plays {get_ruleset(ruleset).title}"
        )
    try:
        return model.model_validate_json(json.dumps(data), strict=True)
    except ValidationError as error:
        lines = capped(problem_lines(error, "roster", limit=MAX_PROBLEMS), error.error_count())
        count = error.error_count()
        problems = f"{count:,} problem{'s' if count != 1 else ''}"
        raise RosterFileError(f"{source} has {problems}:\n" + "\n".join(lines)) from None


def load_roster(path: str | Path, ruleset: str | None = None) -> Roster:
    """Read a roster file (RosterFileError saying why not), hardened as an encounter file is read."""
    path = Path(path)
    try:
        text = read_text(path)
    except RulesError as error:
        raise RosterFileError(str(error)) from None
    return loads_roster(text, path.name or str(path), ruleset)
