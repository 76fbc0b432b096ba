"""Group d10 benchmarks: a to-hit with advantage + damage resolution (the core's 50 µs budget per
attack, DESIGN.md) and the exact forecast (20 ms), medians of many runs.

Run with ``python3 dev.py bench`` (or ``python benchmarks/bench_d10.py``); never part of the test suite.
"""

from __future__ import annotations

from timing import median_seconds, report

from lnl_desktop.core.dice.rolls import ScriptedDice
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.d10 import rules
from lnl_desktop.core.rules.d10.odds import forecast_strike
from lnl_desktop.core.rules.registry import get_ruleset
from lnl_desktop.paths import resource


def main() -> None:
    ruleset = get_ruleset("d10")
    encounter = storage.load(resource("encounters", ruleset.demo()))
    by_id = encounter.by_id()
    tombril, ogre = by_id["tombril"], by_id["ogre"]
    sword = tombril.weapon("Longsword")
    options = encounter.options

    def resolve() -> None:
        edge = rules.edge_of(encounter, tombril, ogre, gm_edge="advantage", gm_reason="flanking")
        hit = rules.to_hit(encounter, tombril, ogre, "melee", edge)
        dice = ScriptedDice([7, 15, 3, 6])
        _, face = rules.roll_d20s(dice, edge, "to hit")
        if hit.hits(face):
            _, rolled = rules.roll_weapon(dice, sword, options)
            rules.damage_after(rolled, face == 20, ogre.dr)

    report("to-hit with advantage + masterwork damage (2d20, 2d8)", median_seconds(resolve, 200, 50), 50e-6, "us")

    def forecast() -> None:
        forecast_strike(encounter, tombril, ogre, sword, "melee", gm_edge="cinematic advantage")

    report(
        "hit-and-damage forecast (3d20 kept, masterwork d8, criticals, DR)", median_seconds(forecast, 50), 20e-3, "ms"
    )


if __name__ == "__main__":
    main()
