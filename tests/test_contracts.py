"""The house's contracts: import-linter's (pyproject.toml) hold, and they would catch a break.

The core runs in scripts, tests and servers without a GUI; the rulesets stay apart so a fifth can copy
one; the Qt layer reads rulesets only through the seam; no module imports one that imports it back.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

import lnl_desktop

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(lnl_desktop.__file__).parent
LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
QT = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6")


def lint_imports(root: Path, package_parent: Path) -> subprocess.CompletedProcess[str]:
    """import-linter with the project's contracts over the package found in ``package_parent``."""
    env = dict(os.environ, PYTHONPATH=str(package_parent), PYTHONIOENCODING="utf-8", COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )


@pytest.fixture
def copy_of_the_house(tmp_path: Path) -> Path:
    """The package and its contracts in a scratch folder, where a violation can be planted."""
    shutil.copytree(PACKAGE, tmp_path / "lnl_desktop", ignore=shutil.ignore_patterns("__pycache__", "resources"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_contracts_hold() -> None:
    result = lint_imports(ROOT, ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("module", "planted", "contract"),
    [
        ("core/errors.py", "import PySide6.QtCore", "The rules core never imports the Qt layer, Qt or pyqtgraph"),
        ("core/encounter/events.py", "import pyqtgraph", "The rules core never imports the Qt layer, Qt or pyqtgraph"),
        ("core/rules/osr/model.py", "import lnl_desktop.core.rules.lnl.rules", "The rulesets are independent"),
        ("core/rules/base.py", "import lnl_desktop.core.engine.engine", "Layers"),
        ("ui/docks/log.py", "import lnl_desktop.core.rules.d10", "The Qt layer reads rulesets through the seam"),
        ("ui/map/view.py", "import lnl_desktop.ui.docks.sheet", "The Qt layer's rooms"),
        ("ui/dialogs/area.py", "import lnl_desktop.ui.window.main_window", "The Qt layer's rooms"),
    ],
)
def test_a_planted_violation_breaks_its_contract(
    copy_of_the_house: Path, module: str, planted: str, contract: str
) -> None:
    target = copy_of_the_house / "lnl_desktop" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{planted}  # planted\n", encoding="utf-8")
    result = lint_imports(copy_of_the_house, copy_of_the_house)
    assert result.returncode != 0, result.stdout
    broken = [line for line in result.stdout.splitlines() if "BROKEN" in line]
    assert any(contract in line for line in broken), result.stdout


def import_circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every group of modules that import each other round in a circle (Tarjan's strongly connected components)."""
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    circles: list[list[str]] = []
    counter = 0
    for root in modules:
        if root in index:
            continue
        # Iterative, so a deep chain of imports cannot overflow Python's stack.
        work: list[tuple[str, list[str]]] = []
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work.append((root, sorted(graph.find_modules_directly_imported_by(root))))
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph.find_modules_directly_imported_by(nxt))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
    return circles


def test_no_import_circle_anywhere_the_type_checkers_imports_included() -> None:
    graph = grimp.build_graph("lnl_desktop", exclude_type_checking_imports=False, cache_dir=None)
    assert import_circles(graph) == []


def test_the_circle_finder_finds_a_planted_circle() -> None:
    graph = grimp.ImportGraph()
    for name in ("house", "house.a", "house.b", "house.c", "house.d"):
        graph.add_module(name)
    graph.add_import(importer="house.a", imported="house.b")
    graph.add_import(importer="house.b", imported="house.c")
    graph.add_import(importer="house.c", imported="house.a")
    graph.add_import(importer="house.d", imported="house.a")
    assert import_circles(graph) == [["house.a", "house.b", "house.c"]]


def test_importing_the_whole_core_loads_no_qt() -> None:
    """What the contracts cannot see: a module loaded by name at run time (importlib) pulling Qt in."""
    core = PACKAGE / "core"
    modules = ["lnl_desktop.core." + ".".join(p.relative_to(core).with_suffix("").parts) for p in core.rglob("*.py")]
    modules = [m.removesuffix(".__init__") for m in modules]
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "from lnl_desktop.core.rules.registry import all_rulesets\n"
        "list(all_rulesets())\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {QT!r}]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
