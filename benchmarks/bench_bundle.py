"""The frozen bundle's size against its budget (110 MB), and the tarball's, what a user downloads.

Measures the one-folder bundle that ``python3 packaging/build.py`` left in dist/: the sum of its
files on disk against bundle_config.SIZE_BUDGET_MB, and the tarball on a line of its own. Its
start-up is measured by bench_app.py, alternating with the app from source and a bare PySide6
window. Without a bundle it says how to build one; like every benchmark it prints numbers and
never fails.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

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
    size = size_on_disk(folder)
    verdict = "within budget" if size < config.SIZE_BUDGET_MB * 1e6 else "OVER BUDGET"
    print(
        f"frozen bundle size: {size / 1e6:.1f} MB ({size / 2**20:.1f} MiB) in {folder.relative_to(ROOT)} "
        f"(budget {config.SIZE_BUDGET_MB} MB) {verdict}"
    )
    tarball = config.DIST / config.tarball_name(config.read_version())
    if tarball.exists():
        packed = tarball.stat().st_size
        print(f"tarball size: {packed / 1e6:.1f} MB ({packed / 2**20:.1f} MiB) in {tarball.relative_to(ROOT)}")
    else:
        print(f"tarball size: no {tarball.name} in dist/ (build.py writes it on Linux)")


if __name__ == "__main__":
    main()
