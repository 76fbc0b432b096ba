"""The About dialog: version and the rules' CC BY 4.0 attribution."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from lnl_desktop import __version__

ATTRIBUTION = (
    "The Laurels and Loot rules are published by Bob O'Brien under the Creative Commons "
    "Attribution 4.0 International License (CC BY 4.0), derived in part from Knave 2.0 by "
    "Ben Milton (CC BY 4.0)."
)


def about_text() -> str:
    return (
        f"<h3>Laurels &amp; Loot Desktop {__version__}</h3>"
        "<p>A game master's combat table for the tabletop RPG <i>Laurels &amp; Loot</i>.</p>"
        f"<p>{ATTRIBUTION}</p>"
        '<p><a href="https://creativecommons.org/licenses/by/4.0/">creativecommons.org/licenses/by/4.0</a></p>'
    )


def show_about(parent: QWidget) -> None:
    QMessageBox.about(parent, "About Laurels & Loot Desktop", about_text())
