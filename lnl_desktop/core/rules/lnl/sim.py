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
    close_in_at,
    pin,
    timed_conditions,
    turn_boundary,
    variants,
)
from lnl_desktop.core.rules.lnl.blows import Arsenal, Blow, FamilyRuleset, _rules, blows, distribution, sample
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
        # Per attacker and foe: its weapons best first. Worked out once per two stat blocks alike but for
        # their names (a skirmish's twenty goblins): the same blows, the same damage tables.
        kind = [c.model_dump_json(exclude={"id", "name"}) for c in self.c]
        alike: dict[tuple[str, str], list[Blow]] = {}

        def blows_on(i: int, j: int) -> list[Blow]:
            key = (kind[i], kind[j])
            if key not in alike:
                alike[key] = blows(_rules(ruleset), self.c[i], self.c[j], self.options)
            return alike[key]

        self.blows: list[list[list[Blow]]] = [
            [blows_on(i, j) if self.foes[i, j] else [] for j in range(k)] for i in range(k)
        ]
        # A what-if's pinned attack in a mode of the rules' own (a sneak attack) on its chosen foe.
        if field.prefer is not None and field.modes is not None:
            for i in range(k):
                j, mode = int(field.prefer[i]), field.modes[i]
                if j >= 0 and mode:
                    self.blows[i][j] = blows(_rules(ruleset), self.c[i], self.c[j], self.options, AttackMode(mode))
        self.arsenals = [Arsenal.of(self.blows[i], self.foes[i]) for i in range(k)]
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
        # A parry in force from the table's state: the only way a weapon breaks in the fights (RULES §6).
        self.parries = any(c.parry is not None for c in self.c)
        self.round = 0  # the round being played (:meth:`side_turns`)

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
        # The gaps to allies and to those down are inf: a turn's nearest foe is the smallest gap of its row.
        gap = np.where(self.foes & f.standing[None, :], f.gap_ft, np.inf).astype(np.float32)  # float32: half the memory
        return _State(
            sp=sp,
            ip=ip,
            up=up,
            gap=_copies(gap, n),
            dist=_copies(f.dist_ft.astype(np.float32), n),
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
        if self.parries:
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
        """What ``i`` does in its turn by the default tactic: its nearest foe, a shot, a move, a blow; in
        every acting fight at once, whichever foe each fight's target is (:class:`.blows.Arsenal`)."""
        rows = np.flatnonzero(acting)
        if rows.size == 0:
            return
        # The nearest standing foe: a gap to an ally or to one down is inf (:meth:`start`, :meth:`strike`),
        # and an acting fight's foes are never all down, so the smallest gap is it (ties: the first).
        every = rows.size == acting.size  # all fights act: a strided view, no gather
        target = (s.gap[:, i, :] if every else s.gap[rows, i, :]).argmin(axis=1)
        if self.field.prefer is not None:
            target = pin(self.field, i, target, s.up[rows])
        arsenal = self.arsenals[i]
        if np.ndim(held) == 0 and np.ndim(feet) == 0:
            move: Any = 0.0 if held else float(feet)  # the same Move in every fight: no array
        else:
            move = np.where(held, 0.0, np.broadcast_to(np.asarray(feet, dtype=np.float64), acting.shape))[rows]
        if not arsenal.always:
            armed = arsenal.any[target]
            rows, target = rows[armed], target[armed]
            move = move[armed] if np.ndim(move) else move
            if rows.size == 0:
                return
        # Each fight's pair as flat indices into the [n, k, k] tables: one take per read, not three.
        k = self.k
        ij = rows * (k * k) + (i * k + target)
        gap, dist = _flat(s.gap), _flat(s.dist)
        shot = None
        best = arsenal.ranged[target] if arsenal.shoots else None
        if best is not None and (best >= 0).any():
            # Shoot from where it stands: in sight, in range, far enough (RULES §4).
            b = np.maximum(best, 0)
            d = dist[ij]
            shot = (best >= 0) & self.field.sees[i, target] & (d <= arsenal.max_range_ft[b]) & (d >= self.minimum_ft)
            if self.parries:
                shot &= ~s.broken[i][rows, arsenal.weapon[b]]
            if self.minimum_ft > MELEE_FT:
                shot &= gap[ij] > 0
            if shot.any():
                self.strike(s, i, rows[shot], target[shot], best[shot])
            else:
                shot = None
        # Strike without moving if a melee or reach weapon reaches; else close in, then strike.
        if shot is not None or not arsenal.close:
            left = arsenal.melee[target, 0] >= 0
            if shot is not None:
                left &= ~shot
            if not left.any():
                return
            rows, target, ij = rows[left], target[left], ij[left]
            move = move[left] if np.ndim(move) else move
        reach = self._reach(s, i, rows, target, gap[ij])
        still = reach < 0
        if still.any():
            rs, ts, at = rows[still], target[still], ij[still]
            ji = rs * (k * k) + (ts * k + i)
            moved = close_in_at(gap, at, ji, move[still] if np.ndim(move) else move)
            dist[at] = np.maximum(dist[at] - moved, MELEE_FT)
            dist[ji] = dist[at]
            reach[still] = self._reach(s, i, rs, ts, gap[at])
        hit = reach >= 0
        if hit.any():
            self.strike(s, i, rows[hit], target[hit], arsenal.melee[target[hit], reach[hit]])

    def _reach(
        self, s: _State, i: int, rows: npt.NDArray[Any], target: npt.NDArray[Any], gap: npt.NDArray[Any]
    ) -> npt.NDArray[Any]:
        """[len(rows)]: which of ``i``'s melee blows on each fight's ``target`` (``gap`` away: its rank in
        :attr:`.blows.Arsenal.melee`) is the best intact one that reaches it (-1: none)."""
        arsenal = self.arsenals[i]
        out = np.full(rows.size, -1, dtype=np.int64)
        broken = s.broken[i][rows] if self.parries else None
        for m in range(arsenal.melee.shape[1] - 1, -1, -1):
            blow = arsenal.melee[target, m]
            b = np.maximum(blow, 0)
            ok = (blow >= 0) & (gap <= arsenal.reach_ft[b] - MELEE_FT)
            if broken is not None:
                ok &= ~np.take_along_axis(broken, arsenal.weapon[b][:, None], axis=1)[:, 0]
            out[ok] = m
        return out

    def strike(
        self, s: _State, i: int, rows: npt.NDArray[Any], target: npt.NDArray[Any], blow: npt.NDArray[Any]
    ) -> None:
        """``i`` hits each fight's ``target`` with its ``blow`` (ids of its :class:`.blows.Arsenal`) in the
        fights ``rows``: damage, a parry in force, SP then IP, exertion."""
        arsenal = self.arsenals[i]
        damage = arsenal.roll(blow, self.rng).astype(np.float64)
        if self.parries:
            parrying = s.parry[rows, target]
            for j in np.unique(target[parrying]):
                on = parrying & (target == j)
                damage[on] = self._parried(
                    s, int(j), rows[on], damage[on], arsenal.dice[blow[on]], arsenal.sides[blow[on]]
                )
        hit = rows * self.k + target  # flat indices into the [n, k] tables
        sp, ip = _flat(s.sp), _flat(s.ip)
        was_sp, was_ip = sp[hit], ip[hit]
        direct = arsenal.direct[blow]
        to_sp = np.where(direct, 0.0, np.minimum(damage, was_sp))
        to_ip = np.where(direct, damage, damage - to_sp if self.options.spill_to_injury else 0.0)
        sp[hit] = was_sp - to_sp
        now = was_ip - np.minimum(to_ip, was_ip)
        ip[hit] = now
        tired = arsenal.exertion[blow]
        if tired.any():
            at = rows[tired] * self.k + i
            face = self.rng.integers(1, 5, at.size).astype(np.float64)
            cost = np.where(arsenal.specialized[blow[tired]], np.ceil(face / 2), face)
            sp[at] -= np.minimum(cost, sp[at])  # exertion never takes SP below 0
        down = now <= 0
        if down.any():
            fell, whom = rows[down], target[down]
            s.up[fell, whom] = False
            s.gap[fell, :, whom] = np.inf  # nobody's nearest foe any more
            going = self._going_on(s.up[fell])
            s.active[fell] = going
            s.end_round[fell[~going]] = self.round  # a fight goes on until a blow ends it

    def _parried(
        self, s: _State, j: int, on: npt.NDArray[Any], damage: npt.NDArray[Any], dice: Any, sides: Any
    ) -> npt.NDArray[Any]:
        """A parry in force from the table's state (RULES §6) against the blows on ``j`` in the fights
        ``on``: a weapon stops the whole blow until its (M+1)-th exploding die; a shield takes double
        against its durability. Returns the damage that gets through."""
        c = self.c[j]
        p = c.parry
        assert p is not None
        if p.weapon is not None:
            w = next(n for n, weapon in enumerate(c.weapons) if weapon.name == p.weapon)
            # Each die's run of maxima is geometric: the blow's count is negative binomial.
            explosions = self.rng.negative_binomial(dice, 1 - 1 / sides, len(on))
            counted = s.parry_count[on, j] + explosions
            s.parry_count[on, j] = counted
            shattered = counted >= c.weapons[w].magic_bonus + 1
            s.broken[j][on[shattered], w] = True
            s.parry[on[shattered], j] = False
            return np.zeros_like(damage)
        left = s.shield_left[on, j]
        doubled = 2 * damage
        holds = doubled <= left
        through: npt.NDArray[Any] = np.where(
            holds,
            0.0,
            np.maximum(0.0, damage - np.ceil(left / 2)) if self.options.shield_overflow_half else damage,
        )
        s.shield_left[on, j] = np.where(holds, left - doubled, 0.0)
        s.parry[on[~holds], j] = False
        return through

    # -- rounds ------------------------------------------------------------------------------

    def side_turns(
        self, s: _State, first: npt.NDArray[Any], may: npt.NDArray[Any] | None, rnd: int, playing: npt.NDArray[Any]
    ) -> None:
        """The round's turns: the first side's members in roster order, then the other side's.
        ``may`` [n, k]: who still gets a turn this round (None: everyone)."""
        self.round = rnd  # a fight a blow ends ends in it (:meth:`strike`)
        for slot in (0, 1):
            party_acts = playing & ((first == PARTY) if slot == 0 else (first != PARTY))
            sides = (party_acts, playing & ~party_acts)
            for i in range(self.k):
                turn_boundary()  # the GM acting: wait (a worker of the window's)
                acting = sides[self.side[i]] if may is None else sides[self.side[i]] & may[:, i]
                self.turn(s, i, acting, self.field.move_ft[i])

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
                    self.round = rnd
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
            self.side_turns(s, first, None, rnd, s.active.copy())
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


def _flat(table: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A flat view of ``table`` (writes reach it): AttributeError, never a silent copy, if it is not contiguous."""
    out = table.view()
    out.shape = (table.size,)
    return out


def _copies(table: npt.NDArray[Any], n: int) -> npt.NDArray[Any]:
    """``n`` copies of ``table`` stacked (one per fight): a broadcast copy, no repeat."""
    out = np.empty((n, *table.shape), dtype=table.dtype)
    out[:] = table
    return out


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

    @staticmethod
    def fight_bytes(k: int) -> int:
        """A fight's peak bytes at ``k`` combatants: the float32 gap and distance tables (8 bytes a pair),
        twice while finished fights leave the arrays (measured: 26.2 KB a fight at 40, 20 KB in Classic)."""
        return 16 * k * k + 1024

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
