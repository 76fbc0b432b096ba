"""On a big walled map the first hover over a foe does not wait for its view: the cone shows at once,
what it cannot see (and the sneak approach) follows as soon as a worker has worked the view out,
exactly as if it had been worked out at once, and the next hover over it is at once."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from waiting import run_until

from lnl_desktop.core.map import visibility
from lnl_desktop.lazy import load_now
from lnl_desktop.ui.map import MapView
from lnl_desktop.ui.map import rules_overlays as overlays_module
from lnl_desktop.ui.plumbing.controller import TableController

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import big_maps


def hover(view: MapView, cell: tuple[int, int]) -> None:
    point = QPointF(view.mapFromScene(view.scene_point_of(cell)))
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        point,
        view.viewport().mapToGlobal(point),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), event)


@pytest.fixture
def big(qtbot: QtBot) -> tuple[TableController, MapView]:
    load_now("numpy")
    encounter = big_maps.build(size=160, tokens=40, segments=1500, fog=False)
    controller = TableController(encounter)
    view = MapView(controller)
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    qtbot.waitExposed(view)
    return controller, view


def test_the_first_hover_over_a_foe_works_its_view_out_on_a_worker(
    qtbot: QtBot, big: tuple[TableController, MapView], monkeypatch: pytest.MonkeyPatch
) -> None:
    controller, view = big
    encounter = controller.encounter
    foe = next(c for c in encounter.combatants if c.id.startswith("o"))
    token = encounter.tokens[foe.id]
    assert not visibility.view_known(encounter.map, token.cell, foe.size)
    threads: list[str] = []
    real = visibility.visible_mask

    def watched(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(overlays_module.visibility, "visible_mask", watched)
    controller.select("p0")
    hover(view, token.cell)
    overlays = view.overlays
    assert overlays.hovered == foe.id
    assert not overlays.cone.is_empty  # at once
    assert overlays.blind.is_empty  # not yet: its view is being worked out
    run_until(lambda: not overlays.blind.is_empty, 10.0, "the hovered foe's view")
    assert threads and threads[0] == "lnl-hover-view"
    # The same as worked out at once, on this thread.
    expected = ~real(encounter.map, token.cell, foe.size, token.facing, foe.vision_deg)
    assert overlays.blind_cells(token.cell, foe.size, token.facing, foe.vision_deg).mask.tolist() == expected.tolist()

    # Away and back: known now, shown at once.
    hover(view, encounter.tokens["p0"].cell)
    assert overlays.blind.is_empty
    hover(view, token.cell)
    assert not overlays.blind.is_empty
