"""A ruleset may lack a capability (its ``areas`` or ``fights`` is None): the engine and the fight
simulator refuse in words rather than fail on a missing attribute."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.rules import registry
from lnl_desktop.core.sim.run import fight_odds

EXAMPLE = Path(__file__).resolve().parent.parent / "example_ruleset"


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The example ruleset without area effects and without a fight simulator, for this test only."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.setattr(registry, "_loaded", dict(registry._loaded))
    import lnl_duel
    from bare_duel import bare_duel_encounter

    yield bare_duel_encounter(lnl_duel)
    for name in [m for m in sys.modules if m == "lnl_duel" or m.startswith("lnl_duel.")]:
        del sys.modules[name]


def test_an_area_effect_in_a_ruleset_without_areas_is_refused_in_words(bare: Any) -> None:
    engine = Engine(bare)
    effect = act.AreaEffect("circle", (2.5, 3.5), 10, targets=("ogre",), name="Fire pot", dice="1d6")
    with pytest.raises(IllegalAction) as refused:
        engine.apply(effect)
    assert refused.value.reasons == ["Bare duel has no area effects"]
    assert not engine.encounter.log


def test_the_odds_of_a_ruleset_without_a_fight_simulator_are_refused_in_words(bare: Any) -> None:
    with pytest.raises(RulesError, match="Bare duel has no fight simulator"):
        fight_odds(bare, fights=10, seed=1)
