"""A drag shared with the players never gives a hidden token away.

With "Share overlays" on, the players see a token's drag as they would if the tokens hidden from
them were not on the map: the route that bends round a hidden foe, "no path" onto its cell, a cost
it makes longer, a counter-attack (free attack) it would make and the reach and crosses it shapes
are the GM's alone. Each demo encounter (one per ruleset) is dragged past, onto and around a hidden
foe, with a waypoint, in setup and in combat; the player view must paint pixel for pixel what it
paints for the same drags once that foe's token is off the map.

Demo encounters: L&L (hill-giant.lnl) Tombril at (8, 6), Janine at (8, 9), the Half-orc at
(13, 9); L&L Classic Tombril at (8, 6), the Hill Giant (2 x 2) at (15, 6); Old-School d20
Tombril at (7, 7) next to the Hobgoblin chief (8, 7) and Goblin 1 (8, 8); Group d10 Tombril at
(7, 8) next to Bandit 1 (8, 8), Bandit 2 at (10, 10).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Phase, Side
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.d10.model import Declare
from lnl_desktop.paths import resources_dir
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map.overlays import PathItem
from lnl_desktop.ui.window.main_window import MainWindow
from lnl_desktop.ui.window.player_view import PlayerView

WindowFactory = Callable[..., MainWindow]
Cell = tuple[int, int]
LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier
PIN = "pin"  # in a drag's steps: press W there (a waypoint)


@dataclass(frozen=True)
class Scene:
    """One encounter: who is dragged, who is hidden, and the drags (cursor cells, pins)."""

    file: str
    mover: str
    hidden: str
    drags: tuple[tuple[Cell | str, ...], ...]
    provokes: bool  # the ruleset rings the steps that give a free attack (a counter-attack)


SCENES = {
    "lnl": Scene(
        "hill-giant.lnl",
        "tombril",
        "half-orc",
        (
            ((9, 7), (11, 8), (12, 8)),  # past: to the cell next to it
            ((10, 7), (12, 8), (13, 9)),  # onto it
            ((10, 7), (12, 8), (14, 9)),  # round it (or, for the players, straight on)
            ((10, 8), (12, 10), PIN, (14, 9)),  # round it through a waypoint
            ((11, 9), (14, 10)),  # on past it
        ),
        provokes=False,
    ),
    "classic": Scene(
        "hill-giant-classic.lnl",
        "tombril",
        "hill-giant",
        (
            ((10, 6), (14, 7)),  # past: next to it
            ((11, 6), (15, 6)),  # onto it
            ((12, 7), (17, 7)),  # round it
            ((12, 8), PIN, (16, 8)),  # under it, through a waypoint
        ),
        provokes=False,
    ),
    "osr": Scene(
        "goblin-ambush-osr.lnl",
        "tombril",
        "goblin-1",
        (
            ((7, 6), (7, 5)),  # away from both: the chief's counter-attack, Goblin 1's the GM's alone
            ((8, 8),),  # onto it
            ((9, 9),),  # through it (for the players) or round it
            ((6, 9), (8, 9), (9, 9)),  # past it
            ((6, 8), PIN, (8, 10)),  # round it through a waypoint
        ),
        provokes=True,
    ),
    "d10": Scene(
        "bandit-mill-d10.lnl",
        "tombril",
        "bandit-1",
        (
            ((8, 8),),  # onto it
            ((9, 8),),  # through it (for the players) or round it
            ((8, 10), (9, 11)),  # past Bandit 2
            ((8, 9), (10, 12), (11, 12)),  # past Bandit 2 and on: its free attack is the players' to see
            ((7, 10), PIN, (10, 8)),  # round it through a waypoint
        ),
        provokes=True,  # and Bandit 1's free attack rings a step the players must not see
    ),
}


def render(player: PlayerView) -> QImage:
    image = QImage(player.view.viewport().size(), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    player.view.render(painter)
    painter.end()
    return image


def at(view: MapView, cell: Cell) -> QPoint:
    return view.mapFromScene(view.scene_point_of(cell))


def move(view: MapView, cell: Cell) -> None:
    # QTest.mouseMove carries no buttons: a real move event with the button held.
    point = QPointF(at(view, cell))
    event = QMouseEvent(
        QEvent.Type.MouseMove, point, view.viewport().mapToGlobal(point), Qt.MouseButton.NoButton, LEFT, NONE
    )
    QApplication.sendEvent(view.viewport(), event)


@dataclass
class Seen:
    """What one drag showed: the player view's picture and what the GM's map said."""

    picture: QImage
    gm_label: str
    players_label: str
    gm_rings: list[Cell]
    players_rings: list[Cell]
    route_differs: bool  # the GM's route is not the one the players see


def drag(window: MainWindow, player: PlayerView, start: Cell, steps: tuple[Cell | str, ...]) -> Seen:
    """Press on ``start``, drag through ``steps`` (pinning where told), look, then Esc."""
    view = window.map_view
    QTest.mousePress(view.viewport(), LEFT, NONE, at(view, start))
    for step in steps:
        if step == PIN:
            QTest.keyClick(view.viewport(), Qt.Key.Key_W)
        else:
            assert isinstance(step, tuple)
            move(view, step)
    layer = view.drag_layer
    assert layer.path.isVisible()
    seen = Seen(
        render(player),
        layer.label.text,
        layer.label.players_text,
        layer.provoke.cells,
        layer.provoke.players_cells,
        layer.path.players_route != layer.path.route,
    )
    QTest.keyClick(view.viewport(), Qt.Key.Key_Escape)
    assert not layer.path.isVisible()
    return seen


def begin_turn(window: MainWindow, cid: str) -> None:
    """Start combat and play the turns before ``cid``'s (each begun and ended), then begin it."""
    controller = window.controller
    engine = controller.engine
    if engine.ruleset.name == "d10":
        for c in controller.encounter.combatants:
            assert controller.do(Declare(c.id, "move")), controller.refusal
    situation = engine.ruleset.rounds.start_procedure().situations[0].key
    assert controller.do(act.StartCombat(situation, first_side=Side.PARTY)), controller.refusal
    assert controller.encounter.combat.phase is Phase.FIGHTING
    for _ in range(30):
        waiting = [c.id for c in engine.waiting()]
        if cid in waiting and controller.do(act.BeginTurn(cid)):
            return
        if not waiting:
            assert controller.do(act.NextRound()), controller.refusal
            continue
        other = waiting[0]
        assert controller.do(act.BeginTurn(other)), controller.refusal
        assert controller.do(act.EndTurn()), controller.refusal
    raise AssertionError(f"{cid}'s turn never came")


@pytest.fixture
def table(laptop_window: WindowFactory, qtbot: QtBot) -> Callable[[str], tuple[MainWindow, PlayerView]]:
    def make(name: str) -> tuple[MainWindow, PlayerView]:
        window = laptop_window(storage.load(resources_dir() / "encounters" / SCENES[name].file))
        window.player_view_action.trigger()
        player = window.player_view
        assert player is not None
        qtbot.waitExposed(player)
        window.share_overlays_action.trigger()
        assert player.view.share_overlays
        window.activateWindow()
        return window, player

    return make


def drags_hidden_and_gone(
    window: MainWindow, player: PlayerView, scene: Scene, mover: str
) -> tuple[list[Seen], list[Seen]]:
    """Every drag of ``scene`` with its hidden foe hidden, then the same once its token is gone."""
    controller = window.controller
    start = controller.encounter.tokens[mover].cell
    hidden = [drag(window, player, start, steps) for steps in scene.drags]
    assert controller.do(act.RemoveToken(scene.hidden)), controller.refusal
    gone = [drag(window, player, start, steps) for steps in scene.drags]
    assert controller.do(act.PlaceToken(scene.hidden, hidden_cell(scene))), controller.refusal
    assert controller.do(act.SetHidden(scene.hidden, True)), controller.refusal
    return hidden, gone


def hidden_cell(scene: Scene) -> Cell:
    data = storage.load(resources_dir() / "encounters" / scene.file)
    return data.tokens[scene.hidden].cell


def assert_same_for_players(scene: Scene, hidden: list[Seen], gone: list[Seen]) -> None:
    for steps, with_foe, without in zip(scene.drags, hidden, gone, strict=True):
        assert with_foe.players_label == without.gm_label, steps
        assert with_foe.players_rings == without.gm_rings, steps
        assert with_foe.picture == without.picture, f"the players see the hidden foe in the drag {steps}"


@pytest.mark.parametrize("name", list(SCENES))
def test_the_players_see_a_drag_as_if_the_hidden_token_were_not_there(name: str, table) -> None:
    scene = SCENES[name]
    window, player = table(name)
    controller = window.controller
    assert controller.do(act.SetHidden(scene.hidden, True)), controller.refusal
    controller.select(None)

    # In setup: a drag places the token anywhere; the reach's crosses are the only decoration.
    hidden, gone = drags_hidden_and_gone(window, player, scene, scene.mover)
    assert_same_for_players(scene, hidden, gone)

    # In combat, in the mover's turn: route, cost, "no path", label, reach, crosses, rings.
    begin_turn(window, scene.mover)
    hidden, gone = drags_hidden_and_gone(window, player, scene, scene.mover)
    assert_same_for_players(scene, hidden, gone)
    # The drags went where the hidden foe changes what the GM sees: the comparison means something.
    assert any(seen.gm_label != seen.players_label for seen in hidden), [s.gm_label for s in hidden]
    assert any(seen.route_differs for seen in hidden)
    assert any("no path" in seen.gm_label and "no path" not in seen.players_label for seen in hidden)
    if scene.provokes:
        word = "Counter-attack" if name == "osr" else "Free attack"
        assert any(f"{word} from:" in seen.players_label for seen in gone), [s.gm_label for s in gone]
        # The hidden foe's attack is the GM's alone: left out of the players' line (and rings).
        assert any(
            word in seen.gm_label and seen.gm_label.splitlines()[-1] != seen.players_label.splitlines()[-1]
            for seen in hidden
        )


def test_janine_too_in_the_demo(table) -> None:
    window, player = table("lnl")
    controller = window.controller
    assert controller.do(act.SetHidden("half-orc", True))
    scene = Scene("hill-giant.lnl", "janine", "half-orc", (((11, 9), (13, 9)), ((11, 10), (14, 9))), False)
    begin_turn(window, "janine")
    hidden, gone = drags_hidden_and_gone(window, player, scene, "janine")
    assert_same_for_players(scene, hidden, gone)
    assert hidden[0].gm_label == "no path" and hidden[0].players_label == gone[0].gm_label != "no path"


def test_the_comparison_fails_without_the_players_copy_of_the_route(table, monkeypatch: pytest.MonkeyPatch) -> None:
    # The control: with the players' copy of the route left out, the players see the GM's route,
    # and the same drags tell the two encounters apart.
    monkeypatch.setattr(PathItem, "set_players_route", lambda self, *args, **kwargs: None)
    scene = SCENES["lnl"]
    window, player = table("lnl")
    controller = window.controller
    assert controller.do(act.SetHidden(scene.hidden, True))
    begin_turn(window, scene.mover)
    hidden, gone = drags_hidden_and_gone(window, player, scene, scene.mover)
    assert any(a.picture != b.picture for a, b in zip(hidden, gone, strict=True))
