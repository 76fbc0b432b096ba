"""The program installs the Python way: the wheel carries its resources and runs far from the checkout,
offline; the wheelhouses' scripts and platforms; the workflows pass their schema.

The wheel test builds and installs for real (about 10 s): packaging/wheels.py check-wheel.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from lnl_desktop.paths import demo_encounter_path, resource, resources_dir

# Longer than the suite's one minute a test (a wheel built, installed and run): five minutes still ends a hang.
pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"lnl_{name}", PACKAGING / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


wheels = load("wheels")


def test_from_the_checkout_the_resources_are_the_top_level_folder() -> None:
    assert resources_dir() == ROOT / "resources"
    assert demo_encounter_path() == ROOT / "resources" / "encounters" / "hill-giant.lnl"
    assert demo_encounter_path().is_file() and resource("bestiary.json").is_file()


def test_every_package_on_disk_is_in_the_wheel() -> None:
    """pyproject.toml lists the packages (the finder cannot map resources/ in): none may be forgotten."""
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "lnl_desktop").rglob("__init__.py")}
    assert on_disk - listed == set(), "add these packages to [tool.setuptools] packages in pyproject.toml"
    folders = {p for p in (ROOT / "resources").rglob("*") if p.is_dir()}
    resources = {
        "lnl_desktop.resources",
        *(".".join(["lnl_desktop.resources", *p.relative_to(ROOT / "resources").parts]) for p in folders),
    }
    assert resources <= listed, "every folder of resources/ is a data package of the wheel"
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {"lnl_desktop.resources": "resources"}


def test_every_resource_file_matches_the_package_data() -> None:
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]
    for path in (ROOT / "resources").rglob("*"):
        if path.is_file():
            package = ".".join(["lnl_desktop.resources", *path.parent.relative_to(ROOT / "resources").parts])
            assert any(path.match(glob) for glob in patterns.get(package, [])), f"{path.name} would not be packaged"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check cuts the network with unshare")
def test_the_wheel_installed_outside_the_checkout_runs_the_demo_and_the_self_check_offline() -> None:
    """What a GM gets from ``pip install lnl_desktop-*.whl``: from a folder far from the checkout, with
    the checkout's lnl_desktop/ and resources/ covered, the demo opens and every self check passes."""
    result = subprocess.run(
        [sys.executable, str(PACKAGING / "wheels.py"), "check-wheel"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd="/",
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "the wheel, the sdist and a wheel built from it carry all" in output
    assert "the program and its resources are the installed ones: ok" in output
    assert "smoke test: ok: 'The Hill Giant at the Old Tower'" in output
    for check in ("every built-in ruleset plays its demo", "a Universal VTT map imports", "forecast chart (pyqtgraph)"):
        assert f"self check: {check}: ok" in output
    assert "self check: all ok" in output


def test_a_resource_left_out_of_the_wheel_is_named(tmp_path: Path) -> None:
    import zipfile

    wheel = tmp_path / "lnl_desktop-0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name in wheels.resource_files() - {"bestiary-osr.json"}:
            archive.writestr(f"lnl_desktop/resources/{name}", "")
    assert wheels.missing_resources(wheel, None) == ["wheel: lnl_desktop/resources/bestiary-osr.json"]


def test_the_wheelhouses_cover_the_four_desktops_with_binary_wheels_only() -> None:
    assert set(wheels.PLATFORMS) == {"linux_x86_64", "win_amd64", "macos_arm64", "macos_x86_64"}
    assert wheels.PYTHON_VERSIONS == ("3.11", "3.12", "3.13")
    args = wheels._platform_args("linux_x86_64", "3.12")
    assert "--only-binary=:all:" in args and args[args.index("--python-version") + 1] == "3.12"
    tags = [args[i + 1] for i, arg in enumerate(args) if arg == "--platform"]
    assert "manylinux_2_34_x86_64" in tags and "manylinux2014_x86_64" in tags  # pip does not widen glibc levels
    assert wheels.wheelhouse_name("win_amd64", "1.2.3") == "lnl-desktop-1.2.3-wheelhouse-win-amd64"


def test_the_install_scripts_are_two_lines_and_use_the_wheelhouse_alone(tmp_path: Path) -> None:
    for template in (wheels.INSTALL_SH, wheels.INSTALL_CMD):
        text = template.format(version="1.2.3")
        assert "--no-index --find-links" in text and "lnl-desktop" in text and "1.2.3" in text
        commands = [line for line in text.splitlines() if line and not line.startswith(("#", "@rem"))]
        assert len(" ".join(commands).split(" && ")) == 2 or len(commands) <= 2, text
    script = tmp_path / "install.sh"
    script.write_text(wheels.INSTALL_SH.format(version="1.2.3"), encoding="utf-8")
    assert subprocess.run(["sh", "-n", str(script)], capture_output=True).returncode == 0
    assert "\r\n" in wheels.INSTALL_CMD, "Windows' cmd wants CRLF lines"


def test_build_py_offers_the_wheelhouse_for_each_desktop() -> None:
    result = subprocess.run([sys.executable, str(PACKAGING / "build.py"), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    for platform in wheels.PLATFORMS:
        assert platform in result.stdout
    assert "--resolve-only" in result.stdout and "--check" in result.stdout


def test_ci_checks_the_wheelhouses_after_the_tests() -> None:
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip()]
    test = lines.index("python3 dev.py test")
    linux = lines.index(".venv/bin/python packaging/build.py --wheelhouse linux_x86_64 --check")
    assert test < linux
    loop = next(line for line in lines if line.startswith("for platform in"))
    assert set(loop.split(" in ", 1)[1].split(";")[0].split()) == {"win_amd64", "macos_arm64", "macos_x86_64"}
    assert '.venv/bin/python packaging/build.py --wheelhouse "$platform" --resolve-only' in lines


def check_workflow(path: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(path)]
    return subprocess.run(command, capture_output=True, text=True)


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_the_workflows_pass_the_workflow_schema(path: Path) -> None:
    result = check_workflow(path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_refuses_a_broken_workflow(tmp_path: Path) -> None:
    """The check works offline and would catch a typo (a misspelt key, a number for a runner)."""
    broken = tmp_path / "broken.yml"
    text = WORKFLOWS[0].read_text(encoding="utf-8")
    broken.write_text(text.replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest", 1), encoding="utf-8")
    result = check_workflow(broken)
    assert result.returncode != 0 and "Schema validation errors" in result.stdout


def test_dev_py_test_runs_the_schema_check_before_pytest() -> None:
    text = (ROOT / "dev.py").read_text(encoding="utf-8")
    body = text.split("def test(", 1)[1].split("\ndef ", 1)[0]
    assert body.index('"check_jsonschema", "--builtin-schema", "vendor.github-workflows"') < body.index('"pytest"')
    extras = PYPROJECT["project"]["optional-dependencies"]["test"]
    assert any(re.match(r"check-jsonschema\b", extra) for extra in extras)


def test_the_workflow_makes_installs_and_uploads_each_desktops_wheelhouse() -> None:
    text = (ROOT / ".github" / "workflows" / "installers.yml").read_text(encoding="utf-8")
    jobs = text.split("\njobs:\n", 1)[1]
    linux, rest = jobs.split("\n  windows:\n", 1)
    windows, macos = rest.split("\n  macos:\n", 1)
    assert "--wheelhouse linux_x86_64 --check" in linux and "wheelhouse-linux-x86_64.zip" in linux
    assert "--wheelhouse win_amd64" in windows and "install.cmd" in windows and "wheelhouse-win-amd64.zip" in windows
    assert "--wheelhouse macos_arm64" in macos and "--wheelhouse macos_x86_64" in macos and "install.sh" in macos
    for job in (windows, macos):
        assert "packaging/wheels.py run-installed" in job.replace("\\", "/")
    assert text.count("actions/upload-artifact@v4") == 6


def test_the_readme_says_how_to_install_and_uninstall_on_each_desktop() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Install\n", 1)[1].split("\n## ", 1)[0]
    parts = dict(re.findall(r"\*\*(Windows|macOS|Linux|pipx)\*\*(.*?)(?=\n\*\*|\Z)", section, re.S))
    assert set(parts) == {"Windows", "macOS", "Linux", "pipx"}
    for desktop, words in parts.items():
        assert "ninstall" in words, f"{desktop}: how to uninstall"
    assert "install.cmd" in parts["Windows"] and "setup.exe" in parts["Windows"]
    assert "install.sh" in parts["macOS"] and ".dmg" in parts["macOS"]
    assert "install.sh" in parts["Linux"] and "libxcb-cursor0" in parts["Linux"]
    assert "--no-index" in parts["pipx"] and "pipx uninstall lnl-desktop" in parts["pipx"]
