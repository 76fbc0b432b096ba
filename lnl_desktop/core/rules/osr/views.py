"""What Old-School d20 shows (RULES §12): the sheet's rows and tooltips, the tables' columns, the
token's bar and word, the Start combat dialog, the Action dock's actions with their checks and
notes, and the prompts and tools that ask the GM for a roll."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter, Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.base import (
    CONDITION_TIPS,
    ActionSpec,
    Column,
    Gauge,
    ItemColumn,
    ItemList,
    PromptChoice,
    PromptSpec,
    Setting,
    SheetRow,
    SheetSpec,
    Situation,
    StartProcedure,
)
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.osr import conditions as cond
from lnl_desktop.core.rules.osr import rules
from lnl_desktop.core.rules.osr.model import (
    WEAPON_KINDS,
    Burn,
    Cast,
    Confusion,
    CounterAttack,
    DeathSave,
    Defend,
    InitiativeMode,
    Kind,
    Light,
    MoraleCheck,
    MoraleResult,
    OsrAttack,
    OsrCombatant,
    SaveCategory,
    SavingThrow,
    StandUp,
    TakeMove,
    WeaponKind,
)
from lnl_desktop.core.rules.osr.morale import morale_eligible

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

# The Start combat dialog's situations: the GM marks who is surprised (RULES §12, step 2).
NOBODY, PARTY, OPPONENTS, BOTH = (
    "nobody surprised",
    "Party surprised",
    "Opponents surprised",
    "both sides surprised",
)

LIGHT = Setting(
    "light",
    "Light",
    "The round's light: dim -2, dark -5 to attacks (RULES §12 considerations)",
    "choice",
    Light.NORMAL.value,
    choices=tuple(x.value for x in Light),
)
INITIATIVE = Setting(
    "initiative",
    "Initiative",
    "group: one d20 per side + its leader's INIT, the side acts together; "
    "individual: d20 + INIT for each combatant, one at a time",
    "choice",
    InitiativeMode.GROUP.value,
    choices=tuple(x.value for x in InitiativeMode),
)
COVER = Setting(
    "cover",
    "Cover",
    "Partial cover: -2 to -4 to hit, set by the GM; full cover: it cannot be shot",
    "choice",
    "none",
    choices=rules.COVER,
)
SECOND = Setting(
    "second",
    "Dual with",
    "A dual attack: one roll at -1, both weapons' damage rolled, the higher counts",
    "means",
    "",
    optional=True,
)
SUBDUAL = Setting(
    "subdual",
    "Subdual",
    "Declared not to kill (bludgeoning, or the flat of a blade): the damage is tracked apart "
    "from HP; at subdual ≥ HP the foe surrenders",
    "bool",
    False,
)
SPELL = Setting(
    "spell",
    "Spell",
    "The spell's name, for the log",
    "text",
    "",
)
HARMFUL = Setting(
    "harmful",
    "Harmful",
    "A spell that harms its target: a charmed caster may not aim it at its charmer",
    "bool",
    True,
)
LASTING = Setting(
    "lasting",
    "Takes time",
    "A casting time longer than an instant: the spell goes off as the caster's next turn begins, "
    "and is lost if the caster takes damage or fails a save before then",
    "bool",
    False,
)
GM_MODIFIER = Setting(
    "gm_modifier",
    "GM modifier",
    "The GM's situational modifier to the roll, -10 to +10 (fighting in water); say why in Why",
    "int",
    0,
    -rules.GM_MODIFIER,
    rules.GM_MODIFIER,
)
GM_EDGE = Setting(
    "gm_edge",
    "GM edge",
    "Advantage (2d20, the higher) or disadvantage (2d20, the lower) the GM gives (an unstable surface); "
    "say why in Why. It cancels against the other sources as usual",
    "choice",
    "none",
    choices=rules.GM_EDGES,
)
GM_REASON = Setting(
    "gm_reason", "Why", "The reason for the GM's modifier or edge, for the forecast and the log", "text", ""
)
GM = (GM_MODIFIER, GM_EDGE, GM_REASON)
FLAT = Setting(
    "flat_of_blade",
    "Flat of blade",
    "A blade struck flat: it may subdue (a weapon not marked bludgeoning may not otherwise)",
    "bool",
    False,
)
ABILITY = Setting(
    "ability",
    "Adds",
    "A thrown weapon adds the best of STR, DEX and PER to hit, unless you pick one (STR also adds to damage)",
    "choice",
    "best",
    choices=rules.ABILITIES,
)


def _strike(style: str) -> Any:
    def build(
        c: str,
        target: str,
        means: str,
        *,
        ignore_dex: bool = False,
        override: bool = False,
        cover: str = "none",
        second: str = "",
        subdual: bool = False,
        ability: str = "best",
        flat_of_blade: bool = False,
        gm_modifier: int = 0,
        gm_edge: str = "none",
        gm_reason: str = "",
    ) -> OsrAttack:
        return OsrAttack(
            c,
            target,
            means,
            style,  # type: ignore[arg-type]
            cover,
            second or "",
            bool(subdual),
            ability,
            bool(flat_of_blade),
            int(gm_modifier or 0),
            str(gm_edge or "none"),
            str(gm_reason or ""),
        )

    return build


def _cast_at(
    c: str,
    target: str,
    means: str | None,
    *,
    ignore_dex: bool = False,
    override: bool = False,
    spell: str = "",
    harmful: bool = True,
    lasting: bool = False,
) -> Cast:
    return Cast(c, str(spell or ""), target, lasting=bool(lasting), harmful=bool(harmful))


def _defend(c: str, target: str, means: str | None, *, ignore_dex: bool = False, override: bool = False) -> Defend:
    return Defend(c, "" if target == c else target)


# -- the sheet and the tables -------------------------------------------------------------------


def sheet() -> SheetSpec:
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
        SheetRow("Subdual taken", ("subdual",), "Subdual damage, tracked apart from HP; at subdual ≥ HP it surrenders"),
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


def columns() -> tuple[Column, ...]:
    return (
        Column("Kind", "PC, NPC or monster", lambda c: c.kind.value, numeric=False),
        Column("HP", "Hit points, current / max", lambda c: f"{c.hp} / {c.hp_max}"),
        Column("AC", "Armor Class: the to-hit total must reach it", lambda c: c.ac),
        Column("Atk", "Attack bonus", lambda c: f"{c.attack_bonus:+d}"),
        Column("ML", "Morale (empty: none)", lambda c: "" if c.morale is None else c.morale),
    )


def gauges(c: OsrCombatant) -> tuple[Gauge, ...]:
    return (Gauge("HP", c.hp, c.hp_max, "health"),)


def condition_tip(condition: str) -> str:
    word = " ".join(condition.split()).casefold()
    key = next((w for w in cond.TABLE if word == w or word.startswith(w + " ")), word)
    tip = CONDITION_TIPS.get(key, "")
    if key == "surprised":
        tip = "Caught unawares"
    extra = cond.APPLIED.get(key)
    if not extra:
        return tip
    return f"{tip}. Old-School d20: {extra}" if tip else f"Old-School d20: {extra}"


def token_word(c: OsrCombatant) -> str:
    if c.dead:
        return "dead"
    if c.morale_result is not None:
        return c.morale_result.value
    if "unconscious" in c.conditions:
        return "unconscious"
    return ""


def markers(c: OsrCombatant) -> tuple[str, ...]:
    """Its conditions, less the one its token already says in a word (unconscious), and "casting"
    while a spell is under way (damage interrupts it: worth seeing across the table)."""
    words = tuple(w for w in c.conditions if w != "unconscious")
    if c.casting is not None:
        words += ("casting",)
    return words


def summary(c: OsrCombatant) -> str:
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


def stat_line(c: OsrCombatant) -> str:
    weapons = ", ".join(f"{w.name} {w.damage}" for w in c.weapons) or "unarmed 1d2"
    morale = f"  ML {c.morale}" if c.morale is not None else ""
    return (
        f"HP {c.hp_max}  AC {c.ac}  Atk {c.attack_bonus:+d}  INIT {c.init_mod:+d}{morale}\n"
        f"{weapons}  Move {c.move_ft} ft"
    )


# -- the round -----------------------------------------------------------------------------------


def start_procedure() -> StartProcedure:
    def reading(situation: str, face: int) -> str:
        return {
            NOBODY: "Nobody is surprised; everyone acts in the initiative order",
            PARTY: "The Party is surprised: its members take no action in round 1",
            OPPONENTS: "The Opponents are surprised: they take no action in round 1",
            BOTH: "Both sides surprised: nobody is; initiative as usual",
        }.get(situation, "")

    return StartProcedure(
        question="Who is surprised?",
        situations=(
            Situation(NOBODY, "Nobody is surprised", "Both sides saw each other coming"),
            Situation(PARTY, "The Party is surprised", "Party members take no action in round 1"),
            Situation(OPPONENTS, "The Opponents are surprised", "Opponents take no action in round 1"),
            Situation(BOTH, "Both sides are surprised", "A moment of shared confusion: nobody is surprised"),
        ),
        die_label="initiative",
        reading=reading,
        surprise_die=False,
        rolls_initiative=True,
        settings=(LIGHT, INITIATIVE),
    )


# -- the actions ---------------------------------------------------------------------------------


def action_kinds() -> tuple[ActionSpec, ...]:
    def strike(key: str, label: str, tip: str, button: str, extras: tuple[Setting, ...]) -> ActionSpec:
        return ActionSpec(
            key,
            label,
            tip,
            "weapon",
            _strike(key),
            targeted=True,
            mode=key,
            button=button,
            rolls=True,
            extras=extras,
        )

    return (
        strike(
            "melee",
            "Melee attack",
            "d20 + attack bonus + STR against AC, a target within 5 ft (10 ft with reach); no move this turn",
            "Roll the attack",
            (*GM, COVER, SECOND, SUBDUAL, FLAT),
        ),
        strike(
            "ranged",
            "Ranged attack",
            "d20 + attack bonus + PER (thrown: best of STR/DEX/PER); long range -1; half a Move before or after. "
            "Shooting while engaged provokes counter-attacks",
            "Roll the shot",
            (*GM, COVER, ABILITY, SECOND),
        ),
        strike(
            "charge",
            "Charge",
            "Move up to the full Move, then a melee attack (no move after)",
            "Roll the charge",
            (*GM, COVER, SECOND, SUBDUAL, FLAT),
        ),
        ActionSpec(
            "move",
            "Move",
            "Up to the full Move; moving while engaged provokes counter-attacks",
            "none",
            lambda c: TakeMove(c),
            button="Take the Move",
        ),
        ActionSpec(
            "stand",
            "Stand up",
            "A prone creature gets up: it costs half its Move, not its action",
            "none",
            lambda c: StandUp(c),
            button="Stand up",
        ),
        ActionSpec(
            "defend",
            "Defend",
            "No move and no attack: +2 AC until the next turn, or guard an adjacent ally (+2 AC to it). "
            "Pick yourself or the ally",
            "none",
            _defend,
            targeted=True,
            allies=True,
            button="Defend",
        ),
        ActionSpec(
            "cast",
            "Cast a spell",
            "At a creature: click it on the map. Both hands free, a line of sight to a visible target; "
            "not silenced, not blinded; the caster may not move this turn",
            "none",
            _cast_at,
            targeted=True,
            button="Cast",
            extras=(SPELL, HARMFUL, LASTING),
        ),
        ActionSpec(
            "cast-here",
            "Cast a spell (no creature)",
            "On the caster itself or a place: both hands free, not silenced; the caster may not move this turn",
            "text",
            lambda c, text, lasting=False: Cast(c, text, lasting=bool(lasting)),
            button="Cast",
            extras=(LASTING,),
        ),
        ActionSpec(
            "other",
            "Something else…",
            "Any other action, in words, for the log",
            "text",
            lambda c, text: act.OtherAction(c, text),
            button="Take this action",
        ),
    )


def action_available(spec: ActionSpec, c: OsrCombatant) -> tuple[bool, str]:
    if spec.key == "stand" and not cond.has(c, "prone"):
        return False, f"{c.name} is not prone"
    if spec.key == "ranged" and not any(w.kind in (WeaponKind.MISSILE, WeaponKind.THROWN) for w in c.strikers()):
        return False, f"{c.name} has no missile or thrown weapon"
    return True, ""


def action_means(spec: ActionSpec, c: OsrCombatant) -> list[tuple[str, str, str]]:
    if spec.uses != "weapon":
        return []
    # A weapon that strikes an area (a breath, a bomb) is used as an Area effect, not at one foe.
    if spec.key == "ranged":
        return [(w.name, w.label, "") for w in c.strikers() if w.kind in (WeaponKind.MISSILE, WeaponKind.THROWN)]
    return [(w.name, w.label, "") for w in c.strikers() if w.melee]


def action_checks(
    encounter: Encounter,
    spec: ActionSpec,
    c: OsrCombatant,
    means: str | None,
    text: str,
    target: Any = None,
    extras: Mapping[str, Any] | None = None,
) -> list[Any] | None:
    """The Action dock's checks for an Old-School action; None for one the seam checks itself."""
    number, of = rules.attacks_left(encounter, c)
    if number and spec.key not in ("melee", "ranged"):
        turn = encounter.combat.turn
        made = turn.attacks if turn is not None else 0
        return [
            Check(
                "The turn's action is Attack",
                False,
                f"{made} of {of} attacks made: the next is a melee or a ranged attack, or end the turn",
            )
        ]
    if spec.key in ("melee", "ranged", "charge"):
        if target is None or means is None:
            return [Check("Pick a target", False, "click a foe on the map")]
        try:
            weapon = c.weapon(means)
        except RulesError as error:
            return [Check("The weapon", False, str(error))]
        more = dict(extras or {})
        turn = encounter.combat.turn
        following = number and turn is not None and turn.action == "charge"
        first = [Check(f"Attack 1 of {of}", True, "")] if of > 1 and not number else []
        return first + rules.attack_checks(
            encounter,
            c,
            target,
            weapon,
            "counter" if following else spec.key,  # type: ignore[arg-type]
            cover=str(more.get("cover", "none")),
            second=str(more.get("second", "") or ""),
            subdual=bool(more.get("subdual", False)),
            flat_of_blade=bool(more.get("flat_of_blade", False)),
            gm_modifier=int(more.get("gm_modifier", 0) or 0),
            gm_edge=str(more.get("gm_edge", "none") or "none"),
        )
    if spec.key in ("defend", "cast", "cast-here"):
        checks = rules.movement_checks(encounter, c, "cast" if spec.key.startswith("cast") else spec.key)
        if spec.key == "defend" and target is not None and target.id != c.id:
            feet = encounter.distance_between(c, target)
            checks.append(Check("An ally", target.side is c.side, f"{target.name} is not on {c.name}'s side"))
            checks.append(Check("Adjacent", feet is not None and feet <= 5, f"{target.name} is not next to {c.name}"))
        if spec.key == "cast":
            more = dict(extras or {})
            said = bool(str(more.get("spell", "") or "").strip())
            checks.append(Check("Name the spell", said, "" if said else "type it in Spell"))
            if target is None:
                checks.append(Check("Pick a target", False, "click a creature on the map"))
            else:
                checks += rules.spell_checks(encounter, c, target, bool(more.get("harmful", True)))
        if spec.key == "cast-here":
            said = bool(text.strip())
            checks.append(Check("Say the spell", said, "" if said else "type it above"))
            checks += rules.spell_checks(encounter, c, None, False)
        return checks
    return None


def action_notes(
    encounter: Encounter,
    spec: ActionSpec,
    c: OsrCombatant,
    means: str | None,
    target: Any,
    extras: Mapping[str, Any] | None = None,
) -> list[tuple[str, str]]:
    notes: list[tuple[str, str]] = []
    if spec.key in ("melee", "ranged", "charge") and target is not None and means is not None:
        try:
            weapon = c.weapon(means)
        except RulesError:
            return notes
        more = dict(extras or {})
        hit = rules.to_hit(
            encounter,
            c,
            target,
            weapon,
            spec.key,  # type: ignore[arg-type]
            cover=str(more.get("cover", "none")),
            second=str(more.get("second", "") or ""),
            ability=str(more.get("ability", "best")),
            gm_modifier=int(more.get("gm_modifier", 0) or 0),
            gm_edge=str(more.get("gm_edge", "none") or "none"),
            gm_reason=str(more.get("gm_reason", "") or ""),
        )
        chance = round(hit.chance * 100)
        how = hit.auto_hit or f"d20 {hit.terms_text()} vs {hit.ac_text()}"
        edge = f"{hit.edge_text()}; " if hit.edge_text() and not hit.auto_hit else ""
        notes.append(("To hit", f"{chance}%: {edge}{how} (natural 20 hits, natural 1 misses)"))
        if hit.critical:
            notes.append(("Critical", hit.critical))
    if spec.key in ("melee", "ranged", "charge") and c.attacks > 1:
        notes.append(reach_note(encounter, c))
    if spec.key == "ranged":
        engaged = engagement.engaged_by(encounter, c, rules.reach_of, lambda s, m: rules.may_counter(encounter, s, m))
        if engaged:
            names = ", ".join(encounter.combatant(x).name for x in engaged)
            notes.append(("Provokes", f"shooting while engaged: counter-attack from {names}"))
    return notes


def reach_note(encounter: Encounter, c: OsrCombatant) -> tuple[str, str]:
    """Which attack this is and who is in reach of it now (it changes as foes fall)."""
    number, of = rules.attacks_left(encounter, c)
    turn = encounter.combat.turn
    which = f"Attack {number or 1} of {of}" if number or turn is None or turn.action is None else f"{of} attacks"
    reach = c.melee_reach
    near = []
    for other in encounter.combatants:
        feet = encounter.distance_between(c, other)
        if other.side is not c.side and feet is not None and feet <= reach and not rules.attackable(other):
            near.append(f"{other.name} ({feet:g} ft)")
    where = ", ".join(near) if near else "no foe"
    return which, f"each roll at any foe in reach, with any of its weapons. In reach ({reach} ft): {where}"


# -- what the rules call for ---------------------------------------------------------------------


def prompt(engine: Table, item: Any) -> PromptSpec | None:
    """How to ask the GM for a pending counter-attack, death save, morale check, burn or confusion
    roll; None for an item the seam asks about itself."""
    index = engine.encounter.combat.pending.index(item)
    if item.kind == "counter-attack":
        striker = engine.combatant(item.who)
        weapon = Setting("weapon", "With", "The weapon the counter-attack swings", "means", striker.best_melee().name)
        return PromptSpec(
            "Counter-attack",
            item.text,
            (weapon, *GM),
            (
                PromptChoice(
                    "Roll the counter-attack",
                    "d20 to hit, damage on a hit",
                    lambda v: CounterAttack(index, str(v.get("weapon") or ""), *_gm_of(v)),
                    rolls=True,
                ),
            ),
        )
    if item.kind == "death save":
        return PromptSpec(
            "Death save",
            item.text,
            (),
            (
                PromptChoice(
                    "Roll the death save",
                    "d20 + Poison or Death bonus ≥ DC: unconscious; else dead",
                    lambda v: DeathSave(index),
                    rolls=True,
                ),
            ),
        )
    if item.kind == "morale":
        return PromptSpec("Morale check", item.text, *morale_inputs(engine, item.who, index))
    if item.kind == "burning":
        return PromptSpec(
            "Burning",
            item.text,
            (),
            (
                PromptChoice(
                    f"Roll the fire damage ({getattr(engine.encounter.options, 'burning_dice', '1d6')})",
                    "Subtracted from HP, as a hit's damage would be",
                    lambda v: Burn(index),
                    rolls=True,
                ),
            ),
        )
    if item.kind == "confused":
        return PromptSpec(
            "Confused",
            item.text,
            (),
            (
                PromptChoice(
                    "Roll the d6",
                    "1: attacks the nearest creature; 2-4: moves randomly; 5-6: does nothing",
                    lambda v: Confusion(index),
                    rolls=True,
                ),
            ),
        )
    return None


def morale_inputs(engine: Table, side: str, index: int) -> tuple[tuple[Setting, ...], tuple[PromptChoice, ...]]:
    members = [c for c in engine.encounter.side(Side(side)) if morale_eligible(c)]  # type: ignore[arg-type]
    who = ", ".join(f"{c.name} {c.morale}" for c in members) or "nobody"  # type: ignore[attr-defined]
    settings = (
        Setting(
            "modifier",
            "Modifier",
            "Situational -2 … +2 (a side clearly winning +1, losing -1); never for morale 2 or 12",
            "int",
            0,
            -2,
            2,
        ),
        Setting("cornered", "Cornered", "A morale-2 creature fights only when cornered", "bool", False),
        Setting(
            "outcome",
            "On a failure",
            "What the creatures that fail do",
            "choice",
            MoraleResult.FLEES.value,
            choices=tuple(m.value for m in MoraleResult),
        ),
    )
    choice = PromptChoice(
        f"Roll 2d6 ({who})",
        "2d6 ≤ morale (+ modifier): stands; above: flees or surrenders. Two passes: no more checks",
        lambda v: MoraleCheck(
            side, int(v.get("modifier", 0)), bool(v.get("cornered", False)), str(v.get("outcome", "flees")), index
        ),
        rolls=True,
    )
    return settings, (choice,)


def tools(engine: Table) -> tuple[PromptSpec, ...]:
    """The Combat menu's morale checks on the GM's demand, one per side that has morale."""
    tools = []
    for side in Side:
        if any(morale_eligible(c) for c in engine.encounter.side(side)):  # type: ignore[arg-type]
            settings, choices = morale_inputs(engine, side.value, -1)
            tools.append(PromptSpec(f"Morale check: {side.value}", "On the GM's demand", settings, choices))
    return tuple(tools)


def combatant_tools(engine: Table, c: OsrCombatant) -> tuple[PromptSpec, ...]:
    """The sheet's saving throw on demand: a category and a DC (11 + a monster's HD, or the GM's)."""
    category = Setting(
        "category",
        "Category",
        "Poison or Death Ray, Paralysis or Petrification, Wands, Dragon Breath, Spells",
        "choice",
        SaveCategory.SPELLS.value,
        choices=tuple(s.value for s in SaveCategory),
    )
    dc = Setting(
        "dc",
        "DC",
        "11 + the monster's HD for a monster's effect; else the GM's (11 + dungeon level)",
        "int",
        11,
        1,
        40,
    )
    choice = PromptChoice(
        "Roll the save",
        "d20 + the category's bonus (+ the GM's modifier) ≥ DC",
        lambda v: SavingThrow(c.id, str(v.get("category")), int(v.get("dc", 11)), "", *_gm_of(v)),
        rolls=True,
    )
    return (
        PromptSpec(
            f"Saving throw: {c.name}", "d20 + the category's bonus against a DC", (category, dc, *GM), (choice,)
        ),
    )


def _gm_of(values: Mapping[str, Any]) -> tuple[int, str, str]:
    """The GM's modifier, edge and reason from a prompt's inputs."""
    return (
        int(values.get("gm_modifier", 0) or 0),
        str(values.get("gm_edge", "none") or "none"),
        str(values.get("gm_reason", "") or ""),
    )
