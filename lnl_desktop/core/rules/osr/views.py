"""What Old-School d20 shows (RULES §12): the sheet's rows and tooltips, the tables' columns, the
token's bar, word and tooltip, and the titles of an export's numbers."""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.encounter.model import Side, WeaponKind
from lnl_desktop.core.rules.osr.model import WEAPON_KINDS, Kind, OsrCombatant, SaveCategory
from lnl_desktop.core.rules.shared import weapons_reach
from lnl_desktop.core.rules.specs import Column, Gauge, ItemColumn, ItemList, Reach, SheetRow, SheetSpec, TokenTip


class OsrViews:
    """The sheet, the Combatants table, the token and the export of an Old-School d20 combatant."""

    def sheet(self) -> SheetSpec:
        identity = (
            SheetRow(
                "Kind",
                ("kind",),
                "PC: a player character (death save at 0 HP, no morale); NPC or monster: defeated at 0 HP",
                kind="choice",
                choices=tuple(k.value for k in Kind),
            ),
            SheetRow("Level / HD", ("level",), "Level, or Hit Dice for a monster (a monster's save DC is 11 + HD)"),
        )
        numbers = (
            SheetRow("HP (now / max)", ("hp", "hp_max"), "Hit points; at 0 a monster or NPC is defeated, a PC saves"),
            SheetRow("Armor bonus", ("armor_bonus",), "Padded +1, leather +2 … full plate +7 (AC 11 + this)"),
            SheetRow(
                "Armor max DEX",
                ("armor_max_dex",),
                "The armor's cap on the DEX bonus to AC; empty: no cap",
                kind="optional int",
            ),
            SheetRow("Shield", ("shield",), "A carried shield: +1 AC, lost to an attack from behind", kind="bool"),
            SheetRow(
                "AC typed",
                ("ac_typed",),
                "A monster's AC as written; empty: 11 + armor + shield + DEX",
                kind="optional int",
            ),
            SheetRow("Attack bonus", ("attack_bonus",), "Added to every to-hit d20"),
            SheetRow("STR mod", ("str_mod",), "STR: to hit and damage in melee (and thrown with STR)"),
            SheetRow("DEX mod", ("dex_mod",), "DEX: AC (capped by the armor), DEX weapons, thrown"),
            SheetRow("PER mod", ("per_mod",), "PER: to hit with missile weapons, thrown"),
            SheetRow("INIT mod", ("init_mod",), "Added to the initiative d20 (a side's leader's for group initiative)"),
            SheetRow(
                "Morale",
                ("morale",),
                "2-12: 2d6 above it and the creature flees or surrenders; 2 always flees unless cornered, "
                "12 fights to the death; empty for PCs and retainers",
                kind="optional int",
            ),
            SheetRow("Save: Poison/Death", ("save_poison",), "Saving-throw bonus; also the death save at 0 HP"),
            SheetRow("Save: Paralysis", ("save_paralysis",), "Saving-throw bonus: Paralysis or Petrification"),
            SheetRow("Save: Wands", ("save_wands",), "Saving-throw bonus: Wands"),
            SheetRow("Save: Breath", ("save_breath",), "Saving-throw bonus: Dragon Breath"),
            SheetRow("Save: Spells", ("save_spells",), "Saving-throw bonus: Spells"),
            SheetRow(
                "Attacks / round",
                ("attacks",),
                "A monster's attacks per round; it may counter-attack that many different foes each round",
            ),
            SheetRow(
                "Subdual taken", ("subdual",), "Subdual damage, tracked apart from HP; at subdual ≥ HP it surrenders"
            ),
            SheetRow("Group leader", ("leader",), "Rolls its side's group initiative with its INIT", kind="bool"),
            SheetRow(
                "Initiative group",
                ("initiative_group",),
                "Group initiative: a name to roll apart from its side (a boss apart from its goblins), "
                "its group's leader's INIT counts; empty: its side's group",
                kind="text",
            ),
            SheetRow(
                "Harmed only by",
                ("harmed_only_by",),
                "An invulnerable monster: only weapons and spells with one of these properties harm it, "
                "comma-separated (silver, magic); a hit by anything else does nothing; empty: anything does",
                kind="text",
            ),
        )
        weapons = ItemList(
            "weapons",
            "weapon",
            (
                ItemColumn("name", "Name", "text", "The weapon's name; Unarmed (1d2 + STR) is always there"),
                ItemColumn("damage", "Damage", "text", "Dice such as 1d4, 1d8, 2d6 or 1d6+1"),
                ItemColumn(
                    "kind",
                    "Kind",
                    "choice",
                    "melee: 5 ft; reach: 10 ft; missile: shot, PER to hit; thrown: the best of STR/DEX/PER",
                    tuple(k.value for k in WEAPON_KINDS),
                ),
                ItemColumn(
                    "max_range_ft",
                    "Range",
                    "optional int",
                    "Missile and thrown weapons: the maximum range in feet (long range past half: -1)",
                ),
                ItemColumn("dex", "DEX", "bool", "A melee weapon used with DEX instead of STR, to hit and to damage"),
                ItemColumn(
                    "bludgeoning",
                    "Blunt",
                    "bool",
                    "A bludgeoning weapon (club, mace, staff): it may subdue; a blade only struck flat",
                ),
                ItemColumn(
                    "area",
                    "Area",
                    "area",
                    "RULES §14: a breath, flask or bomb's area, a size and a shape (30 ft cone, 10 ft square); "
                    "empty: one target. Used from the Action dock's Area effect…",
                ),
                ItemColumn(
                    "save",
                    "Save",
                    "choice",
                    "An area's saving throw: each target rolls it against the DC (a breath: Dragon Breath)",
                    tuple(c.value for c in SaveCategory),
                ),
                ItemColumn("bomb", "Bomb", "bool", "Dropped or hurled: the bomber's d20 of 16+ hits the aimed square"),
                ItemColumn(
                    "properties",
                    "Properties",
                    "text",
                    "What it is or carries, comma-separated (silver, magic, or your own word): "
                    "a monster harmed only by one of them takes its damage",
                ),
            ),
            "The combatant's weapons; double-click a cell to change it",
            {"damage": "1d6"},
        )
        return SheetSpec(
            identity=identity,
            numbers_title="HP, AC, bonuses, morale and saves",
            numbers=numbers,
            lists=(weapons,),
            tips={
                "side": "Party: the player characters and their allies; Opponents: run by the GM",
                "move_ft": "Feet per round (default 30): a Move or a Charge goes this far, a ranged attack half",
                "concealed": "Hidden: a label here (Old-School d20 leaves stealth to the GM)",
                "surprised": "Surprised: takes no action in round 1 (the GM marks each side)",
            },
        )

    def columns(self) -> tuple[Column, ...]:
        return (
            Column("Kind", "PC, NPC or monster", lambda c: c.kind.value, numeric=False),
            Column("HP", "Hit points, current / max", lambda c: f"{c.hp} / {c.hp_max}"),
            Column("AC", "Armor Class: the to-hit total must reach it", lambda c: c.ac),
            Column("Atk", "Attack bonus", lambda c: f"{c.attack_bonus:+d}"),
            Column("ML", "Morale (empty: none)", lambda c: "" if c.morale is None else c.morale),
        )

    def summary(self, c: OsrCombatant) -> str:
        if c.ac_typed is not None:
            ac = f"AC {c.ac} (typed)"
        else:
            parts = [f"11 + armor {c.armor_bonus}"]
            if c.shield:
                parts.append("shield 1")
            if c.dex_to_ac:
                parts.append(f"DEX {c.dex_to_ac:+d}")
            ac = f"AC {c.ac} ({' + '.join(parts)})"
        level = "HD" if c.kind is Kind.MONSTER else "level"
        words = [f"{c.side.value} {c.kind.value}, {level} {c.level}", f"{c.hp}/{c.hp_max} HP", ac]
        words.append(f"attack {c.attack_bonus:+d}")
        if c.morale is not None:
            words.append(f"morale {c.morale}")
        if c.dead:
            words.append("dead")
        elif c.down:
            words.append("down")
        if c.morale_result is not None:
            words.append(c.morale_result.value)
        return " · ".join(words)

    def stat_line(self, c: OsrCombatant) -> str:
        weapons = ", ".join(f"{w.name} {w.damage}" for w in c.weapons) or "unarmed 1d2"
        morale = f"  ML {c.morale}" if c.morale is not None else ""
        return (
            f"HP {c.hp_max}  AC {c.ac}  Atk {c.attack_bonus:+d}  INIT {c.init_mod:+d}{morale}\n"
            f"{weapons}  Move {c.move_ft} ft"
        )

    def new_combatant(self) -> dict[str, Any]:
        return {"name": "New combatant", "side": Side.PARTY.value, "kind": Kind.PC.value, "hp_max": 8}

    def creature_lines(self, c: OsrCombatant) -> tuple[str, ...]:
        """A bestiary entry's heading (name, level or Hit Dice), then a line per weapon, and the shield."""
        return (f"{c.name}: level {c.level}", *(f"Weapon: {w.label}" for w in c.weapons), *(("Shield",) * c.shield))

    def export_columns(self) -> tuple[str, ...]:
        # The only events with numbers here are the shared ones (an area effect, a dice roll): their dice
        # and their total; an attack is a ruleset event with none. The four cells after are left empty.
        return ("dice", "damage")


class OsrTokens:
    """What a token shows of a combatant: its bars, a word, condition markers, icons, tooltip words and reach."""

    def gauges(self, c: OsrCombatant) -> tuple[Gauge, ...]:
        return (Gauge("HP", c.hp, c.hp_max, "health"),)

    def token_word(self, c: OsrCombatant) -> str:
        if c.dead:
            return "dead"
        if c.morale_result is not None:
            return c.morale_result.value
        if "unconscious" in c.conditions:
            return "unconscious"
        return ""

    def markers(self, c: OsrCombatant) -> tuple[str, ...]:
        """Its conditions, less the one its token already says in a word (unconscious), and "casting"
        while a spell is under way (damage interrupts it: worth seeing across the table)."""
        words = tuple(w for w in c.conditions if w != "unconscious")
        if c.casting is not None:
            words += ("casting",)
        return words

    def gauge_labels(self) -> tuple[str, ...]:
        return ("HP",)

    def token_icons(self, c: OsrCombatant) -> frozenset[str]:
        # No parry and no weapon that breaks here: no guard, no broken weapon to show.
        return frozenset()

    def reach(self, c: OsrCombatant) -> Reach:
        return weapons_reach(c.weapons)  # no ranged minimum here

    def token_tip(self, c: OsrCombatant) -> TokenTip:
        # A reach weapon says its reach; a missile or thrown weapon's range is in its label already.
        items = tuple(f"{w.label}, reach {w.reach} ft" if w.kind is WeaponKind.REACH else w.label for w in c.weapons)
        return TokenTip(identity=f"level {c.level}", numbers=(), items=items)
