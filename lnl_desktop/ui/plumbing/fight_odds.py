"""Whole-fight odds at the table: worked out on a worker thread a moment after each change, a first
estimate (500 fights) at once and then the full count (10,000), for the Odds dock and the Turns
dock's one-line verdict in setup. GM only: nothing of it goes to the player view.

The encounter is copied on the GUI thread (the engine may change it the next moment); the worker, a
plain function given plain data (:func:`play`), plays the copy's fights (:func:`core.sim.run.fight_odds`)
and puts the odds on a queue the GUI thread reads with a timer: it never touches a Qt object (see
:mod:`lnl_desktop.ui.plumbing.collector`). A result of an older state than the newest asked is dropped.

The worker shares the interpreter with the window: while it runs Python, each of the window's calls
into Qt or numpy may wait for the interpreter's lock (up to 5 ms a time). So while the GM acts (a mouse
button held, an action made in the last :data:`QUIET_MS`) the service holds the simulators' turns
(:func:`core.rules.fight.hold_turns`): the worker waits at its next turn, and a worker whose odds are no
longer wanted stops there.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.fight import MOST_FIGHTERS, Plan, Stopped, hold_turns, let_turns, stopping_on
from lnl_desktop.lazy import load_now
from lnl_desktop.ui.plumbing.collector import QUIET_MS, Inbox  # the collector's quiet moment after the GM acts
from lnl_desktop.ui.plumbing.controller import TableController

FIRST_FIGHTS = 500  # the first estimate, in a blink
FULL_FIGHTS = 10_000
SETTLE_MS = 250  # a moment after a change: a burst of changes (an undo of many steps) asks once
POLL_MS = 20  # while a worker runs, its results are looked for this often, and whether the GM acts


@dataclass(eq=False)
class OddsJob:
    """What a worker is given: plain data only (a copy of the encounter, never a Qt object)."""

    encounter: Encounter
    generation: int
    counts: tuple[int, ...]
    plans: tuple[Plan, ...]
    stop: threading.Event = field(default_factory=threading.Event)  # a newer state was asked for


def play(job: OddsJob, results: queue.SimpleQueue[tuple[Any, ...]]) -> None:
    """The worker: the odds of ``job`` put on ``results`` as plain tuples ``(kind, generation, ...)``,
    "end" last. It touches no Qt object, so nothing of Qt is ever freed on its thread."""
    from lnl_desktop.core.engine.engine import Engine
    from lnl_desktop.core.sim.field import battlefield
    from lnl_desktop.core.sim.run import fight_odds

    encounter, generation, counts = job.encounter, job.generation, job.counts
    try:
        with stopping_on(job.stop):  # the simulators stop at their next turn once a newer state is asked
            field_plan = battlefield(Engine(encounter))
            for fights in counts:
                if job.stop.is_set():
                    return
                odds = fight_odds(encounter, fights, seed=None, field=field_plan)
                results.put(("done", generation, odds, fights == counts[-1]))
            if job.plans and not job.stop.is_set():
                whatif = fight_odds(encounter, counts[-1], field=field_plan, plans=job.plans)
                results.put(("whatif", generation, whatif))
    except Stopped:
        pass  # of an older state: nothing to hand back
    except RulesError as error:
        results.put(("broke", generation, str(error)))
    except Exception as error:  # a worker's crash reaches the GM as words; it must not kill the app
        results.put(("broke", generation, f"the odds could not be worked out: {error}"))
    finally:
        results.put(("end", generation))


def load_simulator() -> None:
    """At an idle moment on the GUI thread: what a worker's first run would import (the simulator's
    run and field, numpy's random generators: 30-60 ms), so the first odds' worker does not import them
    while the GM's first drag waits on its interpreter lock."""
    load_now("numpy")
    import numpy.random  # noqa: F401

    import lnl_desktop.core.sim.run  # noqa: F401


def snapshot(encounter: Encounter) -> Encounter:
    """A copy of the encounter's state without its log, the worker's own: what the engine changes in
    place (the combatants, the tokens, the combat state) copied, the parts it only ever replaces
    (the map, the options, lights, drawings, templates) shared — a big map's copy costs a tenth."""
    state = {k: v for k, v in encounter.__dict__.items() if k != "log"}
    state["combatants"] = [c.model_copy(deep=True) for c in encounter.combatants]
    state["tokens"] = {cid: token.model_copy() for cid, token in encounter.tokens.items()}
    state["combat"] = encounter.combat.model_copy(deep=True)
    state["fog"] = encounter.fog.model_copy(deep=True)
    return type(encounter).model_construct(**state, log=[])


def no_simulator(title: str) -> str:
    """The words for a ruleset that has no fight simulator (its ``fights`` is None)."""
    return f"{title} has no fight simulator"


class FightOddsService(QObject):
    """Works the odds out when asked and someone wants them (``wanted``: the dock shows, or setup)."""

    stale = Signal()  # the encounter changed: the odds shown are of an older state
    started = Signal()  # the odds of the newest state are being worked out
    ready = Signal(object, bool)  # (FightOdds of the newest state, whether it is the full count)
    failed = Signal(str)  # a ruleset without a simulator, a bad state: the words
    whatif = Signal(object)  # the odds with the pinned plans (FightOdds), or None when none is pinned

    def __init__(self, controller: TableController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.generation = 0
        self.latest: Any = None  # the last odds of the newest state (a FightOdds), or None
        self.wants: list[Callable[[], bool]] = []  # who wants a first estimate (the Turns dock's line)
        self.full_wants: list[Callable[[], bool]] = []  # who wants the full count too (the dock, shown)
        self.plans: tuple[Plan, ...] = ()  # the what-if: plans the GM pinned
        self.running = False
        self._job: OddsJob | None = None  # the odds being worked out now
        # The workers' results, read on this, the GUI thread, while a worker runs.
        self._inbox = Inbox(self._take, lambda: self._job is not None, POLL_MS, self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._start)
        # While a worker runs: whether the GM acts, so its turns wait (see the module's docstring).
        self._acted_at = 0.0
        self._watch = QTimer(self)
        self._watch.setInterval(POLL_MS)
        self._watch.timeout.connect(self._hold_while_acting)
        self.destroyed.connect(let_turns)  # a closed window's hold never outlives it
        # Nor does its worker: told to stop at its next turn (a plain list: no reference to this object).
        running: list[threading.Event] = []
        self._running_stops = running
        self.destroyed.connect(lambda: [stop.set() for stop in running])
        controller.acting.connect(self._acting)
        controller.eventsApplied.connect(lambda _events: self.changed())
        controller.encounterReplaced.connect(self.changed)

    def wanted(self) -> bool:
        return any(want() for want in (*self.wants, *self.full_wants))

    def changed(self) -> None:
        """The encounter changed: the odds are stale; worked out again a moment later if wanted."""
        self.generation += 1
        self._acted_at = time.monotonic()
        if self._job is not None:
            self._job.stop.set()
            hold_turns()  # the stale worker stops at its next turn, and waits for the GM meanwhile
        self.latest = None
        self.stale.emit()
        if self.wanted():
            self._timer.start(SETTLE_MS)

    def set_plans(self, plans: tuple[Plan, ...]) -> None:
        """Pin the what-if's plans (none: the default tactic only); the odds are worked out again."""
        self.plans = plans
        self.whatif.emit(None)
        self.changed()

    def _valid_plans(self, encounter: Encounter) -> tuple[Plan, ...]:
        """The pinned plans that still make sense (a combatant gone or a foe down drops its plan)."""
        on_map = {c.id: c for c in encounter.combatants if c.id in encounter.tokens and not c.down}
        return tuple(
            p
            for p in self.plans
            if p.combatant in on_map
            and (p.kind == "retreat" or (p.target in on_map and on_map[p.target].side is not on_map[p.combatant].side))
        )

    def request(self) -> None:
        """Someone wants the full odds now (the dock shown): work them out unless the latest are current."""
        if self.latest is None and not self._timer.isActive():
            self._timer.start(0)

    def _start(self) -> None:
        if QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton:
            # A press or a drag under way: a worker would share the interpreter lock with its steps, and
            # the drop changes the table anyway. Looked at again a moment later, until the button is let go.
            self._timer.start(SETTLE_MS)
            return
        generation = self.generation
        ruleset = self.controller.engine.ruleset
        if ruleset.fights is None:  # a ruleset without the capability: said, never worked out
            self.failed.emit(no_simulator(ruleset.title))
            return
        on_map = len(self.controller.encounter.tokens)
        if on_map > MOST_FIGHTERS:  # said at once: no copy of a big map's encounter for nothing
            self.failed.emit(
                f"{on_map} combatants are on the map: the fight odds are worked out for up to {MOST_FIGHTERS}"
            )
            return
        load_now("numpy")  # the lazy loader has no lock: numpy is loaded here, on the GUI thread, first
        encounter = snapshot(self.controller.encounter)
        full = any(want() for want in self.full_wants)
        counts = (FIRST_FIGHTS, FULL_FIGHTS) if full else (FIRST_FIGHTS,)
        plans = self._valid_plans(encounter) if full else ()
        self.started.emit()
        if self._job is not None:
            self._job.stop.set()  # of no use any more: a newer state is asked for
        job = OddsJob(encounter, generation, counts, plans)
        self._job = job
        self._running_stops[:] = [job.stop]
        self.running = True
        # A plain function given plain data: the worker holds nothing of Qt (see lnl_desktop.ui.plumbing.collector).
        threading.Thread(target=play, args=(job, self._inbox.queue), name="lnl-fight-odds", daemon=True).start()
        self._inbox.expect()
        self._watch.start()

    def _take(self, result: tuple[Any, ...]) -> None:
        """On the GUI thread: one thing a worker handed back, said by the service's signals."""
        kind, generation, *rest = result
        if kind == "done":
            self._on_done(rest[0], generation, rest[1])
        elif kind == "whatif":
            self._on_whatif(rest[0], generation)
        elif kind == "broke":
            self._on_broke(rest[0], generation)
        elif kind == "end" and self._job is not None and self._job.generation == generation:
            self._job = None
            self.running = False
            self._watch.stop()
            let_turns()

    def _acting(self) -> None:
        """The GM acts (an action about to apply, a press on the map): a running worker waits from its
        next turn on."""
        if self._job is not None:
            self._acted_at = time.monotonic()
            hold_turns()

    def _hold_while_acting(self) -> None:
        """While a worker runs: its turns wait while the GM holds a button or has just acted."""
        acting = QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton
        if acting or time.monotonic() - self._acted_at < QUIET_MS / 1000:
            hold_turns()
        else:
            let_turns()

    def _on_done(self, odds: Any, generation: int, final: bool) -> None:
        if generation != self.generation:
            return  # of an older state
        if final and odds.fights >= FULL_FIGHTS:
            self.latest = odds
        self.ready.emit(odds, final)

    def _on_whatif(self, odds: Any, generation: int) -> None:
        if generation == self.generation:
            self.whatif.emit(odds)

    def _on_broke(self, words: str, generation: int) -> None:
        if generation == self.generation:
            self.failed.emit(words)
