"""Old-School d20 at the table (RULES §12): the actions, the to-hit roll, damage, death saves,
saving throws, morale and initiative.

Every roll goes through the dice source, so the GM may type the faces of physical dice and the
journal replays them. Each roll's terms are kept by name (:class:`ToHit`), so the log line, the
Action dock's checks and the forecast all list the same modifiers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.events import Event, RulesEvent, WentDown
from lnl_desktop.core.encounter.model import Encounter, Pending, Side, TurnSlot
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.grid import footprint_center, outside_cone, token_distance_ft
from lnl_desktop.core.map.sight import blocker, reach_blocker
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.common import Check, failed, pending_item
from lnl_desktop.core.rules.osr import conditions as cond
from lnl_desktop.core.rules.osr.model import (
    LIGHT_PENALTY,
    UNARMED,
    InitiativeMode,
    Kind,
    Light,
    MoraleResult,
    OsrCombatant,
    OsrOptions,
    OsrWeapon,
    SaveCategory,
    WeaponKind,
    parse_dice,
)

if TYPE_CHECKING:
    from lnl_desktop.core.engine.engine import Engine

NAME = "osr"
Style = Literal["melee", "ranged", "charge", "counter"]
COVER = ("none", "-2", "-3", "-4", "full")  # RULES §12: partial cover -2 to -4 set by the GM; full: cannot be shot
ABILITIES = ("best", "STR", "DEX", "PER")  # a thrown weapon adds the best of the three unless the GM says


# -- the actions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class OsrAttack:
    """A melee attack (5 ft, 10 ft with reach), a ranged attack (half Move before or after) or a
    charge (a full Move, then a melee attack)."""

    attacker: str
    target: str
    weapon: str
    style: Literal["melee", "ranged", "charge"] = "melee"
    cover: str = "none"
    second: str = ""  # a dual attack: the other hand's weapon (one roll at -1, the higher damage)
    subdual: bool = False  # declared: the damage is tracked apart from HP
    ability: str = "best"  # a thrown weapon: STR, DEX or PER (the best by default)


@dataclass(frozen=True)
class CounterAttack:
    """Take a queued counter-attack (``combat.pending[index]``), with another weapon if the GM says."""

    index: int
    weapon: str = ""


@dataclass(frozen=True)
class Defend:
    """No move and no attack: +2 AC until the defender's next turn, to itself or a guarded adjacent ally."""

    combatant: str
    ally: str = ""


@dataclass(frozen=True)
class TakeMove:
    """The turn's action is a Move: up to the full Move (leaving melee provokes counter-attacks)."""

    combatant: str


@dataclass(frozen=True)
class Cast:
    """Cast a spell: the caster may not move this turn."""

    caster: str
    text: str
    target: str = ""
    lasting: bool = False  # longer than an instant: it goes off at the caster's next turn, unless interrupted
    harmful: bool = True  # a charmed caster may not aim a harmful spell at its charmer


@dataclass(frozen=True)
class StandUp:
    """A prone creature gets up: half its Move, not its action (RULES §12)."""

    combatant: str


@dataclass(frozen=True)
class Burn:
    """The fire damage a burning creature takes as its turn begins (``combat.pending[index]``)."""

    index: int


@dataclass(frozen=True)
class Confusion:
    """The d6 a confused creature rolls as its turn begins (``combat.pending[index]``)."""

    index: int


@dataclass(frozen=True)
class DeathSave:
    """The death save a PC at 0 HP makes at once (``combat.pending[index]``)."""

    index: int


@dataclass(frozen=True)
class SavingThrow:
    """d20 + the category's bonus against a DC, on the GM's demand."""

    combatant: str
    category: str
    dc: int
    reason: str = ""


@dataclass(frozen=True)
class MoraleCheck:
    """2d6 against the morale of a side's creatures; ``index`` is the queued check it answers, if any."""

    side: str
    modifier: int = 0
    cornered: bool = False
    outcome: str = MoraleResult.FLEES.value
    index: int = -1
    reason: str = ""


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
        if self.auto_hit:
            return 1.0
        plain = sum(self.hits(f) for f in range(1, 21)) / 20
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


def distance(encounter: Encounter, a: OsrCombatant, b: OsrCombatant) -> float | None:
    ta, tb = encounter.tokens.get(a.id), encounter.tokens.get(b.id)
    if ta is None or tb is None:
        return None
    grid = encounter.map
    return token_distance_ft(ta.cell, a.size, tb.cell, b.size, grid.diagonal, grid.feet_per_cell)


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
) -> ToHit:
    """Every term of the roll (RULES §12): attack bonus, the ability, long range, light, cover, dual
    attack; and the target's AC: shield negated from behind, +2 defending or guarded."""
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
        feet = distance(encounter, attacker, target)
        if feet is not None and feet > weapon.max_range_ft / 2:
            result.terms.append(("long range", -1))
    light = Light(options.light)
    if LIGHT_PENALTY[light]:
        result.terms.append((f"{light.value} light", LIGHT_PENALTY[light]))
    if cover in ("-2", "-3", "-4"):
        result.terms.append(("cover", int(cover)))
    if second:
        result.terms.append(("dual attack", -1))
    exhausted = cond.level(attacker)
    if exhausted:
        result.terms.append((f"exhausted {exhausted}", -exhausted * options.exhaustion_penalty))
    if cond.has(attacker, "wounded") and options.wounded_penalty:
        result.terms.append(("wounded", -options.wounded_penalty))
    result.cancels = bool(getattr(options, "advantage_cancels", True))
    result.critical_rolls = int(getattr(options, "critical_dice_rolls", 2))
    _edges(encounter, attacker, target, style, result)
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
    return result


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
    feet = distance(encounter, attacker, target)
    close = feet is not None and feet <= 5
    if cond.has(target, "prone"):
        (hit.advantage if melee and close else hit.disadvantage).append(
            "target prone" if melee and close else "target prone, not within 5 ft"
        )
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
    feet = distance(encounter, attacker, target)
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
    if style != "counter":
        checks += movement_checks(encounter, attacker, style)
    return checks


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
    silenced; none at a creature when blinded (it needs sight); not a harmful one at the charmer."""
    checks = [Check("Not silenced", not cond.has(c, "silenced"), f"{c.name} is silenced: no spells")]
    if target is None or target.id == c.id:
        return checks
    checks.append(Check("Can see", not cond.has(c, "blinded"), f"{c.name} is blinded: no spell that needs sight"))
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


@dataclass
class Damage:
    rolls: list[tuple[str, list[int], int, int]]  # per weapon: name, faces, flat + ability, total
    amount: int
    kept: str  # the weapon whose damage counts (the higher of a dual attack)

    def text(self) -> str:
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
    rolls = []
    for weapon in weapons:
        count, sides, _ = weapon.dice
        count *= hit.critical_rolls if hit.critical else 1  # a critical hit rolls the damage dice again
        faces = [roll_plain(dice, sides, f"{weapon.name} damage d{sides}").face for _ in range(count)]
        extra = damage_term(weapon, hit)
        rolls.append((weapon.name, faces, extra, max(minimum, sum(faces) + extra)))
    best = max(rolls, key=lambda r: r[3])
    return Damage(rolls, best[3], best[0])


# -- the engine's handlers ------------------------------------------------------------------------


def _osr(engine: Engine, cid: str) -> OsrCombatant:
    return engine.combatant(cid)  # type: ignore[no-any-return]


def may_counter(encounter: Encounter, striker: OsrCombatant, target: OsrCombatant) -> bool:
    """Whether ``striker`` may make a counter-attack on ``target`` now: able to act (not down, fled,
    helpless, or surprised in the first round) and within the monster limit; a blinded striker
    still may, at disadvantage."""
    combat = encounter.combat
    if striker.down or striker.morale_result is not None:
        return False
    if striker.surprised and combat.round == combat.first_round:
        return False
    if cond.helpless(striker):
        return False
    return engagement.free_attack_room(encounter, striker, target, striker.attacks)


def _reach(c: OsrCombatant) -> float:
    return c.melee_reach


def provocations(engine: Engine, mover: OsrCombatant, path: list[tuple[int, int]]) -> list:
    e = engine.encounter
    return engagement.provocations(e, mover, path, _reach, lambda s, t: may_counter(e, s, t))


def queue_counters(engine: Engine, mover: OsrCombatant, strikers: list[str], why: str) -> list[Event]:
    return engagement.queue(
        engine.encounter,
        mover,
        strikers,
        "counter-attack",
        lambda name: f"{name} may counter-attack {mover.name} ({why})",
        f"{mover.name} {why}",
        NAME,
    )


def after_move(engine: Engine, c: OsrCombatant, path: list[tuple[int, int]], forced: bool) -> list[Event]:
    if forced or not path:
        return []
    _fear_allows(engine.encounter, c, path)
    strikers = [cid for step in provocations(engine, c, path) for cid in step.attackers]
    return queue_counters(engine, c, strikers, "moves out of melee")


ATTACKS = ("melee", "ranged", "charge")


def attacks_left(encounter: Encounter, c: OsrCombatant) -> tuple[int, int]:
    """(the number of the next attack roll, of how many) while ``c``'s turn is an Attack with rolls
    still to come; (0, n) otherwise. A monster with attacks per round N makes up to N (RULES §12)."""
    turn = encounter.combat.turn
    if turn is None or turn.combatant != c.id or turn.action not in ATTACKS or turn.attacks >= c.attacks:
        return 0, c.attacks
    return turn.attacks + 1, c.attacks


def attack(engine: Engine, a: OsrAttack, dice: DiceSource) -> list[Event]:
    c, t = _osr(engine, a.attacker), _osr(engine, a.target)
    weapon = c.weapon(a.weapon)
    e = engine.encounter
    turn = e.combat.turn
    following = turn is not None and turn.combatant == c.id and turn.action is not None
    number, of = attacks_left(e, c)
    title = f"{c.name}: {a.style} attack" + (f" {number} of {of}" if following and number else "")
    checks = engine.turn_checks(c, needs_action=True, kind=a.style)
    # The next of several attacks: the movement was judged at the first (a charge's claws follow it).
    style = a.style if not following or a.style == "ranged" or turn.action != "charge" else "counter"  # type: ignore[union-attr]
    checks += attack_checks(e, c, t, weapon, style, cover=a.cover, second=a.second)
    if following and a.style == "charge":
        checks.append(Check("Not a second charge", False, "the next attack is a melee or a ranged attack"))
    engine.require(title, checks)
    engaged = engagement.engaged_by(e, c, _reach, lambda s, m: may_counter(e, s, m))
    if following:
        assert turn is not None
        turn.action_detail += f"; {weapon.name} at {t.name}"
    else:
        engine.use_action(c, a.style, f"{weapon.name} at {t.name}")
    turn = e.combat.turn
    assert turn is not None
    turn.attacks += 1
    weapons = [weapon] + ([c.weapon(a.second)] if a.second else [])
    numbered = f"attack {turn.attacks} of {c.attacks}" if c.attacks > 1 else ""
    events = strike(
        engine, c, t, weapons, a.style, dice, cover=a.cover, subdual=a.subdual, ability=a.ability, numbered=numbered
    )
    if a.style == "ranged" and engaged:
        events += queue_counters(engine, c, engaged, "shoots while engaged")
    return events


def counter_attack(engine: Engine, a: CounterAttack, dice: DiceSource) -> list[Event]:
    pending = engine.encounter.combat.pending
    item = pending_item(engine.encounter, a.index, "counter-attack", "Counter-attack")
    c, t = _osr(engine, item.who), _osr(engine, item.target or "")
    weapon = c.weapon(a.weapon) if a.weapon else c.best_melee()
    reasons = failed(
        [
            Check("Able to strike", not c.down and not cond.helpless(c), f"{c.name} cannot attack now"),
            Check("A melee weapon", weapon.melee, f"{weapon.name} is a missile weapon"),
            Check("A foe standing", not t.down, f"{t.name} is down already"),
        ]
    )
    if reasons:
        raise IllegalAction(f"{c.name}: counter-attack", reasons)
    pending.pop(a.index)
    return strike(engine, c, t, [weapon], "counter", dice)


def strike(
    engine: Engine,
    c: OsrCombatant,
    t: OsrCombatant,
    weapons: list[OsrWeapon],
    style: Style,
    dice: DiceSource,
    *,
    cover: str = "none",
    subdual: bool = False,
    ability: str = "best",
    numbered: str = "",
) -> list[Event]:
    """Roll to hit and, on a hit, the damage; apply it and what 0 HP sets off. ``numbered`` says
    which of a monster's several attacks this is ("attack 2 of 3")."""
    e = engine.encounter
    options: OsrOptions = e.options  # type: ignore[assignment]
    second = weapons[1].name if len(weapons) > 1 else ""
    hit = to_hit(e, c, t, weapons[0], style, cover=cover, second=second, ability=ability)
    what = {"counter": "counter-attacks", "charge": "charges", "ranged": "shoots at"}.get(style, "attacks")
    means = " and ".join(w.name for w in weapons)
    if hit.auto_hit:
        face = None
        roll_text = hit.auto_hit
        hits = True
    elif hit.edge:
        # Advantage or disadvantage: 2d20, the higher or the lower kept (RULES §12).
        first = roll_plain(dice, 20, f"d20 to hit {t.name} ({hit.edge_text()})").face
        other = roll_plain(dice, 20, f"second d20 to hit {t.name} ({hit.edge_text()})").face
        face = max(first, other) if hit.edge > 0 else min(first, other)
        hits = hit.hits(face)
        natural = " (natural 20: always hits)" if face == 20 else " (natural 1: always misses)" if face == 1 else ""
        roll_text = (
            f"{hit.edge_text()}: 2d20 [{first}, {other}] keeps {face} {hit.terms_text()} = {face + hit.bonus} "
            f"vs {hit.ac_text()}{natural}"
        )
    else:
        face = roll_plain(dice, 20, f"d20 to hit {t.name}").face
        hits = hit.hits(face)
        natural = " (natural 20: always hits)" if face == 20 else " (natural 1: always misses)" if face == 1 else ""
        cancel = f"{hit.edge_text()}: " if hit.advantage else ""
        roll_text = f"{cancel}d20 {face} {hit.terms_text()} = {face + hit.bonus} vs {hit.ac_text()}{natural}"
    detail: dict[str, int | float | str | bool | None] = {
        "attacker": c.id,
        "target": t.id,
        "weapon": means,
        "style": style,
        "d20": face,
        "bonus": hit.bonus,
        "ac": hit.ac,
        "hit": hits,
        "to_hit": roll_text,  # the roll in words, for the Action dock's result
        "numbered": numbered,
    }
    which = f" ({numbered})" if numbered else ""
    head = f"{c.name} {what} {t.name} with {means}{which}: {roll_text}"
    if not hits:
        event = RulesEvent(
            round=e.combat.round, text=f"{head}: miss", actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail
        )
        return [event]
    damage = roll_damage(dice, c, weapons, hit, options.minimum_damage)
    detail.update(damage=damage.amount, subdual=subdual)
    hit_words = "hit"
    if hit.critical:
        hit_words = f"critical hit (unconscious, within 5 ft: the damage dice rolled {times(hit.critical_rolls)})"
        detail.update(critical=True)
    if subdual:
        return _subdue(engine, c, t, damage, head, detail, hit_words)
    before = t.hp
    killed_before, out_before = _side_counts(e, t.side)
    t.hp = max(0, t.hp - damage.amount)
    overkill = max(0, damage.amount - before)
    detail.update(hp=t.hp, overkill=overkill, hp_max=t.hp_max, damage_roll=damage.text())
    text = f"{head}: {hit_words}; damage {damage.text()} → {t.name} {t.hp}/{t.hp_max} HP"
    events: list[Event] = [
        RulesEvent(round=e.combat.round, text=text, actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail)
    ]
    events += interrupt(engine, t, f"{damage.amount} damage")
    if t.hp == 0:
        events += _at_zero(engine, t, overkill, before)
        events += engagement.lapse(engine.encounter, "counter-attack", t)
    events += morale_triggers(engine, t.side, killed_before, out_before)
    return events


def _subdue(
    engine: Engine, c: OsrCombatant, t: OsrCombatant, damage: Damage, head: str, detail: dict, hit_words: str = "hit"
) -> list[Event]:
    e = engine.encounter
    t.subdual += damage.amount
    detail.update(subdual_total=t.subdual, hp=t.hp, damage_roll=damage.text())
    text = f"{head}: {hit_words}; subdual damage {damage.text()} → {t.subdual} subdual against {t.hp} HP"
    events: list[Event] = [
        RulesEvent(round=e.combat.round, text=text, actors=(c.id, t.id), ruleset=NAME, name="attack", detail=detail)
    ]
    events += interrupt(engine, t, f"{damage.amount} subdual damage")
    if t.subdual >= t.hp and t.morale_result is None:
        t.morale_result = MoraleResult.SURRENDERS
        events.append(
            RulesEvent(
                round=e.combat.round,
                text=f"{t.name} is subdued ({t.subdual} subdual ≥ {t.hp} HP) and surrenders",
                actors=(t.id,),
                ruleset=NAME,
                name="subdued",
                detail={"combatant": t.id},
            )
        )
    return events


def death_save_dc(overkill: int) -> int:
    """RULES §12: DC 11 + the damage beyond what took the PC to exactly 0 (3 HP, 10 damage: DC 18)."""
    return 11 + overkill


def _at_zero(engine: Engine, t: OsrCombatant, overkill: int, before: int) -> list[Event]:
    e = engine.encounter
    rnd = e.combat.round
    if t.kind is not Kind.PC:
        return [
            WentDown(round=rnd, text=f"{t.name} is defeated (0 HP)", actors=(t.id,), combatant=t.id, overkill=overkill)
        ]
    dc = death_save_dc(overkill)
    bonus = t.save_bonus(SaveCategory.POISON)
    text = (
        f"{t.name} drops to 0 HP: death save d20 {bonus:+d} (Poison or Death) against DC {dc} "
        f"(11 + {overkill} overkill)"
    )
    e.combat.pending.append(Pending(kind="death save", who=t.id, text=text, number=dc, urgent=True, round=rnd))
    return [WentDown(round=rnd, text=text, actors=(t.id,), combatant=t.id, overkill=overkill)]


def death_save(engine: Engine, a: DeathSave, dice: DiceSource) -> list[Event]:
    item = pending_item(engine.encounter, a.index, "death save", "Death save")
    engine.encounter.combat.pending.pop(a.index)
    pc = _osr(engine, item.who)
    dc = item.number or 11
    # Exhaustion lowers saves as it lowers attacks ([D] 1 a level).
    bonus = pc.save_bonus(SaveCategory.POISON) - cond.level(pc) * int(
        getattr(engine.encounter.options, "exhaustion_penalty", 1)
    )
    face = roll_plain(dice, 20, f"death save d20 for {pc.name} (DC {dc})").face
    total = face + bonus
    if total >= dc:
        if "unconscious" not in pc.conditions:
            pc.conditions.append("unconscious")
        outcome = "success: unconscious at 0 HP"
    else:
        pc.dead = True
        outcome = "failure: dead"
    text = f"{pc.name}'s death save: d20 {face} {bonus:+d} = {total} vs DC {dc}: {outcome}"
    detail: dict[str, int | float | str | bool | None] = {
        "combatant": pc.id,
        "d20": face,
        "dc": dc,
        "success": total >= dc,
        "roll": f"d20 {face} {bonus:+d} = {total}",
    }
    return [
        RulesEvent(
            round=engine.encounter.combat.round,
            text=text,
            actors=(pc.id,),
            ruleset=NAME,
            name="death save",
            detail=detail,
        )
    ]


def saving_throw(engine: Engine, a: SavingThrow, dice: DiceSource) -> list[Event]:
    c = _osr(engine, a.combatant)
    try:
        category = SaveCategory(a.category)
    except ValueError:
        known = ", ".join(s.value for s in SaveCategory)
        raise IllegalAction(f"{c.name}: saving throw", [f"no category {a.category!r} (one of {known})"]) from None
    if not 1 <= a.dc <= 40:
        raise IllegalAction(f"{c.name}: saving throw", [f"DC {a.dc}: give a DC from 1 to 40"])
    # Exhaustion lowers saves as it lowers attacks ([D] 1 a level).
    bonus = c.save_bonus(category) - cond.level(c) * int(getattr(engine.encounter.options, "exhaustion_penalty", 1))
    face = roll_plain(dice, 20, f"saving throw d20 for {c.name} ({category.value}, DC {a.dc})").face
    total = face + bonus
    outcome = "saved" if total >= a.dc else "failed"
    why = f" ({a.reason.strip()})" if a.reason.strip() else ""
    text = f"{c.name} saves against {category.value}{why}: d20 {face} {bonus:+d} = {total} vs DC {a.dc}: {outcome}"
    detail: dict[str, int | float | str | bool | None] = {
        "combatant": c.id,
        "category": category.value,
        "d20": face,
        "dc": a.dc,
        "success": total >= a.dc,
        "roll": f"d20 {face} {bonus:+d} = {total}",
    }
    events: list[Event] = [
        RulesEvent(
            round=engine.encounter.combat.round,
            text=text,
            actors=(c.id,),
            ruleset=NAME,
            name="saving throw",
            detail=detail,
        )
    ]
    if total < a.dc:
        events += interrupt(engine, c, f"failed a save against {category.value}")
    return events


def defend(engine: Engine, a: Defend, dice: DiceSource) -> list[Event]:
    c = _osr(engine, a.combatant)
    ally = _osr(engine, a.ally) if a.ally and a.ally != c.id else None
    checks = engine.turn_checks(c, needs_action=True) + movement_checks(engine.encounter, c, "defend")
    if ally is not None:
        feet = distance(engine.encounter, c, ally)
        checks.append(Check("An ally", ally.side is c.side, f"{ally.name} is not on {c.name}'s side"))
        checks.append(Check("Adjacent", feet is not None and feet <= 5, f"{ally.name} is not next to {c.name}"))
    engine.require(f"{c.name}: defend", checks)
    engine.use_action(c, "defend", ally.name if ally else "")
    c.defending = ally.id if ally else c.id
    words = f"guards {ally.name} (+2 AC to {ally.name})" if ally else "defends (+2 AC)"
    return [_taken(engine, c, "defend", f"{c.name} {words} until its next turn; no move")]


def stood(encounter: Encounter, c: OsrCombatant) -> float:
    """The movement ``c`` spent getting up this turn (read from the log since its turn began)."""
    from lnl_desktop.core.encounter.events import ActionTaken, TurnStarted

    spent = 0.0
    for event in reversed(encounter.log):
        if isinstance(event, TurnStarted):
            break
        if isinstance(event, ActionTaken) and event.action == "stand up" and event.combatant == c.id:
            spent += c.move_ft / 2
    return spent


def stand_up(engine: Engine, a: StandUp, dice: DiceSource) -> list[Event]:
    c = _osr(engine, a.combatant)
    cost = c.move_ft / 2
    left = engine.feet_left(c.id) or 0.0
    written = cond.entry(c, "prone")
    checks = engine.turn_checks(c, needs_action=False)
    checks.append(Check("Prone", written is not None, f"{c.name} is not prone"))
    checks.append(
        Check(f"{cost:g} ft of movement left", left >= cost, f"{left:g} ft left: standing costs half the Move")
    )
    engine.require(f"{c.name}: stand up", checks)
    turn = engine.encounter.combat.turn
    assert turn is not None
    if turn.action is None:
        turn.feet_before += cost
    else:
        turn.feet_after += cost
    c.conditions = [x for x in c.conditions if x != written]
    return [_taken(engine, c, "stand up", f"{c.name} stands up (half its Move, {cost:g} ft)")]


def take_move(engine: Engine, a: TakeMove, dice: DiceSource) -> list[Event]:
    c = _osr(engine, a.combatant)
    engine.use_action(c, "move")
    return [_taken(engine, c, "move", f"{c.name} moves (up to {c.move_ft} ft this turn)")]


def cast(engine: Engine, a: Cast, dice: DiceSource) -> list[Event]:
    c = _osr(engine, a.caster)
    text = a.text.strip()
    checks = engine.turn_checks(c, needs_action=True) + movement_checks(engine.encounter, c, "cast")
    checks.append(Check("Say the spell", bool(text), "type the spell's name"))
    target = _osr(engine, a.target) if a.target else None
    checks += spell_checks(engine.encounter, c, target, a.harmful)
    engine.require(f"{c.name}: cast a spell", checks)
    engine.use_action(c, "cast", text)
    at = f" at {_osr(engine, a.target).name}" if a.target else ""
    if a.lasting:
        c.casting = text
        words = (
            f"{c.name} begins casting {text}{at}: it goes off as its next turn begins, "
            "unless damage or a failed save interrupts it"
        )
        return [_taken(engine, c, "cast", words)]
    return [_taken(engine, c, "cast", f"{c.name} casts {text}{at} (no move this turn)")]


def interrupt(engine: Engine, c: OsrCombatant, why: str) -> list[Event]:
    """A spell under way is lost when its caster takes damage or fails a save (RULES §12)."""
    if c.casting is None:
        return []
    spell, c.casting = c.casting, None
    return [
        RulesEvent(
            round=engine.encounter.combat.round,
            text=f"{c.name}'s {spell} is interrupted: {why}",
            actors=(c.id,),
            ruleset=NAME,
            name="spell interrupted",
            detail={"combatant": c.id, "spell": spell},
        )
    ]


def _taken(engine: Engine, c: OsrCombatant, action: str, text: str) -> Event:
    from lnl_desktop.core.encounter.events import ActionTaken

    return ActionTaken(round=engine.encounter.combat.round, text=text, actors=(c.id,), combatant=c.id, action=action)


# -- conditions that act -------------------------------------------------------------------------

BURNING_DICE = "1d6"  # RULES §12: a burning creature's fire damage each turn
CONFUSION = {1: "attacks the nearest creature", 2: "moves randomly", 3: "moves randomly", 4: "moves randomly"}


def _fear_allows(encounter: Encounter, c: OsrCombatant, path: list[tuple[int, int]]) -> None:
    """A frightened creature's move may not end closer to what it fears (RULES §12); the engine
    undoes the move when this refuses it."""
    feared = cond.source(encounter, c, "frightened")
    token = encounter.tokens.get(feared.id) if feared is not None else None
    if feared is None or token is None or len(path) < 2:
        return
    grid = encounter.map

    def feet(cell: tuple[int, int]) -> float:
        return token_distance_ft(cell, c.size, token.cell, feared.size, grid.diagonal, grid.feet_per_cell)

    if feet(path[-1]) < feet(path[0]):
        raise IllegalAction(
            f"Move of {c.name}",
            [
                f"{c.name} is frightened of {feared.name}: a move may not end closer to it "
                f"({feet(path[-1]):g} ft, from {feet(path[0]):g} ft)"
            ],
        )


def turn_start_conditions(engine: Engine, c: OsrCombatant) -> list[Event]:
    """Burning and confused act as the creature's turn begins: each is asked for at once."""
    e = engine.encounter
    rnd = e.combat.round
    events: list[Event] = []
    asks = []
    if cond.has(c, "burning"):
        asks.append(("burning", f"{c.name} is burning: {e.options.burning_dice} fire damage as its turn begins"))
    if cond.has(c, "confused"):
        asks.append(
            (
                "confused",
                f"{c.name} is confused: a d6 as its turn begins (1 attack the nearest, 2-4 move randomly, 5-6 nothing)",
            )
        )
    for kind, text in asks:
        e.combat.pending.append(Pending(kind=kind, who=c.id, text=text, urgent=True, round=rnd))
        events.append(
            RulesEvent(
                round=rnd, text=text, actors=(c.id,), ruleset=NAME, name=f"{kind} due", detail={"combatant": c.id}
            )
        )
    return events


def burn(engine: Engine, a: Burn, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    item = pending_item(e, a.index, "burning", "Burning")
    t = _osr(engine, item.who)
    e.combat.pending.pop(a.index)
    burning = e.options.burning_dice  # RULES §12 [D]: 1d6 unless the GM set another
    count, sides, flat = parse_dice(burning)
    faces = [roll_plain(dice, sides, f"fire damage d{sides} for {t.name}").face for _ in range(count)]
    amount = max(0, sum(faces) + flat)
    shown = "+".join(str(f) for f in faces)
    return hurt(engine, t, amount, f"{t.name} burns: {burning} [{shown}] = {amount} fire damage", "burning")


def hurt(engine: Engine, t: OsrCombatant, amount: int, head: str, name: str) -> list[Event]:
    """Damage that is no attack (fire) lands as a hit's would: HP, a spell interrupted, a monster
    defeated or a PC's death save at 0 (again at 0: against 11 + the damage), the morale prompts."""
    e = engine.encounter
    before = t.hp
    killed_before, out_before = _side_counts(e, t.side)
    t.hp = max(0, t.hp - amount)
    overkill = max(0, amount - before)
    detail: dict[str, int | float | str | bool | None] = {
        "combatant": t.id,
        "damage": amount,
        "hp": t.hp,
        "hp_max": t.hp_max,
    }
    text = f"{head} → {t.name} {t.hp}/{t.hp_max} HP"
    events: list[Event] = [
        RulesEvent(round=e.combat.round, text=text, actors=(t.id,), ruleset=NAME, name=name, detail=detail)
    ]
    if amount:
        events += interrupt(engine, t, f"{amount} damage")
    if t.hp == 0 and amount and not t.dead:
        events += _at_zero(engine, t, overkill, before)
        events += engagement.lapse(e, "counter-attack", t)
    events += morale_triggers(engine, t.side, killed_before, out_before)
    return events


def confusion(engine: Engine, a: Confusion, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    item = pending_item(e, a.index, "confused", "Confusion")
    c = _osr(engine, item.who)
    e.combat.pending.pop(a.index)
    face = roll_plain(dice, 6, f"confusion d6 for {c.name}").face
    does = CONFUSION.get(face, "does nothing")
    text = f"{c.name} is confused: d6 {face}: {does} this turn"
    detail: dict[str, int | float | str | bool | None] = {"combatant": c.id, "d6": face, "does": does}
    return [RulesEvent(round=e.combat.round, text=text, actors=(c.id,), ruleset=NAME, name="confusion", detail=detail)]


# -- morale -------------------------------------------------------------------------------------


def _side_counts(e: Encounter, side: Side) -> tuple[int, int]:
    """(members down, members out of the fight) of a side."""
    members = [c for c in e.combatants if c.side is side]
    return sum(c.down for c in members), sum(c.out_of_fight for c in members)  # type: ignore[attr-defined]


def morale_eligible(c: OsrCombatant) -> bool:
    return c.has_morale and not c.out_of_fight and c.morale_passes < 2


def morale_triggers(engine: Engine, side: Side, killed_before: int, out_before: int) -> list[Event]:
    """Queue a side's morale check when its first member falls, and when half of it is out of the fight."""
    e = engine.encounter
    members = [c for c in e.combatants if c.side is side]
    killed, out = _side_counts(e, side)
    reasons = []
    if killed_before == 0 and killed >= 1:
        reasons.append(f"the first of the {side.value} has fallen")
    if out_before * 2 < len(members) <= out * 2:
        reasons.append(f"half of the {side.value} are out of the fight")
    if not reasons or not any(morale_eligible(c) for c in members):  # type: ignore[arg-type]
        return []
    if any(p.kind == "morale" and p.who == side.value for p in e.combat.pending):
        return []
    why = " and ".join(reasons)
    text = f"Morale check for the {side.value}: {why}"
    e.combat.pending.append(Pending(kind="morale", who=side.value, text=text, urgent=True, round=e.combat.round))
    return [RulesEvent(round=e.combat.round, text=text, ruleset=NAME, name="morale due", detail={"side": side.value})]


def morale_check(engine: Engine, a: MoraleCheck, dice: DiceSource) -> list[Event]:
    e = engine.encounter
    try:
        side = Side(a.side)
        outcome = MoraleResult(a.outcome)
    except ValueError as error:
        raise IllegalAction("Morale check", [str(error)]) from None
    if not -2 <= a.modifier <= 2:
        raise IllegalAction("Morale check", [f"a situational modifier is -2 to +2 (not {a.modifier:+d})"])
    pending = e.combat.pending
    if a.index >= 0:
        pending_item(e, a.index, "morale", "Morale check")
    members = [c for c in e.side(side) if morale_eligible(c)]  # type: ignore[arg-type]
    if not members:
        raise IllegalAction(
            "Morale check", [f"none of the {side.value} checks morale (PCs, the fallen, and two passes are exempt)"]
        )
    if a.index >= 0:
        pending.pop(a.index)
    faces = [roll_plain(dice, 6, f"morale 2d6 for the {side.value}").face for _ in range(2)]
    roll = sum(faces)
    lines = []
    for c in members:
        assert c.morale is not None
        if c.morale == 12:
            lines.append(f"{c.name} (morale 12) fights to the death")
            continue
        if c.morale == 2:
            if a.cornered:
                lines.append(f"{c.name} (morale 2) is cornered and fights")
            else:
                c.morale_result = outcome
                lines.append(f"{c.name} (morale 2) {outcome.value}")
            continue
        score = c.morale + a.modifier
        shown = f"morale {c.morale}{a.modifier:+d} = {score}" if a.modifier else f"morale {score}"
        if roll <= score:
            c.morale_passes += 1
            last = "; fights on to the end" if c.morale_passes == 2 else ""
            lines.append(f"{c.name} ({shown}) stands{last}")
        else:
            c.morale_result = outcome
            lines.append(f"{c.name} ({shown}) {outcome.value}")
    why = f" ({a.reason})" if a.reason else ""
    text = f"Morale of the {side.value}{why}: 2d6 [{faces[0]}+{faces[1]}] = {roll}; " + "; ".join(lines)
    detail: dict[str, int | float | str | bool | None] = {"side": side.value, "roll": roll, "modifier": a.modifier}
    return [
        RulesEvent(
            round=e.combat.round,
            text=text,
            actors=tuple(c.id for c in members),
            ruleset=NAME,
            name="morale",
            detail=detail,
        )
    ]


# -- initiative ---------------------------------------------------------------------------------


@dataclass
class _Entry:
    title: str
    members: list[str]
    face: int
    bonus: int
    pcs: bool
    who: str  # the roller's name for the die's purpose
    tiebreak: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.face + self.bonus


def roll_initiative(engine: Engine, dice: DiceSource) -> tuple[list[TurnSlot], str]:
    """Initiative by group (d20 + the leader's INIT, one roll per side) or individually (d20 + INIT
    each); highest first; ties: PCs first, then the higher INIT, then a tie-break d20."""
    e = engine.encounter
    options: OsrOptions = e.options  # type: ignore[assignment]
    able: list[OsrCombatant] = [
        c
        for c in e.combatants
        if not c.down and c.morale_result is not MoraleResult.SURRENDERS  # type: ignore[attr-defined]
    ]
    entries: list[_Entry] = []
    group = InitiativeMode(options.initiative) is InitiativeMode.GROUP
    if group:
        for side in (Side.PARTY, Side.OPPONENTS):
            members = [c for c in able if c.side is side]
            if not members:
                continue
            leader = next((c for c in members if c.leader), members[0])
            face = roll_plain(
                dice, 20, f"initiative d20 for the {side.value} ({leader.name}, INIT {leader.init_mod:+d})"
            ).face
            entries.append(
                _Entry(
                    f"{side.value} ({leader.name} leads)",
                    [c.id for c in e.combatants if c.side is side],
                    face,
                    leader.init_mod,
                    any(c.kind is Kind.PC for c in members),
                    side.value,
                )
            )
    else:
        for c in able:
            face = roll_plain(dice, 20, f"initiative d20 for {c.name} (INIT {c.init_mod:+d})").face
            entries.append(_Entry(c.name, [c.id], face, c.init_mod, c.kind is Kind.PC, c.name))

    def key(x: _Entry) -> tuple[int, bool, int]:
        return (x.total, x.pcs, x.bonus)

    # Tie-break d20s where total, PC-ness and INIT all tie, rolled again until they differ.
    by_key: dict[tuple[int, bool, int], list[_Entry]] = {}
    for entry in entries:
        by_key.setdefault(key(entry), []).append(entry)
    for tied in by_key.values():
        while len(tied) > 1:
            for entry in tied:
                entry.tiebreak.append(roll_plain(dice, 20, f"tie-break d20 for {entry.who}").face)
            faces = [x.tiebreak[-1] for x in tied]
            tied = [x for x in tied if faces.count(x.tiebreak[-1]) > 1]
    entries.sort(key=lambda x: (key(x), x.tiebreak), reverse=True)
    slots = []
    for entry in entries:
        roll = f"d20 {entry.face} {entry.bonus:+d} INIT = {entry.total}"
        if entry.tiebreak:
            roll += f" (tie-break {', '.join(str(f) for f in entry.tiebreak)})"
        slots.append(TurnSlot(title=entry.title, members=entry.members, roll=roll, total=entry.total))
    how = "by group" if group else "individually"
    listed = "; ".join(f"{s.title.split(' (')[0]} {s.roll}" for s in slots)
    return slots, f"initiative {how}: {listed}"


def considerations(options: OsrOptions) -> str:
    light = Light(options.light)
    return "light normal" if light is Light.NORMAL else f"light {light.value} ({LIGHT_PENALTY[light]} to attacks)"
