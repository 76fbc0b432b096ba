"""Rulesets: one module per ruleset behind the small :class:`Ruleset` protocol.

The engine keeps the turn, the log and undo; a ruleset reads dice and decides what the rules
say: who acts first, what surprise means, whether an attack is allowed, what damage it does.
"""

from __future__ import annotations

from typing import Protocol

from lnl_desktop.core.dice import DiceSource
from lnl_desktop.core.model import Combatant, Encounter, RulesOptions, Side, SurpriseSituation
from lnl_desktop.core.rules.common import AttackMeans, AttackMode, AttackOutcome, Check, SurpriseOutcome


class Ruleset(Protocol):
    name: str

    def initiative(self, face: int) -> Side:
        """Which side acts first on this initiative face."""
        ...

    def surprise(self, situation: SurpriseSituation, face: int) -> SurpriseOutcome:
        """How the first round's die reads in this situation."""
        ...

    def attack_checks(
        self, encounter: Encounter, attacker: Combatant, target: Combatant, means: AttackMeans, mode: AttackMode
    ) -> list[Check]:
        """Every condition the attack needs, each with whether it holds and why."""
        ...

    def sneak_checks(
        self, encounter: Encounter, attacker: Combatant, target: Combatant, means: AttackMeans
    ) -> list[Check]:
        """A sneak attack's eligibility points, each with its reason."""
        ...

    def concealment_details(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> list[Check]:
        """The ways the attacker may count as concealed or the target as distracted."""
        ...

    def resolve_attack(
        self,
        attacker: Combatant,
        target: Combatant,
        means: AttackMeans,
        mode: AttackMode,
        dice: DiceSource,
        options: RulesOptions,
        *,
        ignore_dex: bool = False,
    ) -> AttackOutcome:
        """Roll and compute the attack's damage and where it goes, changing nothing."""
        ...


def get_ruleset(name: str) -> Ruleset:
    from lnl_desktop.core.rules.lnl import LNL

    rulesets: dict[str, Ruleset] = {"lnl": LNL}
    return rulesets[name]


__all__ = [
    "AttackMeans",
    "AttackMode",
    "AttackOutcome",
    "Check",
    "Ruleset",
    "SurpriseOutcome",
    "get_ruleset",
]
