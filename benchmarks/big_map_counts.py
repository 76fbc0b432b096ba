"""What a press on a token and a drag step cost in counts that do not depend on the machine's load.
A script, not a test.

The tables of ``bench_big_map.py`` (the main window and the player view, fog on, overlays shared);
for a press on a token (from nothing selected, the cursor coming from off the token, as the GM's
first press) and its first step, and for each drag step after it: the Python calls made (cProfile)
and the pixels each window repainted (the paint events' regions); for a Party move with fog on the
300x300 map (the table's first, then those back and forth after it), the same and the move's CPU time.
Wall-clock figures on a shared machine swing by 2-5x; these do not, so two revisions compare exactly:

    python benchmarks/big_map_counts.py                 this checkout
    python benchmarks/big_map_counts.py --party-moves   the Party moves' rows only
    PYTHONPATH=/tmp/tree python benchmarks/big_map_counts.py    another revision's code (a worktree)
"""

from __future__ import annotations

import cProfile
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import big_maps
from bench_big_map import Table, drawings_around, settle
from PySide6.QtCore import Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from lnl_desktop.lazy import load_now

PRESSES = 3
STEPS = 10
TABLES = ((50, 200, 0, 0), (50, 200, 2000, 0), (300, 500, 2000, 0), (100, 10, 2000, 200))

painted = {"GM": 0, "players": 0}


def count_paints(cls: type[QWidget], window: str) -> None:
    """Add the area of every paint event of ``cls`` to ``painted[window]``."""
    paint = cls.paintEvent

    def counted(self: QWidget, event: QPaintEvent) -> None:
        painted[window] += sum(r.width() * r.height() for r in event.region())
        paint(self, event)

    cls.paintEvent = counted  # type: ignore[method-assign]


def python_calls(run: Callable[[], object]) -> int:
    profile = cProfile.Profile()
    profile.enable()
    run()
    profile.disable()
    return sum(entry[1] for entry in pstats.Stats(profile).stats.values())  # type: ignore[attr-defined]


def measured(run: Callable[[], object]) -> tuple[int, int, int]:
    """(Python calls, GM pixels repainted, players' pixels repainted) of ``run`` and the paints after it."""
    painted["GM"] = painted["players"] = 0
    calls = python_calls(run)
    return calls, painted["GM"], painted["players"]


def sample(table: Table, size: int) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
    """(each press with its first step, each drag step after it), measured."""
    app = table.app
    left, button, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier
    viewport = table.view.viewport()
    start = table.controller.encounter.tokens[big_maps.MOVER].cell
    away = (max(start[0] - 3, 0), max(start[1] - 3, 0))

    def press() -> None:
        QTest.mousePress(viewport, left, none, table.point(start))
        QApplication.sendEvent(viewport, table.move_event((start[0] + 1, start[1])))
        settle(app)

    presses, steps = [], []
    for _ in range(PRESSES):
        table.controller.select(None)
        QApplication.sendEvent(viewport, table.move_event(away, button))
        table.warm()
        presses.append(measured(press))
        rng = random.Random(3)
        x, y = start[0] + 1, start[1]
        for _ in range(STEPS):
            x = min(max(x + rng.choice((-1, 0, 1, 1)), 0), size - 1)
            y = min(max(y + rng.choice((-1, 0, 1)), 0), size - 1)
            event = table.move_event((x, y))
            steps.append(measured(lambda event=event: (QApplication.sendEvent(viewport, event), settle(app))))
        QTest.keyClick(viewport, Qt.Key.Key_Escape)
        QTest.mouseRelease(viewport, left, none, table.point(start))
        settle(app)
    return presses, steps


PARTY_TABLES = ((300, 500, 0), (300, 500, 200), (300, 500, 2000))
PARTY_MOVES = 8


def party_moves(table: Table, profiled: bool) -> list[tuple[int, int, int, float]]:
    """A Party token moved back and forth, each move to both windows painted: (Python calls, GM pixels,
    players' pixels, CPU ms of this process) of each, the table's first move first. The calls are
    counted (``profiled``) or the CPU time taken (the profiler's own cost left out), not both."""
    from lnl_desktop.core.encounter import actions as act

    encounter = table.controller.encounter
    x, y = encounter.tokens["p1"].cell
    occupied = {t.cell for t in encounter.tokens.values()}
    there = next((c for c in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)) if c not in occupied), (x + 1, y))
    cells = [there, (x, y)]
    out = []
    for i in range(PARTY_MOVES):
        move = act.Move("p1", cells[i % 2], forced=True)

        def run(move: act.Move = move) -> None:
            table.controller.do(move)
            settle(table.app)

        if profiled:
            out.append((*measured(run), 0.0))
        else:
            painted["GM"] = painted["players"] = 0
            started = time.process_time()
            run()
            out.append((0, painted["GM"], painted["players"], (time.process_time() - started) * 1000))
        table.player.view.finish_animations()
        settle(table.app)
    return out


def main() -> int:
    from lnl_desktop.ui.map.view import MapView

    QApplication.instance() or QApplication(sys.argv[:1])
    load_now("numpy")
    count_paints(MapView, "GM")
    scratch = Path(tempfile.mkdtemp(prefix="lnl-counts-"))
    players_counted = False
    # --party-moves: the Party moves' rows only
    for size, tokens, segments, drawings in () if "--party-moves" in sys.argv else TABLES:
        encounter = big_maps.build(size=size, tokens=tokens, segments=segments)
        if drawings:
            encounter.drawings = drawings_around(encounter, drawings)
        table = Table(encounter, scratch)
        if not players_counted:  # the player view's map (its class, once)
            count_paints(type(table.player.view), "players")
            players_counted = True
        table.view.fit_map()
        table.warm()
        presses, steps = sample(table, size)
        table.close()

        def median(rows: list[tuple[int, int, int]], i: int) -> float:
            return statistics.median(row[i] for row in rows)

        print(
            f"{size}x{size}, {tokens} tokens, {segments:,} segments, {drawings} drawings: "
            f"a press and its first step {median(presses, 0):,.0f} Python calls, repainted "
            f"{median(presses, 1) / 1e3:,.0f} kpx (GM) and {median(presses, 2) / 1e3:,.0f} kpx (players); "
            f"a drag step {median(steps, 0):,.0f} calls, {median(steps, 1) / 1e3:,.0f} kpx and "
            f"{median(steps, 2) / 1e3:,.0f} kpx"
        )
    for size, tokens, segments in PARTY_TABLES:
        counted, timed = [], []
        for profiled, into in ((True, counted), (False, timed)):  # a table each: its first move is once
            table = Table(big_maps.build(size=size, tokens=tokens, segments=segments), scratch)
            if not players_counted:
                count_paints(type(table.player.view), "players")
                players_counted = True
            table.warm()
            into += party_moves(table, profiled)
            table.close()
        moves = [
            (calls, gm, players, ms) for (calls, gm, players, _), (_, _, _, ms) in zip(counted, timed, strict=True)
        ]
        first, rest = moves[0], moves[1:]
        print(
            f"{size}x{size}, {tokens} tokens, {segments:,} segments: the first Party move {first[0]:,} Python calls, "
            f"repainted {first[1] / 1e3:,.0f} kpx (GM) and {first[2] / 1e3:,.0f} kpx (players), CPU {first[3]:.1f} ms; "
            f"a Party move after it {statistics.median(m[0] for m in rest):,.0f} calls, "
            f"{statistics.median(m[1] for m in rest) / 1e3:,.0f} kpx and "
            f"{statistics.median(m[2] for m in rest) / 1e3:,.0f} kpx, "
            f"CPU median {statistics.median(m[3] for m in rest):.1f} ms, worst {max(m[3] for m in rest):.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
