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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.conditions import condition_key
from lnl_desktop.core.encounter.model import ConditionDuration, Encounter, Phase, Side
from lnl_desktop.core.rules.fight import (
    MAX_ROUNDS,
    NEITHER,
    OPPONENTS,
    PARTY,
    Battlefield,
    SimOutcome,
    Timed,
    Timers,
    empty_outcome,
    pin,
    timed_conditions,
    variants,
)
from lnl_desktop.core.rules.osr import condition_table as cond
from lnl_desktop.core.rules.osr.model import InitiativeMode, Kind, MoraleResult, OsrCombatant, SaveCategory
from lnl_desktop.core.rules.osr.rules import ATTACKS, death_save_dc, save_bonus
from lnl_desktop.core.rules.osr.tactic import SHOOT_FROM_FT, attack_options, blow, play_fight, ranked_blows, sim_out
from lnl_desktop.core.rules.shared import FightsBase
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

np = lazy_module("numpy")  # off the app's start path: loaded when the odds first run

FAR = 1e30  # an unreachable foe's gap: still a foe, the last to pick (inf marks "not a foe"); finite in float32
MELEE_FT = 5  # the plan's gaps are to 5 ft melee reach; a reach weapon strikes 5 ft farther
# The conditions the simulator reads (RULES §12's table): they take the turn, hold in place, or change
# a to-hit roll, a save or the Move. Only these are followed when they end by themselves.
READ = (
    "blinded",
    "exhausted",
    "frightened",
    "grappled",
    "incapacitated",
    "invisible",
    "paralyzed",
    "petrified",
    "poisoned",
    "prone",
    "restrained",
    "stunned",
    "unconscious",
    "wounded",
)


@dataclass
class _Tables:
    """What does not change during the fight, per combatant (``k``) and attack option (``o``). The
    tables marked ``u`` are by combatant and set of its timed conditions ended (RULES §10): row
    ``i * width + v`` is combatant ``i`` with the conditions of bits ``v`` gone (:func:`.fight.variants`)."""

    side: Any  # [k]
    foe: Any  # [k, k]
    pc: Any  # [k]
    morale: Any  # [k] (0: none)
    has_morale: Any  # [k]
    death_save: Any  # [k] the Poison or Death bonus
    init: Any  # [k]
    leader: Any  # [k]
    attacks: Any  # [k]
    acts: Any  # [u] able to act at all (no helpless condition)
    move: Any  # [u] feet a turn
    hit: Any  # [u, u, o, 2] the chance to hit, at short and at long range
    cdf: Any  # [k, o, d] P(damage <= d)
    range_ft: Any  # [k, o] a ranged option's maximum range (0: melee)
    melee_best: Any  # [u, u] the best melee option against each foe
    harms: Any  # [u, u] some option harms that foe (RULES §12): one it harms is picked before one it cannot
    reach_extra: Any  # [u, u] how much farther than 5 ft that option reaches
    ranged_rank: Any  # [u, u, r] ranged options, best first (-1: none)
    sees: Any  # [k, k]
    members: tuple[Any, Any]  # each side's indices
    size: Any  # [2] each side's members, those off the map included
    off_down: Any  # [2] members off the map who are down
    off_out: Any  # [2] members off the map who are out of the fight
    group: bool  # initiative by group
    timed: list[Timed]  # the conditions that end by themselves
    width: int  # variants per combatant in the ``u`` tables (1: no timed condition)
    harms_all: bool = False  # everyone harms each of its foes: the nearest needs no second look
    shoots: Any = None  # [k] has a ranged option at all (one that has none never looks for a shot)
    acts_all: bool = False  # nobody is kept from acting, whatever ends: a turn needs no filter
    # The per-pair tables flat, read with one index a cell (cheaper than two to four index arrays):
    # ``(ua * u + ut) * options + o`` for a blow of option ``o`` by ``ua`` on ``ut``.
    u: int = 0  # rows of the ``u`` tables
    options: int = 0  # attack options per combatant (the tables' width)
    hit_flat: Any = None
    melee_flat: Any = None
    reach_flat: Any = None
    range_flat: Any = None
    rank_flat: Any = None
    in_touch: bool = False  # every best melee option reaches 5 ft: in reach means a gap of 0
    multi: bool = False  # someone makes more than one attack a turn
    melee_hit: Any = None  # [u * u] the chance to hit of the best melee option (flat as melee_flat)
    due: Any = None  # [2, k + 1, k + 1] flat: a side's morale check due at a fall, by its out and down before it

    def __post_init__(self) -> None:
        pairs = np.repeat(np.repeat(self.foe, self.width, axis=0), self.width, axis=1)
        self.harms_all = bool(self.harms[pairs].all())
        self.shoots = (self.range_ft > 0).any(axis=1)
        self.acts_all = bool(self.acts.all())
        self.u, self.options = self.melee_best.shape[0], self.range_ft.shape[1]
        self.hit_flat = self.hit.reshape(-1)
        self.melee_flat = self.melee_best.reshape(-1)
        self.reach_flat = self.reach_extra.reshape(-1)
        self.range_flat = self.range_ft.reshape(-1)
        self.rank_flat = self.ranged_rank.reshape(-1)
        self.in_touch = not self.reach_extra.any()
        self.multi = bool((self.attacks > 1).any())
        u = np.arange(self.u)
        self.melee_hit = self.hit[u[:, None], u[None, :], self.melee_best, 0].reshape(-1)
        # RULES §12: a check at the side's first fall and at the fall that puts half of it out (those
        # off the map counted), looked up by the side's members out and down on the map before the fall.
        before = np.arange(self.k + 1)
        down = before[None, :] + self.off_down[:, None]
        out = before[None, :] + self.off_out[:, None]
        size = self.size[:, None]
        half = (2 * out < size) & (size <= 2 * (out + 1))  # [2, out]
        self.due = (half[:, :, None] | (down == 0)[:, None, :]).reshape(-1)

    @property
    def k(self) -> int:
        return len(self.side)


def _tables(encounter: Encounter, field: Battlefield) -> _Tables:
    cs: list[OsrCombatant] = [encounter.combatant(cid) for cid in field.ids]  # type: ignore[misc]
    k = len(cs)
    names, timed = timed_conditions(field, cs, _reads, lambda c, d: save_chance(encounter, c, d))
    forms = [variants(c, names[i]) for i, c in enumerate(cs)]
    v_width = 2 ** max(len(n) for n in names)
    u = k * v_width
    opts = [attack_options(c) for c in cs]
    width = max(len(o) for o in opts)
    hit = np.zeros((u, u, width, 2))
    dists: dict[tuple[int, int], dict[int, float]] = {}
    range_ft = np.zeros((k, width))
    melee_best = np.zeros((u, u), dtype=np.int64)
    harms = np.zeros((u, u), dtype=np.bool_)
    reach_extra = np.zeros((u, u))
    ranks = np.full((u, u, max(1, max(sum(s == "ranged" for _, s in o) for o in opts))), -1, dtype=np.int64)
    foe = field.foes()
    for i in range(k):
        for o, (w, style) in enumerate(opts[i]):
            if style == "ranged":
                range_ft[i, o] = w.max_range_ft or 0
        for j in range(k):
            if not foe[i, j]:
                continue
            for va, a in enumerate(forms[i]):
                for vt, t in enumerate(forms[j]):
                    x, y = i * v_width + va, j * v_width + vt
                    blows = [blow(encounter, a, t, w, style) for w, style in opts[i]]  # each worked out once
                    for o, (w, _style) in enumerate(opts[i]):
                        to, damage = blows[o]
                        if w.name in to.unharmed:
                            continue  # RULES §12: it cannot harm this foe, as good as a miss (the chance stays 0)
                        harms[x, y] = True
                        if va == vt == 0:
                            dists.setdefault((i, o), damage)
                        short = to.bonus - sum(v for name, v in to.terms if name == "long range")
                        hit[x, y, o, 0] = to.chance_at(short)
                        hit[x, y, o, 1] = to.chance_at(short - 1)
                    best = ranked_blows(opts[i], blows, ranged=False)
                    melee_best[x, y] = best[0]
                    reach_extra[x, y] = opts[i][best[0]][0].reach - MELEE_FT
                    for r, o in enumerate(ranked_blows(opts[i], blows, ranged=True)):
                        ranks[x, y, r] = o
    top = max((max(d) for d in dists.values()), default=0)
    cdf = np.ones((k, width, top + 1))
    for (i, o), damage in dists.items():
        p = np.zeros(top + 1)
        for amount, chance in damage.items():
            p[amount] += chance
        cdf[i, o] = np.cumsum(p)
        cdf[i, o, -1] = 2.0  # no draw falls past the largest amount, rounding or not
    everyone = [c for c in encounter.combatants if isinstance(c, OsrCombatant)]
    off = [c for c in everyone if c.id not in field.ids]
    sides = (Side.PARTY, Side.OPPONENTS)

    def move(c: OsrCombatant) -> float:
        if c.incapacitated_by is not None or c.held_by is not None:
            return 0.0
        return c.move_ft / 2 if cond.level(c) >= 3 else float(c.move_ft)

    return _Tables(
        side=field.side.copy(),
        foe=foe,
        pc=np.array([c.kind is Kind.PC for c in cs]),
        morale=np.array([(c.morale or 0) if c.has_morale else 0 for c in cs], dtype=np.int64),
        has_morale=np.array([c.has_morale for c in cs]),
        death_save=np.array(
            _each(forms, v_width, lambda c: save_bonus(encounter, c, SaveCategory.POISON)), dtype=np.int64
        ),
        init=np.array([c.init_mod for c in cs], dtype=np.int64),
        leader=np.array([c.leader for c in cs]),
        attacks=np.array([c.attacks for c in cs], dtype=np.int64),
        acts=np.array(_each(forms, v_width, lambda c: c.incapacitated_by is None), dtype=np.bool_),
        move=np.array(_each(forms, v_width, move)),
        hit=hit,
        cdf=cdf,
        range_ft=range_ft,
        melee_best=melee_best,
        harms=harms,
        reach_extra=reach_extra,
        ranged_rank=ranks,
        sees=field.sees.copy(),
        members=(np.flatnonzero(field.side == PARTY), np.flatnonzero(field.side == OPPONENTS)),
        size=np.array([sum(c.side is s for c in everyone) for s in sides]),
        off_down=np.array([sum(c.side is s and c.down for c in off) for s in sides]),
        off_out=np.array([sum(c.side is s and c.out_of_fight for c in off) for s in sides]),
        group=InitiativeMode(encounter.options.initiative) is InitiativeMode.GROUP,  # type: ignore[attr-defined]
        timed=timed,
        width=v_width,
    )


_last: tuple[Any, Any, str, _Tables] | None = None  # the last state's tables: (field, map, its words, tables)


def _tables_of(encounter: Encounter, field: Battlefield) -> _Tables:
    """The tables of this state, worked out once for all the batches of one odds: kept while the same
    plan and map and the same words of the table (its JSON, the log and the immutable map apart) come
    back, so a change the engine made in place is never read from stale tables."""
    global _last
    words = encounter.model_dump_json(exclude={"log", "map"})
    last = _last
    if last is not None and last[0] is field and last[1] is encounter.map and last[2] == words:
        return last[3]
    t = _tables(encounter, field)
    _last = (field, encounter.map, words, t)
    return t


def _each(forms: list[list[OsrCombatant]], width: int, value: Any) -> list[Any]:
    """``value`` of each combatant in each of its forms, a ``u`` row each (a form it lacks: its own)."""
    return [value(f[v] if v < len(f) else f[0]) for f in forms for v in range(width)]


def _reads(condition: str) -> bool:
    key = condition_key(condition).casefold()
    return any(key == word or key.startswith(word + " ") or key.startswith(word + "(") for word in READ)


def save_chance(encounter: Encounter, c: OsrCombatant, duration: ConditionDuration) -> float:
    """The chance a save at the end of ``c``'s turn ends a condition, as the ruleset rolls it (RULES §10,
    §12): d20 + its bonus in the save category (Spells when none is named; exhaustion counted) ≥ the
    duration's DC (11 when it gives none)."""
    try:
        category = SaveCategory(duration.save or SaveCategory.SPELLS.value)
    except ValueError:
        return 0.0  # a category this ruleset lacks: the engine cannot roll it, the GM removes it by hand
    bonus = save_bonus(encounter, c, category)
    dc = duration.dc if duration.dc is not None else 11
    return sum(face + bonus >= dc for face in range(1, 21)) / 20


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
        # Feet in float32: whole and half feet are exact in it, and a fight's two [k, k] tables take half the bytes.
        self.gap = _copies(np.where(np.isinf(field.gap_ft) & t.foe, FAR, field.gap_ft).astype(np.float32), n)
        self.dist = _copies(field.dist_ft.astype(np.float32), n)
        self.over = np.zeros(n, dtype=np.bool_)
        self.written = np.zeros(n, dtype=np.bool_)  # over and its outcome written
        self.gone = self.down | self.fled | self.surrendered  # out of the fight: kept as they fall or flee
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
        self._views()

    def _views(self) -> None:
        """Flat views of the tables a turn reads cell by cell: ``fight * k + i`` is combatant ``i``'s
        cell, ``(fight * k + i) * k + j`` the pair's; one index a cell is cheaper than two or three."""
        self.gapf, self.distf = _flat(self.gap), _flat(self.dist)
        self.gonef, self.hpf, self.downf, self.aimf = (
            _flat(self.gone),
            _flat(self.hp),
            _flat(self.down),
            _flat(self.aim),
        )
        self.downsf, self.outsf = _flat(self.downs), _flat(self.outs)

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
        stale = (aim < 0) | self.gonef[row + np.maximum(aim, 0)]
        if np.count_nonzero(stale):
            s = stale.nonzero()[0]
            rows, who, cells = idx[s], a[s], row[s] + a[s]
            cand = self.t.foe[who] & ~self.gone[rows]
            gaps = np.where(cand, self.gap.reshape(-1, k)[cells], np.inf)
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
        ua = self.u(idx, a)
        pair = (idx * k + a) * k + target  # the actor and its foe's cell of the [n, k, k] tables
        near = fresh & self._in_reach(self.gapf[pair], ua, self.u(idx, target))
        shot = _none(len(idx))
        may = fresh & ~near & t.shoots[a]
        if moved is not None:
            may &= moved <= t.move[ua] / 2
        if np.count_nonzero(may):
            shot[may] = self.shot(idx[may], a[may], target[may])
        shoot = shot >= 0
        walk = fresh & ~near & ~shoot
        if np.count_nonzero(walk):
            w = walk.nonzero()[0]
            rows, i, j, there = idx[w], a[w], target[w], pair[w]
            back = (rows * k + j) * k + i
            # The seam's close_in on these fights alone: both gaps of the pair shrink by the feet moved.
            current = self.gapf[there]
            steps = np.minimum(current, feet[w])  # a foe's gap is never inf (FAR when it cannot be reached)
            left = (current - steps).astype(np.float32)  # as the table keeps it
            self.gapf[there] = left
            self.gapf[back] = np.maximum(self.gapf[back] - steps, 0.0)
            apart = self.distf[there]
            d = np.where(left <= 0, np.minimum(apart, MELEE_FT), np.maximum(apart - steps, MELEE_FT))
            self.distf[there] = d
            self.distf[back] = d
            self.closed_in(rows, i, j)
            near[w] = self._in_reach(left, ua[w], self.u(rows, j))
        self._blows(idx, a, target, near, shoot, shot, pair)
        if used is None:
            attacking = near | shoot
            strikes = attacking.astype(np.int64)
            shooting = shoot
        else:
            attacking = (used & (strikes > 0)) | near | shoot
            strikes = np.where(near | shoot, 1, strikes)
            shooting = shooting | shoot
        if not t.multi:
            return
        for _ in range(int(t.attacks[a].max()) - 1):
            more = attacking & (strikes < t.attacks[a]) & ~self.out_of(idx, a)
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
    ) -> None:
        """One blow each: the d20 against the exact chance, the damage from its exact distribution.
        ``pair``, ``ua``, ``ut``: the pair's cell and ``u`` rows, when worked out already; ``chance``:
        the chance to hit, when known (melee blows)."""
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
        hits = self.rng.random(len(idx)) < chance
        if not np.count_nonzero(hits):
            return
        idx, a, target, option = idx[hits], a[hits], target[hits], option[hits]
        draw = self.rng.random(len(idx))
        # The amount: the first the cumulative chance passes the draw (the cdf never falls, its last is 2).
        amount = (t.cdf[a, option] > draw[:, None]).argmax(axis=1)
        self.damage(idx, target, amount)

    def damage(self, idx: Any, target: Any, amount: Any) -> None:
        """HP lost; at 0 a monster or NPC is defeated and a PC makes its death save; then morale."""
        t = self.t
        cell = idx * t.k + target
        before = self.hpf[cell]
        self.hpf[cell] = np.maximum(before - amount, 0)
        falls = (amount >= before) & ~self.downf[cell]
        if not np.count_nonzero(falls):
            return
        f = falls.nonzero()[0]
        idx, target, cell, overkill = idx[f], target[f], cell[f], amount[f] - before[f]
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
        pc = t.pc[target]
        if np.count_nonzero(pc):
            face = self.rng.integers(1, 21, len(idx))
            dies = pc & (face + t.death_save[self.u(idx, target)] < death_save_dc(overkill))
            self.dead[idx[dies], target[dies]] = True
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
        members = t.members[s]
        # Whole rows of the fights (each once in ``idx``) read and put back: cheaper than a cell per member.
        gone, passes = self.gone[idx], self.passes[idx]
        eligible = t.has_morale[members] & ~gone[:, members] & (passes[:, members] < 2)
        roll = self.rng.integers(1, 7, len(idx)) + self.rng.integers(1, 7, len(idx))
        score = t.morale[members]
        flees = eligible & ((score == 2) | ((score != 12) & (roll[:, None] > score)))
        stands = eligible & ~flees & (score != 2) & (score != 12)
        if np.count_nonzero(flees):
            fled = self.fled[idx]
            fled[:, members] |= flees
            self.fled[idx] = fled
            gone[:, members] |= flees
            self.gone[idx] = gone
            self.outs[idx, s] += flees.sum(axis=1)  # only those still in the fight may flee
            self.over[idx] |= self.outs[idx, s] == self.count[s]
        if np.count_nonzero(stands):
            passes[:, members] += stands
            self.passes[idx] = passes

    def death_save(self, target: int, dc: int) -> None:
        face = self.rng.integers(1, 21, self.n)
        self.dead[:, target] |= face + self.t.death_save[target * self.t.width] < dc  # before any condition ends


def simulate_fights(encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome:
    t = _tables_of(encounter, field)
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
    while True:
        if order is None:
            order = f.initiative()
        for place in range(order.shape[1]):
            live = (~f.over).nonzero()[0]
            if not len(live):
                break
            a = order[live, place]
            keep = ~f.out_of(live, a)  # a turn only where it is still in the fight
            if sits_out is not None and played == 1:
                keep &= ~sits_out[a]
            live, a = live[keep], a[keep]
            if not len(live):
                continue
            # A fresh turn; a fight ends where a side's last one falls or flees (damage, morale).
            f.turn(live, a, None, None, None, None, None, present=True)
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
        twice while finished fights leave the arrays."""
        return 16 * k * k + 1024

    def simulate(self, encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome:
        return simulate_fights(encounter, field, fights, rng)

    def play(self, engine: Table, field: Battlefield, max_rounds: int) -> None:
        play_fight(engine, field, max_rounds)

    def out(self, c: OsrCombatant) -> bool:  # type: ignore[override]
        """Down (defeated, unconscious or dead), fled or surrendered: out of the fight."""
        return sim_out(c)
