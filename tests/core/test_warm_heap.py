"""The heap warmed at an idle moment (``sight_index.warm_heap``): the map's big arrays no longer fault
their pages in afresh each time they are made. Counted in page faults (the C library's doing, not the
clock's), in a fresh process each, since the allocator's state is per process."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

MADE = """
import resource, sys
import numpy as np
from lnl_desktop.core.map import sight_index
if sys.argv[1] == "warm":
    sight_index.warm_heap()
    sight_index.warm_heap()  # once only: the second does nothing
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):  # a view's temporaries on a 300 x 300 map: a few arrays of 720 kB, made and freed
    a = np.ones((300, 300)); b = a * 2.0; c = np.arctan2(a, b)
    del a, b, c
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def faults(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", MADE, mode], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[-1])


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's malloc")
def test_after_warming_the_heap_a_views_arrays_fault_in_no_fresh_pages() -> None:
    cold, warm = faults("cold"), faults("warm")
    assert cold > 20 * 3 * 100  # each array a fresh mapping: its ~176 pages faulted in every time
    assert warm < cold / 10
