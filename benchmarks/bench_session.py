"""The session's odds (issue 42): five encounters, 10,000 fights each, against the 3 s budget.

Each demo session's two encounters and three more (copies of them under other names), the party
brought in as it stands, timed end to
end as the Session dock's worker and `lnl-desktop odds SESSION-FOLDER` run it (reading the files
included). Never part of the test suite.

    python benchmarks/bench_session.py
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lnl_desktop.core.session.folder import SESSION_FILE, open_session, save_session  # noqa: E402
from lnl_desktop.core.session.odds import session_odds  # noqa: E402

BUDGET_S = 3.0
FIGHTS = 10_000


def five_encounters(source: Path, scratch: Path) -> Path:
    folder = scratch / source.name
    shutil.copytree(source, folder)
    session = open_session(folder).session
    names = list(session.encounters)
    for i in range(5 - len(names)):
        name = session.encounters[i % len(session.encounters)]
        copy = f"{len(names) + 1:02d}-again-{name}"
        shutil.copy(folder / name, folder / copy)
        names.append(copy)
    save_session(folder, session.model_copy(update={"encounters": names}))
    return folder


def main() -> int:
    scratch = Path(tempfile.mkdtemp(prefix="lnl-bench-session-"))
    try:
        for source in sorted((ROOT / "resources" / "sessions").iterdir()):
            if not (source / SESSION_FILE).exists():
                continue
            folder = five_encounters(source, scratch)
            runs = []
            for _ in range(3):
                t0 = time.perf_counter()
                found = session_odds(open_session(folder), None, FIGHTS)
                runs.append(time.perf_counter() - t0)
            best = statistics.median(runs)
            mark = "ok" if best <= BUDGET_S else "OVER"
            print(
                f"session odds, {source.name}, {len(found)} encounters x {FIGHTS:,} fights: median {best:.2f} s "
                f"(budget {BUDGET_S:g} s) {mark}"
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
