"""On a Linux X11 desktop without one of the libraries Qt's X11 plugin needs, ``lnl-desktop`` names it and
the command that installs it, and exits non-zero, instead of Qt's raw plugin error and an abort."""

from __future__ import annotations

import ctypes.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lnl_desktop import system_libraries
from lnl_desktop.system_libraries import EXIT_MISSING_LIBRARY, explain, uses_x11


def test_the_message_names_the_library_and_the_commands_that_install_it() -> None:
    text = explain(["libxcb-cursor.so.0"])
    assert "the system library libxcb-cursor.so.0 is missing" in text
    assert "sudo apt install libxcb-cursor0" in text
    assert "sudo dnf install xcb-util-cursor" in text


def test_several_missing_libraries_are_named_together_with_their_packages() -> None:
    text = explain(["libxcb-icccm.so.4", "libxcb-shape.so.0", "libxkbcommon-x11.so.0"])
    assert "libraries libxcb-icccm.so.4, libxcb-shape.so.0, libxkbcommon-x11.so.0 are missing" in text
    assert "sudo apt install libxcb-icccm4 libxcb-shape0 libxkbcommon-x11-0" in text
    assert "sudo dnf install libxcb libxkbcommon-x11 xcb-util-wm" in text


def test_a_library_without_a_known_package_is_still_named() -> None:
    text = explain(["libxcb-frobnicate.so.7"])
    assert "libxcb-frobnicate.so.7 is missing" in text and "package manager" in text


@pytest.mark.parametrize(
    ("environ", "x11"),
    [
        ({"DISPLAY": ":0"}, True),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, False),
        ({"QT_QPA_PLATFORM": "xcb"}, True),
        ({"QT_QPA_PLATFORM": "xcb:nograb;wayland"}, True),
        ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, False),
        ({}, False),
    ],
)
def test_only_an_x11_start_is_checked(environ: dict[str, str], x11: bool) -> None:
    assert uses_x11(environ) is x11


def test_offscreen_nothing_is_checked() -> None:
    assert system_libraries.check_before_first_window({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's X11 plugin is Linux's")
def test_the_installed_pyside6_s_x11_plugin_loads_here() -> None:
    """No false alarm: on this machine (which has the libraries, as dev.py installs them) nothing is missing."""
    plugin = system_libraries.x11_plugin()
    assert plugin is not None and plugin.name == "libqxcb.so"
    if ctypes.util.find_library("xcb-cursor") is None:
        pytest.skip("libxcb-cursor is not installed on this machine")
    assert system_libraries.missing_libraries(plugin) == []


def hidden_library_run(soname: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``python -m lnl_desktop`` on an X11 display with ``soname`` covered by an empty file (a mount
    namespace of its own), as on a desktop that lacks it. Skips where that cannot be done."""
    found = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    paths = [line.split("=>")[-1].strip() for line in found.splitlines() if line.strip().startswith(soname + " ")]
    unshare = shutil.which("unshare")
    if not paths or not unshare:
        pytest.skip(f"{soname} or unshare is not on this machine")
    real = os.path.realpath(paths[0])
    script = f'mount --bind /dev/null "{real}" && exec "$@"'
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env["DISPLAY"] = ":4391"  # no such display: the check comes before Qt would open one
    command = [unshare, "-m", "sh", "-c", script, "sh", sys.executable, "-m", "lnl_desktop"]
    probe = subprocess.run([unshare, "-m", "sh", "-c", script, "sh", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("mount namespaces are not allowed here")
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's X11 plugin is Linux's")
def test_without_libxcb_cursor_the_program_names_it_and_exits(tmp_path: Path) -> None:
    result = hidden_library_run("libxcb-cursor.so.0", tmp_path)
    assert result.returncode == EXIT_MISSING_LIBRARY, result.stderr
    assert "the system library libxcb-cursor.so.0 is missing" in result.stderr
    assert "sudo apt install libxcb-cursor0" in result.stderr and "sudo dnf install xcb-util-cursor" in result.stderr
    assert "qt.qpa.plugin" not in result.stderr, "Qt's raw error is not what the GM reads"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's X11 plugin is Linux's")
def test_without_a_library_the_plugin_links_the_program_names_it(tmp_path: Path) -> None:
    result = hidden_library_run("libxcb-icccm.so.4", tmp_path)
    assert result.returncode == EXIT_MISSING_LIBRARY, result.stderr
    assert "libxcb-icccm.so.4" in result.stderr and "libxcb-icccm4" in result.stderr and "xcb-util-wm" in result.stderr
    assert "qt.qpa.plugin" not in result.stderr
