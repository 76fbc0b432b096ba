"""A session folder (DESIGN.md "The session"): the party roster and the night's encounters, in order.

The folder holds ``session.json``::

    {"format": "lnl-session", "version": 1,
     "session": {"name": "Night one", "roster": "party.lnlparty", "encounters": ["01-road.lnl", "02-giant.lnl"]}}

Every file it names is a plain name inside the folder: a path that leaves it (``..``, an absolute path, a
symbolic link pointing out) is refused, so a session copied from someone else cannot make the program
read or write elsewhere. The encounters are read when they are used, each as an encounter file is.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.encounter.validation import MAX_PROBLEMS, capped, problem_lines
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.core.session.roster import ROSTER_SUFFIX, Roster, RosterFileError, load_roster, new_roster, save_roster

SESSION_FORMAT = "lnl-session"
SESSION_VERSION = 1
SESSION_FILE = "session.json"
MOST_ENCOUNTERS = 200


class SessionFileError(RulesError):
    """A session folder or file that cannot be used, with the reason."""


class Session(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="Session", min_length=1, max_length=120)
    roster: str = Field(default="party" + ROSTER_SUFFIX, min_length=1, max_length=255)
    encounters: list[str] = Field(default_factory=list, max_length=MOST_ENCOUNTERS)


@dataclass(frozen=True)
class SessionFolder:
    """An opened session: its folder (resolved), what session.json says, and the roster's ruleset."""

    folder: Path
    session: Session
    ruleset: str

    @property
    def roster_path(self) -> Path:
        return self.folder / self.session.roster

    def encounter_paths(self) -> list[Path]:
        return [self.folder / name for name in self.session.encounters]

    def load_roster(self) -> Roster:
        return load_roster(self.roster_path, self.ruleset)

    def load_encounter(self, name: str) -> Encounter:
        """One of the session's encounters (SessionFileError: not the session's, unreadable, another ruleset)."""
        if name not in self.session.encounters:
            raise SessionFileError(f"{name} is not one of this session's encounters")
        path = inside(self.folder, name)
        try:
            encounter = storage.load(path)
        except RulesError as error:
            raise SessionFileError(str(error)) from None
        if encounter.ruleset != self.ruleset:
            raise SessionFileError(
                f"{name} is a {get_ruleset(encounter.ruleset).title} encounter; "
                f"this session's party plays {get_ruleset(self.ruleset).title}"
            )
        return encounter

    def next_encounter(self, played: set[str]) -> str | None:
        """The first encounter of the night not in ``played``."""
        return next((name for name in self.session.encounters if name not in played), None)


def inside(folder: Path, name: str) -> Path:
    """``folder / name`` when it is a file name inside ``folder`` (links followed), else SessionFileError."""
    if not name or name != name.strip() or "\x00" in name:
        raise SessionFileError(f"{name!r} is not a file name")
    relative = Path(name)
    if relative.is_absolute() or ".." in relative.parts:
        raise SessionFileError(f"{storage.short_name(name)} is outside the session's folder")
    path = folder / relative
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(Path(os.path.realpath(folder))):
        raise SessionFileError(f"{storage.short_name(name)} leads outside the session's folder")
    return path


def dumps_session(session: Session) -> str:
    return json.dumps(
        {"format": SESSION_FORMAT, "version": SESSION_VERSION, "session": session.model_dump(mode="json")},
        indent=1,
        ensure_ascii=False,
    )


def open_session(folder: str | Path) -> SessionFolder:
    """The session in ``folder`` (SessionFileError saying why not): session.json read and checked, every
    name it gives inside the folder, the roster read (its ruleset the session's)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SessionFileError(f"{storage.short_name(str(folder))} is not a folder")
    source = f"{storage.short_name(folder.name)}/{SESSION_FILE}"
    file = folder / SESSION_FILE
    if not file.exists():
        raise SessionFileError(f"{storage.short_name(folder.name)} holds no {SESSION_FILE}: not a session folder")
    try:
        text = storage.read_text(file)
        document, _version = storage.parse_document(text, source, SESSION_FORMAT, SESSION_VERSION, "session")
    except RulesError as error:
        raise SessionFileError(str(error)) from None
    try:
        session = Session.model_validate_json(json.dumps(document.get("session")), strict=True)
    except ValidationError as error:
        lines = capped(problem_lines(error, "session", limit=MAX_PROBLEMS), error.error_count())
        raise SessionFileError(f"{source}:\n" + "\n".join(lines)) from None
    if len(set(session.encounters)) != len(session.encounters):
        raise SessionFileError(f"{source}: an encounter is listed twice")
    for name in (session.roster, *session.encounters):
        inside(folder, name)
    try:
        roster = load_roster(inside(folder, session.roster))
    except RosterFileError as error:
        raise SessionFileError(str(error)) from None
    return SessionFolder(Path(os.path.realpath(folder)), session, roster.ruleset)


def new_session(
    folder: str | Path, ruleset: str, name: str = "Session", encounters: list[str] | None = None
) -> SessionFolder:
    """A new session in ``folder`` (made if missing): an empty party of ``ruleset`` and the encounters
    already there (``*.lnl``, by name) unless ``encounters`` says which. Refused where a session is."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / SESSION_FILE).exists():
        raise SessionFileError(f"{storage.short_name(folder.name)} already holds a session")
    names = encounters if encounters is not None else sorted(p.name for p in folder.glob("*" + storage.SUFFIX))
    session = Session(name=name, encounters=names)
    for each in session.encounters:
        inside(folder, each)
    roster_file = inside(folder, session.roster)
    if not roster_file.exists():
        save_roster(new_roster(ruleset), roster_file)
    save_session(folder, session)
    return open_session(folder)


def save_session(folder: Path, session: Session) -> None:
    try:
        storage.write_text_atomic(folder / SESSION_FILE, dumps_session(session))
    except OSError as error:
        raise SessionFileError(f"{SESSION_FILE} could not be saved: {error.strerror}") from None
