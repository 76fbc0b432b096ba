"""Old-School d20's area effects (RULES §14): a breath, a thrown flask, a bomb or a trap strikes
everyone in its area; the damage is rolled once and each target makes a saving throw against it.

- The damage: the weapon's dice (no STR: nothing is swung), or a free effect's dice.
- A bomb: the bomber's d20 first; 16+ hits the aimed square, a miss lands nothing.
- Each target in order: d20 + its bonus in the effect's category (**[D]** Dragon Breath) ≥ the DC
  (11 + the monster's HD for a monster's own effect, else the GM's). **[D]** A passed save halves
  the damage, rounded down (the option ``area_save_halves``; off: a passed save takes none); a
  failed one takes it all.
- The damage lands as a blow's does (:mod:`play`): HP, a spell under way interrupted, a monster or
  NPC defeated at 0, a PC's death save at 0 (§12), the morale prompts of each side struck.

:func:`plan` reads the effect's numbers once, for the roll and for the forecast alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.actions import AreaEffect
from lnl_desktop.core.encounter.areas import area_words
from lnl_desktop.core.encounter.events import AreaEffectResolved, AreaTarget, Event
from lnl_desktop.core.encounter.model import Encounter, Phase, Side
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.map.areas import AreaShape
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.osr.model import (
    MAGIC,
    SAVE_LABELS,
    Kind,
    OsrCombatant,
    OsrOptions,
    OsrWeapon,
    SaveCategory,
    dice_text,
    parse_dice,
)
from lnl_desktop.core.rules.osr.morale import morale_triggers, side_counts
from lnl_desktop.core.rules.osr.odds import _pct, dice_sum
from lnl_desktop.core.rules.osr.play import at_zero, interrupt
from lnl_desktop.core.rules.osr.rules import death_save_dc, movement_checks, save_bonus, spell_checks, unharmed
from lnl_desktop.core.rules.specs import AreaMeans, AreaOdds, AreaSpec, Setting

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

BOMB_HITS = 16  # RULES §14 (the source's bombing): the bomber's d20 16+ hits the aimed square
AREA_ACTION = "area effect"  # the turn's action: no attack, no move after it


# What the Area effect dialog says of an area effect here (RULES §14).
AREA_NOTES = (
    "The damage is rolled once; each target makes a saving throw: d20 + its bonus in the category ≥ the DC.",
    "DC: 11 + the monster's HD for a monster's own effect; otherwise the GM sets it (11 + the dungeon level).",
    "A passed save halves the damage, rounded down (Rules options: or takes none); a failed one takes it all.",
    f"A bomb: the bomber's d20 {BOMB_HITS}+ hits the aimed square; a miss lands nothing.",
    "A PC at 0 HP makes its death save at once (DC 11 + overkill); a monster or NPC is defeated; "
    "morale is checked as after any blow. Friends in the area are struck too.",
)

# A free effect's save and any effect's DC (AreaEffect.extras "save", "dc"): the GM's, in the dialog.
SAVE = Setting("save", "Save", "", "choice", SaveCategory.BREATH.value, choices=tuple(s.value for s in SaveCategory))
DC = Setting(
    "dc",
    "DC",
    "The saving throw's DC; 'the rules'' takes 11 + a monster's HD for its own effect",
    "int",
    0,
    low=0,
    high=40,
    optional=True,  # at its lowest, unset: the rules' DC
)


@dataclass(frozen=True)
class Plan:
    """An area effect's numbers before any die: what strikes, its dice, the save and the DC."""

    effect: str  # "Fire breath", "Falling rocks"
    caster: OsrCombatant | None
    weapon: OsrWeapon | None  # None: a free effect, or a spell the caster names
    count: int
    sides: int
    flat: int
    category: SaveCategory
    dc: int
    dc_words: str  # "11 + 3 HD", "set by the GM"
    bomb: bool

    @property
    def dice(self) -> str:
        return dice_text(self.count, self.sides, self.flat)


def plan(encounter: Encounter, action: AreaEffect) -> Plan:
    """Read the effect (IllegalAction with every reason it cannot be resolved)."""
    title = action.name or action.means or "Area effect"
    reasons: list[str] = []
    caster: OsrCombatant | None = None
    if action.caster:
        found = encounter.by_id().get(action.caster)
        if found is None:
            raise IllegalAction(title, [f"there is no combatant {action.caster!r}"])
        caster = found  # type: ignore[assignment]
    weapon: OsrWeapon | None = None
    if action.means:
        if caster is None:
            reasons.append(f"{action.means!r} is a combatant's weapon: name who uses it")
        else:
            try:
                weapon = caster.weapon(action.means)
            except RulesError as error:
                reasons.append(str(error).removeprefix("weapon: "))
            else:
                if weapon.area is None:
                    reasons.append(f"{caster.name}'s {weapon.name} strikes one foe, not an area: attack with it")
                    weapon = None
    count, sides, flat = 0, 0, 0
    if weapon is not None:
        count, sides, flat = weapon.dice
    elif not action.means:
        if not action.dice.strip():
            reasons.append("name the damage dice (such as 2d6)")
        else:
            try:
                count, sides, flat = parse_dice(action.dice)
            except ValueError as error:
                reasons.append(str(error))
    category = weapon.save if weapon is not None else SaveCategory.BREATH
    save, given_dc = action.extra("save", ""), action.extra("dc")
    if save:
        try:
            category = SaveCategory(save)
        except ValueError:
            known = ", ".join(s.value for s in SaveCategory)
            reasons.append(f"no saving throw {save!r} (one of {known})")
    dc, dc_words = 0, ""
    if given_dc is not None:
        dc, dc_words = int(given_dc), "set by the GM"
        if not 1 <= dc <= 40:
            reasons.append(f"DC {dc}: give a DC from 1 to 40")
    elif caster is not None and caster.kind is Kind.MONSTER:
        dc, dc_words = 11 + caster.level, f"11 + {caster.level} HD"
    else:
        whose = (
            f"{caster.name}'s effect ({caster.kind.value}, not a monster)" if caster is not None else "a free effect"
        )
        reasons.append(f"set the DC: the GM sets it for {whose}, typically 11 + the dungeon level")
    if reasons:
        raise IllegalAction(title, reasons)
    effect = action.name or (weapon.name if weapon is not None else "") or "Area effect"
    bomb = weapon is not None and weapon.bomb
    return Plan(effect, caster, weapon, count, sides, flat, category, dc, dc_words, bomb)


# -- the resolution ----------------------------------------------------------------------------------


def area_unharmed(encounter: Encounter, p: Plan, t: OsrCombatant) -> str:
    """Why the effect does nothing to ``t`` ("" when it may): petrified, or harmed only by what it
    lacks (RULES §12). A weapon's properties are its own; a spell the caster names is magic; a
    free effect has none."""
    named_spell = [MAGIC] if p.caster is not None else []
    properties = p.weapon.properties if p.weapon is not None else named_spell
    return unharmed(encounter, p.caster, t, properties, p.effect)


class OsrAreas:
    """Breaths, flasks and bombs (RULES §14): one roll of the damage, each target's saving throw for half."""

    def means(self, c: OsrCombatant) -> tuple[AreaMeans, ...]:
        """Each weapon of ``c`` with an area: "2d6, save vs Dragon Breath DC 14 for half"."""
        out = []
        for w in c.weapons:
            if w.area is None:
                continue
            dc = f"DC {11 + c.level}" if c.kind is Kind.MONSTER else "DC set by the GM"
            bomb = f"bomb (d20 {BOMB_HITS}+ hits the aimed square): " if w.bomb else ""
            out.append(
                AreaMeans(w.name, w.area, f"{bomb}{w.damage}, save vs {w.save.value} {dc} for half", w.max_range_ft)
            )
        return tuple(out)

    def spec(self) -> AreaSpec:
        return AreaSpec(
            settings=(SAVE, DC),
            free_only=("save",),  # a caster's weapon names its own save; the DC is the GM's for either
            saves=tuple((s.value, SAVE_LABELS[s]) for s in SaveCategory),
            cover=False,
            choice_words={s.value: SAVE_LABELS[s] for s in SaveCategory},
            unset_words={"dc": "the rules'"},
            default_dice="2d6",
            notes=AREA_NOTES,
        )

    def forecast(self, encounter: Encounter, action: AreaEffect) -> dict[str, AreaOdds]:
        """Each target's save chance (exact, over the d20's faces), its damage over the roll and the
        save (exact, by convolution of the dice) and its chance to drop to 0 HP."""
        by_id = encounter.by_id()
        targets: list[OsrCombatant] = [by_id[cid] for cid in action.targets if cid in by_id]  # type: ignore[misc]
        try:
            p = plan(encounter, action)
        except IllegalAction as refusal:
            why = "; ".join(refusal.reasons)
            return {t.id: AreaOdds(words=f"No forecast yet: {why}") for t in targets}
        options: OsrOptions = encounter.options  # type: ignore[assignment]
        p_hit = (21 - BOMB_HITS) / 20 if p.bomb else 1.0
        full: dict[int, float] = {}
        for k, chance in enumerate(dice_sum(p.count, p.sides)):
            if chance:
                amount = max(0, k + p.flat)
                full[amount] = full.get(amount, 0.0) + chance
        mean_full = math.fsum(k * q for k, q in full.items())
        out: dict[str, AreaOdds] = {}
        for t in targets:
            if t.dead or (t.hp == 0 and t.kind is not Kind.PC):
                out[t.id] = AreaOdds(words=f"{t.name} is {'dead' if t.dead else 'defeated'} already: untouched")
                continue
            spared = area_unharmed(encounter, p, t)
            if spared:
                out[t.id] = AreaOdds(damage="0", drop=0.0, words=f"{spared}: untouched")
                continue
            bonus = save_bonus(encounter, t, p.category)
            p_save = sum(face + bonus >= p.dc for face in range(1, 21)) / 20
            taken: dict[int, float] = {0: 1 - p_hit} if p.bomb else {}
            for k, q in full.items():
                saved = k // 2 if options.area_save_halves else 0
                taken[saved] = taken.get(saved, 0.0) + p_hit * q * p_save
                taken[k] = taken.get(k, 0.0) + p_hit * q * (1 - p_save)
            support = [k for k, q in taken.items() if q > 0]
            mean = math.fsum(k * q for k, q in taken.items())
            harmed = math.fsum(q for k, q in taken.items() if k >= 1)
            lowest, highest = (min(support), max(support)) if support else (0, 0)
            damage = f"≈ {mean:.1f} ({lowest}-{highest})"
            on_save = "half" if options.area_save_halves else "none"
            words = (
                f"{t.name}: d20 {bonus:+d} vs DC {p.dc} ({p.category.value}): saves {_pct(p_save)} ({on_save}); "
                f"{p.dice} = {mean_full:.1f} on average"
            )
            if p.bomb:
                words += f"; the bomb hits {_pct(p_hit)}"
            words += f"; expected {mean:.1f}"
            if t.hp == 0:
                words += f"; at 0 HP already: a new death save if harmed ({_pct(harmed)})"
                out[t.id] = AreaOdds(save=f"saves {_pct(p_save)}", damage=damage, drop=None, words=words)
                continue
            drop = math.fsum(q for k, q in taken.items() if k >= t.hp)
            fall = "drops to 0 HP (death save)" if t.kind is Kind.PC else "is defeated"
            words += f"; {fall}: {_pct(drop)}"
            out[t.id] = AreaOdds(save=f"saves {_pct(p_save)}", damage=damage, drop=drop, words=words)
        return out

    def resolve(self, engine: Table, action: AreaEffect, dice: DiceSource) -> list[Event]:
        """§14: the caster's action, a bomb's d20, one damage roll, each target's save in order, one
        :class:`AreaEffectResolved`, then what the damage sets off (a PC's death save, morale)."""
        e = engine.encounter
        p = plan(e, action)
        area = area_words(AreaShape(action.shape), action.size_ft)
        c = p.caster
        if c is not None and e.combat.phase is Phase.FIGHTING:
            # A spell the caster names (no weapon) is cast as any spell is; a breath or a bomb is its action.
            kind = AREA_ACTION if p.weapon is not None else "cast"
            checks = engine.turn_checks(c, needs_action=True, kind=kind)
            if p.weapon is None:
                checks += movement_checks(e, c, "cast") + spell_checks(e, c, None, True)
            engine.require(f"{c.name}: {p.effect}", checks)
            engine.use_action(c, kind, f"{p.effect}, {area}")
        rnd = e.combat.round
        targets: list[OsrCombatant] = [engine.combatant(cid) for cid in action.targets]
        head = f"{p.effect} ({c.name if c is not None else 'GM'}, {area})"
        actors = tuple(dict.fromkeys(([c.id] if c is not None else []) + [t.id for t in targets]))
        bomb = ""
        if p.bomb:
            face = roll_plain(dice, 20, f"{p.effect}: the bomber's d20 ({BOMB_HITS}+ hits the aimed square)").face
            if face < BOMB_HITS:
                missed = "it misses the aimed square and lands nothing; no one is harmed"
                text = f"{head}: bomb d20 {face}, under {BOMB_HITS}: {missed}"
                return [
                    AreaEffectResolved(
                        round=rnd,
                        text=text,
                        actors=actors,
                        caster=action.caster,
                        effect=p.effect,
                        area=area,
                        dice=f"{p.dice} (not rolled: bomb d20 {face} missed)",
                        total=0,
                    )
                ]
            bomb = f"bomb d20 {face} ≥ {BOMB_HITS}: hits; "
        faces = [roll_plain(dice, p.sides, f"{p.effect} damage d{p.sides}").face for _ in range(p.count)]
        total = max(0, sum(faces) + p.flat)
        flat = f"{p.flat:+d}" if p.flat else ""
        rolled = f"{p.dice} [{'+'.join(map(str, faces))}]{flat} = {total}"
        options: OsrOptions = e.options  # type: ignore[assignment]
        sides: list[Side] = list(dict.fromkeys(t.side for t in targets))
        counts = {side: side_counts(e, side) for side in sides}
        struck: list[AreaTarget] = []
        after: list[Event] = []
        for t in targets:
            if t.dead or (t.hp == 0 and t.kind is not Kind.PC):
                gone = "dead already" if t.dead else "defeated already (0 HP)"
                struck.append(AreaTarget(combatant=t.id, name=t.name, result=f"{gone}: untouched"))
                continue
            spared = area_unharmed(e, p, t)
            if spared:
                # RULES §12: nothing to save against; the damage does not touch it.
                struck.append(AreaTarget(combatant=t.id, name=t.name, result=f"untouched ({spared})"))
                continue
            bonus = save_bonus(e, t, p.category)
            face = roll_plain(dice, 20, f"{t.name}'s save vs {p.category.value} (DC {p.dc})").face
            saved = face + bonus >= p.dc
            if saved:
                taken = total // 2 if options.area_save_halves else 0
                verdict = "saved, half" if options.area_save_halves else "saved, none"
            else:
                taken, verdict = total, "failed"
            save = f"d20 {face} {bonus:+d} = {face + bonus} vs DC {p.dc}: {verdict}"
            before = t.hp
            t.hp = max(0, t.hp - taken)
            overkill = max(0, taken - before)
            if not taken:
                result = f"HP {before}, unharmed"
            elif t.hp:
                result = f"HP {before} → {t.hp}"
            elif t.kind is Kind.PC:
                result = f"HP {before} → 0, death save DC {death_save_dc(overkill)}"
            else:
                result = f"HP {before} → 0, defeated"
            struck.append(AreaTarget(combatant=t.id, name=t.name, save=save, damage=taken, result=result))
            # A spell under way is lost to damage or to a failed save (RULES §12).
            if taken or not saved:
                after += interrupt(
                    engine,
                    t,
                    f"{taken} damage from {p.effect}" if taken else f"failed a save against {p.category.value}",
                )
            if taken and t.hp == 0:
                after += at_zero(engine, t, overkill, before)
                after += engagement.lapse(e, "counter-attack", t)
        for side in sides:
            after += morale_triggers(engine, side, *counts[side])
        lines = "; ".join(
            f"{s.name} {s.save} → {s.damage} ({s.result})" if s.save else f"{s.name} {s.result}" for s in struck
        )
        text = f"{head}: {bomb}{rolled}, save vs {p.category.value} DC {p.dc} ({p.dc_words}) — {lines}"
        resolved = AreaEffectResolved(
            round=rnd,
            text=text,
            actors=actors,
            caster=action.caster,
            effect=p.effect,
            area=area,
            dice=p.dice,
            faces=faces,
            total=total,
            targets=struck,
        )
        return [resolved, *after]
