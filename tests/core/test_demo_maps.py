"""The demo encounters carry a painted battle map lined up with their grid, and the painter that
made them (packaging/demo_maps.py) paints the same picture every time."""

from __future__ import annotations

import base64
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from lnl_desktop.core.files import storage
from lnl_desktop.core.files.pictures import check_picture, image_size
from lnl_desktop.paths import resource

ROOT = Path(__file__).resolve().parents[2]
DEMOS = ("hill-giant.lnl", "hill-giant-classic.lnl", "goblin-ambush-osr.lnl", "bandit-mill-d10.lnl")


def _painter() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lnl_demo_maps", ROOT / "packaging" / "demo_maps.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", DEMOS)
def test_each_demo_carries_a_picture_lined_up_with_its_grid(name: str) -> None:
    path = resource("encounters", name)
    assert path.stat().st_size < 1_000_000  # the demo stays a small file
    grid = storage.load(path).map
    background = grid.background
    assert background is not None and background.data, f"{name} has no picture kept in it"
    raw = base64.b64decode(background.data, validate=True)
    kind = check_picture(raw, background.image)  # a PNG or JPEG, whole
    cell_px = background.cell_px
    assert (background.offset_x, background.offset_y, background.opacity) == (0, 0, 1.0)
    assert image_size(raw, kind) == (round(grid.width * cell_px), round(grid.height * cell_px))

    from PySide6.QtGui import QImage  # the picture decodes as the map will show it

    image = QImage.fromData(raw)
    assert not image.isNull()
    assert (image.width(), image.height()) == (grid.width * cell_px, grid.height * cell_px)


def test_the_painter_paints_the_same_picture_twice() -> None:
    painter = _painter()
    encounter = storage.load(resource("encounters", "bandit-mill-d10.lnl"))
    first = painter.picture_for(encounter, "bandit-mill-d10", cell_px=8)
    assert first == painter.picture_for(encounter, "bandit-mill-d10", cell_px=8)
    assert first[:2] == b"\xff\xd8"  # a JPEG


def test_the_ford_is_painted_where_its_map_says() -> None:
    """The water runs on the difficult cells, the stone on the walls, grass elsewhere."""
    painter = _painter()
    grid = storage.load(resource("encounters", "goblin-ambush-osr.lnl")).map
    px = 8
    pixels = painter.paint(grid, painter.PLANS["goblin-ambush-osr"], painter.seed_of("goblin-ambush-osr"), px)
    assert pixels.shape == (grid.height * px, grid.width * px, 3)

    def centre(cell: tuple[int, int]) -> np.ndarray:
        x, y = cell
        return pixels[y * px + 2 : y * px + px - 2, x * px + 2 : x * px + px - 2].reshape(-1, 3).mean(axis=0)

    river = [centre(cell) for cell in grid.difficult]
    assert all(b > r + 20 for r, _g, b in river), "the shallows are not water"
    stone = [centre(cell) for cell in grid.walls]
    assert all(max(c) - min(c) < 25 for c in stone), "the walls are not grey stone"
    meadow = centre((1, 14))
    assert meadow[1] > meadow[2] + 30, "the ground away from the ford is not grass"
