"""Transparent huge pages off for this process (Linux): fresh memory is faulted in a small page at a time.

With transparent huge pages on for every process ("always", as on this machine and several
distributions), the first touch of memory the C library has just taken from the system faults in a
whole 2 MB page. On the machine the budgets are measured on, one such fault in the middle of a paint took
about 5 ms: Qt's clip data for the GM's hatch, in about one first Party move on a 300 x 300 map of two.
The fight odds' fresh arrays lost more to them than they gained (10,000 fights of 20 against 20: 1.42 s
with them, 1.24 s without). Asked once, at the first idle moment after the start (ctypes is not on the
start's path); a system without the call, or one that refuses it, is left as it is.
"""

from __future__ import annotations

import sys

_PR_SET_THP_DISABLE = 41  # linux/prctl.h
_asked = False


def small_pages() -> bool:
    """Ask Linux for no transparent huge pages in this process (and the children it starts): whether it
    said yes. Asked once; elsewhere, or if refused, nothing changes."""
    global _asked
    if _asked or not sys.platform.startswith("linux"):
        return False
    _asked = True
    import ctypes

    try:
        return int(ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_THP_DISABLE, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):  # no C library to ask, or one without prctl
        return False
