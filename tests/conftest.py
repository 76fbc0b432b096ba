"""Shared test set-up: Qt runs offscreen, so the suite needs no display; a hung test never takes the
run's whole time.

A test that runs past ``timeout`` (pytest-timeout, pyproject.toml) fails with the stacks of every
thread and the run goes on. A deadlock the interpreter cannot break into (the GUI thread waiting on
a Qt lock while it holds the interpreter lock) is caught by faulthandler's watchdog, a C thread
that needs no interpreter lock: it prints every thread's stack and ends the run a little later.
"""

from __future__ import annotations

import faulthandler
import os
import sys
from collections.abc import Iterator

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

WATCHDOG_MARGIN_S = 30  # after pytest-timeout's own limit: the stacks and the end of the run


def _stderr(config: pytest.Config) -> int:
    """The terminal's stderr: pytest captures file descriptor 2 while a test runs, and its faulthandler
    plugin keeps a copy of the real one."""
    try:
        from _pytest.faulthandler import fault_handler_stderr_fd_key

        return config.stash[fault_handler_stderr_fd_key]
    except (ImportError, KeyError):
        return sys.__stderr__.fileno()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Armed for the whole of each test: its set-up, its call and its teardown (where widgets close)."""
    marker = item.get_closest_marker("timeout")
    limit = float(marker.args[0]) if marker and marker.args else float(item.config.getini("timeout") or 60)
    faulthandler.dump_traceback_later(limit + WATCHDOG_MARGIN_S, exit=True, file=_stderr(item.config))
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
