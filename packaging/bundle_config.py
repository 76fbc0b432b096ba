"""What the frozen bundle is called and what goes into it.

One module read by the PyInstaller spec, ``build.py``, ``smoke_test.py``, the bundle benchmark and
``tests/test_packaging.py``, so names, the version and the Qt trimming rules live in one place.
It imports nothing outside the standard library (the spec runs it inside PyInstaller; the tests
import it without Qt). Load it by path (``importlib.util.spec_from_file_location``), never as
``packaging.bundle_config``: ``packaging`` is also the name of a PyPI library.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
RESOURCES = ROOT / "resources"
ICONS = RESOURCES / "icons"

APP_NAME = "Laurels & Loot Desktop"
EXE_NAME = "lnl-desktop"  # the executable, the onedir folder, the .desktop file's name
BUNDLE_ID = "org.laurelsandloot.desktop"  # macOS CFBundleIdentifier
PUBLISHER = "Laurels & Loot Desktop contributors"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512, 1024)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # what Windows shows; 256 is the largest an .ico holds
# ICNS element types with PNG payloads, by pixel size (ic11-ic14 are the @2x variants).
ICNS_TYPES = (
    ("icp4", 16),
    ("icp5", 32),
    ("icp6", 64),
    ("ic07", 128),
    ("ic08", 256),
    ("ic09", 512),
    ("ic10", 1024),
    ("ic11", 32),
    ("ic12", 64),
    ("ic13", 256),
    ("ic14", 512),
)

SIZE_BUDGET_MB = 110

DIST = ROOT / "dist"
BUILD = ROOT / "build"
BUILD_VENV = BUILD / "bundle-venv"

# -- Qt: what the app uses, everything else stays out ------------------------------------------

# PySide6 Python modules the app imports. QtSvg and QtTest pyqtgraph imports inside try/except:
# without them only its SVG export (the chart's menu is off) and test helpers are missing.
QT_MODULES_KEPT = ("QtCore", "QtGui", "QtWidgets")
# Left out although pyqtgraph imports them when it is imported (pyqtgraph/Qt/OpenGLHelpers.py,
# graphicsItems/PlotCurveItem.py..., not in a try): only for its OpenGL viewport, off unless
# useOpenGL=True, which the app never asks for. The runtime hook below gives pyqtgraph stand-ins
# that refuse to be used; the self check draws the chart with them. 9 MB.
QT_MODULES_LEFT_OUT = ("QtOpenGL", "QtOpenGLWidgets")
RUNTIME_HOOKS = (PACKAGING / "pyi_rth_qt_opengl_left_out.py",)
QT_MODULES_EXCLUDED = (
    "Qt3DAnimation",
    "Qt3DCore",
    "Qt3DExtras",
    "Qt3DInput",
    "Qt3DLogic",
    "Qt3DRender",
    "QtAxContainer",
    "QtBluetooth",
    "QtCanvasPainter",
    "QtCharts",
    "QtConcurrent",
    "QtDataVisualization",
    "QtDBus",
    "QtDesigner",
    "QtGraphs",
    "QtGraphsWidgets",
    "QtHelp",
    "QtHttpServer",
    "QtLocation",
    "QtMultimedia",
    "QtMultimediaWidgets",
    "QtNetwork",
    "QtNetworkAuth",
    "QtNfc",
    "QtPdf",
    "QtPdfWidgets",
    "QtPositioning",
    "QtPrintSupport",
    "QtQml",
    "QtQuick",
    "QtQuick3D",
    "QtQuickControls2",
    "QtQuickTest",
    "QtQuickWidgets",
    "QtRemoteObjects",
    "QtScxml",
    "QtSensors",
    "QtSerialBus",
    "QtSerialPort",
    "QtSpatialAudio",
    "QtSql",
    "QtStateMachine",
    "QtSvg",
    "QtSvgWidgets",
    "QtTest",
    "QtTextToSpeech",
    "QtUiTools",
    "QtWebChannel",
    "QtWebEngineCore",
    "QtWebEngineQuick",
    "QtWebEngineWidgets",
    "QtWebSockets",
    "QtWebView",
    "QtXml",
)

NUMPY_TEST_MODULES = (
    "numpy.testing",
    "numpy._core._multiarray_tests",
    "numpy._core._umath_tests",
    "numpy._core._rational_tests",
    "numpy._core._struct_ufunc_tests",
    "numpy._core._operand_flag_tests",
    "numpy._core._simd",
)

# -- numpy without OpenBLAS (Linux) ------------------------------------------------------------

# numpy's Linux wheels carry OpenBLAS and its Fortran runtime (numpy.libs/, 28.5 MB). The app's
# arrays are small (map masks, dice distributions) and it does no heavy linear algebra, so on Linux
# build.py builds the same numpy version from its source with these meson options: numpy's own
# loops and its bundled lapack_lite instead of BLAS and LAPACK.
NUMPY_BUILD_OPTIONS = (
    "-Dblas=none",
    "-Dlapack=none",
    "-Dallow-noblas=true",
    # Intel's x86-simd-sort: AVX2/AVX-512 sort kernels (1.4 MB); numpy's own sort does the app's few sorts.
    "-Ddisable-intel-sort=true",
    "-Dtest-simd=[]",  # the SIMD test module, never bundled
    # Linked without symbol tables, as numpy's wheels are (meson-python ignores -Dstrip): 0.5 MB.
    "-Dc_link_args=-Wl,--strip-all",
    "-Dcpp_link_args=-Wl,--strip-all",
)
# x86-64: SIMD kernels for AVX2 (X86_V3) over the SSE4.2 baseline, not the AVX-512 ones, which only
# speed up large arrays (3 MB). Other machines keep numpy's default set.
NUMPY_X86_64_OPTIONS = ("-Dcpu-dispatch=X86_V3",)


def numpy_build_options(machine: str) -> tuple[str, ...]:
    """The meson options of build.py's numpy source build on a machine (``platform.machine()``)."""
    x86_64 = machine.lower() in ("x86_64", "amd64")
    return NUMPY_BUILD_OPTIONS + (NUMPY_X86_64_OPTIONS if x86_64 else ())


# Python modules never to bundle: other Qt bindings (pyqtgraph must find PySide6 and nothing else),
# optional extras of pyqtgraph and numpy the app never touches, and GUI toolkits it does not use.
EXCLUDED_MODULES = (
    *(f"PySide6.{name}" for name in QT_MODULES_EXCLUDED + QT_MODULES_LEFT_OUT),
    "PyQt5",
    "PyQt6",
    "PySide2",
    "sip",
    "shiboken2",
    "tkinter",
    "_tkinter",
    "matplotlib",
    "scipy",
    "IPython",
    "jupyter_rfb",
    "OpenGL",
    "cupy",
    "numba",
    "h5py",
    "colorcet",
    # pyqtgraph's parts that `import pyqtgraph` does not load (its multiprocess, cupy and numba
    # helpers it does load: they stay, the smoke test's self check draws a chart to prove it).
    "pyqtgraph.opengl",
    "pyqtgraph.examples",
    "pyqtgraph.jupyter",
    "pyqtgraph.console",
    "pyqtgraph.canvas",
    "pyqtgraph.flowchart",
    "pytest",
    "hypothesis",
    "numpy.f2py",
    "numpy.distutils",
    # numpy loads its random module only when asked (numpy.random); neither the app nor the parts
    # of pyqtgraph it uses ask (pyqtgraph's scatter-plot jitter would). 2.5 MB.
    "numpy.random",
    # Likewise numpy.fft: only pyqtgraph's FFT view of a curve asks for it (the app's chart draws
    # bars, its menu is off). 0.6 MB.
    "numpy.fft",
    # numpy's own tests' modules: numpy imports none of them outside its test suite (its PyInstaller
    # hook names _multiarray_tests "used in tests (which are not packed)").
    *NUMPY_TEST_MODULES,
    # numpy's masked arrays and polynomial classes: loaded only when asked (numpy.ma, numpy.polynomial),
    # which neither the app nor pyqtgraph does.
    "numpy.ma",
    "numpy.polynomial",
    # The texts of help("topic"); pydoc (which pyqtgraph imports) loads them only then.
    "pydoc_data",
    # The app never goes online and keeps no secrets: without these two the standard library
    # falls back on its own (ssl: "no SSL support"; hashlib: the built-in hashes), and OpenSSL
    # (5 MB) stays out of the bundle.
    "_ssl",
    "_hashlib",
    "readline",  # pdb and friends do without it; its libreadline is not needed
)

# Qt plugins kept, by plugin folder: the offscreen (smoke test, CI), X11 and Wayland windows on
# Linux, the native one on Windows and macOS; JPEG images (PNG is built into QtGui) for battle map
# backgrounds; the desktop's file dialogs and input methods (compose keys, IBus) on Linux.
QT_PLUGINS_KEPT = {
    "platforms": (
        "qoffscreen",
        "qxcb",
        "qwayland",
        "qwayland-egl",
        "qwayland-generic",
        "qwindows",
        "qcocoa",
    ),
    "imageformats": ("qjpeg",),
    "xcbglintegrations": ("qxcb-egl-integration", "qxcb-glx-integration"),
    "wayland-shell-integration": ("xdg-shell",),
    "wayland-decoration-client": ("bradient",),
    "wayland-graphics-integration-client": ("qt-plugin-wayland-egl", "shm-emulation-server"),
    # Not qgtk3: it would drag half of GTK (cairo, pango, gdk-pixbuf...) from the build machine
    # into the bundle, to mix with the user's own GTK at run time. The portal theme asks the
    # desktop over D-Bus instead (native file dialogs on GNOME and KDE).
    "platformthemes": ("qxdgdesktopportal",),
    "platforminputcontexts": ("composeplatforminputcontextplugin", "ibusplatforminputcontextplugin"),
    "styles": ("qmodernwindowsstyle", "qwindowsvistastyle", "qmacstyle"),
}
# Single files PySide6 ships that the app has no use for: Mesa's software OpenGL for Windows (20 MB;
# the app draws with QPainter, not OpenGL).
DROPPED_FILES = ("opengl32sw.dll",)
# Packages whose metadata (dist-info: their licence texts) the bundle carries whether or not a
# module asks for it: numpy's came only with numpy.testing, which is left out.
METADATA_KEPT = ("numpy",)
# Installed packages' metadata no run-time code reads: RECORD, pip's list of the installed files
# (numpy's is 0.13 MB). METADATA, licences and entry points stay: importlib.metadata reads them.
DROPPED_METADATA = ("RECORD",)
# Folders of data files left out: pyqtgraph's own logo, set only by its mkQApp() (the app makes
# its QApplication itself and has its own icon).
DROPPED_FOLDERS = ("pyqtgraph/icons/peegee/",)

# Linux: libraries every desktop has (the core of X11, fonts, GLib, D-Bus, compression, the C++
# runtime), taken from the user's system like libc and libGL, not copied from the build machine:
# a bundled copy can be older than what the user's graphics driver or GTK needs (libstdc++ is the
# usual victim). The idea of the AppImage project's exclude list; these are what dev.py installs
# for Qt (libgl1, libegl1, libfontconfig1, libglib2.0-0, libdbus-1-3) and what those pull in.
# Kept in the bundle: the xcb-util libraries and xkbcommon-x11 (often missing, see dev.py), libffi
# and libbz2 (their file names differ between distributions).
LINUX_SYSTEM_LIBRARIES = (
    "libX11.so.6",
    "libX11-xcb.so.1",
    "libXau.so.6",
    "libXdmcp.so.6",
    "libXext.so.6",
    "libXrender.so.1",
    "libxcb.so.1",
    "libbsd.so.0",
    "libmd.so.0",
    "libfontconfig.so.1",
    "libfreetype.so.6",
    "libexpat.so.1",
    "libpng16.so.16",
    "libbrotlicommon.so.1",
    "libbrotlidec.so.1",
    "libz.so.1",
    "liblzma.so.5",
    "libzstd.so.1",
    "liblz4.so.1",
    "libglib-2.0.so.0",
    "libgthread-2.0.so.0",
    "libpcre2-8.so.0",
    "libuuid.so.1",
    "libdbus-1.so.3",
    "libsystemd.so.0",
    "libgcrypt.so.20",
    "libgpg-error.so.0",
    "libcap.so.2",
    "libstdc++.so.6",
    "libgcc_s.so.1",
)


def read_version(root: Path = ROOT) -> str:
    """``lnl_desktop.__version__``, read from the source without importing the package."""
    text = (root / "lnl_desktop" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', text, re.MULTILINE)
    if not match:
        raise SystemExit("lnl_desktop/__init__.py has no __version__ = '...' line")
    return match.group(1)


def version_tuple(version: str) -> tuple[int, int, int, int]:
    """The four numbers Windows wants: 1.2.3 -> (1, 2, 3, 0); 2.0rc1 -> (2, 0, 0, 0)."""
    match = re.match(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?", version)
    if not match:
        raise ValueError(f"not a version: {version!r}")
    major, minor, patch = (int(part or 0) for part in match.groups())
    return major, minor, patch, 0


def platform_tag() -> str:
    """``linux-x86_64``, ``windows-amd64``, ``macos-arm64``: for artifact names."""
    import platform

    machine = platform.machine().lower() or "unknown"
    system = {"linux": "linux", "win32": "windows", "darwin": "macos"}.get(sys.platform, sys.platform)
    return f"{system}-{machine}"


def tarball_name(version: str) -> str:
    return f"{EXE_NAME}-{version}-{platform_tag()}.tar.gz"


def windows_version_info(version: str) -> str:
    """A PyInstaller version file (the ``VSVersionInfo`` structure ``EXE(version=...)`` reads)."""
    numbers = version_tuple(version)
    fields = {
        "CompanyName": PUBLISHER,
        "FileDescription": APP_NAME,
        "FileVersion": version,
        "InternalName": EXE_NAME,
        "LegalCopyright": "Code: MIT. Laurels & Loot rules: CC BY 4.0 Bob O'Brien.",
        "OriginalFilename": f"{EXE_NAME}.exe",
        "ProductName": APP_NAME,
        "ProductVersion": version,
    }
    strings = ",\n".join(f"          StringStruct({key!r}, {value!r})" for key, value in fields.items())
    return f"""# Generated by packaging/build.py from lnl_desktop.__version__ ({version}): do not edit.
VSVersionInfo(
  ffi=FixedFileInfo(
    filevers={numbers},
    prodvers={numbers},
    mask=0x3f,
    flags=0x0,
    OS=0x40004,
    fileType=0x1,
    subtype=0x0,
    date=(0, 0)
  ),
  kids=[
    StringFileInfo([
      StringTable(
        '040904B0',
        [
{strings}
        ])
    ]),
    VarFileInfo([VarStruct('Translation', [1033, 1200])])
  ]
)
"""


def qt_file_kept(dest: str) -> bool:
    """Whether a file PyInstaller collected for PySide6 belongs in the bundle.

    ``dest`` is its path inside the bundle (``PySide6/Qt/plugins/platforms/libqxcb.so``). Plugins
    not in ``QT_PLUGINS_KEPT``, all translations, QML and the shiboken/PySide6 build-time files go.
    """
    parts = dest.replace("\\", "/").split("/")
    if not parts or parts[0] != "PySide6":
        return True
    if "translations" in parts or "qml" in parts or "metatypes" in parts:
        return False
    if parts[-1].endswith((".pyi", ".cmake", ".h")) or "typesystems" in parts or "include" in parts:
        return False
    if "plugins" in parts:
        where = parts.index("plugins")
        if len(parts) < where + 3:
            return True
        folder, name = parts[where + 1], parts[-1]
        stem = name.split(".")[0].removeprefix("lib")
        return stem in QT_PLUGINS_KEPT.get(folder, ())
    return True


def qt_library(dest: str) -> str | None:
    """``"Gui"`` for libQt6Gui.so.6, Qt6Gui.dll or a macOS QtGui.framework binary; else None."""
    normal = dest.replace("\\", "/")
    base = normal.rsplit("/", 1)[-1]
    for prefix in ("libQt6", "Qt6"):
        if base.startswith(prefix):
            stem = base[len(prefix) :].split(".")[0]
            return stem if stem.isalnum() else None
    if base.startswith("Qt") and "." not in base and f"/{base}.framework/" in f"/{normal}":
        return base[2:]
    return None


def _is_plugin(dest: str) -> bool:
    return "plugins" in dest.replace("\\", "/").split("/")


def prune(binaries, datas, links_of, *, only_qt_libraries: bool):
    """Trim PyInstaller's collected files; returns (binaries, datas, dropped).

    Entries are PyInstaller TOC tuples ``(dest_name, src_name, typecode)``; ``links_of(src)``
    gives the names of the shared libraries a binary links to. Steps: drop what ``qt_file_kept``
    rejects, ``DROPPED_FILES``, ``DROPPED_FOLDERS`` and ``DROPPED_METADATA``; then keep a shared
    library only if something kept still links to it, directly or through other kept libraries
    (so the libraries a dropped plugin dragged in go with it, and numpy's OpenBLAS when numpy was
    built without it). The roots are Python extension modules, kept Qt plugins and the Python
    library. With ``only_qt_libraries`` (Windows, macOS) only Qt's own libraries may go; on Linux
    any library may, which matters as PyInstaller also copies system libraries there.
    ``LINUX_SYSTEM_LIBRARIES`` go too on Linux. Symbolic links whose target went are dropped.
    """
    dropped = []

    def keep_file(entry) -> bool:
        dest = entry[0]
        if entry[2] == "SYMLINK":
            return True  # decided at the end, by its target
        parent, _, name = dest.replace("\\", "/").rpartition("/")
        system = not only_qt_libraries and name in LINUX_SYSTEM_LIBRARIES
        folder = dest.replace("\\", "/").startswith(DROPPED_FOLDERS)
        metadata = name in DROPPED_METADATA and parent.endswith(".dist-info")
        if not qt_file_kept(dest) or name.lower() in DROPPED_FILES or system or folder or metadata:
            dropped.append(entry)
            return False
        return True

    binaries = [entry for entry in binaries if keep_file(entry)]
    datas = [entry for entry in datas if keep_file(entry)]

    def candidate(entry) -> bool:
        dest, _, typecode = entry
        if typecode != "BINARY" or _is_plugin(dest) or ("python3" in dest.lower() and "lib-dynload" not in dest):
            return False
        return bool(qt_library(dest)) if only_qt_libraries else True

    candidates = {entry[0]: entry for entry in binaries if candidate(entry)}
    by_name = {dest.replace("\\", "/").rsplit("/", 1)[-1].lower(): dest for dest in candidates}
    reached: set[str] = set()
    pending = [entry[1] for entry in binaries if entry[0] not in candidates and entry[2] != "SYMLINK"]
    seen: set[str] = set()
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in links_of(path):
            dest = by_name.get(name.replace("\\", "/").rsplit("/", 1)[-1].lower())
            if dest and dest not in reached:
                reached.add(dest)
                pending.append(candidates[dest][1])
    kept_qt = {qt_library(dest) for dest in reached}
    present_qt = {qt_library(dest) for dest in candidates}
    missing = {"Core", "Gui", "Widgets"} & present_qt - kept_qt
    if missing:  # the link analysis failed: better a bigger bundle than a broken one
        print(f"bundle_config.prune: Qt{', Qt'.join(sorted(missing))} not reached by link analysis; keeping all")
        reached = set(candidates)
    dropped += [entry for dest, entry in candidates.items() if dest not in reached]
    binaries = [entry for entry in binaries if entry[0] not in candidates or entry[0] in reached]
    # macOS: a dropped Qt framework's other files (Resources/Info.plist...) go with its binary.
    frameworks = tuple(
        dest.replace("\\", "/").split(".framework/")[0] + ".framework/"
        for dest in candidates
        if dest not in reached and ".framework/" in dest.replace("\\", "/")
    )
    if frameworks:
        dropped += [entry for entry in binaries + datas if entry[0].replace("\\", "/").startswith(frameworks)]
        binaries = [entry for entry in binaries if not entry[0].replace("\\", "/").startswith(frameworks)]
        datas = [entry for entry in datas if not entry[0].replace("\\", "/").startswith(frameworks)]

    kept = {entry[0].replace("\\", "/") for entry in binaries + datas if entry[2] != "SYMLINK"}

    def link_target_kept(entry) -> bool:
        if entry[2] != "SYMLINK":
            return True
        dest = entry[0].replace("\\", "/")
        folder = dest.rsplit("/", 1)[0] if "/" in dest else ""
        target = posixpath.normpath(posixpath.join(folder, entry[1].replace("\\", "/")))
        if target in kept:
            return True
        dropped.append(entry)
        return False

    binaries = [entry for entry in binaries if link_target_kept(entry)]
    datas = [entry for entry in datas if link_target_kept(entry)]
    return binaries, datas, dropped
