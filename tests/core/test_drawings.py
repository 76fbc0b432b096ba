"""Drawings and labels on the map: added, moved, restyled, shown and erased, each one undo step and
one line of the log; refused with the limit named; saved and loaded; old files have none."""

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from lnl_desktop.core.encounter.actions import AddDrawing, EditDrawing, RemoveDrawing
from lnl_desktop.core.encounter.drawings import MAX_DRAWINGS, MAX_POINTS, Drawing, DrawingKind
from lnl_desktop.core.encounter.events import DrawingAdded, DrawingChanged, DrawingRemoved
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.files import storage
from lnl_desktop.paths import demo_encounter_path

RECT = AddDrawing("rectangle", ((2.0, 3.0), (5.5, 6.0)))


@pytest.fixture
def engine() -> Engine:
    return Engine(storage.load(demo_encounter_path()))


def test_a_rectangle_is_drawn_for_the_gm_only_and_logged(engine: Engine) -> None:
    events = engine.apply(RECT)
    (drawing,) = engine.encounter.drawings
    assert drawing.kind is DrawingKind.RECTANGLE and drawing.points == ((2.0, 3.0), (5.5, 6.0))
    assert not drawing.shown and drawing.id == "d1"
    assert isinstance(events[0], DrawingAdded)
    assert events[0].text == "GM draws a rectangle (GM only)"
    assert engine.encounter.log[-1] == events[0]


def test_every_kind_is_drawn(engine: Engine) -> None:
    engine.apply(AddDrawing("freehand", tuple((x / 2, 1.0 + x / 3) for x in range(30)), "#0077BB", 5))
    engine.apply(AddDrawing("line", ((0, 0), (4, 4)), shown=True))
    engine.apply(AddDrawing("ellipse", ((1, 1), (3, 2))))
    events = engine.apply(AddDrawing("text", ((6, 2),), text="the altar", shown=True))
    assert [d.kind.value for d in engine.encounter.drawings] == ["freehand", "line", "ellipse", "text"]
    assert engine.encounter.drawings[0].colour == "#0077bb"  # kept in lower case
    assert events[0].text == 'GM draws the label "the altar" (shown to the players)'


def test_edits_move_restyle_show_and_rewrite_each_one_step(engine: Engine) -> None:
    engine.apply(RECT)
    engine.apply(EditDrawing("d1", offset=(1.0, -1.0)))
    assert engine.encounter.drawings[0].points == ((3.0, 2.0), (6.5, 5.0))
    events = engine.apply(EditDrawing("d1", shown=True))
    assert isinstance(events[0], DrawingChanged)
    assert events[0].text == "GM shows the players a rectangle"
    engine.apply(EditDrawing("d1", colour="#009e73", width=8))
    assert engine.encounter.drawings[0].colour == "#009e73" and engine.encounter.drawings[0].width == 8
    engine.undo()
    assert engine.encounter.drawings[0].width == 3
    engine.undo()
    assert not engine.encounter.drawings[0].shown
    engine.undo()
    assert engine.encounter.drawings[0].points == ((2.0, 3.0), (5.5, 6.0))
    engine.redo()
    assert engine.encounter.drawings[0].points == ((3.0, 2.0), (6.5, 5.0))


def test_a_label_is_rewritten(engine: Engine) -> None:
    engine.apply(AddDrawing("text", ((1, 1),), text="trap"))
    events = engine.apply(EditDrawing("d1", text="pit trap"))
    assert events[0].text == 'GM rewrites the label "trap" as "pit trap"'
    with pytest.raises(IllegalAction, match="needs some words"):
        engine.apply(EditDrawing("d1", text="  "))


def test_remove_and_undo_put_it_back_exactly(engine: Engine) -> None:
    engine.apply(RECT)
    engine.apply(AddDrawing("line", ((0, 0), (4, 4))))
    before = engine.encounter.drawings
    events = engine.apply(RemoveDrawing("d1"))
    assert isinstance(events[0], DrawingRemoved) and events[0].text == "GM erases a rectangle (GM only)"
    assert [d.id for d in engine.encounter.drawings] == ["d2"]
    engine.undo()
    assert engine.encounter.drawings == before
    engine.undo()
    engine.undo()
    assert engine.encounter.drawings == ()
    assert "drawings" in engine.touched.parts


@pytest.mark.parametrize(
    ("action", "words"),
    [
        (AddDrawing("rectangle", ((2, 3), (2, 6))), "needs a width and a height"),
        (AddDrawing("line", ((2, 3), (2, 3))), "two different ends"),
        (AddDrawing("line", ((2, 3),)), "a line has 2 points, not 1"),
        (AddDrawing("freehand", tuple((0.01 * i, 1.0) for i in range(MAX_POINTS + 1))), "at most 2,000"),
        (AddDrawing("text", ((1, 1),), text="x" * 201), "200"),
        (AddDrawing("text", ((1, 1),)), "needs some words"),
        (AddDrawing("rectangle", ((1, 1), (2, 2)), text="x"), "only a label has"),
        (AddDrawing("rectangle", ((1, 1), (2, 2)), colour="red"), "#rrggbb"),
        (AddDrawing("rectangle", ((1, 1), (2, 2)), width=21), "20"),
        (AddDrawing("rectangle", ((1, 1), (2, 2)), width=0), "1"),
        (AddDrawing("star", ((1, 1), (2, 2))), "freehand"),
        (AddDrawing("rectangle", ((1, 1), (200, 2))), "off the"),
        (AddDrawing("line", ((1, 1), (float("nan"), 2))), "not a number"),
    ],
)
def test_bad_drawings_are_refused_and_change_nothing(engine: Engine, action: AddDrawing, words: str) -> None:
    log = len(engine.encounter.log)
    with pytest.raises(IllegalAction, match=words):
        engine.apply(action)
    assert engine.encounter.drawings == () and len(engine.encounter.log) == log


def test_a_move_off_the_map_and_an_unknown_drawing_are_refused(engine: Engine) -> None:
    engine.apply(RECT)
    with pytest.raises(IllegalAction, match="off the"):
        engine.apply(EditDrawing("d1", offset=(-5.0, 0.0)))
    with pytest.raises(IllegalAction, match="no drawing 'd9'"):
        engine.apply(RemoveDrawing("d9"))
    with pytest.raises(IllegalAction, match="nothing to change"):
        engine.apply(EditDrawing("d1", shown=False))
    assert engine.encounter.drawings[0].points == ((2.0, 3.0), (5.5, 6.0))


def test_a_map_holds_at_most_500_drawings(engine: Engine) -> None:
    many = tuple(
        Drawing(id=f"d{i + 1}", kind=DrawingKind.LINE, points=((1, 1), (2, 2 + i / 1000))) for i in range(MAX_DRAWINGS)
    )
    engine.encounter.drawings = many
    with pytest.raises(IllegalAction, match="500 drawings already"):
        engine.apply(RECT)
    with pytest.raises(ValidationError, match="the most a map may have is 500"):
        type(engine.encounter).model_validate({**engine.encounter.model_dump(), "drawings": [*many, many[0]]})


def test_two_drawings_with_one_id_are_refused_in_a_file(engine: Engine, tmp_path: Path) -> None:
    engine.apply(RECT)
    engine.apply(RECT)
    data = json.loads(storage.dumps(engine.encounter))
    data["encounter"]["drawings"][1]["id"] = "d1"
    with pytest.raises(storage.EncounterFileError, match="two drawings have the id 'd1'"):
        storage.loads(json.dumps(data))


def test_drawings_are_saved_and_loaded(engine: Engine, tmp_path: Path) -> None:
    engine.apply(RECT)
    engine.apply(AddDrawing("freehand", ((0.5, 0.5), (1.25, 2.0), (3.0, 2.5)), "#ee7733", 2, shown=True))
    engine.apply(AddDrawing("text", ((6, 2),), text="the altar"))
    again = storage.load(storage.save(engine.encounter, tmp_path / "drawn.lnl"))
    assert again.drawings == engine.encounter.drawings
    assert again == engine.encounter


def test_old_files_have_no_drawings(tmp_path: Path) -> None:
    text = demo_encounter_path().read_text(encoding="utf-8")
    assert '"drawings"' not in text
    encounter = storage.loads(text)
    assert encounter.drawings == ()
    assert storage.loads(storage.dumps(encounter)) == encounter
