"""The fight simulator's reference for the L&L family: the default tactic (:mod:`.sim`) played one
fight at a time through the real engine, with the engine's own dice, action by action."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Phase, Side
from lnl_desktop.core.map.sight import sees
from lnl_desktop.core.rules.common import failed
from lnl_desktop.core.rules.fight import Battlefield, approach_path, close_in, nearest_foes
from lnl_desktop.core.rules.lnl.model import Attack, AttackMode

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table
    from lnl_desktop.core.rules.lnl.blows import FamilyRuleset


def play_fight(ruleset: FamilyRuleset, engine: Table, field: Battlefield, max_rounds: int) -> None:
    """The rest of one fight through ``engine``: start it as the Start combat dialog's default does,
    then each round whoever may act takes its turn in the engine's order, until one side is down
    or ``max_rounds`` rounds have been played."""
    e = engine.encounter
    if e.combat.phase is not Phase.FIGHTING:
        engine.apply(act.StartCombat(situation=ruleset.rounds.start_procedure().situations[0].key))
    last = max(e.combat.round, 1) + max_rounds - 1
    # The gaps the fast simulator moves by, kept the same way here: both pick the same targets.
    plan = field.gap_ft[None].copy()
    while not _over(engine):
        turn = e.combat.turn
        if turn is not None:
            if turn.action is None:
                _take_turn(ruleset, engine, engine.combatant(turn.combatant), field, plan)
            engine.apply(act.EndTurn())
            continue
        waiting = engine.waiting()
        if waiting:
            c = waiting[0]
            engine.apply(act.BeginTurn(c.id))
            if not c.down:
                _take_turn(ruleset, engine, c, field, plan)
            engine.apply(act.EndTurn())
            continue
        if e.combat.round >= last:
            return
        engine.apply(act.NextRound())


def _over(engine: Table) -> bool:
    e = engine.encounter
    party = [c for c in e.combatants if c.id in e.tokens and c.side is Side.PARTY]
    opponents = [c for c in e.combatants if c.id in e.tokens and c.side is Side.OPPONENTS]
    return all(c.down for c in party) or all(c.down for c in opponents)


def _take_turn(ruleset: FamilyRuleset, engine: Table, c: Any, field: Battlefield, plan: Any) -> None:
    import numpy as np

    from lnl_desktop.core.rules.lnl.blows import blows  # numpy's distributions: not on the app's start path

    if c.incapacitated_by is not None or c.id not in field.ids:
        return
    by_id = engine.encounter.by_id()
    standing = np.array([[not ruleset.fights.out(by_id[cid]) for cid in field.ids]])
    i = field.index(c.id)
    j = int(nearest_foes(plan, standing, field.foes(), field.prefer)[0, i])
    if j < 0:
        return
    target = engine.combatant(field.ids[j])
    # A what-if's pinned attack in a mode of the rules' own (a sneak attack) on its chosen foe: the GM's word.
    pinned = field.prefer is not None and field.modes is not None and int(field.prefer[i]) == j and field.modes[i]
    mode = AttackMode(field.modes[i]) if pinned and field.modes is not None else AttackMode.ATTACK
    options = blows(ruleset.attacks.rules, c, target, engine.encounter.options, mode)
    if not options:
        return

    def usable(b: Any) -> bool:
        checks = ruleset.attacks.checks(engine.encounter, c, target, c.weapons[b.weapon], AttackMode.ATTACK)
        return not failed(checks)

    def strike(b: Any) -> None:
        name = c.weapons[b.weapon].name
        engine.apply(Attack(attacker=c.id, target=target.id, weapon=name, mode=mode, override=bool(pinned)))

    best = options[0]
    if best.ranged and _in_sight(engine, c, target) and usable(best):
        strike(best)
        return
    melee = [b for b in options if not b.ranged]
    if not melee:
        return
    reaching = next((b for b in melee if usable(b)), None)
    if reaching is None:
        path = approach_path(engine, c.id, target.id) if engine.feet_left(c.id) else None
        if path is not None:
            before = engine.feet_left(c.id) or 0.0
            engine.apply(act.Move(combatant=c.id, path=tuple(path)))
            moved = before - (engine.feet_left(c.id) or 0.0)
            close_in(plan, np.array([i]), np.array([j]), np.array([moved]), np.array([True]))
        reaching = next((b for b in melee if usable(b)), None)
        if reaching is not None:
            plan[0, i, j] = plan[0, j, i] = 0.0
    if reaching is not None:
        strike(reaching)


def _in_sight(engine: Table, c: Any, target: Any) -> bool:
    e = engine.encounter
    return sees(e.map, e.tokens[c.id].cell, c.size, e.tokens[target.id].cell, target.size)
