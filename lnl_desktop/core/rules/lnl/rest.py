"""Rest between fights in the L&L family (RULES §16): a short rest restores all SP, a night's rest all SP
and 1 IP (both [D]); healing beyond that is the GM's, by hand. And what a fight leaves behind: wounds,
broken weapons, a destroyed shield, but no parry in force."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter.conditions import condition_changes
from lnl_desktop.core.rules.lnl.model import LnLFamilyOptions, LnLStats, ShieldState, WeaponState
from lnl_desktop.core.rules.shared import refuse_unknown_rest

SHORT = "short"
NIGHT = "night"
KINDS = ((SHORT, "Short rest (about 10 minutes)"), (NIGHT, "Night's rest"))


class LnlRest:
    """What a short rest and a night's rest give back to SP and IP, through healing by hand's own kinds."""

    def __init__(self, title: str) -> None:
        self.title = title  # the edition's name, for a refusal's words

    def kinds(self) -> tuple[tuple[str, str], ...]:
        return KINDS

    def _known(self, kind: str) -> None:
        refuse_unknown_rest(self.title, kind, KINDS)

    def dice(self, kind: str, options: Any) -> str:
        self._known(kind)
        return ""  # the family's rests restore fixed amounts: nothing to roll

    def gains(self, c: LnLStats, kind: str, options: LnLFamilyOptions, dice: DiceSource) -> tuple[tuple[str, int], ...]:
        self._known(kind)
        if self.dead(c):
            return ()
        out: list[tuple[str, int]] = []
        if kind == NIGHT or options.short_rest_restores_sp:
            out.append(("stamina", c.stamina_max - c.stamina))
        if kind == NIGHT:
            out.append(("injury", min(options.night_rest_ip, c.injury_max - c.injury)))
        return tuple((pool, amount) for pool, amount in out if amount > 0)

    def dead(self, c: LnLStats) -> bool:
        # The family's stat block has no flag for death (0 IP is down, dying or dead the GM's call): the
        # GM marks it with the "dead" condition.
        return c.has_condition("dead")

    def after_fight(self, c: LnLStats) -> LnLStats:
        # A parry lasts until its holder's next turn, which no later fight continues; a sheathed weapon,
        # a broken one and a destroyed or stowed shield stay as they are until the GM changes them.
        return c.model_copy(update={"parry": None}, deep=True)

    def summary(self, before: LnLStats, after: LnLStats) -> str:
        words = []
        if after.stamina != before.stamina:
            words.append(f"SP {before.stamina} → {after.stamina}")
        if after.injury != before.injury:
            words.append(f"IP {before.injury} → {after.injury}")
        if not self.dead(after):
            if after.down and not before.down:
                words.append("down")
            elif before.down and not after.down:
                words.append("back on its feet")
        words += condition_changes(before.conditions, after.conditions)
        words += _weapon_changes(before, after)
        words += _shield_changes(before, after)
        return ", ".join(words)


def _weapon_changes(before: LnLStats, after: LnLStats) -> list[str]:
    was = {w.name: w.state for w in before.weapons}
    words = []
    for weapon in after.weapons:
        old = was.get(weapon.name)
        if weapon.state is WeaponState.BROKEN and old is not WeaponState.BROKEN:
            words.append(f"{weapon.name} broken")
        elif old is WeaponState.BROKEN and weapon.state is not WeaponState.BROKEN:
            words.append(f"{weapon.name} repaired")
    return words


def _shield_changes(before: LnLStats, after: LnLStats) -> list[str]:
    old, new = before.shield, after.shield
    if new is None or old is None:
        return ["shield lost"] if new is None and old is not None else []
    if new.state is ShieldState.DESTROYED and old.state is not ShieldState.DESTROYED:
        return ["shield destroyed"]
    if old.state is ShieldState.DESTROYED and new.state is not ShieldState.DESTROYED:
        return [f"shield mended ({new.durability}/{new.durability_max})"]
    if new.durability != old.durability:
        return [f"shield durability {old.durability} → {new.durability}"]
    return []
