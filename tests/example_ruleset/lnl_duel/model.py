"""Duel's stat block, its options and its one action of its own (the Strike): the files' shapes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, model_validator

from lnl_desktop.core.encounter.model import CombatantBase, OptionsBase

NAME = "duel"
TITLE = "Duel (example)"
ROLL = "roll"


class DuelStats(CombatantBase):
    """A duellist: HP, a damage die and a defense, on top of the shared fields (name, side, Move...)."""

    hp: int = Field(ge=0, le=999, description="current HP")
    hp_max: int = Field(ge=1, le=999)
    damage_die: Literal[4, 6, 8, 10, 12] = Field(default=6, description="sides of the die a Strike rolls")
    defense: int = Field(default=0, ge=0, le=20, description="taken off every Strike this combatant takes")

    @model_validator(mode="before")
    @classmethod
    def _fresh(cls, data: Any) -> Any:
        # A new combatant starts unhurt.
        if isinstance(data, dict) and "hp" not in data and "hp_max" in data:
            data = {**data, "hp": data["hp_max"]}
        return data

    @model_validator(mode="after")
    def _within_max(self) -> DuelStats:
        if self.hp > self.hp_max:
            raise ValueError(f"hp: {self.hp} HP is above the maximum of {self.hp_max}")
        return self

    @property
    def down(self) -> bool:
        return self.hp == 0


class DuelOptions(OptionsBase):
    """Duel's one rules decision, next to the shared ones (difficult terrain)."""

    minimum_damage: int = Field(default=1, ge=0, le=5, description="a Strike never does less than this")


@dataclass(frozen=True)
class Strike:
    """``attacker`` strikes ``target`` with its damage die (ids, like every action)."""

    attacker: str
    target: str
