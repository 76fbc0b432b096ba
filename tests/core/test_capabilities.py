"""A ruleset is a few capabilities: every registered ruleset composes each one it must have, answering
its Protocol's methods; its class keeps none of the old hooks and forwards nothing: it only composes."""

from __future__ import annotations

import inspect

import pytest

from lnl_desktop.core.rules.base import CAPABILITIES, Ruleset
from lnl_desktop.core.rules.registry import _as_ruleset, get_ruleset

BUILT_IN = ("lnl", "classic", "osr", "d10")
# What a ruleset class may define itself besides class variables: composing its capabilities, and
# what every ruleset owns whole (converting a stat block to it, its bestiary, its demo).
OWN_METHODS = {"__init__", "convert", "convert_options", "bestiary", "demo"}


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_capability_answers_its_protocol(name: str) -> None:
    ruleset = get_ruleset(name)
    for capability, (protocol, may_lack) in CAPABILITIES.items():
        value = getattr(ruleset, capability)
        if value is None:
            assert may_lack, f"{name} lacks {capability}"
            continue
        assert isinstance(value, protocol), f"{name}.{capability} is not a {protocol.__name__}"
        for method in (m for m in dir(protocol) if not m.startswith("_")):
            assert hasattr(value, method), f"{name}.{capability} has no {method}"


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_ruleset_class_only_composes(name: str) -> None:
    cls = type(get_ruleset(name))
    # Every class the ruleset is built of, up to the base: Classic on L&L included.
    for klass in cls.__mro__[: cls.__mro__.index(Ruleset)]:
        own = {n for n, v in vars(klass).items() if inspect.isfunction(v) or isinstance(v, property)}
        assert own <= OWN_METHODS, f"{klass.__name__} defines {sorted(own - OWN_METHODS)}: no hooks, no forwards"


def test_the_base_class_keeps_only_what_every_ruleset_shares() -> None:
    hooks = {n for n, v in vars(Ruleset).items() if inspect.isfunction(v) and not n.startswith("__")}
    assert hooks <= {"new_encounter", "convert", "convert_options", "bestiary", "demo"}, sorted(hooks)


def test_a_ruleset_missing_a_capability_is_refused_in_words() -> None:
    from lnl_desktop.core.encounter.model import CombatantBase

    class Half(Ruleset):
        name = "half"
        title = "Half"
        stat_block = CombatantBase

    with pytest.raises(TypeError, match="has no views capability"):
        _as_ruleset(Half)
