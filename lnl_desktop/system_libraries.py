"""Before the first window on a Linux X11 desktop: are the system libraries Qt's X11 plugin needs there?

Qt 6's X11 ("xcb") platform plugin links a dozen X helper libraries that a pip-installed PySide6
takes from the system. Without one of them Qt prints a raw plugin error and aborts. The program
asks first, by loading the plugin itself (and ``libxcb-cursor``, which the plugin loads only later),
and on a failure says which library is missing and the command that installs it.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

# Library file -> (Debian/Ubuntu package, Fedora package).
PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libSM.so.6": ("libsm6", "libSM"),
    "libICE.so.6": ("libice6", "libICE"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
}
# Loaded by the plugin only when the first window is made, so loading the plugin does not find it missing.
LOADED_LATER = ("libxcb-cursor.so.0",)
EXIT_MISSING_LIBRARY = 3


def uses_x11(environ: Mapping[str, str]) -> bool:
    """Whether Qt will open its windows through the X11 plugin (not offscreen, not Wayland)."""
    requested = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if requested:
        return requested == "xcb"
    if environ.get("XDG_SESSION_TYPE") == "wayland" and environ.get("WAYLAND_DISPLAY"):
        return False  # Qt takes its Wayland plugin there
    return bool(environ.get("DISPLAY"))


def _failed_library(error: OSError) -> str:
    """The library a dlopen error names: '/usr/lib/libxcb-icccm.so.4: cannot open shared object file...'."""
    return Path(str(error).split(":", 1)[0].strip()).name


def _ldd_missing(library: Path) -> set[str]:
    """Every library ``library`` needs that the system lacks (ldd lists each as 'not found')."""
    try:
        ldd = subprocess.run(["ldd", str(library)], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return set()
    return {line.split()[0] for line in ldd.stdout.splitlines() if "not found" in line}


def missing_libraries(plugin: Path) -> list[str]:
    """The system libraries the X11 plugin at ``plugin`` cannot load ([] when it loads)."""
    missing: set[str] = set()
    try:
        ctypes.CDLL(str(plugin))
    except OSError as error:
        # dlopen names only the first library it lacks; ldd lists them all.
        missing = {_failed_library(error)} | _ldd_missing(plugin)
        for linked in (plugin.parents[2] / "lib").glob("libQt6XcbQpa.so*"):
            missing |= _ldd_missing(linked)
        missing.discard(plugin.name)
    bundled = Path(getattr(sys, "_MEIPASS", "/nonexistent"))  # a frozen bundle carries its own copies
    for name in LOADED_LATER:
        if (bundled / name).exists():
            continue
        try:
            ctypes.CDLL(name)
        except OSError:
            missing.add(name)
    return sorted(missing)


def explain(missing: list[str]) -> str:
    """What the GM reads: the libraries, and the commands that install them on Debian/Ubuntu and Fedora."""
    debian = sorted({PACKAGES[name][0] for name in missing if name in PACKAGES})
    fedora = sorted({PACKAGES[name][1] for name in missing if name in PACKAGES})
    unknown = [name for name in missing if name not in PACKAGES]
    what = f"libraries {', '.join(missing)} are" if len(missing) > 1 else f"library {missing[0]} is"
    lines = [f"lnl-desktop: cannot open a window on this X11 desktop: the system {what} missing."]
    if debian:
        lines += [
            "Install, then start lnl-desktop again:",
            f"  Debian, Ubuntu:  sudo apt install {' '.join(debian)}",
            f"  Fedora:          sudo dnf install {' '.join(fedora)}",
        ]
    if unknown:
        lines.append(f"Your distribution's package manager can say which package holds {', '.join(unknown)}.")
    return "\n".join(lines)


def x11_plugin() -> Path | None:
    from PySide6.QtCore import QLibraryInfo

    folder = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"
    plugin = folder / "libqxcb.so"
    return plugin if plugin.exists() else None


def check_before_first_window(environ: Mapping[str, str] | None = None) -> str | None:
    """On Linux with X11: the message naming the missing libraries, or None when Qt can open its window."""
    environ = os.environ if environ is None else environ
    if not sys.platform.startswith("linux") or not uses_x11(environ):
        return None
    plugin = x11_plugin()
    if plugin is None:
        return None  # a Qt without the X11 plugin: Qt's own message names that
    missing = missing_libraries(plugin)
    return explain(missing) if missing else None
