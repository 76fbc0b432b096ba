"""Token labels a GM can read on a laptop: short, unique over the encounter, on a plate when small.

The pure function (:func:`lnl_desktop.ui.map.labels.token_labels`) is checked on name sets that
defeat a one-name-at-a-time rule: shared initials, kinds numbered the core's way ('Goblin',
'Goblin 2'), two numbered kinds with one initial, labels that differ only by case. Then the demo
encounters are drawn on a map the size a 1366 x 768 laptop leaves it (tokens about 17 pixels):
every token shows its own label on a plate at least 10 pixels high, the drawn letters of no two
tokens are alike, and hovering a token shows its full name. Last, the UI scale (for a projector)
enlarges labels, bars, badges, state words and the drag's label, and the player view's condition
words are large enough to read, "down" included.
"""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import combinations

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QHelpEvent, QImage, QMouseEvent, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QGraphicsScene, QGraphicsView, QToolTip
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter.actions import EditCombatant, SetHidden
from lnl_desktop.core.files import storage
from lnl_desktop.paths import resource
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.labels import split_name, token_labels
from lnl_desktop.ui.map.token_look import TokenLook
from lnl_desktop.ui.map.tokens import SMALL_TOKEN_PX, TokenItem, token_layout
from lnl_desktop.ui.plumbing.controller import TableController
from lnl_desktop.ui.plumbing.style import CELL_PX
from lnl_desktop.ui.window.player_view import PlayerView

DEMOS = ("hill-giant.lnl", "goblin-ambush-osr.lnl", "bandit-mill-d10.lnl")


def folded(labels: list[str]) -> list[str]:
    return [label.casefold() for label in labels]


def assert_unique(names: list[str]) -> list[str]:
    labels = token_labels(names)
    assert len(labels) == len(names)
    assert len(set(folded(labels))) == len(labels), dict(zip(names, labels, strict=True))
    return labels


# -- the pure function -------------------------------------------------------------------------------


def test_the_demo_gets_short_distinct_labels() -> None:
    names = ["Tombril", "Cedryk the Sneaky", "Janine the Pious", "Hill Giant", "Half-orc", "Half-orc Glaive"]
    names.append("Half-orc Archer")
    labels = dict(zip(names, assert_unique(names), strict=True))
    # Once 'HaG', 'Ha' and 'HA': now a hyphen parts words, and no two differ only by case.
    assert labels == {
        "Tombril": "To",
        "Cedryk the Sneaky": "Ce",  # the epithet is left out
        "Janine the Pious": "Ja",
        "Hill Giant": "HG",
        "Half-orc": "HO",
        "Half-orc Glaive": "HOG",
        "Half-orc Archer": "HOA",
    }


def test_creatures_of_a_kind_show_their_numbers() -> None:
    names = ["Goblin 1", "Goblin 2", "Goblin 3", "Goblin archer", "Hobgoblin chief"]
    assert token_labels(names) == ["G1", "G2", "G3", "GA", "HC"]
    # The core's own numbering: the first of a kind has no number until a second joins.
    assert token_labels(["Goblin", "Goblin 2", "Goblin 3"]) == ["G1", "G2", "G3"]
    # A name's own number is kept; the unnumbered one takes the lowest free number.
    assert token_labels(["Goblin 3", "Goblin", "Goblin 7"]) == ["G3", "G1", "G7"]
    # A lone numbered creature keeps its number.
    assert token_labels(["Guard 7", "Tombril"]) == ["G7", "To"]
    assert split_name("Bandit 12") == ("Bandit", 12)
    assert split_name("Guard7") == ("Guard", 7)
    assert split_name("Hill Giant") == ("Hill Giant", None)


def test_names_that_share_initials_are_told_apart() -> None:
    hill, half = token_labels(["Hill Giant", "Half Giant"])
    assert hill.casefold() != half.casefold()
    assert (hill, half) == ("HiG", "HaG")  # the letters that differ, not a number
    glaive, giant = token_labels(["Half-orc Glaive", "Hill Giant"])
    assert glaive != giant
    # Two numbered kinds with one initial: both keep their numbers, with more letters.
    labels = assert_unique(["Goblin 1", "Goblin 2", "Guard 1", "Guard 2"])
    assert labels == ["Go1", "Go2", "Gu1", "Gu2"]
    # Kinds alike in their first word differ by the words after it.
    archer, arbalest = assert_unique(["Goblin archer", "Goblin arbalest"])
    assert archer.startswith("GAr") and arbalest.startswith("GAr")


def test_labels_never_differ_only_by_case_or_punctuation() -> None:
    assert_unique(["Half-orc", "Half-orc Archer", "Ha", "HA", "ha"])
    assert_unique(["Orc", "ORC", "orc"])  # one kind, numbered
    assert token_labels(["Hill Giant", "Hill-Giant", "hill giant"]) == ["HG1", "HG2", "HG3"]
    assert_unique(["Goblin 1", "G1", "G 1", "Goblin1"])
    assert_unique(["", "", "?"])
    assert_unique(["Orc", "Ogre", "Owlbear", "Otyugh", "Ooze", "Orc 2"])


def test_a_newcomer_leaves_the_others_labels_alone() -> None:
    goblins = ["Goblin 1", "Goblin 2", "Goblin archer", "Hobgoblin chief"]
    before = token_labels(goblins)
    after = token_labels([*goblins, "Tombril", "Janine"])
    assert after[: len(goblins)] == before


def test_many_random_names_stay_unique_and_short() -> None:
    rng = random.Random(13)
    words = ["Goblin", "Guard", "Giant", "Hill", "Half", "orc", "Archer", "Arbalest", "Orc", "Ogre", "the", "Grey"]
    for _ in range(200):
        names = []
        for _ in range(rng.randint(2, 14)):
            name = " ".join(rng.choice(words) for _ in range(rng.randint(1, 3)))
            if rng.random() < 0.3:
                name += f" {rng.randint(1, 9)}"
            names.append(name)
        labels = assert_unique(names)
        # Short enough for a small token, whatever the names.
        assert all(len(label.rstrip("0123456789-")) <= 7 for label in labels), list(zip(names, labels, strict=True))


# -- on a laptop's map ---------------------------------------------------------------------------------


def laptop_map(qtbot: QtBot, name: str) -> tuple[TableController, MapView]:
    """The map as a 1366 x 768 laptop leaves it beside the docks: about 17 pixels a cell."""
    controller = TableController(storage.load(resource("encounters", name)))
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(420, 300)
    view.show()
    qtbot.waitExposed(view)
    return controller, view


def letters(image: QImage, rect: QRect) -> frozenset[tuple[int, int]]:
    """The white pixels (the letters) inside ``rect`` of ``image``, relative to the first of them."""
    white = set()
    inner = rect.adjusted(2, 2, -2, -2)  # not the plate's white rim
    for x in range(max(0, inner.left()), min(image.width(), inner.right() + 1)):
        for y in range(max(0, inner.top()), min(image.height(), inner.bottom() + 1)):
            c = QColor(image.pixel(x, y))
            if min(c.red(), c.green(), c.blue()) >= 215:
                white.add((x, y))
    if not white:
        return frozenset()
    x0 = min(x for x, _ in white)
    y0 = min(y for _, y in white)
    return frozenset((x - x0, y - y0) for x, y in white)


@pytest.mark.parametrize("name", DEMOS)
def test_small_tokens_show_their_own_label_on_a_readable_plate(qtbot: QtBot, name: str) -> None:
    controller, view = laptop_map(qtbot, name)
    encounter = controller.encounter
    cell_px = view.zoom() * CELL_PX
    assert 14 <= cell_px < SMALL_TOKEN_PX  # the laptop's case: tokens of 14 to 24 pixels
    ids = [c.id for c in encounter.combatants]
    expected = dict(zip(ids, token_labels([c.name for c in encounter.combatants]), strict=True))
    image = view.viewport().grab().toImage()
    drawn: dict[str, frozenset[tuple[int, int]]] = {}
    for cid, item in view.map_scene.tokens.items():
        look = item.look
        assert look.label == expected[cid]
        if look.size > 1:
            continue  # a 2 x 2 giant is big enough for its label on the token
        layout = item.layout()
        assert layout.mode == "plate", cid
        assert layout.label_px >= 10  # letters a GM reads: once 5 or 6 pixels
        plate = view.mapFromScene(item.mapRectToScene(layout.plate)).boundingRect()
        assert plate.height() >= 12 and plate.width() >= 12
        # The plate sits on the token, overflowing it a little at most.
        centre = view.mapFromScene(item.mapToScene(QPointF(CELL_PX / 2, CELL_PX / 2)))
        assert plate.contains(centre)
        assert plate.width() <= 2.0 * cell_px
        drawn[cid] = letters(image, plate)
        rows = {y for _, y in drawn[cid]}
        assert len(rows) >= 7, (cid, look.label)  # letters at least 7 pixels tall are drawn
    for a, b in combinations(drawn, 2):
        assert drawn[a] != drawn[b], (a, b)


@pytest.mark.parametrize("name", DEMOS[:2])
def test_hovering_a_small_token_tells_its_full_name(qtbot: QtBot, name: str) -> None:
    controller, view = laptop_map(qtbot, name)
    for c in controller.encounter.combatants:
        token = controller.encounter.tokens.get(c.id)
        if token is None:
            continue
        item = view.map_scene.tokens[c.id]
        assert item.toolTip().startswith(f"<b>{c.name}</b>")
        point = view.mapFromScene(QPointF((token.cell[0] + 0.5) * CELL_PX, (token.cell[1] + 0.5) * CELL_PX))
        QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, point, view.mapToGlobal(point)))
        assert f"<b>{c.name}</b>" in QToolTip.text()
    QToolTip.hideText()


def test_at_full_size_the_label_is_on_the_token_and_unique_too(qtbot: QtBot) -> None:
    _, view = laptop_map(qtbot, "hill-giant.lnl")
    view.resize(1400, 950)  # about 57 pixels a cell
    assert view.zoom() * CELL_PX >= SMALL_TOKEN_PX
    labels = {cid: item.look.label for cid, item in view.map_scene.tokens.items()}
    assert {cid: item.layout().mode for cid, item in view.map_scene.tokens.items()} == dict.fromkeys(labels, "full")
    assert labels["half-orc-glaive"] == "HOG" and labels["hill-giant"] == "HG"
    assert len(set(folded(list(labels.values())))) == len(labels)


# -- the UI scale ------------------------------------------------------------------------------------


def drawn_rows(image: QImage, rect: QRect) -> int:
    """How many pixel rows the white letters inside ``rect`` take up."""
    return len({y for _, y in letters(image, rect)})


def screen_rect(view: QGraphicsView, item: TokenItem, rect: QRectF) -> QRect:
    return view.mapFromScene(item.mapRectToScene(rect)).boundingRect()


def test_the_ui_scale_enlarges_small_tokens_labels(qtbot: QtBot) -> None:
    _, view = laptop_map(qtbot, "hill-giant.lnl")
    assert view.ui_scale() == 1.0
    before: dict[str, tuple[float, int, int]] = {}
    image = view.viewport().grab().toImage()
    for cid in ("tombril", "half-orc", "half-orc-glaive"):
        item = view.map_scene.tokens[cid]
        plate = screen_rect(view, item, item.layout().plate)
        before[cid] = (item.layout().label_px, plate.height(), drawn_rows(image, plate))
    view.set_ui_scale(2.0)  # View > UI scale > 200 %
    image = view.viewport().grab().toImage()
    for cid, (px, height, rows) in before.items():
        item = view.map_scene.tokens[cid]
        assert item.ui_scale == 2.0
        layout = item.layout()
        plate = screen_rect(view, item, layout.plate)
        # At least 1.3 times (a plate much wider than its token would hide its neighbours' labels).
        assert layout.label_px >= 1.3 * px, cid
        assert plate.height() >= 1.3 * height, cid
        assert drawn_rows(image, plate) >= 1.25 * rows, cid  # the letters drawn are taller
        assert item.boundingRect().contains(layout.plate)  # and the item has room for them


def test_the_ui_scale_enlarges_full_size_labels_bars_badges_and_words(qtbot: QtBot) -> None:
    controller, view = laptop_map(qtbot, "hill-giant.lnl")
    controller.do(EditCombatant("tombril", {"concealed": True}))  # a badge
    view.resize(1400, 950)  # about 57 pixels a cell: full size at 100 % and at 200 %
    item = view.map_scene.tokens["tombril"]
    one = item.layout()
    view.set_ui_scale(2.0)
    two = item.layout()
    assert one.mode == two.mode == "full"
    assert two.label_px >= 1.25 * one.label_px
    assert len(one.bars) == len(two.bars) == 2
    for a, b in zip(one.bars, two.bars, strict=True):
        assert b.height() >= 1.4 * a.height() and b.width() > a.width()
        assert QRectF(0, 0, 64, 64).contains(b)  # still on the token
    assert two.badge_radius >= 1.25 * one.badge_radius
    # A state word ("dead", "flees") keeps at least 11 pixels at 100 %, twice that at 200 %.
    dead = replace(item.look, word="dead")
    for lod in (0.05, 0.3, 1.0):
        assert token_layout(dead, lod, 1.0).word_px >= 11
        assert token_layout(dead, lod, 2.0).word_px >= 22
        plate = token_layout(dead, lod, 2.0).word_plate
        assert plate.height() * lod >= 22 and plate.bottom() < 0  # above the token, the label stays seen


def test_the_ui_scale_enlarges_the_drag_label(qtbot: QtBot) -> None:
    controller, view = laptop_map(qtbot, "hill-giant.lnl")
    controller.engine.start_combat(face=5)
    controller.engine.begin_turn("tombril")
    view.resize(900, 620)
    heights = []
    for factor in (1.0, 2.0):
        view.set_ui_scale(factor)
        start = view.mapFromScene(QPointF(8.5 * 64, 6.5 * 64))
        end = view.mapFromScene(QPointF(10.5 * 64, 7.5 * 64))
        QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
        for point in (start + QPoint(12, 0), end):
            event = QMouseEvent(
                QEvent.Type.MouseMove,
                QPointF(point),
                view.viewport().mapToGlobal(QPointF(point)),
                Qt.MouseButton.NoButton,
                Qt.MouseButton.LeftButton,
                Qt.KeyboardModifier.NoModifier,
            )
            QApplication.sendEvent(view.viewport(), event)
        label = view.drag_layer.label
        assert label.isVisible() and label.text == "10 ft"
        assert label.font.pixelSize() == round(20 * factor)
        heights.append(label.boundingRect().height())
        QTest.keyClick(view.viewport(), Qt.Key.Key_Escape)
    assert heights[1] >= 1.8 * heights[0]


# -- the players' condition words -----------------------------------------------------------------------


def render_item(look: TokenLook, lod: float, ui_scale: float) -> tuple[QImage, TokenItem]:
    """One token drawn alone at a zoom of ``lod``, on white."""
    scene = QGraphicsScene()
    item = TokenItem(look, lod, ui_scale)
    scene.addItem(item)
    source = item.mapRectToScene(item.boundingRect())
    image = QImage(round(source.width() * lod), round(source.height() * lod), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(painter, QRectF(image.rect()), source)
    painter.end()
    scene.removeItem(item)
    return image, item


def test_the_players_condition_words_are_readable_and_down_is_not_crossed_out(qtbot: QtBot) -> None:
    controller = TableController(storage.load(resource("encounters", "hill-giant.lnl")))
    controller.do(EditCombatant("half-orc", {"stamina": 0, "injury": 0}))  # down
    controller.do(EditCombatant("half-orc-glaive", {"stamina": 3}))  # wounded
    player = PlayerView(controller)
    qtbot.addWidget(player)
    player.show()
    qtbot.waitExposed(player)
    view = player.view
    image = view.viewport().grab().toImage()
    words = {}
    for cid in ("half-orc", "half-orc-glaive", "hill-giant"):
        item = player.scene.tokens[cid]
        layout = item.layout()
        words[cid] = item.look.condition
        assert layout.condition_px >= 12  # once 8 pixels
        plate = screen_rect(view, item, layout.condition_plate)
        assert plate.height() >= 16
        assert drawn_rows(image, plate) >= 9, cid  # 'd', 'h', 'b' rise above the rest
    assert words == {"half-orc": "down", "half-orc-glaive": "wounded", "hill-giant": "unhurt"}
    player.set_scale(200)
    for cid in words:
        assert player.scene.tokens[cid].layout().condition_px >= 24
    # "down" is read, not crossed out: its plate looks the same as on a token that is not down.
    down = player.scene.tokens["half-orc"].look
    assert down.down
    lod = view.transform().m11()
    crossed, item = render_item(down, lod, 1.0)
    plain, _ = render_item(replace(down, down=False), lod, 1.0)
    plate = item.layout(lod).condition_plate
    inset = plate.height() * 0.3  # clear of the rounded corners, where the body shows
    box = QRectF(plate).adjusted(inset, 2 / lod, -inset, -2 / lod)
    origin = item.boundingRect().topLeft()
    area = QRectF(
        (box.left() - origin.x()) * lod, (box.top() - origin.y()) * lod, box.width() * lod, box.height() * lod
    )
    area = area.toRect()
    assert area.width() > 10 and area.height() > 8
    assert letters(plain, area), "the word is drawn"
    differ = [
        (x, y)
        for x in range(area.left(), area.right() + 1)
        for y in range(area.top(), area.bottom() + 1)
        if crossed.pixel(x, y) != plain.pixel(x, y)
    ]
    assert not differ


def test_the_players_labels_tell_nothing_of_a_hidden_creature(qtbot: QtBot) -> None:
    controller = TableController(storage.load(resource("encounters", "hill-giant.lnl")))
    controller.do(EditCombatant("half-orc-glaive", {"name": "Half-orc 2"}))  # two of a kind: numbered
    controller.do(SetHidden("half-orc-glaive", True))
    gm = MapView(controller)
    qtbot.addWidget(gm)
    player = PlayerView(controller, gm)
    qtbot.addWidget(player)
    assert gm.map_scene.tokens["half-orc"].look.label == "HO1"  # the GM's map: one of two
    assert "half-orc-glaive" not in player.scene.tokens
    assert player.scene.tokens["half-orc"].look.label == "HO"  # the players': no "1" hinting at a second
    controller.do(SetHidden("half-orc-glaive", False))
    assert player.scene.tokens["half-orc"].look.label == "HO1"
    assert player.scene.tokens["half-orc-glaive"].look.label == "HO2"
