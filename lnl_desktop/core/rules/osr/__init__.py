"""Old-School d20 (RULES §12): to-hit rolls against AC, hit points, counter-attacks when leaving
melee, morale and death saves; one ruleset package behind the seam.

The ruleset object registered for it is :data:`OSR`; its hooks read ``rules`` (the to-hit roll and
the checks), ``play`` (the engine's handlers), ``morale``, ``initiative`` and ``views`` (what the
docks show).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.actions import AreaEffect
from lnl_desktop.core.encounter.events import Event, Override
from lnl_desktop.core.encounter.model import Encounter, Phase, Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules import engagement
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
    PromptSpec,
    Provocation,
    Ruleset,
    SaveRoll,
    Setting,
    SheetSpec,
    StartProcedure,
)
from lnl_desktop.core.rules.common import Opening, RoundOrder
from lnl_desktop.core.rules.fight import Battlefield, SimOutcome
from lnl_desktop.core.rules.osr import areas, initiative, morale, play, results, views
from lnl_desktop.core.rules.osr import conditions as cond
from lnl_desktop.core.rules.osr.by_hand import ByHand
from lnl_desktop.core.rules.osr.model import (
    UNARMED,
    Burn,
    Cast,
    Confusion,
    CounterAttack,
    DeathSave,
    Defend,
    Kind,
    MoraleCheck,
    MoraleResult,
    OsrAttack,
    OsrCombatant,
    OsrOptions,
    OsrWeapon,
    SaveCategory,
    SavingThrow,
    StandUp,
    TakeMove,
    parse_dice,
)
from lnl_desktop.core.rules.osr.rules import attacks_left, death_save_dc, save_bonus, to_hit
from lnl_desktop.core.rules.osr.views import BOTH, INITIATIVE, LIGHT, NOBODY, OPPONENTS, PARTY

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table


class OldSchoolRuleset(ByHand, Ruleset):
    name = "osr"
    title = "Old-School d20"
    source = "the old-school d20 combat chapter"
    about = "To-hit rolls against AC, HP, counter-attacks when leaving melee, morale and death saves."
    stat_block: ClassVar[type[OsrCombatant]] = OsrCombatant
    options_model = OsrOptions
    round_seconds: ClassVar[int] = 10
    provocation_word: ClassVar[str] = "Counter-attack"
    bestiary_file: ClassVar[str] = "bestiary-osr.json"
    # Its checks and notes hear the action's inputs (cover, a second weapon, a spell's name).
    hooks_with_extras: ClassVar[frozenset[str]] = frozenset({"action_checks", "action_notes"})

    handlers: ClassVar[Mapping[type, Handler]] = {
        OsrAttack: play.attack,
        CounterAttack: play.counter_attack,
        Defend: play.defend,
        TakeMove: play.take_move,
        Cast: play.cast,
        Burn: play.burn,
        StandUp: play.stand_up,
        Confusion: play.confusion,
        DeathSave: play.death_save,
        SavingThrow: play.saving_throw,
        MoraleCheck: morale.morale_check,
    }

    # -- the sheet and the tables (views.py) ---------------------------------------------------

    def sheet(self) -> SheetSpec:
        return views.sheet()

    def columns(self) -> tuple[Column, ...]:
        return views.columns()

    def gauges(self, c: OsrCombatant) -> tuple[Gauge, ...]:
        return views.gauges(c)

    def gauge_labels(self) -> tuple[str, ...]:
        return ("HP",)

    def condition_menu(self) -> tuple[str, ...]:
        """Every condition of the table in RULES §12, each applied by the app."""
        return cond.TABLE

    def duration_save(self) -> DurationSave:
        # RULES §10 and §12: the creature's saving throw in a category, d20 + its bonus against the DC.
        return DurationSave(
            saves=tuple((s.value, areas.SAVE_LABELS[s]) for s in SaveCategory),
            needs_save=True,
            needs_dc=True,
            words="a saving throw at the end of each of its turns: d20 + its bonus in the category, "
            "the DC or more ends it (11 + the HD of the monster behind it)",
        )

    def condition_save(
        self, encounter: Encounter, c: OsrCombatant, save: str | None, dc: int | None, dice: DiceSource, purpose: str
    ) -> SaveRoll:
        category = SaveCategory(save or SaveCategory.SPELLS.value)
        bonus = save_bonus(encounter, c, category)
        face = roll_plain(dice, 20, purpose).face
        total = face + bonus
        target = dc or 11
        return SaveRoll(total >= target, face, f"d20 {face} {bonus:+d} = {total} vs DC {target}")

    def condition_tip(self, condition: str) -> str:
        return views.condition_tip(condition)

    def token_word(self, c: OsrCombatant) -> str:
        return views.token_word(c)

    def markers(self, c: OsrCombatant) -> tuple[str, ...]:
        return views.markers(c)

    def new_combatant(self) -> dict[str, Any]:
        return {"name": "New combatant", "side": Side.PARTY.value, "kind": Kind.PC.value, "hp_max": 8}

    def summary(self, c: OsrCombatant) -> str:
        return views.summary(c)

    def stat_line(self, c: OsrCombatant) -> str:
        return views.stat_line(c)

    # -- the round ---------------------------------------------------------------------------

    def start_procedure(self) -> StartProcedure:
        return views.start_procedure()

    def round_settings(self) -> tuple[Setting, ...]:
        return (LIGHT, INITIATIVE)

    def open_combat(self, engine: Table, action: Any, dice: DiceSource) -> Opening:
        situation = action.situation
        surprised = {PARTY: Side.PARTY, OPPONENTS: Side.OPPONENTS}.get(situation)
        if situation not in (NOBODY, PARTY, OPPONENTS, BOTH):
            raise RulesError(f"Start combat: {situation!r} is not one of: {NOBODY}, {PARTY}, {OPPONENTS}, {BOTH}")
        slots, words = initiative.roll_initiative(engine, dice)
        first = self._first_side(engine, slots)
        said = {
            NOBODY: "nobody surprised",
            PARTY: "the Party is surprised",
            OPPONENTS: "the Opponents are surprised",
            BOTH: "both sides surprised, so nobody is",
        }[situation]
        options: OsrOptions = engine.encounter.options  # type: ignore[assignment]
        text = f"Round 1: {initiative.considerations(options)}; {said}; {words}"
        return Opening(situation=situation, first_side=first, surprised_side=surprised, text=text, order=tuple(slots))

    def round_order(self, engine: Table, action: Any, dice: DiceSource) -> RoundOrder:
        slots, words = initiative.roll_initiative(engine, dice)
        options: OsrOptions = engine.encounter.options  # type: ignore[assignment]
        return RoundOrder(
            self._first_side(engine, slots), None, f"{initiative.considerations(options)}; {words}", order=tuple(slots)
        )

    @staticmethod
    def _first_side(engine: Table, slots: list[Any]) -> Side:
        if slots and slots[0].members:
            return engine.combatant(slots[0].members[0]).side  # type: ignore[no-any-return]
        return Side.PARTY

    def on_round_start(self, engine: Table) -> list[Event]:
        """Counter-attacks not taken in the round before lapse: they were immediate."""
        return engagement.lapse(engine.encounter, "counter-attack")

    def turn_refusal(self, encounter: Encounter, c: OsrCombatant) -> str | None:
        if c.dead:
            return f"{c.name} is dead"
        if c.down:
            return f"{c.name} is down"
        if c.morale_result is MoraleResult.SURRENDERS:
            return f"{c.name} has surrendered"
        if cond.surprised(encounter, c):
            return f"{c.name} is surprised in {encounter.combat.round_phrase}"
        return None

    def on_turn_start(self, engine: Table, c: OsrCombatant) -> list[Event]:
        events: list[Event] = []
        rnd = engine.encounter.combat.round
        if c.defending is not None:
            c.defending = None
            events.append(Override(round=rnd, text=f"{c.name}'s Defend ends (its turn has come)"))
        if c.casting is not None:
            spell, c.casting = c.casting, None
            events.append(Override(round=rnd, text=f"{c.name}'s {spell} goes off (cast last turn, not interrupted)"))
        return events + play.turn_start_conditions(engine, c)

    def action_open(self, encounter: Encounter, c: OsrCombatant, kind: str | None = None) -> str:
        """A monster with several attacks: after each roll, the next until its attacks per round are made."""
        number, of = attacks_left(encounter, c)
        if not number or (kind is not None and kind not in ("melee", "ranged")):
            return ""
        return f"Attack {number} of {of}"

    def on_combat_end(self, engine: Table) -> None:
        for c in engine.encounter.combatants:
            c.defending = None  # type: ignore[attr-defined]
            c.casting = None  # type: ignore[attr-defined]
        engine.encounter.combat.pending = []

    # -- movement ----------------------------------------------------------------------------

    def move_allowance(self, engine: Table, c: OsrCombatant) -> float:
        """Before the action, a full Move; then what the action allows: a ranged attack half the
        Move in all, a Move (or another action) the full Move, a melee attack, charge, defend or
        spell no more."""
        turn = engine.encounter.combat.turn
        full = c.move_ft / 2 if cond.level(c) >= 3 else float(c.move_ft)  # exhausted 3+: half Move
        if turn is None or turn.action is None or turn.action in ("move", "other"):
            return full
        if turn.action == "ranged":
            return max(full / 2, turn.feet_used)
        return turn.feet_used

    def provocations(self, engine: Table, cid: str, path: list[tuple[int, int]]) -> list[Provocation]:
        combat = engine.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return []
        return play.provocations(engine, engine.combatant(cid), path)

    def after_move(self, engine: Table, c: OsrCombatant, path: list[tuple[int, int]], forced: bool) -> list[Event]:
        if engine.encounter.combat.phase is not Phase.FIGHTING:
            return []
        return play.after_move(engine, c, path, forced)

    # -- the actions (views.py) ---------------------------------------------------------------

    def action_kinds(self) -> tuple[ActionSpec, ...]:
        return views.action_kinds()

    def action_available(self, spec: ActionSpec, c: OsrCombatant) -> tuple[bool, str]:
        return views.action_available(spec, c)

    def action_result(self, encounter: Encounter, event: Any, after: list[Any]) -> ActionResult | None:
        return results.action_result(encounter, event, after)

    def action_means(self, spec: ActionSpec, c: OsrCombatant) -> list[tuple[str, str, str]]:
        return views.action_means(spec, c)

    def action_checks(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: OsrCombatant,
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
        c: OsrCombatant,
        means: str | None,
        target: Any,
        extras: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, str]]:
        return views.action_notes(encounter, spec, c, means, target, extras)

    def means(self, c: OsrCombatant, name: str, spell: bool = False) -> Any:
        return c.weapon(name)

    def forecast(
        self,
        attacker: OsrCombatant,
        target: OsrCombatant,
        means: Any,
        mode: Any,
        options: Any,
        *,
        ignore_dex: bool = False,
        encounter: Encounter | None = None,
        extras: Mapping[str, Any] | None = None,
    ) -> Any:
        from lnl_desktop.core.rules.osr.odds import forecast_strike

        if encounter is None:
            return None
        style = str(mode) if str(mode) in ("melee", "ranged", "charge") else ("melee" if means.melee else "ranged")
        extras = dict(extras or {})
        return forecast_strike(
            encounter,
            attacker,
            target,
            means,
            style,  # type: ignore[arg-type]
            cover=str(extras.get("cover", "none")),
            second=str(extras.get("second", "") or ""),
            subdual=bool(extras.get("subdual", False)),
            ability=str(extras.get("ability", "best")),
            gm_modifier=int(extras.get("gm_modifier", 0) or 0),
            gm_edge=str(extras.get("gm_edge", "none") or "none"),
            gm_reason=str(extras.get("gm_reason", "") or ""),
        )

    # -- area effects (RULES §14; areas.py) ---------------------------------------------------------

    def area_means(self, c: OsrCombatant) -> tuple[AreaMeans, ...]:
        return areas.area_means(c)

    def area_spec(self) -> AreaSpec:
        return areas.area_spec()

    def area_forecast(self, encounter: Encounter, action: AreaEffect) -> Mapping[str, AreaOdds]:
        return areas.area_forecast(encounter, action)

    def resolve_area(self, engine: Table, action: AreaEffect, dice: DiceSource) -> list[Event]:
        return areas.resolve_area(engine, action, dice)

    # -- what the rules call for (views.py) ------------------------------------------------------

    def prompt(self, engine: Table, item: Any) -> PromptSpec:
        asked = views.prompt(engine, item)
        return super().prompt(engine, item) if asked is None else asked

    def tools(self, engine: Table) -> tuple[PromptSpec, ...]:
        """The Combat menu's morale checks on the GM's demand, one per side that has morale."""
        return views.tools(engine)

    def combatant_tools(self, engine: Table, c: OsrCombatant) -> tuple[PromptSpec, ...]:
        """The sheet's saving throw on demand: a category and a DC (11 + a monster's HD, or the GM's)."""
        return views.combatant_tools(engine, c)

    # -- whole-fight odds (core.rules.fight; sim.py and tactic.py) ------------------------------

    sim_tactic: ClassVar[str] = (
        "Each round in initiative order, a combatant still in the fight takes its nearest standing foe: in "
        "melee reach, it attacks it with its best melee weapon; else a shooter with the foe in sight, in range "
        "and at least 10 ft away shoots from where it stands; else it moves up to its Move towards the foe "
        "and charges if that brings it into reach. Death saves and morale checks are rolled as they fall due."
    )
    sim_health_fields: ClassVar[tuple[str, ...]] = ("HP",)
    sim_tells_death: ClassVar[bool] = True

    def simulate_fights(self, encounter: Encounter, field: Battlefield, fights: int, rng: Any) -> SimOutcome:
        from lnl_desktop.core.rules.osr import sim  # numpy and the tables: off the app's start path

        return sim.simulate_fights(encounter, field, fights, rng)

    def play_fight(self, engine: Table, field: Battlefield, max_rounds: int) -> None:
        from lnl_desktop.core.rules.osr import tactic

        tactic.play_fight(engine, field, max_rounds)

    def sim_out(self, c: OsrCombatant) -> bool:
        """Down (defeated, unconscious or dead), fled or surrendered: out of the fight."""
        return bool(c.down or c.morale_result is not None)

    # -- converting, the bestiary and the demo ------------------------------------------------------

    def convert(self, data: dict[str, Any], source: Ruleset) -> tuple[dict[str, Any], list[str]]:
        kept, notes = super().convert(data, source)
        name = data.get("name", "?")
        # The L&L family's health as HP: SP + IP, a rough equivalent the GM should look at.
        if "stamina_max" in data and "injury_max" in data:
            kept["hp_max"] = max(1, int(data["stamina_max"]) + int(data["injury_max"]))
            kept["hp"] = max(0, min(kept["hp_max"], int(data.get("stamina", 0)) + int(data.get("injury", 0))))
            kept["level"] = int(data.get("level", 1))
            kept["kind"] = Kind.PC.value if data.get("side") == Side.PARTY.value else Kind.MONSTER.value
            kept["str_mod"] = int(data.get("str_bonus", 0))
            kept["dex_mod"] = int(data.get("dex_bonus", 0))
            kept["weapons"] = [
                {"name": w["name"], "damage": f"1{w['die']}", "kind": _kind_from(w), "max_range_ft": _range_from(w)}
                for w in data.get("weapons", [])
                if w.get("name") != UNARMED
            ]
            areas = _area_spells(data, {w["name"] for w in kept["weapons"]})
            kept["weapons"] += areas
            notes.append(f"{name}: HP {kept['hp_max']} = SP + IP; weapons' damage as one die each; AC 11: check them")
            if areas:
                said = ", ".join(f"{a['name']} {a['damage']}" for a in areas)
                notes.append(f"{name}: area spells as area weapons, save vs Spells (RULES §14): {said}; check them")
        else:
            kept.setdefault("hp_max", 8)
            notes.append(f"{name}: no health to map: HP 8, check the stat block")
        return kept, notes

    def bestiary(self) -> list[dict[str, Any]]:
        from lnl_desktop.core.rules.bestiary import read_bestiary

        return read_bestiary(self)[0]

    def demo(self) -> str | None:
        return "goblin-ambush-osr.lnl"

    def quick_rolls(self) -> tuple[tuple[str, str], ...]:
        return (("d20", "d20"), ("Advantage", "2d20kh1"), ("Disadvantage", "2d20kl1"))


def _area_spells(data: dict[str, Any], taken: set[str]) -> list[dict[str, Any]]:
    """The L&L family's spells with an area, as weapons that strike it (RULES §14): the spell's die
    rolled as many times as the caster's level gave it there (1 die at levels 1-2, +1 at every odd
    level), not exploding; a spell named as a weapon is left out."""
    count = max(1, (int(data.get("level", 1)) + 1) // 2)
    out = []
    for spell in data.get("spells", []):
        if not spell.get("area") or spell.get("name") in taken or spell.get("name") == UNARMED:
            continue
        out.append({"name": spell["name"], "damage": f"{count}{spell['die']}", "area": spell["area"], "save": "Spells"})
        taken.add(spell["name"])
    return out


def _kind_from(weapon: dict[str, Any]) -> str:
    return {"reach": "reach", "ranged": "missile"}.get(str(weapon.get("kind", "melee")), "melee")


def _range_from(weapon: dict[str, Any]) -> int | None:
    if weapon.get("kind") != "ranged":
        return None
    return int(weapon.get("max_range_ft") or 150)


OSR = OldSchoolRuleset()


__all__ = [
    "OSR",
    "Burn",
    "Cast",
    "Confusion",
    "CounterAttack",
    "DeathSave",
    "Defend",
    "Kind",
    "MoraleCheck",
    "OldSchoolRuleset",
    "OsrAttack",
    "OsrCombatant",
    "OsrOptions",
    "OsrWeapon",
    "SavingThrow",
    "StandUp",
    "TakeMove",
    "death_save_dc",
    "parse_dice",
    "to_hit",
]
