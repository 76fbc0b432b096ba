"""Rulesets: one package per combat system behind one seam, :class:`Ruleset` (see ``docs/RULESETS.md``).

The engine keeps the turn, the log and undo; a ruleset reads dice and decides what the rules
say: who acts first, what surprise means, whether an attack is allowed, what damage it does.
The built-in rulesets are listed here; an installed package adds one through the
``lnl_desktop.rulesets`` entry point group, found the first time a ruleset is asked for.
"""

from __future__ import annotations

from lnl_desktop.core.encounter import validation
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.base import Ruleset
from lnl_desktop.core.rules.common import AttackMeans, Check

ENTRY_POINT_GROUP = "lnl_desktop.rulesets"

# name -> "module:attribute" of the built-in rulesets, imported when first asked for.
BUILT_IN = {
    "lnl": "lnl_desktop.core.rules.lnl:LNL",
    "classic": "lnl_desktop.core.rules.classic:CLASSIC",
    "osr": "lnl_desktop.core.rules.osr:OSR",
    "d10": "lnl_desktop.core.rules.d10:D10",
}

# The program's default ruleset: a new encounter's, and that of a file naming none (a version-1 file:
# L&L was the only one then).
DEFAULT_RULESET = "lnl"

_loaded: dict[str, Ruleset] = {}
_plugins_found = False
_problems: list[str] = []


def _load(target: str) -> Ruleset:
    from importlib import import_module

    module, _, attribute = target.partition(":")
    return _as_ruleset(getattr(import_module(module), attribute))


def _as_ruleset(value: object) -> Ruleset:
    ruleset = value() if isinstance(value, type) else value
    if not isinstance(ruleset, Ruleset):
        raise TypeError(f"{value!r} is not a Ruleset")
    for needed in ("name", "title", "stat_block"):
        if not hasattr(ruleset, needed):
            raise TypeError(f"{type(ruleset).__name__} has no {needed}")
    from lnl_desktop.core.rules.base import CAPABILITIES

    for name, (protocol, may_lack) in CAPABILITIES.items():
        capability = getattr(ruleset, name, None)
        if capability is None:
            if not may_lack:
                raise TypeError(f"{type(ruleset).__name__} has no {name} capability (core.rules.base.CAPABILITIES)")
        elif not isinstance(capability, protocol):
            raise TypeError(f"{type(ruleset).__name__}.{name} does not answer {protocol.__name__}'s methods")
    return ruleset


def _find_plugins() -> None:
    """Register the rulesets installed packages declare; a broken one is noted, never fatal."""
    global _plugins_found
    if _plugins_found:
        return
    _plugins_found = True
    from importlib.metadata import entry_points  # 14 ms: only when a ruleset other than the built-in ones is asked for

    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            ruleset = _as_ruleset(point.load())
        except Exception as error:  # a third-party package may fail in any way: say so, go on
            _problems.append(f"ruleset {point.name!r} ({point.value}) could not be loaded: {error}")
            continue
        if ruleset.name in BUILT_IN or ruleset.name in _loaded:
            _problems.append(f"ruleset {ruleset.name!r} from {point.value} is already defined; ignored")
            continue
        _loaded[ruleset.name] = ruleset


def get_ruleset(name: str) -> Ruleset:
    """The ruleset called ``name`` ('lnl', 'classic', or an installed one); RulesError if none is."""
    if name in _loaded:
        return _loaded[name]
    if name in BUILT_IN:
        ruleset = _loaded[name] = _load(BUILT_IN[name])
        return ruleset
    _find_plugins()
    if name in _loaded:
        return _loaded[name]
    known = ", ".join(all_rulesets())
    raise RulesError(f"ruleset: there is no ruleset {name!r} (known: {known})")


# An encounter's ruleset must be one of these: the shared model asks the registry.
Encounter.ruleset_check = get_ruleset


def all_rulesets() -> dict[str, Ruleset]:
    """Every ruleset by name: the built-in ones first, then the installed ones."""
    for name in BUILT_IN:
        get_ruleset(name)
    _find_plugins()
    return {name: _loaded[name] for name in [*BUILT_IN, *sorted(set(_loaded) - set(BUILT_IN))]}


def register(ruleset: Ruleset | type[Ruleset]) -> Ruleset:
    """Add a ruleset by hand (a script, a test); its name must be new."""
    found = _as_ruleset(ruleset)
    if found.name in BUILT_IN or found.name in _loaded:
        raise RulesError(f"ruleset: {found.name!r} is already defined")
    _loaded[found.name] = found
    return found


def plugin_problems() -> list[str]:
    """Why an installed ruleset could not be used, one line each (shown in Help ▸ About)."""
    _find_plugins()
    return list(_problems)


# The shared model and the map never import the rulesets: they ask through these.
validation.read_rulesets_from(all_rulesets)


__all__ = [
    "DEFAULT_RULESET",
    "ENTRY_POINT_GROUP",
    "AttackMeans",
    "Check",
    "Ruleset",
    "all_rulesets",
    "get_ruleset",
    "plugin_problems",
    "register",
]
