"""Duel's area effect (RULES §14): the GM's dice rolled once, each target's defense off the total."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.dice import notation
from lnl_desktop.core.dice.rolls import DiceSource
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.areas import area_words
from lnl_desktop.core.encounter.events import AreaEffectResolved, AreaTarget, Event
from lnl_desktop.core.encounter.model import Encounter, Phase
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.areas import AreaShape
from lnl_desktop.core.rules.specs import AreaMeans, AreaOdds, AreaSpec
from lnl_duel.model import DuelStats
from lnl_duel.rules import area_damage, land, went_down

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


AREA_NOTES = ("One roll of the dice for everyone struck; each target's defense comes off it.",)


class DuelAreas:
    """The GM's area effect (a fire pot, falling rocks): its dice rolled once, each target's defense off it."""

    def means(self, c: Any) -> tuple[AreaMeans, ...]:
        return ()  # a duellist carries nothing that strikes an area: the effect is the GM's

    def spec(self) -> AreaSpec:
        return AreaSpec(default_dice="2d6", notes=AREA_NOTES)

    def forecast(self, encounter: Encounter, action: act.AreaEffect) -> Mapping[str, AreaOdds]:
        """Each target's damage over the dice's exact spread (plain dice only: none that explode or keep)."""
        try:
            dice = notation.parse(action.dice or "")
        except notation.NotationError:
            return {}
        if any(t.explode or t.keep is not None for t in dice.terms):
            return {}
        spread = {0: 1.0}
        for t in dice.terms:
            for _ in range(t.count if t.sides else 1):
                faces = range(1, t.sides + 1) if t.sides else (t.constant,)
                step: dict[int, float] = {}
                for total, p in spread.items():
                    for face in faces:
                        key = total + t.sign * face
                        step[key] = step.get(key, 0.0) + p / len(faces)
                spread = step
        by_id = encounter.by_id()
        out: dict[str, AreaOdds] = {}
        for cid in action.targets:
            c = by_id[cid]
            taken = {area_damage(total, c.defense): 0.0 for total in spread}
            for total, p in spread.items():
                taken[area_damage(total, c.defense)] += p
            mean = sum(d * p for d, p in taken.items())
            drop = sum(p for d, p in taken.items() if d >= c.hp) if c.hp else None
            span = f"{min(taken)}-{max(taken)}"
            out[cid] = AreaOdds(damage=f"≈ {mean:.1f} ({span})", drop=drop, words=f"{c.name}: defense {c.defense}")
        return out

    def resolve(self, engine: Table, action: act.AreaEffect, dice: DiceSource) -> list[Event]:
        e = engine.encounter
        title = action.name.strip() or "Area effect"
        if not action.dice.strip():
            raise IllegalAction(title, ["name the damage dice (2d6, say)"])
        try:
            expression = notation.parse(action.dice)
            shape = AreaShape(action.shape)
        except (notation.NotationError, ValueError) as error:
            raise IllegalAction(title, [str(error)]) from None
        caster = e.by_id().get(action.caster) if action.caster else None
        if caster is not None and e.combat.phase is Phase.FIGHTING:
            engine.use_action(caster, "area effect", title)
        rolled = notation.roll(expression, dice)
        total = max(0, rolled.total)
        rnd = e.combat.round
        targets: list[AreaTarget] = []
        parts: list[str] = []
        downs: list[Event] = []
        for cid in action.targets:
            t: DuelStats = engine.combatant(cid)
            before = t.hp
            damage = area_damage(total, t.defense)
            dealt = land(t, damage)
            result = f"HP {before} → {t.hp}" + (", down" if t.down and before else "")
            targets.append(
                AreaTarget(combatant=t.id, name=t.name, defences=f"- {t.defense} defense", damage=dealt, result=result)
            )
            parts.append(f"{t.name} {total} - {t.defense} defense = {damage} ({result})")
            if before:
                downs += went_down(rnd, t, damage - dealt)
        area = area_words(shape, action.size_ft)
        text = f"{title} ({area}): {expression.text} {rolled.words()} — " + "; ".join(parts)
        actors = tuple(dict.fromkeys(([caster.id] if caster is not None else []) + list(action.targets)))
        faces = [d.face for term in rolled.terms for d in term.dice]
        resolved = AreaEffectResolved(
            round=rnd,
            text=text,
            actors=actors,
            caster=caster.id if caster is not None else "",
            effect=title,
            area=area,
            dice=expression.text,
            faces=faces,
            total=total,
            targets=targets,
        )
        return [resolved, *downs]
