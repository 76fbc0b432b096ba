"""Old-School d20's rules (RULES §12): the to-hit roll and its terms, what an attack, a spell or a
move must pass, damage, and who may counter-attack.

Each roll's terms are kept by name (:class:`ToHit`), so the log line, the Action dock's checks and
the forecast all list the same modifiers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.events import ActionTaken, TurnStarted
from lnl_desktop.core.encounter.light import attack_light
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.map.grid import footprint_center, outside_cone
from lnl_desktop.core.map.sight import blocker, reach_blocker
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.osr import condition_table as cond
from lnl_desktop.core.rules.osr.model import (
    LIGHT_PENALTY,
    UNARMED,
    Kind,
    OsrCombatant,
    OsrOptions,
    OsrWeapon,
    SaveCategory,
    WeaponKind,
)

NAME = "osr"
Style = Literal["melee", "ranged", "charge", "counter"]
COVER = ("none", "-2", "-3", "-4", "full")  # RULES §12: partial cover -2 to -4 set by the GM; full: cannot be shot
ABILITIES = ("best", "STR", "DEX", "PER")  # a thrown weapon adds the best of the three unless the GM says
GM_EDGES = ("none", "advantage", "disadvantage")  # the GM's own on an attack or a save, with a reason
GM_MODIFIER = 10  # the GM's situational modifier: -10 to +10


def gm_words(reason: str) -> str:
    """How the GM's modifier or edge is named in the terms and the log: ``GM: fighting in water``."""
    return f"GM: {reason.strip()}" if reason.strip() else "GM"


def gm_checks(modifier: int, edge: str) -> list[Check]:
    """The GM's modifier and edge must be ones the rules know (RULES §12: a number and a reason)."""
    checks = []
    if not -GM_MODIFIER <= modifier <= GM_MODIFIER:
        checks.append(Check("The GM's modifier", False, f"{modifier:+d}: give -{GM_MODIFIER} to +{GM_MODIFIER}"))
    if edge not in GM_EDGES:
        checks.append(Check("The GM's edge", False, f"{edge!r}: none, advantage or disadvantage"))
    return checks


# -- to hit --------------------------------------------------------------------------------------


@dataclass
class ToHit:
    """The to-hit roll's terms by name, the target's AC with its own terms, and an automatic hit."""

    terms: list[tuple[str, int]] = field(default_factory=list)
    ac_terms: list[tuple[str, int]] = field(default_factory=list)
    auto_hit: str = ""  # why no roll is needed (a paralyzed target in melee)
    ability_term: tuple[str, int] | None = None  # what adds to damage too (STR, DEX in melee)
    advantage: list[str] = field(default_factory=list)  # its sources, in words ("target prone")
    disadvantage: list[str] = field(default_factory=list)
    critical: str = ""  # why a hit is a critical hit (an unconscious target within 5 ft)
    critical_rolls: int = 2  # [D] a critical hit rolls the damage dice this many times
    cancels: bool = True  # [D] any advantage and any disadvantage cancel; off: the more sources win
    unharmed: dict[str, str] = field(default_factory=dict)  # a weapon's name -> why its hit does nothing

    @property
    def edge(self) -> int:
        """+1 advantage (2d20, the higher), -1 disadvantage (the lower), 0 a plain roll: one or
        more sources of each cancel (RULES §12), or with the option off the more sources win."""
        if self.cancels:
            return int(bool(self.advantage)) - int(bool(self.disadvantage))
        more = len(self.advantage) - len(self.disadvantage)
        return (more > 0) - (more < 0)

    def edge_text(self) -> str:
        """``advantage (target prone)``, or both and what comes of them, or ""."""
        good = f"advantage ({', '.join(self.advantage)})" if self.advantage else ""
        bad = f"disadvantage ({', '.join(self.disadvantage)})" if self.disadvantage else ""
        if good and bad:
            outcome = {1: "advantage", -1: "disadvantage", 0: "a plain roll"}[self.edge]
            return f"{good} and {bad} {'cancel' if self.edge == 0 else 'weigh up'}: {outcome}"
        return good or bad

    @property
    def bonus(self) -> int:
        return sum(v for _, v in self.terms)

    @property
    def ac(self) -> int:
        return sum(v for _, v in self.ac_terms)

    def hits(self, face: int) -> bool:
        """Natural 20 always hits, natural 1 always misses, else d20 + bonus >= AC."""
        if self.auto_hit:
            return True
        if face == 20:
            return True
        if face == 1:
            return False
        return face + self.bonus >= self.ac

    @property
    def chance(self) -> float:
        """The exact chance to hit: the faces of a d20 that hit, over 20; with advantage one minus
        the chance both dice miss, with disadvantage the chance both hit."""
        return self.chance_at(self.bonus)

    def chance_at(self, bonus: int) -> float:
        """:attr:`chance` with the roll's bonus ``bonus`` instead (a shot at short or at long range)."""
        if self.auto_hit:
            return 1.0
        need = self.ac - bonus  # hits() counted: the faces 2-19 that reach AC, and the 20 (the fight odds ask often)
        plain = (1 + min(18, max(0, 20 - max(need, 2)))) / 20
        if self.edge > 0:
            return 1 - (1 - plain) ** 2
        if self.edge < 0:
            return plain * plain
        return plain

    def terms_text(self) -> str:
        return " ".join(f"{v:+d} {k}" for k, v in self.terms if v or k == "attack bonus")

    def ac_text(self) -> str:
        base, *rest = self.ac_terms
        if not rest:
            return f"AC {base[1]}"
        return f"AC {self.ac} ({base[1]} " + " ".join(f"{v:+d} {k}" for k, v in rest) + ")"


def from_behind(encounter: Encounter, attacker: OsrCombatant, target: OsrCombatant) -> bool:
    """The attacker stands outside the target's field of vision (its facing on the map)."""
    ta, tt = encounter.tokens.get(attacker.id), encounter.tokens.get(target.id)
    if ta is None or tt is None:
        return False
    return outside_cone(
        footprint_center(tt.cell, target.size),
        tt.facing,
        target.vision_deg,
        footprint_center(ta.cell, attacker.size),
    )


def thrown_ability(attacker: OsrCombatant, chosen: str) -> tuple[str, int]:
    options = {"STR": attacker.str_mod, "DEX": attacker.dex_mod, "PER": attacker.per_mod}
    if chosen in options:
        return chosen, options[chosen]
    best = max(options, key=lambda k: options[k])  # ties keep STR, which also adds to damage
    return best, options[best]


def to_hit(
    encounter: Encounter,
    attacker: OsrCombatant,
    target: OsrCombatant,
    weapon: OsrWeapon,
    style: Style,
    *,
    cover: str = "none",
    second: str = "",
    ability: str = "best",
    gm_modifier: int = 0,
    gm_edge: str = "none",
    gm_reason: str = "",
) -> ToHit:
    """Every term of the roll (RULES §12): attack bonus, the ability, long range, light, cover, dual
    attack, the GM's modifier; and the target's AC: shield negated from behind, +2 defending or
    guarded. The GM's advantage or disadvantage joins the other sources (they cancel as usual)."""
    options: OsrOptions = encounter.options  # type: ignore[assignment]
    result = ToHit(terms=[("attack bonus", attacker.attack_bonus)])
    ranged = style == "ranged"
    if not ranged:
        name, value = ("DEX", attacker.dex_mod) if weapon.dex else ("STR", attacker.str_mod)
        result.terms.append((name, value))
        result.ability_term = (name, value)
    elif weapon.kind is WeaponKind.MISSILE:
        result.terms.append(("PER", attacker.per_mod))
    else:
        name, value = thrown_ability(attacker, ability)
        result.terms.append((name, value))
        result.ability_term = ("STR", value) if name == "STR" else None
    if ranged and weapon.max_range_ft:
        feet = encounter.distance_between(attacker, target)
        if feet is not None and feet > weapon.max_range_ft / 2:
            result.terms.append(("long range", -1))
    # RULES §15: the light where the target stands; with no source on the map, the ambient light;
    # dark cells within the attacker's darkvision count as dim.
    light, where, darkvision = attack_light(encounter, attacker, target.id)
    if LIGHT_PENALTY[light]:
        said = [] if where is None else [f"target at ({where[0]}, {where[1]})"]
        if darkvision:
            said.append(f"{attacker.name}'s darkvision {attacker.darkvision_ft} ft")
        at = f" ({', '.join(said)})" if said else ""
        result.terms.append((f"{light.value} light{at}", LIGHT_PENALTY[light]))
    if cover in ("-2", "-3", "-4"):
        result.terms.append(("cover", int(cover)))
    if second:
        result.terms.append(("dual attack", -1))
    if gm_modifier:
        result.terms.append((gm_words(gm_reason), gm_modifier))
    exhausted = cond.level(attacker)
    if exhausted:
        result.terms.append((f"exhausted {exhausted}", -exhausted * options.exhaustion_penalty))
    if cond.has(attacker, "wounded") and options.wounded_penalty:
        result.terms.append(("wounded", -options.wounded_penalty))
    result.cancels = bool(getattr(options, "advantage_cancels", True))
    result.critical_rolls = int(getattr(options, "critical_dice_rolls", 2))
    _edges(encounter, attacker, target, style, result)
    if gm_edge == "advantage":
        result.advantage.append(gm_words(gm_reason))
    elif gm_edge == "disadvantage":
        result.disadvantage.append(gm_words(gm_reason))
    result.ac_terms.append(("AC", target.ac))
    if target.shield and from_behind(encounter, attacker, target):
        result.ac_terms.append(("shield negated from behind", -target.shield_ac))
    if target.defending == target.id:
        result.ac_terms.append(("defending", 2))
    guards = [g for g in encounter.combatants if g.defending == target.id and g.id != target.id and not g.down]
    if guards:
        result.ac_terms.append((f"guarded by {guards[0].name}", 2))
    if not ranged and cond.has(target, "paralyzed"):
        result.auto_hit = f"{target.name} is paralyzed: hit automatically in melee"
    result.unharmed = harm_refusals(encounter, attacker, target, [weapon, *_seconds(attacker, second)])
    return result


def _seconds(attacker: OsrCombatant, second: str) -> list[OsrWeapon]:
    return [w for w in attacker.all_weapons() if second and w.name == second]


def _edges(encounter: Encounter, attacker: OsrCombatant, target: OsrCombatant, style: Style, hit: ToHit) -> None:
    """Advantage and disadvantage from the conditions table (RULES §12), each source in words."""
    melee = style != "ranged"
    for word in ("blinded", "frightened", "poisoned", "restrained"):
        if cond.has(attacker, word):
            hit.disadvantage.append(f"attacker {word}")
    if melee and cond.has(attacker, "prone"):
        hit.disadvantage.append("attacker prone")
    if cond.has(attacker, "invisible"):
        hit.advantage.append("attacker invisible")
    for word in ("blinded", "restrained", *cond.HELPLESS):
        if cond.has(target, word):
            hit.advantage.append(f"target {word}")
    if cond.has(target, "invisible"):
        hit.disadvantage.append("target invisible")
    feet = encounter.distance_between(attacker, target)
    close = feet is not None and feet <= 5
    if cond.has(target, "prone"):
        (hit.advantage if melee and close else hit.disadvantage).append(
            "target prone" if melee and close else "target prone, not within 5 ft"
        )
    elif cond.has(target, "unconscious") and not (melee and close):
        # RULES §12: an unconscious creature is also prone; from afar that cancels its advantage.
        hit.disadvantage.append("target unconscious, so prone, not within 5 ft")
    if cond.has(target, "unconscious") and close:
        hit.critical = (
            f"{target.name} is unconscious and within 5 ft: a critical hit, "
            f"the damage dice rolled {times(hit.critical_rolls)}"
        )


def times(n: int) -> str:
    return {1: "once", 2: "twice", 3: "three times"}.get(n, f"{n} times")


def attackable(target: OsrCombatant) -> str:
    """Why ``target`` cannot be attacked ("" when it can): only the dead and the defeated (a monster
    or NPC at 0 HP); an unconscious or paralyzed creature can (RULES §12)."""
    if target.dead:
        return f"{target.name} is dead"
    if target.hp == 0 and target.kind is not Kind.PC:
        return f"{target.name} is defeated"
    return ""


def attack_checks(
    encounter: Encounter,
    attacker: OsrCombatant,
    target: OsrCombatant,
    weapon: OsrWeapon,
    style: Style,
    *,
    cover: str = "none",
    second: str = "",
    subdual: bool = False,
    flat_of_blade: bool = False,
    gm_modifier: int = 0,
    gm_edge: str = "none",
) -> list[Check]:
    """What must hold for the attack, each with its reason (the turn's own checks apart)."""
    gone = attackable(target)
    checks = [
        Check(
            "A foe to strike",
            target.id != attacker.id and not gone,
            f"{attacker.name} cannot attack itself" if target.id == attacker.id else gone,
        ),
    ]
    charmer = cond.source(encounter, attacker, "charmed")
    if charmer is not None and charmer.id == target.id:
        checks.append(
            Check("Not its charmer", False, f"{attacker.name} is charmed by {target.name}: it cannot attack it")
        )
    if weapon.area is not None:
        checks.append(
            Check("A weapon for one foe", False, f"{weapon.name} strikes {weapon.area.words}: use it as an Area effect")
        )
    feet = encounter.distance_between(attacker, target)
    ranged = style == "ranged"
    if ranged:
        checks.append(
            Check(
                "A missile or thrown weapon",
                weapon.kind in (WeaponKind.MISSILE, WeaponKind.THROWN),
                f"{weapon.name} is a {weapon.kind.value} weapon",
            )
        )
    else:
        checks.append(Check("A melee weapon", weapon.melee, f"{weapon.name} is a missile weapon: shoot with it"))
    if feet is None:
        checks.append(Check("Both on the map", False, "place both tokens on the map"))
    elif ranged:
        if weapon.max_range_ft:
            short = weapon.max_range_ft // 2
            where = "short range" if feet <= short else "long range, -1" if feet <= weapon.max_range_ft else ""
            checks.append(
                Check(
                    f"Within {weapon.max_range_ft} ft",
                    feet <= weapon.max_range_ft,
                    f"{feet:g} ft: {where}" if where else f"{feet:g} ft is beyond the maximum range",
                )
            )
        ta, tt = encounter.tokens[attacker.id], encounter.tokens[target.id]
        # Walls, wall segments and closed doors on every line of sight are full cover (RULES §12).
        wall = blocker(encounter.map, ta.cell, attacker.size, tt.cell, target.size)
        checks.append(Check("Not in full cover", wall is None and cover != "full", _cover_reason(wall, target)))
    else:
        reach = weapon.reach
        checks.append(Check(f"Within {reach} ft", feet <= reach, f"{target.name} is {feet:g} ft away"))
        ta, tt = encounter.tokens[attacker.id], encounter.tokens[target.id]
        wall = None
        if feet <= reach:
            wall = reach_blocker(encounter.map, ta.cell, attacker.size, tt.cell, target.size, reach)
        if wall is not None:
            checks.append(Check("No wall between", False, f"{wall} stands between {attacker.name} and {target.name}"))
    if second:
        try:
            other = attacker.weapon(second)
        except Exception:
            checks.append(Check("The second weapon", False, f"{attacker.name} has no weapon named {second!r}"))
        else:
            checks.append(
                Check(
                    "Two different weapons",
                    other.name != weapon.name and other.name != UNARMED and other.melee == weapon.melee,
                    "a dual attack rolls two weapons of the same kind, each in one hand",
                )
            )
    if subdual:
        checks.append(subdual_check(weapon, flat_of_blade))
    checks += gm_checks(gm_modifier, gm_edge)
    if style != "counter":
        checks += movement_checks(encounter, attacker, style)
    return checks


def subdual_check(weapon: OsrWeapon, flat_of_blade: bool) -> Check:
    """Subdual needs a bludgeoning weapon or a blade struck flat (RULES §12)."""
    return Check(
        "A blunt blow to subdue",
        weapon.bludgeoning or flat_of_blade,
        f"{weapon.name} is not a bludgeoning weapon: subdue with a blunt one, or tick Flat of blade",
    )


def sight_checks(encounter: Encounter, c: OsrCombatant, target: OsrCombatant) -> list[Check]:
    """A spell needs a line of sight to its target (RULES §12): none when walls, wall segments or
    closed doors block every line. Not checked when either is off the map."""
    tc, tt = encounter.tokens.get(c.id), encounter.tokens.get(target.id)
    if target.id == c.id or tc is None or tt is None:
        return []
    wall = blocker(encounter.map, tc.cell, c.size, tt.cell, target.size)
    return [Check("Line of sight to the target", wall is None, f"{target.name} is behind {wall}" if wall else "")]


def spell_checks(encounter: Encounter, c: OsrCombatant, target: OsrCombatant | None, harmful: bool) -> list[Check]:
    """What the conditions table and the line of sight allow of a spell (RULES §12): none when
    silenced, restrained, bound or gagged; none at a creature it cannot see (blinded, an invisible
    target, out of sight); not a harmful one at the charmer."""
    stopped = next((word for word in cond.NO_SPELLS if cond.has(c, word)), None)
    checks = [Check("Free to cast", stopped is None, f"{c.name} is {stopped}: no spells" if stopped else "")]
    if target is None or target.id == c.id:
        return checks
    checks.append(Check("Can see", not cond.has(c, "blinded"), f"{c.name} is blinded: no spell that needs sight"))
    if cond.has(target, "invisible"):
        checks.append(Check("Target seen", False, f"{target.name} is invisible: {c.name} cannot aim a spell at it"))
    charmer = cond.source(encounter, c, "charmed")
    if harmful and charmer is not None and charmer.id == target.id:
        checks.append(
            Check("Not at its charmer", False, f"{c.name} is charmed by {target.name}: no harmful spell at it")
        )
    return checks + sight_checks(encounter, c, target)


def _cover_reason(wall: str | None, target: OsrCombatant) -> str:
    if wall is not None:
        return f"{target.name} is behind {wall}: full cover, it cannot be shot"
    return f"{target.name} is in full cover (set by the GM): it cannot be shot"


def movement_checks(encounter: Encounter, c: OsrCombatant, action: str) -> list[Check]:
    """What each action allows of the movement already spent this turn (RULES §12's actions)."""
    turn = encounter.combat.turn
    if turn is None or turn.combatant != c.id:
        return []
    moved = turn.feet_used - stood(encounter, c)  # getting up is no move away from the spot
    if action == "melee" and moved:
        return [Check("Not moved yet", False, f"moved {moved:g} ft this turn: a Charge moves and then attacks")]
    if action in ("defend", "cast") and moved:
        what = "Defend" if action == "defend" else "A caster"
        return [Check("Not moved yet", False, f"moved {moved:g} ft this turn; {what} may not move")]
    if action == "ranged" and moved > c.move_ft / 2:
        return [
            Check(
                "At most half a Move",
                False,
                f"moved {moved:g} ft; a ranged attack allows half the Move ({c.move_ft / 2:g} ft) before or after",
            )
        ]
    return []


# -- damage ---------------------------------------------------------------------------------------


def petrified_immune(target: OsrCombatant) -> str:
    """Why ``target`` takes no damage at all ("" when it does): a petrified creature is stone (RULES §12)."""
    return f"{target.name} is petrified: it takes no damage" if cond.has(target, "petrified") else ""


def unharmed(
    encounter: Encounter, attacker: OsrCombatant | None, target: OsrCombatant, properties: list[str], means: str
) -> str:
    """Why a hit by ``means`` (with ``properties``) does nothing to ``target`` ("" when it harms it):
    the target is petrified, or harmed only by properties ``means`` lacks (RULES §12 "Also applied").
    [D] As the source allows, another invulnerable monster or a monster of 5+ HD harms it anyway."""
    stone = petrified_immune(target)
    if stone:
        return stone
    needed = target.harmed_only_by
    if not needed or set(properties) & set(needed):
        return ""
    strong = attacker is not None and attacker.kind is Kind.MONSTER and (attacker.harmed_only_by or attacker.level >= 5)
    if strong and getattr(encounter.options, "strong_harm_invulnerable", True):
        return ""
    return f"{target.name} is unharmed: {means} is not {' or '.join(needed)}"


def harm_refusals(
    encounter: Encounter, attacker: OsrCombatant, target: OsrCombatant, weapons: list[OsrWeapon]
) -> dict[str, str]:
    """Each weapon whose hit would do nothing to ``target``, with the reason."""
    refused = {w.name: unharmed(encounter, attacker, target, w.properties, w.name) for w in weapons}
    return {name: why for name, why in refused.items() if why}


@dataclass
class Damage:
    rolls: list[tuple[str, list[int], int, int]]  # per weapon: name, faces, flat + ability, total
    amount: int
    kept: str  # the weapon whose damage counts (the higher of a dual attack)
    unharmed: str = ""  # why the hit did nothing, its damage not rolled (an invulnerable or petrified target)

    def text(self) -> str:
        if not self.rolls:
            return f"not rolled ({self.unharmed})"
        parts = []
        for name, faces, extra, total in self.rolls:
            shown = "+".join(str(f) for f in faces)
            parts.append(f"{name} [{shown}]{extra:+d} = {total}" if extra else f"{name} [{shown}] = {total}")
        if len(self.rolls) > 1:
            return " / ".join(parts) + f": the higher, {self.amount}"
        return parts[0]


def damage_term(weapon: OsrWeapon, hit: ToHit) -> int:
    """What adds to the damage dice: the weapon's own + and the STR (or a DEX weapon's DEX) in melee."""
    flat = weapon.dice[2]
    return flat + (hit.ability_term[1] if hit.ability_term else 0)


def roll_damage(dice: DiceSource, attacker: OsrCombatant, weapons: list[OsrWeapon], hit: ToHit, minimum: int) -> Damage:
    """Each weapon's damage dice, the higher total counting; a weapon that cannot harm the target
    rolls nothing, and a hit where none can deals 0 (RULES §12: its damage is not rolled)."""
    able = [w for w in weapons if w.name not in hit.unharmed]
    if not able:
        return Damage([], 0, "", unharmed=hit.unharmed[weapons[0].name])
    rolls = []
    for weapon in able:
        count, sides, _ = weapon.dice
        count *= hit.critical_rolls if hit.critical else 1  # a critical hit rolls the damage dice again
        faces = [roll_plain(dice, sides, f"{weapon.name} damage d{sides}").face for _ in range(count)]
        extra = damage_term(weapon, hit)
        rolls.append((weapon.name, faces, extra, max(minimum, sum(faces) + extra)))
    best = max(rolls, key=lambda r: r[3])
    return Damage(rolls, best[3], best[0])


# -- counter-attacks and a monster's several attacks ----------------------------------------------


def may_counter(encounter: Encounter, striker: OsrCombatant, target: OsrCombatant) -> bool:
    """Whether ``striker`` may make a counter-attack on ``target`` now: able to act (not down, fled,
    helpless, or surprised in the first round) and within the monster limit; a blinded striker
    still may, at disadvantage."""
    combat = encounter.combat
    if striker.down or striker.morale_result is not None:
        return False
    if cond.surprised(encounter, striker) and combat.round == combat.first_round:
        return False
    if cond.helpless(striker):
        return False
    return engagement.free_attack_room(encounter, striker, target, striker.attacks)


def reach_of(c: OsrCombatant) -> float:
    """How far ``c``'s melee attacks reach: the foes within it are engaged with ``c``."""
    return c.melee_reach


ATTACKS = ("melee", "ranged", "charge")


def attacks_left(encounter: Encounter, c: OsrCombatant) -> tuple[int, int]:
    """(the number of the next attack roll, of how many) while ``c``'s turn is an Attack with rolls
    still to come; (0, n) otherwise. A monster with attacks per round N makes up to N (RULES §12)."""
    turn = encounter.combat.turn
    if turn is None or turn.combatant != c.id or turn.action not in ATTACKS or turn.attacks >= c.attacks:
        return 0, c.attacks
    return turn.attacks + 1, c.attacks


def save_bonus(encounter: Encounter, c: OsrCombatant, category: SaveCategory) -> int:
    """What a saving throw adds to its d20: the category's bonus, less exhaustion's penalty ([D] 1 a
    level, as for attacks). The sheet's saves, death saves and area effects all roll with it."""
    penalty = int(getattr(encounter.options, "exhaustion_penalty", 1))
    return c.save_bonus(category) - cond.level(c) * penalty


def death_save_dc(overkill: int) -> int:
    """RULES §12: DC 11 + the damage beyond what took the PC to exactly 0 (3 HP, 10 damage: DC 18)."""
    return 11 + overkill


def stood(encounter: Encounter, c: OsrCombatant) -> float:
    """The movement ``c`` spent getting up this turn (read from the log since its turn began)."""
    spent = 0.0
    for event in reversed(encounter.log):
        if isinstance(event, TurnStarted):
            break
        if isinstance(event, ActionTaken) and event.action == "stand up" and event.combatant == c.id:
            spent += c.move_ft / 2
    return spent
