"""The session log (issue 42): every fight of the session with its round log, and every rest, in order.

The party roster's log says what happened in what order: a fight is written where it was carried on
(its round log then, read from its file, or from the window's copy when it is open and unsaved), a rest
where it was taken, a character taken in or let go where that happened. A fight with a round log that
was never carried on follows at the end, said so.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from pathlib import Path

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files.export import html_head, html_rounds, markdown_rounds, markdown_text
from lnl_desktop.core.session.folder import SessionFolder
from lnl_desktop.core.session.roster import Roster, RosterNote

FORMATS = {".md": "Markdown", ".html": "HTML", ".htm": "HTML"}


def _pieces(
    folder: SessionFolder, roster: Roster, open_now: Mapping[str, Encounter]
) -> list[tuple[str, RosterNote | None, Encounter | None, str]]:
    """(heading, note, fight, problem) in the session's order."""
    fights: dict[str, Encounter | None] = {}
    problems: dict[str, str] = {}

    def fight(name: str) -> Encounter | None:
        if name not in fights:
            try:
                fights[name] = open_now.get(name) or folder.load_encounter(name)
            except RulesError as error:
                fights[name], problems[name] = None, str(error)
        return fights[name]

    pieces: list[tuple[str, RosterNote | None, Encounter | None, str]] = []
    written: set[str] = set()
    for note in roster.log:
        at = note.at.strftime("%d %b %Y %H:%M")
        if note.kind == "carried on" and note.fight in folder.session.encounters and note.fight not in written:
            written.add(note.fight)
            encounter = fight(note.fight)
            title = encounter.name if encounter is not None else note.fight
            pieces.append((f"Fight: {title} ({at})", note, encounter, problems.get(note.fight, "")))
        else:
            head = note.kind[:1].upper() + note.kind[1:]
            pieces.append((f"{head} ({at})", note, None, ""))
    for name in folder.session.encounters:
        if name in written:
            continue
        encounter = fight(name)
        if encounter is not None and encounter.log:
            pieces.append((f"Fight: {encounter.name} (not carried on)", None, encounter, ""))
    return pieces


def session_log_markdown(folder: SessionFolder, roster: Roster, open_now: Mapping[str, Encounter] = {}) -> str:
    lines = [f"# Session log: {markdown_text(folder.session.name)}", "", f"Party: {markdown_text(roster.name)}", ""]
    pieces = _pieces(folder, roster, open_now)
    for heading, note, encounter, problem in pieces:
        lines += [f"## {markdown_text(heading)}", ""]
        if encounter is not None:
            lines += markdown_rounds(encounter.log, "###")
        if problem:
            lines += [f"_{markdown_text(problem)}_", ""]
        if note is not None:
            if encounter is not None:
                lines += ["### The party carried on", ""]
            lines += [f"- {markdown_text(line)}" for line in note.lines] + [""]
    if not pieces:
        lines.append("Nothing has happened yet.")
    return "\n".join(lines).rstrip() + "\n"


def session_log_html(folder: SessionFolder, roster: Roster, open_now: Mapping[str, Encounter] = {}) -> str:
    title = html.escape(f"Session log: {visible(folder.session.name)}")
    parts = [*html_head(title), f"<h1>{title}</h1>", f"<p>Party: {html.escape(visible(roster.name))}</p>"]
    pieces = _pieces(folder, roster, open_now)
    for heading, note, encounter, problem in pieces:
        parts.append(f"<h2>{html.escape(visible(heading))}</h2>")
        if encounter is not None:
            parts += html_rounds(encounter.log, "h3")
        if problem:
            parts.append(f"<p><em>{html.escape(visible(problem))}</em></p>")
        if note is not None:
            if encounter is not None:
                parts.append("<h3>The party carried on</h3>")
            parts.append("<ul>" + "".join(f"<li>{html.escape(visible(line))}</li>" for line in note.lines) + "</ul>")
    if not pieces:
        parts.append("<p>Nothing has happened yet.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def export_session_log(
    folder: SessionFolder, roster: Roster, path: str | os.PathLike[str], open_now: Mapping[str, Encounter] = {}
) -> Path:
    """Write the session log in the format the file's suffix names (.md or .html); ``open_now``: the
    window's own copies of encounters (by file name), newer than their files."""
    path = Path(path)
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise RulesError(f"{path.name}: export the session log as .md (Markdown) or .html (HTML)")
    text = (session_log_markdown if kind == "Markdown" else session_log_html)(folder, roster, open_now)
    try:
        path.write_text(text, encoding="utf-8", newline="")
    except OSError as error:
        raise RulesError(f"{path.name} could not be written: {error.strerror or error}") from None
    return path
