"""Damage-forecast benchmark: the exact distribution of a 20-die exploding attack, against its 20 ms budget.

Run with ``python benchmarks/bench_forecast.py``. Never part of the test suite: a slow machine
must not fail a test run. "Cold" clears the dice-sum cache before every run (the first forecast
of a dice count the panel meets); "warm" is the forecast panel's usual case (the plan's numbers
changed, the dice did not).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial

from lnl_desktop.core.dice import odds as fc_module
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.lnl import forecast_attack
from lnl_desktop.core.rules.lnl.model import AttackMode, Combatant, RulesOptions, Weapon

BUDGET_MS = 20.0


def median_ms(fn: Callable[[], object], repeat: int, *, cold: bool) -> float:
    samples = []
    for _ in range(repeat):
        if cold:
            fc_module._dice_total.cache_clear()
            fc_module._exploding_die.cache_clear()
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


def report(what: str, ms: float) -> None:
    verdict = "within budget" if ms <= BUDGET_MS else "OVER BUDGET"
    print(f"{what}: median {ms:.2f} ms (budget {BUDGET_MS:g} ms) {verdict}")


def combatants(level: int, die: str) -> tuple[Combatant, Combatant, Weapon]:
    weapon = Weapon(name="Greatsword", die=die, magic_bonus=2)
    attacker = Combatant(
        name="Champion", side=Side.PARTY, level=level, str_bonus=10, stamina_max=200, injury_max=40, weapons=[weapon]
    )
    target = Combatant(
        name="Dragon", side=Side.OPPONENTS, level=30, dex_bonus=4, armor=6, stamina_max=250, injury_max=80
    )
    return attacker, target, weapon


def main() -> None:
    options = RulesOptions()
    # Level 19-20: N = 10 base dice, a Power Attack rolls 2N = 20.
    for die in ("d10", "d6", "d4"):
        attacker, target, weapon = combatants(19, die)
        run = partial(forecast_attack, attacker, target, weapon, AttackMode.POWER, options)
        result = run()
        assert result.dice == 20
        report(f"forecast 20{die} exploding", median_ms(run, 51, cold=True))
        report("  same, dice sum cached (warm)", median_ms(run, 201, cold=False))
        print(f"  ({len(result.damage)} damage values, mean {result.mean:.2f}, {result.summary})")
    # The largest the rules allow: level 40, N = 20, a Power Attack rolls 40 dice.
    attacker, target, weapon = combatants(40, "d10")
    run = partial(forecast_attack, attacker, target, weapon, AttackMode.POWER, options)
    report("forecast 40d10 exploding (level 40 Power Attack)", median_ms(run, 51, cold=True))


if __name__ == "__main__":
    main()
