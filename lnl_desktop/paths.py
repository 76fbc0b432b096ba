"""Where the program's resources live: the source checkout's ``resources/`` or the frozen bundle's."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)  # set by a PyInstaller bundle
    if frozen:
        return Path(frozen) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def demo_encounter_path() -> Path:
    return resource("encounters", "hill-giant.lnl")
