"""The installers' sources agree with each other: version source, icons, smoke test. Fast: no build, no Qt.

Building and running the frozen bundle is .ci/run's job (packaging/build.py, packaging/smoke_test.py);
here only the committed files are read.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import struct
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import lnl_desktop

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
ICONS = ROOT / "resources" / "icons"
SPEC = PACKAGING / "lnl-desktop.spec"
DESKTOP = PACKAGING / "linux" / "lnl-desktop.desktop"
ISS = PACKAGING / "windows" / "lnl-desktop.iss"
WORKFLOW = ROOT / ".github" / "workflows" / "installers.yml"


def load(name: str) -> ModuleType:
    """A packaging/ module by path (``packaging`` is also a PyPI library's name)."""
    spec = importlib.util.spec_from_file_location(f"lnl_{name}", PACKAGING / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


config = load("bundle_config")
elf_trim = load("elf_trim")


# -- one version, in lnl_desktop/__init__.py ---------------------------------------------------


def test_the_version_is_dynamic_from_the_package() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "lnl_desktop.__version__"}
    assert pyproject["project"]["gui-scripts"]["lnl-desktop"] == "lnl_desktop.__main__:main"


def test_the_packaging_reads_the_same_version_as_the_package() -> None:
    assert config.read_version() == lnl_desktop.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+([.+-]?\w+)*", lnl_desktop.__version__)


@pytest.mark.parametrize("path", [SPEC, DESKTOP, ISS, WORKFLOW, *PACKAGING.glob("**/*.py"), *PACKAGING.glob("**/*.sh")])
def test_no_packaging_file_repeats_the_version(path: Path) -> None:
    assert lnl_desktop.__version__ not in path.read_text(encoding="utf-8"), f"{path.name} hard-codes the version"


def test_windows_version_info_is_generated_from_the_version() -> None:
    text = config.windows_version_info("1.2.3")
    assert "filevers=(1, 2, 3, 0)" in text and "prodvers=(1, 2, 3, 0)" in text
    assert "StringStruct('ProductVersion', '1.2.3')" in text
    assert "StringStruct('OriginalFilename', 'lnl-desktop.exe')" in text
    assert config.version_tuple("2.0rc1") == (2, 0, 0, 0)
    assert config.version_tuple("0.10.2.post1") == (0, 10, 2, 0)
    assert config.tarball_name("1.2.3").startswith("lnl-desktop-1.2.3-")


# -- the spec --------------------------------------------------------------------------------


def spec_calls() -> dict[str, ast.Call]:
    tree = ast.parse(SPEC.read_text(encoding="utf-8"))
    calls = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls.setdefault(node.func.id, node)
    return calls


def keywords(call: ast.Call) -> dict[str, str]:
    return {kw.arg: ast.unparse(kw.value) for kw in call.keywords if kw.arg}


def test_the_spec_makes_a_one_folder_bundle_with_resources_icon_and_version() -> None:
    calls = spec_calls()
    assert {"Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE"} <= set(calls)
    exe = keywords(calls["EXE"])
    assert exe["exclude_binaries"] == "True", "one folder: the binaries go to COLLECT, not into the .exe"
    assert exe["console"] == "False"
    assert "ICON_ICO" in exe["icon"] and "ICON_ICNS" in exe["icon"]
    assert exe["version"] == "VERSION_INFO"
    analysis = keywords(calls["Analysis"])
    assert "config.RESOURCES" in analysis["datas"] and "'resources'" in analysis["datas"]
    assert "EXCLUDED_MODULES" in analysis["excludes"]
    bundle = keywords(calls["BUNDLE"])
    assert "CFBundleShortVersionString" in bundle["info_plist"] and "CFBundleVersion" in bundle["info_plist"]
    assert bundle["version"] == "VERSION" and "ICON_ICNS" in bundle["icon"]
    text = SPEC.read_text(encoding="utf-8")
    assert "VERSION = config.read_version()" in text and "lnl_desktop.__version__ != VERSION" in text
    assert 'ICON_ICO = str(config.ICONS / "lnl-desktop.ico")' in text
    assert 'ICON_ICNS = str(config.ICONS / "lnl-desktop.icns")' in text
    assert (PACKAGING / "launcher.py").exists() and "launcher.py" in text


def test_the_spec_leaves_out_other_bindings_and_unused_qt() -> None:
    excluded = set(config.EXCLUDED_MODULES)
    assert {"PyQt5", "PyQt6", "PySide2", "tkinter"} <= excluded
    for name in ("QtWebEngineCore", "Qt3DCore", "QtQuick", "QtQml", "QtMultimedia", "QtNetwork", "QtSvg"):
        assert f"PySide6.{name}" in excluded
    for name in ("QtCore", "QtGui", "QtWidgets"):
        assert f"PySide6.{name}" not in excluded
    # pyqtgraph imports these two, for its OpenGL viewport only: left out, the runtime hook stands in.
    assert set(config.QT_MODULES_LEFT_OUT) == {"QtOpenGL", "QtOpenGLWidgets"}
    assert {"PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets"} <= excluded
    assert not set(config.QT_MODULES_KEPT) & (set(config.QT_MODULES_EXCLUDED) | set(config.QT_MODULES_LEFT_OUT))
    assert keywords(spec_calls()["Analysis"])["runtime_hooks"] == "[str(hook) for hook in config.RUNTIME_HOOKS]"
    assert [hook.name for hook in config.RUNTIME_HOOKS] == ["pyi_rth_qt_opengl_left_out.py"]
    assert all(hook.is_file() for hook in config.RUNTIME_HOOKS)


def test_numpy_s_licence_ships_although_numpy_testing_stays_out() -> None:
    assert "numpy" in config.METADATA_KEPT
    assert "config.METADATA_KEPT" in keywords(spec_calls()["Analysis"])["datas"]


def test_numpy_parts_the_app_never_loads_stay_out() -> None:
    excluded = set(config.EXCLUDED_MODULES)
    assert {"numpy.random", "numpy.fft", "numpy.testing", "numpy.f2py", "numpy._core._multiarray_tests"} <= excluded
    assert {"numpy._core._simd", "numpy._core._umath_tests", "numpy._core._rational_tests"} <= excluded
    # What numpy imports at once, and what the app and pyqtgraph use, stays in.
    assert {"numpy.ma", "numpy.polynomial"} <= excluded
    for kept in ("numpy", "numpy.linalg", "numpy.typing", "numpy.lib", "numpy._core", "numpy.matrixlib"):
        assert kept not in excluded


def opengl_stand_ins() -> tuple[ModuleType, object]:
    """The runtime hook's module and its finder, taken back off sys.meta_path (Qt's real modules are here)."""
    before = list(sys.meta_path)
    hook = load("pyi_rth_qt_opengl_left_out")
    added = [finder for finder in sys.meta_path if finder not in before]
    for finder in added:
        sys.meta_path.remove(finder)
    assert len(added) == 1 and sys.meta_path == before
    assert before[-1] is not added[0]
    return hook, added[0]


def test_the_opengl_stand_ins_can_be_subclassed_but_not_used() -> None:
    hook, finder = opengl_stand_ins()
    assert set(hook.LEFT_OUT) == {f"PySide6.{name}" for name in config.QT_MODULES_LEFT_OUT}
    assert finder.find_spec("PySide6.QtCore") is None and finder.find_spec("numpy") is None
    spec = finder.find_spec("PySide6.QtOpenGLWidgets")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.__name__ == "PySide6.QtOpenGLWidgets" and module.__lnl_left_out__

    class GraphicsViewGLWidget(module.QOpenGLWidget):  # what pyqtgraph/Qt/OpenGLHelpers.py does at import
        pass

    with pytest.raises(ImportError, match=r"PySide6\.QtOpenGLWidgets\.QOpenGLWidget is not in this bundle"):
        GraphicsViewGLWidget()
    assert module.QOpenGLWidget is module.QOpenGLWidget  # one class per name
    with pytest.raises(AttributeError):
        module.__wrapped__  # noqa: B018 - only Qt's names are stood in for
    assert not hasattr(module, "__all__")


def test_pyqtgraph_draws_its_chart_with_the_opengl_stand_ins() -> None:
    """As in the bundle, where Qt's OpenGL modules are missing: the stand-in finder answers first."""
    hook = PACKAGING / "pyi_rth_qt_opengl_left_out.py"
    code = f"""
import runpy, sys
runpy.run_path({str(hook)!r})
sys.meta_path.insert(0, sys.meta_path.pop())  # first, as if the real modules were not there
from PySide6.QtWidgets import QApplication
app = QApplication([])
import pyqtgraph as pg
assert sys.modules["PySide6.QtOpenGL"].__lnl_left_out__ and sys.modules["PySide6.QtOpenGLWidgets"].__lnl_left_out__
plot = pg.PlotWidget()
plot.addItem(pg.BarGraphItem(x=[1, 2, 3], height=[3, 1, 2], width=0.8, brush="b"))
plot.resize(200, 120)
image = plot.grab().toImage()
assert not image.isNull() and len({{image.pixel(x, y) for x in range(0, 200, 5) for y in range(0, 120, 5)}}) > 2
try:
    plot.useOpenGL(True)
except ImportError as error:
    print("refused:", error)
print("drawn")
"""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "refused: PySide6.QtOpenGLWidgets.QOpenGLWidget is not in this bundle" in result.stdout
    assert result.stdout.strip().endswith("drawn")


def test_numpy_is_built_without_blas_on_linux() -> None:
    options = config.numpy_build_options("x86_64")
    assert {"-Dblas=none", "-Dlapack=none", "-Dallow-noblas=true"} <= set(options)
    assert "-Dcpu-dispatch=X86_V3" in options  # AVX2 kernels kept on x86-64
    arm = config.numpy_build_options("aarch64")
    assert "-Dblas=none" in arm and not any(option.startswith("-Dcpu-dispatch") for option in arm)
    build = (PACKAGING / "build.py").read_text(encoding="utf-8")
    assert 'if sys.platform.startswith("linux"):\n        numpy_without_openblas()' in build
    assert '"--no-binary", "numpy", f"numpy=={version}"' in build, "the version the wheel had"
    assert "WARNING: numpy's source build failed, keeping its wheel" in build


@pytest.mark.parametrize(
    ("dest", "kept"),
    [
        ("PySide6/Qt/plugins/platforms/libqxcb.so", True),
        ("PySide6/Qt/plugins/platforms/libqwayland.so", True),
        ("PySide6/Qt/plugins/platforms/libqoffscreen.so", True),
        ("PySide6/Qt/plugins/platforms/libqeglfs.so", False),
        ("PySide6/plugins/platforms/qwindows.dll", True),
        ("PySide6/Qt/plugins/platforms/libqcocoa.dylib", True),
        ("PySide6/Qt/plugins/imageformats/libqjpeg.so", True),
        ("PySide6/Qt/plugins/imageformats/libqpdf.so", False),
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", False),
        ("PySide6/Qt/plugins/sqldrivers/libqsqlite.so", False),
        ("PySide6/Qt/translations/qtbase_de.qm", False),
        ("PySide6/translations/qtbase_de.qm", False),
        ("PySide6/Qt/qml/QtQuick/qmldir", False),
        ("PySide6/Qt/lib/libQt6Core.so.6", True),
        ("numpy/_core/_multiarray_umath.so", True),
    ],
)
def test_which_qt_files_stay(dest: str, kept: bool) -> None:
    assert config.qt_file_kept(dest) is kept


def test_prune_keeps_only_what_something_kept_links_to() -> None:
    binaries = [
        ("PySide6/QtWidgets.abi3.so", "/s/QtWidgets.abi3.so", "EXTENSION"),
        ("PySide6/Qt/lib/libQt6Widgets.so.6", "/s/libQt6Widgets.so.6", "BINARY"),
        ("PySide6/Qt/lib/libQt6Gui.so.6", "/s/libQt6Gui.so.6", "BINARY"),
        ("PySide6/Qt/lib/libQt6Core.so.6", "/s/libQt6Core.so.6", "BINARY"),
        ("PySide6/Qt/lib/libQt6Quick.so.6", "/s/libQt6Quick.so.6", "BINARY"),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", "/s/libqxcb.so", "BINARY"),
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", "/s/libqgtk3.so", "BINARY"),
        ("PySide6/Qt/plugins/wayland-graphics-integration-server/libx.so", "/s/libx.so", "BINARY"),
        ("libcairo.so.2", "/usr/lib/libcairo.so.2", "BINARY"),
        ("libxcb-cursor.so.0", "/usr/lib/libxcb-cursor.so.0", "BINARY"),
        ("libstdc++.so.6", "/usr/lib/libstdc++.so.6", "BINARY"),
        ("libQt6Quick.so.6", "PySide6/Qt/lib/libQt6Quick.so.6", "SYMLINK"),
        ("libQt6Core.so.6", "PySide6/Qt/lib/libQt6Core.so.6", "SYMLINK"),
    ]
    links = {
        "/s/QtWidgets.abi3.so": ["libQt6Widgets.so.6", "libQt6Core.so.6"],
        "/s/libQt6Widgets.so.6": ["libQt6Gui.so.6", "libstdc++.so.6"],
        "/s/libQt6Gui.so.6": ["libQt6Core.so.6"],
        "/s/libqxcb.so": ["libxcb-cursor.so.0", "libQt6Gui.so.6"],
        "/s/libqgtk3.so": ["libcairo.so.2"],
        "/s/libx.so": ["libQt6Quick.so.6"],
    }
    datas = [("PySide6/Qt/translations/qt_de.qm", "/s/qt_de.qm", "DATA"), ("resources/bestiary.json", "/r", "DATA")]
    kept, kept_data, dropped = config.prune(binaries, datas, lambda p: links.get(p, []), only_qt_libraries=False)
    names = {dest for dest, _, _ in kept}
    assert {"PySide6/Qt/lib/libQt6Core.so.6", "PySide6/Qt/lib/libQt6Gui.so.6", "libxcb-cursor.so.0"} <= names
    assert "libQt6Core.so.6" in names  # its symlink too
    for gone in ("libqgtk3.so", "libcairo.so.2", "libQt6Quick.so.6", "libstdc++.so.6", "libx.so"):
        assert not any(name.endswith(gone) for name in names), gone
    assert [dest for dest, _, _ in kept_data] == ["resources/bestiary.json"]
    assert len(dropped) == len(binaries) + len(datas) - len(kept) - len(kept_data)
    # Windows and macOS: only Qt's own libraries may go; a system library stays.
    kept, _, _ = config.prune(binaries, datas, lambda p: links.get(p, []), only_qt_libraries=True)
    assert "libcairo.so.2" in {dest for dest, _, _ in kept}
    # If the link analysis finds nothing, nothing of Qt's core is dropped.
    kept, _, _ = config.prune(binaries, datas, lambda p: [], only_qt_libraries=False)
    assert "PySide6/Qt/lib/libQt6Core.so.6" in {dest for dest, _, _ in kept}


def test_prune_drops_openblas_and_qt_opengl_when_nothing_kept_links_to_them() -> None:
    """numpy built without BLAS links to no OpenBLAS, so the wheel's copy would go; with the wheel's
    numpy (build.py's fallback) it stays. Without the QtOpenGLWidgets module its Qt library goes;
    libQt6OpenGL stays while a kept Wayland plugin links to it. pip's RECORD files go, METADATA stays."""
    core = ("numpy/_core/_multiarray_umath.so", "/s/_multiarray_umath.so", "EXTENSION")
    binaries = [
        core,
        ("numpy.libs/libscipy_openblas64_-1.so", "/s/libscipy_openblas64_-1.so", "BINARY"),
        ("numpy.libs/libgfortran-2.so.5.0.0", "/s/libgfortran-2.so.5.0.0", "BINARY"),
        ("numpy.libs/libquadmath-3.so.0.0.0", "/s/libquadmath-3.so.0.0.0", "BINARY"),
        ("PySide6/QtWidgets.abi3.so", "/s/QtWidgets.abi3.so", "EXTENSION"),
        ("PySide6/Qt/lib/libQt6Gui.so.6", "/s/libQt6Gui.so.6", "BINARY"),
        ("PySide6/Qt/lib/libQt6Core.so.6", "/s/libQt6Core.so.6", "BINARY"),
        ("PySide6/Qt/lib/libQt6Widgets.so.6", "/s/libQt6Widgets.so.6", "BINARY"),
        ("PySide6/Qt/lib/libQt6OpenGL.so.6", "/s/libQt6OpenGL.so.6", "BINARY"),
        ("PySide6/Qt/lib/libQt6OpenGLWidgets.so.6", "/s/libQt6OpenGLWidgets.so.6", "BINARY"),
        ("PySide6/Qt/plugins/wayland-graphics-integration-client/libqt-plugin-wayland-egl.so", "/s/egl.so", "BINARY"),
    ]
    datas = [
        ("numpy-2.4.6.dist-info/RECORD", "/s/RECORD", "DATA"),
        ("numpy-2.4.6.dist-info/METADATA", "/s/METADATA", "DATA"),
        ("numpy-2.4.6.dist-info/licenses/LICENSE.txt", "/s/LICENSE.txt", "DATA"),
    ]
    links = {
        "/s/QtWidgets.abi3.so": ["libQt6Widgets.so.6", "libQt6Gui.so.6", "libQt6Core.so.6"],
        "/s/libQt6Gui.so.6": ["libQt6Core.so.6"],
        "/s/libQt6Widgets.so.6": ["libQt6Gui.so.6"],
        "/s/libQt6OpenGLWidgets.so.6": ["libQt6OpenGL.so.6", "libQt6Widgets.so.6"],
        "/s/egl.so": ["libQt6OpenGL.so.6", "libQt6Gui.so.6"],
        "/s/libscipy_openblas64_-1.so": ["libgfortran-2.so.5.0.0"],
        "/s/libgfortran-2.so.5.0.0": ["libquadmath-3.so.0.0.0"],
    }
    kept, kept_data, _ = config.prune(binaries, datas, lambda p: links.get(p, []), only_qt_libraries=False)
    names = {dest.rsplit("/", 1)[-1] for dest, _, _ in kept}
    assert not {n for n in names if n.startswith(("libscipy_openblas", "libgfortran", "libquadmath"))}
    assert "libQt6OpenGLWidgets.so.6" not in names
    assert {"libQt6OpenGL.so.6", "libQt6Widgets.so.6", "libQt6Core.so.6", "_multiarray_umath.so"} <= names
    metadata = [dest for dest, _, _ in kept_data]
    assert metadata == ["numpy-2.4.6.dist-info/METADATA", "numpy-2.4.6.dist-info/licenses/LICENSE.txt"]
    # numpy's wheel links its core to OpenBLAS: then OpenBLAS and its Fortran runtime stay.
    links["/s/_multiarray_umath.so"] = ["libscipy_openblas64_-1.so"]
    kept, _, _ = config.prune(binaries, datas, lambda p: links.get(p, []), only_qt_libraries=False)
    names = {dest.rsplit("/", 1)[-1] for dest, _, _ in kept}
    assert {"libscipy_openblas64_-1.so", "libgfortran-2.so.5.0.0", "libquadmath-3.so.0.0.0"} <= names


def test_qt_library_names_on_each_os() -> None:
    assert config.qt_library("PySide6/Qt/lib/libQt6Gui.so.6") == "Gui"
    assert config.qt_library("PySide6/Qt6Widgets.dll") == "Widgets"
    assert config.qt_library("PySide6/Qt/lib/QtCore.framework/Versions/A/QtCore") == "Core"
    assert config.qt_library("PySide6/QtCore.abi3.so") is None
    assert config.qt_library("libpyside6.abi3.so.6.11") is None


# -- ICU data trimming (Linux) -----------------------------------------------------------------


def test_icu_common_data_round_trips_and_trims() -> None:
    header = struct.pack("<HBB", 32, 0xDA, 0x27) + b"\0" * 8 + b"CmnD" + b"\0" * 16
    items = [
        ("icudt73l/brkitr/word.brk", b"W" * 40),
        ("icudt73l/coll/root.res", b"C" * 17),
        ("icudt73l/root.res", b"R" * 5),
        ("icudt73l/unames.icu", b"U" * 9),
    ]
    blob = elf_trim.write_package(header, items)
    again_header, again = elf_trim.read_package(blob)
    assert again_header == header
    assert [name for name, _ in again] == [name for name, _ in items]
    for (_, original), (_, read) in zip(items, again, strict=True):
        assert read.startswith(original) and len(read) % 16 == 0
    assert elf_trim.write_package(again_header, again) == blob
    kept = [name for name, _ in items if not elf_trim.removed(name)]
    assert kept == ["icudt73l/coll/root.res", "icudt73l/root.res"]


def test_icu_data_of_the_installed_pyside6_is_read_exactly() -> None:
    import PySide6

    library = next(iter((Path(PySide6.__file__).parent / "Qt" / "lib").glob("libicudata.so.*")), None)
    if library is None:
        pytest.skip("PySide6 here carries no ICU data library (not Linux)")
    data = library.read_bytes()
    symbol, offset, size = elf_trim.find_data_symbol(data)
    assert re.fullmatch(r"icudt\d+_dat", symbol)
    header, items = elf_trim.read_package(data[offset : offset + size])
    assert elf_trim.write_package(header, items) == data[offset : offset + size]
    names = {name.split("/", 1)[1] for name, _ in items}
    assert {"coll/root.res", "zoneinfo64.res", "cnvalias.icu"} <= names  # what Qt reads stays
    assert any(name.startswith("brkitr/") for name in names)


# -- the icon --------------------------------------------------------------------------------


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("size", config.ICON_SIZES)
def test_the_icon_exists_at_each_size(size: int) -> None:
    data = (ICONS / f"lnl-desktop-{size}.png").read_bytes()
    assert png_size(data) == (size, size)
    assert data[25] == 6, "RGBA, so the corners are transparent"


def test_the_windows_icon_holds_every_size_up_to_256() -> None:
    data = (ICONS / "lnl-desktop.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind) == (0, 1)
    sizes = []
    for index in range(count):
        width, height, _, _, planes, bits, length, offset = struct.unpack_from("<BBBBHHII", data, 6 + 16 * index)
        side = width or 256
        assert (width, planes, bits) == (height, 1, 32)
        assert png_size(data[offset : offset + length]) == (side, side)
        sizes.append(side)
    assert sorted(sizes) == list(config.ICO_SIZES)


def test_the_macos_icon_holds_every_element_as_png() -> None:
    data = (ICONS / "lnl-desktop.icns").read_bytes()
    assert data[:4] == b"icns" and struct.unpack(">I", data[4:8])[0] == len(data)
    at, found = 8, []
    while at < len(data):
        kind, length = data[at : at + 4].decode(), struct.unpack(">I", data[at + 4 : at + 8])[0]
        found.append((kind, png_size(data[at + 8 : at + length])[0]))
        at += length
    assert found == list(config.ICNS_TYPES)
    assert {"ic07", "ic08", "ic09", "ic10", "ic11", "ic12", "ic13", "ic14"} <= {kind for kind, _ in found}


def test_make_icons_writes_what_is_committed() -> None:
    text = (PACKAGING / "make_icons.py").read_text(encoding="utf-8")
    assert "QPainter" in text and "config.ICON_SIZES" in text and "ico_bytes" in text and "icns_bytes" in text


def test_the_app_sets_its_window_icon_from_resources() -> None:
    text = (ROOT / "lnl_desktop" / "ui" / "window" / "app.py").read_text(encoding="utf-8")
    assert "app.setWindowIcon(application_icon())" in text
    assert 'resource("icons").glob("lnl-desktop-*.png")' in text


# -- the Linux .desktop file, the Inno Setup script, the workflow, CI ---------------------------


def test_the_desktop_file() -> None:
    text = DESKTOP.read_text(encoding="utf-8")
    entries = dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    assert text.startswith("[Desktop Entry]")
    assert entries["Type"] == "Application" and entries["Name"] == config.APP_NAME
    assert entries["Exec"] == "lnl-desktop %f" and entries["Icon"] == config.EXE_NAME
    assert entries["X-AppVersion"] == "@VERSION@", "build.py fills in lnl_desktop.__version__"
    assert "Game;" in entries["Categories"] and entries["Terminal"] == "false"
    validator = shutil.which("desktop-file-validate")
    if validator:
        result = subprocess.run([validator, str(DESKTOP)], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout


def test_install_sh_is_valid_shell() -> None:
    for script in (PACKAGING / "linux" / "install.sh", PACKAGING / "macos" / "make_dmg.sh"):
        assert subprocess.run(["sh", "-n", str(script)], capture_output=True).returncode == 0, script.name


def test_the_inno_setup_script() -> None:
    text = ISS.read_text(encoding="utf-8")
    assert "AppVersion={#AppVersion}" in text
    assert 'GetStringFileInfo(BundleDir + "\\" + AppExe, "ProductVersion")' in text, "falls back on the exe's version"
    assert "OutputBaseFilename=lnl-desktop-{#AppVersion}-windows-x64-setup" in text
    assert r"SetupIconFile=..\..\resources\icons\lnl-desktop.ico" in text
    assert (ISS.parent / r"..\..\resources\icons\lnl-desktop.ico".replace("\\", "/")).resolve().exists()
    assert '"{#BundleDir}\\*"' in text and r"..\..\dist\lnl-desktop" in text
    assert 'Name: "{autoprograms}\\{#AppName}"' in text, "a Start menu entry"
    assert "UninstallDisplayIcon={app}\\{#AppExe}" in text and "Uninstallable=no" not in text
    assert re.search(r"AppId=\{\{[0-9A-F-]{36}\}", text)


def workflow_jobs() -> dict[str, str]:
    """The workflow's jobs, by name, as text (no YAML library needed)."""
    body = WORKFLOW.read_text(encoding="utf-8").split("\njobs:\n", 1)[1]
    jobs: dict[str, str] = {}
    name = ""
    for line in body.splitlines():
        header = re.fullmatch(r"  (\w+):", line)
        if header:
            name = header.group(1)
            jobs[name] = ""
        elif name:
            jobs[name] += line + "\n"
    return jobs


def test_the_workflow_builds_and_smoke_tests_on_each_os() -> None:
    jobs = workflow_jobs()
    runners = {name: re.search(r"runs-on: (\S+)", job).group(1) for name, job in jobs.items()}  # type: ignore[union-attr]
    assert runners == {"linux": "ubuntu-latest", "windows": "windows-latest", "macos": "macos-latest"}
    for job in jobs.values():
        assert "python packaging/build.py --print-version" in job, "the version comes from the package"
        assert "run: python packaging/build.py\n" in job
        assert "packaging/smoke_test.py" in job
        assert "actions/upload-artifact" in job
    assert "QT_QPA_PLATFORM: offscreen" in WORKFLOW.read_text(encoding="utf-8")
    assert "packaging\\windows\\lnl-desktop.iss" in jobs["windows"] and "/DAppVersion=" in jobs["windows"]
    assert "unins000.exe" in jobs["windows"], "the uninstaller is tested too"
    assert "packaging/macos/make_dmg.sh" in jobs["macos"] and "hdiutil attach" in jobs["macos"]
    assert "--privileged" in jobs["linux"], "the Linux smoke test may cut the network"


def test_ci_builds_and_smoke_tests_the_bundle_after_the_tests() -> None:
    lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert "set -euo pipefail" in lines
    commands = ("python3 dev.py test", "python3 packaging/build.py", "python3 packaging/smoke_test.py")
    test, build, smoke = (lines.index(command) for command in commands)
    assert test < build < smoke


def test_the_readme_has_the_one_packaging_command() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Packaging", 1)[1].split("\n## ", 1)[0]
    assert "python3 packaging/build.py" in section and "packaging/smoke_test.py" in section


def test_the_spec_is_run_from_a_clean_venv_only() -> None:
    build = (PACKAGING / "build.py").read_text(encoding="utf-8")
    assert "venv.EnvBuilder(with_pip=True, clear=True)" in build
    assert '"install"' in build and '"-e"' not in build and "--editable" not in build


def test_the_bundles_ruleset_self_check_passes_from_source() -> None:
    """The self check the frozen bundle runs for every built-in ruleset (its demo's first round,
    a declare phase included) holds here too, so a ruleset cannot break it unnoticed until a build."""
    load("bundle_self_check").check_rulesets()


def test_the_bundles_chart_self_check_passes_from_source(qtbot: object) -> None:
    """The Forecast chart self check (Ctrl+D on the demo: pyqtgraph loaded, bars drawn) holds from
    source too, so a change to when the chart is built cannot break the bundle's check unnoticed."""
    load("bundle_self_check").check_chart()
