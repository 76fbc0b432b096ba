"""The window's party (RULES §16): the roster open beside the encounter, its file, and the one undo step
that changes both (a character taken in and its combatant linked; a carry-on; a rest).

No widgets here: the Party, Session and Sheet docks read :class:`WindowParty` and change the roster
through :meth:`WindowParty.push` (undoable) or :meth:`WindowParty.set_roster` (saved at once).

Two windows may have the same roster open. Before every write the file is read again: when another
window wrote it since this one last read or wrote it, that window's characters are kept and only the
characters this change touches are written over (a character both changed: this change wins, its version
raised above the other's), so one window never silently undoes the other's work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtGui import QUndoCommand

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files.storage import read_text
from lnl_desktop.core.session.roster import (
    Roster,
    RosterFileError,
    RosterNote,
    loads_roster,
    new_roster,
    noted,
    roster_model,
    save_roster,
    with_characters,
)
from lnl_desktop.ui.plumbing.controller import TableController

if TYPE_CHECKING:  # only its type: the session folder's module waits for File ▸ Open session…
    from lnl_desktop.core.session.folder import SessionFolder

ROSTER_KEY = "party/roster"  # QSettings: the roster file reopened at start


@dataclass(frozen=True)
class RosterChange:
    """What one step did to the roster: the characters it wrote (ids) and the log lines it added, with
    the rosters before and after, so undo and redo write only those over the latest file."""

    before: Roster
    after: Roster
    touched: frozenset[str]
    notes: tuple[RosterNote, ...]


def change_between(before: Roster, after: Roster) -> RosterChange:
    """The characters that differ (added, removed, edited or re-versioned) and the new log lines."""
    ids = {c.id for c in before.characters} | {c.id for c in after.characters}
    touched = frozenset(
        cid for cid in ids if before.character(cid) != after.character(cid) or before.version(cid) != after.version(cid)
    )
    known = set(before.log)
    return RosterChange(before, after, touched, tuple(n for n in after.log if n not in known))


def merged(latest: Roster, mine: Roster, target: Roster, change: RosterChange, forward: bool) -> Roster:
    """``latest`` (the file as another window left it) with ``change`` applied going ``forward`` (redo) or
    back (undo): the touched characters as ``target`` has them, the others as the newer of ``latest``'s and
    ``mine`` (this window's roster before the step) by version; the name and options ``target``'s."""
    characters = []
    versions: dict[str, int] = {}
    for c in [*latest.characters, *(c for c in target.characters if latest.character(c.id) is None)]:
        if c.id in change.touched:
            wanted = target.character(c.id)
            if wanted is None:
                continue  # this step takes it out
            version = target.version(c.id)
            theirs = latest.version(c.id)
            if latest.character(c.id) is not None and theirs != mine.version(c.id) and theirs >= version:
                version = theirs + 1  # both windows changed it: this change wins, and says it is the newer
            characters.append(wanted)
            versions[c.id] = version
        elif latest.character(c.id) is not None:
            ours = mine.character(c.id)
            newer = ours if ours is not None and mine.version(c.id) > latest.version(c.id) else c
            characters.append(newer)
            versions[c.id] = max(latest.version(c.id), mine.version(c.id) if ours is not None else 0)
    if forward:
        log = [*latest.log, *(n for n in change.notes if n not in set(latest.log))]
    else:
        log = [n for n in latest.log if n not in set(change.notes)]
    data = {
        "name": target.name,
        "ruleset": target.ruleset,
        "options": target.options.model_dump(mode="json"),
        "characters": [c.model_dump(mode="json") for c in characters],
        "versions": versions,
        "log": [n.model_dump(mode="json") for n in log],
    }
    return roster_model(target.ruleset).model_validate(data)


class WindowParty(QObject):
    # The roster (or its file) changed: the docks redraw.
    changed = Signal()
    # A problem with the roster's file (could not be read or saved), in the GM's words.
    problem = Signal(str)
    # The GM picked a party character to see and edit on the Sheet (its id; "" for none).
    picked = Signal(str)

    def __init__(self, controller: TableController, settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.settings = settings
        self.roster: Roster | None = None
        self.path: Path | None = None
        self.session: SessionFolder | None = None
        self._seen: str | None = None  # the file's text as this window last read or wrote it
        self.picked_id: str | None = None  # the character shown on the Sheet, if one is
        # The roster remembered from last time, once the window is up (its problem said where the GM looks).
        QTimer.singleShot(0, self.reopen)

    # -- opening -------------------------------------------------------------------------------

    def reopen(self) -> str | None:
        """Open the roster file remembered from last time, if any (nothing is created): None when it
        opened or none is remembered, else the reason (said once, through ``problem``)."""
        remembered = self.settings.value(ROSTER_KEY, "")
        if self.roster is not None:
            return None  # one was opened meanwhile (a session, New party…)
        if not isinstance(remembered, str) or not remembered:
            return None
        path = Path(remembered)
        if not path.exists():
            reason = f"The party file {path.name} is no longer there; open another with Open party…"
            self.settings.remove(ROSTER_KEY)  # said once, not at every start
            self._say(reason)
            return reason
        reason = self.open_roster(path)
        if reason is not None:
            self.settings.remove(ROSTER_KEY)
            self._say(reason)
        return reason

    def open_roster(self, path: Path) -> str | None:
        """Open the roster at ``path``: None on success, else the reason (nothing changed)."""
        try:
            text = read_text(Path(path))
            roster = loads_roster(text, Path(path).name)
        except RulesError as error:
            return str(error)
        self.session = None
        self._take(roster, Path(path), text)
        return None

    def new_roster(self, path: Path) -> str | None:
        """An empty party of the encounter's ruleset, saved at ``path``: None, or why not (nothing changed)."""
        path = Path(path)
        roster = new_roster(self.controller.encounter.ruleset, path.stem or "The party")
        try:
            save_roster(roster, path)
            text = read_text(path)
        except RulesError as error:
            return str(error)
        self.session = None
        self._take(roster, path, text)
        return None

    def open_session(self, folder: SessionFolder) -> str | None:
        """The session's roster opened and the session kept: None, or why not (nothing changed)."""
        path = folder.roster_path
        try:
            text = read_text(path)
            roster = loads_roster(text, path.name, folder.ruleset)
        except RulesError as error:
            return str(error)
        self.session = folder
        self._take(roster, path, text)
        return None

    def _take(self, roster: Roster, path: Path, text: str) -> None:
        self.roster, self.path, self._seen = roster, path, text
        self.settings.setValue(ROSTER_KEY, str(path))
        self.changed.emit()

    # -- what the docks ask ----------------------------------------------------------------------

    @property
    def plays_encounter_ruleset(self) -> bool:
        """The party is of the open encounter's ruleset (only then it can be dragged in or taken from it)."""
        return self.roster is not None and self.roster.ruleset == self.controller.encounter.ruleset

    def ruleset_mismatch(self) -> str:
        """Why the party cannot meet this encounter ("" when it can)."""
        if self.roster is None:
            return "No party is open: New party… or Open party…"
        if self.plays_encounter_ruleset:
            return ""
        from lnl_desktop.core.rules.registry import get_ruleset

        return (
            f"The party plays {get_ruleset(self.roster.ruleset).title}; "
            f"this encounter plays {self.controller.engine.ruleset.title}"
        )

    def pick(self, cid: str | None) -> None:
        """Show a party character on the Sheet (the encounter's selection let go), or none."""
        if cid is not None:
            self.controller.select(None)  # the Sheet shows one thing: the roster's copy now
        self.picked_id = cid
        self.picked.emit(cid or "")

    # -- changing ------------------------------------------------------------------------------

    def set_roster(self, roster: Roster) -> None:
        """Replace the roster and save it at once (not an undo step). A save error is said and the
        in-memory roster kept, so nothing the GM sees is lost."""
        if self.roster is None or self.path is None:
            self.roster = roster
            self.changed.emit()
            return
        self.write(change_between(self.roster, roster), forward=True)

    def push(
        self,
        text: str,
        after: Roster,
        note: act.PartyNote | None = None,
        actions: Sequence[act.Action] = (),
    ) -> bool:
        """One undo step: the roster replaced by ``after`` (saved) and the engine ``actions`` (then the
        ``note`` log line) applied, all undone together. A refused action: nothing changes, False."""
        if self.roster is None:
            self._refuse("No party is open: New party… or Open party…")
            return False
        steps = [*actions, *([note] if note is not None else [])]
        engine = self.controller.engine
        done = 0
        self.controller.pushing = True
        try:
            for action in steps:
                engine.apply(action)
                done += 1
        except RulesError as refused:
            for _ in range(done):
                engine.undo()
            self._refuse(str(refused))
            return False
        finally:
            self.controller.pushing = False
        change = change_between(self.roster, after)
        self.controller.undo_stack.push(PartyCommand(self, text, change, done))
        self.controller.refusal = None
        self.controller.message.emit(text)
        return True

    def take_in(self, cid: str) -> bool:
        """The encounter's combatant ``cid`` copied into the party as it stands and linked to it, one undo
        step with a log line ("Add to the party"); refused with the reason (False) when it cannot be."""
        c = self.controller.combatant(cid)
        if c is None:
            return False
        why = self.ruleset_mismatch()
        linked = c.id in self.controller.encounter.party_links
        if not why and linked and self.roster is not None and self.roster.character(c.id) is not None:
            why = f"{c.name} is already in the party"
        if why:
            self._refuse(why)
            return False
        assert self.roster is not None
        try:
            after = with_characters(self.roster, [c])
        except RulesError as error:
            self._refuse(f"Add {c.name} to the party: {error}")
            return False
        fight = self.controller.encounter.name
        line = f"{c.name}: taken into the party from {fight}"
        return self.push(
            f"Add {c.name} to the party",
            noted(after, "added", [line], fight=fight),
            act.PartyNote("added to the party", (line,)),
            [act.LinkParty({c.id: after.version(c.id)})],
        )

    def write(self, change: RosterChange, forward: bool) -> None:
        """Put ``change`` (forward: its after; back: its before) over the latest roster and save it.
        The roster in memory follows even when the save fails (said through ``problem``)."""
        assert self.roster is not None
        target = change.after if forward else change.before
        # The untouched characters come from the file when another window wrote it, else from this
        # window's roster as it is now (never from the step's old copy: other steps came after it).
        latest = self._latest_on_disk() or self.roster
        try:
            result = merged(latest, self.roster, target, change, forward)
        except (RulesError, ValueError) as error:  # the merge would be invalid: this window's wins
            self._say(f"Could not merge the party file written elsewhere ({error}); this window's kept")
            result = target
        self.roster = result
        if self.path is not None:
            try:
                save_roster(result, self.path)
                self._seen = read_text(self.path)
            except RulesError as error:
                self._say(f"{error}; the party is kept in this window: save it again with New party…")
        self.changed.emit()

    def refresh_from_disk(self) -> None:
        """Take the roster as another window last wrote it, before a step that reads versions (a carry-on:
        a character that window carried on meanwhile is then a conflict the GM decides, never overwritten)."""
        latest = self._latest_on_disk()
        if latest is not None and self.path is not None:
            self._take(latest, self.path, read_text(self.path))

    def _latest_on_disk(self) -> Roster | None:
        """The roster as another window left it, or None when the file is as this window last saw it
        (or unreadable: then this window's roster is written whole)."""
        if self.path is None or self.roster is None:
            return None
        try:
            text = read_text(self.path)
        except RulesError:
            return None
        if text == self._seen:
            return None
        try:
            return loads_roster(text, self.path.name, self.roster.ruleset)
        except RosterFileError:
            return None

    def _refuse(self, reason: str) -> None:
        self.controller.refusal = reason
        self.controller.message.emit(reason)
        self.controller.refused.emit(reason)

    def _say(self, reason: str) -> None:
        self.controller.message.emit(reason)
        self.problem.emit(reason)


class PartyCommand(QUndoCommand):
    """The roster change and the engine steps taken with it (already applied when pushed): undone
    together, the engine's last first."""

    def __init__(self, party: WindowParty, text: str, change: RosterChange, engine_steps: int) -> None:
        super().__init__(text if len(text) <= 80 else text[:77] + "…")
        self.party = party
        self.change = change
        self.engine_steps = engine_steps
        self._pushed = False

    def redo(self) -> None:
        if not self._pushed:
            self._pushed = True  # the engine steps are applied; the roster is written now
            self.party.write(self.change, forward=True)
            return
        for _ in range(self.engine_steps):
            self.party.controller.engine.redo()
        self.party.write(self.change, forward=True)

    def undo(self) -> None:
        for _ in range(self.engine_steps):
            self.party.controller.engine.undo()
        self.party.write(self.change, forward=False)
