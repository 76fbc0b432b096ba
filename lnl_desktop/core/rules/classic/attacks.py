"""L&L Classic's sneak attack (RULES §11): hidden from the target, or the target engaged with another
creature and the attacker's whole path outside its view; may also be a Power Attack."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.map.sight import blocker
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.lnl.attacks import LnlAttacks
from lnl_desktop.core.rules.lnl.model import AttackMeans, Weapon


class ClassicAttacks(LnlAttacks):
    """L&L's attacks, with Classic's sneak attack points and ways to be hidden."""

    def sneak_points(self, encounter: Encounter, attacker: Any, target: Any, means: AttackMeans) -> list[Check]:
        hidden, unseen_los, engaged, approach = self.concealment(encounter, attacker, target)
        is_hidden = hidden.ok or unseen_los.ok
        from_behind = engaged.ok and approach.ok
        if is_hidden:
            why = hidden.reason if hidden.ok else unseen_los.reason
        elif from_behind:
            why = f"{engaged.reason}, and {approach.reason}"
        elif engaged.ok:
            why = f"{engaged.reason}, but {approach.reason}"
        else:
            why = f"{attacker.name} is in {target.name}'s sight and {target.name} is not engaged with another creature"
        checks = [
            Check(
                "Hidden from the target, or the target engaged and approached from behind",
                is_hidden or from_behind,
                why,
            ),
            Check("May also be a Power Attack", True, "allowed in L&L Classic", applies=False),
        ]
        if not isinstance(means, Weapon):
            checks.append(Check("With a weapon", False, "a spell cannot sneak attack"))
        return checks

    def concealment(self, encounter: Encounter, attacker: Any, target: Any) -> list[Check]:
        """Hidden (the flag), out of sight behind walls, the target engaged, the approach unseen."""
        flagged = self.concealed_at_start(encounter, attacker, target)
        ta, tt = encounter.tokens.get(attacker.id), encounter.tokens.get(target.id)
        if ta is None or tt is None:
            sight, sight_reason = False, "line of sight not checked: a token is not on the map"
        elif (wall := blocker(encounter.map, tt.cell, target.size, ta.cell, attacker.size)) is None:
            sight, sight_reason = False, f"{target.name} has a line of sight to {attacker.name}"
        else:
            # Walls, wall segments or closed doors on every line of sight: completely hidden (RULES §11).
            sight, sight_reason = True, f"{attacker.name} is behind {wall}: no line of sight from {target.name}"
        engaged, engaged_reason = self._engaged(encounter, attacker, target)
        approach, approach_reason = self._approach_unseen(encounter, attacker, target)
        return [
            Check(
                "Hidden (concealed flag)",
                flagged,
                f"{attacker.name} was hidden at the start of the turn"
                if flagged
                else f"{attacker.name} was in plain view",
            ),
            Check("Out of the target's sight", sight, sight_reason),
            Check("Target engaged with another creature", engaged, engaged_reason),
            Check("Whole path outside the target's view", approach, approach_reason),
        ]

    def _engaged(self, encounter: Encounter, attacker: Any, target: Any) -> tuple[bool, str]:
        if target.distracted:
            return True, f"{target.name} is busy with another creature (GM)"
        foe = self.engaged_with(encounter, attacker, target)
        if foe is not None:
            return True, f"{target.name} is engaged in melee with {foe.name}"
        return False, f"{target.name} is not engaged in melee with another creature"
