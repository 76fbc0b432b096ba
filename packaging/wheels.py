#!/usr/bin/env python3
"""The program as Python installs it: its wheel and sdist, offline wheelhouses, and checks of both.

    python3 packaging/wheels.py run-installed VENV
        the same smoke test and self check of the program installed in VENV (the installers
        workflow runs it on the wheelhouse each desktop's install script installed)
    python3 packaging/wheels.py check-wheel
        build the wheel and the sdist (both must carry every file of resources/), install the wheel
        with --no-deps into a fresh venv in a temporary folder that takes its dependencies from the
        running venv, then from a folder outside the checkout, offline, with the checkout's
        lnl_desktop/ and resources/ hidden: ``lnl-desktop --smoke-test`` and the self check
        (packaging/bundle_self_check.py: every ruleset's demo, the bestiaries, a map import, the chart).

``python3 packaging/build.py --wheelhouse PLATFORM`` uses :func:`make_wheelhouse` and
:func:`resolve_only` for the per-desktop offline wheelhouses (PLATFORMS below).

"Offline" is ``unshare -n`` (a new network namespace with only a down loopback) together with
``unshare -m`` for the hiding, where this machine allows it (root or user namespaces); elsewhere
the runs say the network was not cut.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESOURCES = ROOT / "resources"
PYTHON_VERSIONS = ("3.11", "3.12", "3.13")

# pip's --platform tags per desktop. pip matches them exactly (it does not widen manylinux_2_34 to
# older glibc), so every glibc level down to the oldest a dependency still builds for is named.
# Linux: glibc 2.34 and newer (Debian 12, Ubuntu 22.04, Fedora 35 and later). macOS 12 and newer
# (the universal2 Qt wheels serve both processors).
PLATFORMS: dict[str, tuple[str, ...]] = {
    "linux_x86_64": (
        *(f"manylinux_2_{minor}_x86_64" for minor in range(34, 16, -1)),
        "manylinux2014_x86_64",
        "linux_x86_64",
    ),
    "win_amd64": ("win_amd64",),
    "macos_arm64": ("macosx_12_0_arm64", "macosx_12_0_universal2"),
    "macos_x86_64": ("macosx_12_0_x86_64", "macosx_12_0_universal2"),
}


def say(message: str) -> None:
    print(f"[wheels] {message}", flush=True)


def project_version() -> str:
    text = (ROOT / "lnl_desktop" / "__init__.py").read_text(encoding="utf-8")
    return text.split("__version__", 1)[1].split("=", 1)[1].strip().split()[0].strip("\"'")


def copy_sources(into: Path) -> Path:
    """What the wheel and sdist are built from, copied so that setuptools leaves the checkout alone."""
    src = into / "src"
    src.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "lnl_desktop", src / "lnl_desktop", ignore=ignore)
    shutil.copytree(RESOURCES, src / "resources", ignore=ignore)
    return src


def _has_setuptools(python: str) -> bool:
    """Whether ``python`` can build the project without fetching setuptools (the test venv can)."""
    code = "import setuptools, sys; sys.exit(int(setuptools.__version__.split('.')[0]) < 68)"
    return subprocess.run([python, "-c", code], capture_output=True).returncode == 0


def build_wheel_and_sdist(into: Path, python: str = sys.executable) -> tuple[Path, Path]:
    """The project's wheel and sdist in ``into``, built by setuptools (offline where it is installed)."""
    src = copy_sources(into / "build")
    into.mkdir(parents=True, exist_ok=True)
    pip = [python, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    isolation = ["--no-build-isolation"] if _has_setuptools(python) else []
    # Quiet unless it fails: setuptools' deprecation notices say nothing about this build.
    built = subprocess.run(
        [*pip, "wheel", "--quiet", "--no-deps", *isolation, "-w", str(into), str(src)], capture_output=True, text=True
    )
    if built.returncode != 0:
        raise SystemExit(f"the wheel could not be built:\n{built.stdout}{built.stderr}")
    if isolation:
        code = f"import setuptools.build_meta as b; print(b.build_sdist({str(into)!r}))"
        subprocess.run([python, "-c", code], cwd=src, check=True, capture_output=True)
    else:  # the build front end pip brings has no sdist command: a wheel only
        return next(into.glob("lnl_desktop-*.whl")), Path()
    return next(into.glob("lnl_desktop-*.whl")), next(into.glob("lnl_desktop-*.tar.gz"))


def resource_files() -> set[str]:
    return {p.relative_to(RESOURCES).as_posix() for p in RESOURCES.rglob("*") if p.is_file()}


def missing_resources(wheel: Path, sdist: Path | None) -> list[str]:
    """Files of resources/ the wheel (as lnl_desktop/resources/) or the sdist (as resources/) lacks."""
    wanted = resource_files()
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = {n.removeprefix("lnl_desktop/resources/") for n in archive.namelist()}
    missing = [f"wheel: lnl_desktop/resources/{name}" for name in sorted(wanted - in_wheel)]
    if sdist and sdist.name:
        with tarfile.open(sdist) as archive:
            in_sdist = {n.split("/", 1)[1].removeprefix("resources/") for n in archive.getnames() if "/" in n}
        missing += [f"sdist: resources/{name}" for name in sorted(wanted - in_sdist)]
    return missing


def isolation_prefix(hide: list[Path]) -> tuple[list[str], bool]:
    """The command prefix that cuts the network and covers ``hide`` with empty folders, if allowed.

    Returns (prefix, whether the network is cut). ``unshare -r`` maps the caller to root in a new
    user namespace where plain unshare is not allowed.
    """
    unshare = shutil.which("unshare")
    if not unshare or not sys.platform.startswith("linux"):
        return [], False
    empty = Path(tempfile.mkdtemp(prefix="lnl-empty-"))
    mounts = " && ".join(f'mount --bind "{empty}" "{path}"' for path in hide if path.exists())
    script = f'{mounts + " && " if mounts else ""}exec "$@"'
    for flags in (["-n", "-m"], ["-r", "-n", "-m"]):
        prefix = [unshare, *flags, "sh", "-c", script, "sh"]
        if subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
            return prefix, True
    return [], False


def clean_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The user's environment without Python's variables and proxies, offscreen."""
    drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")
    # pip's own settings too (PIP_FIND_LINKS, PIP_INDEX_URL): the install must use the wheelhouse alone.
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("PIP_")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    env.update(extra or {})
    return env


def venv_paths(folder: Path) -> tuple[Path, Path]:
    """(python, folder of the scripts) of the venv in ``folder``."""
    scripts = folder / ("Scripts" if os.name == "nt" else "bin")
    return scripts / ("python.exe" if os.name == "nt" else "python"), scripts


def run_installed(venv_folder: Path, workdir: Path, hide: list[Path]) -> list[str]:
    """``lnl-desktop --smoke-test`` and the self check of the program installed in ``venv_folder``,
    from ``workdir``, offline where allowed. Returns what failed (empty: all passed)."""
    python, scripts = venv_paths(venv_folder)
    # Windows: lnl-desktop.exe is a GUI launcher without a console to print to; the module prints.
    program = [str(python), "-m", "lnl_desktop"] if os.name == "nt" else [str(scripts / "lnl-desktop")]
    prefix, offline = isolation_prefix(hide)
    say("runs are offline (unshare -n)" if offline else "WARNING: the network was not cut (no unshare here)")
    failed: list[str] = []
    code = "import lnl_desktop.paths as p, lnl_desktop; print(lnl_desktop.__file__); print(p.resources_dir())"
    where = subprocess.run(
        [*prefix, str(python), "-c", code], capture_output=True, text=True, cwd=workdir, env=clean_environment()
    )
    lines = where.stdout.split()
    inside = (
        len(lines) == 2
        and Path(lines[0]).is_relative_to(venv_folder)
        and Path(lines[1]) == Path(lines[0]).parent / "resources"
    )
    say(f"the program and its resources are the installed ones: {'ok' if inside else 'FAILED'} {lines}")
    if not inside:
        failed.append(f"resources found outside the installed package: {where.stdout}{where.stderr}")
    started = time.monotonic()
    smoke = subprocess.run(
        [*prefix, *program, "--smoke-test"], capture_output=True, text=True, cwd=workdir, env=clean_environment()
    )
    print(smoke.stdout + smoke.stderr, end="", flush=True)
    if smoke.returncode != 0 or "smoke test: ok" not in smoke.stdout:
        failed.append(f"lnl-desktop --smoke-test exited {smoke.returncode}")
    shutil.copy2(HERE / "bundle_self_check.py", workdir / "bundle_self_check.py")
    check = subprocess.run(
        [*prefix, str(python), "bundle_self_check.py"],
        capture_output=True,
        text=True,
        cwd=workdir,
        env=clean_environment(),
    )
    print(check.stdout + check.stderr, end="", flush=True)
    if check.returncode != 0 or "self check: all ok" not in check.stdout:
        failed.append(f"the self check exited {check.returncode}")
    say(f"smoke test and self check took {time.monotonic() - started:.0f} s")
    return failed


def deps_from(python: str) -> Path:
    """The site-packages folder of ``python`` (the test venv), whose installed dependencies a fresh venv borrows."""
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return Path(subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip())


def check_wheel() -> int:
    """Build, install outside the checkout with --no-deps, run offline. 0 if all passed."""
    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="lnl-wheel-check-"))
    try:
        wheel, sdist = build_wheel_and_sdist(scratch / "dist")
        say(f"built {wheel.name} and {sdist.name} ({time.monotonic() - started:.0f} s)")
        missing = missing_resources(wheel, sdist)
        if missing:
            say("FAILED: not packaged: " + ", ".join(missing))
            return 1
        # pip install of the sdist (a GM without the wheel) builds a wheel from it: that one too.
        rebuilt = scratch / "from-sdist"
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
        subprocess.run([*command, "-w", str(rebuilt), str(sdist)], check=True, capture_output=True)
        missing = missing_resources(next(rebuilt.glob("lnl_desktop-*.whl")), None)
        if missing:
            say("FAILED: the wheel built from the sdist lacks " + ", ".join(missing))
            return 1
        say(f"the wheel, the sdist and a wheel built from it carry all {len(resource_files())} files of resources/")
        folder = scratch / "venv"
        venv.EnvBuilder(with_pip=False).create(folder)
        python, _ = venv_paths(folder)
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", str(python)]
        subprocess.run([*pip, "install", "--quiet", "--no-deps", "--no-index", str(wheel)], check=True)
        # The dependencies (PySide6, numpy, pydantic, pyqtgraph) as this venv has them, after the
        # fresh venv's own site-packages: no network, and lnl_desktop is only the installed wheel.
        site = deps_from(str(python))
        (site / "zz-lnl-test-dependencies.pth").write_text(f"{deps_from(sys.executable)}\n", encoding="utf-8")
        check = subprocess.run([str(python), "-c", "import PySide6, numpy, pydantic"], capture_output=True, text=True)
        if check.returncode != 0:
            say(f"FAILED: the dependencies do not import in the fresh venv: {check.stderr}")
            return 1
        workdir = scratch / "elsewhere"
        workdir.mkdir()
        failed = run_installed(folder, workdir, hide=[ROOT / "lnl_desktop", ROOT / "resources"])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for what in failed:
        say(f"FAILED: {what}")
    say(f"{'all ok' if not failed else 'FAILED'} in {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


# -- wheelhouses ---------------------------------------------------------------------------------


def _platform_args(platform: str, python_version: str) -> list[str]:
    args = ["--only-binary=:all:", "--python-version", python_version, "--implementation", "cp"]
    for tag in PLATFORMS[platform]:
        args += ["--platform", tag]
    return args


def resolve_only(platform: str, wheel: Path) -> list[str]:
    """Resolve the wheel's dependencies to binary wheels for ``platform`` and every Python in
    PYTHON_VERSIONS without downloading them (pip reads the index's metadata files). Returns the
    failures (empty: an install there needs no compiler and no network beyond the wheelhouse)."""
    failures: list[str] = []
    scratch = Path(tempfile.mkdtemp(prefix="lnl-resolve-"))
    try:
        for version in PYTHON_VERSIONS:
            report = scratch / f"report-{version}.json"
            command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "install", "--quiet", "--dry-run"]
            command += ["--ignore-installed", "--report", str(report), "--target", str(scratch / "target")]
            command += [*_platform_args(platform, version), str(wheel)]
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                failures.append(f"Python {version}: {result.stderr.strip()[-2000:]}")
                continue
            chosen = [
                item["download_info"]["url"].rsplit("/", 1)[-1] for item in json.loads(report.read_text())["install"]
            ]
            say(f"{platform}, Python {version}: {len(chosen)} wheels: {' '.join(sorted(chosen))}")
            not_wheels = [name for name in chosen if not name.endswith(".whl")]
            if not_wheels:
                failures.append(f"Python {version}: not wheels: {not_wheels}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return failures


# The two lines a GM runs (after the comment): a venv, then the program from this folder, offline.
INSTALL_SH = (
    "#!/bin/sh\n"
    "# Laurels & Loot Desktop {version}, offline: a venv in $1 (default ~/.lnl-desktop), then its bin/lnl-desktop.\n"
    'venv="${{1:-$HOME/.lnl-desktop}}" && python3 -m venv "$venv" &&\n'
    '  "$venv/bin/python" -m pip install --no-index --find-links "$(dirname "$0")" lnl-desktop\n'
)
INSTALL_CMD = (
    "@rem Laurels & Loot Desktop {version}, offline: a venv in %LOCALAPPDATA%\\lnl-desktop,"
    " then its Scripts\\lnl-desktop.exe.\r\n"
    'py -3 -m venv "%LOCALAPPDATA%\\lnl-desktop" && "%LOCALAPPDATA%\\lnl-desktop\\Scripts\\python.exe" -m pip install'
    ' --no-index --find-links "%~dp0." lnl-desktop\r\n'
)


def wheelhouse_name(platform: str, version: str) -> str:
    return f"lnl-desktop-{version}-wheelhouse-{platform.replace('_', '-', 1)}"


def make_wheelhouse(platform: str, wheel: Path, target: Path) -> list[str]:
    """``target``: the program's wheel, every dependency's wheel for ``platform`` and each Python in
    PYTHON_VERSIONS, pip's wheel, and the two-line install script. Returns the failures."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copy2(wheel, target / wheel.name)
    failures = []
    for version in PYTHON_VERSIONS:
        command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "download", "--quiet"]
        command += ["-d", str(target), *_platform_args(platform, version), str(wheel)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            failures.append(f"Python {version}: {result.stderr.strip()[-2000:]}")
    # pip's own wheel too: pipx sets up its shared venv with ``pip install --upgrade pip``, which
    # then comes from here (``pipx install ... --pip-args="--no-index --find-links DIR"`` offline).
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "download", "--quiet", "--no-deps"]
    result = subprocess.run([*command, "--only-binary=:all:", "-d", str(target), "pip"], capture_output=True, text=True)
    if result.returncode != 0:
        failures.append(f"pip's wheel: {result.stderr.strip()[-2000:]}")
    version = project_version()
    if platform == "win_amd64":
        (target / "install.cmd").write_bytes(INSTALL_CMD.format(version=version).encode())
    else:
        script = target / "install.sh"
        script.write_text(INSTALL_SH.format(version=version), encoding="utf-8")
        script.chmod(0o755)
    return failures


def check_wheelhouse(target: Path) -> list[str]:
    """Linux: install.sh into a fresh venv in a temporary folder with the network cut, then the
    smoke test and the self check from there, the checkout hidden."""
    scratch = Path(tempfile.mkdtemp(prefix="lnl-wheelhouse-check-"))
    try:
        prefix, offline = isolation_prefix([])
        say(f"installing {target.name} with install.sh {'offline' if offline else '(network NOT cut)'}")
        started = time.monotonic()
        env = clean_environment({"PIP_NO_CACHE_DIR": "1"})
        result = subprocess.run(
            [*prefix, "sh", str(target / "install.sh"), str(scratch / "venv")], capture_output=True, text=True, env=env
        )
        if result.returncode != 0:
            return [f"install.sh failed: {result.stdout}{result.stderr}"]
        say(f"installed in {time.monotonic() - started:.0f} s")
        workdir = scratch / "elsewhere"
        workdir.mkdir()
        return run_installed(scratch / "venv", workdir, hide=[ROOT])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["check-wheel", "run-installed"])
    parser.add_argument("venv", nargs="?", type=Path, help="run-installed: the venv the program is installed in")
    args = parser.parse_args()
    if args.command == "run-installed":
        if args.venv is None:
            parser.error("run-installed needs the venv's folder")
        workdir = Path(tempfile.mkdtemp(prefix="lnl-installed-"))
        failed = run_installed(args.venv.resolve(), workdir, hide=[ROOT / "lnl_desktop", ROOT / "resources"])
        for what in failed:
            say(f"FAILED: {what}")
        say("all ok" if not failed else "FAILED")
        return 1 if failed else 0
    return check_wheel()


if __name__ == "__main__":
    sys.exit(main())
