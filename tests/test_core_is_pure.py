"""The rules core must never import Qt: it runs in scripts, tests and servers without a GUI."""

import ast
import subprocess
import sys
from pathlib import Path

import lnl_desktop.core

FORBIDDEN = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6")
CORE = Path(lnl_desktop.core.__file__).parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_core_module_imports_qt_in_its_source() -> None:
    files = sorted(CORE.rglob("*.py"))
    assert len(files) >= 8
    offenders = [
        f"{path.relative_to(CORE)} imports {name}"
        for path in files
        for name in imported_modules(path)
        if name.split(".")[0] in FORBIDDEN
    ]
    assert offenders == []


def test_importing_the_whole_core_loads_no_qt() -> None:
    modules = [
        "lnl_desktop.core." + ".".join(p.relative_to(CORE).with_suffix("").parts)
        for p in CORE.rglob("*.py")
        if p.name != "__init__.py"
    ]
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_checker_would_catch_a_qt_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from PySide6.QtCore import QObject\nimport shiboken6\n")
    assert {"PySide6.QtCore", "shiboken6"} <= imported_modules(bad)
