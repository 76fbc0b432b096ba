"""Rest between fights in Old-School d20 (RULES §16): each full day of uninterrupted rest restores 1d3 HP,
rolled per character and shown (the source); a short rest restores nothing ([D]). Magical healing is the
GM's, by hand. And what a fight leaves behind: HP, subdual, lasting conditions; not a morale check's count."""

from __future__ import annotations

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter.conditions import condition_changes
from lnl_desktop.core.rules.osr.model import OsrCombatant, OsrOptions, parse_dice
from lnl_desktop.core.rules.shared import refuse_unknown_rest

DAY = "day"
SHORT = "short"
# The source's rest first: a day of it is what restores HP; a short rest restores nothing unless the GM says.
KINDS = ((DAY, "A day of rest"), (SHORT, "Short rest"))
WORDS = {DAY: "day of rest", SHORT: "short rest"}


class OsrRest:
    """A day of rest's dice per character, and the fight's own fields ended as it leaves one."""

    def __init__(self, title: str) -> None:
        self.title = title

    def kinds(self) -> tuple[tuple[str, str], ...]:
        return KINDS

    def _known(self, kind: str) -> None:
        refuse_unknown_rest(self.title, kind, KINDS)

    def dice(self, kind: str, options: OsrOptions) -> str:
        self._known(kind)
        return options.day_rest_dice if kind == DAY else options.short_rest_dice

    def gains(self, c: OsrCombatant, kind: str, options: OsrOptions, dice: DiceSource) -> tuple[tuple[str, int], ...]:
        expression = self.dice(kind, options)
        if self.dead(c):
            return ()
        out: list[tuple[str, int]] = []
        if expression:
            count, sides, flat = parse_dice(expression)
            # Rolled even at full HP, so typed faces go one per character in the order the GM sees them.
            rolled = sum(dice.roll(sides, f"{c.name}'s {WORDS[kind]}") for _ in range(count)) + flat
            out.append(("hp", min(rolled, c.hp_max - c.hp)))
        if kind == DAY and options.day_rest_clears_subdual:
            # Subdual is bruising tracked apart from HP (RULES §12): a day's rest sees it gone.
            out.append(("subdual", c.subdual))
        return tuple((pool, amount) for pool, amount in out if amount > 0)

    def dead(self, c: OsrCombatant) -> bool:
        return c.dead

    def after_fight(self, c: OsrCombatant) -> OsrCombatant:
        # RULES §12: Defend lasts until its next turn and a spell under way goes off or is lost within the
        # fight; "two passed checks in one encounter" counts per encounter, and a flight or a surrender is
        # this fight's. HP, subdual and the conditions stay: they are what the fight did.
        update = {"defending": None, "casting": None, "morale_passes": 0, "morale_result": None}
        return c.model_copy(update=update, deep=True)

    def summary(self, before: OsrCombatant, after: OsrCombatant) -> str:
        words = []
        if after.hp != before.hp:
            words.append(f"HP {before.hp} → {after.hp}")
        if after.subdual != before.subdual:
            words.append(f"subdual {before.subdual} → {after.subdual}")
        if after.dead and not before.dead:
            words.append("dead")
        elif before.dead and not after.dead:
            words.append("raised from the dead")
        words += condition_changes(before.conditions, after.conditions)
        return ", ".join(words)
