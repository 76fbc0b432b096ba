"""The seam's description of a result (``ruleset.actions.result``), each ruleset in its own words:
a death save against its DC, a critical that grapples, an event of another ruleset or of no roll,
and an event logged before the roll's words were kept."""

from __future__ import annotations

from lnl_desktop.core.encounter.events import RulesEvent, TurnStarted
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource


def plain(result) -> str:  # type: ignore[no-untyped-def]
    return "\n".join("".join(span.text for span in line) for line in result.lines)


def test_an_old_school_death_save_is_said_against_its_dc() -> None:
    encounter = storage.load(resource("encounters", "goblin-ambush-osr.lnl"))
    osr = get_ruleset("osr")
    saved = RulesEvent(
        text="Tombril's death save: d20 14 +2 = 16 vs DC 13: success: unconscious at 0 HP",
        ruleset="osr",
        name="death save",
        detail={"combatant": "tombril", "d20": 14, "dc": 13, "success": True, "roll": "d20 14 +2 = 16"},
    )
    result = osr.actions.result(encounter, saved, [])
    assert result is not None and result.event is saved
    assert result.headline == "Death save: success: unconscious at 0 HP"
    assert plain(result) == "Tombril's death save: d20 14 +2 = 16 vs DC 13"


def test_a_group_d10_critical_that_grapples_says_no_damage() -> None:
    encounter = storage.load(resource("encounters", "bandit-mill-d10.lnl"))
    d10 = get_ruleset("d10")
    event = RulesEvent(
        text="Tombril attacks Ogre with Longsword: d20 20 +3 melee = 23 vs Defense 13: natural 20, critical: ...",
        ruleset="d10",
        name="attack",
        detail={
            "attacker": "tombril",
            "target": "ogre",
            "weapon": "Longsword",
            "d20": 20,
            "to_hit": "d20 20 +3 melee = 23",
            "defense": 13,
            "edge_words": "",
            "critical": True,
            "outcome": "Tombril grapples Ogre",
        },
    )
    result = d10.actions.result(encounter, event, [])
    assert result is not None
    assert result.headline == "Critical: no damage, Tombril grapples Ogre"
    assert "To hit: d20 20 +3 melee = 23 vs Defense 13: hit (natural 20: critical)" in plain(result)


def test_an_attack_logged_before_its_words_were_kept_shows_the_log_line() -> None:
    encounter = storage.load(resource("encounters", "goblin-ambush-osr.lnl"))
    line = "Tombril attacks Goblin 1 with Longsword: d20 3 +3 attack bonus +2 STR = 8 vs AC 12: miss"
    event = RulesEvent(
        text=line,
        ruleset="osr",
        name="attack",
        detail={"attacker": "tombril", "target": "goblin-1", "weapon": "Longsword", "style": "melee", "hit": False},
    )
    result = get_ruleset("osr").actions.result(encounter, event, [])
    assert result is not None and line in plain(result)


def test_a_ruleset_describes_only_its_own_results() -> None:
    encounter = storage.load(resource("encounters", "goblin-ambush-osr.lnl"))
    d10_event = RulesEvent(text="x", ruleset="d10", name="attack", detail={})
    for name in ("lnl", "classic", "osr", "d10"):
        ruleset = get_ruleset(name)
        assert ruleset.actions.result(encounter, TurnStarted(text="Tombril's turn", combatant="tombril"), []) is None
        if name != "d10":
            assert ruleset.actions.result(encounter, d10_event, []) is None
