#!/usr/bin/env python3
"""Build the frozen one-folder bundle (and on Linux the tarball) from a clean virtual environment.

    python3 packaging/build.py                  venv, bundle in dist/lnl-desktop/, and on Linux
                                                dist/lnl-desktop-VERSION-linux-x86_64.tar.gz
    python3 packaging/build.py --print-version  the version every artifact carries

Steps: a fresh venv in build/bundle-venv; a copy of the project's sources (pyproject.toml,
README.md, lnl_desktop/) installed into it non-editable, with PyInstaller from
packaging/requirements-build.txt; the Windows version file generated from
``lnl_desktop.__version__``; PyInstaller run on packaging/lnl-desktop.spec (one folder; on macOS also
the .app); on Linux the tarball with the .desktop file, the icons and install.sh. Needs only
Python 3.11+ and the package index; everything it writes is under build/ and dist/.
The Windows installer (packaging/windows/lnl-desktop.iss) and the macOS disk image
(packaging/macos/make_dmg.sh) are made from its output by the installers workflow.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import time
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("lnl_bundle_config", HERE / "bundle_config.py")
config = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(config)  # type: ignore[union-attr]

ROOT: Path = config.ROOT
SPEC = HERE / "lnl-desktop.spec"
SOURCES = config.BUILD / "bundle-src"
WORK = config.BUILD / "pyinstaller"
VERSION_FILE = config.BUILD / "windows-version-info.txt"


def say(message: str) -> None:
    print(f"[build] {message}", flush=True)


def venv_bin(name: str) -> Path:
    folder = config.BUILD_VENV / ("Scripts" if os.name == "nt" else "bin")
    return folder / (f"{name}.exe" if os.name == "nt" else name)


def fresh_venv() -> None:
    say(f"creating a clean venv in {config.BUILD_VENV.relative_to(ROOT)}")
    if config.BUILD_VENV.exists():
        shutil.rmtree(config.BUILD_VENV)
    venv.EnvBuilder(with_pip=True, clear=True).create(config.BUILD_VENV)


def copy_sources() -> Path:
    """The files the project's wheel is built from, copied so setuptools leaves the checkout alone."""
    if SOURCES.exists():
        shutil.rmtree(SOURCES)
    SOURCES.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, SOURCES / name)
    shutil.copytree(
        ROOT / "lnl_desktop", SOURCES / "lnl_desktop", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    return SOURCES


def install(sources: Path) -> None:
    say("installing the project (not editable) and PyInstaller into the build venv")
    pip = [str(venv_bin("python")), "-m", "pip", "--disable-pip-version-check", "--no-input", "install", "--quiet"]
    subprocess.run([*pip, str(sources), "-r", str(HERE / "requirements-build.txt")], check=True)


def run_pyinstaller(version: str) -> Path:
    VERSION_FILE.write_text(config.windows_version_info(version), encoding="utf-8")
    for stale in (WORK, config.DIST / config.EXE_NAME, config.DIST / f"{config.APP_NAME}.app"):
        if stale.exists():
            shutil.rmtree(stale)
    say("running PyInstaller on packaging/lnl-desktop.spec")
    env = dict(os.environ, LNL_VERSION_INFO_FILE=str(VERSION_FILE))
    env.pop("PYTHONPATH", None)  # the bundle is made from the build venv only
    command = [
        str(venv_bin("pyinstaller")),
        "--noconfirm",
        "--log-level=WARN",
        f"--distpath={config.DIST}",
        f"--workpath={WORK}",
        str(SPEC),
    ]
    # Not from the checkout's root: nothing may be imported from the working tree, only from the venv.
    subprocess.run(command, check=True, cwd=config.BUILD, env=env)
    bundle = config.DIST / config.EXE_NAME
    if not (bundle / executable_name()).exists():
        raise SystemExit(f"PyInstaller finished but {bundle / executable_name()} is missing")
    return bundle


def executable_name() -> str:
    return f"{config.EXE_NAME}.exe" if os.name == "nt" else config.EXE_NAME


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def render_desktop_file(version: str) -> str:
    template = (HERE / "linux" / f"{config.EXE_NAME}.desktop").read_text(encoding="utf-8")
    return template.replace("@VERSION@", version)


def make_tarball(bundle: Path, version: str) -> Path:
    """dist/lnl-desktop-VERSION-linux-ARCH.tar.gz: the bundle, the .desktop file, icons, install.sh."""
    top = f"{config.EXE_NAME}-{version}"
    target = config.DIST / config.tarball_name(version)
    say(f"writing {target.relative_to(ROOT)}")
    staging = config.BUILD / "tarball"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    desktop = staging / f"{config.EXE_NAME}.desktop"
    desktop.write_text(render_desktop_file(version), encoding="utf-8")
    shutil.copy2(HERE / "linux" / "install.sh", staging / "install.sh")
    (staging / "install.sh").chmod(0o755)
    shutil.copy2(config.ICONS / f"{config.EXE_NAME}-256.png", staging / f"{config.EXE_NAME}.png")
    for size in config.ICON_SIZES:
        if size <= 512:  # the hicolor theme stops at 512
            folder = staging / "share" / "icons" / "hicolor" / f"{size}x{size}" / "apps"
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copy2(config.ICONS / f"{config.EXE_NAME}-{size}.png", folder / f"{config.EXE_NAME}.png")
    with tarfile.open(target, "w:gz", compresslevel=6) as tar:
        for child in sorted(bundle.iterdir()):
            tar.add(child, arcname=f"{top}/{child.name}")
        for child in sorted(staging.iterdir()):
            tar.add(child, arcname=f"{top}/{child.name}")
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--print-version", action="store_true", help="print the version and stop")
    args = parser.parse_args()
    version = config.read_version()
    if args.print_version:
        print(version)
        return 0
    if sys.version_info < (3, 11):  # noqa: UP036 - build.py may be started by an old python3
        raise SystemExit(f"Python 3.11 or newer is needed (this is {sys.version.split()[0]})")
    started = time.monotonic()
    config.BUILD.mkdir(exist_ok=True)
    config.DIST.mkdir(exist_ok=True)
    fresh_venv()
    install(copy_sources())
    bundle = run_pyinstaller(version)
    size_mb = folder_size(bundle) / 1e6
    verdict = "within budget" if size_mb < config.SIZE_BUDGET_MB else "OVER BUDGET"
    say(f"bundle: {bundle.relative_to(ROOT)} ({size_mb:.1f} MB, budget {config.SIZE_BUDGET_MB} MB: {verdict})")
    if sys.platform == "darwin":
        say(f"app: {(config.DIST / (config.APP_NAME + '.app')).relative_to(ROOT)}")
    if sys.platform.startswith("linux"):
        tarball = make_tarball(bundle, version)
        say(f"tarball: {tarball.relative_to(ROOT)} ({tarball.stat().st_size / 1e6:.1f} MB)")
    say(f"version {version}, done in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
