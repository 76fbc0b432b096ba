"""The demo sessions (issue 42): one per ruleset family, a party and a night of two encounters.

    .venv/bin/python packaging/demo_sessions.py          # write resources/sessions/
    .venv/bin/python packaging/demo_sessions.py --check  # build them, write nothing, say what differs

Each session's party is its family's demo Party as the demo has it; the first encounter is the demo
itself without the Party, its Party start cells where the demo had them stand; the second is a small
walled room with creatures from the ruleset's bestiary. The program copies a session out of the
resources before opening it (File ▸ Open demo session), so the files here are never written.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lnl_desktop.core.encounter import actions as act  # noqa: E402
from lnl_desktop.core.encounter.map_model import MapGrid  # noqa: E402
from lnl_desktop.core.encounter.model import Encounter, Side  # noqa: E402
from lnl_desktop.core.engine.engine import Engine  # noqa: E402
from lnl_desktop.core.files import storage  # noqa: E402
from lnl_desktop.core.rules.registry import get_ruleset  # noqa: E402
from lnl_desktop.core.session.folder import SESSION_FILE, Session, dumps_session  # noqa: E402
from lnl_desktop.core.session.roster import dumps_roster, new_roster, noted, with_characters  # noqa: E402

SESSIONS = ROOT / "resources" / "sessions"


@dataclass(frozen=True)
class Night:
    folder: str
    ruleset: str
    name: str
    demo: str
    second_file: str
    second_name: str
    creatures: tuple[tuple[str, tuple[int, int]], ...]  # bestiary name, cell


NIGHTS = (
    Night(
        "lnl_old_tower",
        "lnl",
        "A night at the Old Tower (Laurels & Loot)",
        "hill-giant.lnl",
        "02-tower-cellar.lnl",
        "The Cellar under the Tower",
        (("Ogre", (13, 6)), ("Skeleton", (12, 3)), ("Skeleton", (12, 9)), ("Orc Archer", (16, 6))),
    ),
    Night(
        "osr_hobgoblin_ford",
        "osr",
        "The road past the Hobgoblin Ford (Old-School d20)",
        "goblin-ambush-osr.lnl",
        "02-gnoll-den.lnl",
        "The Gnoll Den",
        (("Gnoll", (12, 4)), ("Gnoll", (12, 8)), ("Bugbear", (14, 6)), ("Giant rat", (11, 6))),
    ),
    Night(
        "d10_mill_road",
        "d10",
        "Bandits on the Mill Road (Group d10)",
        "bandit-mill-d10.lnl",
        "02-troll-bridge.lnl",
        "The Troll under the Bridge",
        (("Troll", (14, 6)), ("Bandit minion", (12, 4)), ("Bandit minion", (12, 8))),
    ),
)

START_CELLS = frozenset({(3, 5), (3, 6), (3, 7), (4, 6), (4, 5)})


def first_fight(demo: Encounter) -> tuple[Encounter, list]:
    """The demo without its Party (the party, as the demo has it), its start cells where the Party stood."""
    party = [c for c in demo.combatants if c.side is Side.PARTY]
    starts = frozenset(demo.tokens[c.id].cell for c in party if c.id in demo.tokens)
    engine = Engine(demo)
    for c in party:
        engine.apply(act.RemoveCombatant(c.id))
    engine.apply(act.EditMap({"start_cells": starts}))
    encounter = engine.encounter
    encounter.log.clear()
    return encounter, party


def room(night: Night) -> Encounter:
    """A 20 x 13 room walled round, a pillar pair in the middle, the creatures on the east side."""
    ruleset = get_ruleset(night.ruleset)
    walls = {(x, y) for x in range(20) for y in range(13) if x in (0, 19) or y in (0, 12)}
    walls |= {(9, 4), (9, 8)}
    encounter = ruleset.new_encounter(name=night.second_name, map=MapGrid(width=20, height=13, walls=frozenset(walls)))
    engine = Engine(encounter)
    stat_blocks = {entry["name"]: entry for entry in ruleset.bestiary()}
    for number, (name, cell) in enumerate(night.creatures, 1):
        data = {**stat_blocks[name], "id": f"{name.lower().replace(' ', '-')}-{number}", "side": "Opponents"}
        if sum(1 for n, _ in night.creatures if n == name) > 1:
            data["name"] = f"{name} {sum(1 for n, _ in night.creatures[:number] if n == name)}"
        engine.apply(act.AddCombatant(data, cell, facing=270))
    engine.apply(act.EditMap({"start_cells": START_CELLS}))
    engine.encounter.log.clear()
    return engine.encounter


def files(night: Night) -> dict[str, str]:
    """Each file of the night's folder and its text."""
    demo = storage.load(ROOT / "resources" / "encounters" / night.demo)
    first, party = first_fight(demo)
    first_file = "01-" + night.demo.removesuffix(".lnl").removesuffix(f"-{night.ruleset}") + ".lnl"
    roster = with_characters(new_roster(night.ruleset, "The party"), party)
    roster = noted(roster, "added", [c.name for c in party])
    roster = roster.model_copy(update={"log": []})  # a fresh night: no history yet
    session = Session(name=night.name, roster="party.lnlparty", encounters=[first_file, night.second_file])
    return {
        SESSION_FILE: dumps_session(session),
        "party.lnlparty": dumps_roster(roster),
        first_file: storage.dumps(first),
        night.second_file: storage.dumps(room(night)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="build them, write nothing, say what differs")
    args = parser.parse_args()
    differ = 0
    for night in NIGHTS:
        folder = SESSIONS / night.folder
        for name, text in files(night).items():
            path = folder / name
            same = path.exists() and path.read_text(encoding="utf-8") == text
            if args.check:
                differ += not same
                print(f"{night.folder}/{name}: {'same' if same else 'DIFFERS'}")
            elif not same:
                folder.mkdir(parents=True, exist_ok=True)
                storage.write_text_atomic(path, text)
                print(f"wrote {night.folder}/{name} ({len(text.encode()):,} bytes)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
