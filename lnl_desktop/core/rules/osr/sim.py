"""Old-School d20's fight simulator (core.rules.fight): the rest of the fight from the table's state,
thousands of fights at once, by the default tactic ``tactic.py`` plays through the engine.

The round as RULES §12 has it: initiative every round (by group, d20 + the leader's INIT, or each
on its own), ties to the side with PCs, then the higher INIT, then a coin; one action a turn; the
to-hit chance of each attacker, target and weapon exactly as the forecast computes it (``tactic.blow``,
from ``rules.to_hit``: natural 1 and 20, AC, the bonuses, long range), the damage drawn from its exact
distribution (the dice, the ability, the minimum damage); a monster's several attacks; a monster or
NPC defeated at 0 HP, a PC's death save at once (d20 + Poison or Death ≥ 11 + overkill: unconscious,
else dead); a side's morale (2d6 against each one's score) when its first falls and when half of it is
out, a failure fleeing. Loops run over rounds, turns and attacks; every fight is a row of the arrays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.model import Encounter, Phase, Side
from lnl_desktop.core.rules.fight import (
    MAX_ROUNDS,
    NEITHER,
    OPPONENTS,
    PARTY,
    Battlefield,
    SimOutcome,
    Timers,
    empty_outcome,
    pin,
    turn_boundary,
)
from lnl_desktop.core.rules.osr import condition_table as cond
from lnl_desktop.core.rules.osr.model import MoraleResult, OsrCombatant
from lnl_desktop.core.rules.osr.rules import ATTACKS, death_save_dc
from lnl_desktop.core.rules.osr.sim_tables import MELEE_FT, tables_of
from lnl_desktop.core.rules.osr.sim_tables import SimTables as _Tables
from lnl_desktop.core.rules.osr.tactic import SHOOT_FROM_FT, attack_options, play_fight, sim_out
from lnl_desktop.core.rules.shared import FightsBase
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

np = lazy_module("numpy")  # off the app's start path: loaded when the odds first run

_tables_of = tables_of  # the tables of a state, kept for the next batch (sim_tables.py)
# The walks' rest (the foe's gap and kept nearest, the pair's distance) put off till a side's turns are done
# (:meth:`_Fights.flush`); False: each walk done whole in its turn (the same odds, more calls a turn).
PUT_OFF = True
WAITING = 1 << 16  # walks put off at most (then finished early: the same odds, the memory of a few turns')
MOST = (1 << 63) - 1  # the greatest int64
FAR = 1e30  # an unreachable foe's gap: still a foe, the last to pick (inf marks "not a foe"); finite in float32


def _none(n: int) -> Any:
    """``n`` options, each -1 (none): cheaper than np.full for the small arrays of a turn."""
    out = np.empty(n, dtype=np.int64)
    out.fill(-1)
    return out


def _flat(table: Any) -> Any:
    """A flat view of ``table`` (never a copy: a write through it lands in the table)."""
    view = table.view()
    view.shape = (-1,)  # raises where only a copy could be flat
    return view


def _nearest_movers(foe: Any, gap: Any, mover: Any, k: int, scratch: Any) -> Any:
    """Of the movers on each foe (``foe``: its cell, ``fight * k + j``; ``gap``: the foe's float32 gap to
    the mover), the one the gap to is the least (a tie: the roster's first): their places in the arrays,
    only they may become the foes' nearest. ``scratch``: a whole number a cell at MOST, left so."""
    # One whole number a mover ranks by: the gap (a float32 of 0 or more ranks as its bits do), then its index;
    # the least of each cell's in one pass (no sort).
    key = ((gap.view(np.int32) & 0x7FFFFFFF).astype(np.int64) << k.bit_length()) | mover
    np.minimum.at(scratch, foe, key)
    lead = (scratch[foe] == key).nonzero()[0]
    scratch[foe] = MOST
    return lead


def _copies(table: Any, n: int) -> Any:
    """``n`` copies of ``table`` stacked (one per fight)."""
    out = np.empty((n, *table.shape), dtype=table.dtype)
    out[:] = table
    return out


class _Fights:
    """The fights still under way, a row each; finished ones are written out at the end of a round."""

    def __init__(self, t: _Tables, encounter: Encounter, field: Battlefield, n: int, rng: Any) -> None:
        self.field = field  # the map's plan, with the GM's pinned plans
        cs: list[OsrCombatant] = [encounter.combatant(cid) for cid in field.ids]  # type: ignore[misc]
        self.t, self.rng = t, rng
        self.ids = np.arange(n)  # each row's fight
        self.hp = np.tile(np.array([c.hp for c in cs], dtype=np.int64), (n, 1))
        self.down = np.tile(np.array([c.down for c in cs]), (n, 1))
        self.dead = np.tile(np.array([c.dead for c in cs]), (n, 1))
        self.fled = np.tile(np.array([c.morale_result is MoraleResult.FLEES for c in cs]), (n, 1))
        self.surrendered = np.tile(np.array([c.morale_result is MoraleResult.SURRENDERS for c in cs]), (n, 1))
        self.passes = np.tile(np.array([c.morale_passes for c in cs], dtype=np.int64), (n, 1))
        self.gone = self.down | self.fled | self.surrendered  # out of the fight: kept as they fall or flee
        # Feet in float32: whole and half feet are exact in it, and a fight's two [k, k] tables take half the bytes.
        # A gap is inf where j is no foe of i or out of the fight from the start (the nearest is looked for
        # among those still in it: a column set as each falls costs more than it saves at 10,000 fights).
        gap = np.where(np.isinf(field.gap_ft), FAR, field.gap_ft)
        self.gap = _copies(np.where(t.foe & ~self.gone[0][None, :], gap, np.inf).astype(np.float32), n)
        self.dist = _copies(field.dist_ft.astype(np.float32), n)
        self.over = np.zeros(n, dtype=np.bool_)
        self.written = np.zeros(n, dtype=np.bool_)  # over and its outcome written
        mine = t.side[:, None] == np.arange(2)[None, :]  # [k, 2]
        self.downs = self.down.astype(np.int64) @ mine  # [n, 2]: each side's members down, kept as they fall
        self.outs = self.gone.astype(np.int64) @ mine  # [n, 2]: each side's members out of the fight
        self.timers = Timers(t.timed, t.k, n)
        # Each one's nearest foe still in the fight by the plan (ties: the roster's first; -1: none),
        # kept as the fights go instead of looked for in every turn (see :meth:`nearest`). Every fight
        # starts alike: worked out once and copied.
        first = np.where(t.foe & ~self.gone[0][None, :], self.gap[0], np.inf)
        self.aim = np.tile(np.where(np.isfinite(first).any(axis=1), first.argmin(axis=1), -1), (n, 1))
        self.count = np.array([len(m) for m in t.members], dtype=np.int64)  # each side's members on the map
        # The walks whose foe's side of the pair is put off till a side's turns are done (:meth:`flush`);
        # None: each walk done whole in its turn.
        self.pending: list[tuple[Any, ...]] | None = None
        # Whether some actor of this turn shoots at all, or has more than one attack (False: not looked for).
        self.shooters = self.many = True
        self.waiting = 0  # walks in ``pending``
        self.ends = 0  # counts the changes that may have ended a fight (``over``): the fights under way read anew
        self.scratch: Any = None  # :func:`_nearest_movers`' cells, made at its first use
        self._views()

    def _views(self) -> None:
        """Flat views of the tables a turn reads cell by cell: ``fight * k + i`` is combatant ``i``'s
        cell, ``(fight * k + i) * k + j`` the pair's; one index a cell is cheaper than two or three."""
        self.gapf, self.distf = _flat(self.gap), _flat(self.dist)
        self.gap_rows = self.gapf.reshape(-1, self.t.k)  # a combatant's row of gaps in a fight, one index
        self.gonef, self.hpf, self.downf, self.aimf = (
            _flat(self.gone),
            _flat(self.hp),
            _flat(self.down),
            _flat(self.aim),
        )
        self.downsf, self.outsf, self.deadf = _flat(self.downs), _flat(self.outs), _flat(self.dead)

    @property
    def n(self) -> int:
        return len(self.ids)

    def keep(self, rows: Any) -> None:
        names = (
            "ids",
            "hp",
            "down",
            "dead",
            "fled",
            "surrendered",
            "passes",
            "gap",
            "dist",
            "over",
            "written",
            "gone",
            "downs",
            "outs",
            "aim",
        )
        for name in names:
            setattr(self, name, getattr(self, name)[rows])
        self.timers.keep(rows)
        self._views()

    def u(self, idx: Any, who: Any) -> Any:
        """The ``u`` rows of the tables for ``who`` (one per fight of ``idx``): its timed conditions ended so far."""
        if not self.timers.any:
            return who
        return who * self.t.width + self.timers.variant(idx, who)

    def every_u(self, idx: Any) -> Any:
        """[len(idx), k]: the ``u`` rows of every combatant in each fight of ``idx``."""
        t, timers = self.t, self.timers
        out = np.broadcast_to(np.arange(t.k) * t.width, (len(idx), t.k)).copy()
        for x, timed in enumerate(timers.timed):
            out[:, timed.owner] += (~timers.on[idx, x]).astype(np.int64) << timers.bit[x]
        return out

    def out(self, idx: Any = slice(None)) -> Any:
        return self.gone[idx]

    def out_of(self, idx: Any, a: Any) -> Any:
        return self.gonef[idx * self.t.k + a]

    # -- the round --------------------------------------------------------------------------

    def initiative(self) -> Any:
        """[n, k]: who acts in which place this round (RULES §12's initiative, ties as the engine breaks them)."""
        t, n, k = self.t, self.n, self.t.k
        able = ~self.down & ~self.surrendered
        tiebreak = self.rng.random((n, k)) * 0.5
        roster = np.arange(k) * 1e-4  # within a side's place, the roster's order
        if not t.group:
            total = self.rng.integers(1, 21, (n, k)) + t.init
            score = total * 1000.0 + t.pc * 100 + (t.init + 30) + tiebreak
            return np.argsort(-(score - roster), axis=1, kind="stable")
        sides = []
        for s, members in enumerate(t.members):
            here = able[:, members]
            leads = here & t.leader[members]
            lead = members[np.where(leads.any(axis=1), leads.argmax(axis=1), here.argmax(axis=1))]
            bonus = t.init[lead]
            total = self.rng.integers(1, 21, n) + bonus
            pcs = (here & t.pc[members]).any(axis=1)
            sides.append(total * 1000.0 + pcs * 100 + (bonus + 30) + tiebreak[:, s])

        def ranked(rows: Any) -> Any:
            score = np.zeros((len(sides[0][rows]), k))
            for members, side_score in zip(t.members, sides, strict=True):
                score[:, members] = side_score[rows, None]
            return np.argsort(-(score - roster), axis=1, kind="stable")

        if len(t.members[0]) + len(t.members[1]) < k:
            return ranked(slice(None))
        # Every one on a side: a side's members in the roster's order, the side that scored higher first,
        # unless the two scores are closer than the roster's spread (then sorted as above).
        party_first = np.concatenate(t.members)
        order = np.where((sides[0] > sides[1])[:, None], party_first, np.concatenate(t.members[::-1]))
        close = np.flatnonzero(np.abs(sides[0] - sides[1]) <= k * 1e-4)
        if len(close):
            order[close] = ranked(close)
        return order

    def settle(self, idx: Any = None) -> None:
        """Mark the fights one side has left (every member on the map out: the counts kept as they fall or
        flee); ``idx``: only those fights changed."""
        self.ends += 1
        if idx is None:
            self.over |= (self.outs == self.count).any(axis=1)
        else:
            self.over[idx] |= (self.outs[idx] == self.count).any(axis=1)

    def winner(self) -> Any:
        out = self.out()
        party = out[:, self.t.members[0]].all(axis=1)
        opponents = out[:, self.t.members[1]].all(axis=1)
        return np.where(party & ~opponents, OPPONENTS, np.where(opponents, PARTY, NEITHER))

    # -- a turn -----------------------------------------------------------------------------

    def nearest(self, idx: Any, a: Any) -> tuple[Any, Any]:
        """Each actor's nearest standing foe by the plan (ties: the roster's first) of those it can harm
        (any, when it harms none), and whether one stands."""
        if self.t.harms_all:
            return self._kept_nearest(idx, a)
        cand = self.t.foe[a] & ~self.gone[idx]
        if self.t.harms_all:
            pick = cand  # every option harms every foe: no foe goes last
        elif self.timers.any:
            harmed = cand & self.t.harms[self.u(idx, a)[:, None], self.every_u(idx)]
        else:
            harmed = cand & self.t.harms[a]
        if not self.t.harms_all:
            pick = np.where(harmed.any(axis=1)[:, None], harmed, cand)
        gaps = np.where(pick, self.gap[idx, a, :], np.inf)
        return pin(self.field, a, gaps.argmin(axis=1), cand), cand.any(axis=1)

    def _kept_nearest(self, idx: Any, a: Any) -> tuple[Any, Any]:
        """:meth:`nearest` where every option harms every foe: the kept nearest (``aim``), looked for
        again only in the fights where it has left the fight. Foes only leave, and a gap only shrinks
        when its pair closes in (:meth:`closed_in` keeps ``aim`` then), so the kept one is the nearest."""
        k = self.t.k
        row = idx * k
        aim = self.aimf[row + a]
        stale = (aim < 0) | self.gonef[row + aim]  # -1 (none) reads a neighbour's cell, stale all the same
        if np.count_nonzero(stale):
            s = stale.nonzero()[0]
            cells = row[s] + a[s]
            cand = self.t.foe[a[s]] & ~self.gone[idx[s]]
            gaps = np.where(cand, self.gap_rows[cells], np.inf)
            best = np.where(cand.any(axis=1), gaps.argmin(axis=1), -1)
            self.aimf[cells] = best
            aim[s] = best
        has = aim >= 0
        target = np.maximum(aim, 0)
        if self.field.prefer is None:
            return target, has
        return pin(self.field, a, target, ~self.gone[idx]), has

    def closed_in(self, rows: Any, i: Any, j: Any) -> None:
        """``i`` closed on ``j`` in ``rows``: both gaps of the pair shrank, so each may now be the other's
        nearest (a tie goes to the roster's first), where the kept one still stands."""
        if not self.t.harms_all:
            return
        # Without a pinned foe the mover closed on its kept nearest: only the target's may change.
        k = self.t.k
        row = rows * k
        for x, y in ((j, i),) if self.field.prefer is None else ((i, j), (j, i)):
            cell = row + x
            cur = self.aimf[cell]
            kept = np.maximum(cur, 0)
            valid = (cur >= 0) & ~self.gonef[row + kept]
            first = cell * k  # x's row of gaps
            new, old = self.gapf[first + y], self.gapf[first + kept]
            better = valid & ((new < old) | ((new == old) & (y < cur)))
            self.aimf[cell[better]] = y[better]

    def shot(self, idx: Any, a: Any, target: Any) -> Any:
        """The best ranged option that reaches the target from where the actor stands (-1: none)."""
        t = self.t
        d = self.distf[(idx * t.k + a) * t.k + target]
        ok = t.sees[a, target] & (d >= SHOOT_FROM_FT)
        out = _none(len(idx))
        ranks = t.ranged_rank.shape[2]
        first = (self.u(idx, a) * t.u + self.u(idx, target)) * ranks
        for r in range(ranks):
            o = t.rank_flat[first + r]
            fit = ok & (out < 0) & (o >= 0) & (t.range_flat[a * t.options + np.maximum(o, 0)] >= d)
            out[fit] = o[fit]
        return out

    def _in_reach(self, gaps: Any, ua: Any, ut: Any) -> Any:
        """Whether each gap is within the best melee option's reach of ``ua`` on ``ut``."""
        if self.t.in_touch:
            return gaps <= 0
        return gaps <= self.t.reach_flat[ua * self.t.u + ut]

    def turn(
        self,
        idx: Any,
        a: Any,
        feet: Any,
        moved: Any,
        strikes: Any,
        used: Any,
        shooting: Any,
        begun: bool = False,
        present: Any = None,
    ) -> None:
        """Actor ``a``'s turn in fights ``idx`` (``begun``: the rest of the table's turn under way), with
        ``feet`` of Move (None: its whole Move), then its end: its timed conditions counted. ``present``:
        True when ``a`` is known to be in each of those fights. ``moved``, ``strikes``, ``used`` and
        ``shooting`` all None: a fresh turn (nothing moved, struck or done yet)."""
        if present is None:
            present = ~self.out_of(idx, a)
            rows, who = idx[present], a[present]
        else:
            rows, who = idx, a
        if not begun:
            self.timers.turn_starts(rows, who, self.down)
        ua = self.u(idx, a)
        feet = self.t.move[ua] if feet is None else feet
        if self.t.acts_all and present is True:
            self._act(idx, a, feet, moved, strikes, used, shooting)
        else:
            fit = present & self.t.acts[ua]
            self._act(*(None if x is None else x[fit] for x in (idx, a, feet, moved, strikes, used, shooting)))
        self.timers.turn_ends(rows, who, self.rng)

    def _act(self, idx: Any, a: Any, feet: Any, moved: Any, strikes: Any, used: Any, shooting: Any) -> None:
        """Its action (an attack, a shot or a move and a charge), then a monster's further attacks.
        ``used``: the action taken already (None: a fresh turn, see :meth:`turn`)."""
        t = self.t
        if not len(idx):
            return
        k = t.k
        target, has = self.nearest(idx, a)
        fresh = has if used is None else ~used & has
        ua, ut = self.u(idx, a), self.u(idx, target)
        pair = (idx * k + a) * k + target  # the actor and its foe's cell of the [n, k, k] tables
        gaps = self.gapf[pair]
        near = fresh & self._in_reach(gaps, ua, ut)
        far = fresh ^ near  # fresh and out of reach (``near`` lies within ``fresh``)
        shoot = shot = None  # None: nobody shoots (the common case on a walled map: no arrays for it)
        if self.shooters:
            may = far & t.sighted[a * k + target]  # a shooter with its foe in sight (the plan's sight)
            if moved is not None:
                may &= moved <= t.move[ua] / 2
            s = may.nonzero()[0]
        else:
            s = ()
        if len(s):
            options = self.shot(idx[s], a[s], target[s])
            if np.count_nonzero(options >= 0):
                shot = _none(len(idx))
                shot[s] = options
                shoot = shot >= 0
        w = (far if shoot is None else far & ~shoot).nonzero()[0]
        if len(w):
            there, current = pair[w], gaps[w]
            # The seam's close_in on these fights alone: both gaps of the pair shrink by the feet moved.
            steps = np.minimum(current, feet[w])  # a foe's gap is never inf (FAR when it cannot be reached)
            left = (current - steps).astype(np.float32)  # as the table keeps it
            self.gapf[there] = left  # the mover's own gap at once: its further attacks read it
            if used is None and self.pending is not None:
                self.pending.append((there, steps, left))
                self.waiting += len(w)
            else:
                self._closed(idx[w], a[w], target[w], there, steps, left)
            near[w] = left <= 0 if t.in_touch else self._in_reach(left, ua[w], ut[w])
        if shoot is None:
            self._melee(idx, a, target, near.nonzero()[0])
            if not (t.multi and self.many):
                return
            shoot = np.zeros(len(idx), dtype=np.bool_)
        else:
            self._blows(idx, a, target, near, shoot, shot, pair)
            if not (t.multi and self.many):
                return
        if used is None:
            attacking = near | shoot
            strikes = attacking.astype(np.int64)
            shooting = shoot
        else:
            attacking = (used & (strikes > 0)) | near | shoot
            strikes = np.where(near | shoot, 1, strikes)
            shooting = shooting | shoot
        # A monster's further attacks, only in the fights where it has more than one and struck.
        many = t.attacks[a]
        rest = (attacking & (many > 1)).nonzero()[0]
        if not len(rest):
            return
        idx, a, ua, many, strikes, shooting = idx[rest], a[rest], ua[rest], many[rest], strikes[rest], shooting[rest]
        attacking = np.ones(len(rest), dtype=np.bool_)
        for _ in range(int(many.max()) - 1):
            more = attacking & (strikes < many) & ~self.out_of(idx, a)
            if not np.count_nonzero(more):
                return
            target, has = self.nearest(idx, a)
            more &= has
            pair = (idx * k + a) * k + target
            hand = more & ~shooting & self._in_reach(self.gapf[pair], ua, self.u(idx, target))
            shot = _none(len(idx))
            aim = more & shooting
            if np.count_nonzero(aim):
                shot[aim] = self.shot(idx[aim], a[aim], target[aim])
            shoot = shot >= 0
            self._blows(idx, a, target, hand, shoot, shot, pair)
            attacking = hand | shoot
            strikes = strikes + attacking

    def _closed(self, rows: Any, i: Any, j: Any, there: Any, steps: Any, left: Any) -> None:
        """The rest of walks of ``i`` on ``j`` by ``steps`` feet (``there``: the mover's cell of the pair,
        its gap ``left`` written): the foe's gap to the mover shrinks by the same feet, the pair's
        distance follows, and each one's kept nearest (:meth:`closed_in`)."""
        k = self.t.k
        back = (rows * k + j) * k + i
        self.gapf[back] = np.maximum(self.gapf[back] - steps, 0.0)
        apart = self.distf[there]
        d = np.where(left <= 0, np.minimum(apart, MELEE_FT), np.maximum(apart - steps, MELEE_FT))
        self.distf[there] = d
        self.distf[back] = d
        self.closed_in(rows, i, j)

    def flush(self) -> None:
        """The put-off rest of the walks (:meth:`_closed`), all at once. They were put off while one side's
        members took their turns: a walk changes only the pair's gaps and distance and the foe's kept
        nearest, and until the other side acts nobody reads the foe's row nor its nearest (the mover's
        own gap is written at once). A foe more than one of them walked on keeps the nearest of them
        (the roster's first on a tie), as one walk after another would leave it; so the rest may be
        finished at any time before the other side acts, in one go or in several."""
        parts = self.pending
        if not parts:
            return
        self.pending = []
        self.waiting = 0
        if len(parts) == 1:
            there, steps, left = parts[0]
        else:
            there, steps, left = (np.concatenate(column) for column in zip(*parts, strict=True))
        k = self.t.k
        mover, j = np.divmod(there, k)  # ``there``: the mover's cell of the pair, (fight * k + i) * k + j
        rows, i = np.divmod(mover, k)
        foe = rows * k + j  # the foe's cell
        back = foe * k + i
        new = np.maximum(self.gapf[back] - steps, 0.0).astype(np.float32)
        self.gapf[back] = new
        apart = self.distf[there]
        d = np.where(left <= 0, np.minimum(apart, MELEE_FT), np.maximum(apart - steps, MELEE_FT))
        self.distf[there] = d
        self.distf[back] = d
        if len(parts) > 1 and self.t.harms_all:
            if self.scratch is None:
                self.scratch = np.full(self.gapf.size // k, MOST, dtype=np.int64)  # a cell a fight's combatant
            lead = _nearest_movers(foe, new, i, k, self.scratch)
            rows, i, j = rows[lead], i[lead], j[lead]
        self.closed_in(rows, i, j)

    def _melee(self, idx: Any, a: Any, target: Any, m: Any) -> None:
        """The melee blows of the fights ``m`` (indices into ``idx``): each pair's best option and its chance
        (at short range) looked up at once."""
        if not len(m):
            return
        t = self.t
        idx, a, target = idx[m], a[m], target[m]
        both = self.u(idx, a) * t.u + self.u(idx, target)
        self.strike(idx, a, target, None, chance=t.melee_hit[both], rows=t.melee_rows[both])

    def _blows(self, idx: Any, a: Any, target: Any, melee: Any, shoot: Any, shot: Any, pair: Any) -> None:
        """One blow in each fight that strikes: the best melee option where ``melee``, the option
        ``shot`` where ``shoot`` (never both in one fight: one strike call does them all)."""
        go = melee | shoot
        if not np.count_nonzero(go):
            return
        t = self.t
        idx, a, target, pair, shoot = idx[go], a[go], target[go], pair[go], shoot[go]
        ua, ut = self.u(idx, a), self.u(idx, target)
        both = ua * t.u + ut
        if np.count_nonzero(shoot):
            self.strike(idx, a, target, np.where(shoot, shot[go], t.melee_flat[both]), pair, ua, ut)
        else:  # melee blows alone: each pair's best option and its chance (at short range) looked up at once
            self.strike(idx, a, target, t.melee_flat[both], chance=t.melee_hit[both])

    def strike(
        self,
        idx: Any,
        a: Any,
        target: Any,
        option: Any,
        pair: Any = None,
        ua: Any = None,
        ut: Any = None,
        chance: Any = None,
        rows: Any = None,
    ) -> None:
        """One blow each: the d20 against the exact chance, the damage from its exact distribution.
        ``pair``, ``ua``, ``ut``: the pair's cell and ``u`` rows, when worked out already; ``chance``:
        the chance to hit, when known (melee blows); ``rows``: each blow's row of ``cdf_rows``, when known
        (melee blows: ``option`` then unread)."""
        if not len(idx):
            return
        t = self.t
        if chance is None:
            if pair is None:
                pair = (idx * t.k + a) * t.k + target
                ua, ut = self.u(idx, a), self.u(idx, target)
            reach = t.range_flat[a * t.options + option]
            ranged = reach > 0
            # Long range only for a shot: melee blows alone need no distance read.
            long = ranged & (self.distf[pair] > reach / 2) if np.count_nonzero(ranged) else ranged
            chance = t.hit_flat[((ua * t.u + ut) * t.options + option) * 2 + long]
        hits = (self.rng.random(len(idx)) < chance).nonzero()[0]
        if not len(hits):
            return
        idx, target = idx[hits], target[hits]
        blow = a[hits] * t.options + option[hits] if rows is None else rows[hits]
        draw = self.rng.random(len(idx))
        # The amount: the first the cumulative chance passes the draw (the cdf never falls, its last is 2).
        amount = (t.cdf_rows[blow] > draw[:, None]).argmax(axis=1)
        self.damage(idx, target, amount)

    def damage(self, idx: Any, target: Any, amount: Any) -> None:
        """HP lost; at 0 a monster or NPC is defeated and a PC makes its death save; then morale."""
        t = self.t
        cell = idx * t.k + target
        left = self.hpf[cell] - amount
        self.hpf[cell] = np.maximum(left, 0)
        f = (left <= 0).nonzero()[0]
        if len(f):
            f = f[~self.downf[cell[f]]]  # one down already stays down
        if not len(f):
            return
        idx, target, cell, overkill = idx[f], target[f], cell[f], -left[f]
        side = t.side[target]
        count = idx * 2 + side  # the fight's count of that side in ``downs`` and ``outs``
        downs, outs = self.downsf[count], self.outsf[count]
        was_out = self.gonef[cell]  # fled already: down now, not out once more
        self.downf[cell] = True
        self.gonef[cell] = True
        self.downsf[count] = downs + 1
        now = outs + ~was_out
        self.outsf[count] = now
        ended = now == self.count[side]  # the side's last one out ends the fight
        if np.count_nonzero(ended):
            self.over[idx[ended]] = True
            self.ends += 1
        pc = t.pc[target]
        if np.count_nonzero(pc):
            face = self.rng.integers(1, 21, len(idx))
            dies = pc & (face + t.death_save[self.u(idx, target)] < death_save_dc(overkill))
            self.deadf[cell[dies]] = True
        width = t.k + 1
        due = t.due[(side * width + outs) * width + downs]
        if not np.count_nonzero(due):
            return
        for s in (PARTY, OPPONENTS):
            check = due & (side == s)
            if np.count_nonzero(check):
                self.morale(idx[check], s)

    def morale(self, idx: Any, s: int) -> None:
        """A side's morale check: one 2d6 against each one's score; above it flees (2 always flees,
        12 never); a pass counts, and two passes end its checks."""
        t = self.t
        members = t.columns[s]
        # Whole rows of the fights (each once in ``idx``) read and put back: cheaper than a cell per member.
        gone, passes = self.gone[idx], self.passes[idx]
        eligible = t.has_morale[members] & ~gone[:, members] & (passes[:, members] < 2)
        # 2d6: one draw of both dice (the same numbers as a draw for each die, one after the other).
        dice = self.rng.integers(1, 7, 2 * len(idx))
        roll = dice[: len(idx)] + dice[len(idx) :]
        flees = eligible & (roll[:, None] > t.flees_above[members])
        stands = (eligible ^ flees) & t.passes_count[members]  # those who flee are eligible
        if np.count_nonzero(flees):
            fled = self.fled[idx]
            fled[:, members] |= flees
            self.fled[idx] = fled
            gone[:, members] |= flees
            self.gone[idx] = gone
            self.outs[idx, s] += flees.sum(axis=1)  # only those still in the fight may flee
            self.over[idx] |= self.outs[idx, s] == self.count[s]
            self.ends += 1
        if np.count_nonzero(stands):
            passes[:, members] += stands
            self.passes[idx] = passes

    def death_save(self, target: int, dc: int) -> None:
        face = self.rng.integers(1, 21, self.n)
        self.dead[:, target] |= face + self.t.death_save[target * self.t.width] < dc  # before any condition ends


def simulate_fights(encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome:
    t = tables_of(encounter, field)
    k = t.k
    result = empty_outcome(fights, k, ("HP",))
    f = _Fights(t, encounter, field, fights, rng)
    combat = encounter.combat
    everyone = np.arange(fights)
    ones = np.ones(fights, dtype=np.int64)
    order: Any
    if combat.phase is Phase.FIGHTING:
        _pending(f, encounter, field)
        order, acted = _this_round(encounter, field, fights)
        turn = combat.turn
        if turn is not None and turn.combatant in field.ids:
            i = field.index(turn.combatant)
            left = max(t.move[i * t.width] - turn.feet_used, 0.0)
            f.turn(
                everyone,
                i * ones,
                np.full(fights, left),
                np.full(fights, turn.feet_used),
                np.full(fights, turn.attacks if turn.action in ATTACKS else 0),
                np.full(fights, turn.action is not None),
                np.full(fights, turn.action == "ranged"),
                begun=True,
            )
            acted[turn.combatant == np.array(field.ids)] = True
        f.settle()
        order = order[:, ~acted[order[0]]] if order.shape[1] else order
    else:
        order = None
    # RULES §12: a creature given the *surprised* condition takes no turn in the first round.
    sits_out = (
        np.array([cond.has(encounter.combatant(cid), "surprised") for cid in field.ids])
        if combat.phase is not Phase.FIGHTING
        else None
    )
    f.settle()  # a side already all out: over before any turn
    played = 1
    put_off = PUT_OFF and field.prefer is None  # a pinned foe changes the mover's own kept nearest: no walk put off
    while True:
        if order is None:
            order = f.initiative()
        by_place = order.T.copy()  # each place's actor in every fight, a row each: one read a turn
        places = order.shape[1]
        flush = [False] * (places + 1)
        acts_as = t.acts_as[by_place]  # [places, fights] uint8: one read of what each actor is (sim_tables.py)
        if put_off and places > 1:
            # The walks' rest is put off while each fight's turns stay with one side (by group initiative a
            # side's members one after another), and done before the place where some fight's side changes.
            changes = (((acts_as[1:] ^ acts_as[:-1]) & 1).any(axis=1)).nonzero()[0] + 1
            f.pending = [] if len(changes) <= 4 else None
            for place in changes:
                flush[place] = True
        # Each place's actors: whether one of them shoots at all, or makes more than one attack.
        either = np.bitwise_or.reduce(acts_as, axis=1)
        shooters, many = ((either & 2) > 0).tolist(), ((either & 4) > 0).tolist()
        seen = -1
        for place in range(places):
            turn_boundary()  # the GM acting: wait (a worker of the window's)
            if f.pending and (flush[place] or f.waiting >= WAITING):
                f.flush()
            if f.ends != seen:  # a fight may have ended since the last look
                going, seen = (~f.over).nonzero()[0], f.ends
                if not len(going):
                    break
            live = going
            a = by_place[place][live]
            keep = ~f.gonef[live * k + a]  # a turn only where it is still in the fight
            if sits_out is not None and played == 1:
                keep &= ~sits_out[a]
            live, a = live[keep], a[keep]
            if not len(live):
                continue
            # A fresh turn; a fight ends where a side's last one falls or flees (damage, morale).
            f.shooters, f.many = shooters[place], many[place]
            f.turn(live, a, None, None, None, None, None, present=True)
        f.shooters = f.many = True
        f.flush()
        f.pending = None
        done = f.over | (played >= MAX_ROUNDS)
        fresh = done & ~f.written
        _write(result, f, fresh, played)
        f.written |= fresh
        if done.all():
            return result
        if 2 * done.sum() >= f.n:  # copying every array costs a round's turns: only once half are over
            f.keep(~done)
        played += 1
        order = None


def _write(result: SimOutcome, f: _Fights, rows: Any, played: int) -> None:
    ids = f.ids[rows]
    result.winner[ids] = f.winner()[rows]
    result.rounds[ids] = played
    result.down[ids] = f.out()[rows]
    result.dead[ids] = f.dead[rows]
    result.health[ids, :, 0] = f.hp[rows]


def _this_round(encounter: Encounter, field: Battlefield, fights: int) -> tuple[Any, Any]:
    """The rest of the round under way: the engine's order (its places, then any who joined late),
    and who may no longer act in it (acted, or surprised)."""
    combat = encounter.combat
    listed = [cid for slot in combat.order for cid in slot.members if cid in field.ids]
    listed += [cid for cid in field.ids if cid not in listed]
    places = np.array([field.index(cid) for cid in listed], dtype=np.int64)
    acted = np.array([cid in combat.acted or cond.surprised(encounter, encounter.combatant(cid)) for cid in field.ids])
    return np.tile(places, (fights, 1)), acted


def _pending(f: _Fights, encounter: Encounter, field: Battlefield) -> None:
    """What the rules had called for when the odds were asked: death saves, morale checks and
    counter-attacks, rolled first as the reference answers them."""
    everyone = np.arange(f.n)
    for item in encounter.combat.pending:
        if item.kind == "death save" and item.who in field.ids:
            f.death_save(field.index(item.who), item.number or death_save_dc(0))
        elif item.kind == "morale" and item.who in (Side.PARTY.value, Side.OPPONENTS.value):
            f.morale(everyone, PARTY if item.who == Side.PARTY.value else OPPONENTS)
        elif item.kind == "counter-attack" and item.who in field.ids and (item.target or "") in field.ids:
            striker: OsrCombatant = encounter.combatant(item.who)  # type: ignore[assignment]
            i, j = field.index(item.who), field.index(item.target or "")
            option = next(
                o
                for o, (w, s) in enumerate(attack_options(striker))
                if w.name == striker.best_melee().name and s == "melee"
            )
            fit = everyone[~f.out_of(everyone, i) & ~f.out_of(everyone, j)]
            f.strike(fit, np.full(len(fit), i), np.full(len(fit), j), np.full(len(fit), option))


class OsrFights(FightsBase):
    """Whole-fight odds: the fast simulator above and the same tactic played through the engine (tactic.py)."""

    tactic = (
        "Each round in initiative order, a combatant still in the fight takes its nearest standing foe: in "
        "melee reach, it attacks it with its best melee weapon; else a shooter with the foe in sight, in range "
        "and at least 10 ft away shoots from where it stands; else it moves up to its Move towards the foe "
        "and charges if that brings it into reach. Death saves and morale checks are rolled as they fall due."
    )
    health_columns = ("HP",)
    tells_death = True

    @staticmethod
    def fight_bytes(k: int) -> int:
        """A fight's peak bytes at ``k`` combatants: the float32 gap and distance tables (8 bytes a pair),
        twice while finished fights leave the arrays (measured: 280 MB in all at 10,000 fights of 40, the
        walks put off included)."""
        return 16 * k * k + 1024

    def simulate(self, encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome:
        return simulate_fights(encounter, field, fights, rng)

    def play(self, engine: Table, field: Battlefield, max_rounds: int) -> None:
        play_fight(engine, field, max_rounds)

    def out(self, c: OsrCombatant) -> bool:  # type: ignore[override]
        """Down (defeated, unconscious or dead), fled or surrendered: out of the fight."""
        return sim_out(c)
