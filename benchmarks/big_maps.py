"""Seeded encounters on real-sized battle maps, for the big-map benchmarks. Not a test.

The walls are shaped as imported Universal VTT maps have them:

- ``short``: straight segments 2-10 cells long along the grid or at 45 degrees, a tenth of them doors
  (a dungeon's rooms and corridors);
- ``long``: random lines across the map at any angle, a tenth of them doors (what costs a
  renderer most: every line crosses many tiles);
- ``unit``: grid-aligned segments one cell long (Dungeon Alchemist's and DungeonFog's caves).

Tokens stand on free cells away from each other; the first ``party`` are the Party, the rest
Opponents. Fog of war is on when asked for.
"""

from __future__ import annotations

import json
import random

from lnl_desktop.core.encounter.map_model import Door, Fog, MapGrid, Token, WallSegment
from lnl_desktop.core.encounter.model import Side, WeaponKind
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter, Weapon

MOVER = "p0"  # a Party token, the one the benchmarks drag


def segments_for(size: int, count: int, kind: str, seed: int = 11) -> tuple[list[WallSegment], list[Door]]:
    rng = random.Random(seed)
    segments: list[WallSegment] = []
    doors: list[Door] = []
    if kind == "unit":
        seen: set[tuple[int, int, int]] = set()
        while len(segments) + len(doors) < count and len(seen) < 2 * size * size:
            x, y, horizontal = rng.randrange(size), rng.randrange(size), rng.randrange(2)
            if (x, y, horizontal) in seen:
                continue
            seen.add((x, y, horizontal))
            b = (x + 1, y) if horizontal else (x, y + 1)
            segments.append(WallSegment(a=(x, y), b=b))
        return segments, doors
    directions = [(1, 0), (0, 1), (1, 1), (1, -1)]
    for i in range(count):
        if kind == "long":
            a = (rng.uniform(0, size), rng.uniform(0, size))
            b = (rng.uniform(0, size), rng.uniform(0, size))
        else:
            length = rng.randint(2, 10)
            dx, dy = rng.choice(directions)
            x0 = rng.randrange(0, size - length)
            y0 = rng.randrange(length, size - length)
            a = (x0, y0)
            b = (x0 + dx * length, y0 + dy * length)
        if i % 10 == 9:
            doors.append(Door(a=a, b=b, open=rng.random() < 0.3))
        else:
            segments.append(WallSegment(a=a, b=b))
    return segments, doors


def build(
    size: int = 50,
    tokens: int = 10,
    segments: int = 0,
    kind: str = "short",
    party: int = 5,
    fog: bool = True,
    seed: int = 7,
    move_ft: int = 30,
) -> Encounter:
    """An encounter on a ``size`` x ``size`` map with ``tokens`` tokens and ``segments`` wall lines."""
    rng = random.Random(seed)
    lines, doors = segments_for(size, segments, kind, seed + 4)
    sword = Weapon(name="Sword", die="d8")
    bow = Weapon(name="Bow", die="d6", kind=WeaponKind.RANGED, max_range_ft=150)
    # Tokens spread over the map on a coarse lattice, shuffled: never two on one cell.
    step = max(1, int((size * size / max(tokens, 1)) ** 0.5 * 0.8))
    spots = [(x, y) for y in range(1, size - 1, step) for x in range(1, size - 1, step)]
    rng.shuffle(spots)
    centre = (size // 2, size // 2)
    spots = [centre] + [s for s in spots if s != centre]
    if len(spots) < tokens:
        raise ValueError(f"{tokens} tokens do not fit a {size} x {size} map")
    combatants: list[Combatant] = []
    placed: dict[str, Token] = {}
    for i in range(tokens):
        is_party = i < party
        cid = f"p{i}" if is_party else f"o{i}"
        combatants.append(
            Combatant(
                id=cid,
                name=f"Hero {i}" if is_party else f"Goblin {i}",
                side=Side.PARTY if is_party else Side.OPPONENTS,
                level=3 if is_party else 1,
                stamina_max=20 if is_party else 6,
                injury_max=8 if is_party else 4,
                move_ft=move_ft,
                weapons=[sword, bow] if is_party else [sword],
            )
        )
        placed[cid] = Token(cell=spots[i], facing=rng.choice(range(0, 360, 45)))
    grid = MapGrid(width=size, height=size, segments=tuple(lines), doors=tuple(doors))
    return Encounter(
        name=f"Big map {size}x{size}",
        map=grid,
        combatants=combatants,
        tokens=placed,
        fog=Fog(enabled=fog),
    )


def uvtt_file(count: int, kind: str, size: int) -> bytes:
    """A Universal VTT map with ``count`` wall segments of ``kind`` on a ``size`` x ``size`` grid."""
    lines, doors = segments_for(size, count, kind, seed=5)
    walls = [[{"x": s.a[0], "y": s.a[1]}, {"x": s.b[0], "y": s.b[1]}] for s in (*lines, *doors)]
    data = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": size, "y": size}, "pixels_per_grid": 50},
        "line_of_sight": walls,
        "portals": [],
        "image": "",
    }
    return json.dumps(data).encode()
