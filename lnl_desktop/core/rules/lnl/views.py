"""What the L&L family shows (:class:`LnlViews`): the sheet's rows and tooltips, the tables' columns, the
tokens' bars, icons and tooltips, worded for the edition that asks (L&L or L&L Classic); and its dice
roller's quick rolls (:class:`LnlPrompts`).

The wording follows the edition's own differences (:class:`.rules.LnlRules`: its perception ability,
whether ranged and sneak damage is direct, the ranged minimum), so Classic reuses all of it without a copy.
"""

from __future__ import annotations

from typing import Any

from lnl_desktop.core.dice.rolls import DAMAGE_DICE
from lnl_desktop.core.encounter.model import WeaponKind
from lnl_desktop.core.rules.lnl.model import (
    WEAPON_KINDS,
    LnLStats,
    ShieldState,
    WeaponState,
    WeaponStyle,
)
from lnl_desktop.core.rules.lnl.rules import LnlRules
from lnl_desktop.core.rules.shared import NoPrompts, weapon_words, weapons_reach
from lnl_desktop.core.rules.specs import (
    Column,
    Gauge,
    ItemBox,
    ItemColumn,
    ItemList,
    Reach,
    SheetRow,
    SheetSpec,
    TokenTip,
)


def _signed(value: int) -> str:
    return f"{value:+d}"


# The sheet's shield box: a carried shield adds its armor to AP and may parry (RULES §9).
SHIELD_BOX = ItemBox(
    "shield",
    "Shield",
    "Has a shield",
    "Has a shield: while carried it adds its armor value to AP; parrying with it "
    "absorbs double damage against its durability",
    fields=(
        ItemColumn("name", "Shield name", "text", "The shield's name"),
        ItemColumn("armor", "Shield armor", "int", "AP the shield adds while it is carried (default 1)"),
        ItemColumn(
            "durability",
            "Durability",
            "int",
            "Points the shield can still absorb when parrying; each blow counts double",
        ),
        ItemColumn("durability_max", "Max durability", "int", "Durability of the shield when undamaged"),
        ItemColumn(
            "state",
            "Shield state",
            "choice",
            "carried: adds its AP and can parry; stowed: on the back; destroyed: gone for this fight",
            choices=tuple(s.value for s in ShieldState),
        ),
    ),
    rows=(
        SheetRow("Name", ("name",), "The shield's name"),
        SheetRow("Armor (AP)", ("armor",), "AP the shield adds while it is carried (default 1)"),
        SheetRow(
            "Durability (now / max)",
            ("durability", "durability_max"),
            "Points the shield can still absorb when parrying; each blow counts double",
        ),
        SheetRow(
            "State",
            ("state",),
            "carried: adds its AP and can parry; stowed: on the back; destroyed: gone for this fight",
        ),
    ),
    new_item={"name": "Shield", "armor": 1, "durability": 10, "durability_max": 10, "state": "carried"},
    after="weapons",
)


def sheet(r: LnlRules) -> SheetSpec:
    per = r.perception.value
    direct = r.has_direct_damage
    sneak_dex = "never against a sneak attack"
    rows = (
        SheetRow(
            "STR bonus",
            ("str_bonus",),
            "STR bonus: added to the damage of power melee and reach weapons. May be negative",
        ),
        SheetRow(
            "DEX bonus",
            ("dex_bonus",),
            "DEX bonus: added to the damage of finesse weapons, and subtracted from the damage "
            f"this combatant takes ({sneak_dex}). May be negative",
        ),
        SheetRow(f"{per} bonus", (f"{per.lower()}_bonus",), r.perception_tip),
        SheetRow(
            "Armor (AP)",
            ("armor",),
            "Armor Points from worn or natural armor; a carried shield adds its own. "
            "AP is subtracted from the damage this combatant takes",
        ),
        SheetRow(
            "SP (now / max)",
            ("stamina", "stamina_max"),
            "Stamina Points left, and when fresh. "
            + ("Ordinary melee damage" if direct else "All damage, ranged included,")
            + " wears these down first; at 0 SP the rest of the blow comes off IP",
        ),
        SheetRow(
            "IP (now / max)",
            ("injury", "injury_max"),
            "Injury Points left (injury slots), and when unhurt. "
            + ("Direct damage (ranged attacks, sneak attacks) comes off IP at once; " if direct else "")
            + "at 0 IP the combatant is down",
        ),
    )
    ranged_tip = (
        f"ranged: the target at least {r.ranged_minimum_ft} ft away, direct damage to IP"
        if r.ranged_minimum_ft
        else "ranged: any distance up to its range (no minimum), damage to SP first"
    )
    exertion_tip = (
        "Weapon Specialization: a ranged attack's exertion is half the d4, rounded up"
        if r.has_exertion
        else "Weapon Specialization (no exertion in this ruleset: kept for the record)"
    )
    weapons = ItemList(
        "weapons",
        "weapon",
        (
            ItemColumn("name", "Name", "text", "The weapon's name; each weapon of a combatant needs its own"),
            ItemColumn(
                "die", "Die", "choice", "Damage die: N of them by level, exploding on their maximum", DAMAGE_DICE
            ),
            ItemColumn(
                "kind",
                "Kind",
                "choice",
                f"melee: the target within 5 ft; reach: its own reach (e.g. 10 ft); {ranged_tip}",
                tuple(k.value for k in WEAPON_KINDS),
                # Reach belongs to reach weapons and a maximum range to ranged ones.
                clears={
                    WeaponKind.MELEE.value: ("reach_ft", "max_range_ft"),
                    WeaponKind.REACH.value: ("max_range_ft",),
                    WeaponKind.RANGED.value: ("reach_ft",),
                },
            ),
            ItemColumn(
                "style",
                "Style",
                "choice",
                f"power: adds STR; finesse: adds DEX. A ranged weapon always adds {per}",
                tuple(s.value for s in WeaponStyle),
            ),
            ItemColumn(
                "reach_ft", "Reach", "optional int", "Reach weapons only: how far it reaches, in feet (empty: 10 ft)"
            ),
            ItemColumn(
                "max_range_ft",
                "Range",
                "optional int",
                "Ranged weapons only: the farthest target in feet (empty: no limit)",
            ),
            ItemColumn(
                "magic_bonus", "Magic", "int", "Magic bonus +B: adds B to each of the N base dice, not to explosions"
            ),
            ItemColumn("specialized", "Spec.", "bool", exertion_tip),
            ItemColumn(
                "state",
                "State",
                "choice",
                "ready; sheathed (drawing it is part of the attack); broken (after a Power Attack "
                "or a shattered parry, until repaired)",
                tuple(s.value for s in WeaponState),
            ),
        ),
        "The combatant's weapons; double-click a cell to change it",
        {"die": "d6"},
    )
    spell_columns = [
        ItemColumn("name", "Name", "text", "The spell's name; cast from the map's attack menu"),
        ItemColumn("die", "Die", "choice", "Damage die: N of them by the caster's level, exploding", DAMAGE_DICE),
        ItemColumn("range_ft", "Range", "optional int", "How far the spell reaches, in feet (empty: no limit)"),
        ItemColumn(
            "ability",
            "Ability",
            "optional choice",
            "The caster's bonus the spell adds to its damage (none unless the spell says so)",
            ("none", *(a.value for a in r.stat_block.abilities())),
        ),
        ItemColumn("dex_applies", "DEX", "bool", "DEX applies: the target's DEX bonus reduces the damage"),
        ItemColumn("ap_applies", "AP", "bool", "AP applies: the target's AP reduces the damage"),
    ]
    if direct:
        spell_columns.append(
            ItemColumn("direct", "Direct", "bool", "Direct damage: comes off IP at once (otherwise SP first)")
        )
    spell_columns.append(
        ItemColumn(
            "area",
            "Area",
            "area",
            "RULES §14: what it strikes, a size and a shape (20 ft circle, 30 ft cone, 60 ft line, 10 ft square); "
            "empty: one target. Laid from the Action dock's Area effect…",
        )
    )
    spells = ItemList(
        "spells",
        "spell",
        tuple(spell_columns),
        "Damaging spells: N dice of the spell's die by the caster's level, exploding",
        {"die": "d6"},
    )
    return SheetSpec(
        identity=(
            SheetRow(
                "Level",
                ("level",),
                "Level, 1 or more. It sets the damage dice: N = (level + 1) // 2, "
                "so 1 die at levels 1-2, 2 dice at 3-4, 3 at 5-6...",
            ),
        ),
        numbers_title="Abilities, armor and health",
        numbers=rows,
        lists=(weapons, spells),
        boxes=(SHIELD_BOX,),
        tips={
            "side": "Party: the player characters and their allies. Opponents: run by the GM. "
            "Each round's initiative d6 says which side acts first",
            "move_ft": "Feet of movement per turn (default 30). A Dash adds a whole Move, a Leap half a Move",
            "concealed": r.concealed_tip,
            "surprised": r.surprised_tip,
        },
    )


def _ap_parts(c: LnLStats) -> str:
    """The AP column's tooltip of a combatant with a shield: its armor and the shield's part."""
    if c.shield is None:
        return ""
    return f"Armor {c.armor} + {c.shield.name} {c.shield.armor} ({c.shield.state.value})"


def columns(r: LnlRules) -> tuple[Column, ...]:
    direct = r.has_direct_damage
    cols = [
        Column("Level", "Level; damage dice N = (level + 1) // 2", lambda c: c.level),
        Column(
            "SP",
            "Stamina Points, current / max: "
            + ("ordinary melee damage" if direct else "all damage")
            + " comes off SP first",
            lambda c: f"{c.stamina} / {c.stamina_max}",
        ),
        Column(
            "IP",
            "Injury Points, current / max: "
            + ("direct damage comes off IP; " if direct else "damage past 0 SP comes off IP; ")
            + "at 0 IP the creature is down",
            lambda c: f"{c.injury} / {c.injury_max}",
        ),
        Column(
            "AP",
            "Armor Points: worn or natural armor plus a carried shield",
            lambda c: c.armor_points,
            row_tip=_ap_parts,
        ),
    ]
    if r.shows_defense_points:
        cols.append(
            Column(
                "DP",
                "Defense Points: DEX bonus + AP, what the target takes off every blow (sneak attacks: AP only)",
                lambda c: c.dex_bonus + c.armor_points,
            )
        )
    return tuple(cols)


def gauges(c: LnLStats) -> tuple[Gauge, ...]:
    return (
        Gauge("SP", c.stamina, c.stamina_max, "reserve"),
        Gauge("IP", c.injury, c.injury_max, "wound"),
    )


def summary(r: LnlRules, c: LnLStats) -> str:
    dice = f"{c.dice_count} damage {'die' if c.dice_count == 1 else 'dice'}"
    shield = c.shield is not None and c.shield.state is ShieldState.CARRIED
    ap = f"AP {c.armor_points}" + (f" (armor {c.armor} + shield {c.shield.armor})" if shield and c.shield else "")
    parts = [f"{c.side.value}, level {c.level}", dice, ap]
    if r.shows_defense_points:
        parts.append(f"DP {c.dex_bonus + c.armor_points} (DEX {_signed(c.dex_bonus)} + AP {c.armor_points})")
    if c.down:
        parts.append("down")
    if c.parry is not None:
        parts.append(f"parrying with {c.parry.label}")
    return " · ".join(parts)


def stat_line(r: LnlRules, c: LnLStats) -> str:
    per = r.perception
    dp = f"  DP {c.dex_bonus + c.armor_points}" if r.shows_defense_points else ""
    return (
        f"STR {_signed(c.str_bonus)}  DEX {_signed(c.dex_bonus)}  {per.value} {_signed(c.bonus(per))}  "
        f"AP {c.armor_points}{dp}\nSP {c.stamina_max}  IP {c.injury_max}  Move {c.move_ft} ft"
    )


class LnlViews:
    """What the sheet, the tables, the tokens and an export show of an L&L-family combatant."""

    def __init__(self, rules: LnlRules) -> None:
        self.rules = rules

    def sheet(self) -> SheetSpec:
        return sheet(self.rules)

    def columns(self) -> tuple[Column, ...]:
        return columns(self.rules)

    def summary(self, c: LnLStats) -> str:
        return summary(self.rules, c)

    def stat_line(self, c: LnLStats) -> str:
        return stat_line(self.rules, c)

    def new_combatant(self) -> dict[str, Any]:
        # A plain level 1 fighter.
        return {
            "name": "New combatant",
            "side": "Party",
            "level": 1,
            "stamina_max": 10,
            "injury_max": 5,
            "weapons": [{"name": "Weapon", "die": "d6"}],
        }

    def creature_lines(self, c: LnLStats) -> tuple[str, ...]:
        """A bestiary entry's heading (name, level, damage dice), then a line per weapon, the shield, a spell."""
        dice = c.dice_count
        head = f"{c.name}: level {c.level}" + (f" ({dice} damage {'die' if dice == 1 else 'dice'})" if dice else "")
        lines = [head, *(f"Weapon: {w.label}" for w in c.weapons)]
        if c.shield is not None:
            sh = c.shield
            lines.append(f"Shield: {sh.name}, +{sh.armor} AP, durability {sh.durability_max}")
        lines += [f"Spell: {s.name} ({s.die}{', direct' if s.direct else ''})" for s in c.spells]
        return tuple(lines)

    def export_columns(self) -> tuple[str, ...]:
        return ("dice", "damage", "to SP", "to IP", "target SP", "target IP")


class LnlTokens:
    """What a token shows of a combatant: its bars, a word, condition markers, icons, tooltip words and reach."""

    def __init__(self, rules: LnlRules) -> None:
        self.rules = rules

    def gauges(self, c: LnLStats) -> tuple[Gauge, ...]:
        return gauges(c)

    def gauge_labels(self) -> tuple[str, ...]:
        return ("SP", "IP")

    def token_word(self, c: LnLStats) -> str:
        return ""

    def markers(self, c: LnLStats) -> tuple[str, ...]:
        return tuple(c.conditions)

    def token_icons(self, c: LnLStats) -> frozenset[str]:
        icons = set()
        if c.parry is not None:
            icons.add("guard")
        if any(w.state is WeaponState.BROKEN for w in c.weapons):
            icons.add("broken")
        return frozenset(icons)

    def token_tip(self, c: LnLStats) -> TokenTip:
        items = [weapon_words(w) + ("" if w.state is WeaponState.READY else f" [{w.state.value}]") for w in c.weapons]
        return TokenTip(identity=f"level {c.level}", numbers=(f"AP {c.armor_points}",), items=tuple(items))

    def reach(self, c: LnLStats) -> Reach:
        return weapons_reach(c.weapons, self.rules.ranged_minimum_ft)  # 10 ft in L&L, none in Classic


class LnlPrompts(NoPrompts):
    """No calls for the GM; the dice roller's initiative d6 and d20."""

    def quick_rolls(self) -> tuple[tuple[str, str], ...]:
        return (("Initiative d6", "d6"), ("d20", "d20"))
