"""A party roster character on the Sheet (RULES §16), edited as a combatant is and kept in the roster.

The character is put on a table of its own (a scratch encounter holding only it, on its own controller):
a second Sheet, made exactly as the encounter's, shows it, so every field is validated and every typed
health is damage or healing as on the encounter's Sheet. Each edit there goes to the roster through
:meth:`WindowParty.push` (one undo step on the window's stack, a "edited" log line); the scratch table
follows the roster again after an undo. The encounter's Sheet is untouched: it only steps aside while a
party character is shown, and comes back when a combatant is selected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.core.session.roster import noted, with_characters
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.party import WindowParty

PARTY_TITLE = "Party: "


class PartySheetHost(QObject):
    """Shows the party's picked character on ``sheet`` (the encounter's Sheet) through a second sheet."""

    def __init__(self, party: WindowParty, sheet: Any, make_sheet: Callable[[TableController], Any]) -> None:
        super().__init__(sheet)
        self.party = party
        self.sheet = sheet  # the encounter's CombatantSheet: its show_other steps aside
        self.make_sheet = make_sheet
        self.scratch: TableController | None = None
        self.other: Any = None  # the party character's sheet, made on first use
        self.cid: str | None = None
        party.picked.connect(self.show_character)
        party.changed.connect(self._follow_roster)
        party.controller.selectionChanged.connect(self._on_encounter_selection)
        if party.picked_id:
            self.show_character(party.picked_id)

    def show_character(self, cid: str) -> None:
        roster = self.party.roster
        c = roster.character(cid) if roster is not None and cid else None
        if c is None or roster is None:
            self.cid = None
            self.sheet.show_other(None)
            return
        self.cid = cid
        self._load(c, roster.ruleset)
        self.sheet.show_other(self.other)

    def _load(self, c: Any, ruleset: str) -> None:
        """The scratch table holding only ``c`` (a fresh one's history: the roster's is the window's)."""
        scratch_encounter = get_ruleset(ruleset).new_encounter().model_copy(update={"combatants": [c]})
        if self.scratch is None:
            self.scratch = TableController(scratch_encounter, self)
            self.other = self.make_sheet(self.scratch)
            self.scratch.eventsApplied.connect(self._edited)
            self.scratch.selectionChanged.connect(lambda _cid: self._title())
        else:
            self.scratch.replace_encounter(scratch_encounter)
        self.scratch.select(c.id)
        self._title()

    def _title(self) -> None:
        if self.other is not None and self.cid is not None:
            text = self.other.title.text()
            if PARTY_TITLE not in text:
                self.other.title.setText(f"{PARTY_TITLE}{text}")
            self.other.title.setToolTip("The party roster's copy: edits go to the party file (Undo takes them back)")

    def _on_encounter_selection(self, cid: str) -> None:
        if cid and self.cid is not None:
            self.cid = None
            self.party.picked_id = None
            self.sheet.show_other(None)

    def _edited(self, events: list[Any]) -> None:
        """An edit made on the party sheet: the character as it now stands goes to the roster."""
        scratch, roster, cid = self.scratch, self.party.roster, self.cid
        if scratch is None or roster is None or cid is None or not scratch.pushing:
            return
        self._title()
        c = scratch.combatant(cid)
        if c is None or c == roster.character(cid):
            return
        words = "; ".join(e.text for e in events if getattr(e, "text", "")) or "edited"
        line = f"{c.name}: {words}"[:400]
        try:
            after = noted(with_characters(roster, [c]), "edited", [line])
        except RulesError as error:
            self.other.refuse(str(error))
            QTimer.singleShot(0, self._reload)
            return
        if not self.party.push(f"Edit {c.name} (party)", after, act.PartyNote("edited", (line,))):
            QTimer.singleShot(0, self._reload)

    def _follow_roster(self) -> None:
        """After an undo or another window's write: the scratch table shows the roster's state again."""
        if self.cid is None or self.scratch is None:
            return
        roster = self.party.roster
        c = roster.character(self.cid) if roster is not None else None
        if c is None:
            self.show_character("")
        elif self.scratch.combatant(self.cid) != c and not self.scratch.pushing:
            self._reload()

    def _reload(self) -> None:
        roster = self.party.roster
        c = roster.character(self.cid) if roster is not None and self.cid else None
        if c is not None and roster is not None:
            self._load(c, roster.ruleset)
            self.other.refresh(force=True)
