"""A kill -9 while the party roster is being written loses nothing the GM saw (issue 42): the file read
afterwards is always a whole roster, the last one written or the one before it, never half of one.

A real child process writes rosters one after another (each a character hurt one IP more), and is
killed with SIGKILL at moments spread over its writes; nothing is simulated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lnl_desktop.core.session.roster import load_roster

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from lnl_desktop.core.files import storage
    from lnl_desktop.core.session.roster import new_roster, save_roster, with_characters
    from lnl_desktop.paths import resource

    path = Path(sys.argv[1])
    party = [c for c in storage.load(resource("encounters", "hill-giant.lnl")).combatants if c.side.value == "Party"]
    roster = with_characters(new_roster("lnl"), party)
    # long notes make each write big enough to be caught in the middle
    big = party[0].model_copy(update={"notes": "x" * 3000})
    roster = with_characters(roster, [big])
    save_roster(roster, path)
    print("ready", flush=True)
    while True:
        tombril = roster.character("tombril")
        hurt = tombril.model_copy(update={"injury": (tombril.injury - 1) % (tombril.injury_max + 1)})
        roster = with_characters(roster, [hurt])
        save_roster(roster, path)
        print(roster.version("tombril"), flush=True)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
@pytest.mark.parametrize("delay", [0.05, 0.13, 0.31, 0.47])
def test_a_kill_during_a_roster_write_leaves_a_whole_roster(tmp_path: Path, delay: float) -> None:
    path = tmp_path / "party.lnlparty"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(delay)
        os.kill(child.pid, signal.SIGKILL)
        said = child.stdout.read().split()
    finally:
        child.kill()
        child.wait()
    seen = int(said[-1]) if said else 2  # the last version the child finished writing
    roster = load_roster(path)
    assert roster.version("tombril") in (seen, seen + 1)  # that one, or the next if its rename landed
    assert [c.id for c in roster.characters] == ["tombril", "cedryk", "janine"]
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "party.lnlparty"]
    assert all(name.endswith(".tmp") for name in leftovers)  # at most the temporary file of the write killed
