#!/usr/bin/env python3
"""Build the frozen one-folder bundle (and on Linux the tarball) from a clean virtual environment.

    python3 packaging/build.py                  venv, bundle in dist/lnl-desktop/, and on Linux
                                                dist/lnl-desktop-VERSION-linux-x86_64.tar.gz
    python3 packaging/build.py --print-version  the version every artifact carries
    python3 packaging/build.py --wheelhouse PLATFORM [--resolve-only] [--check]
                                                an offline wheelhouse for one desktop (below)

Steps: a fresh venv in build/bundle-venv; a copy of the project's sources (pyproject.toml,
README.md, lnl_desktop/, resources/) installed into it non-editable, with PyInstaller from
packaging/requirements-build.txt; on Linux numpy rebuilt from its source without OpenBLAS (the same
version; its wheel stays if that fails); the Windows version file generated from
``lnl_desktop.__version__``; PyInstaller run on packaging/lnl-desktop.spec (one folder; on macOS also
the .app); on Linux the tarball with the .desktop file, the icons and install.sh. Needs only
Python 3.11+ and the package index (and on Linux a C/C++ compiler for numpy, or its wheel is used);
everything it writes is under build/ and dist/.
The Windows installer (packaging/windows/lnl-desktop.iss) and the macOS disk image
(packaging/macos/make_dmg.sh) are made from its output by the installers workflow.

``--wheelhouse PLATFORM`` (linux_x86_64, win_amd64, macos_arm64, macos_x86_64) makes
dist/lnl-desktop-VERSION-wheelhouse-PLATFORM/ (and a .zip of it): the program's wheel, every
dependency's wheel for that platform and Python 3.11 to 3.13 (``pip download --only-binary=:all:
--platform ... --python-version ...``) and a two-line install script (install.sh, or install.cmd on
Windows: a venv, then ``pip install --no-index --find-links``), so that an install there needs no
compiler and no network. ``--resolve-only`` downloads nothing but the index's metadata: it checks
that every dependency resolves to a binary wheel for that platform and each Python (a few seconds
each). ``--check`` (Linux) installs the wheelhouse with its install.sh into a temporary venv with
the network cut and runs ``lnl-desktop --smoke-test`` and the self check from there
(packaging/wheels.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
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
_spec = importlib.util.spec_from_file_location("lnl_wheels", HERE / "wheels.py")
wheels = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(wheels)  # type: ignore[union-attr]

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
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "lnl_desktop", SOURCES / "lnl_desktop", ignore=ignore)
    # pyproject.toml maps resources/ into the package (lnl_desktop/resources): setuptools needs it there.
    shutil.copytree(ROOT / "resources", SOURCES / "resources", ignore=ignore)
    return SOURCES


def pip() -> list[str]:
    return [str(venv_bin("python")), "-m", "pip", "--disable-pip-version-check", "--no-input"]


def install(sources: Path) -> None:
    say("installing the project (not editable) and PyInstaller into the build venv")
    subprocess.run([*pip(), "install", "--quiet", str(sources), "-r", str(HERE / "requirements-build.txt")], check=True)


def venv_eval(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(venv_bin("python")), "-c", code], capture_output=True, text=True)


# Run in the build venv after numpy's source build: numpy imports, says it has no BLAS or LAPACK,
# multiplies and solves with its own code, and no OpenBLAS (numpy.libs) is left installed.
NUMPY_CHECK = """
import pathlib, numpy, numpy.__config__
deps = numpy.__config__.CONFIG["Build Dependencies"]  # numpy drops the keys whose value is False
assert not deps["blas"].get("found") and not deps["lapack"].get("found"), deps
assert (numpy.ones((40, 40)) @ numpy.ones((40, 40)) == 40).all()
assert numpy.allclose(numpy.linalg.solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0]), [0.8, 1.4])
assert not (pathlib.Path(numpy.__file__).parent.parent / "numpy.libs").exists(), "numpy.libs is still there"
print(numpy.__version__)
"""


def compile_demo() -> None:
    """The demo's compiled form (lnl_desktop/core/files/compiled.py) as the bundle's Python and pydantic
    read it: made again in resources/ with the build venv when the one there was made with others, so the
    bundle starts from it rather than reading the JSON through pydantic."""
    demo = config.RESOURCES / "encounters" / "hill-giant.lnl"
    code = (
        "import sys; from pathlib import Path; from lnl_desktop.core.files import compiled as c; "
        f"p = Path({str(demo)!r}); sys.exit(0 if c._made_with(p.read_bytes()) == "
        "c._header(c.compiled_path(p)) else (c.compile_encounter(p) and 3))"
    )
    result = subprocess.run([str(venv_bin("python")), "-c", code], capture_output=True, text=True)
    if result.returncode not in (0, 3):
        raise SystemExit(f"the demo could not be compiled:\n{result.stderr}")
    say("the demo's compiled form: " + ("made again for the build venv" if result.returncode == 3 else "up to date"))


def keep_class_code() -> None:
    """The dataclasses' methods compiled by the bundle's Python (lnl_desktop/class_code.py), made by the
    smoke test's start in the build venv: the spec puts the file beside the bundle's modules."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    command = [str(venv_bin("python")), "-m", "lnl_desktop", "keep-class-code"]
    # Run outside the checkout, so that the venv's installed copy (the one bundled) is imported and keeps them.
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=venv_bin("python").parent)
    if result.returncode != 0:
        raise SystemExit(f"the classes' code could not be kept:\n{result.stdout}{result.stderr}")
    say(result.stdout.strip().splitlines()[-1])


def numpy_without_openblas() -> None:
    """Linux: the build venv's numpy wheel replaced by the same version built from source without BLAS.

    numpy's Linux wheels carry OpenBLAS and its Fortran runtime (28.5 MB of the bundle, see
    ``bundle_config.NUMPY_BUILD_OPTIONS``). The version is the one pip chose for the project; the
    wheel built is kept in build/numpy-source/ for later builds with the same version, options and
    Python. If anything fails, the wheel from the index stays, with a warning: a bigger bundle,
    never a broken build.
    """
    found = venv_eval("import importlib.metadata as m; print(m.version('numpy'))")
    version = found.stdout.strip()
    if found.returncode != 0 or not version:
        say(f"WARNING: numpy's version not found, keeping its wheel (with OpenBLAS): {found.stderr.strip()}")
        return
    folder = config.BUILD / "numpy-source"
    options = config.numpy_build_options(platform.machine())
    key = f"numpy {version}; Python {sys.version_info[0]}.{sys.version_info[1]}; {' '.join(options)}"
    stamp = folder / "built-with.txt"
    wheels = sorted(folder.glob(f"numpy-{version}-*.whl"))
    started = time.monotonic()
    if wheels and stamp.exists() and stamp.read_text(encoding="utf-8") == key:
        say(f"numpy {version} without OpenBLAS: reusing {wheels[0].relative_to(ROOT)}")
    else:
        say(f"building numpy {version} from source without OpenBLAS (3 to 4 minutes on 2 cores)")
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        log = folder / "build.log"
        command = [*pip(), "wheel", "--no-deps", "--no-binary", "numpy", f"numpy=={version}", "-w", str(folder)]
        # No pip cache: its key ignores the -C options, it could hand back a numpy built otherwise.
        command += ["--no-cache-dir", *(f"-Csetup-args={option}" for option in options)]
        try:
            with log.open("w", encoding="utf-8") as out:
                built = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, timeout=20 * 60)
        except (OSError, subprocess.TimeoutExpired) as error:
            built = None
            say(f"numpy's source build did not finish: {error}")
        wheels = sorted(folder.glob(f"numpy-{version}-*.whl"))
        if built is None or built.returncode != 0 or not wheels:
            tail = log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.exists() else ""
            say(f"WARNING: numpy's source build failed, keeping its wheel (with OpenBLAS, 28 MB more):\n{tail}")
            return
        stamp.write_text(key, encoding="utf-8")
    installed = subprocess.run(
        [*pip(), "install", "--quiet", "--no-deps", "--force-reinstall", str(wheels[0])], capture_output=True, text=True
    )
    checked = venv_eval(NUMPY_CHECK) if installed.returncode == 0 else installed
    if checked.returncode != 0:
        say(f"WARNING: numpy without OpenBLAS failed its check, back to its wheel:\n{checked.stderr[-3000:]}")
        stamp.unlink(missing_ok=True)
        again = [*pip(), "install", "--quiet", "--no-deps", "--force-reinstall", "--only-binary", "numpy"]
        subprocess.run([*again, f"numpy=={version}"], check=True)
        return
    say(f"numpy {version} without OpenBLAS installed ({time.monotonic() - started:.0f} s)")


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


def wheelhouse(platform_name: str, version: str, *, resolve_only: bool, check: bool) -> int:
    """The offline wheelhouse for one desktop, or (``resolve_only``) the proof that one can be made."""
    started = time.monotonic()
    folder = config.BUILD / "wheel"
    if folder.exists():
        shutil.rmtree(folder)
    wheel, _ = wheels.build_wheel_and_sdist(folder)
    say(f"built {wheel.name}")
    if resolve_only:
        failures = wheels.resolve_only(platform_name, wheel)
        verdict = "every dependency is a binary wheel" if not failures else "FAILED"
        say(f"{platform_name}: {verdict} for Python {', '.join(wheels.PYTHON_VERSIONS)}")
    else:
        target = config.DIST / wheels.wheelhouse_name(platform_name, version)
        failures = wheels.make_wheelhouse(platform_name, wheel, target)
        size = sum(p.stat().st_size for p in target.iterdir()) / 1e6
        say(f"wheelhouse: {target.relative_to(ROOT)} ({len(list(target.glob('*.whl')))} wheels, {size:.0f} MB)")
        if not failures:
            archive = shutil.make_archive(str(target), "zip", target.parent, target.name)
            say(f"zip: {Path(archive).relative_to(ROOT)}")
        if check and not failures:
            failures = wheels.check_wheelhouse(target)
    for failure in failures:
        say(f"FAILED: {failure}")
    say(f"done in {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--print-version", action="store_true", help="print the version and stop")
    parser.add_argument(
        "--wheelhouse",
        metavar="PLATFORM",
        choices=list(wheels.PLATFORMS),
        help=f"make the offline wheelhouse for one desktop instead of the bundle: {', '.join(wheels.PLATFORMS)}",
    )
    parser.add_argument("--resolve-only", action="store_true", help="with --wheelhouse: resolve, download nothing")
    parser.add_argument("--check", action="store_true", help="with --wheelhouse: install it offline and run it")
    args = parser.parse_args()
    version = config.read_version()
    if args.print_version:
        print(version)
        return 0
    if args.wheelhouse:
        config.BUILD.mkdir(exist_ok=True)
        config.DIST.mkdir(exist_ok=True)
        return wheelhouse(args.wheelhouse, version, resolve_only=args.resolve_only, check=args.check)
    if sys.version_info < (3, 11):  # noqa: UP036 - build.py may be started by an old python3
        raise SystemExit(f"Python 3.11 or newer is needed (this is {sys.version.split()[0]})")
    started = time.monotonic()
    config.BUILD.mkdir(exist_ok=True)
    config.DIST.mkdir(exist_ok=True)
    fresh_venv()
    install(copy_sources())
    if sys.platform.startswith("linux"):
        numpy_without_openblas()
    compile_demo()
    keep_class_code()
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
