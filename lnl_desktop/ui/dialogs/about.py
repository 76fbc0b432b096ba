"""The About dialog: version, the rulesets and the rules' CC BY 4.0 attribution."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from lnl_desktop import __version__
from lnl_desktop.core.rules.registry import Ruleset, all_rulesets, plugin_problems

ATTRIBUTION = (
    "The Laurels and Loot rules are published by Bob O'Brien under the Creative Commons "
    "Attribution 4.0 International License (CC BY 4.0), derived in part from Knave 2.0 by "
    "Ben Milton (CC BY 4.0)."
)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def about_text(ruleset: Ruleset | None = None) -> str:
    """The About text: this encounter's ruleset named first, then every ruleset the program knows."""
    current = ""
    if ruleset is not None:
        source = f" It follows {_escape(ruleset.source)}." if ruleset.source else ""
        current = f"<p>This encounter uses <b>{_escape(ruleset.title)}</b>: {_escape(ruleset.about)}{source}</p>"
    known = "".join(f"<li>{_escape(r.title)}</li>" for r in all_rulesets().values())
    problems = "".join(f"<li>{_escape(p)}</li>" for p in plugin_problems())
    broken = f"<p>Rulesets that could not be loaded:</p><ul>{problems}</ul>" if problems else ""
    return (
        f"<h3>Laurels &amp; Loot Desktop {__version__}</h3>"
        "<p>A game master's combat table for the tabletop RPG <i>Laurels &amp; Loot</i>.</p>"
        f"{current}<p>Rulesets: </p><ul>{known}</ul>{broken}"
        f"<p>{ATTRIBUTION}</p>"
        '<p><a href="https://creativecommons.org/licenses/by/4.0/">creativecommons.org/licenses/by/4.0</a></p>'
    )


def show_about(parent: QWidget, ruleset: Ruleset | None = None) -> None:
    QMessageBox.about(parent, "About Laurels & Loot Desktop", about_text(ruleset))
