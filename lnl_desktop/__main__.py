"""``python -m lnl_desktop`` and the ``lnl-desktop`` command."""

from __future__ import annotations

import sys


def main() -> int:
    if sys.argv[1:2] == ["odds"]:  # lnl-desktop odds FIGHT.lnl: the fight odds, no window
        from lnl_desktop.odds_cli import run as odds

        return odds(sys.argv[2:])
    from lnl_desktop.ui.window.app import run

    return run()


if __name__ == "__main__":
    sys.exit(main())
