"""Exporting the round log: Markdown, HTML and CSV carry every event, grouped by round."""

import csv
import io
from pathlib import Path

import pytest

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import export, storage
from lnl_desktop.core.rules.lnl import script
from lnl_desktop.paths import demo_encounter_path


@pytest.fixture
def fought() -> Encounter:
    encounter = storage.load(demo_encounter_path())
    engine = Engine(encounter)
    engine.start_combat(face=5)
    engine.begin_turn("tombril")
    engine.move("tombril", (14, 6))
    script.attack(engine, "tombril", "hill-giant", "Shortsword", faces=[5, 3, 4, 3, 2])
    engine.end_turn()
    engine.begin_turn("cedryk")
    engine.end_turn()
    engine.undo()
    return encounter


def test_markdown_groups_rounds_and_keeps_the_formula(fought: Encounter) -> None:
    text = export.to_markdown(fought)
    assert text.startswith("# Round log: The Hill Giant at the Old Tower")
    assert "## Round 1" in text
    assert "dice 5 + 3 + 4 + 3 + 2 = 17 + 5 x 2 magic + 8 STR - 3 DEX - 1 AP = 31" in text
    assert "- _Undone: Cedryk the Sneaky ends the turn" in text


def test_html_escapes_and_marks_undone_lines(fought: Encounter) -> None:
    fought.name = "Ambush <at> the ford & mill"
    text = export.to_html(fought)
    assert "Ambush &lt;at&gt; the ford &amp; mill" in text
    assert '<li class="undone">' in text
    assert text.count("<h2>") == 1


def test_csv_has_one_row_per_event_with_the_attack_numbers(fought: Encounter) -> None:
    rows = list(csv.DictReader(io.StringIO(export.to_csv(fought))))
    assert len(rows) == len(fought.log)
    attack = next(r for r in rows if r["kind"] == "attack")
    assert attack["dice"] == "5 3 4 3 2"
    assert (attack["damage"], attack["to SP"], attack["target SP"]) == ("31", "31", "37")
    assert attack["combatants"] == "Tombril, Hill Giant"


def test_export_picks_the_format_by_suffix_and_refuses_others(fought: Encounter, tmp_path: Path) -> None:
    for suffix, marker in ((".md", "# Round log"), (".html", "<!DOCTYPE html>"), (".csv", "round,kind")):
        written = export.export_log(fought, tmp_path / f"log{suffix}")
        assert written.read_text(encoding="utf-8").startswith(marker)
    with pytest.raises(RulesError, match="export as .md"):
        export.export_log(fought, tmp_path / "log.docx")
    assert not (tmp_path / "log.docx").exists()


def test_a_classic_surprise_round_has_its_own_heading() -> None:
    from lnl_desktop.core.encounter import actions as act
    from lnl_desktop.core.engine.engine import Engine
    from lnl_desktop.core.files.export import to_markdown
    from lnl_desktop.paths import resource

    engine = Engine(storage.load(resource("encounters", "hill-giant-classic.lnl")))
    engine.apply(act.EditCombatant("tombril", {"notes": "scouting ahead"}))
    engine.apply(act.StartCombat("Opponents surprise round"))
    engine.begin_turn("hill-giant")
    engine.end_turn()
    engine.next_round(5)
    text = to_markdown(engine.encounter)
    setup, surprise, round_1 = text.index("## Setup"), text.index("## Surprise round"), text.index("## Round 1")
    assert setup < text.index("scouting ahead") < surprise < text.index("Hill Giant's turn") < round_1
