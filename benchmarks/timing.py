"""Timing shared by the benchmarks: a median of many runs, printed against its budget."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(fn: Callable[[], object], repeat: int, number: int = 1) -> float:
    """The median over ``repeat`` samples of the time one call takes (each sample ``number`` calls)."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def report(what: str, seconds: float, budget: float, unit: str) -> None:
    scale = {"us": 1e6, "ms": 1e3}[unit]
    verdict = "within budget" if seconds <= budget else "OVER BUDGET"
    print(f"{what}: median {seconds * scale:.4g} {unit} (budget {budget * scale:g} {unit}) {verdict}")
