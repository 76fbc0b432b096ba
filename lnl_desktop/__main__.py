"""``python -m lnl_desktop`` and the ``lnl-desktop`` command."""

from __future__ import annotations

import sys


def main() -> int:
    from lnl_desktop.ui.app import run

    return run()


if __name__ == "__main__":
    sys.exit(main())
