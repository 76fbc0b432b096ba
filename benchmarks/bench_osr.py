"""Old-School d20 benchmarks: a to-hit + damage resolution through the engine (budget
50 µs) and the exact hit-and-damage forecast (budget 20 ms), medians of many runs.

Run with ``python3 dev.py bench`` (or ``python benchmarks/bench_osr.py``); never part of the test suite.
"""

from __future__ import annotations

from timing import median_seconds, report

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.osr import OsrAttack, rules
from lnl_desktop.core.rules.osr.odds import dice_sum, forecast_strike
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource


def play_start() -> object:
    from lnl_desktop.core.encounter.actions import StartCombat

    return StartCombat(situation="nobody surprised")


def main() -> None:
    ruleset = get_ruleset("osr")
    demo = storage.load(resource(f"encounters/{ruleset.demo()}"))
    engine = Engine(demo)
    tombril, chief = engine.combatant("tombril"), engine.combatant("hobgoblin-chief")
    sword = tombril.weapon("Longsword")

    def resolve() -> None:
        # The same hit each time on a copy of the chief: d20 15, 1d8 5 + STR 2.
        target = chief.model_copy()
        hit = rules.to_hit(engine.encounter, tombril, target, sword, "melee")
        dice = ScriptedDice([15, 5])
        face = dice.roll(20, "to hit")
        if hit.hits(face):
            damage = rules.roll_damage(dice, tombril, [sword], hit, 1)
            target.hp = max(0, target.hp - damage.amount)

    report("to-hit + damage resolved (d20, 1d8 + STR, every term named)", median_seconds(resolve, 200, 50), 50e-6, "us")

    # The whole action through the engine: checks, the roll, the log line, the undo record.
    engine.apply(play_start(), ScriptedDice([20, 1]))
    engine.begin_turn("tombril")
    attack = OsrAttack("tombril", "hobgoblin-chief", "Longsword")

    def through_engine() -> None:
        engine.apply(attack, ScriptedDice([15, 5]))
        engine.undo()

    took = median_seconds(through_engine, 100, 10) * 1e3
    print(f"the same attack through the engine, applied and undone: median {took:.2f} ms (for reference, no budget)")

    # The drag overlay's counter-attack marks: a 40-cell path past 200 enemies (budget: the drag overlay's 5 ms).
    crowd = ruleset.new_encounter(
        name="crowd",
        map={"width": 60, "height": 60},
        combatants=[{"name": "Mover", "side": "Party", "kind": "PC", "hp_max": 9}]
        + [{"name": f"Goblin {i}", "side": "Opponents", "hp_max": 4, "morale": 7} for i in range(200)],
        tokens={"mover": {"cell": (0, 30)}}
        | {f"goblin-{i}": {"cell": (i % 40, 29 + 2 * (i // 40))} for i in range(200)},
    )
    crowd_engine = Engine(crowd)
    crowd_engine.apply(play_start(), ScriptedDice([20, 1]))
    path = [(x, 30) for x in range(40)]

    def marks() -> None:
        ruleset.movement.provocations(crowd_engine, "mover", path)

    report("counter-attack marks, 40-cell drag path past 200 enemies", median_seconds(marks, 20), 5e-3, "ms")

    def forecast() -> None:
        dice_sum.cache_clear()  # cold: the dice convolution computed afresh each time
        forecast_strike(engine.encounter, tombril, chief, sword, "melee", second="")

    report("hit-and-damage forecast, cold (1d8 + 2 vs AC 14)", median_seconds(forecast, 50), 20e-3, "ms")

    big = type(chief).model_validate(
        chief.model_dump() | {"weapons": [{"name": "Boulder", "damage": "10d12", "kind": "melee"}]}
    )

    def forecast_big() -> None:
        dice_sum.cache_clear()
        forecast_strike(engine.encounter, big, tombril, big.weapon("Boulder"), "melee")

    report("hit-and-damage forecast, cold (10d12)", median_seconds(forecast_big, 20), 20e-3, "ms")


if __name__ == "__main__":
    main()
