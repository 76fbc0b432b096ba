"""What Group d10 shows (RULES §13): the sheet's rows and tooltips, the tables' columns, the token's
bar and word, the Start combat dialog, the declare phase, the Turns dock's row menu and round notes,
the Action dock's actions with their checks and notes, and the prompts and tools that ask the GM."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter, Phase, Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.base import (
    ActionSpec,
    Column,
    DeclareSpec,
    Gauge,
    ItemColumn,
    ItemList,
    PromptChoice,
    PromptSpec,
    RowAction,
    Setting,
    SheetRow,
    SheetSpec,
    Situation,
    StartProcedure,
)
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.d10 import model, rules
from lnl_desktop.core.rules.d10.conditions import CONDITIONS
from lnl_desktop.core.rules.d10.model import (
    D10_DICE,
    SKILL_NAMES,
    SKILLS,
    WEAPON_KINDS,
    D10Combat,
    D10Combatant,
    Tier,
    WeaponKind,
)

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

NONE, PARTY, OPPONENTS, STUMBLED = "no surprise", "Party ambushes", "Opponents ambush", "both stumbled"

EDGE = Setting(
    "gm_edge",
    "GM edge",
    "Advantage (2d20, the higher), cinematic advantage (3d20, the highest) or disadvantage "
    "(2d20, the lower) the GM gives; say why below. Advantage and disadvantage cancel",
    "choice",
    "none",
    choices=model.EDGE,
)
REASON = Setting("gm_reason", "Why", "The reason for the GM's edge, for the log (flanking, high ground…)", "text", "")
COVER = Setting("cover", "Cover", "The target is under cover: disadvantage", "bool", False)
CALLED = Setting("called_shot", "Called shot", "Aiming at a spot: disadvantage", "bool", False)
EXTREME = Setting(
    "extreme_range", "Extreme range", "An extreme long-range shot (the GM's call): disadvantage", "bool", False
)
SUBDUAL = Setting(
    "subdual", "Subdual", "Not to kill: disadvantage; no lasting wound at 1 HP, unconscious at 0", "bool", False
)
ON_20 = Setting(
    "on_20",
    "On a 20",
    "A natural 20 always hits: double damage, or instead disarm, knock prone (normal damage) or grapple (no damage)",
    "choice",
    model.ON_20[0],
    choices=model.ON_20,
)
IGNORES_DR = Setting(
    "ignores_dr",
    "Ignores DR",
    "A weapon or spell that disregards armor (its listing says so): the target's DR is not taken off",
    "bool",
    False,
)
PICK_UP = Setting(
    "pick_up",
    "Pick up",
    "A dropped weapon taken up again (after a disarm): it can strike with it from its next attack",
    "means",
    "",
    optional=True,
)
OVERRIDE = "GM override: act against the declaration"


def _attack(skill: str) -> Any:
    def build(
        c: str,
        target: str,
        means: str,
        *,
        ignore_dex: bool = False,
        override: bool = False,
        gm_edge: str = "none",
        gm_reason: str = "",
        cover: bool = False,
        called_shot: bool = False,
        extreme_range: bool = False,
        subdual: bool = False,
        on_20: str = model.ON_20[0],
        ignores_dr: bool = False,
    ) -> model.D10Attack:
        return model.D10Attack(
            c,
            target,
            means,
            skill,
            gm_edge,
            gm_reason,
            cover,
            called_shot,
            extreme_range,
            subdual,
            on_20,
            override,
            ignores_dr,
        )

    return build


def _disengage(c: str, target: str, means: str, *, ignore_dex: bool = False, override: bool = False) -> model.Disengage:
    return model.Disengage(c, target, means, override)


# -- the sheet and the tables -------------------------------------------------------------------


def sheet() -> SheetSpec:
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
        SheetRow("Perception", ("perception",), "The defenders' highest Perception is added to their surprise roll"),
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


def columns() -> tuple[Column, ...]:
    return (
        Column("Group", "The initiative group", lambda c: c.group_name, numeric=False),
        Column("HP", "Hit points, current / max", lambda c: f"{c.hp} / {c.hp_max}"),
        Column("Def", "Defense: what a to-hit roll must reach", lambda c: c.defense),
        Column("DR", "Damage reduction from armor", lambda c: c.dr),
        Column("Min", "A minion dies on any hit", lambda c: "yes" if c.minion else "", numeric=False),
    )


def gauges(c: D10Combatant) -> tuple[Gauge, ...]:
    return (Gauge("HP", c.hp, c.hp_max, "health"),)


def summary(c: D10Combatant) -> str:
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


def stat_line(c: D10Combatant) -> str:
    weapons = ", ".join(f"{w.name} {w.die}" for w in c.weapons) or "no weapon"
    minion = "  minion" if c.minion else ""
    return f"HP {c.hp_max}  Def {c.defense}  DR {c.dr}  melee {c.melee:+d}  ranged {c.ranged:+d}{minion}\n{weapons}"


def token_word(c: D10Combatant) -> str:
    if c.dead:
        return "dead"
    if c.parrying:
        return "parrying"
    return ""


def markers(c: D10Combatant) -> tuple[str, ...]:
    """Its conditions, and "disarmed" while a dropped weapon lies on the floor (kept on the weapon)."""
    words = tuple(c.conditions)
    if any(w.dropped for w in c.weapons) and not c.has("disarmed"):
        words += ("disarmed",)
    return words


# -- the round -----------------------------------------------------------------------------------


def start_procedure() -> StartProcedure:
    def reading(situation: str, face: int) -> str:
        return {
            NONE: "No surprise roll: round 1 is a normal round",
            PARTY: "The Party's lowest Stealth against the Opponents' highest Perception",
            OPPONENTS: "The Opponents' lowest Stealth against the Party's highest Perception",
            STUMBLED: "Both stumbled into each other: a plain d20 each",
        }.get(situation, "")

    return StartProcedure(
        question="Is there a surprise roll?",
        situations=(
            Situation(NONE, "No surprise", "Both sides saw each other coming"),
            Situation(
                PARTY,
                "The Party ambushes",
                "d20 + the Party's lowest Stealth against d20 + the Opponents' highest Perception",
            ),
            Situation(
                OPPONENTS,
                "The Opponents ambush",
                "d20 + the Opponents' lowest Stealth against d20 + the Party's highest Perception",
            ),
            Situation(STUMBLED, "Both stumbled into each other", "A plain d20 each: the higher side has surprise"),
        ),
        die_label="surprise",
        reading=reading,
        surprise_die=False,
        rolls_initiative=True,
    )


def declarations(engine: Table) -> DeclareSpec | None:
    combat: D10Combat = engine.encounter.combat  # type: ignore[assignment]
    open_ = combat.phase is not Phase.FIGHTING or engine.round_over
    declared = combat.declaring if open_ else combat.declared
    targets = combat.declaring_targets if open_ else combat.declared_targets
    missing = tuple(c.id for c in engine.encounter.combatants if not c.down and c.id not in combat.declaring)
    # An attack may name its target (RULES §13): "Attack Ogre" after the plain choices.
    aimed = tuple((f"attack{AT}{c.id}", f"Attack {c.name}") for c in engine.encounter.combatants if not c.down)
    return DeclareSpec(
        choices=(*model.DECLARE, *aimed),
        open=open_,
        declared={cid: key + (f"{AT}{targets[cid]}" if cid in targets else "") for cid, key in declared.items()},
        missing=missing if open_ else (),
        build=_declaration,
    )


AT = "@"  # a declared choice's key and its target's id: "attack@ogre"


def _declaration(cid: str, key: str) -> model.Declare:
    """The Declare a choice makes; "Attack <itself>" (one list serves every row) is a plain Attack."""
    action, _, target = key.partition(AT)
    return model.Declare(cid, action, "" if target == cid else target)


def row_actions(engine: Table, c: D10Combatant) -> tuple[RowAction, ...]:
    if c.side is not Side.OPPONENTS:
        return ()
    actions = []
    others = sorted(
        {x.group for x in engine.encounter.combatants if x.side is Side.OPPONENTS and x.group and x.group != c.group}
    )
    if c.group != c.name:
        actions.append(
            RowAction(
                f"Put {c.name} in a group of its own",
                "It rolls its own initiative d10 from the next round (a boss apart)",
                lambda: act.EditCombatant(c.id, {"group": c.name}),
            )
        )
    for name in others:
        actions.append(
            RowAction(
                f"Move {c.name} to the group {name}",
                f"It rolls with {name} from the next round",
                lambda n=name: act.EditCombatant(c.id, {"group": n}),
            )
        )
    if c.group:
        actions.append(
            RowAction(
                "Back to the Opponents' main group",
                "It rolls with the Opponents from the next round",
                lambda: act.EditCombatant(c.id, {"group": ""}),
            )
        )
    return tuple(actions)


def round_notes(engine: Table) -> tuple[str, ...]:
    combat: D10Combat = engine.encounter.combat  # type: ignore[assignment]
    notes = []
    for timer in combat.timers:
        rounds = "round" if timer.rounds_left == 1 else "rounds"
        notes.append(f"Timer {timer.die} ({timer.face}): {timer.event} in {timer.rounds_left} {rounds}")
    if combat.ambushers is not None and combat.round == combat.first_round and combat.phase is Phase.FIGHTING:
        kind = "full surprise" if combat.full_surprise else "surprise"
        notes.append(f"This round: the {combat.ambushers.value} have {kind}")
    return tuple(notes)


# -- the actions ---------------------------------------------------------------------------------


def action_kinds() -> tuple[ActionSpec, ...]:
    extras = (EDGE, REASON, COVER, CALLED, SUBDUAL, ON_20, IGNORES_DR)
    return (
        ActionSpec(
            "attack",
            "Attack",
            "d20 + melee or ranged against Defense; the move may come before or after",
            "weapon",
            _attack(""),
            targeted=True,
            mode="weapon attack",
            button="Roll the attack",
            rolls=True,
            extras=(*extras[:4], EXTREME, *extras[4:]),
            gm_override=True,
            override_label=OVERRIDE,
        ),
        ActionSpec(
            "cast",
            "Spell attack",
            "d20 + casting against Defense (spells never use weapon tiers)",
            "weapon",
            _attack("casting"),
            targeted=True,
            mode="spell attack",
            button="Roll the spell",
            rolls=True,
            extras=(EDGE, REASON, COVER, ON_20, IGNORES_DR),
            gm_override=True,
            override_label=OVERRIDE,
        ),
        ActionSpec(
            "grapple",
            "Grapple",
            "In place of the attack, no damage: d20 + feats of strength each; the higher grapples (Move 0)",
            "none",
            lambda c, target, means=None, *, ignore_dex=False, override=False: model.Grapple(c, target, override),
            targeted=True,
            button="Roll the grapple",
            rolls=True,
            gm_override=True,
            override_label=OVERRIDE,
        ),
        ActionSpec(
            "break free",
            "Break free",
            "Its attack: d20 + feats of strength against its grappler's; the higher breaks free",
            "none",
            lambda c, override=False: model.BreakFree(c, override),
            button="Roll to break free",
            rolls=True,
            gm_override=True,
            override_label=OVERRIDE,
        ),
        ActionSpec(
            "stand up",
            "Stand up",
            "A prone creature gets up: it takes its move this turn, its attack still free (tripped: its "
            "lost attack, the move stays)",
            "none",
            lambda c: model.StandUp(c),
            button="Stand up",
        ),
        ActionSpec(
            "parry",
            "Parry / dodge",
            "Uses the attack and the move: to-hit rolls against it at disadvantage until its next action",
            "none",
            lambda c, override=False: model.ParryDodge(c, override),
            button="Parry / dodge",
            gm_override=True,
            override_label=OVERRIDE,
        ),
        ActionSpec(
            "disengage",
            "Disengage",
            "A to-hit roll against the foe: success, it moves freely and no foe gets a free attack",
            "weapon",
            _disengage,
            targeted=True,
            button="Roll to disengage",
            rolls=True,
            gm_override=True,
            override_label=OVERRIDE,
        ),
        ActionSpec(
            "item",
            "Use / ready an item",
            "Replaces the attack; the move is still free",
            "text",
            lambda c, text, override=False, pick_up="": model.UseItem(c, text, override, pick_up or ""),
            button="Use it",
            extras=(PICK_UP,),
            gm_override=True,
            override_label=OVERRIDE,
        ),
        ActionSpec(
            "sprint",
            "Sprint / flee",
            "Uses the attack and the move: up to twice the Move; leaving an adjacent foe gives it a free attack",
            "none",
            lambda c, override=False: model.Sprint(c, override),
            button="Sprint",
            gm_override=True,
            override_label=OVERRIDE,
        ),
        ActionSpec(
            "stealth",
            "Stealth",
            "Replaces the attack: d20 + stealth against d20 + the best perception of the foes who could see "
            "it; higher, it is hidden: its next attack on an unsuspecting foe has advantage. The move stays free",
            "none",
            lambda c, override=False: model.Stealth(c, override),
            button="Roll Stealth",
            rolls=True,
            gm_override=True,
            override_label=OVERRIDE,
        ),
        ActionSpec(
            "other",
            "Something else…",
            "In words, for the log",
            "text",
            lambda c, text: act.OtherAction(c, text),
            button="Take this action",
        ),
    )


def action_means(spec: ActionSpec, c: D10Combatant) -> list[tuple[str, str, str]]:
    if spec.uses != "weapon":
        return []
    return [(w.name, w.label, f"{w.name} is dropped: pick it up first" if w.dropped else "") for w in c.weapons]


def action_available(spec: ActionSpec, c: D10Combatant) -> tuple[bool, str]:
    if spec.uses == "weapon" and not c.weapons:
        return False, f"{c.name} has no weapon"
    if spec.key == "stand up" and not c.prone:
        return False, f"{c.name} is not prone"
    if spec.key == "break free" and not c.has("grappled"):
        return False, f"{c.name} is not grappled"
    return True, ""


def action_checks(
    encounter: Encounter,
    spec: ActionSpec,
    c: D10Combatant,
    means: str | None,
    text: str,
    target: Any = None,
    extras: Mapping[str, Any] | None = None,
) -> list[Any] | None:
    """The Action dock's checks for a Group d10 action, the declaration among them; None for one
    the seam checks itself (something else, in words)."""
    keys = model.AS_DECLARED.get(spec.key, (spec.key,))
    override = bool((extras or {}).get("override", False))
    checks: list[Check] = []
    if spec.key in ("attack", "cast", "disengage"):
        if target is None or means is None:
            return [Check("Pick a target", False, "click a foe on the map")]
        try:
            weapon = c.weapon(means)
        except RulesError as error:
            return [Check("The weapon", False, str(error))]
        skill = "casting" if spec.key == "cast" else weapon.skill
        checks += rules.turn_attack_checks(encounter, c)
        checks += rules.attack_checks(encounter, c, target, weapon, skill)
    elif spec.key == "parry":
        turn = encounter.combat.turn
        moved = turn.feet_used if turn is not None and turn.combatant == c.id else 0
        checks.append(Check("Not moved yet", not moved, f"moved {moved:g} ft; Parry / dodge uses the move too"))
    elif spec.key == "grapple":
        if target is None:
            return [Check("Pick a target", False, "click a foe on the map")]
        checks += rules.turn_attack_checks(encounter, c)
        checks += rules.grapple_checks(encounter, c, target)
        strength = f"{c.name} {c.strength:+d} against {target.name} {target.strength:+d} feats of strength"
        checks.append(Check("Opposed roll", True, strength))
    elif spec.key == "break free":
        checks += rules.turn_attack_checks(encounter, c)
        holder = c.holder
        if not c.has("grappled"):
            checks.append(Check("Grappled", False, f"{c.name} is not grappled"))
        elif holder is None or holder not in encounter.by_id():
            checks.append(Check("Its grappler", False, f"nobody holds {c.name} in the app: remove “grappled”"))
        else:
            g = encounter.by_id()[holder]
            words = f"held by {g.name}: {c.name} {c.strength:+d} against {g.strength:+d} feats of strength"
            checks.append(Check("Grappled", True, words))
    elif spec.key == "stand up":
        return rules.stand_checks(encounter, c)
    elif spec.key == "item":
        pick_up = str((extras or {}).get("pick_up") or "")
        checks += rules.item_checks(c, text, pick_up)
        keys = model.PICK_UP_DECLARED if pick_up else keys
    elif spec.key == "other":
        return None
    if spec.key != "other":
        checks += rules.declaration_check(encounter, c, keys, override)
    return checks


def action_notes(
    encounter: Encounter,
    spec: ActionSpec,
    c: D10Combatant,
    means: str | None,
    target: Any,
    extras: Mapping[str, Any] | None = None,
) -> list[tuple[str, str]]:
    notes: list[tuple[str, str]] = []
    if spec.key in ("attack", "cast", "disengage") and target is not None and means is not None:
        try:
            weapon = c.weapon(means)
        except RulesError:
            return notes
        more = dict(extras or {})
        edge = rules.edge_of(
            encounter,
            c,
            target,
            gm_edge=str(more.get("gm_edge", "none")),
            gm_reason=str(more.get("gm_reason", "")),
            cover=bool(more.get("cover", False)),
            called_shot=bool(more.get("called_shot", False)),
            extreme_range=bool(more.get("extreme_range", False)),
            subdual=bool(more.get("subdual", False)),
        )
        skill = "casting" if spec.key == "cast" else weapon.skill
        hit = rules.to_hit(encounter, c, target, skill, edge)
        from lnl_desktop.core.rules.d10.odds import hit_chance

        chance = round(hit_chance(hit) * 100)
        notes.append(("To hit", f"{chance}%: {edge.words()}; d20 {hit.terms()} vs Defense {hit.defense}"))
        if target.minion:
            notes.append(("Minion", f"{target.name} dies on any hit"))
    declared = encounter.combat.declared.get(c.id)  # type: ignore[attr-defined]
    if declared and encounter.combat.phase is Phase.FIGHTING:
        notes.append(("Declared", model.DECLARED_LABEL.get(declared, declared)))
    return notes


# -- what the rules call for, and the GM's tools ---------------------------------------------------


def prompt(engine: Table, item: Any) -> PromptSpec | None:
    """How to ask the GM for a pending free attack, mishap or timer; None for an item the seam asks
    about itself."""
    index = engine.encounter.combat.pending.index(item)
    if item.kind == "free attack":
        striker = engine.combatant(item.who)
        melee = [w.name for w in striker.weapons if w.kind is not WeaponKind.RANGED]
        weapon = Setting("weapon", "With", "The weapon the free attack swings", "means", melee[0] if melee else "")
        on_20 = ON_20
        return PromptSpec(
            "Free attack",
            item.text,
            (weapon, on_20),
            (
                PromptChoice(
                    "Roll the free attack",
                    "d20 + melee against Defense, damage on a hit",
                    lambda v: model.FreeAttack(index, str(v.get("weapon") or ""), str(v.get("on_20", model.ON_20[0]))),
                    rolls=True,
                ),
            ),
        )
    if item.kind == "mishap":
        choice = Setting(
            "choice",
            "Mishap",
            "drops weapon: loses its attack next round; trips prone: loses its next attack (getting up is "
            "part of it, its move stays), attackers gain advantage until it is up unless it parries / "
            "dodges; overextended: its foes gain advantage next round",
            "choice",
            "none",
            choices=model.MISHAPS,
        )
        return PromptSpec(
            "Critical failure",
            item.text,
            (choice,),
            (PromptChoice("Apply", "The GM's pick", lambda v: model.Mishap(index, str(v.get("choice", "none")))),),
        )
    if item.kind == "timer":
        return PromptSpec(
            "Timer",
            item.text,
            (),
            (PromptChoice("Noted", "The event happens now: tell the table", lambda v: model.TimerNoted(index)),),
        )
    return None


def tools(engine: Table) -> tuple[PromptSpec, ...]:
    names = tuple(c.name for c in engine.encounter.combatants)
    if len(names) < 1:
        return ()
    ids = {c.name: c.id for c in engine.encounter.combatants}
    skills = tuple(SKILL_NAMES[s] for s in SKILLS)
    by_label = {SKILL_NAMES[s]: s for s in SKILLS}
    opposed = PromptSpec(
        "Opposed roll",
        "Two combatants roll d20 + a skill each, the higher wins: a grapple (feats of strength), a door shut first",
        (
            Setting("first", "One", "Who rolls first (the attacker of a grapple)", "choice", names[0], choices=names),
            Setting("first_skill", "with", "Its skill", "choice", "feats of strength", choices=skills),
            Setting("second", "Against", "The other", "choice", names[-1], choices=names),
            Setting("second_skill", "with", "Its skill", "choice", "feats of strength", choices=skills),
            Setting("what", "For", "What is at stake, for the log (grapple, the door)", "text", ""),
            Setting(
                "stake",
                "Sets",
                "grapple: the first grapples the other if it wins (Move 0); break free: the first, held by "
                "the other, breaks free if it wins; words only: the log says who won",
                "choice",
                model.STAKES[0],
                choices=model.STAKES,
            ),
        ),
        (
            PromptChoice(
                "Roll both",
                "d20 + skill each",
                lambda v: model.OpposedRoll(
                    ids.get(str(v.get("first")), str(v.get("first"))),
                    by_label.get(str(v.get("first_skill")), "strength"),
                    ids.get(str(v.get("second")), str(v.get("second"))),
                    by_label.get(str(v.get("second_skill")), "strength"),
                    str(v.get("what", "")),
                    "" if v.get("stake", model.STAKES[0]) == model.STAKES[0] else str(v.get("stake")),
                ),
                rolls=True,
            ),
        ),
    )
    timer = PromptSpec(
        "Timer die",
        "Roll a die: that many rounds until the event; the Turns dock counts them down and announces it",
        (
            Setting("die", "Die", "The timer's die", "choice", "d6", choices=("d4", "d6", "d8", "d10", "d12", "d20")),
            Setting("event", "Event", "What happens when it runs out (the ceiling collapses)", "text", ""),
        ),
        (
            PromptChoice(
                "Roll the timer",
                "Rounds until the event",
                lambda v: model.SetTimer(str(v.get("die", "d6")), str(v.get("event", ""))),
                rolls=True,
            ),
        ),
    )
    return (opposed, timer)


def combatant_tools(engine: Table, c: D10Combatant) -> tuple[PromptSpec, ...]:
    """The sheet's saving throw on the GM's call, and letting go of a grapple it holds."""
    by_label = {SKILL_NAMES[s]: s for s in SKILLS}
    low, high = model.SAVE_DC
    save = PromptSpec(
        f"Saving throw: {c.name}",
        "Against a spell or trap: d20 + the fitting skill ≥ the DC the GM sets; a failure brings what is set below",
        (
            Setting("what", "Against", "The spell or trap, for the log (sleep, a dart trap)", "text", ""),
            Setting(
                "skill",
                "Skill",
                "The fitting skill bonus",
                "choice",
                SKILL_NAMES["perception"],
                choices=tuple(SKILL_NAMES[s] for s in SKILLS),
            ),
            Setting("dc", "DC", f"What the roll must reach ({low} to {high})", "int", 11, low, high),
            Setting(
                "condition",
                "On a failure",
                "The condition a failed save brings (sleep: unconscious), or none",
                "choice",
                "none",
                choices=("none", *CONDITIONS),
            ),
            Setting(
                "damage_die",
                "Damage",
                "The damage die a failed save takes (spells and traps never use tiers), or none",
                "choice",
                "none",
                choices=model.SAVE_DICE,
            ),
            Setting("ignores_dr", "Ignores DR", "The effect disregards armor: DR is not taken off", "bool", False),
        ),
        (
            PromptChoice(
                "Roll the save",
                "d20 + skill against the DC",
                lambda v: model.SavingThrow(
                    c.id,
                    by_label.get(str(v.get("skill")), str(v.get("skill"))),
                    int(v.get("dc", 11)),
                    str(v.get("what", "")),
                    "" if v.get("condition", "none") == "none" else str(v.get("condition")),
                    str(v.get("damage_die", "none")),
                    bool(v.get("ignores_dr", False)),
                ),
                rolls=True,
            ),
        ),
    )
    tools = [save]
    for other in engine.encounter.combatants:
        held: D10Combatant = other  # type: ignore[assignment]
        if held.holder == c.id:
            tools.append(
                PromptSpec(
                    f"Let go of {held.name}",
                    f"{c.name} lets its grapple go: {held.name} is no longer grappled",
                    (),
                    (PromptChoice("Let go", "No roll, no action", lambda v, h=held.id: model.LetGo(c.id, h)),),
                )
            )
    return tuple(tools)
