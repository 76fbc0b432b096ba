"""The frozen bundle: start to a shown window, and its size, against the budgets (1.5 s, 150 MB).

Runs the one-folder bundle that ``python3 packaging/build.py`` left in dist/ with
``--smoke-test`` several times (offscreen), and prints the median wall time from launching the
process to the window shown with its first events processed (the ``shown at:`` line the app
prints with ``LNL_REPORT_MODULES=1``, as bench_app.py does from source), then the bundle's size
on disk (and the tarball's). Without a bundle it says how to build one; like every benchmark it
prints numbers and never fails.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

RUNS = 7
ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("lnl_bundle_config", ROOT / "packaging" / "bundle_config.py")
config = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(config)  # type: ignore[union-attr]


def bundle_program() -> tuple[Path, Path]:
    """(the bundle's folder, its program) in dist/."""
    if sys.platform == "darwin":
        app = config.DIST / f"{config.APP_NAME}.app"
        return app, app / "Contents" / "MacOS" / config.EXE_NAME
    folder = config.DIST / config.EXE_NAME
    return folder, folder / (f"{config.EXE_NAME}.exe" if os.name == "nt" else config.EXE_NAME)


def size_on_disk(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def main() -> None:
    folder, program = bundle_program()
    if not program.exists():
        print(f"no frozen bundle at {program.relative_to(ROOT)}: build it with `python3 packaging/build.py`")
        return
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", LNL_REPORT_MODULES="1")
    samples = []
    for _ in range(RUNS):
        launched = time.time()
        result = subprocess.run([str(program), "--smoke-test"], capture_output=True, text=True, env=env, check=True)
        shown = float(next(line for line in result.stdout.splitlines() if line.startswith("shown at:")).split(":")[1])
        samples.append(shown - launched)
    median = statistics.median(samples)
    verdict = "within budget" if median <= config.START_BUDGET_S else "OVER BUDGET"
    print(
        f"frozen bundle, start to a shown window (demo encounter, offscreen): median {median:.2f} s "
        f"(budget {config.START_BUDGET_S} s) {verdict}"
    )
    print(f"  runs: {', '.join(f'{s:.2f}' for s in samples)} s (the first may read the bundle from a cold disk cache)")
    size = size_on_disk(folder)
    verdict = "within budget" if size < config.SIZE_BUDGET_MB * 1e6 else "OVER BUDGET"
    print(
        f"frozen bundle size: {size / 1e6:.1f} MB ({size / 2**20:.1f} MiB) in {folder.relative_to(ROOT)} "
        f"(budget {config.SIZE_BUDGET_MB} MB) {verdict}"
    )
    tarball = config.DIST / config.tarball_name(config.read_version())
    if tarball.exists():
        print(f"  download: {tarball.name} {tarball.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
