"""What an L&L-family attack rolled and computed (:class:`AttackOutcome`), and where its damage goes on
the target (:class:`Application`): values the edition's rules return and the engine writes into the
encounter."""

from __future__ import annotations

from dataclasses import dataclass, field

from lnl_desktop.core.dice.rolls import DieFace
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.rules.lnl.model import AttackMode, PrecisionCheck


@dataclass
class Application:
    """Where an amount of damage goes on a target, computed without changing it."""

    to_sp: int = 0
    to_ip: int = 0
    overkill: int = 0
    stopped: int = 0
    parried_with: str | None = None
    shield_damage: int = 0
    shield_destroyed: bool = False
    parry_weapon_shattered: str | None = None
    parry_explosions: int | None = None  # new count against a parrying weapon, if it holds
    parry_ends: bool = False
    stamina_after: int = 0
    injury_after: int = 0
    shield_durability_after: int | None = None


@dataclass
class AttackOutcome:
    """Everything an attack rolled and computed; the engine writes it into the encounter."""

    means: str
    mode: AttackMode
    attack_kind: str
    die: str
    dice_count: int  # base dice (N, or 2N for a Power Attack)
    faces: list[DieFace]
    magic_bonus: int
    magic_term: int
    ability: str | None
    ability_term: int
    dex_term: int
    dex_ignored: bool
    ap_term: int
    ap_ignored: bool
    raw: int
    damage: int
    direct: bool
    application: Application
    precision: PrecisionCheck | None = None
    exertion_face: int | None = None
    exertion_cost: int = 0
    breaks_weapon: bool = False
    overrides: list[str] = field(default_factory=list)

    @property
    def dice_total(self) -> int:
        return sum(f.face for f in self.faces)

    @property
    def explosions(self) -> int:
        """How many dice showed their maximum (each counts against a parrying weapon)."""
        return sum(1 for f in self.faces if f.exploded)


@dataclass(frozen=True)
class SurpriseOutcome:
    """Who acts first in round 1 and who is surprised, read off the surprise table (RULES §2), with its words."""

    first_side: Side
    surprised_side: Side | None
    text: str
