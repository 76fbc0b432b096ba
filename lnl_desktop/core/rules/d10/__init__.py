"""Group d10 (RULES §13): declared actions, a d10 per group each round, advantage and disadvantage,
criticals, weapon tiers, DR and minions; one ruleset package behind the seam.

The ruleset object registered for it is :data:`D10`; its hooks read ``rules`` (advantage, the
to-hit roll, damage and the checks), ``play`` (the engine's handlers), ``initiative`` (surprise, the
d10 per group, declarations locked), ``conditions`` and ``views`` (what the docks show).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.actions import AreaEffect
from lnl_desktop.core.encounter.events import Event, Override
from lnl_desktop.core.encounter.model import Encounter, Phase, Side
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.base import (
    ActionResult,
    ActionSpec,
    AreaMeans,
    AreaOdds,
    AreaSpec,
    Column,
    DeclareSpec,
    DurationSave,
    Gauge,
    Handler,
    PromptSpec,
    Provocation,
    RowAction,
    Ruleset,
    SaveRoll,
    SheetSpec,
    StartProcedure,
)
from lnl_desktop.core.rules.common import Opening, RoundOrder
from lnl_desktop.core.rules.d10 import areas, initiative, play, results, views
from lnl_desktop.core.rules.d10.by_hand import ByHand
from lnl_desktop.core.rules.d10.conditions import APPLIED, CONDITIONS
from lnl_desktop.core.rules.d10.model import (
    D10_DICE,
    DECLARED_LABEL,
    ON_20,
    SKILL_NAMES,
    SKILLS,
    BreakFree,
    D10Attack,
    D10Combat,
    D10Combatant,
    D10Options,
    D10Weapon,
    Declare,
    Disengage,
    FreeAttack,
    Grapple,
    LetGo,
    Mishap,
    OpposedRoll,
    ParryDodge,
    SavingThrow,
    SetTimer,
    Sprint,
    StandUp,
    Stealth,
    Tier,
    TimerNoted,
    UseItem,
)
from lnl_desktop.core.rules.d10.rules import damage_after
from lnl_desktop.core.rules.d10.views import NONE, OPPONENTS, PARTY, STUMBLED
from lnl_desktop.core.rules.fight import Battlefield, SimOutcome

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


class GroupD10Ruleset(ByHand, Ruleset):
    name = "d10"
    title = "Group d10"
    source = "the group-initiative d10 combat chapter"
    about = "Declared actions, a d10 per group each round, advantage and disadvantage, armor as damage reduction."
    stat_block: ClassVar[type[D10Combatant]] = D10Combatant
    options_model = D10Options
    combat_model = D10Combat
    round_seconds: ClassVar[int] = 6
    provocation_word: ClassVar[str] = "Free attack"
    sight_uses_facing: ClassVar[bool] = False  # Group d10 never reads facing: a creature sees all around
    bestiary_file: ClassVar[str] = "bestiary-d10.json"
    # Its checks hear the declared action's override and the action's inputs (an item picked up, an edge).
    hooks_with_extras: ClassVar[frozenset[str]] = frozenset({"action_checks", "action_notes"})

    handlers: ClassVar[Mapping[type, Handler]] = {
        Declare: play.declare,
        D10Attack: play.attack,
        FreeAttack: play.free_attack,
        ParryDodge: play.parry,
        Disengage: play.disengage,
        UseItem: play.use_item,
        Sprint: play.sprint,
        Stealth: play.stealth,
        Grapple: play.grapple,
        BreakFree: play.break_free,
        LetGo: play.let_go,
        StandUp: play.stand_up,
        SavingThrow: play.saving_throw,
        Mishap: play.mishap,
        OpposedRoll: play.opposed,
        SetTimer: play.set_timer,
        TimerNoted: play.timer_noted,
    }

    # -- the sheet and the tables (views.py) ---------------------------------------------------

    def sheet(self) -> SheetSpec:
        return views.sheet()

    def columns(self) -> tuple[Column, ...]:
        return views.columns()

    def gauges(self, c: D10Combatant) -> tuple[Gauge, ...]:
        return views.gauges(c)

    def gauge_labels(self) -> tuple[str, ...]:
        return ("HP",)

    def new_combatant(self) -> dict[str, Any]:
        return {"name": "New combatant", "side": Side.PARTY.value, "hp_max": 10}

    def summary(self, c: D10Combatant) -> str:
        return views.summary(c)

    def stat_line(self, c: D10Combatant) -> str:
        return views.stat_line(c)

    def condition_menu(self) -> tuple[str, ...]:
        return CONDITIONS

    def duration_save(self) -> DurationSave:
        # RULES §10 and §13: a d20 against the DC the GM sets, plus the fitting skill where one is named.
        return DurationSave(
            saves=tuple((skill, f"{SKILL_NAMES[skill]}: its bonus adds to the d20") for skill in SKILLS),
            needs_save=False,
            needs_dc=True,
            words="a d20 at the end of each of its turns (+ the fitting skill, if named): the DC or more ends it",
        )

    def condition_save(
        self, encounter: Encounter, c: D10Combatant, save: str | None, dc: int | None, dice: DiceSource, purpose: str
    ) -> SaveRoll:
        bonus = c.skill(save) if save else 0
        face = roll_plain(dice, 20, purpose).face
        total = face + bonus
        target = dc or 0
        added = f" {bonus:+d} {SKILL_NAMES[save]} = {total}" if save else ""
        return SaveRoll(total >= target, face, f"d20 {face}{added} vs DC {target}")

    def condition_tip(self, condition: str) -> str:
        tip = super().condition_tip(condition)
        extra = APPLIED.get(condition.strip().casefold())
        return f"{tip}. {extra}" if tip and extra else extra or tip

    def token_word(self, c: D10Combatant) -> str:
        return views.token_word(c)

    def markers(self, c: D10Combatant) -> tuple[str, ...]:
        return views.markers(c)

    # -- the round ---------------------------------------------------------------------------

    def start_procedure(self) -> StartProcedure:
        return views.start_procedure()

    def declarations(self, engine: Table) -> DeclareSpec | None:
        return views.declarations(engine)

    def open_combat(self, engine: Table, action: Any, dice: DiceSource) -> Opening:
        situation = action.situation
        if situation not in (NONE, PARTY, OPPONENTS, STUMBLED):
            raise RulesError(f"Start combat: {situation!r} is not one of: {NONE}, {PARTY}, {OPPONENTS}, {STUMBLED}")
        missing = initiative.missing_declarations(engine)
        if missing:
            raise IllegalAction("Start combat", [f"declare first for: {', '.join(missing)}"])
        ambushers, full, said = initiative.surprise_roll(engine, situation, dice)
        initiative.lock_declarations(engine)
        combat: D10Combat = engine.encounter.combat  # type: ignore[assignment]
        # Carried into the fight's combat state (a ruleset's own fields carry over).
        combat.ambushers, combat.full_surprise = ambushers, full
        slots, words = initiative.roll_initiative(engine, dice)
        first = engine.combatant(slots[0].members[0]).side if slots else Side.PARTY
        surprised = ambushers.other if ambushers is not None and full else None
        return Opening(
            situation=situation,
            first_side=first,
            surprised_side=surprised,
            text=f"Round 1: {said}; {words}",
            order=tuple(slots),
        )

    def round_order(self, engine: Table, action: Any, dice: DiceSource) -> RoundOrder:
        missing = initiative.lock_declarations(engine)
        if missing:
            raise IllegalAction("Next round", [f"declare first for: {', '.join(missing)}"])
        slots, words = initiative.roll_initiative(engine, dice)
        first = engine.combatant(slots[0].members[0]).side if slots else Side.PARTY
        return RoundOrder(first, None, words, order=tuple(slots))

    def on_round_start(self, engine: Table) -> list[Event]:
        combat: D10Combat = engine.encounter.combat  # type: ignore[assignment]
        events: list[Event] = []
        events += engagement.lapse(engine.encounter, "free attack")
        if combat.round > combat.first_round:
            events += play.tick_timers(engine)
        return events

    def turn_refusal(self, encounter: Encounter, c: D10Combatant) -> str | None:
        if c.dead:
            return f"{c.name} is dead"
        if c.down:
            return f"{c.name} is down"
        if c.surprised:
            return f"{c.name} is taken by full surprise: no actions in {encounter.combat.round_phrase}"
        return None

    def on_turn_start(self, engine: Table, c: D10Combatant) -> list[Event]:
        events: list[Event] = []
        rnd = engine.encounter.combat.round
        c.disengaged = False
        c.stood_up = False
        if c.parrying:
            c.parrying = False  # until its next action: its turn has come
            events.append(
                Override(round=rnd, text=f"{c.name}'s parry / dodge ends (its turn has come)", actors=(c.id,))
            )
        if c.lost_attack_round is not None and c.lost_attack_round < rnd:
            c.lost_attack_round = None
        if c.lost_attack_round == rnd:
            events.append(Override(round=rnd, text=f"{c.name} has no attack this round (its mishap)", actors=(c.id,)))
        if c.has("dropped weapon") and c.lost_attack_round is None:
            c.drop_condition("dropped weapon")
        combat: D10Combat = engine.encounter.combat  # type: ignore[assignment]
        declared = combat.declared.get(c.id)
        if declared:
            target = engine.encounter.by_id().get(combat.declared_targets.get(c.id, ""))
            on = f" on {target.name}" if target is not None else ""
            events.append(
                Override(round=rnd, text=f"{c.name} declared: {DECLARED_LABEL[declared]}{on}", actors=(c.id,))
            )
        return events

    def on_combat_end(self, engine: Table) -> None:
        for c in engine.encounter.combatants:
            c.parrying = False  # type: ignore[attr-defined]
            c.disengaged = False  # type: ignore[attr-defined]
            c.stood_up = False  # type: ignore[attr-defined]
        combat: D10Combat = engine.encounter.combat  # type: ignore[assignment]
        combat.pending = []

    def row_actions(self, engine: Table, c: D10Combatant) -> tuple[RowAction, ...]:
        return views.row_actions(engine, c)

    def round_notes(self, engine: Table) -> tuple[str, ...]:
        return views.round_notes(engine)

    # -- movement ----------------------------------------------------------------------------

    def move_allowance(self, engine: Table, c: D10Combatant) -> float:
        turn = engine.encounter.combat.turn
        if turn is not None and turn.combatant == c.id and (c.prone or c.stood_up or c.holder is not None):
            # Prone: standing up is its move; grappled: Move 0 until it breaks free.
            return turn.feet_used
        if turn is None or turn.action is None:
            return float(c.move_ft)
        if turn.action == "sprint":
            return float(engine.encounter.options.sprint_moves * c.move_ft)
        if turn.action == "parry":
            return turn.feet_used
        return float(c.move_ft)

    def move_refusal(self, engine: Table, c: D10Combatant) -> str | None:
        """Why ``c`` may not move at all now, in the game's words (None: it may, within its Move)."""
        if c.prone:
            return f"{c.name} is prone: Stand up first (standing takes its move this turn)"
        if c.stood_up:
            return f"{c.name} stood up this turn: standing took its move"
        holder = c.holder
        if holder is not None:
            who = engine.encounter.by_id().get(holder)
            return f"{c.name} is grappled by {who.name if who else holder}: Move 0 until it breaks free"
        return None

    def provocations(self, engine: Table, cid: str, path: list[tuple[int, int]]) -> list[Provocation]:
        if engine.encounter.combat.phase is not Phase.FIGHTING:
            return []
        return play.provocations(engine, engine.combatant(cid), path)

    def after_move(self, engine: Table, c: D10Combatant, path: list[tuple[int, int]], forced: bool) -> list[Event]:
        if engine.encounter.combat.phase is not Phase.FIGHTING:
            return []
        return play.after_move(engine, c, path, forced)

    # -- the actions (views.py) ---------------------------------------------------------------

    def action_kinds(self) -> tuple[ActionSpec, ...]:
        return views.action_kinds()

    def action_result(self, encounter: Encounter, event: Any, after: list[Any]) -> ActionResult | None:
        return results.action_result(encounter, event, after)

    def opening_action(self, encounter: Encounter, c: D10Combatant) -> str | None:
        """The action declared for this round: acting otherwise needs a GM override."""
        declared: str | None = encounter.combat.declared.get(c.id)  # type: ignore[attr-defined]
        return declared if declared in {spec.key for spec in self.action_kinds()} else None

    def action_means(self, spec: ActionSpec, c: D10Combatant) -> list[tuple[str, str, str]]:
        return views.action_means(spec, c)

    def action_available(self, spec: ActionSpec, c: D10Combatant) -> tuple[bool, str]:
        return views.action_available(spec, c)

    def action_checks(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: D10Combatant,
        means: str | None,
        text: str,
        target: Any = None,
        extras: Mapping[str, Any] | None = None,
    ) -> list[Any]:
        checks = views.action_checks(encounter, spec, c, means, text, target, extras)
        return super().action_checks(encounter, spec, c, means, text, target) if checks is None else checks

    def action_notes(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: D10Combatant,
        means: str | None,
        target: Any,
        extras: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, str]]:
        return views.action_notes(encounter, spec, c, means, target, extras)

    def means(self, c: D10Combatant, name: str, spell: bool = False) -> Any:
        return c.weapon(name)

    # -- area effects (areas.py) ---------------------------------------------------------------

    def area_means(self, c: D10Combatant) -> tuple[AreaMeans, ...]:
        return areas.area_means(c)

    def area_spec(self) -> AreaSpec:
        return areas.area_spec()

    def area_forecast(self, encounter: Encounter, action: AreaEffect) -> Mapping[str, AreaOdds]:
        return areas.area_forecast(encounter, action)

    def resolve_area(self, engine: Table, action: AreaEffect, dice: DiceSource) -> list[Event]:
        return areas.resolve_area(engine, action, dice)

    def forecast(
        self,
        attacker: D10Combatant,
        target: D10Combatant,
        means: Any,
        mode: Any,
        options: Any,
        *,
        ignore_dex: bool = False,
        encounter: Encounter | None = None,
        extras: Mapping[str, Any] | None = None,
    ) -> Any:
        if encounter is None or str(mode) not in ("weapon attack", "spell attack"):
            return None
        from lnl_desktop.core.rules.d10.odds import forecast_strike

        more = dict(extras or {})
        if more.get("ignores_dr"):
            target = target.model_copy(update={"dr": 0})  # the forecast's damage as the roll will land it
        return forecast_strike(
            encounter,
            attacker,
            target,
            means,
            "casting" if str(mode) == "spell attack" else means.skill,
            gm_edge=str(more.get("gm_edge", "none")),
            gm_reason=str(more.get("gm_reason", "")),
            cover=bool(more.get("cover", False)),
            called_shot=bool(more.get("called_shot", False)),
            extreme_range=bool(more.get("extreme_range", False)),
            subdual=bool(more.get("subdual", False)),
            on_20=str(more.get("on_20", ON_20[0])),
        )

    # -- whole-fight odds (sim.py fast, tactic.py through the engine) ----------------------------

    sim_tactic: ClassVar[str] = (
        "Everyone declares Attack each round; the groups act in their d10 order. Each picks the nearest "
        "standing foe (fewest feet to stand in reach of it): in reach, it strikes with its best melee weapon; "
        "else, with a ranged weapon and that foe in sight, in range and 10 ft or more away, it shoots from "
        "where it stands; else it closes on it and strikes if it gets there. No parries, grapples, called "
        "shots or subdual; a natural 1 has no mishap, a natural 20 doubles the damage die."
    )
    sim_health_fields: ClassVar[tuple[str, ...]] = ("HP",)
    sim_tells_death: ClassVar[bool] = True  # 0 HP is dead; subdual's unconscious is down, not dead

    def simulate_fights(self, encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome:
        from lnl_desktop.core.rules.d10 import sim  # numpy: off the app's start path

        return sim.simulate_fights(encounter, field, fights, rng)

    def play_fight(self, engine: Table, field: Battlefield, max_rounds: int) -> None:
        from lnl_desktop.core.rules.d10 import tactic  # the reference: off the app's start path

        tactic.play_fight(engine, field, max_rounds)

    # -- what the rules call for, and the GM's tools (views.py) ----------------------------------

    def prompt(self, engine: Table, item: Any) -> PromptSpec:
        asked = views.prompt(engine, item)
        return super().prompt(engine, item) if asked is None else asked

    def tools(self, engine: Table) -> tuple[PromptSpec, ...]:
        return views.tools(engine)

    def combatant_tools(self, engine: Table, c: D10Combatant) -> tuple[PromptSpec, ...]:
        """The sheet's saving throw on the GM's call, and letting go of a grapple it holds."""
        return views.combatant_tools(engine, c)

    # -- converting, the bestiary and the demo ------------------------------------------------------

    def convert(self, data: dict[str, Any], source: Ruleset) -> tuple[dict[str, Any], list[str]]:
        kept, notes = super().convert(data, source)
        name = data.get("name", "?")
        if "stamina_max" in data:
            kept["hp_max"] = max(1, int(data["stamina_max"]) + int(data.get("injury_max", 0)))
            kept["hp"] = kept["hp_max"]
            kept["dr"] = int(data.get("armor", 0))
        elif "hp_max" in data:
            kept["hp_max"] = int(data["hp_max"])
            kept["hp"] = int(data.get("hp", data["hp_max"]))
            kept["dr"] = int(data.get("armor_bonus", 0)) // 2
            kept["melee"] = int(data.get("attack_bonus", 0)) + int(data.get("str_mod", 0))
        else:
            kept["hp_max"] = 10
        weapons = []
        for w in data.get("weapons", []):
            die = w.get("die") or ("d" + str(w.get("damage", "1d6")).split("d")[-1].split("+")[0].split("-")[0])
            die = die if die in D10_DICE else "d6"
            kind = {"reach": "reach", "ranged": "ranged", "missile": "ranged", "thrown": "ranged"}.get(
                str(w.get("kind")), "melee"
            )
            weapon = {
                "name": w["name"],
                "die": die,
                "kind": kind,
                "max_range_ft": w.get("max_range_ft") if kind == "ranged" else None,
            }
            weapons.append(weapon | areas.converted_area(w.get("area"), areas.dice_count(w.get("damage"))))
        # An L&L spell with an area strikes it here as an area weapon: its die, N dice by the caster's level.
        taken = {w["name"] for w in weapons}
        for spell in data.get("spells", []):
            area = areas.converted_area(spell.get("area"), (int(data.get("level", 1)) + 1) // 2)
            if area and spell.get("name") not in taken:
                die = spell.get("die") if spell.get("die") in D10_DICE else "d6"
                range_ft = spell.get("range_ft")
                ranged = {"max_range_ft": max(10, int(range_ft))} if range_ft else {}
                weapons.append({"name": spell["name"], "die": die, "kind": "ranged", **ranged, **area})
                taken.add(spell["name"])
                notes.append(f"{name}: the spell {spell['name']} is an area weapon ({weapons[-1]['area_dice']}{die})")
        kept["weapons"] = weapons
        notes.append(f"{name}: HP {kept['hp_max']}, Defense 11, skills 0: check the stat block")
        return kept, notes

    def bestiary(self) -> list[dict[str, Any]]:
        from lnl_desktop.core.rules.bestiary import read_bestiary

        return read_bestiary(self)[0]

    def demo(self) -> str | None:
        return "bandit-mill-d10.lnl"

    def quick_rolls(self) -> tuple[tuple[str, str], ...]:
        return (("d10", "d10"), ("d20", "d20"))


D10 = GroupD10Ruleset()


__all__ = [
    "D10",
    "BreakFree",
    "D10Attack",
    "D10Combat",
    "D10Combatant",
    "D10Options",
    "D10Weapon",
    "Declare",
    "Disengage",
    "FreeAttack",
    "Grapple",
    "GroupD10Ruleset",
    "LetGo",
    "Mishap",
    "OpposedRoll",
    "ParryDodge",
    "SavingThrow",
    "SetTimer",
    "Sprint",
    "StandUp",
    "Stealth",
    "Tier",
    "UseItem",
    "damage_after",
]
