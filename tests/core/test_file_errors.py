"""A bad encounter file is refused in the file's and the game's words: where the problem is (line
and column, or the place in the encounter) and the field as the sheet labels it, never Python's
advice or pydantic's "Input should be..."."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource


def demo(ruleset: str) -> dict[str, Any]:
    name = get_ruleset(ruleset).demo()
    assert name is not None
    document: dict[str, Any] = json.loads(resource("encounters", name).read_text(encoding="utf-8"))
    return document


def refusal(text: str, tmp_path: Path) -> str:
    path = tmp_path / "bad.lnl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(storage.EncounterFileError) as refused:
        storage.load(path)
    return str(refused.value)


def test_a_five_thousand_digit_number_is_named_by_where_it_is(tmp_path: Path) -> None:
    text = json.dumps(demo("lnl"), indent=1)
    text = re.sub(r'"level": \d+', '"level": ' + "9" * 5_000, text, count=1)
    line = next(i for i, words in enumerate(text.splitlines(), 1) if '"level": 9999' in words)
    column = text.splitlines()[line - 1].index("9999") + 1
    message = refusal(text, tmp_path)
    assert message.startswith(f"bad.lnl has a number longer than 20 digits at line {line}, column {column}")
    assert '"level", 5,000 digits' in message
    assert "sys." not in message and "int_max_str_digits" not in message and "Exceeds" not in message


@pytest.mark.parametrize("number", ["-" + "1" * 30, "1." + "2" * 4_400, "3e" + "4" * 5_000])
def test_any_over_long_number_is_refused_the_same_way(tmp_path: Path, number: str) -> None:
    text = json.dumps(demo("lnl"))
    text = text.replace('"version": ', f'"version": {number}, "was": ', 1)
    message = refusal(text, tmp_path)
    assert "has a number longer than 20 digits at line 1, column" in message and '"version"' in message
    assert "sys." not in message


@pytest.mark.parametrize(
    ("ruleset", "field", "value", "says"),
    [
        ("d10", "dr", -5, "encounter.combatants[0].dr: DR cannot be below 0 (got -5)"),
        ("lnl", "level", 0, "encounter.combatants[0].level: Level cannot be below 1 (got 0)"),
        ("lnl", "level", "5", "encounter.combatants[0].level: Level must be a whole number from 1 to 40 (got '5')"),
        ("lnl", "concealed", 1, "encounter.combatants[0].concealed: Concealed must be true or false (got 1)"),
        ("osr", "morale", 13, "encounter.combatants[0].morale: Morale cannot be above 12 (got 13)"),
        ("lnl", "name", "", "encounter.combatants[0].name: Name cannot be empty (got '')"),
        ("lnl", "side", "Bandits", "encounter.combatants[0].side: Side must be one of 'Party' or 'Opponents'"),
        ("lnl", "speed", 30, "encounter.combatants[0].speed: there is nothing called 'speed' here"),
    ],
)
def test_a_bad_field_in_a_file_is_named_as_the_sheet_labels_it(
    tmp_path: Path, ruleset: str, field: str, value: Any, says: str
) -> None:
    document = demo(ruleset)
    document["encounter"]["combatants"][0][field] = value
    message = refusal(json.dumps(document), tmp_path)
    assert says in message
    assert "Input should" not in message and "Extra inputs" not in message and "String should" not in message


def test_a_missing_field_says_which(tmp_path: Path) -> None:
    document = demo("d10")
    del document["encounter"]["combatants"][0]["hp_max"]
    message = refusal(json.dumps(document), tmp_path)
    assert "encounter.combatants[0].hp_max: Max HP is missing" in message


def test_a_map_file_with_a_five_thousand_digit_number_is_refused_in_the_files_terms() -> None:
    """Python refuses to read such a number with advice about its own settings; the GM is told of the
    file and the number instead."""
    from lnl_desktop.core.files.uvtt import MapFileError, read_uvtt

    text = (
        '{"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": '
        + "9" * 5000
        + ', "y": 10}, "pixels_per_grid": 70}}'
    )
    with pytest.raises(MapFileError) as refused:
        read_uvtt(text, "huge.dd2vtt")
    message = str(refused.value)
    assert message.startswith("huge.dd2vtt") and "longer than 20 digits" in message and "5,000 digits" in message
    assert "sys." not in message and "int_max_str_digits" not in message


@pytest.mark.parametrize("cell", [[10, 9223372036854775808], [24, 0], [0, 16], [10**19, 10**19]])
def test_an_explored_fog_cell_off_the_map_is_refused(tmp_path: Path, cell: list[int]) -> None:
    """Accepted before, it made the fog's mask raise OverflowError in the player view's every rebuild."""
    document = demo("lnl")
    grid = document["encounter"]["map"]
    assert (grid["width"], grid["height"]) == (24, 16)
    document["encounter"]["fog"] = {"enabled": True, "explored": [[1, 1], cell]}
    message = refusal(json.dumps(document), tmp_path)
    said = f"encounter.fog.explored: cell ({cell[0]}, {cell[1]}) is outside the 24 x 16 map"
    assert message == f"bad.lnl has 1 problem:\n{said}"


def test_explored_cells_past_any_index_leave_the_fogs_mask_as_it_is() -> None:
    from lnl_desktop.core.map.explored import explored_mask

    mask = explored_mask(frozenset({(10, 2**63), (1, 1), (-3, 2), (2**70, -(2**70))}), 4, 3)
    assert mask.shape == (3, 4) and mask.sum() == 1 and mask[1, 1]
