"""Duel's fight simulator: the rest of a fight many times at once (numpy), and the same tactic
played through the engine with its dice (the reference the fast one must agree with)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter, Phase, Side
from lnl_desktop.core.rules.fight import (
    MAX_ROUNDS,
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
from lnl_desktop.lazy import lazy_module
from lnl_duel.model import ROLL, DuelStats, Strike
from lnl_duel.rules import in_reach

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


np = lazy_module("numpy")

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

        def turn(i: int, moves: bool, rows_of: Any) -> None:
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
                turn(field.index(under_way), False, every)  # its turn is begun: it strikes if in reach
            for i in side_order(combat.first_side is Side.PARTY):
                if field.ids[i] not in done and field.ids[i] != under_way:
                    turn(i, True, every)
            played += 1
        while live.any() and played <= MAX_ROUNDS:
            party_first = rng.integers(1, 7, size=n) >= 4  # the round's d6: 4-6 the Party
            for first in (True, False):
                for i in side_order(first):
                    turn(i, True, party_first == first)
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
