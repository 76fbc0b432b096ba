"""Universal VTT maps with long wall segments, through the real import: a script, not a test.

Random lines across a 100 x 100 map (end points anywhere on it, as ``big_maps.py``'s ``long``
walls) are the worst a renderer and a sight index meet: every line crosses many tiles and many
cells. Each case runs in a process of its own (its peak memory is its own) with the main window
(1366 x 768, offscreen), the player view open and fog on, and prints:

    import: File ▸ Import map… of the file, from the call to the map in place     <= 3 s
    first paint: the wall tiles of both views rendered in full after the import    <= 3 s (import + paint)
    drag step, worst: a token dragged 30 cells about, mouse event to both windows  <= 16.7 ms
    peak memory (the process's resident set, at its most)                          <= 1 GB

or the refusal's words when the map is refused. Cases: 10,000 and 100,000 long segments, and
100,000 short ones (2-10 cells, on a 1000 x 1000 map) to show the short ones stay as they were.

    python benchmarks/bench_uvtt_long.py                 every case
    python benchmarks/bench_uvtt_long.py long 10000      one case (what each process runs)
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

IMPORT_BUDGET_S = 3.0
MEMORY_BUDGET_MB = 1024.0
FRAME_MS = 1000 / 60
CASES = (("long", 10_000, 100), ("long", 100_000, 100), ("short", 100_000, 1000))


def one_case(kind: str, count: int, size: int) -> dict[str, object]:
    """Import, paint and drag one map in this process; the figures as a dict."""
    import big_maps
    from bench_big_map import Table, settle
    from PySide6.QtWidgets import QApplication, QMessageBox

    from lnl_desktop.lazy import load_now
    from lnl_desktop.ui.dialogs import import_map
    from lnl_desktop.ui.map import wall_tiles

    app = QApplication.instance() or QApplication(sys.argv[:1])
    load_now("numpy")
    scratch = Path(tempfile.mkdtemp(prefix="lnl-bench-uvtt-"))
    path = scratch / f"{kind}-{count}.dd2vtt"
    path.write_bytes(big_maps.uvtt_file(count, kind, size))
    refusals: list[str] = []
    QMessageBox.warning = lambda _parent, _title, text, *a, **k: refusals.append(text)  # type: ignore[method-assign]
    table = Table(big_maps.build(size=size, tokens=10, segments=0), scratch)
    before = wall_tiles.tile_cache.rendered
    t0 = time.perf_counter()
    done = import_map.import_map_file(table.window, table.controller, path)
    imported = time.perf_counter() - t0
    settle(app)
    out: dict[str, object] = {"import_s": imported}
    if not done:
        out["refused"] = refusals[0] if refusals else "(no words)"
    else:
        t0 = time.perf_counter()
        table.view.fit_map()
        table.warm()  # every tile of both views rendered, the search tables built
        out["paint_s"] = time.perf_counter() - t0
        out["tiles"] = wall_tiles.tile_cache.rendered - before
        _, steps, _ = table.drag("p0", 30)
        out["drag_worst_ms"] = max(steps)
        out["drag_median_ms"] = sorted(steps)[len(steps) // 2]
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> int:
    if len(sys.argv) == 3:
        kind, count = sys.argv[1], int(sys.argv[2])
        size = next(s for k, n, s in CASES if k == kind and n == count) if (kind, count) != ("long", 0) else 100
        print(json.dumps(one_case(kind, count, size)))
        return 0
    print("Universal VTT maps through File ▸ Import map… (main window and player view, fog on)")
    over = 0
    for kind, count, size in CASES:
        run = subprocess.run(
            [sys.executable, __file__, kind, str(count)], capture_output=True, text=True, timeout=600, check=False
        )
        if run.returncode != 0:
            print(f"  {count:,} {kind} ({size} x {size}): failed: {run.stderr.strip()[-2000:]}")
            over += 1
            continue
        got = json.loads(run.stdout.strip().splitlines()[-1])
        peak = got["peak_mb"]
        if "refused" in got:
            print(f"  {count:,} {kind} ({size} x {size}): refused in {got['import_s']:.2f} s, peak {peak:.0f} MB")
            print(f"    {got['refused']}")
            over += got["import_s"] > IMPORT_BUDGET_S or peak > MEMORY_BUDGET_MB
            continue
        total = got["import_s"] + got["paint_s"]
        bad = [total > IMPORT_BUDGET_S, got["drag_worst_ms"] > FRAME_MS, peak > MEMORY_BUDGET_MB]
        over += sum(bad)
        print(
            f"  {count:,} {kind} ({size} x {size}): import {got['import_s']:.2f} s, first paint {got['paint_s']:.2f} s "
            f"({got['tiles']} tiles; together {'OVER' if bad[0] else 'ok'} against {IMPORT_BUDGET_S:g} s), "
            f"drag step worst {got['drag_worst_ms']:.1f} ms (median {got['drag_median_ms']:.1f}) "
            f"{'OVER' if bad[1] else 'ok'}, peak {peak:.0f} MB {'OVER' if bad[2] else 'ok'}"
        )
    print(f"{over} figure(s) over budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
