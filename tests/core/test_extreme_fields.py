"""Every value of a file is checked where it is read: each field a scene or a rule later reads, fed its
extreme values (0, -1, 2**63, 1e308, a very long text, NUL and control characters) through the real
load path, is either refused with a clear message or, accepted, builds an engine whose Party view,
sight, light, movement and area queries answer without raising.

:data:`EXTREMES` (the field paths and their extreme values) and :func:`mutated` are the table and
the way to apply it: a test of the player view reads them too.
"""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from lnl_desktop.core.encounter.light import cell_light, light_map, target_light
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.engine.party_view import party_sight, party_view, players_unseen
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.pictures import PictureError, read_picture_beside
from lnl_desktop.core.map.areas import struck_by
from lnl_desktop.core.map.explored import explored_mask
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.core.sim.run import fight_odds
from lnl_desktop.paths import resource

HUGE = 2**63  # past any 64-bit index
WHOLE = (0, -1, HUGE, -HUGE, 10**19, 1e308, 0.5)
NUMBERS = (0, -1, HUGE, -HUGE, 1e308, -1e308, 1e-308)
TEXTS = ("", "x" * 100_000, "a\u0000b\u001b[31mc\u202ed", "\u0085")
CELLS = ([0, HUGE], [HUGE, 0], [-1, 0], [10**19, 10**19], [0], [0, 0, 0])
POINTS = ([0, 1e308], [1e308, 1e308], [-1, 0], [HUGE, 0], [-1e308, 0])


def _light(**fields: Any) -> list[dict[str, Any]]:
    return [{"id": "lamp", "kind": "custom", "bright_ft": 10, "dim_ft": 10, "cell": [1, 1], **fields}]


def _template(**fields: Any) -> list[dict[str, Any]]:
    return [{"id": "blast", "shape": "circle", "size_ft": 20, "origin": [10, 8], **fields}]


def _drawing(**fields: Any) -> list[dict[str, Any]]:
    return [{"id": "mark", "kind": "line", "points": [[1, 1], [5, 5]], **fields}]


# (ruleset, the field's path in the encounter, its extreme values). A path is the file's spelling:
# "map.width", "combatants[0].size", "tokens.tombril.cell"; the value replaces what is there.
EXTREMES: list[tuple[str, str, tuple[Any, ...]]] = [
    ("lnl", "name", TEXTS),
    ("lnl", "map.width", WHOLE),
    ("lnl", "map.height", WHOLE),
    ("lnl", "map.feet_per_cell", WHOLE),
    ("lnl", "map.walls", tuple([cell] for cell in CELLS)),
    ("lnl", "map.difficult", tuple([cell] for cell in CELLS)),
    ("lnl", "map.segments", tuple([{"a": point, "b": [0, 0]}] for point in POINTS)),
    ("lnl", "map.doors", tuple([{"a": [0, 0], "b": point}] for point in POINTS)),
    ("lnl", "map.background.cell_px", NUMBERS),
    ("lnl", "map.background.offset_x", NUMBERS),
    ("lnl", "map.background.offset_y", NUMBERS),
    ("lnl", "map.background.opacity", NUMBERS),
    ("lnl", "map.background.image", (*TEXTS, "inside.png\u0000x")),
    ("lnl", "map.background", tuple({"image": image} for image in (*TEXTS, "inside.png\u0000x", "../../etc/passwd"))),
    ("lnl", "map.background.data", ("", "!!!!", "iVBORw0KGgo" + "A" * 100, "\u0000")),
    ("lnl", "options.difficult_multiplier", WHOLE),
    ("lnl", "combatants[0].id", TEXTS),
    ("lnl", "combatants[0].name", TEXTS),
    ("lnl", "combatants[0].notes", TEXTS),
    ("lnl", "combatants[0].portrait", TEXTS),
    ("lnl", "combatants[0].size", WHOLE),
    ("lnl", "combatants[0].move_ft", WHOLE),
    ("lnl", "combatants[0].vision_deg", WHOLE),
    ("lnl", "combatants[0].conditions", tuple([text] for text in TEXTS)),
    ("lnl", "combatants[0].weapons[0].name", TEXTS),
    ("lnl", "combatants[0].weapons[0].magic_bonus", WHOLE),
    ("lnl", "combatants[0].weapons[0].max_range_ft", WHOLE),
    ("lnl", "combatants[0].weapons[0].reach_ft", WHOLE),
    ("lnl", "tokens.tombril.cell", CELLS),
    ("lnl", "tokens.tombril.facing", WHOLE),
    ("lnl", "fog", tuple({"enabled": True, "explored": [[1, 1], cell]} for cell in CELLS)),
    ("lnl", "lights", tuple(_light(cell=cell) for cell in CELLS)),
    ("lnl", "lights", tuple(_light(bright_ft=value) for value in WHOLE)),
    ("lnl", "lights", tuple(_light(dim_ft=value) for value in WHOLE)),
    ("lnl", "lights", tuple(_light(id=text) for text in TEXTS)),
    ("lnl", "lights", tuple(_light(cell=None, carrier=text) for text in TEXTS)),
    ("lnl", "templates", tuple(_template(origin=point) for point in POINTS)),
    ("lnl", "templates", tuple(_template(size_ft=value) for value in WHOLE)),
    ("lnl", "templates", tuple(_template(direction=value) for value in NUMBERS)),
    ("lnl", "templates", tuple(_template(label=text) for text in TEXTS)),
    ("lnl", "templates", tuple(_template(origin=[999, 999], size_ft=value) for value in (5, 100, 1000))),
    ("lnl", "drawings", tuple(_drawing(points=[[0, 0], point]) for point in POINTS)),
    ("lnl", "drawings", tuple(_drawing(width=value) for value in WHOLE)),
    ("lnl", "drawings", tuple(_drawing(kind="text", points=[[1, 1]], text=text) for text in TEXTS)),
    ("lnl", "drawings", tuple(_drawing(kind="freehand", points=[[1, 1]] * count) for count in (1, 2, 2001))),
    ("lnl", "combat.round", WHOLE),
    # A fight under way: Tombril's turn, after a move.
    ("lnl fighting", "combat.round", WHOLE),
    ("lnl fighting", "combat.turn.feet_before", NUMBERS),
    ("lnl fighting", "combat.turn.feet_after", NUMBERS),
    ("lnl fighting", "combat.turn.extra_ft", NUMBERS),
    ("lnl fighting", "combat.turn.diagonals", WHOLE),
    ("lnl fighting", "combat.turn.attacks", WHOLE),
    ("lnl fighting", "combat.turn.start_cell", CELLS),
    ("lnl fighting", "combat.turn.path", tuple([cell] for cell in CELLS)),
    ("lnl fighting", "combat.turn.action", TEXTS),
    ("lnl fighting", "combat.turn.action_detail", TEXTS),
    ("lnl fighting", "combat.initiative_face", WHOLE),
    ("lnl fighting", "combat.situation", TEXTS),
    (
        "lnl fighting",
        "combat.pending",
        tuple([{"kind": "morale", "who": "tombril", "text": "x", "number": v}] for v in WHOLE),
    ),
    ("lnl fighting", "combat.order", tuple([{"title": "All", "members": ["tombril"], "total": v}] for v in WHOLE)),
    (
        "lnl fighting",
        "log",
        tuple(
            [{"kind": "moved", "round": v, "text": "x", "combatant": "tombril", "path": [[8, 6]], "feet": 5}]
            for v in WHOLE
        ),
    ),
]
# Every number of each ruleset's stat block (its demo's first combatant), and its own options.
for _ruleset, _fields in {
    "lnl": ("level", "str_bonus", "dex_bonus", "awa_bonus", "armor", "stamina", "stamina_max", "injury"),
    "classic": ("level", "str_bonus", "dex_bonus", "armor", "stamina", "stamina_max", "injury", "wis_bonus"),
    "osr": ("level", "hp", "hp_max", "armor_bonus", "armor_max_dex", "attack_bonus", "init_mod", "attacks"),
    "d10": ("hp", "hp_max", "dr", "defense", "melee", "ranged", "casting", "perception", "strength"),
}.items():
    EXTREMES += [(_ruleset, f"combatants[0].{name}", WHOLE) for name in _fields]
    EXTREMES.append((_ruleset, "combatants[0].move_ft", WHOLE))

CASES = [
    pytest.param(ruleset, path, value, id=f"{ruleset}-{path}-{i}")
    for ruleset, path, values in EXTREMES
    for i, value in enumerate(values)
]


def demo_document(base: str) -> dict[str, Any]:
    """The file a case of :data:`EXTREMES` changes, as JSON values: a ruleset's demo encounter, or
    ("lnl fighting") L&L's in round 1, Tombril's turn under way after a move."""
    ruleset, _, state = base.partition(" ")
    name = get_ruleset(ruleset).demo()
    assert name is not None
    text = resource("encounters", name).read_text(encoding="utf-8")
    if state == "fighting":
        engine = Engine(storage.loads(text))
        engine.start_combat(face=5)
        engine.begin_turn("tombril")
        engine.move("tombril", (10, 6))
        return storage.to_document(engine.encounter)
    document: dict[str, Any] = json.loads(text)
    return document


def _parts(path: str) -> list[str | int]:
    parts: list[str | int] = []
    for name in path.split("."):
        head, *indexes = name.split("[")
        parts.append(head)
        parts += [int(index.rstrip("]")) for index in indexes]
    return parts


def mutated(document: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of the file ``document`` with the encounter's field at ``path`` set to ``value``."""
    out = copy.deepcopy(document)
    *parents, last = _parts(path)
    at: Any = out["encounter"]
    for part in parents:
        at = at.setdefault(part, {}) if isinstance(part, str) else at[part]
    at[last] = copy.deepcopy(value)
    return out


def queries(encounter: Encounter, folder: Path | None = None) -> None:
    """What the scenes and the rules read of an encounter: the engine built on it, the Party's view
    and what the players may not see, light, each token's reach and light, each template's struck
    cells, the fog's mask, a picture named by path, the fight odds; and the encounter saved and read
    back."""
    engine = Engine(encounter)
    grid = encounter.map
    party_sight(encounter)
    party_view(encounter)
    players_unseen(encounter)
    explored_mask(encounter.fog.explored, grid.width, grid.height)
    light_map(encounter)
    light_map(encounter, players=True)
    for cid, token in encounter.tokens.items():
        engine.reach(cid)
        engine.turn_state(cid)
        cell_light(encounter, token.cell)
        target_light(encounter, cid)
    for template in encounter.templates:
        struck_by(encounter, template.shape, template.origin, template.size_ft, template.direction)
    fight_odds(encounter, fights=4, seed=1)  # the Fight odds dock and `lnl-desktop odds`
    background = grid.background
    if background is not None and background.data is None:
        with contextlib.suppress(PictureError):  # the encounter opens without its picture, the GM told why
            read_picture_beside(background.image, folder)
    assert storage.loads(storage.dumps(encounter)) == encounter


def test_the_table_covers_every_case_it_names() -> None:
    assert len(CASES) > 300
    for ruleset, path, _values in EXTREMES:
        mutated(demo_document(ruleset), path, None)  # every path is a place in its demo


@pytest.mark.parametrize(("ruleset", "path", "value"), CASES)
def test_an_extreme_value_is_refused_clearly_or_read_safely(
    ruleset: str, path: str, value: Any, tmp_path: Path
) -> None:
    text = json.dumps(mutated(demo_document(ruleset), path, value))
    try:
        encounter = storage.loads(text, "extreme.lnl")
    except storage.EncounterFileError as error:
        message = str(error)
        lines = message.splitlines()
        assert lines[0].startswith("extreme.lnl"), message[:500]
        assert len(lines) <= 21 and len(message) < 5_000, message[:500]
        assert "Input should" not in message and "Traceback" not in message, message[:500]
        return
    queries(encounter, tmp_path)


def test_a_round_past_any_fight_is_refused_in_the_games_words() -> None:
    """Accepted before, it made the fight odds raise OverflowError (their rounds are 64-bit)."""
    text = json.dumps(mutated(demo_document("lnl fighting"), "combat.round", HUGE))
    with pytest.raises(storage.EncounterFileError) as refused:
        storage.loads(text, "long.lnl")
    assert str(refused.value) == (
        "long.lnl has 1 problem:\n"
        "encounter.combat.round: 9,223,372,036,854,775,808 is past any fight; a fight lasts at most 10,000 rounds"
    )
