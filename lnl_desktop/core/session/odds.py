"""The session's odds (issue 42): which of tonight's fights is deadly for the party as it stands now.

Each encounter of the session with the roster's characters brought in as they stand (``bring_in``: on the
encounter's Party start cells, else beside its first token), played by the fight simulator of its ruleset
(:func:`lnl_desktop.core.sim.run.fight_odds`). Plain data in, plain data out: the window's worker calls it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.session.folder import SessionFolder
from lnl_desktop.core.session.party import bring_in
from lnl_desktop.core.session.roster import Roster
from lnl_desktop.core.sim.odds import FightOdds
from lnl_desktop.core.sim.run import fight_odds

SESSION_FIGHTS = 10_000
DEADLY = 0.5  # a fight the party wins less often than this is marked deadly


@dataclass(frozen=True)
class EncounterOdds:
    """One encounter's line of the session's odds: its file's name, its own name, and the odds or why none."""

    name: str
    title: str
    odds: FightOdds | None
    problem: str = ""

    @property
    def deadly(self) -> bool:
        return self.odds is not None and self.odds.party_wins < DEADLY

    def words(self) -> str:
        """'Party wins 64 % ± 0.9 % · someone drops in 71 % · 3–5 rounds', or the reason there are no odds."""
        return self.odds.verdict() if self.odds is not None else self.problem

    def as_dict(self) -> dict[str, object]:
        odds = json.loads(self.odds.as_json()) if self.odds is not None else None
        said = {"encounter": self.name, "name": self.title, "deadly": self.deadly}
        return {**said, "odds": odds, "problem": self.problem}


def party_odds(
    encounter: Encounter, roster: Roster, fights: int = SESSION_FIGHTS, seed: int | None = None
) -> FightOdds:
    """The odds of ``encounter`` with the party brought in as it stands (RulesError: none to be had)."""
    return fight_odds(bring_in(encounter, roster), fights, seed)


def session_odds(
    folder: SessionFolder, roster: Roster | None = None, fights: int = SESSION_FIGHTS, seed: int | None = None
) -> list[EncounterOdds]:
    """Every encounter of the session in order with the party's odds against it (``roster``: the party as
    it stands, by default the folder's file). An encounter that cannot be read or played gets its reason."""
    party = roster if roster is not None else folder.load_roster()
    found = []
    for name in folder.session.encounters:
        try:
            encounter = folder.load_encounter(name)
        except RulesError as error:
            found.append(EncounterOdds(name, name, None, str(error)))
            continue
        try:
            found.append(EncounterOdds(name, encounter.name, party_odds(encounter, party, fights, seed)))
        except RulesError as error:
            found.append(EncounterOdds(name, encounter.name, None, str(error)))
    return found


def odds_table(folder: SessionFolder, found: list[EncounterOdds]) -> str:
    """The session's odds as plain text: a line per encounter, deadly ones marked."""
    width = max((len(f.name) for f in found), default=10)
    lines = [f"{folder.session.name}: the party as it stands, {len(found)} encounter{'s' if len(found) != 1 else ''}"]
    for f in found:
        mark = "  DEADLY" if f.deadly else ""
        lines.append(f"{f.name:<{width}}  {f.title}: {f.words()}{mark}")
    return "\n".join(lines)
