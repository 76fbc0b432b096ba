"""What Group d10 shows (RULES §13): the sheet's rows and tooltips, the tables' columns, the token's
bar, word, icons and tooltip, and the CSV export's titles."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.d10.model import D10_DICE, WEAPON_KINDS, D10Combatant, Tier
from lnl_desktop.core.rules.shared import weapon_words, weapons_reach
from lnl_desktop.core.rules.specs import Column, Gauge, ItemColumn, ItemList, Reach, SheetRow, SheetSpec, TokenTip

# The CSV titles of the cells a Group d10 log's events give: only the shared area effect's and dice
# roller's have any, the dice and the damage; the four after them are the L&L family's SP and IP cells,
# always empty here, so they get no title.
EXPORT_COLUMNS = ("dice", "damage")


class D10Views:
    """The sheet, the Combatants table, the token and the export, in Group d10's words."""

    def sheet(self) -> SheetSpec:
        numbers = (
            SheetRow(
                "HP (now / max)", ("hp", "hp_max"), "At half or below: -2 to hit; exactly 1: a lasting wound; 0: dead"
            ),
            SheetRow("DR", ("dr",), "Damage reduction from armor: taken off every hit's damage (not below 0)"),
            SheetRow("Defense", ("defense",), "What a to-hit roll must reach (default 11)"),
            SheetRow("Melee", ("melee",), "Skill bonus added to melee to-hit rolls"),
            SheetRow("Ranged", ("ranged",), "Skill bonus added to ranged to-hit rolls"),
            SheetRow("Casting", ("casting",), "Skill bonus added to spell to-hit rolls"),
            SheetRow("Stealth", ("stealth",), "The ambushers' lowest Stealth is added to their surprise roll"),
            SheetRow(
                "Perception", ("perception",), "The defenders' highest Perception is added to their surprise roll"
            ),
            SheetRow("Feats of strength", ("strength",), "Added to opposed rolls: grapples, holding a door"),
            SheetRow("Minion", ("minion",), "A minion dies on any hit", kind="bool"),
        )
        weapons = ItemList(
            "weapons",
            "weapon",
            (
                ItemColumn("name", "Name", "text", "The weapon's name"),
                ItemColumn("die", "Die", "choice", "Damage die, d4 to d12; doubled on a critical", D10_DICE),
                ItemColumn(
                    "kind",
                    "Kind",
                    "choice",
                    "melee: 5 ft; reach: 10 ft; ranged: its range (the ranged skill)",
                    tuple(k.value for k in WEAPON_KINDS),
                ),
                ItemColumn(
                    "tier",
                    "Tier",
                    "choice",
                    "masterwork: two damage dice, the higher; shoddy: two, the lower (an option of the encounter)",
                    tuple(t.value for t in Tier),
                ),
                ItemColumn("max_range_ft", "Range", "optional int", "Ranged weapons: the farthest target in feet"),
                ItemColumn(
                    "area",
                    "Area",
                    "area",
                    "RULES §14: what it strikes, a size and a shape (20 ft circle, 30 ft cone, 60 ft line, 10 ft "
                    "square); empty: one target. Laid from the Action dock's Area effect…",
                ),
                ItemColumn("area_dice", "Area dice", "int", "How many of its die the area rolls (a d6 with 2: 2d6)"),
            ),
            "The combatant's weapons; double-click a cell to change it",
            {"die": "d6"},
        )
        return SheetSpec(
            identity=(
                SheetRow(
                    "Group",
                    ("group",),
                    "Opponents only: the initiative group it rolls with (empty: the Opponents' main group). "
                    "Split a boss off from the Turns dock's row menu",
                    kind="text",
                ),
            ),
            numbers_title="HP, DR, Defense and skills",
            numbers=numbers,
            lists=(weapons,),
            tips={
                "side": "Party: one initiative group; Opponents: one or several groups (the GM splits them)",
                "move_ft": "Feet per turn (default 30): the move action; a Sprint doubles it",
                "surprised": "Surprised: takes no actions in round 1 (full surprise)",
            },
        )

    def columns(self) -> tuple[Column, ...]:
        return (
            Column("Group", "The initiative group", lambda c: c.group_name, numeric=False),
            Column("HP", "Hit points, current / max", lambda c: f"{c.hp} / {c.hp_max}"),
            Column("Def", "Defense: what a to-hit roll must reach", lambda c: c.defense),
            Column("DR", "Damage reduction from armor", lambda c: c.dr),
            Column("Min", "A minion dies on any hit", lambda c: "yes" if c.minion else "", numeric=False),
        )

    def summary(self, c: D10Combatant) -> str:
        words = [
            f"{c.side.value}" + (f", group {c.group}" if c.group else ""),
            f"{c.hp}/{c.hp_max} HP",
            f"Defense {c.defense}",
            f"DR {c.dr}",
        ]
        if c.minion:
            words.append("minion")
        if c.bloodied and not c.down:
            words.append("-2 to hit (half HP)")
        if c.dead:
            words.append("dead")
        return " · ".join(words)

    def stat_line(self, c: D10Combatant) -> str:
        weapons = ", ".join(f"{w.name} {w.die}" for w in c.weapons) or "no weapon"
        minion = "  minion" if c.minion else ""
        return f"HP {c.hp_max}  Def {c.defense}  DR {c.dr}  melee {c.melee:+d}  ranged {c.ranged:+d}{minion}\n{weapons}"

    def new_combatant(self) -> dict[str, Any]:
        return {"name": "New combatant", "side": Side.PARTY.value, "hp_max": 10}

    def creature_lines(self, c: D10Combatant) -> tuple[str, ...]:
        """A bestiary entry's heading (its name), then a line per weapon."""
        return (c.name, *(f"Weapon: {w.label}" for w in c.weapons))

    def export_columns(self) -> tuple[str, ...]:
        return EXPORT_COLUMNS


class D10Tokens:
    """What a token shows of a combatant: its bars, a word, condition markers, icons, tooltip words and reach."""

    def gauges(self, c: D10Combatant) -> tuple[Gauge, ...]:
        return (Gauge("HP", c.hp, c.hp_max, "health"),)

    def token_word(self, c: D10Combatant) -> str:
        if c.dead:
            return "dead"
        if c.parrying:
            return "parrying"
        return ""

    def markers(self, c: D10Combatant) -> tuple[str, ...]:
        """Its conditions, and "disarmed" while a dropped weapon lies on the floor (kept on the weapon)."""
        words = tuple(c.conditions)
        if any(w.dropped for w in c.weapons) and not c.has("disarmed"):
            words += ("disarmed",)
        return words

    def gauge_labels(self) -> tuple[str, ...]:
        return ("HP",)

    def token_icons(self, c: D10Combatant) -> frozenset[str]:
        # A parry / dodge is the token's word ("parrying"), and no weapon of Group d10 breaks.
        return frozenset()

    def reach(self, c: D10Combatant) -> Reach:
        return weapons_reach(c.weapons)  # no ranged minimum here

    def token_tip(self, c: D10Combatant) -> TokenTip:
        """Its weapons, a line each, with a reach weapon's reach and a ranged one's range."""
        return TokenTip(items=tuple(weapon_words(w) for w in c.weapons))
