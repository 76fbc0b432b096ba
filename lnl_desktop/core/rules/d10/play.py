"""Group d10 at the table (RULES §13): declarations, the opposed surprise roll, d10 group
initiative, to-hit rolls with advantage, disadvantage and cinematic advantage (each source named),
criticals and mishaps, weapon tiers and DR, minions, wounds, free attacks, opposed rolls and timer
dice. Every roll goes through the dice source, so the GM may type the faces of physical dice."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.events import ActionTaken, Event, Override, RulesEvent, WentDown
from lnl_desktop.core.encounter.model import Encounter, Pending, Phase, Side, TurnSlot
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.grid import token_distance_ft
from lnl_desktop.core.map.sight import reach_blocker
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.common import Check, pending_item
from lnl_desktop.core.rules.d10.model import (
    SKILL_NAMES,
    D10Combat,
    D10Combatant,
    D10Kind,
    D10Options,
    D10Weapon,
    Tier,
    Timer,
)

if TYPE_CHECKING:
    from lnl_desktop.core.engine.engine import Engine

NAME = "d10"

# What a combatant may declare (RULES §13's turn), by key.
DECLARE = (
    ("attack", "Attack"),
    ("cast", "Cast a spell"),
    ("grapple", "Grapple"),
    ("break free", "Break free"),
    ("parry", "Parry / dodge"),
    ("move", "Move only"),
    ("disengage", "Disengage"),
    ("item", "Use / ready an item"),
    ("sprint", "Sprint / flee"),
    ("other", "Something else"),
)
DECLARED_LABEL = dict(DECLARE)
# A grapple is an attack of its own kind (RULES §13's non-damage attacks): declared "attack" covers it.
AS_DECLARED = {"grapple": ("grapple", "attack"), "break free": ("break free", "grapple", "attack")}
# A disarmed creature that declared an attack picks its weapon up instead: the disarm changed things.
PICK_UP_DECLARED = ("item", "attack", "cast")
EDGE = ("none", "advantage", "cinematic advantage", "disadvantage")  # the GM's own, with a reason
ON_20 = ("double damage", "disarm", "knock prone", "grapple")  # a critical's effect (RULES §13)
MISHAPS = ("none", "drops weapon", "trips prone", "overextended")  # a critical failure's, on the GM's pick
# What an opposed roll settles besides words (RULES §13): a grapple set, or one broken.
STAKES = ("words only", "grapple", "break free")
SAVE_DC = (1, 40)  # the DCs a GM may set for a saving throw
SAVE_DICE = ("none", "d4", "d6", "d8", "d10", "d12", "d20")  # a failed save's damage die (no tiers)


# -- the actions ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Declare:
    """Declare ``combatant``'s action for the coming round; during a round, a logged GM override."""

    combatant: str
    action: str


@dataclass(frozen=True)
class D10Attack:
    """An attack: d20 + the skill (melee, ranged or casting) against the target's Defense."""

    attacker: str
    target: str
    weapon: str
    skill: str = ""  # "" = the weapon's (melee or ranged); "casting" for a spell attack
    gm_edge: str = "none"
    gm_reason: str = ""
    cover: bool = False
    called_shot: bool = False
    extreme_range: bool = False
    subdual: bool = False
    on_20: str = ON_20[0]
    override: bool = False  # the GM lets it through against the declaration
    ignores_dr: bool = False  # a weapon or spell that disregards armor (the GM's toggle)


@dataclass(frozen=True)
class FreeAttack:
    """Take a queued free attack (``combat.pending[index]``)."""

    index: int
    weapon: str = ""
    on_20: str = ON_20[0]


@dataclass(frozen=True)
class ParryDodge:
    combatant: str
    override: bool = False


@dataclass(frozen=True)
class Disengage:
    """A to-hit roll against the foe: success, it moves freely this turn and no foe gets a free attack."""

    combatant: str
    target: str
    weapon: str
    override: bool = False


@dataclass(frozen=True)
class UseItem:
    """Use or ready an item in place of the attack; ``pick_up`` names a dropped weapon taken up again."""

    combatant: str
    text: str
    override: bool = False
    pick_up: str = ""


@dataclass(frozen=True)
class Grapple:
    """A grapple in place of the attack: d20 + feats of strength each, the attacker must roll higher."""

    attacker: str
    target: str
    override: bool = False


@dataclass(frozen=True)
class BreakFree:
    """A grappled creature's turn: d20 + feats of strength against its grappler's; higher breaks free."""

    combatant: str
    override: bool = False


@dataclass(frozen=True)
class LetGo:
    """The grappler lets its hold go (no roll, no action)."""

    grappler: str
    target: str


@dataclass(frozen=True)
class StandUp:
    """A prone creature stands: its move action this turn."""

    combatant: str


@dataclass(frozen=True)
class SavingThrow:
    """A save against a spell or trap the GM calls for: d20 + the fitting skill ≥ the DC; a failure
    brings the condition and the damage the GM set (after DR unless it ignores DR)."""

    combatant: str
    skill: str
    dc: int
    what: str = ""
    condition: str = ""
    damage_die: str = "none"
    ignores_dr: bool = False


@dataclass(frozen=True)
class Sprint:
    combatant: str
    override: bool = False


@dataclass(frozen=True)
class Mishap:
    """The GM's pick of a critical failure's mishap (``combat.pending[index]``)."""

    index: int
    choice: str = "none"


@dataclass(frozen=True)
class OpposedRoll:
    """Two combatants' d20 + a skill each (a grapple, a door shut first): the higher wins."""

    first: str
    first_skill: str
    second: str
    second_skill: str
    what: str = ""
    stake: str = ""  # "grapple" or "break free": the win sets or clears the grapple (else words only)


@dataclass(frozen=True)
class TimerNoted:
    """The GM has announced a timer's event to the table (``combat.pending[index]``)."""

    index: int


@dataclass(frozen=True)
class SetTimer:
    """A timer die: roll it, count the rounds down, announce the event when it comes."""

    die: str
    event: str


# -- who may strike, and with what ------------------------------------------------------------


def _c(engine: Engine, cid: str) -> D10Combatant:
    return engine.combatant(cid)  # type: ignore[no-any-return]


def _combat(encounter: Encounter) -> D10Combat:
    return encounter.combat  # type: ignore[return-value]


def distance(encounter: Encounter, a: D10Combatant, b: D10Combatant) -> float | None:
    ta, tb = encounter.tokens.get(a.id), encounter.tokens.get(b.id)
    if ta is None or tb is None:
        return None
    grid = encounter.map
    return token_distance_ft(ta.cell, a.size, tb.cell, b.size, grid.diagonal, grid.feet_per_cell)


def full_surprised(encounter: Encounter, c: D10Combatant) -> bool:
    combat = _combat(encounter)
    return bool(
        combat.full_surprise
        and combat.ambushers is not None
        and c.side is combat.ambushers.other
        and combat.round == combat.first_round
    )


def may_free_attack(encounter: Encounter, striker: D10Combatant, mover: D10Combatant) -> bool:
    """A foe next to the mover strikes when it moves away: not down, not taken by full surprise,
    not against a combatant that disengaged; once per mover per round."""
    if striker.down or full_surprised(encounter, striker) or mover.disengaged:
        return False
    return engagement.free_attack_room(encounter, striker, mover, 1_000)


def provocations(engine: Engine, mover: D10Combatant, path: list[tuple[int, int]]) -> list:
    e = engine.encounter
    return engagement.provocations(e, mover, path, lambda c: 5.0, lambda s, m: may_free_attack(e, s, m))


def after_move(engine: Engine, mover: D10Combatant, path: list[tuple[int, int]], forced: bool) -> list[Event]:
    if forced or mover.disengaged:
        return []
    strikers = [cid for step in provocations(engine, mover, path) for cid in step.attackers]
    return engagement.queue(
        engine.encounter,
        mover,
        strikers,
        "free attack",
        lambda name: f"{name} may make a free attack on {mover.name} (moved away from it)",
        f"{mover.name} moves away",
        NAME,
    )


# -- to hit ---------------------------------------------------------------------------------------


@dataclass
class Edge:
    """The sources of advantage and disadvantage on a roll, by name, and what they come to."""

    advantage: list[str] = field(default_factory=list)
    cinematic: list[str] = field(default_factory=list)
    disadvantage: list[str] = field(default_factory=list)
    cancels: bool = True  # [D] sources of each cancel to a plain roll; off: the side with more sources wins

    @property
    def net(self) -> int:
        """+1 the roll is up (advantage), -1 down, 0 plain."""
        up, down = len(self.advantage) + len(self.cinematic), len(self.disadvantage)
        if up and down:
            return 0 if self.cancels else (up > down) - (up < down)
        return (up > 0) - (down > 0)

    @property
    def dice(self) -> int:
        """d20s rolled: 3 cinematic, 2 advantage or disadvantage, 1 when they cancel or none applies."""
        if self.net > 0:
            return 3 if self.cinematic else 2
        return 2 if self.net < 0 else 1

    @property
    def keep_high(self) -> bool:
        return self.net >= 0

    @property
    def mode(self) -> str:
        if self.dice == 1:
            return "cancelled" if (self.advantage or self.cinematic) and self.disadvantage else "normal"
        if self.dice == 3:
            return "cinematic advantage"
        return "advantage" if self.keep_high else "disadvantage"

    def words(self) -> str:
        parts = [f"advantage ({', '.join(self.advantage)})"] if self.advantage else []
        if self.cinematic:
            parts.append(f"cinematic advantage ({', '.join(self.cinematic)})")
        if self.disadvantage:
            parts.append(f"disadvantage ({', '.join(self.disadvantage)})")
        if not parts:
            return "a plain d20"
        joined = "; ".join(parts)
        if self.mode == "cancelled":
            return f"{joined}: they cancel, a plain d20"
        if (self.advantage or self.cinematic) and self.disadvantage:
            return f"{joined}: the more sources win, {self.mode}"
        return joined


@dataclass
class ToHit:
    skill: str
    skill_bonus: int
    bloodied: bool
    defense: int
    edge: Edge

    @property
    def bonus(self) -> int:
        return self.skill_bonus - (2 if self.bloodied else 0)

    def terms(self) -> str:
        text = f"{self.skill_bonus:+d} {SKILL_NAMES[self.skill]}"
        return text + (" -2 at half HP" if self.bloodied else "")

    def hits(self, face: int) -> bool:
        return face == 20 or (face != 1 and face + self.bonus >= self.defense)


def edge_of(
    encounter: Encounter,
    attacker: D10Combatant,
    target: D10Combatant,
    *,
    gm_edge: str = "none",
    gm_reason: str = "",
    cover: bool = False,
    called_shot: bool = False,
    extreme_range: bool = False,
    subdual: bool = False,
) -> Edge:
    """Every source of advantage or disadvantage on ``attacker``'s roll against ``target``."""
    combat = _combat(encounter)
    edge = Edge(cancels=bool(getattr(encounter.options, "advantage_cancels", True)))
    if combat.ambushers is not None and combat.round == combat.first_round and combat.phase is Phase.FIGHTING:
        if attacker.side is combat.ambushers:
            edge.advantage.append("surprise")
        elif not combat.full_surprise:
            edge.disadvantage.append("surprised")
    if target.parrying:
        edge.disadvantage.append(f"{target.name} parries / dodges")
    if target.prone:
        edge.advantage.append(f"{target.name} is prone")
    if target.overextended_round is not None and target.overextended_round == combat.round:
        edge.advantage.append(f"{target.name} overextended")
    if cover:
        edge.disadvantage.append("cover")
    if called_shot:
        edge.disadvantage.append("called shot")
    if extreme_range:
        edge.disadvantage.append("extreme range")
    if subdual:
        edge.disadvantage.append("subdual")
    if attacker.has("exhausted"):
        edge.disadvantage.append(f"{attacker.name} is exhausted")
    reason = gm_reason.strip() or "the GM"
    if gm_edge == "advantage":
        edge.advantage.append(reason)
    elif gm_edge == "cinematic advantage":
        edge.cinematic.append(reason)
    elif gm_edge == "disadvantage":
        edge.disadvantage.append(reason)
    return edge


def to_hit(encounter: Encounter, attacker: D10Combatant, target: D10Combatant, skill: str, edge: Edge) -> ToHit:
    return ToHit(skill, attacker.skill(skill), attacker.bloodied, target.defense, edge)


def roll_d20s(dice: DiceSource, edge: Edge, purpose: str) -> tuple[list[int], int]:
    """The d20s the edge asks for, and the one kept (the higher, or the lower with disadvantage)."""
    faces = [roll_plain(dice, 20, purpose).face for _ in range(edge.dice)]
    return faces, (max(faces) if edge.keep_high else min(faces))


# -- damage ------------------------------------------------------------------------------------------


def tier_of(weapon: D10Weapon, options: D10Options) -> Tier:
    return weapon.tier if options.weapon_tiers else Tier.COMMON


def roll_weapon(dice: DiceSource, weapon: D10Weapon, options: D10Options) -> tuple[list[int], int]:
    tier = tier_of(weapon, options)
    count = 1 if tier is Tier.COMMON else 2
    faces = [roll_plain(dice, weapon.sides, f"{weapon.name} damage {weapon.die}").face for _ in range(count)]
    kept = max(faces) if tier is Tier.MASTERWORK else min(faces)
    return faces, kept


def damage_after(rolled: int, critical: bool, dr: int) -> int:
    """The die (doubled on a critical), minus DR, not below 0: a d6 5 against DR 2 is 3; critical, 10."""
    return max(0, rolled * (2 if critical else 1) - dr)


# -- the engine's handlers -------------------------------------------------------------------------


def declaration_check(encounter: Encounter, c: D10Combatant, keys: tuple[str, ...], override: bool) -> list[Check]:
    """Acting as declared: what ``c`` declared for this round must be one of ``keys`` (or a GM override)."""
    declared = _combat(encounter).declared.get(c.id)
    if declared is None or declared in keys or declared == "other":
        return []
    said = DECLARED_LABEL.get(declared, declared)
    return [
        Check(
            "As declared",
            override,
            f"{c.name} declared “{said}”"
            + (" (GM override)" if override else "; acting otherwise needs a GM override"),
        )
    ]


def _overridden(engine: Engine, c: D10Combatant, keys: tuple[str, ...], what: str, override: bool) -> list[Event]:
    declared = _combat(engine.encounter).declared.get(c.id)
    if not override or declared is None or declared in keys or declared == "other":
        return []
    said = DECLARED_LABEL.get(declared, declared)
    text = f"GM override: {c.name} declared “{said}” and {what} instead"
    return [Override(round=engine.encounter.combat.round, text=text, actors=(c.id,))]


def take_action(
    engine: Engine,
    c: D10Combatant,
    key: str,
    title: str,
    checks: list[Check],
    override: bool,
    does: str,
    detail: str = "",
    keys: tuple[str, ...] | None = None,
) -> list[Event]:
    """Take the turn's action ``key`` once its checks hold, the declaration among them (or the GM's
    override, logged): its next action has come, so a parry / dodge in force ends."""
    keys = keys or AS_DECLARED.get(key, (key,))
    engine.require(
        title,
        [*engine.turn_checks(c, needs_action=True), *checks, *declaration_check(engine.encounter, c, keys, override)],
    )
    engine.use_action(c, "attack" if key == "cast" else key, detail)
    c.parrying = False
    return _overridden(engine, c, keys, does, override)


def shown_d20(faces: list[int], face: int, edge: Edge) -> str:
    """'d20 14', or '3/14 (advantage: 14)' when more than one d20 was rolled."""
    return f"d20 {face}" if len(faces) == 1 else f"{'/'.join(str(f) for f in faces)} ({edge.mode}: {face})"


def turn_attack_checks(encounter: Encounter, c: D10Combatant) -> list[Check]:
    combat = encounter.combat
    lost = c.lost_attack_round is not None and c.lost_attack_round == combat.round
    return [Check("Its attack this round", not lost, f"{c.name} lost its attack this round (a mishap)")]


def declare(engine: Engine, a: Declare, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    combat = _combat(e)
    c = _c(engine, a.combatant)
    if a.action not in DECLARED_LABEL:
        raise IllegalAction(f"{c.name}: declare", [f"{a.action!r} is not an action to declare"])
    label = DECLARED_LABEL[a.action]
    under_way = combat.phase is Phase.FIGHTING and not engine.round_over
    if not under_way:
        if combat.declaring.get(c.id) == a.action:
            raise IllegalAction(f"{c.name}: declare", [f"already declared {label}"])
        combat.declaring[c.id] = a.action
        coming = "round 1" if combat.phase is not Phase.FIGHTING else f"round {combat.round + 1}"
        return [
            ActionTaken(
                round=combat.round,
                text=f"{c.name} declares for {coming}: {label}",
                actors=(c.id,),
                combatant=c.id,
                action="declare",
                detail=a.action,
            )
        ]
    old = combat.declared.get(c.id)
    if old == a.action:
        raise IllegalAction(f"{c.name}: declare", [f"already declared {label}"])
    combat.declared[c.id] = a.action
    was = DECLARED_LABEL.get(old, "nothing") if old else "nothing"
    return [
        Override(
            round=combat.round,
            text=f"GM override: {c.name}'s declared action changes from {was} to {label}",
            actors=(c.id,),
        )
    ]


def attack(engine: Engine, a: D10Attack, dice: DiceSource) -> list[Event]:
    c, t = _c(engine, a.attacker), _c(engine, a.target)
    weapon = c.weapon(a.weapon)
    skill = a.skill or weapon.skill
    checks = turn_attack_checks(engine.encounter, c) + attack_checks(engine.encounter, c, t, weapon, skill)
    key = "cast" if skill == "casting" else "attack"
    events = take_action(
        engine, c, key, f"{c.name}: attack", checks, a.override, "attacks", f"{weapon.name} at {t.name}"
    )
    edge = edge_of(
        engine.encounter,
        c,
        t,
        gm_edge=a.gm_edge,
        gm_reason=a.gm_reason,
        cover=a.cover,
        called_shot=a.called_shot,
        extreme_range=a.extreme_range,
        subdual=a.subdual,
    )
    return events + strike(
        engine, c, t, weapon, skill, edge, dice, subdual=a.subdual, on_20=a.on_20, ignores_dr=a.ignores_dr
    )


def attack_checks(encounter: Encounter, c: D10Combatant, t: D10Combatant, weapon: D10Weapon, skill: str) -> list[Check]:
    checks = [
        Check(
            "A foe to strike",
            t.id != c.id and not t.down,
            f"{c.name} cannot attack itself" if t.id == c.id else f"{t.name} is down",
        )
    ]
    if weapon.dropped:
        checks.append(Check("In hand", False, f"{weapon.name} is dropped: a Use / ready an item picks it up"))
    feet = distance(encounter, c, t)
    if feet is None:
        checks.append(Check("Both on the map", False, "place both tokens on the map"))
    elif skill == "ranged" or weapon.kind is D10Kind.RANGED:
        most = weapon.max_range_ft
        checks.append(
            Check(
                "Within range",
                most is None or feet <= most,
                f"{feet:g} ft"
                + (f" of {most} ft" if most else "")
                + ("" if most is None or feet <= most else ": too far"),
            )
        )
    elif skill == "casting":
        checks.append(Check("A target", True, f"{feet:g} ft away"))
    else:
        checks.append(Check(f"Within {weapon.reach} ft", feet <= weapon.reach, f"{t.name} is {feet:g} ft away"))
        tc, tt = encounter.tokens[c.id], encounter.tokens[t.id]
        wall = None
        if feet <= weapon.reach:
            wall = reach_blocker(encounter.map, tc.cell, c.size, tt.cell, t.size, weapon.reach)
        if wall is not None:
            checks.append(Check("No wall between", False, f"{wall} stands between {c.name} and {t.name}"))
    return checks


def strike(
    engine: Engine,
    c: D10Combatant,
    t: D10Combatant,
    weapon: D10Weapon,
    skill: str,
    edge: Edge,
    dice: DiceSource,
    *,
    subdual: bool = False,
    on_20: str = ON_20[0],
    what: str = "attacks",
    ignores_dr: bool = False,
) -> list[Event]:
    e = engine.encounter
    options: D10Options = e.options  # type: ignore[assignment]
    rnd = e.combat.round
    hit = to_hit(e, c, t, skill, edge)
    faces, face = roll_d20s(dice, edge, f"d20 to hit {t.name}")
    shown = shown_d20(faces, face, edge)
    reasons = "" if edge.mode == "normal" else f"; {edge.words()}"
    head = (
        f"{c.name} {what} {t.name} with {weapon.name}: {shown} {hit.terms()} = {face + hit.bonus} "
        f"vs Defense {t.defense}{reasons}"
    )
    detail: dict[str, int | float | str | bool | None] = {
        "attacker": c.id,
        "target": t.id,
        "weapon": weapon.name,
        "d20": face,
        "dice": len(faces),
        "edge": edge.mode,
        # The roll in words, for the Action dock's result.
        "to_hit": f"{shown} {hit.terms()} = {face + hit.bonus}",
        "defense": t.defense,
        "edge_words": "" if edge.mode == "normal" else edge.words(),
        "what": what,
    }
    if not hit.hits(face):
        events: list[Event] = []
        text = f"{head}: miss" + (" (natural 1: critical failure)" if face == 1 else "")
        events.append(RulesEvent(round=rnd, text=text, actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail))
        if face == 1:
            e.combat.pending.append(
                Pending(
                    kind="mishap",
                    who=c.id,
                    text=f"{c.name} rolled a natural 1: pick a mishap (drops weapon, trips prone, overextended)",
                    urgent=True,
                    round=rnd,
                )
            )
        return events
    critical = face == 20
    if critical and on_20 == "grapple":
        set_grapple(c, t)
        text = f"{head}: natural 20, critical: no damage, {c.name} grapples {t.name}"
        detail.update(critical=True, outcome=f"{c.name} grapples {t.name}")
        held = f"{t.name} is grappled by {c.name}: Move 0 until it breaks free (an opposed roll on its turn)"
        return [
            RulesEvent(round=rnd, text=text, actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail),
            Override(round=rnd, text=f"Critical: {held}", actors=(t.id,)),
        ]
    rolled_faces, rolled = roll_weapon(dice, weapon, options)
    double = critical and on_20 == "double damage"
    dr = 0 if ignores_dr else t.dr
    amount = damage_after(rolled, double, dr)
    tier = tier_of(weapon, options)
    dice_text = (
        f"{weapon.die} {rolled}"
        if tier is Tier.COMMON
        else f"{weapon.die} {'/'.join(str(f) for f in rolled_faces)} ({tier.value}: {rolled})"
    )
    armor = " (ignores DR)" if ignores_dr and t.dr else f" -{t.dr} DR" if t.dr else ""
    formula = f"{dice_text}{' x2 critical' if double else ''}{armor} = {amount}"
    detail.update(damage=amount, critical=critical, damage_roll=formula, dr=dr, ignores_dr=ignores_dr)
    events = []
    before = t.hp
    if t.minion:
        t.hp = 0
        t.dead = True
        outcome = f"{t.name} is a minion: dies on any hit"
    else:
        t.hp = max(0, t.hp - amount)
        outcome = f"{t.name} {t.hp}/{t.hp_max} HP"
    detail.update(outcome=outcome)
    crit = " (natural 20: critical)" if critical else ""
    text = f"{head}{crit}: hit; damage {formula} → {outcome}"
    events.append(RulesEvent(round=rnd, text=text, actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail))
    if critical and on_20 == "disarm" and not t.down:
        events.append(Override(round=rnd, text=f"Critical: {disarm(t)}", actors=(t.id,)))
    elif critical and on_20 == "knock prone" and not t.down:
        t.add_condition("prone")
        words = "attackers have advantage against it until it stands (its move action)"
        events.append(Override(round=rnd, text=f"Critical: {t.name} is knocked prone: {words}", actors=(t.id,)))
    if t.minion:
        events.append(WentDown(round=rnd, text=f"{t.name} dies", actors=(t.id,), combatant=t.id, overkill=0))
    elif t.hp != before:
        events += _hp_effects(engine, t, subdual)
    if t.down:
        events += engagement.lapse(engine.encounter, "free attack", t)
        events += release_all(engine, t)
    return events


# -- disarm, prone and grapples (RULES §13) ----------------------------------------------------------


def disarm(t: D10Combatant) -> str:
    """Drop ``t``'s weapon in hand (its first one not dropped): the log's words of what happened."""
    weapon = next((w for w in t.weapons if not w.dropped), None)
    if weapon is None:
        return f"{t.name} is disarmed, but holds no weapon to drop"
    index = t.weapons.index(weapon)
    t.weapons[index] = weapon.model_copy(update={"dropped": True})
    return f"{t.name} is disarmed: {weapon.name} is dropped, unusable until a Use / ready an item picks it up"


def set_grapple(grappler: D10Combatant, held: D10Combatant) -> None:
    held.add_condition("grappled")
    held.grappled_by = grappler.id


def release(held: D10Combatant) -> None:
    held.drop_condition("grappled")
    held.grappled_by = None


def release_all(engine: Engine, grappler: D10Combatant) -> list[Event]:
    """A grappler that goes down lets go of whoever it held."""
    events: list[Event] = []
    for other in engine.encounter.combatants:
        held: D10Combatant = other  # type: ignore[assignment]
        if held.holder == grappler.id:
            release(held)
            text = f"{held.name} is no longer grappled ({grappler.name} is down)"
            events.append(Override(round=engine.encounter.combat.round, text=text, actors=(held.id,)))
    return events


def grapple_checks(encounter: Encounter, c: D10Combatant, t: D10Combatant) -> list[Check]:
    checks = [
        Check(
            "A foe to seize",
            t.id != c.id and not t.down,
            f"{c.name} cannot grapple itself" if t.id == c.id else f"{t.name} is down",
        )
    ]
    feet = distance(encounter, c, t)
    if feet is None:
        checks.append(Check("Both on the map", False, "place both tokens on the map"))
    else:
        checks.append(Check("Within 5 ft", feet <= 5, f"{t.name} is {feet:g} ft away"))
    if t.holder == c.id:
        checks.append(Check("Not held yet", False, f"{c.name} already holds {t.name}"))
    return checks


def break_free_checks(engine: Engine, c: D10Combatant) -> list[Check]:
    holder = c.holder
    if not c.has("grappled"):
        return [Check("Grappled", False, f"{c.name} is not grappled")]
    if holder is None or holder not in engine.encounter.by_id():
        return [
            Check(
                "Its grappler",
                False,
                f"nobody holds {c.name} in the app: the GM removes “grappled” on the sheet, or uses an opposed roll",
            )
        ]
    return [Check("Grappled", True, f"held by {_c(engine, holder).name}")]


def _contest(engine: Engine, x: D10Combatant, y: D10Combatant, dice: DiceSource, what: str) -> tuple[int, int, str]:
    """d20 + feats of strength each (x first): the totals and the words."""
    bx, by = x.strength, y.strength
    fx = roll_plain(dice, 20, f"d20 for {x.name} ({SKILL_NAMES['strength']})").face
    fy = roll_plain(dice, 20, f"d20 for {y.name} ({SKILL_NAMES['strength']})").face
    words = (
        f"{what}: {x.name} d20 {fx} {bx:+d} feats of strength = {fx + bx} against "
        f"{y.name} d20 {fy} {by:+d} feats of strength = {fy + by}"
    )
    return fx + bx, fy + by, words


def _contest_event(
    engine: Engine, name: str, said: str, result: str, totals: tuple[int, int], **who: str
) -> RulesEvent:
    """The log line of a grapple or a break-free: the two totals, who won, the rolls in words; ``who``
    names the two sides (first the one who rolled first), as the results read them."""
    first, second = totals
    detail: dict[str, int | float | str | bool | None] = {
        **who,
        "first": first,
        "second": second,
        "won": first > second,
        "rolls": said.split(": ", 1)[1],
    }
    return RulesEvent(
        round=engine.encounter.combat.round,
        text=f"{said}: {result}",
        actors=tuple(who.values()),
        ruleset=NAME,
        name=name,
        detail=detail,
    )


def grapple(engine: Engine, a: Grapple, dice: DiceSource) -> list[Event]:
    c, t = _c(engine, a.attacker), _c(engine, a.target)
    checks = turn_attack_checks(engine.encounter, c) + grapple_checks(engine.encounter, c, t)
    events = take_action(engine, c, "grapple", f"{c.name}: grapple", checks, a.override, "grapples", t.name)
    tx, ty, said = _contest(engine, c, t, dice, f"{c.name} grapples {t.name}")
    won = tx > ty
    if won:
        set_grapple(c, t)
        result = f"{t.name} is grappled by {c.name}: Move 0 until it breaks free"
    else:
        result = f"{t.name} evades the grapple" + (" (a tie: the grappler must roll higher)" if tx == ty else "")
    return [*events, _contest_event(engine, "grapple", said, result, (tx, ty), attacker=c.id, target=t.id)]


def break_free(engine: Engine, a: BreakFree, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    checks = turn_attack_checks(engine.encounter, c) + break_free_checks(engine, c)
    holder = c.holder
    holder_name = _c(engine, holder).name if holder and holder in engine.encounter.by_id() else "?"
    events = take_action(
        engine, c, "break free", f"{c.name}: break free", checks, a.override, "tries to break free", holder_name
    )
    assert holder is not None
    g = _c(engine, holder)
    tx, ty, said = _contest(engine, c, g, dice, f"{c.name} tries to break free of {g.name}")
    won = tx > ty
    if won:
        release(c)
        result = f"{c.name} breaks free"
    else:
        result = f"{c.name} is still grappled" + (" (a tie: it must roll higher)" if tx == ty else "")
    return [*events, _contest_event(engine, "break free", said, result, (tx, ty), combatant=c.id, grappler=g.id)]


def let_go(engine: Engine, a: LetGo, dice: DiceSource) -> list[Event]:
    g, t = _c(engine, a.grappler), _c(engine, a.target)
    if t.holder != g.id:
        raise IllegalAction(f"{g.name}: let go", [f"{g.name} does not hold {t.name}"])
    release(t)
    text = f"{g.name} lets go of {t.name}: it is no longer grappled"
    return [
        RulesEvent(round=engine.encounter.combat.round, text=text, actors=(g.id, t.id), ruleset=NAME, name="let go")
    ]


def stand_checks(encounter: Encounter, c: D10Combatant) -> list[Check]:
    checks = [Check("Prone", c.prone, "" if c.prone else f"{c.name} is not prone")]
    if c.stood_up:
        checks.append(Check("Its move", False, f"{c.name} already stood up this turn"))
    return checks


def stand_up(engine: Engine, a: StandUp, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    engine.require(
        f"{c.name}: stand up", [*engine.turn_checks(c, needs_action=False), *stand_checks(engine.encounter, c)]
    )
    c.drop_condition("prone")
    c.stood_up = True
    text = f"{c.name} stands up: no longer prone; standing takes its move this turn"
    return [
        RulesEvent(
            round=engine.encounter.combat.round, text=text, actors=(c.id,), ruleset=NAME, name="stand up", detail={}
        )
    ]


# -- saving throws ---------------------------------------------------------------------------------


def saving_throw(engine: Engine, a: SavingThrow, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    title = f"{c.name}: saving throw"
    low, high = SAVE_DC
    problems = []
    if not low <= a.dc <= high:
        problems.append(f"the DC must be {low} to {high} (not {a.dc})")
    if a.skill not in SKILL_NAMES:
        problems.append(f"{a.skill!r} is not a skill ({', '.join(SKILL_NAMES.values())})")
    if a.damage_die not in SAVE_DICE:
        problems.append(f"{a.damage_die!r} is not a damage die ({', '.join(SAVE_DICE)})")
    if c.dead:
        problems.append(f"{c.name} is dead")
    if problems:
        raise IllegalAction(title, problems)
    rnd = engine.encounter.combat.round
    bonus = c.skill(a.skill)
    face = roll_plain(dice, 20, f"save d20 for {c.name} ({SKILL_NAMES[a.skill]}, DC {a.dc})").face
    total = face + bonus
    saved = total >= a.dc
    what = f" against {a.what.strip()}" if a.what.strip() else ""
    roll = f"d20 {face} {bonus:+d} {SKILL_NAMES[a.skill]} = {total} vs DC {a.dc}"
    detail: dict[str, int | float | str | bool | None] = {
        "combatant": c.id,
        "d20": face,
        "total": total,
        "dc": a.dc,
        "saved": saved,
        "roll": roll,
        "what": a.what.strip(),
    }
    condition = a.condition.strip()
    consequences: list[str] = []
    follow: list[Event] = []
    if not saved:
        if condition and condition.casefold() != "none":
            if c.add_condition(condition):
                consequences.append(f"{c.name} is {condition}")
            else:
                consequences.append(f"{c.name} was already {condition}")
        if a.damage_die != "none" and not c.down:
            rolled = roll_plain(dice, int(a.damage_die[1:]), f"{a.damage_die} damage{what}").face
            dr = 0 if a.ignores_dr else c.dr
            amount = damage_after(rolled, False, dr)
            armor = " (ignores DR)" if a.ignores_dr and c.dr else f" -{c.dr} DR" if c.dr else ""
            before = c.hp
            if c.minion and amount > 0:
                c.hp, c.dead = 0, True
                outcome = f"{c.name} is a minion: dies"
                follow.append(WentDown(round=rnd, text=f"{c.name} dies", actors=(c.id,), combatant=c.id, overkill=0))
            else:
                c.hp = max(0, c.hp - amount)
                outcome = f"{c.name} {c.hp}/{c.hp_max} HP"
                if c.hp != before:
                    follow += _hp_effects(engine, c, False)
            formula = f"{a.damage_die} {rolled}{armor} = {amount}"
            detail.update(damage=amount, damage_roll=formula, outcome=outcome)
            consequences.append(f"damage {formula} → {outcome}")
            if c.down:
                follow += engagement.lapse(engine.encounter, "free attack", c)
                follow += release_all(engine, c)
        if not consequences:
            consequences.append("the GM tells what follows")
    result = "saved" if saved else "failed: " + "; ".join(consequences)
    text = f"{c.name} saves{what} ({SKILL_NAMES[a.skill]}): {roll}: {result}"
    return [
        RulesEvent(round=rnd, text=text, actors=(c.id,), ruleset=NAME, name="save", detail=detail),
        *follow,
    ]


def _hp_effects(engine: Engine, t: D10Combatant, subdual: bool) -> list[Event]:
    """Exactly 1 HP: a lasting wound (not from subdual); 0 HP: dead, or unconscious from subdual."""
    rnd = engine.encounter.combat.round
    if t.hp == 1 and not subdual and not t.has("wounded"):
        t.conditions.append("wounded")
        return [Override(round=rnd, text=f"{t.name} is at 1 HP: a lasting wound (Wounded)", actors=(t.id,))]
    if t.hp == 0:
        if subdual:
            t.add_condition("unconscious")
            return [
                WentDown(
                    round=rnd,
                    text=f"{t.name} is knocked unconscious (subdual)",
                    actors=(t.id,),
                    combatant=t.id,
                    overkill=0,
                )
            ]
        t.dead = True
        return [WentDown(round=rnd, text=f"{t.name} dies (0 HP)", actors=(t.id,), combatant=t.id, overkill=0)]
    return []


def free_attack(engine: Engine, a: FreeAttack, dice: DiceSource) -> list[Event]:
    pending = engine.encounter.combat.pending
    item = pending_item(engine.encounter, a.index, "free attack", "Free attack")
    c, t = _c(engine, item.who), _c(engine, item.target or "")
    melee = [w for w in c.weapons if w.kind is not D10Kind.RANGED]
    weapon = c.weapon(a.weapon) if a.weapon else (melee[0] if melee else None)
    if weapon is None:
        raise IllegalAction(f"{c.name}: free attack", [f"{c.name} has no melee weapon"])
    if c.down or t.down:
        raise IllegalAction(f"{c.name}: free attack", [f"{(c if c.down else t).name} is down"])
    pending.pop(a.index)
    edge = edge_of(engine.encounter, c, t)
    return strike(engine, c, t, weapon, "melee", edge, dice, on_20=a.on_20, what="makes a free attack on")


def mishap(engine: Engine, a: Mishap, dice: DiceSource) -> list[Event]:
    item = pending_item(engine.encounter, a.index, "mishap", "Mishap")
    if a.choice not in MISHAPS:
        raise IllegalAction("Mishap", [f"{a.choice!r} is not one of: {', '.join(MISHAPS)}"])
    engine.encounter.combat.pending.pop(a.index)
    c = _c(engine, item.who)
    rnd = engine.encounter.combat.round
    if a.choice == "none":
        return [Override(round=rnd, text=f"{c.name}'s critical failure: no mishap (the GM's pick)", actors=(c.id,))]
    if a.choice == "drops weapon":
        c.lost_attack_round = rnd + 1
        c.add_condition("dropped weapon")
        words = "drops its weapon and loses its attack next round"
    elif a.choice == "trips prone":
        c.lost_attack_round = rnd + 1
        c.add_condition("prone")
        words = "trips and falls prone: it loses its attack next round, attackers gain advantage"
    else:
        c.overextended_round = rnd + 1
        words = "is overextended: its foes gain advantage against it next round"
    return [Override(round=rnd, text=f"{c.name}'s critical failure: {words}", actors=(c.id,))]


def parry(engine: Engine, a: ParryDodge, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    turn = engine.encounter.combat.turn
    moved = turn.feet_used if turn is not None and turn.combatant == c.id else 0
    checks = [Check("Not moved yet", not moved, f"moved {moved:g} ft; Parry / dodge uses the move too")]
    events = take_action(engine, c, "parry", f"{c.name}: parry / dodge", checks, a.override, "parries")
    c.parrying = True
    text = f"{c.name} parries and dodges: attacks against it at disadvantage until its next action; no move"
    return [
        *events,
        ActionTaken(round=engine.encounter.combat.round, text=text, actors=(c.id,), combatant=c.id, action="parry"),
    ]


def disengage(engine: Engine, a: Disengage, dice: DiceSource) -> list[Event]:
    c, t = _c(engine, a.combatant), _c(engine, a.target)
    weapon = c.weapon(a.weapon)
    checks = turn_attack_checks(engine.encounter, c) + attack_checks(engine.encounter, c, t, weapon, weapon.skill)
    events = take_action(engine, c, "disengage", f"{c.name}: disengage", checks, a.override, "disengages", t.name)
    edge = edge_of(engine.encounter, c, t)
    hit = to_hit(engine.encounter, c, t, weapon.skill, edge)
    faces, face = roll_d20s(dice, edge, f"d20 to disengage from {t.name}")
    ok = hit.hits(face)
    if ok:
        c.disengaged = True
    shown = shown_d20(faces, face, edge)
    outcome = "it moves freely this turn, no free attacks" if ok else "the move provokes as usual"
    verdict = "success" if ok else "failure"
    text = (
        f"{c.name} disengages from {t.name}: {shown} {hit.terms()} = {face + hit.bonus} "
        f"vs Defense {t.defense}: {verdict}, {outcome}"
    )
    detail: dict[str, int | float | str | bool | None] = {
        "combatant": c.id,
        "target": t.id,
        "d20": face,
        "success": ok,
        "to_hit": f"{shown} {hit.terms()} = {face + hit.bonus}",
        "defense": t.defense,
        "edge_words": "" if edge.mode == "normal" else edge.words(),
    }
    return [
        *events,
        RulesEvent(
            round=engine.encounter.combat.round,
            text=text,
            actors=(c.id, t.id),
            ruleset=NAME,
            name="disengage",
            detail=detail,
        ),
    ]


def item_checks(c: D10Combatant, text: str, pick_up: str) -> list[Check]:
    if not pick_up:
        return [Check("Say the item", bool(text.strip()), "type what is used or readied")]
    weapon = next((w for w in c.weapons if w.name == pick_up), None)
    if weapon is None:
        return [Check("Pick up", False, f"{c.name} has no weapon named {pick_up!r}")]
    return [Check("Pick up", weapon.dropped, f"{pick_up} is {'dropped' if weapon.dropped else 'in hand already'}")]


def use_item(engine: Engine, a: UseItem, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    text = a.text.strip()
    checks = item_checks(c, text, a.pick_up)
    said = text or f"picks up {a.pick_up}"
    keys = PICK_UP_DECLARED if a.pick_up else None
    events = take_action(
        engine, c, "item", f"{c.name}: use / ready an item", checks, a.override, "uses an item", said, keys
    )
    if a.pick_up:
        index = next(i for i, w in enumerate(c.weapons) if w.name == a.pick_up)
        c.weapons[index] = c.weapons[index].model_copy(update={"dropped": False})
        words = f"{c.name} picks up {a.pick_up}" + (f" ({text})" if text else "") + ": it can strike with it again"
    else:
        words = f"{c.name} uses / readies {text} (its move is still free)"
    return [
        *events,
        ActionTaken(
            round=engine.encounter.combat.round, text=words, actors=(c.id,), combatant=c.id, action="item", detail=said
        ),
    ]


def sprint(engine: Engine, a: Sprint, dice: DiceSource) -> list[Event]:
    c = _c(engine, a.combatant)
    events = take_action(engine, c, "sprint", f"{c.name}: sprint / flee", [], a.override, "sprints")
    reach = engine.encounter.options.sprint_moves * c.move_ft
    words = f"{c.name} sprints: up to {reach:g} ft this turn; leaving an adjacent foe gives it a free attack"
    return [
        *events,
        ActionTaken(round=engine.encounter.combat.round, text=words, actors=(c.id,), combatant=c.id, action="sprint"),
    ]


def opposed(engine: Engine, a: OpposedRoll, dice: DiceSource) -> list[Event]:
    x, y = _c(engine, a.first), _c(engine, a.second)
    if x.id == y.id:
        raise IllegalAction("Opposed roll", ["pick two different combatants"])
    said_stake = a.what.strip().casefold()
    stake = a.stake if a.stake and a.stake != STAKES[0] else said_stake if said_stake in STAKES[1:] else ""
    if stake not in ("", *STAKES[1:]):
        raise IllegalAction("Opposed roll", [f"{a.stake!r} is not one of: {', '.join(STAKES)}"])
    if stake == "break free" and x.holder != y.id:
        raise IllegalAction("Opposed roll", [f"{y.name} does not hold {x.name}: nothing to break free of"])
    bx, by = x.skill(a.first_skill), y.skill(a.second_skill)
    fx = roll_plain(dice, 20, f"d20 for {x.name} ({SKILL_NAMES[a.first_skill]})").face
    fy = roll_plain(dice, 20, f"d20 for {y.name} ({SKILL_NAMES[a.second_skill]})").face
    tx, ty = fx + bx, fy + by
    winner = x if tx > ty else y if ty > tx else None
    what = f" ({a.what.strip()})" if a.what.strip() else ""
    result = f"{winner.name} wins" if winner else "a tie: nothing changes"
    text = (
        f"Opposed roll{what}: {x.name} d20 {fx} {bx:+d} {SKILL_NAMES[a.first_skill]} = {tx} against "
        f"{y.name} d20 {fy} {by:+d} {SKILL_NAMES[a.second_skill]} = {ty}: {result}"
    )
    detail: dict[str, int | float | str | bool | None] = {
        "first": tx,
        "second": ty,
        "winner": winner.id if winner else None,
        "stake": stake,
    }
    events: list[Event] = [
        RulesEvent(
            round=engine.encounter.combat.round,
            text=text,
            actors=(x.id, y.id),
            ruleset=NAME,
            name="opposed roll",
            detail=detail,
        )
    ]
    rnd = engine.encounter.combat.round
    if stake == "grapple" and winner is x:
        set_grapple(x, y)
        events.append(Override(round=rnd, text=f"{y.name} is grappled by {x.name}: Move 0", actors=(y.id,)))
    elif stake == "break free" and winner is x:
        release(x)
        events.append(Override(round=rnd, text=f"{x.name} breaks free of {y.name}", actors=(x.id,)))
    return events


def set_timer(engine: Engine, a: SetTimer, dice: DiceSource) -> list[Event]:
    event = a.event.strip()
    if not event:
        raise IllegalAction("Timer die", ["say what happens when it runs out"])
    if a.die not in ("d4", "d6", "d8", "d10", "d12", "d20"):
        raise IllegalAction("Timer die", [f"{a.die} is not a die (d4 … d20)"])
    face = roll_plain(dice, int(a.die[1:]), f"timer {a.die}: {event}").face
    combat = _combat(engine.encounter)
    combat.timers.append(Timer(die=a.die, event=event, face=face, rounds_left=face))
    rounds = "round" if face == 1 else "rounds"
    text = f"Timer {a.die} {face}: {event} in {face} {rounds}"
    return [
        RulesEvent(round=combat.round, text=text, ruleset=NAME, name="timer set", detail={"die": a.die, "face": face})
    ]


def timer_noted(engine: Engine, a: TimerNoted, dice: DiceSource) -> list[Event]:
    item = pending_item(engine.encounter, a.index, "timer", "Timer")
    engine.encounter.combat.pending.pop(a.index)
    return [Override(round=engine.encounter.combat.round, text=f"{item.text} The GM tells the table.")]


def tick_timers(engine: Engine) -> list[Event]:
    """A new round: every timer counts one round down; one that reaches 0 is announced."""
    combat = _combat(engine.encounter)
    events: list[Event] = []
    kept = []
    for timer in combat.timers:
        left = timer.rounds_left - 1
        if left > 0:
            kept.append(timer.model_copy(update={"rounds_left": left}))
            continue
        text = f"Timer {timer.die}: {timer.event}!"
        combat.pending.append(Pending(kind="timer", who=Side.PARTY.value, text=text, urgent=True, round=combat.round))
        events.append(
            RulesEvent(round=combat.round, text=text, ruleset=NAME, name="timer", detail={"event": timer.event})
        )
    combat.timers = kept
    return events


# -- surprise and initiative ---------------------------------------------------------------------


def surprise_roll(engine: Engine, situation: str, dice: DiceSource) -> tuple[Side | None, bool, str]:
    """The opposed roll: the ambushers' d20 + their lowest Stealth against the defenders' d20 +
    their highest Perception (plain d20s when both stumbled); higher: surprise; by 5: full."""
    e = engine.encounter
    able = [c for c in e.combatants if not c.down]
    if situation == "no surprise":
        return None, False, "no surprise roll"
    if situation == "both stumbled":
        fp = roll_plain(dice, 20, "surprise d20 for the Party (plain)").face
        fo = roll_plain(dice, 20, "surprise d20 for the Opponents (plain)").face
        if fp == fo:
            return None, False, f"both stumbled: Party d20 {fp}, Opponents d20 {fo}: a tie, no surprise"
        winner = Side.PARTY if fp > fo else Side.OPPONENTS
        full = abs(fp - fo) >= engine.encounter.options.full_surprise_margin
        kind = "full surprise" if full else "surprise"
        return winner, full, f"both stumbled: Party d20 {fp}, Opponents d20 {fo}: {winner.value} gain {kind}"
    ambushers = Side.PARTY if situation == "Party ambushes" else Side.OPPONENTS
    defenders = ambushers.other
    sneaks = [c for c in able if c.side is ambushers]
    watchers = [c for c in able if c.side is defenders]
    stealth = min((c.stealth for c in sneaks), default=0)  # type: ignore[attr-defined]
    sneak = min(sneaks, key=lambda c: c.stealth).name if sneaks else "nobody"  # type: ignore[attr-defined]
    perception = max((c.perception for c in watchers), default=0)  # type: ignore[attr-defined]
    watch = max(watchers, key=lambda c: c.perception).name if watchers else "nobody"  # type: ignore[attr-defined]
    fa = roll_plain(dice, 20, f"surprise d20 for the {ambushers.value} (+{stealth} Stealth, {sneak})").face
    fd = roll_plain(dice, 20, f"surprise d20 for the {defenders.value} (+{perception} Perception, {watch})").face
    ta, td = fa + stealth, fd + perception
    said = (
        f"{ambushers.value} d20 {fa} {stealth:+d} Stealth ({sneak}, the lowest) = {ta} against "
        f"{defenders.value} d20 {fd} {perception:+d} Perception ({watch}, the highest) = {td}"
    )
    if ta <= td:
        return None, False, f"{said}: {'a tie, ' if ta == td else ''}no surprise"
    full = ta - td >= engine.encounter.options.full_surprise_margin
    if full:
        return (
            ambushers,
            True,
            f"{said}: full surprise (by {ta - td}): the {defenders.value} take no actions this round",
        )
    return (
        ambushers,
        False,
        f"{said}: surprise: the {ambushers.value} roll with advantage, the {defenders.value} with disadvantage",
    )


def groups(encounter: Encounter) -> list[tuple[str, list[D10Combatant]]]:
    """The initiative groups: the Party, then the Opponents' groups in the order they first appear."""
    found: dict[str, list[D10Combatant]] = {}
    for c in encounter.combatants:
        found.setdefault(c.group_name, []).append(c)  # type: ignore[attr-defined]
    party = found.pop(Side.PARTY.value, [])
    return ([(Side.PARTY.value, party)] if party else []) + list(found.items())


def roll_initiative(engine: Engine, dice: DiceSource) -> tuple[list[TurnSlot], str]:
    """A d10 for each group, highest first; ties: the Party's group first, then a re-roll between GM groups."""
    rolled: list[tuple[str, list[D10Combatant], int, list[int]]] = []
    for name, members in groups(engine.encounter):
        if not any(not m.down for m in members):
            continue
        face = roll_plain(dice, 10, f"initiative d10 for {name}").face
        rolled.append((name, members, face, []))
    by_face: dict[int, list[tuple[str, list[D10Combatant], int, list[int]]]] = {}
    for entry in rolled:
        by_face.setdefault(entry[2], []).append(entry)
    party_first = bool(getattr(engine.encounter.options, "party_first_on_ties", True))
    for tied in by_face.values():
        # [D] the Party's group first on a tie; off: the Party re-rolls with the GM's groups.
        gm = [x for x in tied if x[0] != Side.PARTY.value or not party_first]
        while len(gm) > 1:
            for x in gm:
                x[3].append(roll_plain(dice, 10, f"tie-break d10 for {x[0]}").face)
            last = [x[3][-1] for x in gm]
            gm = [x for x in gm if last.count(x[3][-1]) > 1]

    def key(x: tuple[str, list[D10Combatant], int, list[int]]) -> tuple[int, bool, list[int]]:
        return (x[2], party_first and x[0] == Side.PARTY.value, x[3])

    rolled.sort(key=key, reverse=True)
    slots = []
    for name, members, face, again in rolled:
        roll = f"d10 {face}" + (f" (re-roll {', '.join(str(f) for f in again)})" if again else "")
        slots.append(TurnSlot(title=name, members=[m.id for m in members], roll=roll, total=face))
    listed = "; ".join(f"{s.title} {s.roll}" for s in slots)
    return slots, f"initiative: {listed}"


def lock_declarations(engine: Engine) -> list[str]:
    """The coming round's declarations become this round's; who has not declared (and may act)."""
    combat = _combat(engine.encounter)
    missing = missing_declarations(engine)
    if missing:
        return missing
    combat.declared = dict(combat.declaring)
    combat.declaring = {}
    return []


def missing_declarations(engine: Engine) -> list[str]:
    combat = _combat(engine.encounter)
    return [c.name for c in engine.encounter.combatants if not c.down and c.id not in combat.declaring]
