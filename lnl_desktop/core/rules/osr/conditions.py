"""Old-School d20's conditions (RULES §10, §12): the table's menu with what the app does with each, and a
saving throw in a category at the end of each turn to end one (d20 + the creature's bonus against the DC)."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.conditions import CONDITION_TIPS
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.rules.osr import condition_table as cond
from lnl_desktop.core.rules.osr.model import SAVE_LABELS, SaveCategory
from lnl_desktop.core.rules.osr.rules import save_bonus
from lnl_desktop.core.rules.shared import D20Conditions
from lnl_desktop.core.rules.specs import DurationSave, SaveRoll


class OsrConditions(D20Conditions):
    """Every condition of the table in RULES §12, each applied by the app; a save in a category ends one."""

    def __init__(self, title: str) -> None:
        super().__init__(title, cond.TABLE)

    def tip(self, condition: str) -> str:
        word = " ".join(condition.split()).casefold()
        key = next((w for w in cond.TABLE if word == w or word.startswith(w + " ")), word)
        tip = CONDITION_TIPS.get(key, "")
        if key == "surprised":
            tip = "Caught unawares"
        extra = cond.APPLIED.get(key)
        if not extra:
            return tip
        return f"{tip}. Old-School d20: {extra}" if tip else f"Old-School d20: {extra}"

    def duration_save(self) -> DurationSave:
        # RULES §10 and §12: the creature's saving throw in a category, d20 + its bonus against the DC.
        return DurationSave(
            saves=tuple((s.value, SAVE_LABELS[s]) for s in SaveCategory),
            needs_save=True,
            needs_dc=True,
            words="a saving throw at the end of each of its turns: d20 + its bonus in the category, "
            "the DC or more ends it (11 + the HD of the monster behind it)",
        )

    def save(
        self, encounter: Encounter, c: Any, save: str | None, dc: int | None, dice: DiceSource, purpose: str
    ) -> SaveRoll:
        category = SaveCategory(save or SaveCategory.SPELLS.value)
        bonus = save_bonus(encounter, c, category)
        face = roll_plain(dice, 20, purpose).face
        total = face + bonus
        target = dc or 11
        return SaveRoll(total >= target, face, f"d20 {face} {bonus:+d} = {total} vs DC {target}")
