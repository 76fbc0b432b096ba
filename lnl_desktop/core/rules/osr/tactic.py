"""Old-School d20's default tactic (core.rules.fight) played through the engine: the reference the
fast simulator (``sim.py``) must agree with, and the choice of weapon both share.

Each round, in the engine's initiative order, a combatant still in the fight takes its nearest
standing foe (by the map's plan of gaps) of those it can harm (RULES §12; any, when it harms none):
in melee reach, it attacks it; else, with a missile or thrown weapon that reaches and harms it (in
sight, in range, at least 10 ft away), it shoots from where it stands; else it moves towards it by
up to its Move (round the fallen, if need be, never provoking) and, if that brings it into reach,
charges. A
monster with several attacks makes the rest on its turn at its nearest standing foe in reach (or
in range, for a shooter). What the rules call for (death saves, morale checks, a counter-attack)
is answered at once with the prompt's default choice, the engine's own dice rolling it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter.actions import BeginTurn, EndTurn, Move, NextRound, SkipPending, StartCombat
from lnl_desktop.core.encounter.model import Encounter, Phase, WeaponKind
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.grid import token_distance_ft
from lnl_desktop.core.rules.common import failed
from lnl_desktop.core.rules.fight import Battlefield, approach_path, close_in, nearest_foes
from lnl_desktop.core.rules.osr.model import MoraleResult, OsrAttack, OsrCombatant, OsrOptions, OsrWeapon
from lnl_desktop.core.rules.osr.odds import weapon_damage
from lnl_desktop.core.rules.osr.rounds import NOBODY
from lnl_desktop.core.rules.osr.rules import ATTACKS, Style, attack_checks, damage_term, to_hit
from lnl_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

np = lazy_module("numpy")

SHOOT_FROM_FT = 10  # the seam's default tactic: a shooter keeps at least this far from its target
AROUND_TRIED = 8  # the reference's way round: cells tried for a path kept out of every foe's reach

# -- the choice both paths share ----------------------------------------------------------------


def sim_out(c: OsrCombatant) -> bool:
    """Out of the fight: down (defeated, unconscious or dead), fled or surrendered."""
    return bool(c.down or c.morale_result is not None)


def attack_options(c: OsrCombatant) -> list[tuple[OsrWeapon, Style]]:
    """Every way ``c`` strikes one foe: each melee-capable weapon swung ("melee"; Unarmed last),
    each missile or thrown weapon shot or thrown ("ranged")."""
    out: list[tuple[OsrWeapon, Style]] = []
    for w in c.strikers():
        if w.melee:
            out.append((w, "melee"))
        if w.kind in (WeaponKind.MISSILE, WeaponKind.THROWN):
            out.append((w, "ranged"))
    return out


def blow(encounter: Encounter, a: OsrCombatant, t: OsrCombatant, w: OsrWeapon, style: Style) -> tuple[Any, dict]:
    """The exact odds of one blow, as the forecast has them (odds.forecast_strike): the to-hit roll's
    terms (its ``chance``) and the damage on a hit (amount -> chance)."""
    options: OsrOptions = encounter.options  # type: ignore[assignment]
    hit = to_hit(encounter, a, t, w, style)
    if w.name in hit.unharmed:
        return hit, {0: 1.0}  # RULES §12: a hit does nothing (invulnerable, petrified): the tactic looks elsewhere
    crit = hit.critical_rolls if hit.critical else 0
    return hit, weapon_damage(w, damage_term(w, hit), options.minimum_damage, crit)


def expected(encounter: Encounter, a: OsrCombatant, t: OsrCombatant, w: OsrWeapon, style: Style) -> float:
    """The damage one blow does on average, misses counted: what makes a weapon the best."""
    hit, damage = blow(encounter, a, t, w, style)
    return hit.chance * sum(k * p for k, p in damage.items())


def harms(encounter: Encounter, a: OsrCombatant, t: OsrCombatant, w: OsrWeapon, style: Style) -> bool:
    """Whether a hit of ``w`` does ``t`` any harm (RULES §12: not an invulnerable or petrified foe's)."""
    return w.name not in to_hit(encounter, a, t, w, style).unharmed


def can_harm(encounter: Encounter, a: OsrCombatant, t: OsrCombatant) -> bool:
    """Whether some attack option of ``a`` harms ``t``: a foe none harms is the last the tactic picks."""
    return any(harms(encounter, a, t, w, style) for w, style in attack_options(a))


def ranked(encounter: Encounter, a: OsrCombatant, t: OsrCombatant, ranged: bool) -> list[int]:
    """``a``'s attack options (indices into :func:`attack_options`) of one kind, best first against
    ``t``: the most damage on average; ties keep the sheet's order. A shot that cannot harm ``t`` is
    left out when some option harms it (better close in with the silver dagger than shoot the wight)."""
    opts = attack_options(a)
    return ranked_blows(opts, [blow(encounter, a, t, w, style) for w, style in opts], ranged)


def ranked_blows(opts: list[tuple[OsrWeapon, Style]], blows: list[tuple[Any, dict]], ranged: bool) -> list[int]:
    """:func:`ranked` from each option's :func:`blow` against the target, already worked out (the
    simulator's tables work every blow out once)."""
    kind = [i for i, (_, style) in enumerate(opts) if (style == "ranged") == ranged]
    harmed = [w.name not in blows[i][0].unharmed for i, (w, _) in enumerate(opts)]
    if ranged and any(harmed):
        kind = [i for i in kind if harmed[i]]

    def mean(i: int) -> float:
        hit, damage = blows[i]
        return hit.chance * sum(k * p for k, p in damage.items())

    return sorted(kind, key=lambda i: -mean(i))


# -- the reference: one fight through the engine ------------------------------------------------


def play_fight(engine: Table, field: Battlefield, max_rounds: int) -> None:
    if engine.encounter.combat.phase is not Phase.FIGHTING:
        engine.apply(StartCombat(situation=NOBODY))
    start = max(engine.encounter.combat.round, 1)
    plan = field.gap_ft.copy()[None, :, :]  # the map's plan, moved on as tokens close in
    _answer(engine)
    while not _over(engine, field):
        e = engine.encounter
        turn = e.combat.turn
        if turn is not None:
            _take_turn(engine, field, plan, engine.combatant(turn.combatant))
            if e.combat.turn is not None:
                engine.apply(EndTurn())
            continue
        ready = engine.waiting()
        if not ready:
            if e.combat.round - start + 1 >= max_rounds:
                return
            engine.apply(NextRound())
            _answer(engine)
            continue
        engine.apply(BeginTurn(ready[0].id))
        _answer(engine)


def _over(engine: Table, field: Battlefield) -> bool:
    by_id = engine.encounter.by_id()
    sides = {int(s): True for s in field.side}
    for cid, side in zip(field.ids, field.side, strict=True):
        if not sim_out(by_id[cid]):
            sides[int(side)] = False
    return any(sides.values())


def _answer(engine: Table) -> None:
    """Answer what the rules call for, oldest first, with each prompt's default choice."""
    pending = engine.encounter.combat.pending
    for _ in range(100):
        if not pending:
            return
        spec = engine.ruleset.prompts.prompt(engine, pending[0])
        values = {s.key: s.default for s in spec.settings}
        try:
            engine.apply(spec.choices[0].build(values))
        except IllegalAction:
            engine.apply(SkipPending(0, "the default tactic passes"))


def _standing_foes(engine: Table, field: Battlefield, c: OsrCombatant) -> Any:
    by_id = engine.encounter.by_id()
    return np.array([not sim_out(by_id[cid]) for cid in field.ids], dtype=np.bool_)


def _target(engine: Table, field: Battlefield, plan: Any, c: OsrCombatant) -> OsrCombatant | None:
    """The nearest standing foe by the plan; one already in melee reach comes first; one it can harm
    before one it cannot (when it can harm any)."""
    i = field.index(c.id)
    standing = _standing_foes(engine, field, c)
    gap = plan.copy()
    foes = field.foes().copy()
    harmed = np.zeros(len(field.ids), dtype=np.bool_)
    for j, cid in enumerate(field.ids):
        if standing[j] and foes[i, j]:
            foe = engine.combatant(cid)
            harmed[j] = can_harm(engine.encounter, c, foe)
            if _reaches(engine, c, foe):
                gap[0, i, j] = -1.0  # really in reach, whatever the plan says
    if harmed.any():
        foes[i] &= harmed
    t = int(nearest_foes(gap, standing[None, :], foes, field.prefer)[0, i])
    return None if t < 0 else engine.combatant(field.ids[t])


def _reaches(engine: Table, c: OsrCombatant, t: OsrCombatant) -> bool:
    e = engine.encounter
    w = attack_options(c)[ranked(e, c, t, ranged=False)[0]][0]
    return not failed(attack_checks(e, c, t, w, "charge"))


def _shot(engine: Table, c: OsrCombatant, t: OsrCombatant) -> OsrWeapon | None:
    """The best missile or thrown weapon that reaches ``t`` from here, or None."""
    e = engine.encounter
    feet = e.distance_between(c, t)
    if feet is None or feet < SHOOT_FROM_FT:
        return None
    opts = attack_options(c)
    for i in ranked(e, c, t, ranged=True):
        if not failed(attack_checks(e, c, t, opts[i][0], "ranged")):
            return opts[i][0]
    return None


def _turn(engine: Table) -> Any:
    turn = engine.encounter.combat.turn
    assert turn is not None
    return turn


def _strike(engine: Table, c: OsrCombatant, t: OsrCombatant, w: OsrWeapon, style: str) -> None:
    engine.apply(OsrAttack(c.id, t.id, w.name, style))  # type: ignore[arg-type]
    _answer(engine)


def _take_turn(engine: Table, field: Battlefield, plan: Any, c: OsrCombatant) -> None:
    """The rest of ``c``'s turn by the default tactic (it may be under way already)."""
    e = engine.encounter
    turn = _turn(engine)
    if c.id not in field.ids:  # off the map (one who retreated, in the what-if): no part in the fight
        return
    if sim_out(c) or c.incapacitated_by is not None or c.morale_result is MoraleResult.FLEES:
        return
    if turn.action is None:
        t = _target(engine, field, plan, c)
        if t is None:
            return
        if not _reaches(engine, c, t):
            shot = _shot(engine, c, t)
            if shot is not None:
                _strike(engine, c, t, shot, "ranged")
            else:
                _close_in(engine, field, plan, c, t)
                if sim_out(c) or sim_out(t) or not _reaches(engine, c, t):
                    return
        turn = _turn(engine)
        if turn.action is None:
            w = attack_options(c)[ranked(e, c, t, ranged=False)[0]][0]
            _strike(engine, c, t, w, "charge" if turn.feet_used else "melee")
    # A monster's further attacks, each at its nearest standing foe it can still strike.
    while (turn := _turn(engine)).action in ATTACKS and turn.attacks < c.attacks and not sim_out(c):
        t = _target(engine, field, plan, c)
        if t is None:
            return
        if turn.action == "ranged":
            shot = _shot(engine, c, t)
            if shot is None:
                return
            _strike(engine, c, t, shot, "ranged")
        elif _reaches(engine, c, t):
            _strike(engine, c, t, attack_options(c)[ranked(e, c, t, ranged=False)[0]][0], "melee")
        else:
            return


def _close_in(engine: Table, field: Battlefield, plan: Any, c: OsrCombatant, t: OsrCombatant) -> None:
    """Move towards ``t`` by the engine's path to the reachable cell nearest it; the plan's gaps
    between the two shrink by the feet moved (to 0 when it stands in reach)."""
    path = approach_path(engine, c.id, t.id)  # one that provokes nobody (the fast path has no counter-attacks)
    if path is None:
        path = _way_round(engine, c, t)
    if path is None:
        return
    before = _turn(engine).feet_used
    engine.apply(Move(c.id, path=tuple(path)))
    moved = np.array([_turn(engine).feet_used - before])
    _answer(engine)  # a counter-attack the path provoked
    i, j = field.index(c.id), field.index(t.id)
    close_in(plan, np.array([i]), np.array([j]), moved, np.array([True]))
    if _reaches(engine, c, t):
        plan[0, i, j] = plan[0, j, i] = 0.0


def _way_round(engine: Table, c: OsrCombatant, t: OsrCombatant) -> list[tuple[int, int]] | None:
    """A path to a cell nearer ``t`` that keeps out of every foe's reach until its last step, when each
    cheapest path passes through one (RULES §12: moving while engaged provokes): round a row of the
    fallen, say, as the fast path's plan of gaps takes for granted. None when there is none."""
    e = engine.encounter
    here, there = e.tokens[c.id].cell, e.tokens[t.id].cell
    rule, fpc = e.map.diagonal, e.map.feet_per_cell
    calm: dict[tuple[int, int], bool] = {}

    def unengaged(cell: tuple[int, int]) -> bool:  # a step from here provokes nobody
        if cell not in calm:
            calm[cell] = not engine.ruleset.movement.provocations(engine, c.id, [cell, (cell[0] + 1, cell[1])])
        return calm[cell]

    def near(cell: tuple[int, int]) -> float:
        return token_distance_ft(cell, c.size, there, t.size, rule, fpc)

    stay = near(here)
    closer = sorted((near(cell), cost, cell) for cell, cost in engine.reach(c.id).costs_ft().items())
    for feet, _, end in closer[:AROUND_TRIED]:
        if feet >= stay:
            return None
        path = engine.reach(c.id, allowed=lambda cell, end=end: cell == end or unengaged(cell)).path_to(end)
        if path is not None and not engine.ruleset.movement.provocations(engine, c.id, path):
            return path
    return None
