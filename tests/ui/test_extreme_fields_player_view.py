"""Every extreme value a file may hold (tests/core/test_extreme_fields.py's table), read through the real
load path, leaves the player view showing no more than the same file without it: with fog of war on,
the dark, and a hidden Half-orc carrying a lantern, the players' window is either paused (all black,
it failed closed) or shows no more than it shows of the file without the value, and nothing of the
hidden Half-orc (pixel for pixel the same as without it and its lantern)."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from lnl_desktop.core.files import storage
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.window.player_view import PlayerView

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from test_extreme_fields import EXTREMES, _parts, demo_document, mutated

HIDDEN = "half-orc"


def secret_scene(document: dict[str, Any]) -> dict[str, Any]:
    """The demo with the fog on, in the dark, the Half-orc hidden with a lantern."""
    out = copy.deepcopy(document)
    encounter = out["encounter"]
    encounter["fog"] = {**encounter.get("fog", {}), "enabled": True}
    encounter["options"] = {**encounter.get("options", {}), "light": "dark"}
    encounter["tokens"][HIDDEN]["hidden"] = True
    lights = [light for light in encounter.get("lights", []) if light.get("carrier") != HIDDEN]
    encounter["lights"] = [*lights, {"id": "lantern-1", "kind": "lantern", "carrier": HIDDEN}]
    return out


def without_hidden(document: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(document)
    encounter = out["encounter"]
    del encounter["tokens"][HIDDEN]
    encounter["lights"] = [light for light in encounter.get("lights", []) if light.get("carrier") != HIDDEN]
    return out


def players_see(qtbot: QtBot, document: dict[str, Any]) -> tuple[QImage, bool] | None:
    """What the players' window shows of ``document`` and whether it is paused; None when refused."""
    try:
        encounter = storage.loads(json.dumps(document), "extreme.lnl")
    except storage.EncounterFileError:
        return None
    controller = TableController(encounter)
    view = PlayerView(controller)
    qtbot.addWidget(view)
    view.resize(640, 480)
    view.show()
    qtbot.waitExposed(view)
    image = view.view.viewport().grab().toImage()
    paused = view.paused
    view.close()
    return image, paused


def seen_pixels(image: QImage) -> int:
    """The pixels that are not black: what the players see something of."""
    points = ((x, y) for y in range(0, image.height(), 3) for x in range(0, image.width(), 3))
    return sum(1 for x, y in points if image.pixel(x, y) & 0xFFFFFF)


BASE = secret_scene(demo_document("lnl"))
CASES = [
    pytest.param(path, value, id=f"{path}-{i}")
    for ruleset, path, values in EXTREMES
    if ruleset == "lnl" and not path.startswith(f"tokens.{HIDDEN}")
    for i, value in enumerate(values)
]


def without_value(document: dict[str, Any], path: str) -> dict[str, Any]:
    """The file without the field at ``path`` (its default then), or the secret scene as it is when the
    field cannot be left out."""
    out = copy.deepcopy(document)
    *parents, last = _parts(path)
    at: Any = out["encounter"]
    try:
        for part in parents:
            at = at[part]
        del at[last]
    except (KeyError, IndexError, TypeError):
        return BASE
    try:
        storage.loads(json.dumps(out), "without.lnl")
    except storage.EncounterFileError:
        return BASE
    return out


def test_the_secret_scene_itself_hides_the_half_orc_and_its_lantern(qtbot: QtBot) -> None:
    shown = players_see(qtbot, BASE)
    plain = players_see(qtbot, without_hidden(BASE))
    assert shown is not None and plain is not None
    assert not shown[1] and shown[0] == plain[0]


@pytest.mark.parametrize(("path", "value"), CASES)
def test_an_extreme_value_shows_the_players_no_more(qtbot: QtBot, path: str, value: Any) -> None:
    document = mutated(BASE, path, value)
    shown = players_see(qtbot, document)
    if shown is None:
        return  # refused with its reason (the core test checks the words)
    image, paused = shown
    if paused:
        assert seen_pixels(image) == 0  # failed closed: all black
        return
    plain = players_see(qtbot, without_hidden(document))
    assert plain is not None
    assert image == plain[0], "the hidden Half-orc or its lantern shows"
    reference = players_see(qtbot, without_value(BASE, path))
    assert reference is not None
    more = seen_pixels(image) - seen_pixels(reference[0])
    assert more <= 50, f"the players see {more} more pixels than without the value"
