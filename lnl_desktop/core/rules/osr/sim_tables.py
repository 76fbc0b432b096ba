"""Old-School d20's fight simulator's fixed tables (``sim.py``): per combatant, per pair and per attack
option, what does not change during a fight (the to-hit chances, the damage distributions, the best
weapon against each foe, each form a timed condition's end leaves), worked out once for all the
batches of one odds, and the lookups a turn reads with one index a cell."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lnl_desktop.core.encounter.conditions import condition_key
from lnl_desktop.core.encounter.model import ConditionDuration, Encounter, Side
from lnl_desktop.core.rules.fight import OPPONENTS, PARTY, Battlefield, Timed, timed_conditions, variants
from lnl_desktop.core.rules.osr import condition_table as cond
from lnl_desktop.core.rules.osr.model import InitiativeMode, Kind, OsrCombatant, SaveCategory
from lnl_desktop.core.rules.osr.rules import save_bonus
from lnl_desktop.core.rules.osr.tactic import attack_options, blow, ranked_blows
from lnl_desktop.lazy import lazy_module

np = lazy_module("numpy")  # off the app's start path: loaded when the odds first run

MELEE_FT = 5  # the plan's gaps are to 5 ft melee reach; a reach weapon strikes 5 ft farther
# The conditions the simulator reads (RULES §12's table): they take the turn, hold in place, or change
# a to-hit roll, a save or the Move. Only these are followed when they end by themselves.
READ = (
    "blinded",
    "exhausted",
    "frightened",
    "grappled",
    "incapacitated",
    "invisible",
    "paralyzed",
    "petrified",
    "poisoned",
    "prone",
    "restrained",
    "stunned",
    "unconscious",
    "wounded",
)


@dataclass
class SimTables:
    """What does not change during the fight, per combatant (``k``) and attack option (``o``). The
    tables marked ``u`` are by combatant and set of its timed conditions ended (RULES §10): row
    ``i * width + v`` is combatant ``i`` with the conditions of bits ``v`` gone (:func:`.fight.variants`)."""

    side: Any  # [k]
    foe: Any  # [k, k]
    pc: Any  # [k]
    morale: Any  # [k] (0: none)
    has_morale: Any  # [k]
    death_save: Any  # [k] the Poison or Death bonus
    init: Any  # [k]
    leader: Any  # [k]
    attacks: Any  # [k]
    acts: Any  # [u] able to act at all (no helpless condition)
    move: Any  # [u] feet a turn
    hit: Any  # [u, u, o, 2] the chance to hit, at short and at long range
    cdf: Any  # [k, o, d] P(damage <= d)
    range_ft: Any  # [k, o] a ranged option's maximum range (0: melee)
    melee_best: Any  # [u, u] the best melee option against each foe
    harms: Any  # [u, u] some option harms that foe (RULES §12): one it harms is picked before one it cannot
    reach_extra: Any  # [u, u] how much farther than 5 ft that option reaches
    ranged_rank: Any  # [u, u, r] ranged options, best first (-1: none)
    sees: Any  # [k, k]
    members: tuple[Any, Any]  # each side's indices
    size: Any  # [2] each side's members, those off the map included
    off_down: Any  # [2] members off the map who are down
    off_out: Any  # [2] members off the map who are out of the fight
    group: bool  # initiative by group
    timed: list[Timed]  # the conditions that end by themselves
    width: int  # variants per combatant in the ``u`` tables (1: no timed condition)
    harms_all: bool = False  # everyone harms each of its foes: the nearest needs no second look
    shoots: Any = None  # [k] has a ranged option at all (one that has none never looks for a shot)
    acts_all: bool = False  # nobody is kept from acting, whatever ends: a turn needs no filter
    # The per-pair tables flat, read with one index a cell (cheaper than two to four index arrays):
    # ``(ua * u + ut) * options + o`` for a blow of option ``o`` by ``ua`` on ``ut``.
    u: int = 0  # rows of the ``u`` tables
    options: int = 0  # attack options per combatant (the tables' width)
    hit_flat: Any = None
    melee_flat: Any = None
    reach_flat: Any = None
    range_flat: Any = None
    rank_flat: Any = None
    in_touch: bool = False  # every best melee option reaches 5 ft: in reach means a gap of 0
    multi: bool = False  # someone makes more than one attack a turn
    sighted: Any = None  # [k * k] a shooter and a foe it sees: only there is a shot looked for
    columns: tuple[Any, Any] = ((), ())  # each side's members as a slice when they stand together, else indices
    melee_hit: Any = None  # [u * u] the chance to hit of the best melee option (flat as melee_flat)
    due: Any = None  # [2, k + 1, k + 1] flat: a side's morale check due at a fall, by its out and down before it
    k: int = 0  # combatants (a plain number: a turn reads it often)
    melee_rows: Any = None  # [u * u] flat as melee_flat: the row of ``cdf_rows`` of each pair's best melee option
    acts_as: Any = None  # [k] uint8: bit 0 an Opponent, bit 1 shoots at all, bit 2 more than one attack a turn
    cdf_rows: Any = None  # [k * o, d] the cdf of option ``o`` of ``i`` at row ``i * options + o``
    flees_above: Any = None  # [k] a morale roll above it flees (a score of 2 always flees, 12 never)
    passes_count: Any = None  # [k] a morale check it stands counts as a pass (not at a score of 2 or 12)

    def __post_init__(self) -> None:
        self.k = len(self.side)
        pairs = np.repeat(np.repeat(self.foe, self.width, axis=0), self.width, axis=1)
        self.harms_all = bool(self.harms[pairs].all())
        self.shoots = (self.range_ft > 0).any(axis=1)
        self.acts_all = bool(self.acts.all())
        self.u, self.options = self.melee_best.shape[0], self.range_ft.shape[1]
        self.hit_flat = self.hit.reshape(-1)
        self.melee_flat = self.melee_best.reshape(-1)
        self.reach_flat = self.reach_extra.reshape(-1)
        self.range_flat = self.range_ft.reshape(-1)
        self.rank_flat = self.ranged_rank.reshape(-1)
        self.in_touch = not self.reach_extra.any()
        self.multi = bool((self.attacks > 1).any())
        self.sighted = (self.shoots[:, None] & self.sees).reshape(-1)
        # Each side's columns: a slice where its members stand together in the roster (a view, no copy).
        self.columns = tuple(
            slice(int(m[0]), int(m[-1]) + 1) if len(m) and len(m) == m[-1] - m[0] + 1 else m for m in self.members
        )
        u = np.arange(self.u)
        self.melee_hit = self.hit[u[:, None], u[None, :], self.melee_best, 0].reshape(-1)
        # RULES §12: a check at the side's first fall and at the fall that puts half of it out (those
        # off the map counted), looked up by the side's members out and down on the map before the fall.
        before = np.arange(self.k + 1)
        down = before[None, :] + self.off_down[:, None]
        out = before[None, :] + self.off_out[:, None]
        size = self.size[:, None]
        half = (2 * out < size) & (size <= 2 * (out + 1))  # [2, out]
        self.due = (half[:, :, None] | (down == 0)[:, None, :]).reshape(-1)
        self.cdf_rows = self.cdf.reshape(-1, self.cdf.shape[2])
        self.acts_as = ((self.side != PARTY) | (self.shoots << 1) | ((self.attacks > 1) << 2)).astype(np.uint8)
        self.melee_rows = (u[:, None] // self.width * self.options + self.melee_best).reshape(-1)
        self.flees_above = np.where(self.morale == 2, 1, self.morale)  # 2d6 is never above 12
        self.passes_count = (self.morale != 2) & (self.morale != 12)


def build(encounter: Encounter, field: Battlefield) -> SimTables:
    cs: list[OsrCombatant] = [encounter.combatant(cid) for cid in field.ids]  # type: ignore[misc]
    k = len(cs)
    names, timed = timed_conditions(field, cs, _reads, lambda c, d: save_chance(encounter, c, d))
    forms = [variants(c, names[i]) for i, c in enumerate(cs)]
    v_width = 2 ** max(len(n) for n in names)
    u = k * v_width
    opts = [attack_options(c) for c in cs]
    width = max(len(o) for o in opts)
    hit = np.zeros((u, u, width, 2))
    dists: dict[tuple[int, int], dict[int, float]] = {}
    range_ft = np.zeros((k, width))
    melee_best = np.zeros((u, u), dtype=np.int64)
    harms = np.zeros((u, u), dtype=np.bool_)
    reach_extra = np.zeros((u, u))
    ranks = np.full((u, u, max(1, max(sum(s == "ranged" for _, s in o) for o in opts))), -1, dtype=np.int64)
    foe = field.foes()
    for i in range(k):
        for o, (w, style) in enumerate(opts[i]):
            if style == "ranged":
                range_ft[i, o] = w.max_range_ft or 0
        for j in range(k):
            if not foe[i, j]:
                continue
            for va, a in enumerate(forms[i]):
                for vt, t in enumerate(forms[j]):
                    x, y = i * v_width + va, j * v_width + vt
                    blows = [blow(encounter, a, t, w, style) for w, style in opts[i]]  # each worked out once
                    for o, (w, _style) in enumerate(opts[i]):
                        to, damage = blows[o]
                        if w.name in to.unharmed:
                            continue  # RULES §12: it cannot harm this foe, as good as a miss (the chance stays 0)
                        harms[x, y] = True
                        if va == vt == 0:
                            dists.setdefault((i, o), damage)
                        short = to.bonus - sum(v for name, v in to.terms if name == "long range")
                        hit[x, y, o, 0] = to.chance_at(short)
                        hit[x, y, o, 1] = to.chance_at(short - 1)
                    best = ranked_blows(opts[i], blows, ranged=False)
                    melee_best[x, y] = best[0]
                    reach_extra[x, y] = opts[i][best[0]][0].reach - MELEE_FT
                    for r, o in enumerate(ranked_blows(opts[i], blows, ranged=True)):
                        ranks[x, y, r] = o
    top = max((max(d) for d in dists.values()), default=0)
    cdf = np.ones((k, width, top + 1))
    for (i, o), damage in dists.items():
        p = np.zeros(top + 1)
        for amount, chance in damage.items():
            p[amount] += chance
        cdf[i, o] = np.cumsum(p)
        cdf[i, o, -1] = 2.0  # no draw falls past the largest amount, rounding or not
    everyone = [c for c in encounter.combatants if isinstance(c, OsrCombatant)]
    off = [c for c in everyone if c.id not in field.ids]
    sides = (Side.PARTY, Side.OPPONENTS)

    def move(c: OsrCombatant) -> float:
        if c.incapacitated_by is not None or c.held_by is not None:
            return 0.0
        return c.move_ft / 2 if cond.level(c) >= 3 else float(c.move_ft)

    return SimTables(
        side=field.side.copy(),
        foe=foe,
        pc=np.array([c.kind is Kind.PC for c in cs]),
        morale=np.array([(c.morale or 0) if c.has_morale else 0 for c in cs], dtype=np.int64),
        has_morale=np.array([c.has_morale for c in cs]),
        death_save=np.array(
            _each(forms, v_width, lambda c: save_bonus(encounter, c, SaveCategory.POISON)), dtype=np.int64
        ),
        init=np.array([c.init_mod for c in cs], dtype=np.int64),
        leader=np.array([c.leader for c in cs]),
        attacks=np.array([c.attacks for c in cs], dtype=np.int64),
        acts=np.array(_each(forms, v_width, lambda c: c.incapacitated_by is None), dtype=np.bool_),
        move=np.array(_each(forms, v_width, move)),
        hit=hit,
        cdf=cdf,
        range_ft=range_ft,
        melee_best=melee_best,
        harms=harms,
        reach_extra=reach_extra,
        ranged_rank=ranks,
        sees=field.sees.copy(),
        members=(np.flatnonzero(field.side == PARTY), np.flatnonzero(field.side == OPPONENTS)),
        size=np.array([sum(c.side is s for c in everyone) for s in sides]),
        off_down=np.array([sum(c.side is s and c.down for c in off) for s in sides]),
        off_out=np.array([sum(c.side is s and c.out_of_fight for c in off) for s in sides]),
        group=InitiativeMode(encounter.options.initiative) is InitiativeMode.GROUP,  # type: ignore[attr-defined]
        timed=timed,
        width=v_width,
    )


_last: tuple[Any, Any, str, SimTables] | None = None  # the last state's tables: (field, map, its words, tables)


def tables_of(encounter: Encounter, field: Battlefield) -> SimTables:
    """The tables of this state, worked out once for all the batches of one odds: kept while the same
    plan and map and the same words of the table (its JSON, the log and the immutable map apart) come
    back, so a change the engine made in place is never read from stale tables."""
    global _last
    words = encounter.model_dump_json(exclude={"log", "map"})
    last = _last
    if last is not None and last[0] is field and last[1] is encounter.map and last[2] == words:
        return last[3]
    t = build(encounter, field)
    _last = (field, encounter.map, words, t)
    return t


def _each(forms: list[list[OsrCombatant]], width: int, value: Any) -> list[Any]:
    """``value`` of each combatant in each of its forms, a ``u`` row each (a form it lacks: its own)."""
    return [value(f[v] if v < len(f) else f[0]) for f in forms for v in range(width)]


def _reads(condition: str) -> bool:
    key = condition_key(condition).casefold()
    return any(key == word or key.startswith(word + " ") or key.startswith(word + "(") for word in READ)


def save_chance(encounter: Encounter, c: OsrCombatant, duration: ConditionDuration) -> float:
    """The chance a save at the end of ``c``'s turn ends a condition, as the ruleset rolls it (RULES §10,
    §12): d20 + its bonus in the save category (Spells when none is named; exhaustion counted) ≥ the
    duration's DC (11 when it gives none)."""
    try:
        category = SaveCategory(duration.save or SaveCategory.SPELLS.value)
    except ValueError:
        return 0.0  # a category this ruleset lacks: the engine cannot roll it, the GM removes it by hand
    bonus = save_bonus(encounter, c, category)
    dc = duration.dc if duration.dc is not None else 11
    return sum(face + bonus >= dc for face in range(1, 21)) / 20
