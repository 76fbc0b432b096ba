#!/usr/bin/env python3
"""One entry point for working on the project from a fresh clone.

    python3 dev.py run [FILE]    start the app (on the built-in demo encounter without FILE)
    python3 dev.py test [ARGS]   ruff, the workflows' schema check, import-linter, then the whole test suite
                                 offscreen, one test after another, as CI runs it (ARGS go to pytest; it
                                 builds the wheel and runs it installed, offline)
    python3 dev.py quick [ARGS]  the inner loop: ruff, import-linter, then the suite without the tests marked
                                 slow (tests/conftest.py's SLOW), three at once (pytest-xdist); under
                                 3 minutes where `test` takes 12 or more
    python3 dev.py bench         the benchmarks, printing medians against their budgets
    python3 dev.py bench --against REV [bench_x ...]
                                 a revision's benchmarks and the checkout's side by side in one run,
                                 alternating (--rounds N), each median compared and printed against its
                                 budget on both sides, more than 5 % slower marked
    python3 dev.py schema        regenerate resources/schema/encounter.schema.json
    python3 dev.py screenshots   regenerate the README's pictures in docs/screenshots/

Each command first makes sure `.venv/` exists and holds the project with its test extras,
reinstalling only when pyproject.toml changed. Needs only Python 3.11+ on the PATH.
"""

from __future__ import annotations

import compileall
import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".lnl-stamp"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")

# Shared libraries Qt loads on Debian-like systems: for any window at all (also offscreen), and
# for the X11 ("xcb") platform a desktop session uses.
QT_SYSTEM_PACKAGES = ["libegl1", "libgl1", "libxkbcommon0", "libfontconfig1", "libdbus-1-3", "libglib2.0-0"]
XCB_PACKAGES = [
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-keysyms1",
    "libxcb-image0",
    "libxcb-render-util0",
    "libxcb-shape0",
    "libxcb-randr0",
    "libxcb-xinerama0",
    "libxcb-xkb1",
    "libxkbcommon-x11-0",
]


def say(message: str) -> None:
    print(f"[dev] {message}", flush=True)


def ensure_environment() -> None:
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if PYTHON.exists() and STAMP.exists() and STAMP.read_text().strip() == wanted:
        return
    if not PYTHON.exists():
        say("creating .venv")
        venv.EnvBuilder(with_pip=True).create(VENV)
    say("installing the project and its test tools into .venv (first run only)")
    subprocess.run([str(PYTHON), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    # compat mode puts the checkout on sys.path with a .pth line: no import hook to load at every start.
    install = ["install", "--quiet", "--config-settings", "editable_mode=compat", "-e", f"{ROOT}[test]"]
    subprocess.run([str(PYTHON), "-m", "pip", *install], check=True)
    ensure_qt_libraries()
    STAMP.write_text(wanted)


def ensure_qt_libraries() -> None:
    """Qt needs a few system libraries; on a bare Debian/Ubuntu machine install them if we may."""
    probe = subprocess.run(
        [str(PYTHON), "-c", "import PySide6.QtGui, PySide6.QtWidgets"], capture_output=True, text=True
    )
    if probe.returncode == 0:
        return
    if sys.platform.startswith("linux") and hasattr(os, "geteuid") and os.geteuid() == 0:
        say("Qt is missing system libraries; installing them with apt-get")
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", *QT_SYSTEM_PACKAGES], check=False)
        probe = subprocess.run([str(PYTHON), "-c", "import PySide6.QtWidgets"], capture_output=True, text=True)
        if probe.returncode == 0:
            return
    sys.exit(
        "Qt could not load:\n"
        + probe.stderr.strip().splitlines()[-1]
        + f"\nInstall these system packages and try again: {' '.join(QT_SYSTEM_PACKAGES)}"
    )


def missing_xcb_libraries() -> list[str]:
    """Libraries Qt's X11 platform plugin needs that this Linux machine lacks (ldd says 'not found')."""
    if not sys.platform.startswith("linux"):
        return []
    found = subprocess.run(
        [str(PYTHON), "-c", "import PySide6, pathlib; print(pathlib.Path(PySide6.__file__).parent)"],
        capture_output=True,
        text=True,
    )
    plugin = Path(found.stdout.strip()) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if found.returncode != 0 or not plugin.exists():
        return []
    missing: set[str] = set()
    for library in (plugin, plugin.parents[2] / "lib" / "libQt6XcbQpa.so.6"):
        if library.exists():
            ldd = subprocess.run(["ldd", str(library)], capture_output=True, text=True)
            missing |= {line.split()[0] for line in ldd.stdout.splitlines() if "not found" in line}
    known = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    if "libxcb-cursor.so.0" not in known:
        missing.add("libxcb-cursor.so.0")  # loaded at run time, so ldd does not list it
    return sorted(missing)


def ensure_desktop_libraries() -> None:
    """On an X11 desktop, make sure Qt's xcb plugin can load (root on Debian: install; else say what)."""
    if os.environ.get("QT_QPA_PLATFORM", "xcb") != "xcb" or not os.environ.get("DISPLAY"):
        return
    missing = missing_xcb_libraries()
    if not missing:
        return
    if hasattr(os, "geteuid") and os.geteuid() == 0 and Path("/usr/bin/apt-get").exists():
        say(f"Qt's X11 plugin needs {', '.join(missing)}; installing them with apt-get")
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", *XCB_PACKAGES], check=False)
        return
    say(f"Qt's X11 plugin needs {', '.join(missing)}. Install: sudo apt-get install {' '.join(XCB_PACKAGES)}")


def run(args: list[str]) -> int:
    ensure_desktop_libraries()
    # Bytecode as an installed copy has it: where PYTHONDONTWRITEBYTECODE is set, Python would
    # otherwise compile the whole program again at every start (a third of a second).
    compileall.compile_dir(ROOT / "lnl_desktop", quiet=1)
    return subprocess.call([str(PYTHON), "-m", "lnl_desktop", *args], cwd=ROOT)


# `lint-imports` as the venv's python runs it (the console script's path differs between Windows and the rest).
LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def ruff() -> int:
    say("ruff check")
    folders = ["lnl_desktop", "tests", "benchmarks", "dev.py"]
    return subprocess.call([str(PYTHON), "-m", "ruff", "check", *folders], cwd=ROOT)


def import_contracts() -> int:
    say("import-linter: the house's contracts (pyproject.toml, [tool.importlinter])")
    return subprocess.call([str(PYTHON), "-c", LINT_IMPORTS, "--no-cache"], cwd=ROOT)


def test_environment() -> dict[str, str]:
    return dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))


def test(args: list[str]) -> int:
    """Everything, one test after another: what CI runs (.ci/run)."""
    lint = ruff()
    if lint != 0:
        return lint
    say("check-jsonschema: .github/workflows/*.yml against the workflow schema")
    workflows = [str(path) for path in sorted((ROOT / ".github" / "workflows").glob("*.yml"))]
    schema = [str(PYTHON), "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", *workflows]
    checked = subprocess.call(schema, cwd=ROOT)
    if checked != 0:
        return checked
    contracts = import_contracts()
    if contracts != 0:
        return contracts
    say("pytest")
    return subprocess.call([str(PYTHON), "-m", "pytest", *args], cwd=ROOT, env=test_environment())


# Processes for the quick loop, chosen by measurement on a 2-core machine (shared, load about 4): -n 2
# took 293 s, -n 3 212 s. The window tests spend much of their time waiting (timers, Qt's event loop,
# child processes), so one more process than cores helps.
QUICK_WORKERS = 3


def quick(args: list[str]) -> int:
    """The inner loop: the same checks but the workflows' schema, and the tests not marked slow, in parallel."""
    for check in (ruff, import_contracts):
        status = check()
        if status != 0:
            return status
    parallel = ["-m", "not slow", "-n", str(QUICK_WORKERS), *args]
    say(f"pytest {' '.join(parallel)}")
    return subprocess.call([str(PYTHON), "-m", "pytest", *parallel], cwd=ROOT, env=test_environment())


def bench(args: list[str]) -> int:
    if args and args[0].startswith("--against"):
        # Before and after side by side in one run: a git revision against the checkout (benchmarks/side_by_side.py).
        return subprocess.call([str(PYTHON), str(ROOT / "benchmarks" / "side_by_side.py"), *args], cwd=ROOT)
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    status = 0
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        say(f"{script.name}")
        status |= subprocess.call([str(PYTHON), str(script), *args], cwd=ROOT, env=env)
    return status


def schema(args: list[str]) -> int:
    code = "from lnl_desktop.core.files.storage import write_schema; print(write_schema())"
    return subprocess.call([str(PYTHON), "-c", code], cwd=ROOT)


def screenshots(args: list[str]) -> int:
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    return subprocess.call([str(PYTHON), str(ROOT / "docs" / "make_screenshots.py"), *args], cwd=ROOT, env=env)


COMMANDS = {"run": run, "test": test, "quick": quick, "bench": bench, "schema": schema, "screenshots": screenshots}


def main() -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py itself may be started by an old python3
        print(f"Python 3.11 or newer is needed (this is {sys.version.split()[0]})")
        return 2
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        return 2
    ensure_environment()
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
