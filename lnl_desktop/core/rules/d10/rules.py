"""Group d10's rules (RULES §13): advantage, disadvantage and cinematic advantage with each source
named, the to-hit roll against Defense, weapon tiers, DR and criticals' damage, who may make a free
attack, and the checks an action must pass (the declaration among them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.model import Encounter, Phase
from lnl_desktop.core.map.sight import reach_blocker
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.d10.model import (
    DECLARED_LABEL,
    SKILL_NAMES,
    D10Combat,
    D10Combatant,
    D10Options,
    D10Weapon,
    Tier,
    WeaponKind,
)

NAME = "d10"


def combat_of(encounter: Encounter) -> D10Combat:
    """The encounter's combat state, Group d10's own (declarations, surprise, timers)."""
    return encounter.combat  # type: ignore[return-value]


def full_surprised(encounter: Encounter, c: D10Combatant) -> bool:
    combat = combat_of(encounter)
    return bool(
        combat.full_surprise
        and combat.ambushers is not None
        and c.side is combat.ambushers.other
        and combat.round == combat.first_round
    )


def tripped(c: D10Combatant) -> bool:
    """Prone from its own natural-1 trip (RULES §13): it loses its next attack, and getting up is part
    of that, so standing costs it no move; a parry / dodge takes away its foes' advantage."""
    return c.prone and c.lost_attack_round is not None and not c.has("dropped weapon")


def helpless(c: D10Combatant) -> bool:
    """Knocked out but alive (a subdual blow's 0 HP): a weapon may still finish it (RULES §13)."""
    return c.has("unconscious") and not c.dead


def may_free_attack(encounter: Encounter, striker: D10Combatant, mover: D10Combatant) -> bool:
    """A foe next to the mover strikes when it moves away: not down, not taken by full surprise,
    not against a combatant that disengaged; once per mover per round."""
    if striker.down or full_surprised(encounter, striker) or mover.disengaged:
        return False
    return engagement.free_attack_room(encounter, striker, mover, 1_000)


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
    combat = combat_of(encounter)
    edge = Edge(cancels=bool(getattr(encounter.options, "advantage_cancels", True)))
    if combat.ambushers is not None and combat.round == combat.first_round and combat.phase is Phase.FIGHTING:
        if attacker.side is combat.ambushers:
            edge.advantage.append("surprise")
        elif not combat.full_surprise:
            edge.disadvantage.append("surprised")
    if target.parrying:
        edge.disadvantage.append(f"{target.name} parries / dodges")
    if target.prone and not (target.parrying and tripped(target)):
        edge.advantage.append(f"{target.name} is prone")
    if attacker.has("hidden") and target.side is not attacker.side:
        # RULES §13's sneak attack: unseen after its Stealth action, on a foe that does not expect it.
        edge.advantage.append(f"{attacker.name} unseen (Stealth)")
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


# -- what an action must pass -----------------------------------------------------------------------


def declaration_check(encounter: Encounter, c: D10Combatant, keys: tuple[str, ...], override: bool) -> list[Check]:
    """Acting as declared: what ``c`` declared for this round must be one of ``keys`` (or a GM override)."""
    declared = combat_of(encounter).declared.get(c.id)
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


def shown_d20(faces: list[int], face: int, edge: Edge) -> str:
    """'d20 14', or '3/14 (advantage: 14)' when more than one d20 was rolled."""
    return f"d20 {face}" if len(faces) == 1 else f"{'/'.join(str(f) for f in faces)} ({edge.mode}: {face})"


def turn_attack_checks(encounter: Encounter, c: D10Combatant) -> list[Check]:
    combat = encounter.combat
    lost = c.lost_attack_round is not None and c.lost_attack_round == combat.round
    return [Check("Its attack this round", not lost, f"{c.name} lost its attack this round (a mishap)")]


def attack_checks(encounter: Encounter, c: D10Combatant, t: D10Combatant, weapon: D10Weapon, skill: str) -> list[Check]:
    checks = [
        Check(
            "A foe to strike",
            t.id != c.id and (not t.down or helpless(t)),
            f"{c.name} cannot attack itself" if t.id == c.id else f"{t.name} is down",
        )
    ]
    if weapon.dropped:
        checks.append(Check("In hand", False, f"{weapon.name} is dropped: a Use / ready an item picks it up"))
    feet = encounter.distance_between(c, t)
    if feet is None:
        checks.append(Check("Both on the map", False, "place both tokens on the map"))
    elif skill == "ranged" or weapon.kind is WeaponKind.RANGED:
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


def grapple_checks(encounter: Encounter, c: D10Combatant, t: D10Combatant) -> list[Check]:
    checks = [
        Check(
            "A foe to seize",
            t.id != c.id and not t.down,
            f"{c.name} cannot grapple itself" if t.id == c.id else f"{t.name} is down",
        )
    ]
    feet = encounter.distance_between(c, t)
    if feet is None:
        checks.append(Check("Both on the map", False, "place both tokens on the map"))
    else:
        checks.append(Check("Within 5 ft", feet <= 5, f"{t.name} is {feet:g} ft away"))
    if t.holder == c.id:
        checks.append(Check("Not held yet", False, f"{c.name} already holds {t.name}"))
    return checks


def stand_checks(encounter: Encounter, c: D10Combatant) -> list[Check]:
    checks = [Check("Prone", c.prone, "" if c.prone else f"{c.name} is not prone")]
    if c.stood_up:
        checks.append(Check("Its move", False, f"{c.name} already stood up this turn"))
    return checks


def item_checks(c: D10Combatant, text: str, pick_up: str) -> list[Check]:
    if not pick_up:
        return [Check("Say the item", bool(text.strip()), "type what is used or readied")]
    weapon = next((w for w in c.weapons if w.name == pick_up), None)
    if weapon is None:
        return [Check("Pick up", False, f"{c.name} has no weapon named {pick_up!r}")]
    return [Check("Pick up", weapon.dropped, f"{pick_up} is {'dropped' if weapon.dropped else 'in hand already'}")]
