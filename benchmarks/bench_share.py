"""Share with players' devices (issue 43): how soon a GM's move reaches a device, against 250 ms.

The main window (offscreen) shares on 127.0.0.1; a client on a thread does what the players' page
does: it waits on /wait for the scene's next version, then fetches /frame at its size. Timed from
the GM's move (the engine action sent) to the new frame's bytes received, on the demo and on a
100x100 map with 200 tokens and 2,000 wall segments, with 1 device and with 20. Never part of the
test suite.

    python benchmarks/bench_share.py
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import big_maps  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from lnl_desktop.core.encounter import actions as act  # noqa: E402
from lnl_desktop.core.encounter.model import Encounter  # noqa: E402
from lnl_desktop.core.files import storage  # noqa: E402
from lnl_desktop.paths import demo_encounter_path  # noqa: E402

BUDGET_MS = 250.0
HOST = "127.0.0.1"
MOVES = 15


def get(port: int, path: str) -> bytes:
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        connection.request("GET", path)
        return connection.getresponse().read()
    finally:
        connection.close()


def device(port: int, code: str, after: int, size: tuple[int, int], done: list[float]) -> None:
    """One device: the next version waited for, then its frame fetched; the time it has the frame."""
    answer = json.loads(get(port, f"/wait?code={code}&after={after}"))
    get(port, f"/frame?code={code}&w={size[0]}&h={size[1]}&v={answer['version']}")
    done.append(time.perf_counter())


def latencies(encounter: Encounter, mover: str, devices: int, scratch: Path) -> list[float]:
    from lnl_desktop.ui.window.main_window import MainWindow
    from lnl_desktop.ui.window.recovery import RecoveryStore
    from lnl_desktop.ui.window.share import sharing_of

    app = QApplication.instance()
    settings = QSettings(str(scratch / f"s{devices}.ini"), QSettings.Format.IniFormat)
    window = MainWindow(encounter, settings=settings, recovery=RecoveryStore(scratch / f"r{devices}"))
    window.resize(1366, 768)
    window.show()
    sharing = sharing_of(window)
    assert sharing.start(HOST, 0) is None and sharing.server is not None
    port, code = sharing.server.port, sharing.server.code
    x, y = encounter.tokens[mover].cell
    cells = [(x + 1, y), (x, y)]
    taken = []
    try:
        # Each device asks for its frame once first: the program renders only sizes that are watched.
        for i in range(devices):
            threading.Thread(target=get, args=(port, f"/frame?code={code}&w={800 + i}&h=600"), daemon=True).start()
        for _ in range(50):
            app.processEvents()
            time.sleep(0.01)
        for i in range(MOVES):
            version = json.loads(get(port, f"/state?code={code}"))["version"]
            done: list[float] = []
            threads = [
                threading.Thread(target=device, args=(port, code, version, (800 + d, 600), done), daemon=True)
                for d in range(devices)
            ]
            for thread in threads:
                thread.start()
            deadline = time.perf_counter() + 5
            while sharing.server.open_connections() < devices and time.perf_counter() < deadline:
                app.processEvents()
                time.sleep(0.002)
            moved = time.perf_counter()
            window.controller.do(act.Move(mover, cells[i % 2], forced=True))
            while len(done) < devices and time.perf_counter() < moved + 10:
                app.processEvents()
                time.sleep(0.001)
            taken.append((max(done) - moved) * 1000 if len(done) == devices else float("inf"))
    finally:
        sharing.stop()
        window.controller.undo_stack.setClean()
        window.close()
        app.processEvents()
    return taken


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(tempfile.mkdtemp(prefix="lnl-bench-share-"))
    tables = [
        ("the demo", storage.load(demo_encounter_path()), "tombril"),
        (
            "100x100 map, 200 tokens, 2,000 segments",
            big_maps.build(size=100, tokens=200, segments=2000, kind="short", party=5),
            big_maps.MOVER,
        ),
    ]
    for label, encounter, mover in tables:
        for devices in (1, 20):
            times = latencies(encounter, mover, devices, scratch)
            median, worst = statistics.median(times), max(times)
            mark = "ok" if median <= BUDGET_MS else "OVER"
            print(
                f"a GM move to the new frame on {devices} device{'s' if devices > 1 else ''}, {label}: "
                f"median {median:.1f} ms, worst {worst:.1f} ms (budget {BUDGET_MS:g} ms) {mark}"
            )
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
