"""The rest of a Laurels & Loot fight (RULES §1-7, and L&L Classic's §11) played many times at once.

Arrays over the fights (numpy); loops over rounds, sides, combatants and their foes only. The
default tactic is :mod:`lnl_desktop.core.rules.fight`'s, with L&L's weapon choice (:func:`plans`):
a combatant's best weapon against a foe is the ready one with the highest mean damage of the
forecast (ties: the first listed); it shoots when that weapon is a ranged one and the foe is in
sight, in range and far enough, else it strikes with its best melee or reach weapon that reaches,
closing in first when none does. No power attacks, sneak attacks, parries, Dash or Leap.

The dice: every blow's damage is drawn from the exact distribution the forecast computes for that
attacker, target and weapon (:func:`.odds.forecast_with`: exploding dice by level, the magic, STR,
DEX or AWA/WIS terms, less the target's DEX and AP), so the simulator cannot disagree with the
forecast. Initiative and surprise are read from the ruleset's own rounds (``rounds.open_combat`` and
``rounds.initiative``) for every face of the d6, so Classic's surprise round comes for free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.conditions import HOLDING, INCAPACITATING, condition_key
from lnl_desktop.core.encounter.model import ConditionDuration, Encounter, Phase, Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.fight import (
    MAX_ROUNDS,
    NEITHER,
    OPPONENTS,
    PARTY,
    Battlefield,
    SimOutcome,
    Timers,
    close_in,
    pin,
    timed_conditions,
    variants,
)
from lnl_desktop.core.rules.lnl.blows import Blow, FamilyRuleset, _rules, blows, distribution, sample
from lnl_desktop.core.rules.lnl.model import Ability, AttackMode, LnLFamilyOptions, LnLStats, WeaponState
from lnl_desktop.core.rules.shared import FightsBase
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    import numpy.typing as npt

    from lnl_desktop.core.rules.base import Table

np = lazy_module("numpy")

MELEE_FT = 5  # a plain melee weapon's reach: the gaps of the battlefield are measured to it
D6 = 6


def openings(ruleset: FamilyRuleset) -> tuple[Any, Any, Any]:
    """The default start of combat (the Start combat dialog's first situation: L&L's "nobody
    ambushes", Classic's surprise d6) read by the ruleset itself for every face of the first d6
    and of an initiative d6 after it: [6, 6] arrays of who acts first (PARTY/OPPONENTS), who is
    surprised (-1 nobody) and the first round (0: a surprise round)."""
    situation = ruleset.rounds.start_procedure().situations[0].key
    first = np.zeros((D6, D6), dtype=np.int64)
    surprised = np.full((D6, D6), -1, dtype=np.int64)
    first_round = np.ones((D6, D6), dtype=np.int64)
    for face in range(1, D6 + 1):
        for init in range(1, D6 + 1):
            o = ruleset.rounds.open_combat(
                None, act.StartCombat(situation=situation, face=face, initiative_face=init), None
            )
            first[face - 1, init - 1] = PARTY if o.first_side is Side.PARTY else OPPONENTS
            if o.surprised_side is not None:
                surprised[face - 1, init - 1] = PARTY if o.surprised_side is Side.PARTY else OPPONENTS
            first_round[face - 1, init - 1] = o.first_round
    return first, surprised, first_round


@dataclass
class _State:
    """The fights' state, one row per fight."""

    sp: npt.NDArray[Any]  # [n, k]
    ip: npt.NDArray[Any]  # [n, k]
    up: npt.NDArray[Any]  # [n, k] not down
    gap: npt.NDArray[Any]  # [n, k, k]
    dist: npt.NDArray[Any]  # [n, k, k]
    parry: npt.NDArray[Any]  # [n, k] a parry in force (from the table's state)
    parry_count: npt.NDArray[Any]  # [n, k] exploding dice counted against a parrying weapon
    shield_left: npt.NDArray[Any]  # [n, k] a parrying shield's durability left
    broken: list[npt.NDArray[Any]]  # per combatant, [n, weapons]
    active: npt.NDArray[Any]  # [n] the fight goes on
    end_round: npt.NDArray[Any]  # [n]
    timers: Timers  # the conditions that end by themselves, per fight


class Simulator:
    """One L&L-family fight from the encounter's state, ``fights`` times."""

    def __init__(self, ruleset: FamilyRuleset, encounter: Encounter, field: Battlefield, rng: Any) -> None:
        self.ruleset = ruleset
        self.e = encounter
        self.field = field
        self.rng = rng
        by_id = encounter.by_id()
        self.c: list[LnLStats] = [by_id[cid] for cid in field.ids]
        self.k = field.size
        self.options: LnLFamilyOptions = encounter.options  # type: ignore[assignment]
        self.foes = field.foes()
        self.side = field.side
        k = self.k
        # Per attacker and foe: its weapons best first.
        self.blows: list[list[list[Blow]]] = [
            [blows(_rules(ruleset), self.c[i], self.c[j], self.options) if self.foes[i, j] else [] for j in range(k)]
            for i in range(k)
        ]
        # A what-if's pinned attack in a mode of the rules' own (a sneak attack) on its chosen foe.
        if field.prefer is not None and field.modes is not None:
            for i in range(k):
                j, mode = int(field.prefer[i]), field.modes[i]
                if j >= 0 and mode:
                    self.blows[i][j] = blows(_rules(ruleset), self.c[i], self.c[j], self.options, AttackMode(mode))
        # Who loses its turn or its Move, per combatant and per set of its timed conditions ended (RULES §10).
        self.timed_names, self.timed = timed_conditions(field, self.c, _matters, save_chance)
        width = 2 ** max((len(t) for t in self.timed_names), default=0)
        self.no_turn = np.zeros((k, width), dtype=np.bool_)
        self.held = np.zeros((k, width), dtype=np.bool_)
        for i, c in enumerate(self.c):
            for v, w in enumerate(variants(c, self.timed_names[i])):
                self.no_turn[i, v] = w.incapacitated_by is not None
                self.held[i, v] = w.held_by is not None
        self.aware = np.array([c.cannot_be_surprised for c in self.c], dtype=np.bool_)
        self.minimum_ft = float(_rules(ruleset).ranged_minimum_ft)

    # -- the state ---------------------------------------------------------------------------

    def start(self, n: int) -> _State:
        f, k = self.field, self.k
        sp = np.tile(np.array([float(c.stamina) for c in self.c]), (n, 1))
        ip = np.tile(np.array([float(c.injury) for c in self.c]), (n, 1))
        parry = np.zeros((n, k), dtype=np.bool_)
        count = np.zeros((n, k), dtype=np.int64)
        shield = np.zeros((n, k), dtype=np.float64)
        for i, c in enumerate(self.c):
            p = c.parry
            if p is None:
                continue
            if p.weapon is not None and c.weapon(p.weapon).state is not WeaponState.BROKEN:
                parry[:, i] = True
                count[:, i] = p.explosions
            elif p.shield and c.shield is not None and c.shield.state.value != "destroyed":
                parry[:, i] = True
                shield[:, i] = c.shield.durability
        broken = [
            np.tile(np.array([w.state is WeaponState.BROKEN for w in c.weapons], dtype=np.bool_), (n, 1))
            for c in self.c
        ]
        up = np.tile(f.standing, (n, 1))
        return _State(
            sp=sp,
            ip=ip,
            up=up,
            gap=np.tile(f.gap_ft, (n, 1, 1)),
            dist=np.tile(f.dist_ft, (n, 1, 1)),
            parry=parry,
            parry_count=count,
            shield_left=shield,
            broken=broken,
            active=self._going_on(up),
            end_round=np.full(n, -1, dtype=np.int64),  # -1: not over yet
            timers=Timers(self.timed, k, n),
        )

    def _going_on(self, up: npt.NDArray[Any]) -> npt.NDArray[Any]:
        party = self.side == PARTY
        out: npt.NDArray[Any] = up[:, party].any(axis=1) & up[:, ~party].any(axis=1)
        return out

    # -- one turn --------------------------------------------------------------------------------

    def turn(
        self, s: _State, i: int, acting: npt.NDArray[Any], feet: npt.NDArray[Any] | float, begun: bool = False
    ) -> None:
        """``i``'s turn in the fights where ``acting`` is set, with ``feet`` of movement; ``begun``: the
        table's turn under way (its start has passed: the conditions that ended then are gone)."""
        acting = acting & s.up[:, i] & s.active
        if not acting.any():
            return
        s.parry[acting, i] = False  # a parry in force ends as the parrier's turn begins
        timers = s.timers
        if not begun:
            timers.turn_starts(acting, i, ~s.up)
        if timers.any:
            v = timers.variant(slice(None), i)
            self._act(s, i, acting & ~self.no_turn[i, v], feet, self.held[i, v])
            timers.turn_ends(acting, i, self.rng)
        elif not self.no_turn[i, 0]:
            self._act(s, i, acting, feet, self.held[i, 0])

    def _act(self, s: _State, i: int, acting: npt.NDArray[Any], feet: npt.NDArray[Any] | float, held: Any) -> None:
        """What ``i`` does in its turn by the default tactic: its nearest foe, a shot, a move, a blow."""
        if not acting.any():
            return
        foes = self.foes[i]
        candidates = foes[None, :] & s.up
        masked = np.where(candidates, s.gap[:, i, :], np.inf)
        target = pin(self.field, i, np.where(candidates.any(axis=1), masked.argmin(axis=1), -1), s.up)
        move = np.where(held, 0.0, np.broadcast_to(np.asarray(feet, dtype=np.float64), acting.shape))
        rows = np.arange(acting.shape[0])
        for j in np.nonzero(foes)[0]:
            mine = acting & (target == j)
            if not mine.any():
                continue
            options = self.blows[i][j]
            if not options:
                continue
            done = np.zeros_like(mine)
            best = options[0]
            if best.ranged:
                # Shoot from where it stands: in sight, in range, far enough (RULES §4).
                can = (
                    mine
                    & self.field.sees[i, j]
                    & (s.dist[:, i, j] <= best.max_range_ft)
                    & (s.dist[:, i, j] >= self.minimum_ft)
                    & ~s.broken[i][:, best.weapon]
                )
                if self.minimum_ft > MELEE_FT:
                    can &= s.gap[:, i, j] > 0
                if can.any():
                    self.strike(s, i, j, best, can)
                    done |= can
            melee = [b for b in options if not b.ranged]
            if not melee:
                continue
            # Strike without moving if a melee or reach weapon reaches; else close in, then strike.
            left = mine & ~done
            reach = self._reach(s, i, j, melee, left)
            still = left & (reach < 0)
            if still.any():
                moved = close_in(s.gap, np.full(len(rows), i), np.full(len(rows), j), move, still)
                s.dist[still, i, j] = np.maximum(s.dist[still, i, j] - moved[still], MELEE_FT)
                s.dist[still, j, i] = s.dist[still, i, j]
                reach = np.where(still, self._reach(s, i, j, melee, still), reach)
            for m, blow in enumerate(melee):
                hit = left & (reach == m)
                if hit.any():
                    self.strike(s, i, j, blow, hit)

    def _reach(self, s: _State, i: int, j: int, melee: list[Blow], where: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """[n]: the index in ``melee`` of the best intact weapon that reaches ``j`` (-1: none)."""
        out = np.full(where.shape[0], -1, dtype=np.int64)
        gap = s.gap[:, i, j]
        for m in range(len(melee) - 1, -1, -1):
            blow = melee[m]
            ok = where & (gap <= blow.reach_ft - MELEE_FT) & ~s.broken[i][:, blow.weapon]
            out[ok] = m
        return out

    def strike(self, s: _State, i: int, j: int, blow: Blow, fights: npt.NDArray[Any]) -> None:
        """``i`` hits ``j`` with ``blow`` in ``fights``: damage, a parry in force, SP then IP, exertion."""
        rows = np.nonzero(fights)[0]
        damage = sample(blow, self.rng, len(rows)).astype(np.float64)
        parrying = s.parry[rows, j]
        if parrying.any():
            self._parried(s, j, rows, damage, parrying, blow)
        sp, ip = s.sp[rows, j], s.ip[rows, j]
        if blow.direct:
            ip = ip - np.minimum(damage, ip)
        else:
            to_sp = np.minimum(damage, sp)
            rest = damage - to_sp
            sp = sp - to_sp
            if self.options.spill_to_injury:
                ip = ip - np.minimum(rest, ip)
        s.sp[rows, j], s.ip[rows, j] = sp, ip
        s.up[rows, j] = ip > 0
        if blow.exertion:
            face = self.rng.integers(1, 5, len(rows)).astype(np.float64)
            cost = np.ceil(face / 2) if blow.specialized else face
            s.sp[rows, i] -= np.minimum(cost, s.sp[rows, i])  # exertion never takes SP below 0
        s.active[rows] = self._going_on(s.up[rows])

    def _parried(self, s: _State, j: int, rows: Any, damage: Any, parrying: Any, blow: Blow) -> None:
        """A parry in force from the table's state (RULES §6): a weapon stops the whole blow until
        its (M+1)-th exploding die; a shield takes double against its durability."""
        c = self.c[j]
        p = c.parry
        assert p is not None
        on = rows[parrying]
        if p.weapon is not None:
            w = next(n for n, weapon in enumerate(c.weapons) if weapon.name == p.weapon)
            # Each die's run of maxima is geometric: the blow's count is negative binomial.
            explosions = self.rng.negative_binomial(blow.dice, 1 - 1 / blow.sides, len(on))
            counted = s.parry_count[on, j] + explosions
            s.parry_count[on, j] = counted
            damage[parrying] = 0.0
            shattered = counted >= c.weapons[w].magic_bonus + 1
            s.broken[j][on[shattered], w] = True
            s.parry[on[shattered], j] = False
            return
        left = s.shield_left[on, j]
        dmg = damage[parrying]
        doubled = 2 * dmg
        holds = doubled <= left
        through = np.where(
            holds,
            0.0,
            np.maximum(0.0, dmg - np.ceil(left / 2)) if self.options.shield_overflow_half else dmg,
        )
        s.shield_left[on, j] = np.where(holds, left - doubled, 0.0)
        s.parry[on[~holds], j] = False
        damage[parrying] = through

    # -- rounds ------------------------------------------------------------------------------

    def side_turns(
        self, s: _State, first: npt.NDArray[Any], may: npt.NDArray[Any], rnd: int, playing: npt.NDArray[Any]
    ) -> None:
        """The round's turns: the first side's members in roster order, then the other side's.
        ``may`` [n, k]: who still gets a turn this round."""
        for slot in (0, 1):
            acting_side = first if slot == 0 else 1 - first
            for i in range(self.k):
                acting = playing & may[:, i] & (acting_side == self.side[i])
                if acting.any():
                    self.turn(s, i, acting, self.field.move_ft[i])
                    s.end_round[acting & ~s.active & (s.end_round < 0)] = rnd

    def run(self, n: int) -> SimOutcome:
        from lnl_desktop.core.rules.fight import empty_outcome

        e, rng, k = self.e, self.rng, self.k
        s = self.start(n)
        combat = e.combat
        initiative = np.array(
            [PARTY if self.ruleset.rounds.initiative(f) is Side.PARTY else OPPONENTS for f in range(1, D6 + 1)]
        )
        start_round = combat.round
        if combat.phase is not Phase.FIGHTING:
            first_t, surprised_t, round_t = openings(self.ruleset)
            face = rng.integers(0, D6, n)
            init = rng.integers(0, D6, n)
            first, surprised, rnd0 = first_t[face, init], surprised_t[face, init], round_t[face, init]
            start_round = 1
            rnd = int(rnd0.min())
            # A surprised side's members take no turn in the first round (cannot be surprised: they do).
            asleep = (surprised[:, None] == self.side[None, :]) & ~self.aware[None, :]
            if rnd == 0:
                # Classic's surprise round, in the fights that rolled one; the others begin at round 1.
                playing = s.active & (rnd0 == 0)
                self.side_turns(s, first, ~asleep, 0, playing)
                again = rnd0 == 0
                first = np.where(again, initiative[rng.integers(0, D6, n)], first)
                asleep &= ~again[:, None]
                rnd = 1
            self.side_turns(s, first, ~asleep, rnd, s.active.copy())
        else:
            rnd = combat.round
            first = np.full(n, PARTY if combat.first_side is Side.PARTY else OPPONENTS, dtype=np.int64)
            acted = {cid for cid in combat.acted}
            turn = combat.turn
            if turn is not None and turn.combatant in self.field.ids:
                i = self.field.index(turn.combatant)
                acted.add(turn.combatant)
                everyone = s.active.copy()
                if turn.action is None:
                    c = self.c[i]
                    left = max(0.0, float(c.move_ft) + turn.extra_ft - turn.feet_used)
                    self.turn(s, i, everyone, left, begun=True)
                    s.end_round[everyone & ~s.active & (s.end_round < 0)] = rnd
                else:
                    s.timers.turn_ends(everyone & s.up[:, i], i, rng)  # its action taken: the turn's end is next
            may = np.array([cid not in acted and not self.c[x].surprised for x, cid in enumerate(self.field.ids)])
            self.side_turns(s, first, np.tile(may, (n, 1)), rnd, s.active.copy())
        last = max(start_round, 1) + MAX_ROUNDS - 1
        out = empty_outcome(n, k, ("SP", "IP"))
        end_round = np.zeros(n, dtype=np.int64)
        rows = np.arange(n)  # which fight each row of the state is
        while rnd < last and s.active.any():
            if s.active.mean() < 0.75:
                # Fights that are over leave the arrays: the long tail of a few fights stays cheap.
                self._record(s, ~s.active, rows, out, end_round)
                rows = rows[s.active]
                s = self._keep(s, s.active)
            rnd += 1
            m = len(rows)
            first = initiative[rng.integers(0, D6, m)]
            self.side_turns(s, first, np.ones((m, k), dtype=np.bool_), rnd, s.active.copy())
        s.end_round[s.end_round < 0] = rnd
        self._record(s, np.ones(len(rows), dtype=np.bool_), rows, out, end_round)
        party = self.side == PARTY
        party_out = out.down[:, party].all(axis=1)
        opp_out = out.down[:, ~party].all(axis=1)
        out.winner[:] = np.where(party_out & ~opp_out, OPPONENTS, np.where(opp_out, PARTY, NEITHER))
        out.rounds[:] = np.maximum(0, end_round - max(start_round, 1) + 1)
        return out

    @staticmethod
    def _record(
        s: _State, which: npt.NDArray[Any], rows: npt.NDArray[Any], out: SimOutcome, end: npt.NDArray[Any]
    ) -> None:
        """Write the end of the fights ``which`` (rows of the state) into the outcome."""
        to = rows[which]
        out.down[to] = ~s.up[which]
        out.health[to, :, 0] = s.sp[which]
        out.health[to, :, 1] = s.ip[which]
        end[to] = s.end_round[which]

    @staticmethod
    def _keep(s: _State, keep: npt.NDArray[Any]) -> _State:
        s.timers.keep(keep)
        return _State(
            sp=s.sp[keep],
            ip=s.ip[keep],
            up=s.up[keep],
            gap=s.gap[keep],
            dist=s.dist[keep],
            parry=s.parry[keep],
            parry_count=s.parry_count[keep],
            shield_left=s.shield_left[keep],
            broken=[b[keep] for b in s.broken],
            active=s.active[keep],
            end_round=s.end_round[keep],
            timers=s.timers,
        )


def simulate_fights(
    ruleset: FamilyRuleset, encounter: Encounter, field: Battlefield, fights: int, rng: Any
) -> SimOutcome:
    """The rest of the fight from ``encounter``'s state, ``fights`` times, by the default tactic."""
    return Simulator(ruleset, encounter, field, rng).run(fights)


class LnlFights(FightsBase):
    """The L&L family's fight odds: this simulator, and the engine-played reference (:mod:`.tactic`)."""

    tactic = (
        "Each standing combatant takes the nearest standing foe (the fewest feet to reach it) and its best "
        "weapon against it: the intact one with the highest mean damage. If that is a ranged weapon and the "
        "foe is in sight, in range and far enough, it shoots from where it stands; else it strikes with its "
        "best melee or reach weapon that reaches, closing in by up to its Move first when none does. Ranged "
        "attacks cost their exertion; no power attacks, sneak attacks, parries, Dash or Leap."
    )
    health_columns = ("SP", "IP")
    modes = (AttackMode.SNEAK.value,)  # a what-if may pin a sneak attack
    tells_death = False  # at 0 IP a creature is down; dying or dead is the GM's call

    def __init__(self, ruleset: FamilyRuleset) -> None:
        self.ruleset = ruleset

    def simulate(self, encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome:
        return simulate_fights(self.ruleset, encounter, field, fights, rng)

    def play(self, engine: Table, field: Battlefield, max_rounds: int) -> None:
        from lnl_desktop.core.rules.lnl import tactic

        tactic.play_fight(self.ruleset, engine, field, max_rounds)

    def health(self, c: LnLStats) -> tuple[float, ...]:
        return (float(c.stamina), float(c.injury))


__all__ = [
    "Blow",
    "FamilyRuleset",
    "LnlFights",
    "Simulator",
    "blows",
    "distribution",
    "openings",
    "sample",
    "simulate_fights",
]


def _matters(condition: str) -> bool:
    """Whether the simulator reads ``condition``: one that takes a turn or holds in place ("grappled by Ogre" too)."""
    key = condition_key(condition).casefold()
    return any(key == word or key.startswith(word + " ") for word in (*INCAPACITATING, *HOLDING))


def save_chance(c: LnLStats, duration: ConditionDuration) -> float:
    """The chance a save at the end of ``c``'s turn ends a condition, as the ruleset rolls it (RULES §10):
    a d20 at or under 10 + the named ability's bonus (STR when none is named)."""
    try:
        score = 10 + c.bonus(Ability(duration.save or Ability.STR.value))
    except (ValueError, RulesError):
        return 0.0  # an ability this edition lacks: the engine cannot roll it, the GM removes it by hand
    return sum(face <= score for face in range(1, 21)) / 20
