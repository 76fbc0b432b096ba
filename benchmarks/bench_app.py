"""Start-up benchmark: process start to a shown main window with the demo encounter, against a bare
PySide6 window measured in the same run.

Starts, in turn and several times each (offscreen): the app from source
(``python -m lnl_desktop --smoke-test``), the frozen bundle in dist/ when
``python3 packaging/build.py`` has made one, and a bare PySide6 window (one label). Each prints the
wall-clock moment its window was shown with its first events processed; the time from launching
the process to that moment is taken. The machine is noisy, so the runs alternate and the ratio of
the medians (app / bare window) is printed against the target of 2.5, for source and frozen, and
the frozen start against the source start (target 1.5x). Each program also prints the processor time
it had used when shown (its own work, which waits less on the other programs of a busy machine than the
wall clock): their ratio is printed beside. A third program reads the demo encounter as the app does
(its compiled form) and then shows the bare window: the share of the start that the encounter's models
take before any of the main window is built.

The sources are compiled to bytecode first, as an installed copy is: this environment may set
PYTHONDONTWRITEBYTECODE, and without bytecode every start would recompile the whole program. So are
the dataclasses' methods (lnl_desktop/class_code.py), which a first start writes at its exit.
"""

from __future__ import annotations

import compileall
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_bundle import bundle_program  # this folder: run as a script

RUNS = 9
RATIO_TARGET = 2.5
FROZEN_TARGET = 1.5  # the bundle's start against the start from source
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
print(f"processor time: {time.process_time()}")
made = [v for m in ("QtCore", "QtGui", "QtWidgets") for v in vars(sys.modules["PySide6." + m]).values()]
print(f"qt classes: {sum(isinstance(v, type) for v in made)}")
"""
# What no first window can do without: the demo encounter read into the rules core's models
# (pydantic, the L&L ruleset), then the same bare window. The main window's own cost is the rest.
ENCOUNTER_ONLY = """
import sys, time
from lnl_desktop.class_code import install
install()
from lnl_desktop.core.files.compiled import load_own
from lnl_desktop.paths import demo_encounter_path
encounter = load_own(demo_encounter_path())
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication(sys.argv)
label = QLabel(encounter.name)
label.show()
app.processEvents()
print(f"shown at: {time.time()}")
print(f"processor time: {time.process_time()}")
"""

# The same, with every Qt class the app's first window makes made too (PySide6 makes a class and its
# enums at its first use: the `Qt` namespace alone has 95 enums). The main window's own code is the rest.
WINDOW_CLASSES = ENCOUNTER_ONLY.replace(
    "app = QApplication(sys.argv)",
    """import importlib
for made in CLASSES:
    module, _, name = made.partition(".")
    getattr(importlib.import_module("PySide6." + module), name)
app = QApplication(sys.argv)""",
)


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


def processor_time(output: str) -> float:
    """The processor time a program printed it had used when its window was shown (nan: none printed)."""
    line = next((line for line in output.splitlines() if line.startswith("processor time:")), None)
    return float(line.split(":")[1]) if line else math.nan


def main() -> None:
    compileall.compile_dir(ROOT / "lnl_desktop", quiet=1)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", LNL_REPORT_MODULES="1")
    # Like the bytecode: the dataclasses' methods compiled once, as a first start writes them.
    subprocess.run([sys.executable, "-m", "lnl_desktop", "keep-class-code"], env=env, check=True, capture_output=True)
    programs = {"from source": [sys.executable, "-m", "lnl_desktop", "--smoke-test"]}
    first = subprocess.run(programs["from source"], env=env, check=True, capture_output=True, text=True).stdout
    classes = next(line for line in first.splitlines() if line.startswith("qt classes:")).split(":")[1].split()
    frozen = frozen_program()
    if frozen is not None:
        programs["frozen"] = [str(frozen), "--smoke-test"]
    names = [*programs, "bare", "encounter only", "and the Qt classes"]
    samples: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    outputs: dict[str, str] = {}
    bare_programs = {
        "bare": [sys.executable, "-c", BARE],
        "encounter only": [sys.executable, "-c", ENCOUNTER_ONLY],
        "and the Qt classes": [sys.executable, "-c", f"CLASSES = {classes!r}\n{WINDOW_CLASSES}"],
    }
    for _ in range(RUNS):  # alternating, so all see the same noise
        for name, command in {**programs, **bare_programs}.items():
            seconds, outputs[name] = shown_after(command, env)
            samples[name].append(seconds)
            cpu[name].append(processor_time(outputs[name]))
    bare, bare_cpu = statistics.median(samples["bare"]), statistics.median(cpu["bare"])
    print(f"a bare PySide6 window (one label): median {bare:.3f} s, processor time {bare_cpu:.3f} s")
    print(f"  runs: {', '.join(f'{s:.3f}' for s in samples['bare'])} s")
    for name in programs:
        median, median_cpu = statistics.median(samples[name]), statistics.median(cpu[name])
        ratio = median / bare
        verdict = "within target" if ratio <= RATIO_TARGET else "OVER TARGET"
        print(f"start to a shown window with the demo encounter, {name}: median {median:.3f} s")
        print(f"  runs: {', '.join(f'{s:.3f}' for s in samples[name])} s")
        print(f"  start-up ratio (app / bare window, {name}): {ratio:.2f}x (target {RATIO_TARGET:.1f}x) {verdict}")
        times = f"{median_cpu:.3f} s, {median_cpu / bare_cpu:.2f}x the bare window's"
        print(f"  processor time to the shown window: {times}")
        loaded = "pyqtgraph imported" if "pyqtgraph: yes" in outputs[name] else "pyqtgraph not imported"
        print(f"  {loaded} on the start path")
        made = next((line for line in outputs[name].splitlines() if line.startswith("class code: ")), None)
        if made:
            print(f"  the dataclasses' methods ({made[len('class code: ') :]})")
    if frozen is not None:
        ratio = statistics.median(samples["frozen"]) / statistics.median(samples["from source"])
        verdict = "within target" if ratio <= FROZEN_TARGET else "OVER TARGET"
        against = f"{ratio:.2f}x (target {FROZEN_TARGET}x) {verdict}"
        print(f"the frozen bundle's start against the one from source: {against}")
    floor = statistics.median(samples["encounter only"])
    print(
        f"the demo encounter read into the rules core, then the bare window (no main window): median {floor:.3f} s, "
        f"{floor / bare:.2f}x the bare window"
    )
    with_classes = statistics.median(samples["and the Qt classes"])
    print(
        f"the same with the {len(classes)} Qt classes the app's first window makes (the bare window makes "
        f"{outputs['bare'].split('qt classes:')[1].split()[0]}): "
        f"median {with_classes:.3f} s, {with_classes / bare:.2f}x the bare window"
    )
    if frozen is None:
        print("no frozen bundle in dist/: build one with `python3 packaging/build.py` to measure it too")


if __name__ == "__main__":
    main()
