"""The Action dock's result box: the last result of the turn, in the ruleset's words.

It reads the round log (``ruleset.actions.result``), so undo takes the result away again; a
formula wraps between its terms, never inside one.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QLabel, QSizePolicy, QVBoxLayout, QWidget

from lnl_desktop.core.encounter.events import Event, TurnStarted
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.rules.base import Ruleset
from lnl_desktop.core.rules.specs import ActionResult, Span
from lnl_desktop.ui.docks.action_checklist import escape

NBSP = "\u00a0"
# What separates the terms of a formula: a sum's signs, the equals sign, the arrow to what follows.
_SEPARATOR = re.compile(r" ([+\-−=→]) ")


def formula_html(formula: str) -> str:
    """A formula as rich text that wraps only between its terms: each term ("d20 (14)", "3 DEX",
    "5 x 2 magic") held together by non-breaking spaces, the sign that follows a term kept with it,
    and a line break allowed only after a separator (" + ", " - ", " − ", " = ", " → ")."""
    parts = _SEPARATOR.split(formula)
    terms, signs = parts[0::2], parts[1::2]

    def held(term: str) -> str:
        return escape(term).replace(" ", NBSP)

    out = [held(terms[0])]
    for sign, term in zip(signs, terms[1:], strict=True):
        out.append(f"{NBSP}{sign} {held(term)}")
    return "".join(out)


def _line_html(line: tuple[Span, ...]) -> str:
    """A result's line as rich text: formulas wrap only between their terms, harm done in red."""
    out = []
    for span in line:
        text = formula_html(span.text) if span.formula else escape(span.text)
        if span.strong:
            text = f"<b>{text}</b>"
        if span.alert:
            text = f'<span style="color:#c62828">{text}</span>'
        out.append(text)
    return "".join(out)


def last_result(encounter: Encounter, ruleset: Ruleset) -> ActionResult | None:
    """The last result since the last turn began (an attack, a counter-attack, a save, an area
    effect...), with what followed it, from the round log, in the ruleset's words. Before any turn
    (a trap's area effect before combat) the whole log counts."""
    log = encounter.log
    start = next((i for i in range(len(log) - 1, -1, -1) if isinstance(log[i], TurnStarted)), -1)
    for i in range(len(log) - 1, start, -1):
        found = ruleset.actions.result(encounter, log[i], log[i + 1 :])
        if found is not None:
            return found
    return None


class ResultBox(QGroupBox):
    """The "Result" box: the headline (the damage done) and the lines of the roll, hidden when there is none."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Result", parent)
        self.damage_label = QLabel(self)
        self.damage_label.setObjectName("damage")
        self.damage_label.setWordWrap(True)
        self.result_label = QLabel(self)
        self.result_label.setWordWrap(True)
        self.result_label.setTextFormat(Qt.TextFormat.RichText)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result_label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        layout = QVBoxLayout(self)
        layout.addWidget(self.damage_label)
        layout.addWidget(self.result_label)

    def show_result(self, found: ActionResult | None) -> Event | None:
        """Show ``found`` (or hide the box when None); the round log's event it shows."""
        if found is None:
            self.hide()
            return None
        self.show()
        self.damage_label.setText(found.headline)
        self.result_label.setText("<br>".join(_line_html(line) for line in found.lines))
        event: Event | None = found.event
        return event
