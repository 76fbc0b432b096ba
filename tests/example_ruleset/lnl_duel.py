"""Duel: the smallest complete ruleset for Laurels & Loot Desktop (an example, and a test of the seam).

One d6 a round says which side acts first: 1-3 the Opponents, 4-6 the Party. On its turn a
combatant may move and take one action: a Strike on a foe within 5 ft (its damage die less the
target's defense, at least the options' minimum) or anything else, in words. At 0 HP a combatant
is down. The GM may deal damage or heal by hand, and throw an area effect (a fire pot, falling
rocks): one roll of its dice, each target's defense off it. The Fight odds play the rest of a fight
thousands of times over by the default tactic.

It is written as capabilities (``lnl_desktop.core.rules.capabilities``): :class:`DuelRuleset`'s
``__init__`` composes one object per capability, each a few methods wide, and overrides none of
the base class's hooks. There is no SP, no IP, no parry and no sneak attack: one health number, HP.

Everything else, turns, movement, the map, the log, undo, files and the recovery journal, is the
engine's. This module imports only the rules core, never Qt, and no file of ``lnl_desktop``
names it: the ``lnl_desktop.rulesets`` entry point in ``pyproject.toml`` is how it is found.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from lnl_desktop.core.dice import notation
from lnl_desktop.core.dice.odds import Forecast, Threshold
from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.areas import area_words
from lnl_desktop.core.encounter.events import (
    AreaEffectResolved,
    AreaTarget,
    CombatantChanged,
    Event,
    RulesEvent,
    WentDown,
)
from lnl_desktop.core.encounter.model import CombatantBase, Encounter, OptionsBase, Phase, Side
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.areas import AreaShape
from lnl_desktop.core.rules.base import (
    ActionResult,
    ActionSpec,
    AreaMeans,
    AreaOdds,
    AreaSpec,
    Column,
    Gauge,
    Handler,
    RowAction,
    Ruleset,
    SheetRow,
    SheetSpec,
    Situation,
    StartProcedure,
    TokenTip,
    area_result,
    following,
)
from lnl_desktop.core.rules.common import Check, Opening, RoundOrder
from lnl_desktop.core.rules.fight import (
    MAX_ROUNDS,
    MELEE_FT,
    NEITHER,
    OPPONENTS,
    PARTY,
    Battlefield,
    SimOutcome,
    approach_path,
    close_in,
    empty_outcome,
    melee_gaps,
)
from lnl_desktop.core.rules.shared import (
    D20Conditions,
    FeetMovement,
    GmSaysRounds,
    NoPrompts,
    SideTurns,
    attack_of_action,
    said_checks,
)
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

np = lazy_module("numpy")

NAME = "duel"
TITLE = "Duel (example)"
ROLL = "roll"

# -- model: the stat block and the options ---------------------------------------------------------


class DuelStats(CombatantBase):
    """A duellist: HP, a damage die and a defense, on top of the shared fields (name, side, Move...)."""

    hp: int = Field(ge=0, le=999, description="current HP")
    hp_max: int = Field(ge=1, le=999)
    damage_die: Literal[4, 6, 8, 10, 12] = Field(default=6, description="sides of the die a Strike rolls")
    defense: int = Field(default=0, ge=0, le=20, description="taken off every Strike this combatant takes")

    @model_validator(mode="before")
    @classmethod
    def _fresh(cls, data: Any) -> Any:
        # A new combatant starts unhurt.
        if isinstance(data, dict) and "hp" not in data and "hp_max" in data:
            data = {**data, "hp": data["hp_max"]}
        return data

    @model_validator(mode="after")
    def _within_max(self) -> DuelStats:
        if self.hp > self.hp_max:
            raise ValueError(f"hp: {self.hp} HP is above the maximum of {self.hp_max}")
        return self

    @property
    def down(self) -> bool:
        return self.hp == 0


class DuelOptions(OptionsBase):
    """Duel's one rules decision, next to the shared ones (difficult terrain)."""

    minimum_damage: int = Field(default=1, ge=0, le=5, description="a Strike never does less than this")


@dataclass(frozen=True)
class Strike:
    """``attacker`` strikes ``target`` with its damage die (ids, like every action)."""

    attacker: str
    target: str


# -- rules: the arithmetic, nothing else ------------------------------------------------------------


def initiative(face: int) -> Side:
    """The side a d6 puts first: 1-3 the Opponents, 4-6 the Party."""
    if not 1 <= face <= 6:
        raise IllegalAction("Initiative", [f"{face} is not a face of a d6 (1 to 6)"])
    return Side.OPPONENTS if face <= 3 else Side.PARTY


def strike_damage(face: int, defense: int, least: int) -> int:
    """A Strike's damage: the face less the target's defense, never below the options' minimum."""
    return max(least, face - defense)


def area_damage(total: int, defense: int) -> int:
    """An area effect's damage to one target: the roll less its defense, never below 0."""
    return max(0, total - defense)


def in_reach(encounter: Encounter, a: DuelStats, b: DuelStats) -> bool:
    """Whether ``b`` stands within a Strike's 5 ft of ``a`` (off the map: the GM's word, so yes)."""
    feet = encounter.distance_between(a, b)
    return feet is None or feet <= MELEE_FT


def land(t: DuelStats, damage: int) -> int:
    """Take ``damage`` off ``t``'s HP (not below 0); what came off."""
    dealt = min(damage, t.hp)
    t.hp -= dealt
    return dealt


def went_down(rnd: int, t: DuelStats, overkill: int) -> list[Event]:
    """The line that says ``t`` is down, once its HP reach 0."""
    if not t.down:
        return []
    return [WentDown(round=rnd, text=f"{t.name} is down", actors=(t.id,), combatant=t.id, overkill=overkill)]


# -- actions: the Strike's handler and the Action dock's words -------------------------------------


def strike(engine: Table, a: Strike, dice: DiceSource) -> list[Event]:
    """Check, roll, then write: a refused Strike changes nothing and reads no die."""
    attacker, target = engine.combatant(a.attacker), engine.combatant(a.target)
    title = f"{attacker.name} strikes {target.name}"
    checks = engine.turn_checks(attacker, needs_action=True)
    checks += [
        Check("Another combatant", attacker.id != target.id, "cannot strike itself"),
        Check("Target is up", not target.down, f"{target.name} is already down"),
        Check("Within 5 ft", in_reach(engine.encounter, attacker, target), f"{target.name} is out of reach"),
    ]
    engine.require(title, checks)
    face = roll_plain(dice, attacker.damage_die, f"{attacker.name}'s d{attacker.damage_die}").face
    damage = strike_damage(face, target.defense, engine.encounter.options.minimum_damage)
    engine.use_action(attacker, "strike", f"on {target.name}")
    dealt = land(target, damage)
    rnd = engine.encounter.combat.round
    return [
        RulesEvent(
            round=rnd,
            text=f"{title}: d{attacker.damage_die} {face} - defense {target.defense} = {damage}; "
            f"{target.name} has {target.hp}/{target.hp_max} HP",
            actors=(attacker.id, target.id),
            ruleset=NAME,
            name="strike",
            detail={"face": face, "defense": target.defense, "damage": damage, "hp": target.hp},
        ),
        *went_down(rnd, target, damage - dealt),
    ]


def die_name(c: DuelStats) -> str:
    """A Strike's means in the Action dock: the striker's damage die ("d8")."""
    return f"d{c.damage_die}"


def build_strike(c: str, target: str, means: str | None = None, **toggles: bool) -> Strike:
    """The Action dock's choices as a Strike: it passes every targeted action its means (the damage
    die, which the Strike reads from the striker) and its GM toggles (ignore DEX, override)."""
    return Strike(c, target)


STRIKE = ActionSpec(
    "strike",
    "Strike",
    "Roll your damage die; the target's defense comes off",
    "weapon",  # its means is the striker's damage die: the Forecast dock forecasts it
    build_strike,
    targeted=True,
    button="Strike",
    rolls=True,
)
OTHER = ActionSpec("other", "Something else…", "Anything the GM allows, in words for the log", "text", act.OtherAction)


class DuelActions:
    """A Strike or anything else in words: one action a turn."""

    handlers: Mapping[type, Handler] = {Strike: strike}
    hooks_with_extras: frozenset[str] = frozenset()

    def kinds(self) -> tuple[ActionSpec, ...]:
        return (STRIKE, OTHER)

    def available(self, spec: ActionSpec, c: Any) -> tuple[bool, str]:
        return True, ""

    def choices(self, spec: ActionSpec, c: Any) -> list[tuple[str, str, str]]:
        if spec.key != "strike":
            return []
        return [(die_name(c), f"{die_name(c)}: the damage die", "")]

    def checks(self, encounter: Encounter, spec: ActionSpec, c: DuelStats, means: str | None, text: str,
               target: Any = None, extras: Mapping[str, Any] | None = None) -> list[Any]:  # fmt: skip
        if spec.key == "strike" and target is not None:
            return [
                Check("Target is up", not target.down, f"{target.name} is down"),
                Check("Within 5 ft", in_reach(encounter, c, target), f"{target.name} is out of reach: move closer"),
            ]
        return said_checks(spec, text)

    def notes(self, encounter: Encounter, spec: ActionSpec, c: DuelStats, means: str | None, target: Any,
              extras: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:  # fmt: skip
        if spec.key != "strike" or target is None:
            return []
        least = encounter.options.minimum_damage
        low, high = strike_damage(1, target.defense, least), strike_damage(c.damage_die, target.defense, least)
        return [(f"{target.name}:", f"defense {target.defense}, so {low} to {high} damage; {target.hp} HP left.")]

    def still_open(self, encounter: Encounter, c: Any, kind: str | None = None) -> str:
        return ""

    def opening(self, encounter: Encounter, c: Any) -> str | None:
        return None

    def result(self, encounter: Encounter, event: Any, after: list[Any]) -> ActionResult | None:
        if isinstance(event, AreaEffectResolved):
            return area_result(event, following(after, (WentDown,)))
        return None

    def means(self, c: Any, name: str, spell: bool = False) -> Any:
        """A Strike's means: the striker's damage die, by its name ("d8")."""
        if spell or name != die_name(c):
            raise LookupError(f"{c.name} strikes with its {die_name(c)}, not {name!r}")
        return c.damage_die


# -- attacks: who a Strike strikes, and what it would do -------------------------------------------


class DuelAttacks:
    """A Strike is the one attack: it turns its striker to the target; its damage is forecast exactly."""

    checks_modes = False

    def attack_of(self, encounter: Encounter, action: Any) -> tuple[str, str] | None:
        return attack_of_action(encounter, action, FeetMovement.provocation_word)

    def checks(self, encounter: Encounter, attacker: Any, target: Any, means: Any, mode: Any) -> list[Any]:
        return []

    def concealment(self, encounter: Encounter, attacker: Any, target: Any) -> list[Any]:
        return []

    def sections(self, encounter: Encounter, attacker: Any, target: Any, means: Any) -> tuple[Any, ...]:
        return ()

    def forecast(self, attacker: Any, target: Any, means: Any, mode: Any, options: Any, *, ignore_dex: bool = False,
                 encounter: Encounter | None = None, extras: Mapping[str, Any] | None = None) -> Any:  # fmt: skip
        """A Strike's damage, face by face of the striker's die; the chance it leaves the target at 0 HP."""
        if not isinstance(attacker, DuelStats) or not isinstance(target, DuelStats) or target.down:
            return None  # a Strike on a fallen foe is refused: nothing to forecast
        least, sides = options.minimum_damage, attacker.damage_die
        damage: dict[int, float] = {}
        taken: dict[int, float] = {}
        for face in range(1, sides + 1):
            d = strike_damage(face, target.defense, least)
            damage[d] = damage.get(d, 0.0) + 1 / sides
            taken[min(d, target.hp)] = taken.get(min(d, target.hp), 0.0) + 1 / sides
        p_down = sum(p for d, p in damage.items() if d >= target.hp)
        mean = sum(d * p for d, p in damage.items())
        down_from = target.hp if target.hp else None
        return Forecast(
            damage=damage,
            mean=mean,
            taken=taken,
            p_sp_empty=0.0,
            p_down=p_down,
            p_precision=None,
            summary=f"≈ {mean:.1f} damage; {p_down:.0%} to drop {target.name}",
            direct=False,
            dice=1,
            sides=sides,
            formula=f"1d{sides} - {target.defense} defense",
            mean_taken=sum(d * p for d, p in taken.items()),
            down_from=down_from,
            where="to HP",
            exploding=False,
            thresholds=(Threshold("0 HP", target.hp, p_down, down=True),),
        )


# -- views: what the sheet, the tables, the tokens and an export show ------------------------------


class DuelViews:
    """One health number, HP; a die and a defense."""

    def sheet(self) -> SheetSpec:
        return SheetSpec(
            identity=(),
            numbers_title="Health and fighting",
            numbers=(
                SheetRow("HP (now / max)", ("hp", "hp_max"), "Hit points left, and when unhurt; at 0 HP it is down"),
                SheetRow("Damage die", ("damage_die",), "Sides of the die a Strike rolls: 4, 6, 8, 10 or 12", "sides"),
                SheetRow("Defense", ("defense",), "Taken off every Strike this combatant takes"),
            ),
            tips={"surprised": "Duel has no surprise: nobody starts surprised"},
        )

    def columns(self) -> tuple[Column, ...]:
        return (
            Column("HP", "Hit points, now / max", lambda c: f"{c.hp}/{c.hp_max}"),
            Column("Die", "The die a Strike rolls", lambda c: f"d{c.damage_die}", numeric=False),
            Column("Def", "Defense: taken off every Strike", lambda c: c.defense),
        )

    def gauges(self, c: DuelStats) -> tuple[Gauge, ...]:
        return (Gauge("HP", c.hp, c.hp_max, "health"),)

    def gauge_labels(self) -> tuple[str, ...]:
        return ("HP",)

    def token_word(self, c: DuelStats) -> str:
        return "down" if c.down else ""

    def markers(self, c: DuelStats) -> tuple[str, ...]:
        return tuple(c.conditions)

    def summary(self, c: DuelStats) -> str:
        parts = [c.side.value, f"HP {c.hp}/{c.hp_max}", f"d{c.damage_die}", f"defense {c.defense}"]
        return " · ".join([*parts, "down"] if c.down else parts)

    def stat_line(self, c: DuelStats) -> str:
        return f"HP {c.hp_max}  d{c.damage_die}  Def {c.defense}  Move {c.move_ft} ft"

    def new_combatant(self) -> dict[str, Any]:
        return {"name": "New combatant", "side": Side.PARTY.value, "hp_max": 6}

    def token_icons(self, c: DuelStats) -> frozenset[str]:
        return frozenset()  # no guard to keep up, no weapon to break

    def token_tip(self, c: DuelStats) -> TokenTip:
        return TokenTip(numbers=(f"d{c.damage_die}", f"Def {c.defense}"))

    def export_columns(self) -> tuple[str, ...]:
        # What the shared events' table cells hold (an area effect's dice and total), then Duel's own titles.
        return ("dice", "damage", "to HP", "HP left", "", "")


# -- rounds: a d6 says which side acts first, each round -------------------------------------------


class DuelRounds(GmSaysRounds):
    """A d6 at the start of combat and of every round: 1-3 the Opponents act first, 4-6 the Party."""

    def __init__(self) -> None:
        super().__init__(TITLE)

    def start_procedure(self) -> StartProcedure:
        return StartProcedure(
            question="Who strikes first?",
            situations=(Situation(ROLL, "Roll a d6", "1-3: the Opponents act first; 4-6: the Party"),),
            die_label="initiative",
            reading=lambda situation, face: initiative(face).acts_first,
            by_hand_surprise=False,
        )

    def initiative(self, face: int) -> Side:
        return initiative(face)

    def open_combat(self, engine: Table, action: Any, dice: DiceSource) -> Opening:
        if action.situation != ROLL:
            raise IllegalAction("Start combat", [f"{action.situation!r} is not a situation of {TITLE} ({ROLL})"])
        face = action.face if action.face is not None else roll_plain(dice, 6, "initiative").face
        first = initiative(face)
        return Opening(ROLL, first, None, f"Round 1: d6 {face}, {first.acts_first}", face=face)

    def round_order(self, engine: Table, action: Any, dice: DiceSource) -> RoundOrder:
        face = action.face if action.face is not None else roll_plain(dice, 6, "initiative").face
        first = initiative(face)
        return RoundOrder(first, face, f"d6 {face}, {first.acts_first}")

    def row_actions(self, engine: Table, c: Any) -> tuple[RowAction, ...]:
        return ()


# -- health: damage and healing by hand ------------------------------------------------------------


class DuelHealth:
    """HP off (a trap's, a fall's) or back (a potion's), as the GM types it."""

    def kinds(self, heal: bool) -> tuple[tuple[str, str], ...]:
        return (("hp", "HP"),)

    def fields(self) -> Mapping[str, str]:
        return {"hp": "hp"}  # a typed HP is damage or healing, never a bare write

    def by_hand(self, engine: Table, c: DuelStats, amount: int, heal: bool, kind: str) -> list[Event]:
        rnd = engine.encounter.combat.round
        before = c.hp
        if heal:
            if c.hp >= c.hp_max:
                raise IllegalAction(f"Heal {c.name}", [f"{c.name} is already at its maximum of {c.hp_max} HP"])
            c.hp = min(c.hp_max, c.hp + amount)
            text = f"{c.name} heals {c.hp - before} HP → {c.hp}/{c.hp_max} HP"
            return [CombatantChanged(round=rnd, text=text, actors=(c.id,), combatant=c.id, field="hp",
                                     old=str(before), new=str(c.hp))]  # fmt: skip
        if c.down:
            raise IllegalAction(f"Damage {c.name}", [f"{c.name} is already down"])
        dealt = land(c, amount)
        text = f"{amount} damage → {c.name} {c.hp}/{c.hp_max} HP"
        changed = CombatantChanged(
            round=rnd, text=text, actors=(c.id,), combatant=c.id, field="hp", old=str(before), new=str(c.hp)
        )
        return [changed, *went_down(rnd, c, amount - dealt)]


# -- areas: one roll, each target's defense off it -------------------------------------------------

AREA_NOTES = ("One roll of the dice for everyone struck; each target's defense comes off it.",)


class DuelAreas:
    """The GM's area effect (a fire pot, falling rocks): its dice rolled once, each target's defense off it."""

    def means(self, c: Any) -> tuple[AreaMeans, ...]:
        return ()  # a duellist carries nothing that strikes an area: the effect is the GM's

    def spec(self) -> AreaSpec:
        return AreaSpec(fields=("dice",), default_dice="2d6", notes=AREA_NOTES)

    def forecast(self, encounter: Encounter, action: act.AreaEffect) -> Mapping[str, AreaOdds]:
        """Each target's damage over the dice's exact spread (plain dice only: none that explode or keep)."""
        try:
            dice = notation.parse(action.dice or "")
        except notation.NotationError:
            return {}
        if any(t.explode or t.keep is not None for t in dice.terms):
            return {}
        spread = {0: 1.0}
        for t in dice.terms:
            for _ in range(t.count if t.sides else 1):
                faces = range(1, t.sides + 1) if t.sides else (t.constant,)
                step: dict[int, float] = {}
                for total, p in spread.items():
                    for face in faces:
                        key = total + t.sign * face
                        step[key] = step.get(key, 0.0) + p / len(faces)
                spread = step
        by_id = encounter.by_id()
        out: dict[str, AreaOdds] = {}
        for cid in action.targets:
            c = by_id[cid]
            taken = {area_damage(total, c.defense): 0.0 for total in spread}
            for total, p in spread.items():
                taken[area_damage(total, c.defense)] += p
            mean = sum(d * p for d, p in taken.items())
            drop = sum(p for d, p in taken.items() if d >= c.hp) if c.hp else None
            span = f"{min(taken)}-{max(taken)}"
            out[cid] = AreaOdds(damage=f"≈ {mean:.1f} ({span})", drop=drop, words=f"{c.name}: defense {c.defense}")
        return out

    def resolve(self, engine: Table, action: act.AreaEffect, dice: DiceSource) -> list[Event]:
        e = engine.encounter
        title = action.name.strip() or "Area effect"
        if not action.dice.strip():
            raise IllegalAction(title, ["name the damage dice (2d6, say)"])
        try:
            expression = notation.parse(action.dice)
            shape = AreaShape(action.shape)
        except (notation.NotationError, ValueError) as error:
            raise IllegalAction(title, [str(error)]) from None
        caster = e.by_id().get(action.caster) if action.caster else None
        if caster is not None and e.combat.phase is Phase.FIGHTING:
            engine.use_action(caster, "area effect", title)
        rolled = notation.roll(expression, dice)
        total = max(0, rolled.total)
        rnd = e.combat.round
        targets: list[AreaTarget] = []
        parts: list[str] = []
        downs: list[Event] = []
        for cid in action.targets:
            t: DuelStats = engine.combatant(cid)
            before = t.hp
            damage = area_damage(total, t.defense)
            dealt = land(t, damage)
            result = f"HP {before} → {t.hp}" + (", down" if t.down and before else "")
            targets.append(
                AreaTarget(combatant=t.id, name=t.name, defences=f"- {t.defense} defense", damage=dealt, result=result)
            )
            parts.append(f"{t.name} {total} - {t.defense} defense = {damage} ({result})")
            if before:
                downs += went_down(rnd, t, damage - dealt)
        area = area_words(shape, action.size_ft)
        text = f"{title} ({area}): {expression.text} {rolled.words()} — " + "; ".join(parts)
        actors = tuple(dict.fromkeys(([caster.id] if caster is not None else []) + list(action.targets)))
        faces = [d.face for term in rolled.terms for d in term.dice]
        resolved = AreaEffectResolved(
            round=rnd,
            text=text,
            actors=actors,
            caster=caster.id if caster is not None else "",
            effect=title,
            area=area,
            dice=expression.text,
            faces=faces,
            total=total,
            targets=targets,
        )
        return [resolved, *downs]


# -- fights: the rest of a fight many times over, and through the engine ----------------------------

TACTIC = "each standing combatant closes on the nearest standing foe by its Move and strikes it once within 5 ft"


class DuelFights:
    """The default tactic: the side a d6 names first, then the other; each in the roster's order closes
    on its nearest standing foe and strikes it once within reach."""

    tactic = TACTIC
    health_columns = ("HP",)
    modes: tuple[str, ...] = ()
    tells_death = False

    def out(self, c: Any) -> bool:
        return bool(c.down)

    def health(self, c: Any) -> tuple[float, ...]:
        return (float(c.hp),)

    def simulate(self, encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome:
        """``fights`` fights at once (numpy arrays, a row a fight) from the table's state."""
        by_id = encounter.by_id()
        people = [by_id[cid] for cid in field.ids]
        k, n = field.size, fights
        least = encounter.options.minimum_damage
        die = np.array([c.damage_die for c in people], dtype=np.int64)
        defense = np.array([c.defense for c in people], dtype=np.int64)
        hp = np.tile(np.array([c.hp for c in people], dtype=np.int64), (n, 1))
        gap = np.tile(field.gap_ft, (n, 1, 1))
        foes = field.foes()
        party = field.side == PARTY
        rows = np.arange(n)
        out = empty_outcome(n, k, self.health_columns)
        live = np.ones(n, dtype=np.bool_)
        combat = encounter.combat
        fighting = combat.phase is Phase.FIGHTING
        done = set(combat.acted)
        if fighting and combat.turn is not None and combat.turn.action is not None:
            done.add(combat.turn.combatant)  # its action spent: the tactic ends that turn

        def act(i: int, moves: bool, rows_of: Any) -> None:
            """``i``'s turn in the fights of ``rows_of``: close on the nearest standing foe, strike it in reach."""
            active = live & rows_of & (hp[:, i] > 0)
            standing = hp > 0
            candidates = foes[i][None, :] & standing
            masked = np.where(candidates, gap[:, i, :], np.inf)
            target = np.where(candidates.any(axis=1), masked.argmin(axis=1), -1)
            if field.prefer is not None and field.prefer[i] >= 0:  # the GM's pinned foe first, while it stands
                pinned = int(field.prefer[i])
                target = np.where(standing[:, pinned], pinned, target)
            if moves:
                close_in(gap, np.full(n, i), target, np.full(n, field.move_ft[i]), active)
            t = np.where(target >= 0, target, 0)
            hits = active & (target >= 0) & (gap[rows, i, t] <= 0)
            face = rng.integers(1, die[i] + 1, size=n)
            damage = np.maximum(least, face - defense[t])
            hp[rows, t] = np.where(hits, np.maximum(hp[rows, t] - damage, 0), hp[rows, t])
            settle()

        def settle() -> None:
            standing = hp > 0
            party_out = ~(standing & party[None, :]).any(axis=1)
            others_out = ~(standing & ~party[None, :]).any(axis=1)
            ended = live & (party_out | others_out)
            out.winner[ended] = np.where(party_out[ended] & ~others_out[ended], OPPONENTS, PARTY)
            out.rounds[ended] = played
            live[ended] = False

        def side_order(party_first: bool) -> list[int]:
            ours = [i for i in range(k) if bool(party[i]) == party_first]
            return ours + [i for i in range(k) if bool(party[i]) != party_first]

        every = np.ones(n, dtype=np.bool_)
        played = 1  # the table's round, or round 1 from the setup
        settle()
        if fighting:  # the rest of the round under way
            under_way = combat.turn.combatant if combat.turn is not None else None
            if under_way is not None and under_way not in done and under_way in field.ids:
                act(field.index(under_way), False, every)  # its turn is begun: it strikes if in reach
            for i in side_order(combat.first_side is Side.PARTY):
                if field.ids[i] not in done and field.ids[i] != under_way:
                    act(i, True, every)
            played += 1
        while live.any() and played <= MAX_ROUNDS:
            party_first = rng.integers(1, 7, size=n) >= 4  # the round's d6: 4-6 the Party
            for first in (True, False):
                for i in side_order(first):
                    act(i, True, party_first == first)
            played += 1
        out.winner[live] = NEITHER
        out.rounds[live] = played - 1
        out.down[:] = hp <= 0
        out.health[:, :, 0] = hp
        return out

    def play(self, engine: Table, field: Battlefield, max_rounds: int) -> None:
        """One fight through the engine with its own dice, by the same tactic (the reference)."""
        if engine.encounter.combat.phase is not Phase.FIGHTING:
            engine.apply(act.StartCombat(ROLL))
        first = engine.encounter.combat.round
        turn = engine.encounter.combat.turn
        if turn is not None:
            c = engine.combatant(turn.combatant)
            if turn.action is None:
                foe = self._nearest(engine, c, field)
                if foe is not None and in_reach(engine.encounter, c, foe):
                    engine.apply(Strike(c.id, foe.id))
            engine.apply(act.EndTurn())
        while not self._over(engine, field):
            ready = engine.waiting()
            if ready:
                self._turn(engine, ready[0], field)
                continue
            if engine.encounter.combat.round - first + 1 >= max_rounds:
                break
            engine.apply(act.NextRound())

    def _turn(self, engine: Table, c: DuelStats, field: Battlefield) -> None:
        engine.apply(act.BeginTurn(c.id))
        foe = self._nearest(engine, c, field) if c.id in field.ids else None
        if foe is not None:
            if not in_reach(engine.encounter, c, foe):
                path = approach_path(engine, c.id, foe.id)
                if path is not None:
                    engine.apply(act.Move(c.id, path=tuple(path)))
            if in_reach(engine.encounter, c, foe):
                engine.apply(Strike(c.id, foe.id))
        engine.apply(act.EndTurn())

    @staticmethod
    def _nearest(engine: Table, c: DuelStats, field: Battlefield) -> DuelStats | None:
        e = engine.encounter
        foes = [f for f in e.combatants if f.side is not c.side and not f.down and f.id in field.ids]
        if not foes:
            return None
        if field.prefer is not None and c.id in field.ids:
            pinned = int(field.prefer[field.index(c.id)])
            chosen = [f for f in foes if pinned >= 0 and f.id == field.ids[pinned]]
            if chosen:
                return chosen[0]  # type: ignore[no-any-return]
        gaps = melee_gaps(engine, c.id, foes)
        return foes[gaps.index(min(gaps))] if min(gaps) < float("inf") else None  # type: ignore[no-any-return]

    def _over(self, engine: Table, field: Battlefield) -> bool:
        sides = {c.side for c in engine.encounter.combatants if c.id in field.ids}
        return any(
            all(self.out(c) for c in engine.encounter.combatants if c.side is side and c.id in field.ids)
            for side in sides
        )


# -- the ruleset: its capabilities composed ---------------------------------------------------------


class DuelRuleset(Ruleset):
    name = NAME
    title = TITLE
    source = "the example in tests/example_ruleset of the Laurels & Loot Desktop repository"
    about = "A d6 says which side acts first; a Strike rolls the striker's die less the target's defense."
    stat_block = DuelStats
    options_model = DuelOptions

    def __init__(self) -> None:
        self.views = DuelViews()
        self.conditions = D20Conditions(TITLE)
        self.rounds = DuelRounds()
        self.turns = SideTurns()
        self.movement = FeetMovement()
        self.actions = DuelActions()
        self.attacks = DuelAttacks()
        self.health = DuelHealth()
        self.prompts = NoPrompts()
        self.areas = DuelAreas()
        self.fights = DuelFights()
        self.rest = None

    def bestiary(self) -> list[dict[str, Any]]:
        return [
            {"name": "Fencer", "hp_max": 10, "damage_die": 8, "defense": 2},
            {"name": "Brute", "hp_max": 16, "damage_die": 10, "defense": 0, "move_ft": 25},
        ]

    def convert(self, data: dict[str, Any], source: Ruleset) -> tuple[dict[str, Any], list[str]]:
        kept, notes = super().convert(data, source)  # the shared fields, and a note of what was dropped
        hp = int(data.get("stamina_max", 0)) + int(data.get("injury_max", 0)) or 10
        kept["hp_max"] = hp
        notes.append(f"{data.get('name', '?')}: {hp} HP (its SP + IP, or 10)")
        return kept, notes


DUEL = DuelRuleset()
