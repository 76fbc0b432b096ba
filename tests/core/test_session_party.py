"""The party from fight to fight (RULES §16, issue 42): brought in as it stands, carried on when the fight
ends (dead stays dead, timed conditions end, a dropped weapon back in hand), rested by the numbers, a
roster written meanwhile never overwritten without the GM's word; the session's odds follow the party."""

from __future__ import annotations

from pathlib import Path

import pytest

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import ConditionDuration, DurationKind, Side
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage
from lnl_desktop.core.session.folder import new_session
from lnl_desktop.core.session.log import session_log_markdown
from lnl_desktop.core.session.odds import party_odds, session_odds
from lnl_desktop.core.session.party import bring_in, carry_on, rest
from lnl_desktop.core.session.roster import Roster, new_roster, save_roster, with_characters
from lnl_desktop.core.sim.run import fight_odds
from lnl_desktop.paths import resource

DEMOS = {"lnl": "hill-giant.lnl", "classic": "hill-giant-classic.lnl", "osr": "goblin-ambush-osr.lnl"}
DEMOS["d10"] = "bandit-mill-d10.lnl"


def demo(ruleset: str = "lnl"):
    return storage.load(resource("encounters", DEMOS[ruleset]))


def party_of(ruleset: str = "lnl") -> Roster:
    return with_characters(new_roster(ruleset), [c for c in demo(ruleset).combatants if c.side is Side.PARTY])


def opponents_only(ruleset: str = "lnl"):
    """The demo without its Party: as a session's encounter is prepared."""
    encounter = demo(ruleset)
    party = {c.id for c in encounter.combatants if c.side is Side.PARTY}
    engine = Engine(encounter)
    for cid in party:
        engine.apply(act.RemoveCombatant(cid))
    return engine.encounter


def test_the_party_is_brought_in_on_the_start_cells_and_linked() -> None:
    roster = party_of()
    encounter = opponents_only()
    engine = Engine(encounter)
    engine.apply(act.EditMap({"start_cells": frozenset({(2, 3), (3, 3), (2, 4)})}))
    brought = bring_in(engine.encounter, roster)
    cells = [brought.tokens[c.id].cell for c in roster.characters]
    assert cells == [(2, 3), (3, 3), (2, 4)]  # in the roster's order, top row first
    assert brought.party_links == {"tombril": 1, "cedryk": 1, "janine": 1}
    assert encounter.party_links == {}  # the encounter given is left as it was


def test_without_start_cells_the_party_stands_beside_the_first_token() -> None:
    encounter = opponents_only()
    first = next(iter(encounter.tokens.values())).cell
    brought = bring_in(encounter, party_of())
    for c in party_of().characters:
        x, y = brought.tokens[c.id].cell
        assert max(abs(x - first[0]), abs(y - first[1])) <= 2


def test_a_character_hurt_in_one_fight_arrives_hurt_in_the_next() -> None:
    roster = party_of()
    engine = Engine(bring_in(demo(), roster))
    engine.apply(act.DamageByHand("tombril", 5, kind="injury", reason="a rock"))
    engine.apply(act.SetCondition("tombril", "stunned", True, ConditionDuration(kind=DurationKind.ROUNDS, rounds=2)))
    engine.apply(act.SetCondition("tombril", "exhausted 1", True))
    engine.apply(act.SetCondition("janine", "dropped weapon", True))
    done = carry_on(engine.encounter, roster, "01-giant.lnl")
    assert not done.conflicts
    tombril = done.roster.character("tombril")
    assert tombril.injury == roster.character("tombril").injury - 5
    assert "stunned" not in tombril.conditions and "exhausted 1" in tombril.conditions  # timed ends, lasting stays
    assert "dropped weapon" not in done.roster.character("janine").conditions  # back in hand
    assert any(line.startswith("Tombril: IP") for line in done.lines)
    nxt = bring_in(opponents_only(), done.roster)
    assert nxt.combatant("tombril").injury == tombril.injury
    assert nxt.party_links["tombril"] == done.roster.version("tombril") == 2


def test_dead_stays_dead_and_rests_never_raise_the_dead() -> None:
    roster = party_of("osr")
    engine = Engine(bring_in(demo("osr"), roster))
    cid = roster.characters[0].id
    engine.apply(act.EditCombatant(cid, {"hp": 0, "dead": True}))
    done = carry_on(engine.encounter, roster, "ambush.lnl")
    assert done.roster.character(cid).dead
    rested = rest(done.roster, "day", ScriptedDice([3] * 10))
    assert rested.roster.character(cid).hp == 0 and "dead" in rested.lines[0]
    assert cid not in bring_in(opponents_only("osr"), rested.roster).party_links  # the dead stay home


def test_a_roster_written_meanwhile_is_a_conflict_until_the_gm_says_which_wins() -> None:
    roster = party_of()
    first = Engine(bring_in(demo(), roster))
    second = Engine(bring_in(demo(), roster))
    first.apply(act.DamageByHand("tombril", 3, kind="injury"))
    second.apply(act.DamageByHand("tombril", 1, kind="injury"))
    after_first = carry_on(first.encounter, roster, "a.lnl").roster
    clash = carry_on(second.encounter, after_first, "b.lnl")
    assert [c.cid for c in clash.conflicts] == ["tombril"] and clash.roster.character("tombril") == (
        after_first.character("tombril")
    )
    assert "a.lnl" in clash.conflicts[0].words()
    fight_wins = carry_on(second.encounter, after_first, "b.lnl", decided={"tombril": True})
    assert fight_wins.roster.character("tombril").injury == roster.character("tombril").injury - 1
    roster_wins = carry_on(second.encounter, after_first, "b.lnl", decided={"tombril": False})
    assert roster_wins.roster.character("tombril").injury == roster.character("tombril").injury - 3


@pytest.mark.parametrize(
    ("ruleset", "kind", "faces", "field", "expected"),
    [
        ("lnl", "short", [], "stamina", "max"),
        ("lnl", "night", [], "injury", "+1"),
        ("classic", "night", [], "injury", "+1"),
        ("osr", "day", [2, 3, 1, 2, 2, 2], "hp", "+2"),
        ("d10", "night", [], "hp", "max"),
    ],
)
def test_a_rest_by_the_numbers_of_section_16(ruleset, kind, faces, field, expected) -> None:
    roster = party_of(ruleset)
    c = roster.characters[0]
    top = getattr(c, f"{field}_max")
    hurt = c.model_copy(update={field: max(1, top - 4), **({"stamina": 1} if field == "stamina" else {})})
    roster = with_characters(roster, [hurt])
    rested = rest(roster, kind, ScriptedDice(faces))
    value = getattr(rested.roster.character(c.id), field)
    want = top if expected == "max" else getattr(hurt, field) + int(expected)
    assert value == want
    assert rested.lines[0].startswith(f"{c.name}:")
    assert rested.roster.log[-1].lines == rested.lines


def test_an_unknown_rest_is_refused_naming_the_kinds() -> None:
    with pytest.raises(RulesError, match="short.*night"):
        rest(party_of(), "week", ScriptedDice([]))


def test_the_session_odds_follow_the_party_as_it_stands(tmp_path: Path) -> None:
    folder = tmp_path / "night"
    folder.mkdir()
    storage.save(opponents_only(), folder / "01-giant.lnl")
    roster = party_of()
    session = new_session(folder, "lnl", "Night one")
    save_roster(roster, session.roster_path)
    before = session_odds(session, roster, fights=4000, seed=5)[0]
    hurt = [c.model_copy(update={"injury": 1, "stamina": 0}) for c in roster.characters]
    after = session_odds(session, with_characters(roster, hurt), fights=4000, seed=5)[0]
    assert before.odds is not None and after.odds is not None
    assert after.odds.party_wins < before.odds.party_wins - 0.1
    # the same numbers as the encounter's own odds with that party in it
    own = fight_odds(bring_in(opponents_only(), with_characters(roster, hurt)), 4000, 5)
    assert own.party_wins == after.odds.party_wins
    assert party_odds(opponents_only(), roster, 4000, 5).party_wins == before.odds.party_wins


def test_the_session_log_holds_each_fight_and_each_rest_in_order(tmp_path: Path) -> None:
    folder = tmp_path / "night"
    folder.mkdir()
    roster = party_of()
    engine = Engine(bring_in(opponents_only(), roster))
    engine.apply(act.DamageByHand("tombril", 2, kind="injury", reason="a trap"))
    storage.save(engine.encounter, folder / "01-giant.lnl")
    session = new_session(folder, "lnl", "Night one")
    carried = carry_on(engine.encounter, roster, "01-giant.lnl").roster
    rested = rest(carried, "night", ScriptedDice([])).roster
    text = session_log_markdown(session, rested)
    fight, night = text.index("## Fight: "), text.index("## Night's rest")
    assert fight < night and "a trap" in text[fight:night] and "Tombril: IP" in text[night:]
