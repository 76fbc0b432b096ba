"""Start-up benchmark: process start to a shown main window with the demo encounter, against a bare
PySide6 window measured in the same run.

Starts, in turn and several times each (offscreen): the app from source
(``python -m lnl_desktop --smoke-test``), the frozen bundle in dist/ when
``python3 packaging/build.py`` has made one, and a bare PySide6 window (one label). Each prints the
wall-clock moment its window was shown with its first events processed; the time from launching
the process to that moment is taken. The machine is noisy, so the runs alternate and the ratio of
the medians (app / bare window) is printed against the target of 2.0, for source and frozen.
A third program reads the demo encounter into the rules core and then shows the bare window: the
share of the start that the encounter's models take before any of the main window is built.

The sources are compiled to bytecode first, as an installed copy is: this environment may set
PYTHONDONTWRITEBYTECODE, and without bytecode every start would recompile the whole program.
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_bundle import bundle_program  # this folder: run as a script

RUNS = 9
RATIO_TARGET = 2.0
ROOT = Path(__file__).resolve().parent.parent
# The floor: the least a PySide6 program does to show a window.
BARE = """
import sys, time
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication(sys.argv)
label = QLabel("Laurels & Loot")
label.show()
app.processEvents()
print(f"shown at: {time.time()}")
"""
# What no first window can do without: the demo encounter read into the rules core's models
# (pydantic, the L&L ruleset), then the same bare window. The main window's own cost is the rest.
ENCOUNTER_ONLY = """
import sys, time
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path
encounter = storage.load(demo_encounter_path())
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication(sys.argv)
label = QLabel(encounter.name)
label.show()
app.processEvents()
print(f"shown at: {time.time()}")
"""


def frozen_program() -> Path | None:
    """The bundle's program in dist/, if one was built."""
    program = bundle_program()[1]
    return program if program.exists() else None


def shown_after(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Seconds from launching ``command`` to the "shown at:" time it prints, and its output."""
    launched = time.time()
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    shown = float(next(line for line in result.stdout.splitlines() if line.startswith("shown at:")).split(":")[1])
    return shown - launched, result.stdout


def main() -> None:
    compileall.compile_dir(ROOT / "lnl_desktop", quiet=1)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", LNL_REPORT_MODULES="1")
    programs = {"from source": [sys.executable, "-m", "lnl_desktop", "--smoke-test"]}
    frozen = frozen_program()
    if frozen is not None:
        programs["frozen"] = [str(frozen), "--smoke-test"]
    samples: dict[str, list[float]] = {name: [] for name in [*programs, "bare", "encounter only"]}
    outputs: dict[str, str] = {}
    for _ in range(RUNS):  # alternating, so all see the same noise
        for name, command in programs.items():
            seconds, outputs[name] = shown_after(command, env)
            samples[name].append(seconds)
        samples["bare"].append(shown_after([sys.executable, "-c", BARE], env)[0])
        samples["encounter only"].append(shown_after([sys.executable, "-c", ENCOUNTER_ONLY], env)[0])
    bare = statistics.median(samples["bare"])
    print(f"a bare PySide6 window (one label): median {bare:.3f} s")
    print(f"  runs: {', '.join(f'{s:.3f}' for s in samples['bare'])} s")
    for name in programs:
        median = statistics.median(samples[name])
        ratio = median / bare
        verdict = "within target" if ratio <= RATIO_TARGET else "OVER TARGET"
        print(f"start to a shown window with the demo encounter, {name}: median {median:.3f} s")
        print(f"  runs: {', '.join(f'{s:.3f}' for s in samples[name])} s")
        print(f"  start-up ratio (app / bare window, {name}): {ratio:.2f}x (target {RATIO_TARGET:.1f}x) {verdict}")
        loaded = "pyqtgraph imported" if "pyqtgraph: yes" in outputs[name] else "pyqtgraph not imported"
        print(f"  {loaded} on the start path")
    floor = statistics.median(samples["encounter only"])
    print(
        f"the demo encounter read into the rules core, then the bare window (no main window): median {floor:.3f} s, "
        f"{floor / bare:.2f}x the bare window"
    )
    if frozen is None:
        print("no frozen bundle in dist/: build one with `python3 packaging/build.py` to measure it too")


if __name__ == "__main__":
    main()
