"""The program asks Linux for no transparent huge pages once the window is up (lnl_desktop.memory_pages):
the kernel's own report of the process says so. Each case runs in a child process: the setting is the
process's for good."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux process setting")


def thp_after(code: str) -> str:
    """The ``THP_enabled`` line of /proc/self/status after running ``code`` in a child process."""
    script = f"{code}\nprint([line for line in open('/proc/self/status') if line.startswith('THP_enabled')])"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_plain_process_may_have_huge_pages_and_the_first_idle_moment_turns_them_off() -> None:
    before = thp_after("pass")
    if "THP_enabled:\\t1" not in before:
        pytest.skip(f"this kernel reports no per-process huge pages: {before!r}")
    after = thp_after(
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from lnl_desktop.ui.window.app import warm_up\n"
        "warm_up([])"
    )
    assert "THP_enabled:\\t0" in after


def test_asking_twice_asks_once() -> None:
    out = thp_after("from lnl_desktop.memory_pages import small_pages\nprint(small_pages(), small_pages())")
    assert out.startswith("True False")
