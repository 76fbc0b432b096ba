"""Group d10's fight simulator (core.rules.fight): the rest of the fight from the table's state,
thousands of fights at once (numpy arrays over the fights), by the default tactic tactic.py plays
through the engine.

Each round everyone declares Attack, the groups roll their d10s (ties: the Party first, GM groups
in a random order, as their re-rolls make it), and a group's members act in the roster's order. The
to-hit chances are the forecast's own (odds.kept_face with rules.ToHit): plain, with advantage or
with disadvantage, at -2 at half HP or not; a natural 20 doubles the damage die (as its tier rolls
it, odds.weapon_roll), DR comes off, a minion dies on any hit, 0 HP is dead. From a state in the
middle of a fight it keeps the round's order, who has acted, a turn under way, HP, dropped weapons,
parries in force, prone, overextended, lost attacks, grapples, exhaustion and round 1's surprise.

Movement is the seam's by gaps (core.rules.fight.close_in: the mover and its target close by the
feet moved; a reach weapon strikes 5 ft farther and its holder stops that far short), with one
addition for the shooters, who stand and pick the nearest foe they see: a mover that covers the
fraction ``f`` of its gap is taken to stand ``f`` of the way to its target, so everyone's distance
to it moves that way too (a foe that reached a Party member is about as far from the Party's archers
as that member, and seen as that member is)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.conditions import HOLDING, INCAPACITATING, condition_key
from lnl_desktop.core.encounter.model import ConditionDuration, Encounter, Phase, Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.d10 import odds, rules
from lnl_desktop.core.rules.d10.model import D10Combatant, D10Options, D10Weapon, WeaponKind
from lnl_desktop.core.rules.d10.rounds import groups
from lnl_desktop.core.rules.d10.tactic import MELEE_FT, SHOOT_FROM_FT, best_weapon, dropped_weapon, play_fight
from lnl_desktop.core.rules.fight import (
    MAX_ROUNDS,
    OPPONENTS,
    PARTY,
    Battlefield,
    SimOutcome,
    Timers,
    empty_outcome,
    pin,
    sides_together,
    timed_conditions,
    turn_boundary,
    variants,
)
from lnl_desktop.core.rules.shared import FightsBase
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

np = lazy_module("numpy")  # imported at the first simulation: loading the ruleset needs none of it

HEALTH = ("HP",)
MELEE, RANGED = 0, 1  # a weapon's kind, as the tables index it
PLAIN, ADVANTAGE, DISADVANTAGE = 0, 1, 2  # the d20s rolled: one, two kept high, two kept low
EDGES = ((1, True), (2, True), (2, False))  # (dice, keep high) of each
GRID_FT = 5.0  # distances on the grid come in steps of a cell
# In whole-feet int16 tables (_feet_type) an endless gap (a fallen foe's, or one no path reaches) is
# ENDLESS_FT, and anything past FAR_FT is endless: a gap shifts by how its distance changed, never by
# more than the farthest distance (2,048 ft at most), so an endless gap stays endless and in int16.
ENDLESS_FT, FAR_FT = 16_384, 8_192
WAVE_BYTES = 12_800_000  # a wave's gap and distance tables (int16: 4 bytes a pair a fight), within the cache
STRAGGLERS = 5  # a wave with fewer than a fifth of its fights on leaves them to the next


@dataclass
class Arms:
    """A combatant's weapons as the tactic uses them: its best melee and ranged weapon in hand (None:
    none); one that holds none has the best dropped one here and picks it up on its turn."""

    blade: D10Weapon | None
    bow: D10Weapon | None
    armed: bool


def _arms(c: D10Combatant, tiers: bool) -> Arms:
    blade, bow = best_weapon(c, False, tiers), best_weapon(c, True, tiers)
    if blade is None and bow is None:
        spare = dropped_weapon(c, tiers)
        if spare is not None:
            ranged = spare.kind is WeaponKind.RANGED
            return Arms(None if ranged else spare, spare if ranged else None, armed=False)
    return Arms(blade, bow, armed=True)


def _die(weapon: D10Weapon | None, options: D10Options) -> tuple[Any, Any]:
    """The weapon's damage roll as (faces, cumulative chances) to sample by inverse CDF."""
    if weapon is None:
        return np.array([0]), np.array([1.0])
    dist = odds.weapon_roll(weapon, options)
    faces = np.array(sorted(dist), dtype=np.int64)
    cum = np.cumsum([dist[f] for f in sorted(dist)])
    cum[-1] = 1.0
    return faces, cum


def _chances(people: list[D10Combatant], arms: list[Arms]) -> tuple[Any, Any]:
    """P(hit) and P(natural 20) of each attacker i on each target j, by the weapon's kind, the edge
    and whether the attacker is at half HP (-2): [k, k, 2, 3, 2], the forecast's exact chances."""
    k = len(people)
    hit = np.zeros((k, k, 2, 3, 2))
    crit = np.zeros((k, k, 2, 3, 2))
    faces = [odds.kept_face(dice, high) for dice, high in EDGES]
    natural_20 = np.array([f[20] for f in faces])[:, None]  # [edge, 1]
    # A roll hits by its skill bonus, the half-HP -2 and the defense alone: each of those worked out
    # once, for each defense on the field, and spread to the targets of that defense.
    defenses = sorted({t.defense for t in people})
    of_target = np.array([defenses.index(t.defense) for t in people])
    worked: dict[tuple[int, int], Any] = {}
    for i, a in enumerate(people):
        for kind, weapon in ((MELEE, arms[i].blade), (RANGED, arms[i].bow)):
            if weapon is None:
                continue
            bonus = a.skill(weapon.skill)
            crit[i, :, kind] = natural_20
            for bl in (0, 1):
                chances = worked.get((bonus, bl))
                if chances is None:
                    rolls = [rules.ToHit(weapon.skill, bonus, bool(bl), d, rules.Edge()) for d in defenses]
                    chances = np.array(
                        [[sum(p for f, p in face.items() if roll.hits(f)) for face in faces] for roll in rolls]
                    )
                    worked[bonus, bl] = chances
                hit[i, :, kind, :, bl] = chances[of_target]
    return hit, crit


class _Fights:
    """The fights still on, one row each (compacted as they end), and what is fixed about the fighters."""

    def __init__(
        self,
        encounter: Encounter,
        field: Battlefield,
        fights: int,
        rng: Any,
        out: SimOutcome | None = None,
        first: int = 0,
    ) -> None:
        """``fights`` fights from the table's state; ``out``: the outcome they fill, at rows ``first`` on."""
        options: D10Options = encounter.options  # type: ignore[assignment]
        by_id = encounter.by_id()
        people: list[D10Combatant] = [by_id[cid] for cid in field.ids]  # type: ignore[misc]
        self.people, self.field, self.rng = people, field, rng
        self.k = k = field.size
        self.out = empty_outcome(fights, k, HEALTH) if out is None else out
        self.index = {cid: i for i, cid in enumerate(field.ids)}
        tiers = bool(options.weapon_tiers)
        arms = [_arms(c, tiers) for c in people]
        self.p_hit, self.p_crit = _chances(people, arms)
        self.dice = [(_die(a.blade, options), _die(a.bow, options)) for a in arms]
        self.side = field.side
        self.party = field.side == PARTY
        self.foe = field.foes()
        # The field has each side together (sides_together): i's foes are the columns of one slice,
        # and only gaps to foes are ever read, so only those are kept up to date.
        party = int(self.party.sum())
        self.foes_of = [slice(party, k) if self.party[i] else slice(0, party) for i in range(k)]
        self.allies_of = [slice(0, party) if self.party[i] else slice(party, k) for i in range(k)]
        self.hp_max = np.array([c.hp_max for c in people])
        self.dr = np.array([c.dr for c in people])
        self.minion = np.array([c.minion for c in people])
        # Per combatant and per set of its timed conditions ended (RULES §10): exhausted, able to act, and
        # held in place with nobody in the app holding it (restrained, a grapple set by hand): Move 0.
        names, timed = timed_conditions(field, people, _matters, save_chance)
        self.timers = Timers(timed, k, fights)
        width = self.timers.width
        self.exhausted = np.zeros((k, width), dtype=np.bool_)
        self.able = np.ones((k, width), dtype=np.bool_)
        self.stuck = np.zeros((k, width), dtype=np.bool_)
        for i, person in enumerate(people):
            for v, c in enumerate(variants(person, names[i])):
                self.exhausted[i, v] = c.has("exhausted")
                self.able[i, v] = c.incapacitated_by is None
                self.stuck[i, v] = c.held_by is not None and c.holder not in by_id
        self.lost_round = np.array([-1 if c.lost_attack_round is None else c.lost_attack_round for c in people])
        trips = zip(people, self.lost_round, strict=True)
        self.trip_round = np.array([r if rules.tripped(c) else -1 for c, r in trips])
        self.overextended = np.array([-1 if c.overextended_round is None else c.overextended_round for c in people])
        self.ranges = np.array(
            [np.inf if a.bow is None or a.bow.max_range_ft is None else a.bow.max_range_ft for a in arms]
        )
        self.size = np.array([c.size for c in people])
        self.has_bow = np.array([a.bow is not None for a in arms])
        self.has_blade = np.array([a.blade is not None for a in arms])
        # How much farther than 5 ft its melee weapon strikes (a reach weapon: 5 ft more, RULES §13).
        self.reach_extra = np.array([0.0 if a.blade is None else float(a.blade.reach - MELEE_FT) for a in arms])
        self.cancels = bool(getattr(options, "advantage_cancels", True))

        combat = rules.combat_of(encounter)
        self.combat = combat
        self.fighting = combat.phase is Phase.FIGHTING
        self.first = combat.round if self.fighting else 1
        ambushers = combat.ambushers if self.fighting else None
        self.ambush_side = -1 if ambushers is None else (PARTY if ambushers is Side.PARTY else OPPONENTS)
        self.full_surprise = bool(combat.full_surprise)

        # The table's state, the same in every fight at the start.
        def tile(row: Any) -> Any:
            return np.tile(np.asarray(row), (fights,) + (1,) * np.asarray(row).ndim)

        dist = np.where(np.isfinite(field.dist_ft), field.dist_ft, 0.0)  # 0 to itself: no inf in the mixing
        self.rows = np.arange(first, first + fights)  # each fight's place in the outcome
        self.hp = tile([c.hp for c in people]).astype(np.int64)
        self.standing = tile(field.standing)
        # Each fight's standing on each side (PARTY, OPPONENTS), kept as they fall: a fight is over at a 0.
        self.up = tile([int((field.standing & self.party).sum()), int((field.standing & ~self.party).sum())])
        self.dead = tile([c.dead for c in people])
        # A foe that is down is never closed on: its gaps from everyone are taken as endless (inf), so a
        # turn's nearest standing foe is the nearest finite gap, without reading who stands.
        feet = _feet_type(dist, field.gap_ft, field.move_ft, self.reach_extra)
        whole = np.dtype(feet).kind == "i"
        self.endless, self.far = (ENDLESS_FT, FAR_FT) if whole else (np.inf, np.inf)
        gap = np.where(field.standing[None, :], field.gap_ft, np.inf)
        self.gap = tile(np.where(np.isfinite(gap), gap, self.endless).astype(feet))
        self.dist = tile(dist.astype(feet))
        self.armed = tile([a.armed for a in arms])
        self.all_armed = all(a.armed for a in arms)  # and so they stay: a weapon is picked up, never dropped
        self.parrying = tile([c.parrying for c in people])
        self.prone = tile([c.prone for c in people])
        self.holder = tile([self.index.get(c.holder or "", -1) for c in people])
        self.live = np.ones(fights, dtype=np.bool_)
        # Grapples are only the table's (the tactic starts none): with none at the start, none to let go.
        self.grappled = bool((self.holder >= 0).any())
        self.one_size = bool((self.size == self.size[0]).all())  # no token is wider than another
        # Everyone sees everyone (open ground): a move keeps it so (it sees what its target sees).
        self.all_seen = bool((field.sees | np.eye(k, dtype=np.bool_)).all())
        # A mover that reaches its target sees what its target sees, and is seen so. Sight being mutual
        # (the field's is: sight.sees), that is kept as whose sight at the start each one has now:
        # ``place[f, i]`` is i itself, or whose place it took by reaching them (or one that had), and
        # i sees j where the two share a place or the start's sight joins their places. Else, each
        # fight's own table of who sees whom (rows and columns copied on arrival).
        self.mutual_sight = bool(np.array_equal(field.sees, field.sees.T))
        self.start_sees = field.sees
        if self.mutual_sight:
            self.place = tile(np.arange(k, dtype=np.int16))
        else:
            self.sees = tile(field.sees)
        self.state = (*self.STATE, "place" if self.mutual_sight else "sees")
        self.half = self.hp_max // 2  # at this HP or less a combatant is at half HP (-2 to hit)
        self.some_dr = bool(self.dr.any())
        self.some_minion = bool(self.minion.any())
        # Prone and parrying are only ever cleared under the tactic (it trips and parries nobody): with
        # none at the start, and nobody exhausted, a blow's edge comes from its round alone (an
        # ambush's first round, a round someone overextended in).
        self.lying = bool(self.prone.any())
        self.edges = self.lying or bool(self.parrying.any()) or bool(self.exhausted.any())
        self.edge_rounds = {int(r) for r in self.overextended if r >= 0}
        if self.ambush_side >= 0:
            self.edge_rounds.add(combat.first_round)

    STATE = (
        "rows",
        "hp",
        "standing",
        "up",
        "dead",
        "gap",
        "dist",
        "armed",
        "parrying",
        "prone",
        "holder",
        "live",
    )

    def store(self) -> None:
        """The fights' state as it stands into the outcome (their health, who is down or dead)."""
        self.out.health[self.rows, :, 0] = self.hp
        self.out.down[self.rows] = ~self.standing
        self.out.dead[self.rows] = self.dead

    def compact(self, now: bool = False) -> None:
        """Keep only the fights still on (the others' end state stored first), once half are over
        (copying every array costs a round's turns), or ``now``."""
        keep = np.nonzero(self.live)[0]
        if now or 2 * keep.size <= self.live.size:
            self.store()
            for name in self.state:
                setattr(self, name, getattr(self, name)[keep])
            self.timers.keep(keep)

    def absorb(self, other: _Fights) -> None:
        """Take on the fights still on of ``other`` (of the same table, at the same round) as its own."""
        for name in self.state:
            setattr(self, name, np.concatenate([getattr(self, name), getattr(other, name)]))
        timers, theirs = self.timers, other.timers
        if timers.any:
            timers.left, timers.skip, timers.on = (
                np.concatenate([getattr(timers, a), getattr(theirs, a)]) for a in ("left", "skip", "on")
            )

    def settle(self, fights: Any, r: int) -> None:
        """Of ``fights`` (where someone just fell), those where a side is out: the winner, the rounds."""
        up = self.up[fights]
        over = self.live[fights] & ((up[:, PARTY] == 0) | (up[:, OPPONENTS] == 0))
        if over.any():
            ended = fights[over]
            self.live[ended] = False
            self.out.winner[self.rows[ended]] = np.where(up[over, PARTY] > 0, PARTY, OPPONENTS)
            self.out.rounds[self.rows[ended]] = r - self.first + 1

    # -- a turn ------------------------------------------------------------------------------------

    def attack(self, i: int, fights: Any, t: Any, kind: Any, r: int) -> None:
        """``i`` strikes ``t`` with its weapon of ``kind``, one blow in each of ``fights``."""
        if fights.size == 0:
            return
        # PLAIN where nobody is prone, parrying or exhausted and no ambush or overextension is this round's.
        edge = self._edge(i, fights, t, r) if self.edges or r in self.edge_rounds else PLAIN
        bloodied = (self.hp[:, i][fights] <= self.half[i]).view(np.int8)
        u = self.rng.random(fights.size)
        hit = u < self.p_hit[i, t, kind, edge, bloodied]
        crit = u < self.p_crit[i, t, kind, edge, bloodied]
        hits = np.count_nonzero(hit)
        if not hits:
            return
        if hits < hit.size:
            fights, t, crit = fights[hit], t[hit], crit[hit]
            if not isinstance(kind, int):
                kind = kind[hit]
        (bf, bc), (rf, rc) = self.dice[i]
        v = self.rng.random(fights.size)
        if isinstance(kind, int):  # one weapon's dice drawn from, not both
            rolled = bf[bc.searchsorted(v)] if kind == MELEE else rf[rc.searchsorted(v)]
        else:
            rolled = np.where(kind == MELEE, bf[bc.searchsorted(v)], rf[rc.searchsorted(v)])
        dealt = rolled << crit  # a natural 20 doubles the die
        if self.some_dr:
            dealt -= self.dr[t]
            np.maximum(dealt, 0, out=dealt)
        left = self.hp[fights, t] - dealt
        np.maximum(left, 0, out=left)
        if self.some_minion:
            left[self.minion[t]] = 0  # a minion dies on any hit
        self.hp[fights, t] = left
        fell = (left == 0).nonzero()[0]
        if fell.size:
            ff, ft = fights[fell], t[fell]
            self.standing[ff, ft] = False
            self.gap[ff, self.allies_of[i], ft] = self.endless  # none of its foes (i's side) closes on it again
            self.dead[ff, ft] = True  # 0 HP is dead (no subdual under the default tactic)
            if self.grappled:
                held = self.holder[ff] == ft[:, None]  # a grappler that goes down lets go (play.release_all)
                self.holder[ff] = np.where(held, -1, self.holder[ff])
            # One fewer up on i's foes' side; where none is left, i's side has won.
            foes = OPPONENTS if self.party[i] else PARTY
            up = self.up[ff, foes] - 1
            self.up[ff, foes] = up
            over = up == 0
            if np.count_nonzero(over):
                ended = ff[over]
                self.live[ended] = False
                self.out.winner[self.rows[ended]] = self.side[i]
                self.out.rounds[self.rows[ended]] = r - self.first + 1

    def _edge(self, i: int, fights: Any, t: Any, r: int) -> Any:
        """The d20s ``i`` rolls at ``t`` in each of ``fights``: PLAIN, ADVANTAGE or DISADVANTAGE."""
        # A tripped foe that parries / dodges gives no advantage for lying prone (RULES §13).
        prone = self.prone[fights, t] & ~(self.parrying[fights, t] & (self.trip_round[t] >= 0))
        up = prone.astype(np.int64) + (self.overextended[t] == r)
        down = self.parrying[fights, t].astype(np.int64) + self.exhausted[i, self.timers.variant(fights, i)]
        if self.ambush_side >= 0 and r == self.combat.first_round:
            if self.side[i] == self.ambush_side:
                up = up + 1
            elif not self.full_surprise:
                down = down + 1
        if self.cancels:
            edge = np.where(up > 0, np.where(down > 0, PLAIN, ADVANTAGE), np.where(down > 0, DISADVANTAGE, PLAIN))
        else:
            edge = np.where(up > down, ADVANTAGE, np.where(down > up, DISADVANTAGE, PLAIN))
        return edge

    def move(self, i: int, fights: Any, t: Any, before: Any, row: Any) -> Any:
        """``i`` closes on ``t`` by up to its Move in each of ``fights`` (the seam's close_in) until
        ``t`` is in its reach (a reach weapon stops 10 ft away), and everyone's distance to it shifts
        as far along towards ``t`` as it came. ``before``: its gap to ``t``, ``row``: its gaps to its
        foes (a copy, the turn's own, worked on here); its gap to ``t`` after the move is returned."""
        extra = self.reach_extra[i]
        need = before - extra  # more than nothing: a mover's target is past its reach
        moved = np.minimum(need, float(self.field.move_ft[i]))
        arrived = moved >= need
        # It ends a cell short of the target's own place, on the side it came from; a bigger token
        # reaches half a cell nearer to everyone for each cell it is wider, on average (distances
        # are between the nearest cells).
        f = (moved / (before + GRID_FT))[:, None]
        # Whole rows taken from the fights' rows of the table (numpy's take: twice as fast as [fights, t, :]).
        rows = fights * self.k
        table = self.dist.reshape(-1, self.k)
        old = table.take(rows + i, axis=0)
        there = table.take(rows + t, axis=0)  # a copy: worked on in place
        if not self.one_size:
            wider = self.size[i] - self.size[t]
            if np.count_nonzero(wider):
                there = there - GRID_FT / 2 * wider[:, None]  # half cells: in floats, whatever the tables'
        np.maximum(there, int(GRID_FT), out=there)
        mixed = (1 - f) * old  # (1 - f) * old + f * there, to the nearest cell (in float64, whatever the tables')
        mixed += f * there
        mixed /= GRID_FT
        np.rint(mixed, out=mixed)
        mixed *= GRID_FT
        n = np.arange(fights.size)
        mixed[:, i] = 0.0
        mixed[n, t] = np.where(arrived, MELEE_FT + extra, np.maximum(old[n, t] - moved, MELEE_FT + extra + GRID_FT))
        mixed = mixed.astype(self.dist.dtype, copy=False)  # whole cells: exact in the tables' type
        foes = self.foes_of[i]  # only the gaps to foes are read: only those shift
        shift = mixed[:, foes] - old[:, foes]
        tf = t - foes.start
        shift[n, tf] = -moved  # the gap to its target closes by what it moved, both ways
        row += shift
        np.maximum(row, 0, out=row)
        self.gap[fights, i, foes] = row
        column = self.gap[fights, foes, i]
        column += shift
        np.maximum(column, 0, out=column)
        self.gap[fights, foes, i] = column
        self.dist[fights, i, :] = mixed
        self.dist[fights, :, i] = mixed
        if not self.all_seen and np.count_nonzero(arrived):
            fa, ta = fights[arrived], t[arrived]
            if self.mutual_sight:
                self.place[fa, i] = self.place[fa, ta]  # it stands where ta stood: it sees what ta sees
            else:
                seen = self.sees[fa, :, ta]
                seen[:, i] = False
                seen[np.arange(fa.size), ta] = True
                self.sees[fa, :, i] = seen
                self.sees[fa, i, :] = seen
        return row[n, tf]

    def sight(self, fights: Any, i: int, target: Any) -> Any:
        """Whether ``i`` sees ``target`` now in each of ``fights`` (its token's place, see __init__)."""
        if not self.mutual_sight:
            return self.sees[fights, i, target]
        mine, theirs = self.place[:, i][fights], self.place[fights, target]
        seen: Any = (mine == theirs) | self.start_sees[mine, theirs]
        return seen

    def turn(self, i: int, fights: Any, r: int) -> None:
        """``i``'s turn in each of ``fights``: the default tactic (tactic.take_turn), and at its end its
        timed conditions counted."""
        stood = None
        if self.edges:
            self.parrying[fights, i] = False  # its next action has come
            if self.lying:
                # Standing up is its move, unless its trip's lost attack pays for it (RULES §13).
                stood = self.prone[fights, i] & (self.trip_round[i] != r)
                self.prone[fights, i] = False
        timers = self.timers
        if not timers.any:
            if self.able[i, 0]:
                self._act(i, fights, r, stood, bool(self.stuck[i, 0]))
            return
        timers.turn_starts(fights, i, ~self.standing)
        v = timers.variant(fights, i)
        able = self.able[i, v]
        self._act(i, fights[able], r, None if stood is None else stood[able], self.stuck[i, v][able])
        timers.turn_ends(fights, i, self.rng)

    def _act(self, i: int, fights: Any, r: int, stood: Any, stuck: Any) -> None:
        """What ``i`` does in its turn in ``fights``: pick up its weapon, shoot, close in, strike
        (``stood``: where standing up took its move; None: it lay nowhere)."""
        if fights.size == 0 or not (self.has_blade[i] or self.has_bow[i]):
            return
        block = self.foes_of[i]
        if block.start == block.stop:  # no foe on the map: nobody to strike or close on
            return
        # In a fight still on, both sides have someone standing: i has a foe up in each of ``fights``.
        armed = None  # armed in every one of them: nothing to leave out
        if not self.all_armed:
            armed = self.armed[:, i][fights]
            if np.count_nonzero(armed) < armed.size:
                self.armed[fights[~armed], i] = True  # a Use / ready an item picks its weapon up (the action)
            else:
                armed = None
        g = self.gap[fights, i, block]  # a fallen foe's gap is endless (attack)
        target = block.start + g.argmin(axis=1)  # the nearest standing foe (ties: the roster's first)
        if self.field.prefer is not None:
            target = pin(self.field, i, target, self.standing[fights] & self.foe[i])
        gap = g[np.arange(fights.size), target - block.start]
        reach = self.reach_extra[i]
        strike = gap <= reach  # in reach (an endless gap never is)
        rest = gap > reach
        rest &= gap < self.far  # a foe it cannot reach is left alone
        if armed is not None:
            strike &= armed
            rest &= armed
        # Each blow's weapon: its melee one, unless it shoots (or has no melee weapon).
        kind: Any = MELEE if self.has_blade[i] else RANGED
        if self.has_bow[i] and np.count_nonzero(rest):
            feet = self.dist[fights, i, target]
            shoot = rest & (feet >= SHOOT_FROM_FT) & (feet <= self.ranges[i])
            if not self.all_seen:
                shoot &= self.sight(fights, i, target)
            if np.count_nonzero(shoot):
                kind = np.where(shoot, RANGED, kind)
                rest &= ~shoot
                strike |= shoot
        if np.count_nonzero(rest):
            moving = rest if stuck is False else rest & ~np.asarray(stuck)
            if stood is not None:
                moving &= ~stood
            if self.grappled:
                moving &= self.holder[fights, i] < 0
            went = moving.nonzero()[0]
            if went.size:
                mf, mt = fights[went], target[went]
                now = self.move(i, mf, mt, gap[went], g[went])
                if self.has_blade[i]:  # only a mover can have come into reach: it strikes with its blade
                    went = went[now <= reach]
                    strike[went] = True
                    if not isinstance(kind, int):
                        kind[went] = MELEE
        if self.lost_round[i] != r:
            go = strike.nonzero()[0]
            if go.size:
                self.attack(i, fights[go], target[go], kind if isinstance(kind, int) else kind[go], r)

    def finish(self, i: int, r: int, action_left: bool) -> None:
        """A turn the table began (tactic._finish_turn): the attack on the nearest standing foe in
        reach, if its action is unused; then the turn's end counts its timed conditions."""
        able = self.able[i, self.timers.variant(slice(None), i)]
        if action_left and self.has_blade[i] and self.lost_round[i] != r:
            self._finish(i, r, able)
        self.timers.turn_ends(np.nonzero(self.live & self.standing[:, i])[0], i, self.rng)

    def _finish(self, i: int, r: int, able: Any) -> None:
        block = self.foes_of[i]
        reach = self.standing[:, block] & (self.gap[:, i, block] <= self.reach_extra[i])
        go = reach.any(axis=1) & self.armed[:, i] & able
        fights = np.nonzero(go)[0]
        self.attack(i, fights, block.start + reach[fights].argmax(axis=1), np.full(fights.size, MELEE), r)


def _feet_type(*tables: Any) -> Any:
    """The type of the gap and distance tables. int16 when every foot in them (and every Move and
    reach) is a whole foot up to 2,048 ft: all a fight stores from those (their sums, differences and
    whole cells) is then a whole foot under 8,192 (FAR_FT), in half float32's memory (a batch's tables
    stay in the cache: a move writes a column of two of them). Else float32 when every foot is a whole
    eighth under 2**18 (exact in float32 too), else float64: the odds the same in each."""
    finite = [np.asarray(table, dtype=np.float64) for table in tables]
    finite = [f[np.isfinite(f)] for f in finite]
    if all(f.size == 0 or (np.abs(f).max() <= 2048 and (f == np.rint(f)).all()) for f in finite):
        return np.int16
    for f in finite:
        if f.size and (np.abs(f).max() >= 2.0**18 or (f * 8 != np.rint(f * 8)).any()):
            return np.float64
    return np.float32


def _round_order(rng: Any, n: int, party_group: int, g: int, party_first: bool) -> Any:
    """[n, g]: the groups in the order they act, by a d10 each (ties: the Party first, GM groups in
    a random order, as their re-rolls make it)."""
    faces = rng.integers(1, 11, size=(n, g)).astype(np.float64)
    tie = rng.random((n, g)) * 0.4
    if party_first and party_group >= 0:
        tie[:, party_group] = 0.5
    return np.argsort(-(faces + tie), axis=1)


def _blocks(order: Any) -> list[tuple[int, Any]]:
    """The round's turns as few passes as each fight's order allows: (group, the fights it acts in
    next) in turn, each time the group next in the most fights (two groups: the first group where it
    is first, the second in every fight, the first where it is second: three passes, not four)."""
    n, g = order.shape
    slot = np.zeros(n, dtype=np.intp)  # each fight's next place in its order
    rows = np.arange(n)
    out = []
    while True:
        left = slot < g
        if not np.count_nonzero(left):
            return out
        following = np.where(left, order[rows, np.minimum(slot, g - 1)], -1)
        group = int(np.bincount(following[left], minlength=g).argmax())
        at = following == group
        out.append((group, at))
        slot[at] += 1


def _matters(condition: str) -> bool:
    """Whether the simulator reads ``condition``: it takes a turn, holds in place, or is exhaustion."""
    key = condition_key(condition).casefold()
    return any(key == word or key.startswith(word + " ") for word in (*INCAPACITATING, *HOLDING, "exhausted"))


def save_chance(c: D10Combatant, duration: ConditionDuration) -> float:
    """The chance a save at the end of ``c``'s turn ends a condition, as the ruleset rolls it (RULES §10,
    §13): d20 + the named skill (none when it names none) ≥ the duration's DC."""
    try:
        bonus = c.skill(duration.save) if duration.save else 0
    except RulesError:
        return 0.0  # not one of its skills: the engine cannot roll it, the GM removes it by hand
    dc = duration.dc or 0
    return sum(face + bonus >= dc for face in range(1, 21)) / 20


class D10Fights(FightsBase):
    """The fight simulator (this module, thousands at once) and its reference through the engine (tactic.py)."""

    tactic = (
        "Everyone declares Attack each round; the groups act in their d10 order. Each picks the nearest "
        "standing foe (fewest feet to stand in reach of it): in reach, it strikes with its best melee weapon; "
        "else, with a ranged weapon and that foe in sight, in range and 10 ft or more away, it shoots from "
        "where it stands; else it closes on it and strikes if it gets there. No parries, grapples, called "
        "shots or subdual; a natural 1 has no mishap, a natural 20 doubles the damage die."
    )
    health_columns = HEALTH
    tells_death = True  # 0 HP is dead; subdual's unconscious is down, not dead

    @staticmethod
    def fight_bytes(k: int) -> int:
        """A fight's bytes at ``k`` combatants beyond its wave's (WAVE_BYTES, their tables, bounded apart):
        its row of the outcome, health, down and dead for each and the winner and rounds. The fights
        of a run are handed over at once and played in waves (10,000 fights of 40: 28 MB at the peak)."""
        return 10 * k + 16

    def simulate(self, encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome:
        """The rest of the fight ``fights`` times over from ``encounter``'s state (see the module)."""
        field, placed = sides_together(field)  # worked on with each side together, handed back in the roster's order
        out = empty_outcome(fights, field.size, HEALTH)
        # The fights are played in waves whose tables stay in the cache; a wave whose fights are mostly
        # over leaves the rest to the next wave, which takes them on at that round: a round of a few
        # fights costs what a round of many does (a call per turn), so the stragglers are played once.
        wave = max(1, WAVE_BYTES // (4 * field.size * field.size))
        later: dict[int, _Fights] = {}  # the waves' stragglers, by the round they are at
        for start in range(0, fights, wave):
            s = _Fights(encounter, field, min(wave, fights - start), rng, out, start)
            r = self._table_round(s, encounter, field, placed)
            self._rounds(s, r, encounter, later, wave if start + wave < fights else 0)
        return out.columns(placed)

    @staticmethod
    def _table_round(s: _Fights, encounter: Encounter, field: Battlefield, placed: Any) -> int:
        """The fights' first round when the table's is under way (in its order: a turn under way first,
        then who has not acted yet); the round they go on from."""
        r = s.first
        s.settle(np.arange(s.live.size), r)
        if not s.fighting:
            return r
        combat = s.combat
        done = set(combat.acted)
        if combat.turn is not None:
            if combat.turn.combatant in s.index:
                s.finish(s.index[combat.turn.combatant], r, combat.turn.action is None)
            done.add(combat.turn.combatant)
        sequence = [s.index[cid] for slot in combat.order for cid in slot.members if cid in s.index]
        sequence += [int(i) for i in placed if i not in sequence]  # the rest in the roster's order
        for i in sequence:
            if field.ids[i] in done or s.people[i].surprised:
                continue
            go = np.nonzero(s.live & s.standing[:, i])[0]
            if go.size:
                s.turn(i, go, r)
        return r + 1

    @staticmethod
    def _rounds(s: _Fights, r: int, encounter: Encounter, later: dict[int, _Fights], wave: int) -> None:
        """The rounds of ``s``'s fights from round ``r``, each round's d10s rolled, taking on the stragglers
        of earlier waves at their round. Once fewer than a fifth of a ``wave`` are on, the rest are left
        in ``later`` for the next wave (``wave`` 0: the last wave, which plays every fight to its end)."""
        options = encounter.options
        named = groups(encounter)  # the groups that roll initiative each round (rounds.groups), by index
        members_of = [[s.index[m.id] for m in members if m.id in s.index] for _, members in named]
        party_group = next((g for g, (name, _) in enumerate(named) if name == Side.PARTY.value), -1)
        party_first = bool(getattr(options, "party_first_on_ties", True))
        while True:
            if r in later:
                s.absorb(later.pop(r))
            if r - s.first >= MAX_ROUNDS or not s.live.any():
                s.out.rounds[s.rows[s.live]] = r - s.first  # not over: the rounds played (the winner stays NEITHER)
                s.store()
                if wave or not later:
                    return
                r = min(later)  # the last wave is over before the stragglers' round: they go on alone
                s = later.pop(r)
                continue
            if wave and STRAGGLERS * np.count_nonzero(s.live) < wave:
                s.compact(now=True)
                later[r] = s
                return
            s.compact()
            order = _round_order(s.rng, s.live.size, party_group, len(named), party_first)
            for g, at in _blocks(order):
                for i in members_of[g]:
                    turn_boundary()  # the GM acting: wait (a worker of the window's)
                    go = (at & s.live & s.standing[:, i]).nonzero()[0]
                    if go.size:
                        s.turn(i, go, r)
            r += 1

    def play(self, engine: Table, field: Battlefield, max_rounds: int) -> None:
        play_fight(engine, field, max_rounds)
