"""The Turns dock's round heading and what may be done now.

The round's name and elapsed time, the ruleset's notes on the round (a timer die counting down),
the banner saying what to do next (in the acting side's colours), how this round's dice were read,
and :meth:`RoundState.availability`: why each of the combat's steps cannot be taken now, which the
dock's buttons and the main window's menus read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel

from lnl_desktop.core.encounter.events import CombatStarted, InitiativeRolled, Override
from lnl_desktop.core.encounter.model import Phase, Side, TurnSlot
from lnl_desktop.core.errors import RulesError
from lnl_desktop.ui.plumbing import style

if TYPE_CHECKING:
    from lnl_desktop.core.rules.specs import DeclareSpec
    from lnl_desktop.ui.plumbing.controller import TableController

PALE = {Side.PARTY: "#e3f0fa", Side.OPPONENTS: "#fbe9dc"}  # a side's colour behind its words


def _elapsed(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{minutes}:{rest:02d}" if minutes else f"{rest} s"


class RoundState:
    """The round's heading and what may be done now, mixed into the dock (:class:`TurnsPanel`)."""

    # What the dock gives.
    controller: TableController
    availabilityChanged: Signal
    round_label: QLabel
    banner: QLabel
    reading_label: QLabel
    notes_label: QLabel
    reading: str  # how this round's dice were read, in full (the label may show it shortened)
    declare_spec: DeclareSpec | None
    _available: dict[str, str] | None  # what availability() said when last announced
    _missing_words: Any
    width: Any

    # -- what may be done now ------------------------------------------------------------------

    def availability(self) -> dict[str, str]:
        """Why each of the combat's steps cannot be taken now, "" when it can: "start" (Start combat),
        "next_round" (Next round), "end_combat" and "end_turn". The dock's buttons and
        ``end_turn_action`` are disabled with these words as their tooltips; the main window's menu
        entries may do the same. ``availabilityChanged`` is emitted when any of them changed.

        These follow the encounter's state. Faces typed in the initiative box that cannot make the
        next round disable the dock's Next round button (its tooltip says why) but not "next_round":
        asking for the round then (Ctrl+R) refuses with the reason, for the GM to correct the box."""
        encounter = self.controller.encounter
        combat = encounter.combat
        fighting = combat.phase is Phase.FIGHTING
        idle = self._not_fighting()
        if fighting:
            start = "A fight is under way: end the combat first"
        elif not encounter.side(Side.PARTY) or not encounter.side(Side.OPPONENTS):
            start = "Both sides need at least one combatant"
        else:
            start = ""
        turn = combat.turn
        next_round = idle or self._turn_under_way()
        if combat.phase is Phase.ENDED:
            end_combat = "The combat is already over"
        else:
            end_combat = "" if fighting else "No combat yet: there is nothing to end"
        end_turn = idle or ("" if turn is not None else "No turn is under way: take one first")
        return {"start": start, "next_round": next_round, "end_combat": end_combat, "end_turn": end_turn}

    def _not_fighting(self) -> str:
        """Why nothing of a fight can be done now ("" during one)."""
        phase = self.controller.encounter.combat.phase
        if phase is Phase.ENDED:
            return "The combat is over: Start combat begins a new one"
        if phase is not Phase.FIGHTING:
            return "No combat yet: start the combat first"
        return ""

    def _turn_under_way(self) -> str:
        """What holds up the next round: "Tombril's turn is under way: end it first" ("" when no turn is)."""
        turn = self.controller.encounter.combat.turn
        if turn is None:
            return ""
        return f"{self.controller.encounter.combatant(turn.combatant).name}'s turn is under way: end it first"

    def _announce(self) -> None:
        """Emit ``availabilityChanged`` when what may be done now is not what was last said."""
        available = self.availability()
        if available != self._available:
            self._available = available
            self.availabilityChanged.emit()

    # -- the round's heading --------------------------------------------------------------------

    def _refresh_notes(self) -> None:
        """The ruleset's lines under the round's heading (a timer die counting down); hidden when none."""
        engine = self.controller.engine
        try:
            notes = tuple(engine.ruleset.rounds.notes(engine))
        except RulesError:
            notes = ()
        text = "\n".join(notes)
        if self.notes_label.text() != text:
            self.notes_label.setText(text)
        self.notes_label.setVisible(bool(notes))

    def _refresh_header(self) -> None:
        encounter = self.controller.encounter
        combat = encounter.combat
        engine = self.controller.engine
        # The banner names a few of those who must still declare; its tooltip names them all.
        spec = self.declare_spec
        everyone = len(spec.missing) if spec is not None else 0
        then = "start the combat" if combat.phase is Phase.SETUP else "roll initiative"
        self.banner.setToolTip(self._missing_words(then, limit=everyone))
        if combat.phase is Phase.SETUP:
            self.round_label.setText("No combat yet")
            undeclared = self._missing_words("start the combat")
            self._set_banner(undeclared or "Place the tokens, then start the combat.", None)
            self.reading = ""
            self.reading_label.setText("")
            self.reading_label.hide()
            return
        elapsed = _elapsed(engine.elapsed_seconds)
        self.round_label.setText(f"{combat.round_name} · {elapsed} elapsed")
        self.round_label.setToolTip(
            f"A round is about {engine.ruleset.round_seconds} seconds; elapsed time counts finished rounds"
        )
        ready = engine.waiting() if combat.order and combat.phase is Phase.FIGHTING else []
        if combat.phase is Phase.ENDED:
            self._set_banner(f"Combat over after {combat.round} round{'s' if combat.round != 1 else ''}.", None)
        elif combat.turn is not None:
            c = encounter.combatant(combat.turn.combatant)
            self._set_banner(f"{c.name}'s turn ({c.side.value}): end it when done (Space)", c.side)
        elif engine.round_over:
            undeclared = self._missing_words("roll initiative")
            over = f"{combat.round_name} is over"
            self._set_banner(
                f"{over}. {undeclared}" if undeclared else f"{over}: roll initiative for the next round", None
            )
        elif ready:
            slot = self._acting_slot()
            if len(ready) == 1:
                self._set_banner(f"{ready[0].name} acts next: take the turn", ready[0].side)
            else:
                who = slot.title if slot is not None else ", ".join(c.name for c in ready)
                self._set_banner(f"{who}: pick who goes next", ready[0].side)
        else:
            side = engine.acting_side()
            assert side is not None
            verb = "acts" if side is Side.PARTY else "act"
            self._set_banner(f"{side.value} {verb}: pick who goes next", side)
        self.reading = self._reading()
        self._show_reading()
        self.reading_label.setVisible(bool(self.reading))

    def _show_reading(self) -> None:
        """The reading in full, or on one line when the turn order below lists the rolls anyway
        (a long individual initiative would take the list's room); the tooltip has it all."""
        one_line = bool(self.controller.encounter.combat.order)
        if self.reading_label.wordWrap() == one_line:  # Qt lays the label out again even for the same wrap
            self.reading_label.setWordWrap(not one_line)
        self.reading_label.setToolTip(
            f"How this round's dice were read: {self.reading}" if one_line else "How this round's die was read"
        )
        if not one_line:
            self.reading_label.setText(self.reading)
            return
        room = max(self.width() - 24, 120)
        metrics = self.reading_label.fontMetrics()
        self.reading_label.setText(metrics.elidedText(self.reading, Qt.TextElideMode.ElideRight, room))

    def _reading(self) -> str:
        """Round 1's surprise outcome in words, or this round's initiative reading."""
        combat = self.controller.encounter.combat
        log = self.controller.encounter.log
        if combat.round == combat.first_round:
            for i in range(len(log) - 1, -1, -1):
                event = log[i]
                if isinstance(event, CombatStarted):
                    extra = log[i + 1] if i + 1 < len(log) else None
                    text = event.text
                    if isinstance(extra, Override) and extra.text.startswith("Cannot be surprised"):
                        text += f". {extra.text}"
                    return text
            return ""
        for event in reversed(log):
            if isinstance(event, InitiativeRolled) and event.round == combat.round:
                return event.text
        return ""

    def _set_banner(self, text: str, side: Side | None) -> None:
        self.banner.setText(text)
        back = PALE[side] if side is not None else "#f2f2f2"
        edge = style.side_color(side).name() if side is not None else "#b9b9b9"
        css = f"background: {back}; border-left: 6px solid {edge};"
        if self.banner.styleSheet() != css:  # a new style sheet lays out and paints the whole dock again
            self.banner.setStyleSheet(css)

    def _acting_slot(self) -> TurnSlot | None:
        """The place of the turn order that acts now: the one of the turn under way, or the first
        whose members may still act."""
        combat = self.controller.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return None
        if combat.turn is not None:
            return next((s for s in combat.order if combat.turn.combatant in s.members), None)
        ready = {c.id for c in self.controller.engine.waiting()}
        return next((s for s in combat.order if ready & set(s.members)), None)
