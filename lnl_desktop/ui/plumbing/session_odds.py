"""The session's odds at the table: for each of the night's encounters, the fight odds of the party as it
stands now (RULES §16), worked out on a worker thread a moment after the roster changes, for the Session
dock. GM only: nothing of it goes to the player view.

As :mod:`lnl_desktop.ui.plumbing.fight_odds` does: the worker, a plain function given plain data
(:func:`play`: the session folder and the roster, neither a Qt object, the roster never changed in
place), reads each encounter, brings the party in and plays its fights
(:func:`lnl_desktop.core.session.odds.party_odds`), and puts each result on a queue the GUI thread reads
with a timer (:class:`~lnl_desktop.ui.plumbing.collector.Inbox`). A result of an older state than the
newest asked is dropped.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.session.folder import SessionFolder
from lnl_desktop.core.session.roster import Roster
from lnl_desktop.lazy import load_now
from lnl_desktop.ui.plumbing.collector import Inbox

SESSION_FIGHTS = 10_000
SETTLE_MS = 400  # a moment after the roster changes: a carry-on and its undo ask once
POLL_MS = 30


@dataclass(eq=False)
class SessionOddsJob:
    """What a worker is given: plain data only."""

    folder: SessionFolder
    roster: Roster
    generation: int
    fights: int = SESSION_FIGHTS
    stop: threading.Event = field(default_factory=threading.Event)  # a newer state was asked for


def play(job: SessionOddsJob, results: Any) -> None:
    """The worker: for each encounter in order ``("done", generation, name, odds)`` or ``("broke",
    generation, name, words)`` on ``results``, ``("end", generation)`` last. No Qt object touched."""
    from lnl_desktop.core.session.odds import party_odds

    try:
        for name in job.folder.session.encounters:
            if job.stop.is_set():
                return
            try:
                encounter = job.folder.load_encounter(name)
                odds = party_odds(encounter, job.roster, job.fights, None)
            except RulesError as error:
                results.put(("broke", job.generation, name, str(error)))
            except Exception as error:  # a worker's crash reaches the GM as words; it must not kill the app
                results.put(("broke", job.generation, name, f"the odds could not be worked out: {error}"))
            else:
                results.put(("done", job.generation, name, odds))
    finally:
        results.put(("end", job.generation))


def odds_words(odds: Any) -> str:
    """'Party wins 82 % (±1)' and on a line of its own 'Tombril drops 12 %': the party's chance and its
    likeliest to drop (two lines: a narrow dock shows both rather than cut the name off)."""
    party = f"Party wins {100 * odds.party_wins:.0f} % (±{100 * odds.margin(odds.party_wins):.0f})"
    ours = [c for c in odds.combatants if c.side == "Party"]
    worst = max(ours, key=lambda c: c.drop, default=None)
    if worst is None or worst.drop < 0.005:
        return party
    return f"{party}\n{worst.name} {odds.drop_words} {100 * worst.drop:.0f} %"


def deadly(odds: Any) -> bool:
    """A fight the party more likely loses than wins (the odds command marks the same ones)."""
    from lnl_desktop.core.session.odds import DEADLY

    return bool(odds.party_wins < DEADLY)


class SessionOddsService(QObject):
    """Works the session's odds out a moment after the session or the roster changes (``changed``)."""

    started = Signal()  # the odds of the newest state are being worked out: every row says so
    ready = Signal(str, object)  # (encounter's name, FightOdds)
    failed = Signal(str, str)  # (encounter's name, why it has no odds)
    finished = Signal()  # every encounter of the newest state has its answer

    def __init__(self, parent: QObject | None = None, fights: int = SESSION_FIGHTS) -> None:
        super().__init__(parent)
        self.fights = fights
        self.generation = 0
        self.folder: SessionFolder | None = None
        self.roster: Roster | None = None
        self.running = False
        self.latest: dict[str, Any] = {}  # name -> FightOdds or the words why none, of the newest state
        self._job: SessionOddsJob | None = None
        self._inbox = Inbox(self._take, lambda: self._job is not None, POLL_MS, self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SETTLE_MS)
        self._timer.timeout.connect(self._start)

    def set_session(self, folder: SessionFolder | None, roster: Roster | None) -> None:
        """The session and the party as they stand now: the odds worked out again a moment later."""
        if folder is self.folder and roster is self.roster:
            return  # nothing new (a redraw): the odds shown stand
        self.folder, self.roster = folder, roster
        self.changed()

    def changed(self) -> None:
        self.generation += 1
        self.latest = {}
        if self._job is not None:
            self._job.stop.set()
        if self.folder is not None and self.roster is not None:
            self._timer.start()
        else:
            self._timer.stop()

    def _start(self) -> None:
        if self.folder is None or self.roster is None:
            return
        load_now("numpy")  # the lazy loader has no lock: numpy is loaded here, on the GUI thread, first
        if self._job is not None:
            self._job.stop.set()
        job = SessionOddsJob(self.folder, self.roster, self.generation, self.fights)
        self._job = job
        self.running = True
        self.started.emit()
        threading.Thread(target=play, args=(job, self._inbox.queue), name="lnl-session-odds", daemon=True).start()
        self._inbox.expect()

    def _take(self, result: tuple[Any, ...]) -> None:
        """On the GUI thread: one thing the worker handed back."""
        kind, generation, *rest = result
        if kind == "end":
            if self._job is not None and self._job.generation == generation:
                self._job = None
                self.running = False
                if generation == self.generation:
                    self.finished.emit()
            return
        if generation != self.generation:
            return  # of an older state
        name, value = rest
        self.latest[name] = value
        if kind == "done":
            self.ready.emit(name, value)
        else:
            self.failed.emit(name, value)
