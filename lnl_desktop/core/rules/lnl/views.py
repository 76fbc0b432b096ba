"""What the L&L family shows: the sheet's rows and tooltips, the tables' columns, the tokens' bars
and the Action dock's actions, worded for the ruleset that asks (L&L or L&L Classic).

The wording follows the ruleset's own differences (its perception ability, whether ranged and
sneak damage is direct, the ranged minimum), so Classic reuses all of it without a copy.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from lnl_desktop.core.dice.rolls import DAMAGE_DICE
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import AreaEffectResolved, Override, WentDown
from lnl_desktop.core.encounter.model import ShieldState, WeaponKind, WeaponState
from lnl_desktop.core.rules.base import (
    SHIELD_MEANS,
    ActionResult,
    ActionSpec,
    Column,
    Gauge,
    ItemBox,
    ItemColumn,
    ItemList,
    SheetRow,
    SheetSpec,
    Span,
    area_result,
    following,
    result_line,
)
from lnl_desktop.core.rules.common import AttackMode, Check
from lnl_desktop.core.rules.lnl.model import (
    WEAPON_KINDS,
    Ability,
    Attack,
    AttackMeans,
    AttackResolved,
    CastSpell,
    Dash,
    ExertionSpent,
    Leap,
    LnLFamilyOptions,
    LnLStats,
    Parry,
    ShieldDestroyed,
    Weapon,
    WeaponBroken,
    WeaponStyle,
)


class Family(Protocol):
    """What the views read of L&L or a ruleset of its family (RULES §11: what sets the editions apart)."""

    stat_block: ClassVar[type[LnLStats]]
    perception: ClassVar[Ability]
    ranged_minimum_ft: ClassVar[int]
    has_direct_damage: ClassVar[bool]
    has_exertion: ClassVar[bool]
    sneak_may_be_power: ClassVar[bool]
    shows_defense_points: ClassVar[bool]
    perception_tip: ClassVar[str]
    concealed_tip: ClassVar[str]
    surprised_tip: ClassVar[str]

    def costs_exertion(self, means: AttackMeans, options: LnLFamilyOptions) -> bool: ...

    def precision_check(
        self, attacker: LnLStats, target: LnLStats, weapon: Weapon, mode: AttackMode
    ) -> tuple[int, int] | None: ...


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


def sheet(r: Family) -> SheetSpec:
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


def columns(r: Family) -> tuple[Column, ...]:
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
        Gauge("SP", c.stamina, c.stamina_max, "stamina"),
        Gauge("IP", c.injury, c.injury_max, "injury"),
    )


def summary(r: Family, c: LnLStats) -> str:
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


def stat_line(r: Family, c: LnLStats) -> str:
    per = r.perception
    dp = f"  DP {c.dex_bonus + c.armor_points}" if r.shows_defense_points else ""
    return (
        f"STR {_signed(c.str_bonus)}  DEX {_signed(c.dex_bonus)}  {per.value} {_signed(c.bonus(per))}  "
        f"AP {c.armor_points}{dp}\nSP {c.stamina_max}  IP {c.injury_max}  Move {c.move_ft} ft"
    )


# -- the Action dock -------------------------------------------------------------------------------


def _attack(mode: AttackMode) -> Any:
    def build(c: str, target: str, means: str, *, ignore_dex: bool = False, override: bool = False) -> Attack:
        return Attack(c, target, means, mode, ignore_dex=ignore_dex, override=override)

    return build


def _cast(c: str, target: str, means: str, *, ignore_dex: bool = False, override: bool = False) -> CastSpell:
    return CastSpell(c, target, means, ignore_dex=ignore_dex)


def _parry(c: str, means: str) -> Parry:
    return Parry(c, shield=True) if means in (SHIELD_MEANS, "shield") else Parry(c, means)


def action_kinds(r: Family) -> tuple[ActionSpec, ...]:
    sneak_tip = (
        "Direct damage; DEX never subtracted; precision check for finesse and ranged weapons"
        if r.has_direct_damage
        else "Hidden, or the target engaged and your whole path outside its view: DEX not subtracted, AP applies"
    )

    def rolling(key: str, label: str, tip: str, mode: AttackMode, button: str, **more: Any) -> ActionSpec:
        build = _cast if mode is AttackMode.SPELL else _attack(mode)
        uses = "spell" if mode is AttackMode.SPELL else "weapon"
        return ActionSpec(
            key, label, tip, uses, build, targeted=True, mode=mode.value, button=button, rolls=True, **more
        )

    kinds = [
        rolling(
            "attack",
            "Attack",
            "Roll the weapon's damage dice: N by level, exploding",
            AttackMode.ATTACK,
            "Roll the attack",
            ignore_dex=True,
        ),
        rolling(
            "power",
            "Power attack",
            "2N dice instead of N; the weapon breaks after the attack",
            AttackMode.POWER,
            "Roll the Power Attack",
            ignore_dex=True,
        ),
        rolling("sneak", "Sneak attack", sneak_tip, AttackMode.SNEAK, "Roll the sneak attack", gm_override=True),
    ]
    if r.sneak_may_be_power:
        kinds.append(
            rolling(
                "sneak power",
                "Sneak power attack",
                "A sneak attack that is also a Power Attack: 2N dice, DEX not subtracted; the weapon breaks",
                AttackMode.SNEAK_POWER,
                "Roll the sneak power attack",
                gm_override=True,
            )
        )
    kinds += [
        rolling(
            "spell",
            "Cast a damaging spell",
            "N dice of the spell's die by the caster's level, exploding",
            AttackMode.SPELL,
            "Roll the spell",
            ignore_dex=True,
        ),
        ActionSpec(
            "parry", "Parry", "Stop incoming damage until the next turn, with a weapon or the shield", "parry", _parry
        ),
        ActionSpec("dash", "Dash", "Gain extra movement this turn", "none", lambda c: Dash(c)),
        ActionSpec(
            "leap", "Leap", "Gain extra movement over obstacles and difficult terrain", "none", lambda c: Leap(c)
        ),
        ActionSpec(
            "other",
            "Something else…",
            "Grapple, reload, take aim, sheathe… in words, for the log",
            "text",
            lambda c, text: act.OtherAction(c, text),
            button="Take this action",
        ),
    ]
    return tuple(kinds)


def action_available(spec: ActionSpec, c: LnLStats) -> tuple[bool, str]:
    if spec.uses == "weapon":
        return bool(c.weapons), f"{c.name} has no weapon"
    if spec.uses == "spell":
        return bool(c.spells), f"{c.name} knows no damaging spell"
    if spec.uses == "parry":
        return bool(c.weapons) or c.shield is not None, f"{c.name} has neither a weapon nor a shield"
    return True, ""


def action_means(spec: ActionSpec, c: LnLStats) -> list[tuple[str, str, str]]:
    """(name, label, why not) of the weapons, spells, or weapons and shield (``"shield"``) for a parry."""
    if spec.uses == "spell":
        return [
            (s.name, f"{s.name} ({c.dice_count}{s.die}{f', {s.range_ft} ft' if s.range_ft else ''})", "")
            for s in c.spells
        ]
    if spec.uses == "parry":
        out = [(w.name, f"{w.label} · {w.state.value}", "") for w in c.weapons]
        if c.shield is not None:
            sh = c.shield
            out.append(
                (SHIELD_MEANS, f"{sh.name} (durability {sh.durability}/{sh.durability_max}) · {sh.state.value}", "")
            )
        return out
    if spec.uses == "weapon":
        out = []
        for w in c.weapons:
            style_word = "" if w.kind is WeaponKind.RANGED else f", {w.style.value}"
            broken = f"{w.name} is broken until repaired" if w.state is WeaponState.BROKEN else ""
            out.append((w.name, f"{w.label.removesuffix(')')}{style_word}) · {w.state.value}", broken))
        return out
    return []


def parry_checks(c: LnLStats, means: str | None) -> list[Check]:
    """Whether the weapon or shield can parry, as the engine's parry will check it."""
    if means is None:
        return [Check("A weapon or the shield", False, f"{c.name} has neither")]
    if means in (SHIELD_MEANS, "shield"):
        shield = c.shield
        if shield is None:
            return [Check("Shield carried", False, f"{c.name} has no shield")]
        why = {
            ShieldState.DESTROYED: f"{c.name}'s shield is destroyed",
            ShieldState.STOWED: f"{c.name}'s shield is not carried",
        }.get(shield.state, f"absorbs double damage; {shield.durability} durability left")
        return [Check("Shield carried", shield.state is ShieldState.CARRIED, why)]
    weapon = c.weapon(means)
    if weapon.state is WeaponState.BROKEN:
        return [Check("Weapon ready", False, f"{weapon.name} is broken")]
    if weapon.state is WeaponState.SHEATHED:
        return [Check("Weapon ready", False, f"{weapon.name} is sheathed: a parry needs a ready weapon")]
    holds = weapon.magic_bonus + 1
    return [
        Check("Weapon ready", True, f"it shatters on the {_nth(holds)} exploding die it stops (+{weapon.magic_bonus})")
    ]


def _nth(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def action_notes(
    r: Family, options: Any, spec: ActionSpec, c: LnLStats, means: str | None, target: Any
) -> list[tuple[str, str]]:
    """What the GM should know before the action, in the ruleset's words."""
    notes: list[tuple[str, str]] = []
    mode = AttackMode(spec.mode) if spec.mode else None
    if spec.uses == "weapon" and means is not None and mode is not None:
        w = c.weapon(means)
        n = c.dice_count
        if mode in (AttackMode.POWER, AttackMode.SNEAK_POWER):
            notes.append(
                (
                    "Power Attack:",
                    f"{2 * n}{w.die} instead of {n}{w.die}; the {w.name} breaks after the attack "
                    "(a low roll is the critical fail).",
                )
            )
        if mode in (AttackMode.SNEAK, AttackMode.SNEAK_POWER):
            ap = f"{target.armor_points} AP" if target is not None else "the target's AP"
            precision = r.precision_check(c, target, w, mode) if target is not None else None
            if precision is not None or (
                target is None
                and r.has_direct_damage
                and (w.kind is WeaponKind.RANGED or w.style is WeaponStyle.FINESSE)
            ):
                dc = f" = DC {precision[1]}" if precision is not None else ""
                bonus = c.bonus(c.PERCEPTION)
                notes.append(
                    (
                        f"Precision ({'ranged' if w.kind is WeaponKind.RANGED else 'finesse'}):",
                        f"{c.PERCEPTION.value} check d20 {bonus:+d} against DC 10 + {ap}{dc}. "
                        "Success: armor ignored; failure: it applies.",
                    )
                )
            elif r.has_direct_damage:
                notes.append(("Precision:", f"a power weapon makes no check: {ap} always applies."))
            if r.has_direct_damage:
                notes.append(("", "All of it is direct damage to IP; the target's DEX is never subtracted."))
            else:
                notes.append(("", f"The target's DEX is not subtracted; {ap} applies; the damage comes off SP first."))
        if r.costs_exertion(w, options):
            half = " (halved: specialization)" if w.specialized else ""
            notes.append(("Exertion:", f"the attack costs {c.name} d4 SP{half}."))
        if w.kind is WeaponKind.RANGED and mode not in (AttackMode.SNEAK, AttackMode.SNEAK_POWER):
            if r.has_direct_damage:
                notes.append(("", "Ranged damage is direct: it comes off IP."))
            else:
                notes.append(("", "Ranged damage comes off SP first, like any blow."))
    elif spec.uses == "spell" and means is not None:
        s = c.spell(means)
        where = "direct to IP" if s.direct else "off SP first"
        notes.append(("", f"{c.dice_count}{s.die}, exploding; damage {where}."))
    elif spec.uses == "parry":
        notes.append(("", "Until its next turn begins, incoming damage is stopped; it may still move."))
    elif spec.key in ("dash", "leap"):
        extra = c.move_ft * (options.dash_moves if spec.key == "dash" else options.leap_moves)
        over = (
            " and over obstacles and difficult terrain" if spec.key == "leap" and options.leap_ignores_terrain else ""
        )
        notes.append(("", f"+{extra:g} ft of movement this turn{over}."))
    return notes


ABILITY_WORDS = {Ability.AWA: "awareness", Ability.WIS: "wisdom"}


# -- the Action dock's result ------------------------------------------------------------------------


def action_result(encounter: Any, event: Any, after: list[Any]) -> ActionResult | None:
    """An attack or damaging spell (``AttackResolved``) in the L&L family's words: where the damage
    went (SP, IP, a parry), the AWA check of a sneak attack, the dice with their explosions, the
    whole damage formula, DEX and AP, and what followed (exertion, a broken weapon, going down)."""
    if isinstance(event, AreaEffectResolved):  # RULES §14: the one roll, each target, who went down
        return area_result(event, following(after, (WentDown, Override, WeaponBroken, ShieldDestroyed)))
    if not isinstance(event, AttackResolved):
        return None
    by_id = encounter.by_id()

    def name(cid: str) -> str:
        c = by_id.get(cid)
        return c.name if c is not None else cid

    e = event
    attacker, target = name(e.attacker), name(e.target)
    lines = [result_line(f"{attacker}: {e.mode} on {target} with {e.means} ({e.dice_count}{e.die})")]
    if e.precision is not None:
        p = e.precision
        check = f"d20 ({p.face}) {'-' if p.bonus < 0 else '+'} {abs(p.bonus)} = {p.total} vs DC {p.dc}"
        lines.append(result_line("AWA check: ", Span(check, formula=True), f": {p.verdict}"))
    dice: list[str | Span] = ["Dice: "]
    for f in (f for f in e.faces if not f.explosion):
        dice += [Span(f"{f.face}!", strong=True) if f.exploded else str(f.face), " "]
    extra = [f for f in e.faces if f.explosion]
    if extra:
        dice.append("· explosions: ")
        for f in extra:
            dice += [Span(f"{f.face}!", strong=True) if f.exploded else str(f.face), " "]
    dice.append(f"= {e.dice_total}")
    lines.append(result_line(*dice))
    if e.magic_term:
        lines.append(result_line(f"Magic: +{e.magic_bonus} per base die × {e.dice_count} = +{e.magic_term}"))
    lines.append(result_line(Span(e.formula, formula=True, strong=True)))
    dex = "DEX ignored" if e.dex_ignored else f"DEX {e.dex_term:+d} subtracted"
    ap = "AP ignored" if e.ap_ignored else f"AP {e.ap_term} subtracted"
    lines.append(result_line(f"{dex}, {ap}"))
    went = ", ".join(e.where_it_went) or "no harm"
    lines.append(result_line(f"Where it went: {went} → {target} {e.target_sp} SP, {e.target_ip} IP"))
    for follow in following(after, (ExertionSpent, WeaponBroken, WentDown, ShieldDestroyed, Override)):
        harm = isinstance(follow, WeaponBroken | WentDown | ShieldDestroyed)
        lines.append(result_line(Span(follow.text, alert=harm)))
    return ActionResult(_headline(e, target), tuple(lines), e)


def _headline(e: AttackResolved, target: str) -> str:
    if e.parried_with and not (e.to_sp or e.to_ip):
        return f"{e.damage} damage, stopped by {target}'s {e.parried_with} parry"
    kind = "direct damage" if e.direct else "damage"
    if e.to_sp and e.to_ip:
        return f"{e.damage} {kind}: {target} loses {e.to_sp} SP and {e.to_ip} IP → {e.target_sp} SP, {e.target_ip} IP"
    if e.to_sp:
        return f"{e.damage} {kind} off {target}'s SP → {e.target_sp} SP left"
    if e.to_ip:
        return f"{e.damage} {kind} off {target}'s IP → {e.target_ip} IP left"
    return f"{e.damage} {kind}: no harm to {target}"
