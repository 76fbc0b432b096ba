"""Walls and doors painted from cached tiles (``ui/map/wall_tiles.py``): what the cache shows is what a
direct paint shows, at once after an edit, a zoom or a pan; an edit re-renders only the tiles it
touches; the cache keeps to its byte budget; a first paint on screen is spread over frames.

"The same" is checked against an uncached paint of the same lines (the cache's budget set to 0, so
:class:`LineShapes` renders the exposed area in one go): every channel of every pixel within
``TOLERANCE`` levels. Lines a tile cuts at its edge end on the rasterizer's grid a hair away from the
same lines cut at the picture's edge, which moves a few antialiased pixels by a few levels.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen
from pytestqt.qtbot import QtBot
from qt_pictures import render

from lnl_desktop.core.encounter.actions import AddWall, RemoveWall, SetDoor
from lnl_desktop.core.encounter.map_model import Door, MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter
from lnl_desktop.ui.map import MapView, wall_tiles, walls
from lnl_desktop.ui.map.wall_tiles import TILE_PX, LineShapes, tile_cache
from lnl_desktop.ui.map.walls import WALL_LINE
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX

TOLERANCE = 6  # levels of 255, per channel
OLD_TOLERANCE = 12  # against the old one-path painting: rounding where several strokes overlap


def lines_map() -> MapGrid:
    """A 24 x 16 map with walls along the grid and across it, and doors shut and open."""
    segments = [WallSegment(a=(x, 2), b=(x + 1, 2)) for x in range(2, 20)]
    segments += [WallSegment(a=(4, y), b=(4, y + 1)) for y in range(2, 14)]
    segments += [WallSegment(a=(6, 12), b=(18, 5)), WallSegment(a=(7.5, 3.25), b=(21.75, 14.5))]
    segments += [WallSegment(a=(x, 14), b=(x + 3, 14)) for x in range(5, 20, 4)]
    doors = [Door(a=(10, 8), b=(11, 8)), Door(a=(14, 10), b=(14, 11), open=True), Door(a=(20, 2), b=(21, 2))]
    return MapGrid(width=24, height=16, segments=tuple(segments), doors=tuple(doors))


def encounter() -> Encounter:
    return Encounter(
        name="Tiles",
        map=lines_map(),
        combatants=[Combatant(id="ana", name="Ana", side=Side.PARTY, level=1, stamina_max=6, injury_max=6)],
        tokens={"ana": Token(cell=(1, 1), facing=90)},
    )


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    """Each test starts from an empty cache with the usual budget."""
    budget = tile_cache.budget
    tile_cache.clear()
    yield
    tile_cache.budget = budget
    tile_cache.clear()


@pytest.fixture
def table(qtbot: QtBot) -> tuple[TableController, MapView]:
    controller = TableController(encounter())
    view = make_view(qtbot, controller)
    return controller, view


def make_view(qtbot: QtBot, controller: TableController) -> MapView:
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(900, 620)
    view.show()
    qtbot.waitExposed(view)
    view.fit_map()
    return view


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 4].reshape(image.height(), image.width(), 4).astype(np.int16)


def uncached(view: MapView) -> QImage:
    """The view painted with no tile kept: the lines straight onto the picture."""
    budget = tile_cache.budget
    tile_cache.budget = 0
    try:
        return render(view)
    finally:
        tile_cache.budget = budget


def assert_as_direct(view: MapView) -> QImage:
    """The cached picture, checked against an uncached one."""
    cached = render(view)
    direct = uncached(view)
    diff = np.abs(pixels(cached) - pixels(direct)).max()
    assert diff <= TOLERANCE, f"the cached walls differ from a direct paint by {diff} levels"
    return cached


def colour_at(view: MapView, image: QImage, point: tuple[float, float]) -> QColor:
    where = view.mapFromScene(QPointF(point[0] * CELL_PX, point[1] * CELL_PX))
    return image.pixelColor(where.x(), where.y())


def is_wall(color: QColor) -> bool:
    return max(abs(color.red() - WALL_LINE.red()), abs(color.green() - WALL_LINE.green())) < 40


def tile_of(view: MapView, point: tuple[float, float]) -> tuple[int, int]:
    """The (column, row) of the cached tile under a point in cells, at the view's zoom."""
    t = view.viewportTransform()
    x = point[0] * CELL_PX * t.m11() + t.dx()
    y = point[1] * CELL_PX * t.m22() + t.dy()
    return (math.floor((x - math.floor(t.dx())) / TILE_PX), math.floor((y - math.floor(t.dy())) / TILE_PX))


def tiles_now(view: MapView, ratio: float = 1.0) -> dict[tuple[int, int], object]:
    """The cached tiles of the view's map at its zoom, on a device of this pixel ratio (a picture: 1;
    the screen: the viewport's): (column, row) -> the image (None: empty)."""
    lineage = view.map_scene.lines._lineage
    scale = view.viewportTransform().m11() * ratio
    return {
        (col, row): tile_cache.get(level, col, row)
        for level, col, row in tile_cache.entries()
        if level[0] == lineage and level[1] == scale
    }


# -- the same as a direct paint ---------------------------------------------------------------------


def test_walls_show_exactly_and_at_once_after_edits_zooms_and_pans(table) -> None:
    controller, view = table
    view.zoom_in()
    first = assert_as_direct(view)
    assert is_wall(colour_at(view, first, (3.5, 2)))
    assert not is_wall(colour_at(view, first, (8.5, 10)))
    # A wall drawn: painted on the next paint, nothing waited for.
    controller.do(AddWall((8, 10), (9, 10)))
    drawn = assert_as_direct(view)
    assert is_wall(colour_at(view, drawn, (8.5, 10)))
    # And erased.
    controller.do(RemoveWall((8, 10), (9, 10)))
    erased = assert_as_direct(view)
    assert not is_wall(colour_at(view, erased, (8.5, 10)))
    assert np.array_equal(pixels(erased), pixels(first))
    # A door opened: its leaf swings out, its arc and threshold appear.
    shut = pixels(erased)
    controller.do(SetDoor((10, 8), (11, 8), open=True))
    opened = pixels(assert_as_direct(view))
    assert np.abs(opened - shut).max() > 100
    # Zooms and pans, each shown exactly.
    for step in (view.zoom_in, view.zoom_in, view.zoom_out, view.zoom_reset, view.fit_map):
        step()
        assert_as_direct(view)
    view.zoom_in()
    for dx, dy in ((37, -23), (-301, 0), (0, 257), (5, 5)):
        view.horizontalScrollBar().setValue(view.horizontalScrollBar().value() + dx)
        view.verticalScrollBar().setValue(view.verticalScrollBar().value() + dy)
        assert_as_direct(view)


def render_shifted(view: MapView, dx: float, dy: float, zoom: float = 1.0) -> QImage:
    """The view painted onto a picture shifted by a fraction of a pixel (and scaled), as a print or an
    export may: tiles are keyed by the fractional offset, so they still land where the lines go."""
    image = QImage(view.viewport().size(), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.translate(dx, dy)
    painter.scale(zoom, zoom)
    view.render(painter)
    painter.end()
    return image


def test_a_fractional_offset_or_scale_is_painted_exactly(table) -> None:
    _, view = table
    view.zoom_in()
    for dx, dy, zoom in ((0.37, 0.71, 1.0), (0.5, 0.0, 1.0), (-3.2, 7.9, 1.37), (0.0, 0.0, 0.61)):
        cached = pixels(render_shifted(view, dx, dy, zoom))
        budget = tile_cache.budget
        tile_cache.budget = 0
        try:
            direct = pixels(render_shifted(view, dx, dy, zoom))
        finally:
            tile_cache.budget = budget
        assert np.abs(cached - direct).max() <= TOLERANCE, (dx, dy, zoom)


def test_the_view_on_screen_shows_what_a_direct_paint_shows(table) -> None:
    """The real paint of the viewport (a widget, not a picture: its own pixel ratio) and a repaint of
    a small part, against the same widget painted uncached."""
    _, view = table
    view.zoom_in()
    viewport = view.viewport()
    viewport.repaint()
    viewport.repaint(200, 150, 90, 60)  # a drag repaints small rects
    on_screen = pixels(viewport.grab().toImage())
    assert np.abs(on_screen - on_screen_uncached(view)).max() <= TOLERANCE


def on_screen_uncached(view: MapView) -> np.ndarray:
    """The viewport's real paint with no tile and no background picture kept."""
    budget = tile_cache.budget
    tile_cache.budget = 0
    view.resetCachedContent()
    try:
        return pixels(view.viewport().grab().toImage())
    finally:
        tile_cache.budget = budget
        view.resetCachedContent()


def test_on_screen_the_background_is_kept_whole_and_every_change_shows_at_once(table, monkeypatch) -> None:
    """The view keeps its floor, grid and walls as one picture of the viewport: a repaint under a
    moving token copies it and strokes no wall; a wall drawn, a door opened, a pan and a zoom show on
    screen at once and exactly."""
    controller, view = table
    view.zoom_in()
    viewport = view.viewport()
    viewport.repaint()
    painted: list[QRectF | None] = []
    real_paint = LineShapes.paint

    def counting(self, painter, scale, exposed=None, later=None) -> None:
        painted.append(exposed)
        real_paint(self, painter, scale, exposed, later)

    monkeypatch.setattr(LineShapes, "paint", counting)
    viewport.repaint(200, 150, 90, 60)
    viewport.repaint()
    assert painted == []  # copied from the kept picture
    before = pixels(viewport.grab().toImage())
    controller.do(AddWall((8, 10), (9, 10)))
    drawn = pixels(viewport.grab().toImage())
    assert np.abs(drawn - on_screen_uncached(view)).max() <= TOLERANCE
    assert np.abs(drawn - before).max() > 100
    controller.do(SetDoor((10, 8), (11, 8), open=True))
    opened = pixels(viewport.grab().toImage())
    assert np.abs(opened - drawn).max() > 100
    assert np.abs(opened - on_screen_uncached(view)).max() <= TOLERANCE
    for dx, dy in ((37, -23), (-301, 0)):
        view.horizontalScrollBar().setValue(view.horizontalScrollBar().value() + dx)
        view.verticalScrollBar().setValue(view.verticalScrollBar().value() + dy)
        assert np.abs(pixels(viewport.grab().toImage()) - on_screen_uncached(view)).max() <= TOLERANCE
    for step in (view.zoom_in, view.fit_map):
        step()
        assert np.abs(pixels(viewport.grab().toImage()) - on_screen_uncached(view)).max() <= TOLERANCE


def test_the_tiles_match_the_old_one_path_stroke(table) -> None:
    """Casing, line and doors as before tiles, when one path held every wall: each line is stroked
    alone now, but overlapping strokes still add up as that path's fill added them."""
    _, view = table
    for step in (view.zoom_in, view.zoom_reset, view.fit_map):
        step()
        new = pixels(render(view))
        lines = view.map_scene.lines
        view.map_scene.lines = OnePath(lines)  # type: ignore[assignment]
        try:
            old = pixels(render(view))
        finally:
            view.map_scene.lines = lines
        inked = np.abs(old - pixels(render_without_lines(view))).max(axis=2) > 0
        assert inked.sum() > 2000
        assert np.abs(new - old).max() <= OLD_TOLERANCE


class OnePath:
    """The walls as they were painted before tiles: every segment in one path, stroked twice."""

    def __init__(self, lines: LineShapes) -> None:
        self.lines = lines

    def paint(self, painter: QPainter, scale: float, exposed: QRectF | None = None, later: object = None) -> None:
        path = QPainterPath()
        for line in self.lines.wall_lines():
            path.moveTo(line.p1())
            path.lineTo(line.p2())
        width = max(walls.WALL_WIDTH * CELL_PX, 2.5 / scale)
        cap, join = Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(walls.WALL_CASING, width + 2.5 / scale, Qt.PenStyle.SolidLine, cap, join))
        painter.drawPath(path)
        painter.setPen(QPen(walls.WALL_LINE, width, Qt.PenStyle.SolidLine, cap, join))
        painter.drawPath(path)
        LineShapes._paint_doors(painter, scale, painter.deviceTransform().m11(), self.lines.doors)
        painter.restore()


def render_without_lines(view: MapView) -> QImage:
    lines = view.map_scene.lines
    view.map_scene.lines = LineShapes()
    try:
        return render(view)
    finally:
        view.map_scene.lines = lines


# -- what an edit costs ---------------------------------------------------------------------------


def test_an_edit_re_renders_the_tiles_it_touches_and_reuses_the_others(table) -> None:
    controller, view = table
    view.zoom_in()
    view.zoom_in()
    render(view)
    before = tiles_now(view)
    assert len(before) >= 6
    rendered = tile_cache.rendered
    render(view)
    assert tile_cache.rendered == rendered  # a repaint renders nothing
    edited = tile_of(view, (8.5, 10))
    far = max(
        (key for key in before if before[key] is not None), key=lambda k: abs(k[0] - edited[0]) + abs(k[1] - edited[1])
    )
    assert abs(far[0] - edited[0]) + abs(far[1] - edited[1]) >= 2
    controller.do(AddWall((8, 10), (9, 10)))
    render(view)
    after = tiles_now(view)
    assert 1 <= tile_cache.rendered - rendered <= 4  # the wall's tile, and a neighbour if it is near an edge
    assert after[edited] is not before[edited]
    assert after[far] is before[far]
    unchanged = [key for key in before if key != edited and after.get(key) is before[key]]
    assert len(unchanged) >= len(before) - 4
    # A door opened far from that wall: the new wall's tile is not rendered again.
    rendered = tile_cache.rendered
    controller.do(SetDoor((20, 2), (21, 2), open=True))
    render(view)
    assert 1 <= tile_cache.rendered - rendered <= 4
    assert tiles_now(view)[edited] is after[edited]


def test_an_edit_of_a_huge_map_works_on_arrays_not_lines(qtbot: QtBot) -> None:
    """100,000 segments: a wall added keeps every other line's row and only the touched tiles go."""
    segments = tuple(WallSegment(a=(x, y), b=(x + 1, y)) for y in range(0, 400, 2) for x in range(0, 500))
    grid_map = MapGrid(width=500, height=400, segments=segments)
    shapes = LineShapes.for_map(grid_map)
    shapes._build()
    added = grid_map.model_copy(update={"segments": (*segments, WallSegment(a=(3, 3), b=(3, 4)))})
    follower = LineShapes.for_map(added, shapes)
    assert follower._lineage == shapes._lineage  # the tiles carry over
    rows = follower._build()[0].rows
    assert len(rows) == len(segments) + 1
    assert rows[-1].tolist() == [3 * CELL_PX, 3 * CELL_PX, 3 * CELL_PX, 4 * CELL_PX]
    assert len(follower.wall_lines()) == len(segments) + 1


# -- memory, sharing, first paints ------------------------------------------------------------------


def test_the_cache_keeps_to_its_budget(table) -> None:
    _, view = table
    tile = TILE_PX * TILE_PX * 4
    tile_cache.budget = 30 * tile  # a view needs 20 at most: cached, and old tiles make way
    view.zoom_reset()
    for _ in range(3):
        view.zoom_in()
    rendered = tile_cache.rendered
    for dx, dy in ((300, 0), (0, 300), (-300, 0), (0, -300), (600, 600), (-900, 0), (0, -900)):
        view.horizontalScrollBar().setValue(view.horizontalScrollBar().value() + dx)
        view.verticalScrollBar().setValue(view.verticalScrollBar().value() + dy)
        assert_as_direct(view)
        assert tile_cache.bytes <= tile_cache.budget
    assert tile_cache.rendered - rendered > 30  # more than fit: some were let go
    # A view needing more tiles than a paint may ask for is painted uncached, still exactly.
    tile_cache.clear()
    tile_cache.budget = 12 * tile  # a paint may ask for nine
    rendered = tile_cache.rendered
    view.fit_map()
    assert_as_direct(view)
    assert tile_cache.rendered == rendered and tile_cache.bytes == 0


def test_two_views_of_one_map_share_the_shapes_and_tiles(qtbot: QtBot) -> None:
    controller = TableController(encounter())
    gm = make_view(qtbot, controller)
    other = make_view(qtbot, controller)
    assert gm.map_scene.lines is other.map_scene.lines
    render(gm)
    rendered = tile_cache.rendered
    render(other)  # same map, same zoom: nothing to render
    assert tile_cache.rendered == rendered
    controller.do(AddWall((8, 10), (9, 10)))
    assert gm.map_scene.lines is other.map_scene.lines
    render(gm)
    rendered = tile_cache.rendered
    render(other)
    assert tile_cache.rendered == rendered


def test_a_first_paint_on_screen_renders_up_to_a_budget_and_the_rest_follows(
    table, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, view = table
    view.zoom_in()
    qtbot.wait(50)  # the paints the zoom asked for
    tile_cache.clear()
    view.resetCachedContent()  # as a new zoom drops the view's picture of its background
    monkeypatch.setattr(wall_tiles, "PAINT_BUDGET_US", 1.0)  # a tile a paint
    viewport = view.viewport()
    rendered = tile_cache.rendered
    viewport.repaint()
    assert tile_cache.rendered == rendered + 1
    # The paint asked for more: the other tiles come in the next frames, with no help.
    while True:
        rendered = tile_cache.rendered
        qtbot.wait(30)
        if tile_cache.rendered == rendered:
            break
    assert len(tiles_now(view, viewport.devicePixelRatioF())) > 4
    viewport.repaint()
    assert tile_cache.rendered == rendered  # nothing was left to render


def test_new_lines_first_paint_on_screen_takes_a_frame_and_the_next_paint_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tile_cache.clear()
    grid = MapGrid(width=40, height=40, segments=tuple(WallSegment(a=(x, 0), b=(x, 40)) for x in range(1, 40, 2)))
    lines = LineShapes(grid)
    monkeypatch.setattr(wall_tiles, "FIRST_PAINT_BUDGET_US", 1.0)  # a tile the first paint
    asked: list[int] = []
    image = QImage(1024, 1024, QImage.Format.Format_ARGB32_Premultiplied)

    def paint(number: int) -> None:
        image.fill(0)
        painter = QPainter(image)
        painter.scale(0.25, 0.25)  # the map's 40 cells in a few tiles
        lines.paint(painter, 0.25, None, lambda: asked.append(number))
        painter.end()

    rendered = tile_cache.rendered
    paint(1)
    assert tile_cache.rendered == rendered + 1 and asked == [1]  # the rest asked for
    paint(2)
    tiles = tile_cache.rendered - rendered
    assert tiles > 4 and asked == [1]  # the usual budget: all the others, nothing asked
    paint(3)
    assert tile_cache.rendered - rendered == tiles  # nothing left to render
    # An edit of lines shown is no first paint (the usual budget); lines following a scene's empty
    # start (a window opening its map) are.
    edited = LineShapes(MapGrid(width=40, height=40, segments=grid.segments[1:]), lines)
    assert not edited._first
    assert LineShapes(MapGrid(width=40, height=40, segments=grid.segments[2:]), LineShapes())._first


def test_picking_among_many_lines_measures_them_in_bulk_with_the_same_answer() -> None:
    """The view asks on every hover which door is under the cursor: a map's tuple of lines is measured
    at once; a list, one by one. Both give the same line, the last of those as near."""
    rng = np.random.default_rng(5)
    ends = rng.integers(0, 30, size=(300, 4))
    lines = tuple(WallSegment(a=(a, b), b=(c, d)) for a, b, c, d in ends.tolist() if (a, b) != (c, d))
    lines += lines[:20]  # the same ends twice: the later one is picked
    assert len(lines) >= walls.PICK_IN_BULK
    for x, y in rng.uniform(0, 30 * CELL_PX, size=(200, 2)).tolist():
        point = QPointF(x, y)
        for within in (7.0, 40.0, 1e9):
            assert walls.nearest_line(lines, point, within) is walls.nearest_line(list(lines), point, within)


# -- long walls across the map ------------------------------------------------------------------


def long_lines_encounter(count: int, seed: int = 3, width: int = 30, height: int = 20) -> Encounter:
    """``count`` walls between random points anywhere on the map: each crosses many tiles."""
    rng = np.random.default_rng(seed)
    ends = rng.uniform(0, 1, size=(count, 4)) * (width, height, width, height)
    segments = tuple(WallSegment(a=(a, b), b=(c, d)) for a, b, c, d in np.round(ends, 3).tolist())
    found = encounter()
    return found.model_copy(update={"map": MapGrid(width=width, height=height, segments=segments)})


def reference_clip(line: tuple[float, ...], x0: float, y0: float, x1: float, y1: float) -> tuple[float, ...] | None:
    """One segment's part inside a rect (Liang-Barsky, one line at a time), or None."""
    ax, ay, bx, by = line
    dx, dy = bx - ax, by - ay
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
    if t0 > t1:
        return None
    return (ax + t0 * dx, ay + t0 * dy, ax + t1 * dx, ay + t1 * dy)


def test_long_walls_are_cut_to_each_tile_and_a_tile_keeps_only_the_pieces_inside_it(qtbot: QtBot) -> None:
    controller = TableController(long_lines_encounter(40))
    view = make_view(qtbot, controller)
    view.zoom_reset()
    render(view)
    lines = view.map_scene.lines
    rows = lines._build()[0].rows
    scale = view.viewportTransform().m11()
    pad = wall_tiles._pad(scale, scale)
    tiles = [(c, r) for c, r in tiles_now(view)]
    assert len(tiles) > 6
    for col, row in tiles:
        rect = QRectF(col * TILE_PX / scale, row * TILE_PX / scale, TILE_PX / scale, TILE_PX / scale)
        box = (rect.left() - pad, rect.top() - pad, rect.right() + pad, rect.bottom() + pad)
        pieces = LineShapes._pieces(rows, rect, scale, scale)
        expected = [cut for cut in (reference_clip(tuple(line), *box) for line in rows.tolist()) if cut is not None]
        # Only the pieces inside the tile (and the ink's reach round it), each once.
        assert len(pieces) == len(expected) < len(rows)
        assert np.allclose(pieces, np.array(expected).reshape(-1, 4), atol=1e-6)
        assert (pieces[:, 0::2] >= box[0] - 1e-6).all() and (pieces[:, 0::2] <= box[2] + 1e-6).all()
        assert (pieces[:, 1::2] >= box[1] - 1e-6).all() and (pieces[:, 1::2] <= box[3] + 1e-6).all()


def test_a_few_long_walls_show_as_a_direct_stroke_of_them_shows(qtbot: QtBot) -> None:
    """Walls from one side of the map to the other, cut into every tile they cross: the tiles show
    what stroking the whole walls at once shows, at every zoom."""
    controller = TableController(long_lines_encounter(6, seed=8))
    view = make_view(qtbot, controller)
    for step in (view.zoom_in, view.zoom_in, view.zoom_reset, view.fit_map):
        step()
        assert_as_direct(view)
        new = pixels(render(view))
        lines = view.map_scene.lines
        view.map_scene.lines = OnePath(lines)  # type: ignore[assignment]
        try:
            old = pixels(render(view))
        finally:
            view.map_scene.lines = lines
        assert np.abs(new - old).max() <= OLD_TOLERANCE


def test_strokes_that_could_change_no_pixel_are_left_out_and_the_picture_is_the_same(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hundreds of long walls in a tile cover it wholly long before the last is stroked: the rest are
    left out (and the casing under lines that cover a pixel wholly), with not one pixel changed."""
    # The window's first paint renders as many tiles as any other: the count below is of the rest.
    monkeypatch.setattr(wall_tiles, "FIRST_PAINT_BUDGET_US", wall_tiles.PAINT_BUDGET_US)
    controller = TableController(long_lines_encounter(2000))
    view = make_view(qtbot, controller)
    stroked: list[int] = []
    stroke = wall_tiles._stroke_layer

    def counting(*args: object, **kwargs: object) -> np.ndarray:
        drawn = stroke(*args, **kwargs)  # type: ignore[arg-type]
        stroked.append(int(drawn.sum()))
        stroked.append(-len(drawn))
        return drawn

    monkeypatch.setattr(wall_tiles, "_stroke_layer", counting)
    skipping = pixels(render(view))
    drawn, offered = sum(n for n in stroked if n > 0), -sum(n for n in stroked if n < 0)
    assert drawn < 0.8 * offered
    tile_cache.clear()
    monkeypatch.setattr(wall_tiles, "_SATURATE_FROM", 10**9)
    every = pixels(render(view))
    assert np.array_equal(skipping, every)


def test_a_map_over_the_wall_length_limit_is_refused_by_the_import_with_the_reason(
    qtbot: QtBot, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QMessageBox

    from lnl_desktop.core.files import uvtt
    from lnl_desktop.ui.dialogs.import_map import import_map_file

    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, title, text, *a: said.append(f"{title}: {text}"))
    monkeypatch.setattr(uvtt, "MAX_WALL_CELLS", 1_000)
    rng = np.random.default_rng(1)
    walls_json = [[{"x": x0, "y": y0}, {"x": x1, "y": y1}] for x0, y0, x1, y1 in rng.uniform(0, 24, (300, 4)).tolist()]
    document = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 24, "y": 16}, "pixels_per_grid": 50},
        "line_of_sight": walls_json,
        "portals": [],
        "image": "",
    }
    path = tmp_path / "lines.dd2vtt"
    path.write_text(__import__("json").dumps(document), encoding="utf-8")
    controller = TableController(encounter())
    view = make_view(qtbot, controller)
    before = controller.encounter.map
    assert import_map_file(view, controller, path) is False
    assert len(said) == 1
    assert said[0].startswith("Import map: lines.dd2vtt: its 266 wall segments and doors measure ")
    assert "a map's walls and doors may measure at most 1,000 cells together" in said[0]
    assert said[0].endswith("\n\nThe map is unchanged.")
    assert controller.encounter.map is before
