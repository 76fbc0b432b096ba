"""Dice roller benchmark: the worst roll the notation accepts, against the 100 ms a roll may block
the window (issue 38), and what its log entry weighs.

Run with ``python3 dev.py bench`` (or ``python benchmarks/bench_dice.py``; offscreen for the
window). Never part of the test suite: a slow machine must not fail a test run.

The worst accepted roll asks for the most dice one roll may (ten terms of ``100d2!``: 1,000 d2 that
explode on a 2) with faces that explode until the roll has rolled the most dice it may
(``MOST_ROLLED``, explosions included); a roll of random faces rolls about half as many. Timed:

- the rules core: parse, roll, the log's event, the log appended, undo's record (``Engine.apply``);
- the Dice dock: the same roll typed and rolled in the main window, until its events are drawn;
- the file: the encounter saved with one such roll in its log, and the event's bytes.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from timing import median_seconds, report

from lnl_desktop.core.dice.notation import MOST_DICE_IN_ROLL, MOST_FACES_SHOWN, MOST_ROLLED, parse
from lnl_desktop.core.dice.rolls import RandomDice, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import DiceRolled
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path

BUDGET = 0.100  # a roll may block the window this long
WORST = "+".join(["100d2!"] * (MOST_DICE_IN_ROLL // 100))


def worst_faces() -> list[int]:
    """Every die a 2 until the roll has rolled the most it may, then the last layer of 1s."""
    return [2] * (MOST_ROLLED - MOST_DICE_IN_ROLL) + [1] * MOST_DICE_IN_ROLL


def bench_core() -> None:
    assert sum(t.count for t in parse(WORST).terms) == MOST_DICE_IN_ROLL
    engine = Engine(storage.load(demo_encounter_path()))

    def worst() -> None:
        engine.apply(act.RollDice(WORST), ScriptedDice(worst_faces()))

    def random_faces() -> None:
        engine.apply(act.RollDice(WORST), RandomDice(5))

    report(f"{WORST[:13]}… rolled, logged, described ({MOST_ROLLED:,} dice)", median_seconds(worst, 15), BUDGET, "ms")
    report("the same with random faces (about 2,000 dice)", median_seconds(random_faces, 15), BUDGET, "ms")

    (event,) = engine.apply(act.RollDice(WORST), ScriptedDice(worst_faces()))
    assert isinstance(event, DiceRolled)
    size = len(event.model_dump_json().encode())
    faces = sum(len(t.dice) for t in event.terms)
    print(f"its log entry: {size:,} bytes ({faces} faces kept of {MOST_ROLLED:,}, at most {MOST_FACES_SHOWN})")

    one = Engine(storage.load(demo_encounter_path()))
    bare = Path(tempfile.mkdtemp()) / "bare.lnl"
    storage.save(one.encounter, bare)
    one.apply(act.RollDice(WORST), ScriptedDice(worst_faces()))
    path = bare.with_name("rolled.lnl")
    seconds = median_seconds(lambda: storage.save(one.encounter, path), 9)
    grown = path.stat().st_size - bare.stat().st_size
    print(f"the demo encounter saved with one such roll: median {seconds * 1e3:.1f} ms ({grown:+,} bytes for the roll)")


def bench_window() -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from lnl_desktop.ui.window.main_window import MainWindow
    from lnl_desktop.ui.window.recovery import RecoveryStore

    app = QApplication.instance() or QApplication(sys.argv)
    folder = Path(tempfile.mkdtemp())
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(
        storage.load(demo_encounter_path()), settings=settings, recovery=RecoveryStore(folder / "recovery")
    )
    window.show()
    window.docks["Dice"].show()
    window.docks["Dice"].raise_()
    app.processEvents()
    panel = window.dice_panel
    panel.field.setText(WORST)

    samples = []
    for _ in range(9):
        window.controller.engine.dice = ScriptedDice(worst_faces())
        start = time.perf_counter()
        assert panel.roll() is not None
        app.processEvents()
        samples.append(time.perf_counter() - start)
    samples.sort()
    report("the same typed in the Dice dock, until drawn", samples[len(samples) // 2], BUDGET, "ms")
    window.close()
    window.deleteLater()
    app.processEvents()


def main() -> None:
    bench_core()
    if os.environ.get("QT_QPA_PLATFORM") or os.environ.get("DISPLAY") or sys.platform != "linux":
        bench_window()
    else:
        print("the Dice dock: skipped (no display; QT_QPA_PLATFORM=offscreen runs it)")


if __name__ == "__main__":
    main()
