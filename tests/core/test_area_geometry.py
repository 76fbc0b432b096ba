"""Which cells an area strikes (RULES §14) and the engine's templates: shapes measured in the grid's
diagonal rule, a wall's shadow, cover from the corners seen, origins snapped, templates laid, edited
and removed as one undo step each with clear refusals, and a spell's range from its caster."""

from __future__ import annotations

import pytest

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.map_model import MapGrid, WallSegment
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.files import storage
from lnl_desktop.core.map.areas import AreaShape, corners_seen, drag_size, snap_origin, strike
from lnl_desktop.core.map.grid import DiagonalRule, cell_distance_ft
from lnl_desktop.paths import demo_encounter_path

OPEN = MapGrid(width=30, height=30)


def cells(
    shape: AreaShape,
    origin: tuple[float, float],
    size: int,
    direction: float = 0.0,
    grid: MapGrid = OPEN,
    rule: DiagonalRule = DiagonalRule.ALTERNATING,
) -> set[tuple[int, int]]:
    return set(strike(grid, shape, origin, size, direction, rule).cells())


@pytest.mark.parametrize("rule", list(DiagonalRule))
def test_a_circle_round_a_cells_centre_is_that_grids_reach(rule: DiagonalRule) -> None:
    centre = (10, 10)
    struck = cells(AreaShape.CIRCLE, (10.5, 10.5), 15, rule=rule)
    reach = {(x, y) for x in range(30) for y in range(30) if cell_distance_ft(centre, (x, y), rule) <= 15}
    assert struck == reach


def test_a_circle_round_a_corner_counts_the_cells_stepped_through() -> None:
    # A 5 ft circle round a corner: the four cells that touch it; 10 ft: a 4 x 4 block less its corners.
    assert cells(AreaShape.CIRCLE, (10.0, 10.0), 5) == {(9, 9), (10, 9), (9, 10), (10, 10)}
    ten = cells(AreaShape.CIRCLE, (10.0, 10.0), 10)
    assert len(ten) == 12 and (8, 8) not in ten and (8, 9) in ten


def test_a_cone_is_ninety_degrees_wide_and_starts_past_its_origin() -> None:
    east = cells(AreaShape.CONE, (10.0, 10.5), 15, 90.0)
    assert east == {(10, 10), (11, 9), (11, 10), (11, 11), (12, 9), (12, 10), (12, 11)}
    assert all(x >= 10 for x, _ in east)
    north = cells(AreaShape.CONE, (10.5, 10.0), 15, 0.0)
    assert north == {(10, 9), (9, 8), (10, 8), (11, 8), (9, 7), (10, 7), (11, 7)}


def test_a_line_is_one_cell_wide_and_a_square_lies_from_its_corner() -> None:
    assert cells(AreaShape.LINE, (10.0, 10.5), 30, 90.0) == {(x, 10) for x in range(10, 16)}
    # Along cell edges, a line takes one column (the one on its left as it points), not two.
    assert cells(AreaShape.LINE, (10.0, 10.0), 20, 0.0) == {(9, y) for y in range(6, 10)}
    assert cells(AreaShape.SQUARE, (10.0, 10.0), 10, 135.0) == {(10, 10), (11, 10), (10, 11), (11, 11)}
    assert cells(AreaShape.SQUARE, (10.0, 10.0), 10, 315.0) == {(8, 8), (9, 8), (8, 9), (9, 9)}


def test_a_wall_shields_the_cells_behind_it_and_half_behind_a_corner_is_cover() -> None:
    grid = MapGrid(width=30, height=30, segments=(WallSegment(a=(12, 8), b=(12, 13)),))
    area = strike(grid, AreaShape.CIRCLE, (10.5, 10.5), 15, 0.0, DiagonalRule.ALTERNATING)
    struck, inside = set(area.cells()), set(area.cells("inside"))
    assert (11, 10) in struck and (12, 10) in inside and (12, 10) not in struck
    assert set(area.shielded()) == {c for c in inside if c[0] >= 12 and 8 <= c[1] < 13}
    assert corners_seen(grid, (10.5, 10.5), (12, 10), 1) == 0
    assert corners_seen(grid, (10.5, 10.5), (11, 10), 1) == 4
    assert 0 < corners_seen(grid, (10.5, 10.5), (12, 13), 1) < 4  # past the wall's end: partly seen


def test_origins_snap_and_drags_size_as_the_rules_say() -> None:
    assert snap_origin(AreaShape.CIRCLE, (10.1, 10.2)) == (10.0, 10.0)
    assert snap_origin(AreaShape.CIRCLE, (10.4, 10.6)) == (10.5, 10.5)
    assert snap_origin(AreaShape.CONE, (10.1, 10.6)) == (10.0, 10.5)  # a cell's edge
    assert snap_origin(AreaShape.SQUARE, (10.4, 10.6)) == (10.0, 11.0)
    assert drag_size(AreaShape.CIRCLE, (0.5, 0.5), (3.5, 3.5), DiagonalRule.ALTERNATING) == 20  # 5-10-5
    assert drag_size(AreaShape.CIRCLE, (0.5, 0.5), (3.5, 3.5), DiagonalRule.FIVE) == 15
    assert drag_size(AreaShape.LINE, (0.0, 0.5), (6.0, 0.5), DiagonalRule.ALTERNATING) == 30
    assert drag_size(AreaShape.CONE, (0.0, 0.5), (0.1, 0.5), DiagonalRule.ALTERNATING) == 5  # never 0


def test_templates_are_laid_edited_and_removed_each_one_undo_step_with_clear_refusals() -> None:
    engine = Engine(storage.load(demo_encounter_path()))
    engine.apply(act.PlaceTemplate("cone", (9.0, 6.5), 30, 90.0, "Burning oil"))
    (placed,) = engine.encounter.templates
    assert engine.encounter.log[-1].text == 'GM lays the 30 ft cone "Burning oil"'
    engine.apply(act.EditTemplate(placed.id, size_ft=40, direction=100.0))
    assert engine.encounter.templates[0].size_ft == 40
    for bad, reason in (
        (act.PlaceTemplate("blob", (1.0, 1.0), 10), "'blob' is not a shape"),
        (act.PlaceTemplate("circle", (1.0, 1.0), 12), "12 ft is not a size"),
        (act.PlaceTemplate("circle", (1.0, 1.0), 400), "400 ft is not a size"),
        (act.PlaceTemplate("circle", (99.0, 1.0), 10), "off the 24 x 16 map"),
        (act.EditTemplate("a9", size_ft=10), "there is no template 'a9'"),
        (act.EditTemplate(placed.id, size_ft=40), "nothing to change"),
        (act.RemoveTemplate("a9"), "there is no template 'a9'"),
    ):
        with pytest.raises(IllegalAction, match=reason):
            engine.apply(bad)
    engine.apply(act.RemoveTemplate(placed.id))
    assert engine.encounter.templates == ()
    engine.undo()
    assert engine.encounter.templates[0].size_ft == 40
    engine.undo()
    assert engine.encounter.templates == (placed,)
    engine.undo()
    assert engine.encounter.templates == ()


def test_a_target_outside_the_area_and_a_spell_beyond_its_range_are_refused() -> None:
    engine = Engine(storage.load(demo_encounter_path()))
    ruleset = engine.ruleset
    mage = next(dict(c) for c in ruleset.bestiary() if c["name"] == "Fire Mage")
    mage["side"] = "Party"
    mage["spells"] = [dict(s, range_ft=50) for s in mage["spells"]]
    engine.apply(act.AddCombatant(mage, cell=(0, 0)))
    cid = engine.encounter.combatants[-1].id
    far = act.AreaEffect("circle", (20.5, 12.5), 20, targets=("half-orc-archer",), caster=cid, means="Fireball")
    with pytest.raises(IllegalAction, match="Fireball reaches 50 ft; the area starts 130 ft from Fire Mage"):
        engine.apply(far)
    near = act.AreaEffect("circle", (1.5, 1.5), 20, targets=("tombril",), caster=cid, means="Fireball")
    with pytest.raises(IllegalAction, match="Tombril is not inside a 20 ft radius circle"):
        engine.apply(near)
