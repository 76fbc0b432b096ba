"""``python -m lnl_desktop`` and the ``lnl-desktop`` command."""

from __future__ import annotations

import gc
import sys


def main() -> int:
    # The dataclasses' generated methods from their kept code, not compiled again at each start.
    from lnl_desktop.class_code import install

    keep = sys.argv[1:2] == ["keep-class-code"]  # the bundle's build and the start-up benchmark: written now
    kept = install(write_at_exit=False if keep else None)
    if keep:
        from lnl_desktop.ui.window.app import run

        status = run(["--smoke-test"])  # the start's classes, offscreen
        if status == 0 and not kept.write():
            print(f"could not write {kept.path}", file=sys.stderr)
            status = 1
        print(f"{len(kept.used)} methods' code kept in {kept.path}")
        return status
    if sys.argv[1:2] == ["odds"]:  # lnl-desktop odds FIGHT.lnl: the fight odds, no window
        from lnl_desktop.odds_cli import run as odds

        return odds(sys.argv[2:])
    # Importing the program makes hundreds of thousands of objects that all live on (classes, models):
    # the cycle collector would walk them some sixty times for nothing (30-60 ms of the start).
    # run() keeps it off until the window takes it over (see lnl_desktop.ui.window.app.run).
    gc.disable()
    try:
        from lnl_desktop.ui.window.app import run

        return run()
    finally:
        gc.enable()


if __name__ == "__main__":
    sys.exit(main())
