"""The round log exported for reading after the session: Markdown, HTML or CSV.

The whole log, undo lines included, grouped by round ("Setup" for what happened before the
first round, "Surprise round" for a ruleset's surprise round); attacks keep their numbers in
the CSV so a spreadsheet can add them up. Names and log lines are written as :func:`visible` shows
them: a terminal, a browser or a spreadsheet never obeys an ESC or a right-to-left override a name
was typed with (the encounter keeps the name as typed).
"""

from __future__ import annotations

import csv
import html
import io
import os
from collections.abc import Iterator
from pathlib import Path

from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.registry import get_ruleset

FORMATS = {".md": "Markdown", ".html": "HTML", ".htm": "HTML", ".csv": "CSV"}
# The columns every row has; the ruleset names those of an event's numbers after them (views.export_columns).
CSV_COLUMNS = ["round", "kind", "combatants", "text"]


def _round_title(number: int, events: list[Event]) -> str:
    if number:
        return f"Round {number}"
    # Round 0 is the setup, and in a ruleset with a surprise round also that round, which opens the combat.
    return "Surprise round" if events and events[0].kind == "combat started" else "Setup"


def _by_round(log: list[Event]) -> Iterator[tuple[int, list[Event]]]:
    """Consecutive runs of events of one round, in log order (a combat's start opens a run of its own)."""
    run: list[Event] = []
    for event in log:
        if run and (event.round != run[0].round or event.kind == "combat started"):
            yield run[0].round, run
            run = []
        run.append(event)
    if run:
        yield run[0].round, run


def _names(encounter: Encounter, event: Event) -> str:
    by_id = encounter.by_id()
    return visible(", ".join(by_id[a].name if a in by_id else a for a in event.actors))


def to_markdown(encounter: Encounter) -> str:
    lines = [f"# Round log: {visible(encounter.name)}", "", *markdown_rounds(encounter.log, "##")]
    return "\n".join(lines).rstrip() + "\n"


def markdown_rounds(log: list[Event], heading: str) -> list[str]:
    """The log's rounds as Markdown lines, each round under a ``heading`` ("##") of its own."""
    lines = []
    for number, events in _by_round(log):
        lines += [f"{heading} {_round_title(number, events)}", ""]
        for event in events:
            text = markdown_text(event.text)
            lines.append(f"- _{text}_" if event.kind == "undone" else f"- {text}")
        lines.append("")
    if not log:
        lines += ["Nothing has happened yet.", ""]
    return lines


def markdown_text(text: str) -> str:
    return visible(text).replace("*", r"\*")


def to_html(encounter: Encounter) -> str:
    title = html.escape(f"Round log: {visible(encounter.name)}")
    parts = [*html_head(title), f"<h1>{title}</h1>"]
    parts += html_rounds(encounter.log, "h2")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def html_head(title: str) -> list[str]:
    """An HTML page's head up to its body, ``title`` escaped already."""
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{title}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}"
        "h2{border-bottom:1px solid #ccc}li.undone{color:#777;font-style:italic}"
        "li.attack{margin:.3em 0}</style>",
        "</head><body>",
    ]


def html_rounds(log: list[Event], heading: str) -> list[str]:
    """The log's rounds as HTML, each round under a ``heading`` ("h2") of its own."""
    parts = []
    for number, events in _by_round(log):
        parts.append(f"<{heading}>{_round_title(number, events)}</{heading}><ul>")
        for event in events:
            parts.append(f'<li class="{html.escape(event.kind)}">{html.escape(visible(event.text))}</li>')
        parts.append("</ul>")
    if not log:
        parts.append("<p>Nothing has happened yet.</p>")
    return parts


def to_csv(encounter: Encounter) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = [*CSV_COLUMNS, *get_ruleset(encounter.ruleset).views.export_columns()]
    writer.writerow(columns)
    for event in encounter.log:
        row = [event.round, visible(event.kind), _names(encounter, event), visible(event.text)]
        cells = event.table_cells()  # a blow's dice and damage (the ruleset's event says)
        row += list(cells) if cells else [""] * (len(columns) - len(row))
        writer.writerow(row)
    return out.getvalue()


def export_log(encounter: Encounter, path: str | os.PathLike[str]) -> Path:
    """Write the log in the format the file's suffix names (.md, .html, .csv)."""
    path = Path(path)
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise RulesError(f"{path.name}: export as .md (Markdown), .html (HTML) or .csv (CSV)")
    text = {"Markdown": to_markdown, "HTML": to_html, "CSV": to_csv}[kind](encounter)
    try:
        path.write_text(text, encoding="utf-8", newline="")
    except OSError as error:
        raise RulesError(f"{path.name} could not be written: {error.strerror or error}") from None
    return path
