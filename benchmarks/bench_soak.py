"""Soak benchmark: memory and time per round over a long fight (bounded memory).

The demo encounter's two sides are lined up face to face, and round after round every combatant
takes its turn: a step aside and back, an attack on the first foe in reach, end of turn. At the
round's end the GM heals everyone (so the fight never ends) and rolls the next initiative.
Seeded dice, so every run plays the same fight.

- engine: the core alone, 1,000 rounds; RSS and time per round at rounds 1, 100, 300, 1000.
- window: a real MainWindow (offscreen, a scratch recovery folder), the same rounds driven through
  the Turns and Action docks and the controller (QUndoStack, docks, log, map and journal all
  update, events processed after every action), 300 rounds; at rounds 1, 100, 300.

- big: one action among 500 tokens on a 300 x 300 map, fog off (an action costs what it touches, not
  the encounter's size): the engine alone, and a real MainWindow with the player view open
  (``controller.do`` and the events processed); a forced move, a hit (an edit of SP) and an undo,
  medians of 30.

Each part runs in a process of its own so its RSS is its own. Budgets: engine RSS growth over
1,000 rounds under 100 MB, and from round 10 to the last under 15 MB (flat: what still grows is
said, the round log's events and the undo history measured apart); window RSS growth over 300
rounds under 200 MB, time per round at round 300 within 1.3x of round 1, and a round through the
docks (rounds 1-5) under 700 ms, beside the same rounds' engine alone (its bare baseline, measured
in the same process); one engine action among 500 tokens under 5 ms. "Time at round R" is the
median of five rounds ending at R (rounds 1-5 for round 1), so one slow paint does not decide it.

    python benchmarks/bench_soak.py             all three parts (about 5 minutes: the window's 300 rounds)
    python benchmarks/bench_soak.py engine      one part (also: window, big)
    python benchmarks/bench_soak.py --quick     the window for 100 rounds only (about 2 minutes in all)
    python benchmarks/bench_soak.py --rounds N  N rounds for the engine and window parts
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lnl_desktop.core.dice.rolls import RandomDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import storage
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.rules.lnl.examples import demo_line_up_actions
from lnl_desktop.core.rules.lnl.model import Attack, WeaponState
from lnl_desktop.paths import demo_encounter_path

ENGINE_ROUNDS = 1000
WINDOW_ROUNDS = 300
QUICK_WINDOW_ROUNDS = 100
ENGINE_RSS_BUDGET_MB = 100.0
FLAT_FROM = 10  # the round memory is counted from for "flat"
FLAT_BUDGET_MB = 15.0
ROUND_BUDGET_MS = 700.0  # a round at the demo table through the docks
WINDOW_RSS_BUDGET_MB = 200.0
WINDOW_SLOWDOWN_BUDGET = 1.3
WINDOW = 5  # rounds per time figure
BIG_TOKENS = 500
BIG_ACTION_BUDGET_MS = 5.0
BIG_SAMPLES = 30


def rss_mb() -> float:
    """This process's resident set size in MB (Linux /proc; elsewhere the peak from resource)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


class Table:
    """How the script acts: straight on the engine; the window's table overrides the steps."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def do(self, action: act.Action) -> bool:
        self.engine.apply(action)
        return True

    def begin_turn(self, cid: str) -> bool:
        return self.do(act.BeginTurn(cid))

    def attack(self, attacker: str, target: str, weapon: str) -> bool:
        return self.do(Attack(attacker, target, weapon))

    def end_turn(self) -> bool:
        return self.do(act.EndTurn())

    def next_round(self) -> bool:
        return self.do(act.NextRound())


def line_up(table: Table) -> None:
    for action in demo_line_up_actions():
        table.do(action)
    table.do(act.StartCombat(face=4))


def step_aside(engine: Engine, cid: str) -> Cell | None:
    """A neighbouring cell ``cid`` can step to for 5 ft, or None."""
    x, y = engine.encounter.tokens[cid].cell
    reach = engine.reach(cid)
    for cell in ((x, y - 1), (x, y + 1), (x - 1, y), (x + 1, y)):
        cost = reach.cost_ft(cell)
        if cost is not None and 0 < cost <= 5:
            return cell
    return None


def play_round(table: Table) -> None:
    engine = table.engine
    encounter = engine.encounter
    while engine.waiting():
        who = engine.waiting()[0]
        assert table.begin_turn(who.id), f"{who.name} could not begin the turn"
        home = encounter.tokens[who.id].cell
        aside = step_aside(engine, who.id)
        if aside is not None:
            assert table.do(act.Move(who.id, to=aside))
            assert table.do(act.Move(who.id, to=home))
        fighter = encounter.combatant(who.id)
        foes = [f for f in encounter.combatants if f.side is not fighter.side and not f.down]
        for weapon in fighter.weapons:
            if weapon.state is WeaponState.BROKEN:
                continue
            target = next(
                (f for f in foes if not any(c.blocks for c in engine.attack_checks(who.id, f.id, weapon.name))), None
            )
            if target is not None:
                assert table.attack(who.id, target.id, weapon.name)
                break
        assert table.end_turn()
    # The GM heals everyone between rounds, so the fight goes on for ever.
    for c in list(encounter.combatants):
        if c.stamina < c.stamina_max or c.injury < c.injury_max:
            assert table.do(act.EditCombatant(c.id, {"stamina": c.stamina_max, "injury": c.injury_max}))
    assert table.next_round()


def deep_size(root: object, seen: set[int]) -> tuple[int, int]:
    """Bytes and objects held by ``root`` and below (each object once across calls sharing ``seen``;
    classes, functions and modules are not counted: they are the program's, not the fight's)."""
    import types

    size = count = 0
    stack = [root]
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, skip):
            continue
        seen.add(id(item))
        size += sys.getsizeof(item)
        count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(item.keys())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        else:
            held = getattr(item, "__dict__", None)
            if isinstance(held, dict):
                stack.append(held)
            for slot in getattr(type(item), "__slots__", ()):
                stack.append(getattr(item, slot, None))
            fields_set = getattr(item, "__pydantic_fields_set__", None)
            if fields_set is not None:
                stack.append(fields_set)
    return size, count


def what_is_kept(engine: Engine) -> str:
    """The round log's events and the undo history, each measured (shared objects counted once, in
    the log first): what a long fight keeps."""
    seen: set[int] = set()
    deep_size(engine.ruleset, seen)  # the ruleset's own tables, shared by events, are not the fight's
    log = engine.encounter.log
    log_bytes, _ = deep_size(log, seen)
    records = [*engine._undo, *engine._redo]  # a benchmark looks inside
    undo_bytes, _ = deep_size(records, seen)
    per_event = log_bytes / max(len(log), 1)
    per_record = undo_bytes / max(len(records), 1)
    # The log's book seals all but its newest events as compressed text (core.encounter.log_book).
    sealed = f" ({log.sealed} sealed)" if hasattr(log, "sealed") else ""
    return (
        f"  kept: the round log {len(log)} events{sealed}, {log_bytes / 1e6:.1f} MB ({per_event:.0f} bytes each); "
        f"the undo history {len(records)} records, {undo_bytes / 1e6:.1f} MB ({per_record:.0f} bytes each)"
    )


def soak(
    table: Table,
    rounds: int,
    checkpoints: list[int],
    tick: Callable[[], None] = lambda: None,
    bare: Callable[[int], float] | None = None,
) -> None:
    """Play ``rounds`` rounds, printing a line per checkpoint (RSS, its growth, time per round) as it
    is reached, then a last line the parent process reads: the RSS growth, the slowdown, the growth
    from round FLAT_FROM and the median time of the first rounds. ``bare``: the seconds the same
    number of first rounds take the engine alone, for the baseline line."""
    times: list[float] = []
    rss: dict[int, float] = {}

    def line(r: int, span: list[float]) -> None:
        first_time = statistics.median(times[:WINDOW])
        per_round = statistics.median(span)
        print(
            f"  round {r:>4}: RSS {rss[r]:7.1f} MB (+{rss[r] - rss[1]:6.1f} MB since round 1), "
            f"{per_round * 1e3:8.1f} ms per round ({per_round / first_time:.2f}x round 1; "
            f"mean {statistics.mean(span) * 1e3:.1f} ms)",
            flush=True,
        )

    for number in range(1, rounds + 1):
        start = time.perf_counter()
        play_round(table)
        tick()
        times.append(time.perf_counter() - start)
        rss[number] = rss_mb()
        if number == min(WINDOW, rounds):
            line(1, times[:WINDOW])
        if number in checkpoints and number > 1:
            line(number, times[max(0, number - WINDOW) : number])
    print(f"  actions in the log: {len(table.engine.encounter.log)}; total {sum(times):.1f} s")
    first = statistics.median(times[:WINDOW])
    if bare is not None:
        alone = bare(min(WINDOW, rounds))
        print(
            f"  rounds 1-{min(WINDOW, rounds)}: {first * 1e3:.1f} ms per round through the docks, the engine alone "
            f"{alone * 1e3:.1f} ms (same process, same rounds): the docks' share {(first - alone) * 1e3:.1f} ms"
        )
    slowdown = statistics.median(times[max(0, rounds - WINDOW) :]) / first
    flat = rss[rounds] - rss[min(FLAT_FROM, rounds)]
    print(f"__growth {rss[rounds] - rss[1]:.3f} {slowdown:.3f} {flat:.3f} {first * 1e3:.3f}", flush=True)


def run_engine(rounds: int) -> None:
    engine = Engine(storage.load(demo_encounter_path()), RandomDice(7))
    table = Table(engine)
    line_up(table)
    soak(table, rounds, [FLAT_FROM, 100, 300, 1000])
    print(what_is_kept(engine), flush=True)


def bare_rounds(count: int) -> float:
    """The median seconds of the first ``count`` rounds of the same fight on the engine alone."""
    engine = Engine(storage.load(demo_encounter_path()), RandomDice(7))
    table = Table(engine)
    line_up(table)
    times = []
    for _ in range(count):
        start = time.perf_counter()
        play_round(table)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


class WindowTable(Table):
    """The same steps through the window: the Turns dock, the Action dock, the controller."""

    def __init__(self, window: object, process: Callable[[], None]) -> None:
        from lnl_desktop.ui.window.main_window import MainWindow

        assert isinstance(window, MainWindow)
        super().__init__(window.controller.engine)
        self.window = window
        self.controller = window.controller
        self.turns = window.turns_panel
        self.panel = window.action_panel
        self.process = process

    def do(self, action: act.Action) -> bool:
        done = self.controller.do(action) is not None
        self.process()
        return done

    def begin_turn(self, cid: str) -> bool:
        done = self.turns.begin_turn(cid)
        self.process()
        return done

    def attack(self, attacker: str, target: str, weapon: str) -> bool:
        panel = self.panel
        panel.set_kind("attack")
        panel.set_means(weapon)
        panel.set_target(target)
        if not panel.roll_button.isEnabled():
            return False
        panel.roll_button.click()
        self.process()
        return panel.last_result is not None

    def end_turn(self) -> bool:
        done = self.turns.end_turn()
        self.process()
        return done

    def next_round(self) -> bool:
        done = self.turns.next_round()
        self.process()
        return done


def run_window(rounds: int) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication, QEvent, QSettings, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication, QMessageBox

    from lnl_desktop.ui.window.main_window import MainWindow
    from lnl_desktop.ui.window.recovery import RecoveryStore

    # The offscreen platform says so at every size change; it says nothing about the app.
    qInstallMessageHandler(lambda kind, context, text: None if "propagateSizeHints" in text else print(text))
    app = QApplication.instance() or QApplication(sys.argv[:1])

    def process() -> None:
        # What the running event loop does between two clicks: deliver the events, then delete
        # what was deleteLater()'d (processEvents() alone never does, so it would pile up here).
        app.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)

    QMessageBox.question = lambda *a, **k: QMessageBox.StandardButton.Discard  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory(prefix="lnl-soak-") as scratch:
        folder = Path(scratch)
        encounter: Encounter = storage.load(demo_encounter_path())
        window = MainWindow(
            encounter,
            settings=QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat),
            recovery=RecoveryStore(folder / "recovery"),
        )
        window.show()
        process()
        window.controller.engine.dice = RandomDice(7)
        table = WindowTable(window, process)
        line_up(table)
        soak(table, rounds, [100, 300], bare=bare_rounds)
        window.setWindowModified(False)
        window.controller.undo_stack.setClean()
        window.close()
        process()


def big_actions(do: Callable[[act.Action], object], undo: Callable[[], object], engine: Engine) -> dict[str, float]:
    """Median milliseconds of a forced move there and back, a hit (SP edited) and an undo."""
    import big_maps  # beside this script

    mover = big_maps.MOVER
    x, y = engine.encounter.tokens[mover].cell
    target = next(c.id for c in engine.encounter.combatants if c.side is not engine.combatant(mover).side)
    times: dict[str, list[float]] = {"move": [], "hit": [], "undo": []}
    for n in range(BIG_SAMPLES + 3):
        for what, step in (
            ("move", lambda: do(act.Move(mover, (x + 1, y), forced=True))),
            ("hit", lambda n=n: do(act.EditCombatant(target, {"stamina": n % 3}))),
            ("undo", undo),
        ):
            start = time.perf_counter()
            step()
            if n >= 3:  # the first few build what later actions reuse
                times[what].append(time.perf_counter() - start)
        undo()  # the move too: the next sample starts where this one did
    return {what: statistics.median(spent) * 1e3 for what, spent in times.items()}


def run_big() -> None:
    import big_maps

    encounter = big_maps.build(size=300, tokens=BIG_TOKENS, segments=0, fog=False)
    engine = Engine(encounter, RandomDice(7))
    found = big_actions(engine.apply, engine.undo, engine)
    print(f"  engine: {', '.join(f'{k} {v:.2f} ms' for k, v in found.items())}", flush=True)
    worst = max(found["move"], found["hit"])

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication, QEvent, QSettings, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication, QMessageBox

    from lnl_desktop.ui.window.main_window import MainWindow
    from lnl_desktop.ui.window.recovery import RecoveryStore

    qInstallMessageHandler(lambda kind, context, text: None)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    QMessageBox.question = lambda *a, **k: QMessageBox.StandardButton.Discard  # type: ignore[method-assign]

    def process() -> None:
        app.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)

    with tempfile.TemporaryDirectory(prefix="lnl-soak-") as scratch:
        folder = Path(scratch)
        window = MainWindow(
            big_maps.build(size=300, tokens=BIG_TOKENS, segments=0, fog=False),
            settings=QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat),
            recovery=RecoveryStore(folder / "recovery"),
        )
        window.resize(1600, 1000)
        window.show()
        window.show_player_view(True)
        process()
        controller = window.controller

        def do(action: act.Action) -> None:
            assert controller.do(action) is not None, controller.refusal
            process()

        def undo() -> None:
            controller.undo_stack.undo()
            process()

        found = big_actions(do, undo, controller.engine)
        print(f"  window (player view open): {', '.join(f'{k} {v:.1f} ms' for k, v in found.items())}", flush=True)
        window.setWindowModified(False)
        controller.undo_stack.setClean()
        window.close()
        process()
    print(f"__big {worst:.3f}", flush=True)


def run_part(part: str, rounds: int | None) -> tuple[float, ...] | None:
    """Run one part in a process of its own; print its lines; return (RSS growth, slowdown, growth
    from round FLAT_FROM, milliseconds of a first round) or, for the big part, (worst action,)."""
    command = [sys.executable, __file__, f"--{part}-child"]
    if rounds is not None:
        command += ["--rounds", str(rounds)]
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    growth: tuple[float, ...] | None = None
    # stderr joins stdout: a failure's traceback shows where it happened, and no pipe fills up.
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env) as child:
        assert child.stdout is not None
        for line in child.stdout:  # shown as they come: the window part takes minutes
            if line.startswith("__growth"):
                growth = tuple(float(value) for value in line.split()[1:])
            elif line.startswith("__big"):
                growth = (float(line.split()[1]),)
            else:
                print(line, end="", flush=True)
    if child.returncode != 0:
        print(f"  the {part} part failed (exit status {child.returncode})")
    return growth


def report(what: str, value: float, budget: float, unit: str, span: str) -> None:
    verdict = "within budget" if value <= budget else "OVER BUDGET"
    print(f"{what}: {value:.2f}{unit} (budget {budget:g}{unit} {span}) {verdict}")


def main(argv: list[str]) -> None:
    rounds: int | None = None
    if "--rounds" in argv:
        rounds = int(argv[argv.index("--rounds") + 1])
    window_rounds = rounds or (QUICK_WINDOW_ROUNDS if "--quick" in argv else None)
    if "--engine-child" in argv:
        run_engine(rounds or ENGINE_ROUNDS)
        return
    if "--window-child" in argv:
        run_window(rounds or WINDOW_ROUNDS)
        return
    if "--big-child" in argv:
        run_big()
        return
    parts = [p for p in ("engine", "window", "big") if p in argv] or ["engine", "window", "big"]
    if "engine" in parts:
        n = rounds or ENGINE_ROUNDS
        print(f"engine soak: {n} rounds of the demo fight, core only")
        found = run_part("engine", rounds)
        if found is not None:
            report(f"engine RSS growth over {n} rounds", found[0], ENGINE_RSS_BUDGET_MB, " MB", "over 1000")
            report(f"engine RSS growth from round {FLAT_FROM} to {n}", found[2], FLAT_BUDGET_MB, " MB", "to 1000")
    if "window" in parts:
        n = window_rounds or WINDOW_ROUNDS
        print(f"window soak: {n} rounds through the docks of a MainWindow (offscreen)")
        found = run_part("window", window_rounds)
        if found is not None:
            report(f"window RSS growth over {n} rounds", found[0], WINDOW_RSS_BUDGET_MB, " MB", "over 300")
            report(f"window time per round at round {n}", found[1], WINDOW_SLOWDOWN_BUDGET, "x", "of round 1")
            report("a round through the docks (rounds 1-5)", found[3], ROUND_BUDGET_MS, " ms", "per round")
    if "big" in parts:
        print(f"one action among {BIG_TOKENS} tokens (300 x 300 map, fog off)")
        found = run_part("big", None)
        if found is not None:
            report("engine action (the slower of move and hit)", found[0], BIG_ACTION_BUDGET_MS, " ms", "per action")


if __name__ == "__main__":
    main(sys.argv[1:])
