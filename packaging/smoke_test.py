#!/usr/bin/env python3
"""Smoke-test a frozen Laurels & Loot Desktop: as a user would get it, offline, with no Python.

    python3 packaging/smoke_test.py [TARGET]

TARGET is what packaging/build.py (or an installer) produced: the Linux tarball
(dist/lnl-desktop-VERSION-linux-ARCH.tar.gz, the default on Linux), a one-folder bundle
(dist/lnl-desktop, the default elsewhere), a macOS .app, or the program itself (e.g. where the
Windows installer put lnl-desktop.exe).

What it checks:
1. the package: a tarball unpacks to lnl-desktop-VERSION/ with the program, the .desktop file
   (with this version) and icons, and its install.sh installs a menu entry into a scratch home;
   a .app's Info.plist carries this version;
2. the bundle's contents: every resource, the Qt platform and image plugins it needs, and none of
   what was meant to stay out (other Qt bindings, translations, QML, WebEngine...); its size;
3. ``lnl-desktop --smoke-test`` (offscreen: start, load the demo encounter, render, exit 0);
4. the bundle's self check (packaging/bundle_self_check.py: the forecast chart, numpy in movement,
   sight and dice, JPEG, icons, ICU through Qt), which reaches what start-up does not.

On Linux 3 and 4 run with no network and no Python: in new network and mount namespaces
(``unshare``) where only a down loopback exists and the Python installations, their standard
libraries and this repository are covered by empty folders. Where unshare is not allowed (and on
macOS and Windows) the runs get an environment without proxies or Python variables, and the
output says the network was not cut. Exit status 0 only if everything passed.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import plistlib
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("lnl_bundle_config", HERE / "bundle_config.py")
config = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(config)  # type: ignore[union-attr]

IS_LINUX, IS_MAC, IS_WINDOWS = sys.platform.startswith("linux"), sys.platform == "darwin", sys.platform == "win32"
EXE = f"{config.EXE_NAME}.exe" if IS_WINDOWS else config.EXE_NAME
PLATFORM_PLUGINS = {"linux": ("qoffscreen", "qxcb", "qwayland"), "darwin": ("qoffscreen", "qcocoa")}.get(
    "linux" if IS_LINUX else sys.platform, ("qoffscreen", "qwindows")
)
# Library names that must not be in the bundle, whatever the OS's naming (libQt6Qml.so.6,
# Qt6Qml.dll, QtQml.framework).
FORBIDDEN_LIBRARIES = (
    "Qml",
    "Quick",
    "WebEngine",
    "Multimedia",
    "3D",
    "Pdf",
    "Network",
    "Sql",
    "Designer",
    "OpenGLWidgets",
)
# numpy's OpenBLAS and its Fortran runtime, which the Linux bundle's numpy (built without BLAS) does not need.
OPENBLAS = ("libscipy_openblas", "libopenblas", "libgfortran", "libquadmath")


class Report:
    def __init__(self) -> None:
        self.failures: list[str] = []
        self.count = 0

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        self.count += 1
        print(f"  {'ok ' if ok else 'FAILED'} {what}" + (f": {detail}" if detail else ""), flush=True)
        if not ok:
            self.failures.append(what)
        return ok


def default_target(version: str) -> Path:
    if IS_LINUX and (config.DIST / config.tarball_name(version)).exists():
        return config.DIST / config.tarball_name(version)
    if IS_MAC:
        return config.DIST / f"{config.APP_NAME}.app"
    return config.DIST / config.EXE_NAME


def unpack_tarball(tarball: Path, into: Path, version: str, report: Report) -> Path:
    with tarfile.open(tarball) as tar:
        try:
            tar.extractall(into, filter="tar")  # keeps the program's mode and the bundle's links
        except TypeError:  # Python before 3.11.4: no filters, same behaviour
            tar.extractall(into)
    top = into / f"{config.EXE_NAME}-{version}"
    report.check(top.is_dir(), f"tarball unpacks to {top.name}/")
    report.check(os.access(top / EXE, os.X_OK), "tarball holds the program")
    desktop = top / f"{config.EXE_NAME}.desktop"
    text = desktop.read_text(encoding="utf-8") if desktop.exists() else ""
    report.check(f"X-AppVersion={version}" in text and "@VERSION@" not in text, ".desktop file carries the version")
    sizes = [s for s in config.ICON_SIZES if s <= 512]
    icons = [top / "share/icons/hicolor" / f"{s}x{s}/apps/{config.EXE_NAME}.png" for s in sizes]
    report.check(all(p.exists() for p in icons) and (top / f"{config.EXE_NAME}.png").exists(), "icons for the menu")
    check_install_script(top, into / "home", report)
    return top


def check_install_script(top: Path, home: Path, report: Report) -> None:
    """install.sh into a scratch home: menu entry with the program's full path, icons, command."""
    home.mkdir()
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    result = subprocess.run(["sh", str(top / "install.sh")], capture_output=True, text=True, env=env)
    entry = home / ".local/share/applications" / f"{config.EXE_NAME}.desktop"
    text = entry.read_text(encoding="utf-8") if entry.exists() else ""
    ok = result.returncode == 0 and f'Exec="{top / EXE}" %f' in text
    ok = ok and (home / ".local/share/icons/hicolor/256x256/apps" / f"{config.EXE_NAME}.png").exists()
    report.check(ok, "install.sh puts it in the applications menu", result.stderr.strip())
    validator = shutil.which("desktop-file-validate")
    if validator and entry.exists():
        valid = subprocess.run([validator, str(entry)], capture_output=True, text=True)
        report.check(valid.returncode == 0 and not valid.stdout.strip(), "desktop-file-validate", valid.stdout.strip())
    removed = subprocess.run(["sh", str(top / "install.sh"), "--uninstall"], capture_output=True, text=True, env=env)
    report.check(removed.returncode == 0 and not entry.exists(), "install.sh --uninstall takes it away again")


def locate(target: Path) -> tuple[Path, Path]:
    """(the program, the bundle's root folder) for a bundle folder, a .app or the program."""
    if target.suffix == ".app":
        return target / "Contents" / "MacOS" / config.EXE_NAME, target
    if target.is_dir():
        return target / EXE, target
    return target, target.parent


def find_files(root: Path, name: str) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        found += [Path(folder) / f for f in files + dirs if f == name]
    return found


def check_contents(root: Path, version: str, report: Report) -> None:
    encounters = find_files(root, "hill-giant.lnl")
    report.check(bool(encounters), "resources/ is in the bundle")
    if encounters:
        resources = encounters[0].parent.parent
        needed = [
            "bestiary.json",
            "bestiary-classic.json",
            "bestiary-osr.json",
            "encounters/hill-giant-classic.lnl",
            "encounters/goblin-ambush-osr.lnl",
            "bestiary-d10.json",
            "encounters/bandit-mill-d10.lnl",
            "sessions/lnl_old_tower/session.json",
            "sessions/lnl_old_tower/party.lnlparty",
            "sessions/d10_mill_road/02-troll-bridge.lnl",
        ]
        needed += ["schema/encounter.schema.json", "icons/lnl-desktop.ico", "icons/lnl-desktop.icns"]
        needed += [f"icons/lnl-desktop-{size}.png" for size in config.ICON_SIZES]
        missing = [part for part in needed if not (resources / part).is_file()]
        report.check(not missing, "every resource file", ", ".join(missing))
    names = {Path(folder).name + "/" + f for folder, _, files in os.walk(root) for f in files}
    plugins = {n.split("/")[1].split(".")[0].removeprefix("lib") for n in names if n.startswith("platforms/")}
    report.check(set(PLATFORM_PLUGINS) <= plugins, "Qt platform plugins", ", ".join(sorted(plugins)))
    images = {n for n in names if n.startswith("imageformats/")}
    report.check(any("qjpeg" in n for n in images), "JPEG image plugin", ", ".join(sorted(images)))
    folders = {Path(folder).name for folder, _, _ in os.walk(root)}
    bindings = sorted(folders & {"PyQt5", "PyQt6", "PySide2"})
    report.check(not bindings, "no other Qt binding", ", ".join(bindings))
    unwanted = sorted(n for n in names if n.endswith(".qm") or "/qml" in n.lower())
    report.check(not unwanted, "no Qt translations or QML", ", ".join(unwanted[:5]))
    libraries = {config.qt_library(n) or config.qt_library(n.split("/")[-1]) for n in names} - {None}
    libraries |= {f[2:].removesuffix(".framework") for f in folders if f.startswith("Qt") and f.endswith(".framework")}
    extra = sorted(lib for lib in libraries if lib and lib.startswith(FORBIDDEN_LIBRARIES))
    report.check(not extra, "no unused Qt libraries (QML, Quick, WebEngine, Network...)", ", ".join(extra))
    modules = [f"PySide6.{name}" for name in config.QT_MODULES_LEFT_OUT]
    left_out = config.QT_MODULES_LEFT_OUT
    gl = sorted(n for n in names if n.startswith("PySide6/") and n.split("/")[1].split(".")[0] in left_out)
    report.check(not gl, f"no {' or '.join(modules)} (pyqtgraph gets stand-ins)", ", ".join(gl))
    numpy_metadata = [p for p in root.rglob("numpy-*.dist-info") if p.is_dir()]
    licences = [f for folder in numpy_metadata for f in folder.rglob("LICENSE*")]
    where = f"{len(licences)} in {numpy_metadata[0].name}" if licences else ""
    report.check(bool(licences), "numpy's licence texts", where)
    if IS_LINUX:  # a note, not a failure: build.py falls back on numpy's wheel if its source build fails
        blas = sorted(n.split("/")[-1] for n in names if n.split("/")[-1].startswith(OPENBLAS))
        found = f"OpenBLAS is in the bundle: {', '.join(blas)}" if blas else "no OpenBLAS (numpy built without it)"
        print(f"  note  {found}")
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    verdict = "within" if size < config.SIZE_BUDGET_MB * 1e6 else "OVER"
    print(f"  size  {size / 1e6:.1f} MB ({size / 2**20:.1f} MiB), {verdict} the {config.SIZE_BUDGET_MB} MB budget")
    if root.suffix == ".app":
        with (root / "Contents" / "Info.plist").open("rb") as handle:
            info = plistlib.load(handle)
        ok = info.get("CFBundleShortVersionString") == version and info.get("CFBundleVersion") == version
        report.check(ok, "Info.plist carries the version", f"{info.get('CFBundleShortVersionString')}")


def hidden_folders(bundle_root: Path) -> list[str]:
    """What to cover inside the namespace: every Python installation we can see, and the repository."""
    folders = {sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")}
    for prefix in {sys.base_prefix, sys.prefix, str(Path(sys.executable).resolve().parent.parent)}:
        if prefix not in ("/", "/usr", "/usr/local"):
            folders.add(prefix)
    folders |= set(glob.glob("/usr/lib/python3*")) | set(glob.glob("/usr/local/lib/python3*"))
    if not str(bundle_root.resolve()).startswith(str(config.ROOT) + os.sep):
        folders.add(str(config.ROOT))
    folders = {f for f in folders if f and Path(f).is_dir()}
    # Covering a folder also covers what is inside it: keep only the outermost ones.
    return sorted(f for f in folders if not any(f != g and f.startswith(g + os.sep) for g in folders))


def isolation(bundle_root: Path) -> tuple[list[str], str]:
    """A command prefix that runs a program with no network and no Python, and a note saying so."""
    if not IS_LINUX or not shutil.which("unshare"):
        return [], "network NOT cut (no unshare here): proxies and Python variables removed"
    for flags in (["--net", "--mount"], ["--map-root-user", "--net", "--mount"]):
        if subprocess.run(["unshare", *flags, "true"], capture_output=True).returncode == 0:
            hidden = hidden_folders(bundle_root)
            script = 'set -e; while [ "$1" != -- ]; do mount -t tmpfs lnl-hidden "$1"; shift; done; shift; exec "$@"'
            prefix = ["unshare", *flags, "sh", "-c", script, "sh", *hidden, "--"]
            note = f"no network (unshare {' '.join(flags)}); hidden: {', '.join(hidden)}"
            return prefix, note
    return [], "network NOT cut (unshare not permitted here): proxies and Python variables removed"


def clean_environment(home: Path) -> dict[str, str]:
    dropped = ("PYTHON", "VIRTUAL_ENV", "CONDA", "LD_LIBRARY_PATH", "LD_PRELOAD", "QT_PLUGIN_PATH", "QML")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.upper().startswith(dropped) and not key.lower().endswith("_proxy") and key.lower() != "no_proxy"
    }
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(home), LNL_REPORT_MODULES="1")
    if IS_WINDOWS:
        env.update(USERPROFILE=str(home), APPDATA=str(home / "AppData"), LOCALAPPDATA=str(home / "Local"))
    return env


def run_program(prefix: list[str], exe: Path, env: dict[str, str], extra_env: dict[str, str], args: list[str]):
    return subprocess.run(
        [*prefix, str(exe), *args],
        capture_output=True,
        text=True,
        env={**env, **extra_env},
        cwd=env["HOME"],
        timeout=180,
    )


def run_the_program(exe: Path, root: Path, home: Path, report: Report) -> None:
    """``--smoke-test`` and the self check, isolated as far as this machine allows."""
    home.mkdir(exist_ok=True)
    prefix, note = isolation(root)
    env = clean_environment(home)
    print(f"runs ({note}):", flush=True)
    smoke = run_program(prefix, exe, env, {}, ["--smoke-test"])
    out = smoke.stdout + smoke.stderr
    quiet = IS_WINDOWS and not smoke.stdout  # a windowed .exe may have no stdout to print to
    ok = smoke.returncode == 0 and (quiet or "smoke test: ok" in smoke.stdout)
    first = smoke.stdout.strip().splitlines()[0] if smoke.stdout.strip() else ""
    report.check(ok, "--smoke-test exits 0 having rendered the window", first if ok else out[-1500:])
    if not quiet:
        report.check("pyqtgraph: no" in smoke.stdout, "pyqtgraph stays off the start path")
        made = next((line for line in smoke.stdout.splitlines() if line.startswith("class code: ")), "no report")
        # The dataclasses' methods from the code the build kept for the bundle's Python: none compiled at start.
        report.check(made.endswith(" 0 compiled"), "the dataclasses' methods come from their kept code", made)
    # Every built-in ruleset is in the bundle: its demo opens (L&L Classic's is another stat block).
    classic = find_files(root, "hill-giant-classic.lnl")
    if classic:
        run = run_program(prefix, exe, env, {}, ["--smoke-test", str(classic[0])])
        ok = run.returncode == 0 and ((IS_WINDOWS and not run.stdout) or "L&L Classic demo" in run.stdout)
        report.check(ok, "--smoke-test opens the L&L Classic demo", "" if ok else (run.stdout + run.stderr)[-1500:])
    osr = find_files(root, "goblin-ambush-osr.lnl")
    if osr:
        run = run_program(prefix, exe, env, {}, ["--smoke-test", str(osr[0])])
        ok = run.returncode == 0 and ((IS_WINDOWS and not run.stdout) or "Old-School d20 demo" in run.stdout)
        report.check(ok, "--smoke-test opens the Old-School d20 demo", "" if ok else (run.stdout + run.stderr)[-1500:])
    d10 = find_files(root, "bandit-mill-d10.lnl")
    if d10:
        run = run_program(prefix, exe, env, {}, ["--smoke-test", str(d10[0])])
        ok = run.returncode == 0 and ((IS_WINDOWS and not run.stdout) or "Group d10 demo" in run.stdout)
        report.check(ok, "--smoke-test opens the Group d10 demo", "" if ok else (run.stdout + run.stderr)[-1500:])
    check = run_program(prefix, exe, env, {"LNL_BUNDLE_SELF_CHECK": "1"}, [])
    quiet = IS_WINDOWS and not check.stdout
    ok = check.returncode == 0 and (quiet or "self check: all ok" in check.stdout)
    print("\n".join("    " + line for line in check.stdout.strip().splitlines() if line.startswith("self check: ")))
    what = "self check: chart, movement and sight, dice, images, icon, ICU"
    report.check(ok, what, "" if ok else (check.stdout + check.stderr)[-3000:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", nargs="?", type=Path, help="tarball, bundle folder, .app or program")
    args = parser.parse_args()
    version = config.read_version()
    target = (args.target or default_target(version)).resolve()
    if not target.exists():
        print(f"smoke test: {target} does not exist: build it with `python3 packaging/build.py`")
        return 2
    report = Report()
    scratch = Path(tempfile.mkdtemp(prefix="lnl-bundle-smoke-"))
    try:
        print(f"Laurels & Loot Desktop {version}: {target}", flush=True)
        if target.name.endswith(".tar.gz"):
            print("package:")
            target = unpack_tarball(target, scratch, version, report)
        exe, root = locate(target)
        print("contents:")
        report.check(exe.is_file(), f"the program {exe.name}")
        check_contents(root, version, report)
        if exe.is_file():
            run_the_program(exe, root, scratch / "run-home", report)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if report.failures:
        failed = ", ".join(report.failures)
        print(f"bundle smoke test FAILED: {len(report.failures)} of {report.count} checks: {failed}")
        return 1
    print(f"bundle smoke test: all {report.count} checks ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
