"""Laurels & Loot, the program's default ruleset (RULES §1-9): the Ruleset object the registry names.

Its rules are in :mod:`.rules`, its stat block, actions and events in :mod:`.model`, the engine's
handlers for its actions in :mod:`.play`, what the docks show in :mod:`.views`, the forecast in
:mod:`.odds`, damage by hand in :mod:`.by_hand`. L&L Classic (``rules/classic``) subclasses it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from lnl_desktop.core.dice.rolls import DiceSource, roll_exploding, roll_plain, sides_of
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event, PrecisionCheck
from lnl_desktop.core.encounter.model import Encounter, ShieldState, Side, SurpriseSituation, WeaponKind, WeaponState
from lnl_desktop.core.errors import IllegalAction
from lnl_desktop.core.map.grid import footprint_center, outside_cone, token_distance_ft
from lnl_desktop.core.map.sight import blocker
from lnl_desktop.core.rules.base import (
    ActionResult,
    ActionSpec,
    AreaMeans,
    AreaOdds,
    AreaSpec,
    Column,
    DurationSave,
    Gauge,
    Handler,
    Ruleset,
    SaveRoll,
    SheetSpec,
    Situation,
    StartProcedure,
)
from lnl_desktop.core.rules.common import (
    POWER_MODES,
    SNEAK_MODES,
    Application,
    AttackMode,
    AttackOutcome,
    Check,
    Opening,
    RoundOrder,
    SurpriseOutcome,
)
from lnl_desktop.core.rules.lnl import areas, by_hand, play, views
from lnl_desktop.core.rules.lnl.model import (
    EVENTS,
    Ability,
    Attack,
    AttackMeans,
    CastSpell,
    Combatant,
    Dash,
    Leap,
    LnLFamilyOptions,
    LnLStats,
    Parry,
    ParryEnded,
    RulesOptions,
    Spell,
    Weapon,
    WeaponStyle,
    lnl_family_combatant,
)
from lnl_desktop.core.rules.lnl.model import Encounter as LnLEncounter

if TYPE_CHECKING:
    from lnl_desktop.core.dice.odds import Forecast
    from lnl_desktop.core.rules.base import Table
    from lnl_desktop.core.rules.fight import Battlefield, SimOutcome

from lnl_desktop.core.rules.lnl.rules import (
    _SURPRISE,
    MELEE_ENGAGED_FT,
    RANGED_MINIMUM_FT,
    SEES_INVISIBLE,
    SITUATION_TIPS,
    DamagePlan,
    _feet,
    damage_after,
    dice_count,
    exertion_cost,
    reverse_ambush_outcome,
    wall_between,
)

PTY, OPP = Side.PARTY, Side.OPPONENTS


class LnLRuleset(Ruleset):
    """Laurels & Loot (RULES §1-9). L&L Classic subclasses it and overrides what differs."""

    name = "lnl"
    title = "Laurels & Loot"
    source = "the Laurels & Loot combat chapter, current edition"
    about = "No to-hit rolls: exploding damage dice, Stamina worn down before Injuries, sneak attacks by facing."
    stat_block: ClassVar[type[LnLStats]] = Combatant
    options_model = RulesOptions
    event_types = EVENTS
    encounter_class = LnLEncounter

    # What sets the family's two editions apart (RULES §11), read by the shared code below.
    perception: ClassVar[Ability] = Ability.AWA
    ranged_minimum_ft: ClassVar[int] = RANGED_MINIMUM_FT
    has_direct_damage: ClassVar[bool] = True
    has_exertion: ClassVar[bool] = True
    sneak_may_be_power: ClassVar[bool] = False
    shows_defense_points: ClassVar[bool] = False
    perception_tip: ClassVar[str] = (
        "AWA bonus: added to ranged damage and to a sneak attack's precision check "
        "(d20 + AWA against DC 10 + the target's AP). May be negative"
    )
    concealed_tip: ClassVar[str] = (
        "Hiding, invisible or unseen. A concealed attacker within half its Move of the target "
        "may sneak attack; the flag ends after the sneak attack"
    )
    surprised_tip: ClassVar[str] = "Surprised: takes no turn in round 1. The surprise roll sets it"
    bestiary_file: ClassVar[str] = "bestiary.json"
    demo_file: ClassVar[str | None] = "hill-giant.lnl"
    # Its attacks are checked by mode (attack_checks, sneak_checks); its action hooks take the action's
    # inputs (a ruleset built on it may read them).
    checks_attack_modes: ClassVar[bool] = True
    hooks_with_extras: ClassVar[frozenset[str]] = frozenset({"action_checks", "action_notes"})

    handlers: ClassVar[Mapping[type, Handler]] = {
        Attack: play.attack,
        CastSpell: play.cast,
        Parry: play.parry,
        Dash: play.dash,
        Leap: play.leap,
    }

    # -- a condition's save each turn (RULES §10) ----------------------------------------------

    def duration_save(self) -> DurationSave:
        # RULES §10: a d20 under the named ability. The family's abilities are bonuses; the score a d20
        # goes under is 10 + the bonus (Knave's reading), so STR +2 is a score of 12.
        abilities = self.stat_block.abilities()
        return DurationSave(
            saves=tuple((a.value, f"{a.value}: a d20 at or under 10 + its {a.value} bonus") for a in abilities),
            needs_save=True,
            needs_dc=False,
            words="a d20 at the end of each of its turns: at or under 10 + the ability's bonus ends it",
        )

    def condition_save(
        self, encounter: Encounter, c: Any, save: str | None, dc: int | None, dice: DiceSource, purpose: str
    ) -> SaveRoll:
        ability = Ability(save or Ability.STR.value)
        score = 10 + c.bonus(ability)
        face = roll_plain(dice, 20, purpose).face
        return SaveRoll(face <= score, face, f"d20 {face} under {ability.value} {score}")

    # -- what the views show ------------------------------------------------------------------

    def sheet(self) -> SheetSpec:
        return views.sheet(self)

    def columns(self) -> tuple[Column, ...]:
        return views.columns(self)

    def gauges(self, c: LnLStats) -> tuple[Gauge, ...]:
        return views.gauges(c)

    def gauge_labels(self) -> tuple[str, ...]:
        return ("SP", "IP")

    def new_combatant(self) -> dict[str, Any]:
        # A plain level 1 fighter.
        return {
            **super().new_combatant(),
            "level": 1,
            "stamina_max": 10,
            "injury_max": 5,
            "weapons": [{"name": "Weapon", "die": "d6"}],
        }

    def summary(self, c: LnLStats) -> str:
        return views.summary(self, c)

    def stat_line(self, c: LnLStats) -> str:
        return views.stat_line(self, c)

    def action_kinds(self) -> tuple[ActionSpec, ...]:
        return views.action_kinds(self)

    def action_available(self, spec: ActionSpec, c: LnLStats) -> tuple[bool, str]:
        return views.action_available(spec, c)

    def action_means(self, spec: ActionSpec, c: LnLStats) -> list[tuple[str, str, str]]:
        return views.action_means(spec, c)

    def action_result(self, encounter: Encounter, event: Any, after: list[Any]) -> ActionResult | None:
        return views.action_result(encounter, event, after)

    def action_checks(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: LnLStats,
        means: str | None,
        text: str,
        target: Any = None,
        extras: Mapping[str, Any] | None = None,
    ) -> list[Check]:
        if spec.uses == "parry":
            return views.parry_checks(c, means)
        return super().action_checks(encounter, spec, c, means, text, target)

    def action_notes(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: LnLStats,
        means: str | None,
        target: Any,
        extras: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, str]]:
        return views.action_notes(self, encounter.options, spec, c, means, target)

    def bestiary(self) -> list[dict[str, Any]]:
        from lnl_desktop.core.rules.bestiary import read_bestiary

        return read_bestiary(self)[0]

    def demo(self) -> str | None:
        return self.demo_file

    def quick_rolls(self) -> tuple[tuple[str, str], ...]:
        return (("Initiative d6", "d6"), ("d20", "d20"))

    def forecast(
        self,
        attacker: LnLStats,
        target: LnLStats,
        means: AttackMeans,
        mode: AttackMode,
        options: LnLFamilyOptions,
        *,
        ignore_dex: bool = False,
        encounter: Encounter | None = None,
        extras: Mapping[str, Any] | None = None,
    ) -> Any:
        return forecast_attack(attacker, target, means, mode, options, ignore_dex=ignore_dex, ruleset=self)

    def convert(self, data: dict[str, Any], source: Ruleset) -> tuple[dict[str, Any], list[str]]:
        return lnl_family_combatant(self, data, source)

    # -- area effects (RULES §14): .areas ------------------------------------------------------

    def area_means(self, c: LnLStats) -> tuple[AreaMeans, ...]:
        return areas.area_means(c)

    def area_spec(self) -> AreaSpec:
        return areas.area_spec(self)

    def area_forecast(self, encounter: Encounter, action: act.AreaEffect) -> Mapping[str, AreaOdds]:
        return areas.area_forecast(self, encounter, action)

    def resolve_area(self, engine: Table, action: act.AreaEffect, dice: DiceSource) -> list[Event]:
        return areas.resolve_area(self, engine, action, dice)

    # -- the round -------------------------------------------------------------------------

    def start_procedure(self) -> StartProcedure:
        def reading(situation: str, face: int) -> str:
            return self.surprise(SurpriseSituation(situation), face).text

        return StartProcedure(
            question="Who ambushes whom?",
            situations=tuple(
                Situation(s.value, s.value[0].upper() + s.value[1:], SITUATION_TIPS[s], s is SurpriseSituation.REVERSE)
                for s in SurpriseSituation
            ),
            die_label="surprise and initiative",
            reading=reading,
        )

    def open_combat(self, engine: Table, a: act.StartCombat, dice: DiceSource) -> Opening:
        try:
            situation = SurpriseSituation(a.situation)
        except ValueError:
            known = ", ".join(s.value for s in SurpriseSituation)
            raise IllegalAction(
                "Start combat", [f"{a.situation!r} is not a situation of {self.title} ({known})"]
            ) from None
        face: int | None = None
        if situation is SurpriseSituation.REVERSE:
            if a.first_side is None:
                raise IllegalAction("Start combat", ["a reverse ambush needs the GM to say who acts first"])
            outcome = reverse_ambush_outcome(a.first_side, a.surprised_side)
        else:
            face = a.face if a.face is not None else roll_plain(dice, 6, "surprise and initiative").face
            outcome = self.surprise(situation, face)
        rolled = f"rolled {face}: " if face is not None else ""
        return Opening(
            situation=situation.value,
            first_side=outcome.first_side,
            surprised_side=outcome.surprised_side,
            text=f"Round 1 ({situation.value}): {rolled}{outcome.text}",
            face=face,
        )

    def round_order(self, engine: Table, a: act.NextRound, dice: DiceSource) -> RoundOrder:
        face = a.face if a.face is not None else roll_plain(dice, 6, "initiative").face
        first = self.initiative(face)
        return RoundOrder(first, face, f"initiative {face}, {first.acts_first}")

    def turn_refusal(self, encounter: Encounter, c: Any) -> str | None:
        if c.down and encounter.options.down_skips_turns:
            return f"{c.name} is down"
        if c.surprised:
            return f"{c.name} is surprised in {encounter.combat.round_phrase}"
        return None

    def on_turn_start(self, engine: Table, c: LnLStats) -> list[Event]:
        if c.parry is None:
            return []
        c.parry = None
        rnd = engine.encounter.combat.round
        return [ParryEnded(round=rnd, text=f"{c.name} stops parrying", actors=(c.id,), combatant=c.id)]

    def on_combat_start(self, engine: Table) -> None:
        for c in engine.encounter.combatants:
            c.parry = None

    def on_combat_end(self, engine: Table) -> None:
        for c in engine.encounter.combatants:
            c.parry = None

    def terrain_free(self, engine: Table, cid: str) -> bool:
        turn = engine.encounter.combat.turn
        return bool(turn and turn.combatant == cid and turn.leaping and engine.encounter.options.leap_ignores_terrain)

    # -- the round's dice --------------------------------------------------------------------

    def initiative(self, face: int) -> Side:
        if not 1 <= face <= 6:
            raise IllegalAction("Initiative", [f"{face} is not a face of a d6 (1 to 6)"])
        return OPP if face <= 3 else PTY

    def surprise(self, situation: SurpriseSituation, face: int) -> SurpriseOutcome:
        if situation is SurpriseSituation.REVERSE:
            raise IllegalAction("Reverse ambush", ["the GM sets the outcome by hand"])
        if not 1 <= face <= 6:
            raise IllegalAction("Surprise", [f"{face} is not a face of a d6 (1 to 6)"])
        first, surprised, words = _SURPRISE[situation][face]
        return SurpriseOutcome(first, surprised, words)

    # -- attacks ---------------------------------------------------------------------------

    def attack_checks(
        self,
        encounter: Encounter,
        attacker: Combatant,
        target: Combatant,
        means: AttackMeans,
        mode: AttackMode,
    ) -> list[Check]:
        checks = [
            Check("Attacker is up", not attacker.down, f"{attacker.name} is down"),
            Check("Another combatant", attacker.id != target.id, "cannot attack itself"),
        ]
        if isinstance(means, Spell):
            checks.append(Check("A spell", mode is AttackMode.SPELL, "a spell is cast, not swung"))
        else:
            checks.append(
                Check(
                    "Weapon intact",
                    means.state is not WeaponState.BROKEN,
                    f"{means.name} is broken until repaired",
                )
            )
            checks.append(Check("A weapon", mode is not AttackMode.SPELL, "a weapon is not a spell"))
            if mode is AttackMode.SNEAK_POWER and not self.sneak_may_be_power:
                checks.append(
                    Check("Not a Power Attack", False, f"in {self.title} a sneak attack is never a Power Attack")
                )
        checks.extend(self._distance_checks(encounter, attacker, target, means))
        return checks

    def _distance_checks(
        self, encounter: Encounter, attacker: Combatant, target: Combatant, means: AttackMeans
    ) -> list[Check]:
        feet = encounter.distance_between(attacker, target)
        if feet is None:
            return [
                Check(
                    "Distance",
                    True,
                    "not checked: a token is not on the map",
                    applies=False,
                )
            ]
        at = f"{target.name} is {_feet(feet)} away"
        if isinstance(means, Spell):
            if means.range_ft is None:
                return [Check("In spell range", True, at)]
            return [Check("In spell range", feet <= means.range_ft, f"{at}; range {_feet(means.range_ft)}")]
        if means.kind is WeaponKind.RANGED:
            least = self.ranged_minimum_ft
            checks = (
                [Check(f"At least {least} ft away", feet >= least, f"{at}: too close to shoot" if feet < least else at)]
                if least
                else []
            )
            if means.max_range_ft is not None:
                checks.append(
                    Check(
                        "Within max range",
                        feet <= means.max_range_ft,
                        f"{at}; max range {_feet(means.max_range_ft)}",
                    )
                )
            return checks
        reach = means.reach
        label = "Within reach" if means.kind is WeaponKind.REACH else "Within 5 ft (melee)"
        checks = [Check(label, feet <= reach, f"{at}; reach {_feet(reach)}")]
        wall = wall_between(encounter, attacker, target, reach) if feet <= reach else None
        if wall is not None:
            checks.append(Check("No wall between", False, f"{wall} stands between {attacker.name} and {target.name}"))
        return checks

    def sneak_checks(
        self, encounter: Encounter, attacker: Combatant, target: Combatant, means: AttackMeans
    ) -> list[Check]:
        """RULES §7's eligibility points, each with its reason (the GM may override)."""
        combat = encounter.combat
        last_round = combat.round - 1
        attacked_before = any(
            r.round == last_round and r.attacker == attacker.id and r.target == target.id for r in combat.attacks
        )
        checks = [
            Check(
                "Did not attack this target last round",
                not attacked_before,
                f"{attacker.name} attacked {target.name} in round {last_round}" if attacked_before else "",
            )
        ]

        hiding, unseen, busy = self.concealment_details(encounter, attacker, target)
        hidden, approach, distracted = hiding.ok, unseen.ok, busy.ok
        concealed = hidden or approach
        if hidden:
            why = hiding.reason
        elif approach:
            why = unseen.reason
        elif distracted:
            why = busy.reason
        else:
            why = f"not concealed ({unseen.reason}) and {target.name} is not distracted"
        checks.append(Check("Concealed, or the target distracted", concealed or distracted, why))

        start_feet = self._start_distance(encounter, attacker, target)
        half_move = attacker.move_ft / 2
        if distracted or not concealed:
            # Distraction alone satisfies RULES §7 point 2; the half-Move limit belongs to concealment.
            checks.append(
                Check("Started within half Move", True, "not needed: the target is distracted", applies=False)
            )
        elif start_feet is None:
            checks.append(
                Check("Started within half Move", True, "not checked: a token is not on the map", applies=False)
            )
        else:
            checks.append(
                Check(
                    "Started within half Move",
                    start_feet <= half_move,
                    f"started {_feet(start_feet)} from {target.name}; half Move is {_feet(half_move)}",
                )
            )
        checks.append(Check("Not a Power Attack", True, "a sneak attack is never a Power Attack"))
        if isinstance(means, Spell):
            checks.append(Check("With a weapon", False, "a spell cannot sneak attack"))
        return checks

    def concealment_details(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> list[Check]:
        """The three ways to meet RULES §7 point 2, each with its reason: hidden, unseen approach, distracted."""
        hidden = self.concealed_at_start(encounter, attacker, target)
        approach, approach_reason = self._approach_unseen(encounter, attacker, target)
        distracted, distracted_reason = self._distracted(encounter, attacker, target)
        if self.invisible_to(attacker, target):
            hidden_reason = f"{attacker.name} is invisible and {target.name} cannot see invisible creatures"
        elif hidden:
            hidden_reason = f"{attacker.name} was concealed at the start of the turn"
        elif attacker.has_condition("invisible"):
            hidden_reason = f"{attacker.name} is invisible, but {target.name} sees invisible creatures"
        else:
            hidden_reason = f"{attacker.name} was in plain view"
        return [
            Check("Concealed at the start of the turn", hidden, hidden_reason),
            Check("Approach from an unexpected direction", approach, approach_reason),
            Check(
                "Target distracted",
                distracted,
                distracted_reason
                or f"{target.name} is not engaged in melee, not shot since its last turn, not marked distracted",
            ),
        ]

    def _approach_unseen(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> tuple[bool, str]:
        """Whether the attacker stayed out of the target's sight at every point of its path this
        turn: outside its vision cone, or behind a wall, wall segment or closed door that blocks
        every line of sight from it (the wall is named)."""
        all_around = f"{target.name} sees all around ({target.vision_deg} degrees)"
        ta, tt = encounter.tokens.get(attacker.id), encounter.tokens.get(target.id)
        if ta is None or tt is None:
            return False, all_around if target.vision_deg >= 360 else "facing not checked: a token is not on the map"
        turn = encounter.combat.turn
        path = list(turn.path) if turn and turn.combatant == attacker.id and turn.path else [ta.cell]
        center = footprint_center(tt.cell, target.size)
        behind: str | None = None  # the first wall that hid a point of the path inside the cone
        in_cone = 0
        for point in path:
            if outside_cone(center, tt.facing, target.vision_deg, footprint_center(point, attacker.size)):
                continue
            in_cone += 1
            wall = blocker(encounter.map, tt.cell, target.size, point, attacker.size)
            if wall is None:
                if target.vision_deg >= 360:
                    return False, all_around
                return False, f"path crossed {target.name}'s {target.vision_deg} degree view"
            behind = behind or wall
        moved = "approach" if len(path) > 1 else "position"
        if behind is None:
            return True, f"whole {moved} stayed outside {target.name}'s {target.vision_deg} degree view"
        if in_cone == len(path):
            return True, f"whole {moved} stayed out of {target.name}'s sight, behind {behind}"
        return True, (
            f"whole {moved} stayed out of {target.name}'s sight: outside its {target.vision_deg} degree view "
            f"or behind {behind}"
        )

    def _distracted(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> tuple[bool, str]:
        if target.distracted:
            return True, f"{target.name} is distracted (GM)"
        shooters = [s for s in encounter.combat.ranged_hits.get(target.id, []) if s != attacker.id]
        if shooters:
            who = encounter.combatant(shooters[0]).name
            return True, f"{target.name} was shot by {who} since its last turn"
        foe = self.engaged_with(encounter, attacker, target)
        if foe is not None:
            return True, f"{target.name} is engaged in melee with {foe.name}"
        return False, ""

    def engaged_with(self, encounter: Encounter, attacker: LnLStats, target: LnLStats) -> Any:
        """A creature other than the attacker engaging ``target`` in melee (another side, up, within 5 ft), or None."""
        for other in encounter.combatants:
            if other.id in (attacker.id, target.id) or other.down or other.side is target.side:
                continue
            feet = encounter.distance_between(other, target)
            if feet is None or feet > MELEE_ENGAGED_FT:
                continue
            if wall_between(encounter, other, target, MELEE_ENGAGED_FT) is None:
                return other
        return None

    def concealed_at_start(self, encounter: Encounter, attacker: LnLStats, target: Any = None) -> bool:
        """Whether the attacker was concealed when its turn began (now, outside its turn): the GM's
        flag, or invisible to ``target`` (to any target when none is named)."""
        turn = encounter.combat.turn
        flagged = turn.concealed_at_start if turn is not None and turn.combatant == attacker.id else attacker.concealed
        return flagged or self.invisible_to(attacker, target)

    @staticmethod
    def invisible_to(attacker: Any, target: Any = None) -> bool:
        """An invisible attacker counts as concealed (RULES §7) from every target that cannot see
        invisible creatures: one with the condition "sees invisible" sees it."""
        if not attacker.has_condition("invisible"):
            return False
        return target is None or not target.has_condition(SEES_INVISIBLE)

    def _start_distance(self, encounter: Encounter, attacker: Combatant, target: Combatant) -> float | None:
        tt = encounter.tokens.get(target.id)
        turn = encounter.combat.turn
        start = turn.start_cell if turn and turn.combatant == attacker.id else None
        if start is None:
            token = encounter.tokens.get(attacker.id)
            start = token.cell if token else None
        if start is None or tt is None:
            return None
        grid = encounter.map
        return token_distance_ft(start, attacker.size, tt.cell, target.size, grid.diagonal, grid.feet_per_cell)

    # -- the damage formula: one plan, rolled by resolve_attack and forecast exactly ------------------

    def damage_plan(
        self,
        attacker: LnLStats,
        target: LnLStats,
        means: AttackMeans,
        mode: AttackMode,
        options: LnLFamilyOptions,
        *,
        ignore_dex: bool = False,
    ) -> DamagePlan:
        """Every term of RULES §5's formula for this attack, before any die is rolled."""
        n = dice_count(attacker.level)
        precision: tuple[int, int] | None = None
        if isinstance(means, Spell):
            base, magic_bonus, magic_term = n, 0, 0
            ability = means.ability
            attack_kind = "spell"
            dex_ignored = ignore_dex or not means.dex_applies
            ap_ignored = not means.ap_applies
        else:
            weapon: Weapon = means
            base = 2 * n if mode in POWER_MODES else n
            magic_bonus = weapon.magic_bonus
            bonus_dice = base if options.power_attack_magic_all_dice else n
            magic_term = magic_bonus * bonus_dice
            if mode in SNEAK_MODES and not self.sneak_adds_magic(options):
                magic_term = 0
            ability = attacker.weapon_ability(weapon)
            attack_kind = weapon.kind.value
            dex_ignored = mode in SNEAK_MODES or ignore_dex
            ap_ignored = False
            precision = self.precision_check(attacker, target, weapon, mode)
        return DamagePlan(
            base=base,
            die=means.die,
            sides=sides_of(means.die),
            magic_bonus=magic_bonus,
            magic_term=magic_term,
            ability=ability,
            ability_term=attacker.bonus(ability) if ability else 0,
            dex_term=0 if dex_ignored else target.dex_bonus,
            dex_ignored=dex_ignored,
            ap=target.armor_points,
            ap_ignored=ap_ignored,
            direct=self.is_direct(means, mode),
            precision=precision,
            exertion=self.costs_exertion(means, options),
            attack_kind=attack_kind,
        )

    def is_direct(self, means: AttackMeans, mode: AttackMode) -> bool:
        """Direct damage goes to IP at once: ranged attacks, sneak attacks, and spells that say so."""
        if isinstance(means, Spell):
            return means.direct
        return mode in SNEAK_MODES or means.kind is WeaponKind.RANGED

    def precision_check(
        self, attacker: LnLStats, target: LnLStats, weapon: Weapon, mode: AttackMode
    ) -> tuple[int, int] | None:
        """A sneak attack with a finesse or ranged weapon: (AWA bonus, DC 10 + target AP); success ignores AP."""
        if mode in SNEAK_MODES and (weapon.kind is WeaponKind.RANGED or weapon.style is WeaponStyle.FINESSE):
            return attacker.bonus(attacker.PERCEPTION), 10 + target.armor_points
        return None

    def sneak_adds_magic(self, options: LnLFamilyOptions) -> bool:
        return bool(getattr(options, "sneak_magic_bonus", True))

    def costs_exertion(self, means: AttackMeans, options: LnLFamilyOptions) -> bool:
        """A ranged attack costs the attacker d4 SP (melee too with the option on); spells never."""
        if isinstance(means, Spell):
            return False
        return means.kind is WeaponKind.RANGED or bool(getattr(options, "melee_exertion", False))

    def resolve_attack(
        self,
        attacker: LnLStats,
        target: LnLStats,
        means: AttackMeans,
        mode: AttackMode,
        dice: DiceSource,
        options: LnLFamilyOptions,
        *,
        ignore_dex: bool = False,
    ) -> AttackOutcome:
        plan = self.damage_plan(attacker, target, means, mode, options, ignore_dex=ignore_dex)
        precision: PrecisionCheck | None = None
        ap_ignored = plan.ap_ignored
        if plan.precision is not None:
            # Precision: strike the weak point; success means armor does not count.
            bonus, dc = plan.precision
            check = roll_plain(dice, 20, f"{attacker.name}'s {attacker.PERCEPTION.value} check")
            precision = PrecisionCheck(face=check.face, bonus=bonus, dc=dc)
            ap_ignored = precision.success

        faces = roll_exploding(dice, plan.base, plan.sides, f"{attacker.name}'s {means.name} damage")
        ap_term = 0 if ap_ignored else plan.ap
        raw, damage = damage_after(sum(f.face for f in faces), plan, ap_term, options.minimum_damage)

        exertion_face: int | None = None
        exertion = 0
        if plan.exertion and isinstance(means, Weapon):
            exertion_face = roll_plain(dice, 4, f"{attacker.name}'s exertion").face
            exertion = exertion_cost(exertion_face, means.specialized)

        explosions = sum(1 for f in faces if f.exploded)
        application = self.apply_damage(target, damage, plan.direct, explosions, options)
        return AttackOutcome(
            means=means.name,
            mode=mode,
            attack_kind=plan.attack_kind,
            die=means.die,
            dice_count=plan.base,
            faces=faces,
            magic_bonus=plan.magic_bonus,
            magic_term=plan.magic_term,
            ability=plan.ability.value if plan.ability else None,
            ability_term=plan.ability_term,
            dex_term=plan.dex_term,
            dex_ignored=plan.dex_ignored,
            ap_term=ap_term,
            ap_ignored=ap_ignored,
            raw=raw,
            damage=damage,
            direct=plan.direct,
            application=application,
            precision=precision,
            exertion_face=exertion_face,
            exertion_cost=exertion,
            breaks_weapon=mode in POWER_MODES,
        )

    def apply_damage(
        self, target: Combatant, damage: int, direct: bool, explosions: int, options: RulesOptions
    ) -> Application:
        """Where ``damage`` goes on ``target``: a parry first, then SP (spilling to IP) or IP."""
        result = Application(stamina_after=target.stamina, injury_after=target.injury)
        through = damage
        parry = target.parry
        if parry is not None and parry.weapon is not None:
            weapon = target.weapon(parry.weapon)
            if weapon.state is not WeaponState.BROKEN:
                # The weapon stops the whole blow; its (M+1)-th exploding die shatters it.
                counted = parry.explosions + explosions
                result.parried_with = weapon.name
                result.stopped = damage
                through = 0
                if counted >= weapon.magic_bonus + 1:
                    result.parry_weapon_shattered = weapon.name
                    result.parry_ends = True
                else:
                    result.parry_explosions = counted
        elif parry is not None and parry.shield and target.shield is not None:
            shield = target.shield
            if shield.state is not ShieldState.DESTROYED:
                result.parried_with = "shield"
                left = shield.durability
                doubled = 2 * damage
                if doubled <= left:
                    result.shield_damage = doubled
                    result.shield_durability_after = left - doubled
                    result.stopped = damage
                    through = 0
                else:
                    result.shield_damage = left
                    result.shield_durability_after = 0
                    result.shield_destroyed = True
                    result.parry_ends = True
                    through = damage - math.ceil(left / 2) if options.shield_overflow_half else damage
                    through = max(0, through)
                    result.stopped = damage - through

        if direct:
            result.to_ip = min(through, target.injury)
            result.overkill = through - result.to_ip
        else:
            result.to_sp = min(through, target.stamina)
            rest = through - result.to_sp
            if options.spill_to_injury:
                result.to_ip = min(rest, target.injury)
                rest -= result.to_ip
            result.overkill = rest
        result.stamina_after = target.stamina - result.to_sp
        result.injury_after = target.injury - result.to_ip
        return result

    # -- whole-fight odds (core.rules.fight): .sim, and its engine reference .tactic ------------------

    sim_tactic: ClassVar[str] = (
        "Each standing combatant takes the nearest standing foe (the fewest feet to reach it) and its best "
        "weapon against it: the intact one with the highest mean damage. If that is a ranged weapon and the "
        "foe is in sight, in range and far enough, it shoots from where it stands; else it strikes with its "
        "best melee or reach weapon that reaches, closing in by up to its Move first when none does. Ranged "
        "attacks cost their exertion; no power attacks, sneak attacks, parries, Dash or Leap."
    )
    sim_health_fields: ClassVar[tuple[str, ...]] = ("SP", "IP")
    sim_modes: ClassVar[tuple[str, ...]] = (AttackMode.SNEAK.value,)  # a what-if may pin a sneak attack
    sim_tells_death: ClassVar[bool] = False  # at 0 IP a creature is down; dying or dead is the GM's call

    def simulate_fights(self, encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome:
        from lnl_desktop.core.rules.lnl import sim  # numpy: off the app's start path

        return sim.simulate_fights(self, encounter, field, fights, rng)

    def play_fight(self, engine: Table, field: Battlefield, max_rounds: int) -> None:
        from lnl_desktop.core.rules.lnl import tactic

        tactic.play_fight(self, engine, field, max_rounds)

    def sim_health(self, c: LnLStats) -> tuple[float, ...]:
        return (float(c.stamina), float(c.injury))

    # -- damage and healing by hand (RULES §10) -------------------------------------------------

    def hand_kinds(self, heal: bool) -> tuple[tuple[str, str], ...]:
        if heal:
            return (("stamina", "SP"), ("injury", "IP"))
        wearing = ("stamina", "wearing down: SP first, then IP" if self.has_direct_damage else "SP first, then IP")
        return (wearing, ("injury", "direct: IP at once")) if self.has_direct_damage else (wearing,)

    def health_fields(self) -> Mapping[str, str]:
        # A typed SP is wearing down (or rest); a typed IP is an injury (or its healing).
        return {"stamina": "stamina", "injury": "injury"}

    def by_hand(self, engine: Table, c: LnLStats, amount: int, heal: bool, kind: str) -> list[Event]:
        return by_hand.by_hand(self, engine, c, amount, heal, kind)


LNL = LnLRuleset()


def forecast_attack(
    attacker: LnLStats,
    target: LnLStats,
    means: Weapon | Spell,
    mode: AttackMode,
    options: LnLFamilyOptions,
    *,
    ignore_dex: bool = False,
    ruleset: LnLRuleset | None = None,
) -> Forecast:
    """The exact forecast of an attack by L&L's rules, or by another ruleset of its family (:mod:`.odds`)."""
    from lnl_desktop.core.rules.lnl.odds import forecast_with  # numpy's distributions: at the first forecast

    return forecast_with(ruleset or LNL, attacker, target, means, mode, options, ignore_dex=ignore_dex)


__all__ = [
    "LNL",
    "MELEE_ENGAGED_FT",
    "RANGED_MINIMUM_FT",
    "SITUATION_TIPS",
    "DamagePlan",
    "LnLRuleset",
    "dice_count",
    "exertion_cost",
    "forecast_attack",
    "reverse_ambush_outcome",
]
