"""The Action dock's checklist writes its lines into the labels it already has (building rich-text
labels at every step of a turn cost milliseconds each): what it shows is the rows given, no line
left over from a longer list, a reason's second line never cut, and the same labels reused."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from lnl_desktop.core.engine.plan import FAIL, HEAD, NA, OK, CheckRow
from lnl_desktop.core.rules.specs import ActionSpec
from lnl_desktop.ui.docks.action_checklist import ChecklistBox

SPEC = ActionSpec(key="attack", label="Attack", tip="", uses="weapon", build=lambda *a: None, gm_override=True)
LONG = "the target is behind the giant's shoulder, out of the attacker's field of vision and reach " * 3


def shown(box: ChecklistBox) -> list[str]:
    return [w.text() for w in box.widgets if isinstance(w, QLabel) and w.isVisibleTo(box)]


def visible_labels(box: ChecklistBox) -> list[QLabel]:
    return [w for w in box.findChildren(QLabel) if w.isVisibleTo(box) and w.text()]


def test_lines_are_rewritten_in_place_with_nothing_left_over(qtbot: QtBot) -> None:
    box = ChecklistBox()
    qtbot.addWidget(box)
    box.resize(260, 400)
    box.show()
    long_list = [
        CheckRow(HEAD, "Sneak attack"),
        CheckRow(OK, "Your turn"),
        CheckRow(FAIL, "In reach", LONG),
        CheckRow(NA, "Unseen", "no one sees here", detail=True),
    ]
    box.show_rows("attack", long_list, SPEC, offered=True)
    qtbot.wait(10)
    first = list(box.widgets)
    assert len(first) == 7 and len(visible_labels(box)) == 7
    assert box.title() == "Not allowed: 1 check fails" and box.override_check.isVisibleTo(box)
    reason = first[4]
    qtbot.waitUntil(
        lambda: reason.height() >= reason.heightForWidth(reason.width()) > reason.fontMetrics().height() * 2
    )

    box.show_rows("move", [CheckRow(OK, "Feet left", "25 ft"), CheckRow(OK, "Not held")], SPEC, offered=False)
    qtbot.wait(10)
    texts = shown(box)
    assert len(texts) == 4 and "Feet left" in texts[1] and "25 ft" in texts[1] and "Not held" in texts[3]
    assert not any("Sneak attack" in w.text() or "In reach" in w.text() for w in visible_labels(box))
    assert len(visible_labels(box)) == 4 and not box.override_check.isVisibleTo(box)
    assert box.title() == "Allowed: every check holds"
    # The labels written in are those of the last lines (pairs in order), not new ones.
    assert box.widgets[0] is first[1] and box.widgets[2] is first[3]
    # The reason that took three lines is one line shorter now, not kept at its old height.
    assert first[4].minimumHeight() <= first[4].heightForWidth(first[4].width()) < reason.fontMetrics().height() * 2

    box.show_rows("attack", long_list, SPEC, offered=True)
    qtbot.wait(10)
    assert box.widgets == first and len(visible_labels(box)) == 7
    assert "In reach" in box.widgets[4].text() and "out of the attacker" in box.widgets[4].text()
