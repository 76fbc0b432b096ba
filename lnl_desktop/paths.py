"""Where the program's resources live (demo encounters, bestiaries, schema, icons).

Found through ``importlib.resources`` from the ``lnl_desktop`` package, in all three ways the
program runs:

- installed from the wheel or the sdist: the data package ``lnl_desktop/resources/`` (pyproject.toml
  maps the checkout's top-level ``resources/`` there);
- from the source checkout (also an editable install): ``resources/`` beside the package;
- frozen by PyInstaller: ``resources/`` beside the package in the bundle (``sys._MEIPASS``).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path


@cache
def resources_dir() -> Path:
    package = Path(str(files("lnl_desktop")))  # the package is always a folder on disk, never a zip
    installed = package / "resources"
    if (installed / "encounters").is_dir():
        return installed
    return package.parent / "resources"


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def demo_encounter_path() -> Path:
    return resource("encounters", "hill-giant.lnl")
