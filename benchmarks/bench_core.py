"""Rules-core benchmarks: prints medians against the budgets of DESIGN.md and the core issue.

Run with ``python3 dev.py bench`` (or ``python benchmarks/bench_core.py``). Never part of the
test suite: a slow machine must not fail a test run.
"""

from __future__ import annotations

from timing import median_seconds, report

from lnl_desktop.core.dice.rolls import RandomDice, ScriptedDice
from lnl_desktop.core.encounter.map_model import MapGrid, Token
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import storage
from lnl_desktop.core.rules.lnl import script
from lnl_desktop.core.rules.lnl.examples import hill_giant, tombril
from lnl_desktop.core.rules.lnl.model import AttackMode, Combatant, Encounter, RulesOptions, Weapon
from lnl_desktop.core.rules.lnl.rules import LNL_RULES


def tombril_and_giant() -> tuple[Combatant, Combatant]:
    return tombril(), hill_giant()


def bench_attack() -> None:
    tombril, giant = tombril_and_giant()
    sword = tombril.weapon("Shortsword")
    options = RulesOptions()
    faces = [5, 3, 4, 3, 2]

    def resolve() -> None:
        LNL_RULES.resolve_attack(tombril, giant, sword, AttackMode.ATTACK, ScriptedDice(faces), options)

    report("one attack resolved (5d6, worked example 1)", median_seconds(resolve, 200, 50), 50e-6, "us")

    club = giant.weapon("Club")
    dice = RandomDice(1)

    def resolve_random() -> None:
        LNL_RULES.resolve_attack(giant, tombril, club, AttackMode.POWER, dice, options)

    report("one Power Attack resolved (12d6, random dice)", median_seconds(resolve_random, 200, 50), 50e-6, "us")

    encounter = Encounter(
        combatants=[tombril, giant],
        tokens={"tombril": Token(cell=(5, 5)), "hill-giant": Token(cell=(6, 5))},
    )
    engine = Engine(encounter, RandomDice(2))
    engine.start_combat(face=5)
    engine.begin_turn("tombril")

    def attack_and_undo() -> None:
        script.attack(engine, "tombril", "hill-giant", "Shortsword")
        engine.undo()

    print(
        f"engine attack + undo (checks, log, snapshot): median "
        f"{median_seconds(attack_and_undo, 100, 10) * 1e6:.1f} us (for information)"
    )


def big_encounter() -> Encounter:
    combatants = []
    tokens = {}
    for i in range(50):
        side = Side.PARTY if i % 2 else Side.OPPONENTS
        combatants.append(
            Combatant(
                id=f"c{i}",
                name=f"Combatant {i}",
                side=side,
                level=1 + i % 12,
                str_bonus=i % 5,
                dex_bonus=i % 3,
                armor=i % 4,
                stamina_max=30 + i,
                injury_max=10 + i % 7,
                weapons=[Weapon(name="Sword", die="d6"), Weapon(name="Bow", die="d8", kind="ranged")],
            )
        )
        tokens[f"c{i}"] = Token(cell=(2 * (i % 10), 2 * (i // 10)), facing=90)
    walls = frozenset((x, 30) for x in range(40))
    encounter = Encounter(
        name="Benchmark", map=MapGrid(width=60, height=40, walls=walls), combatants=combatants, tokens=tokens
    )
    engine = Engine(encounter, RandomDice(5))
    engine.start_combat(face=4)
    while len(encounter.log) < 1000:
        if engine.round_over:
            engine.next_round()
        ready = engine.waiting()
        c = ready[0]
        engine.begin_turn(c.id)
        target = next(t for t in encounter.combatants if t.side is not c.side and not t.down)
        engine.edit(target.id, conditions=[f"marked {len(encounter.log)}"])
        engine.end_turn()
    del encounter.log[1000:]
    return encounter


def bench_files() -> None:
    encounter = big_encounter()
    assert len(encounter.combatants) == 50 and len(encounter.log) == 1000

    def save_and_load() -> None:
        storage.loads(storage.dumps(encounter))

    size = len(storage.dumps(encounter).encode())
    report(
        f"save + load, 50 combatants and 1,000 log events ({size / 1024:.0f} KiB)",
        median_seconds(save_and_load, 30),
        50e-3,
        "ms",
    )


if __name__ == "__main__":
    bench_attack()
    bench_files()
