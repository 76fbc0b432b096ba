"""Skirmish odds benchmark: 20 against 20 in every ruleset, on open ground and on a walled map. A script, not a test.

For each ruleset a 40-combatant skirmish: its demo's Party members, copied round to 20, against 20 creatures
of its bestiary (seeded), the two sides facing each other across a 30 x 30 map, once on open ground and once
in a pillared hall (two walls broken by doorways, 40 pillars: 170 wall segments, every foe reachable round
them). Each case runs in a child process of its own, so its peak memory is its own:

    fight_odds(encounter, 10,000), the map's plan included     <= 2 s    (median of --repeat)
    the first 500 fights, the map's plan worked out before      <= 150 ms (median of 5)
    the map's plan (who is how far from whom: the Odds dock's worker works it out once, then the 500)
    peak memory of the child (ru_maxrss)                        <= 500 MB

    python benchmarks/bench_skirmish.py [--repeat N] [lnl classic osr d10] [--open | --walled]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# Each ruleset's demo, whose Party the skirmish copies.
DEMOS = {
    "lnl": "hill-giant.lnl",
    "classic": "hill-giant-classic.lnl",
    "osr": "goblin-ambush-osr.lnl",
    "d10": "bandit-mill-d10.lnl",
}
RULESETS = tuple(DEMOS)
SIZE, PER_SIDE, PILLARS = 30, 20, 40
FULL, FIRST = 10_000, 500
BUDGET_FULL_S, BUDGET_FIRST_S, BUDGET_MB = 2.0, 0.150, 500


def skirmish(ruleset_name: str, walled: bool, seed: int = 3) -> Any:
    """The 20-against-20 encounter of ``ruleset_name``: its demo's Party copied round, its bestiary's creatures."""
    from lnl_desktop.core.encounter.map_model import MapGrid, Token
    from lnl_desktop.core.files import storage
    from lnl_desktop.core.rules.bestiary import read_bestiary
    from lnl_desktop.core.rules.registry import get_ruleset
    from lnl_desktop.paths import demo_encounter_path

    ruleset = get_ruleset(ruleset_name)
    demo = storage.load(demo_encounter_path().parent / DEMOS[ruleset_name])
    rng = random.Random(seed)
    heroes = [c for c in demo.combatants if c.side.value == "Party"]
    creatures, problems = read_bestiary(ruleset)
    if not heroes or not creatures:
        raise SystemExit(f"{ruleset_name}: no Party in its demo or no bestiary ({problems})")
    people: list[Any] = []
    for n in range(PER_SIDE):
        hero = heroes[n % len(heroes)]
        people.append(hero.model_copy(update={"id": f"p{n}", "name": f"{hero.name} {n + 1}"}, deep=True))
    for n in range(PER_SIDE):
        entry = dict(rng.choice(creatures))
        entry.update(id=f"o{n}", side="Opponents", name=f"{entry.get('name', 'Creature')} {n + 1}")
        people.append(ruleset.stat_block.model_validate(entry))
    segments = walls(rng) if walled else []
    grid = MapGrid(width=SIZE, height=SIZE, segments=tuple(segments))
    # The Party in two ranks on the west side, the Opponents in two ranks on the east: they close across the map.
    tokens: dict[str, Token] = {}
    for n in range(PER_SIDE):
        row = 5 + n % 10 * 2
        tokens[f"p{n}"] = Token(cell=(2 + n // 10 * 2, row))
        tokens[f"o{n}"] = Token(cell=(SIZE - 3 - n // 10 * 2, row))
    combat = type(demo.combat)()
    return demo.model_copy(
        update={"combatants": people, "tokens": tokens, "map": grid, "combat": combat, "log": [], "name": "Skirmish"}
    )


def walls(rng: random.Random) -> list[Any]:
    """A pillared hall: two walls across the map broken by doorways every 6 cells, and single-cell
    pillars scattered between the ranks (never on a token's cell): every foe reachable, by a path round them."""
    from lnl_desktop.core.encounter.map_model import WallSegment

    out = [WallSegment(a=(x, y), b=(x, y + 4)) for x in (10, 20) for y in range(0, SIZE, 6)]
    free = [(x, y) for x in range(6, SIZE - 6) for y in range(1, SIZE - 1) if x not in (9, 10, 19, 20)]
    for x, y in rng.sample(free, PILLARS):
        corners = [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)]
        out += [WallSegment(a=corners[n], b=corners[(n + 1) % 4]) for n in range(4)]
    return out


def child(ruleset_name: str, walled: bool, repeat: int) -> dict[str, Any]:
    """Time one case in this process: its full run (the map's plan included), its first 500, its peak memory."""
    import resource
    import statistics
    import time

    from lnl_desktop.core.sim.run import fight_odds
    from lnl_desktop.lazy import load_now

    load_now("numpy")
    encounter = skirmish(ruleset_name, walled)
    from lnl_desktop.core.engine.engine import Engine
    from lnl_desktop.core.sim.field import battlefield

    fight_odds(encounter, 50, seed=1)  # warm: the ruleset's tables, the first import of its simulator
    plans = []
    for _ in range(3):
        t0 = time.perf_counter()
        field = battlefield(Engine(encounter))
        plans.append(time.perf_counter() - t0)
    full, full_cpu = [], []
    for r in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        odds = fight_odds(encounter, FULL, seed=2 + r)
        full.append(time.perf_counter() - t0)
        full_cpu.append(time.process_time() - c0)
    first, first_cpu = [], []
    for r in range(5):
        t0, c0 = time.perf_counter(), time.process_time()
        fight_odds(encounter, FIRST, seed=20 + r, field=field)
        first.append(time.perf_counter() - t0)
        first_cpu.append(time.process_time() - c0)
    return {
        "full": statistics.median(full),
        "first": statistics.median(first),
        "full_cpu": statistics.median(full_cpu),
        "first_cpu": statistics.median(first_cpu),
        "plan": statistics.median(plans),
        "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "party_wins": odds.party_wins,
        "rounds": sum(k * p for k, p in odds.rounds.items()),
    }


def verdict(value: float, budget: float) -> str:
    return "ok" if value <= budget else "OVER BUDGET"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rulesets", nargs="*", default=list(RULESETS))
    parser.add_argument("--repeat", type=int, default=3, help="full runs of 10,000 fights per case (their median)")
    ground = parser.add_mutually_exclusive_group()
    ground.add_argument("--open", action="store_true", help="open ground only")
    ground.add_argument("--walled", action="store_true", help="the walled map only")
    parser.add_argument("--child", nargs=2, metavar=("RULESET", "GROUND"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1] == "walled", args.repeat)))
        return 0
    grounds = ["open"] if args.open else ["walled"] if args.walled else ["open", "walled"]
    over = 0
    for name in args.rulesets:
        for ground in grounds:
            done = subprocess.run(
                [sys.executable, __file__, "--child", name, ground, "--repeat", str(args.repeat)],
                capture_output=True,
                text=True,
                env=dict(os.environ),
            )
            what = f"{name} 20v20 {ground}"
            if done.returncode != 0:
                print(f"{what}: failed\n{done.stderr[-2000:]}")
                over += 1
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(
                f"{what}, 10,000 fights: median {r['full']:.3f} s (budget {BUDGET_FULL_S:g} s) "
                f"{verdict(r['full'], BUDGET_FULL_S)}  (CPU {r['full_cpu']:.3f} s)  "
                f"[Party wins {r['party_wins']:.0%}, {r['rounds']:.1f} rounds]"
            )
            print(
                f"{what}, first 500 fights: median {1000 * r['first']:.1f} ms (budget {1000 * BUDGET_FIRST_S:g} ms) "
                f"{verdict(r['first'], BUDGET_FIRST_S)}  (CPU {1000 * r['first_cpu']:.1f} ms)"
            )
            both = r["plan"] + r["first"]
            print(f"{what}, the map's plan: median {1000 * r['plan']:.1f} ms")
            print(f"{what}, the plan and the first 500 (the Odds dock's first estimate): {1000 * both:.1f} ms")
            print(f"{what}, peak memory: {r['mb']:.0f} MB (budget {BUDGET_MB} MB) {verdict(r['mb'], BUDGET_MB)}")
            over += (r["full"] > BUDGET_FULL_S) + (r["first"] > BUDGET_FIRST_S) + (r["mb"] > BUDGET_MB)
    return 0


if __name__ == "__main__":
    sys.exit(main())
