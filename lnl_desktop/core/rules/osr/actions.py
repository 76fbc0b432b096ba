"""Old-School d20's actions (RULES §12): what the Action dock offers (attacks, charge, move, stand up,
defend, spells, words) with their inputs, checks and notes, the engine's handlers, and a result in words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.base import Handler
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.osr import condition_table as cond
from lnl_desktop.core.rules.osr import morale, play, results, rules
from lnl_desktop.core.rules.osr.model import (
    Burn,
    Cast,
    Confusion,
    CounterAttack,
    DeathSave,
    Defend,
    MoraleCheck,
    OsrAttack,
    OsrCombatant,
    SavingThrow,
    StandUp,
    TakeMove,
    WeaponKind,
)
from lnl_desktop.core.rules.shared import said_checks
from lnl_desktop.core.rules.specs import ActionResult, ActionSpec, Setting

COVER = Setting(
    "cover",
    "Cover",
    "Partial cover: -2 to -4 to hit, set by the GM; full cover: it cannot be shot",
    "choice",
    "none",
    choices=rules.COVER,
)
SECOND = Setting(
    "second",
    "Dual with",
    "A dual attack: one roll at -1, both weapons' damage rolled, the higher counts",
    "means",
    "",
    optional=True,
)
SUBDUAL = Setting(
    "subdual",
    "Subdual",
    "Declared not to kill (bludgeoning, or the flat of a blade): the damage is tracked apart "
    "from HP; at subdual ≥ HP the foe surrenders",
    "bool",
    False,
)
SPELL = Setting(
    "spell",
    "Spell",
    "The spell's name, for the log",
    "text",
    "",
)
HARMFUL = Setting(
    "harmful",
    "Harmful",
    "A spell that harms its target: a charmed caster may not aim it at its charmer",
    "bool",
    True,
)
LASTING = Setting(
    "lasting",
    "Takes time",
    "A casting time longer than an instant: the spell goes off as the caster's next turn begins, "
    "and is lost if the caster takes damage or fails a save before then",
    "bool",
    False,
)
GM_MODIFIER = Setting(
    "gm_modifier",
    "GM modifier",
    "The GM's situational modifier to the roll, -10 to +10 (fighting in water); say why in Why",
    "int",
    0,
    -rules.GM_MODIFIER,
    rules.GM_MODIFIER,
)
GM_EDGE = Setting(
    "gm_edge",
    "GM edge",
    "Advantage (2d20, the higher) or disadvantage (2d20, the lower) the GM gives (an unstable surface); "
    "say why in Why. It cancels against the other sources as usual",
    "choice",
    "none",
    choices=rules.GM_EDGES,
)
GM_REASON = Setting(
    "gm_reason", "Why", "The reason for the GM's modifier or edge, for the forecast and the log", "text", ""
)
GM = (GM_MODIFIER, GM_EDGE, GM_REASON)
FLAT = Setting(
    "flat_of_blade",
    "Flat of blade",
    "A blade struck flat: it may subdue (a weapon not marked bludgeoning may not otherwise)",
    "bool",
    False,
)
ABILITY = Setting(
    "ability",
    "Adds",
    "A thrown weapon adds the best of STR, DEX and PER to hit, unless you pick one (STR also adds to damage)",
    "choice",
    "best",
    choices=rules.ABILITIES,
)


def _strike(style: str) -> Any:
    def build(
        c: str,
        target: str,
        means: str,
        *,
        ignore_dex: bool = False,
        override: bool = False,
        cover: str = "none",
        second: str = "",
        subdual: bool = False,
        ability: str = "best",
        flat_of_blade: bool = False,
        gm_modifier: int = 0,
        gm_edge: str = "none",
        gm_reason: str = "",
    ) -> OsrAttack:
        return OsrAttack(
            c,
            target,
            means,
            style,  # type: ignore[arg-type]
            cover,
            second or "",
            bool(subdual),
            ability,
            bool(flat_of_blade),
            int(gm_modifier or 0),
            str(gm_edge or "none"),
            str(gm_reason or ""),
        )

    return build


def _cast_at(
    c: str,
    target: str,
    means: str | None,
    *,
    ignore_dex: bool = False,
    override: bool = False,
    spell: str = "",
    harmful: bool = True,
    lasting: bool = False,
) -> Cast:
    return Cast(c, str(spell or ""), target, lasting=bool(lasting), harmful=bool(harmful))


def _defend(c: str, target: str, means: str | None, *, ignore_dex: bool = False, override: bool = False) -> Defend:
    return Defend(c, "" if target == c else target)


class OsrActions:
    """The Action dock's actions of an Old-School d20 turn, and the engine's handler of each."""

    handlers: Mapping[type, Handler] = {
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
    # Its checks and notes hear the action's inputs (cover, a second weapon, a spell's name).
    hooks_with_extras = frozenset({"action_checks", "action_notes"})

    def kinds(self) -> tuple[ActionSpec, ...]:
        def strike(key: str, label: str, tip: str, button: str, extras: tuple[Setting, ...]) -> ActionSpec:
            return ActionSpec(
                key,
                label,
                tip,
                "weapon",
                _strike(key),
                targeted=True,
                mode=key,
                button=button,
                rolls=True,
                extras=extras,
            )

        return (
            strike(
                "melee",
                "Melee attack",
                "d20 + attack bonus + STR against AC, a target within 5 ft (10 ft with reach); no move this turn",
                "Roll the attack",
                (*GM, COVER, SECOND, SUBDUAL, FLAT),
            ),
            strike(
                "ranged",
                "Ranged attack",
                "d20 + attack bonus + PER (thrown: best of STR/DEX/PER); long range -1; half a Move before or after. "
                "Shooting while engaged provokes counter-attacks",
                "Roll the shot",
                (*GM, COVER, ABILITY, SECOND),
            ),
            strike(
                "charge",
                "Charge",
                "Move up to the full Move, then a melee attack (no move after)",
                "Roll the charge",
                (*GM, COVER, SECOND, SUBDUAL, FLAT),
            ),
            ActionSpec(
                "move",
                "Move",
                "Up to the full Move; moving while engaged provokes counter-attacks",
                "none",
                lambda c: TakeMove(c),
                button="Take the Move",
            ),
            ActionSpec(
                "stand",
                "Stand up",
                "A prone creature gets up: it costs half its Move, not its action",
                "none",
                lambda c: StandUp(c),
                button="Stand up",
            ),
            ActionSpec(
                "defend",
                "Defend",
                "No move and no attack: +2 AC until the next turn, or guard an adjacent ally (+2 AC to it). "
                "Pick yourself or the ally",
                "none",
                _defend,
                targeted=True,
                allies=True,
                button="Defend",
            ),
            ActionSpec(
                "cast",
                "Cast a spell",
                "At a creature: click it on the map. Both hands free, a line of sight to a visible target; "
                "not silenced, not blinded; the caster may not move this turn",
                "none",
                _cast_at,
                targeted=True,
                button="Cast",
                extras=(SPELL, HARMFUL, LASTING),
            ),
            ActionSpec(
                "cast-here",
                "Cast a spell (no creature)",
                "On the caster itself or a place: both hands free, not silenced; the caster may not move this turn",
                "text",
                lambda c, text, lasting=False: Cast(c, text, lasting=bool(lasting)),
                button="Cast",
                extras=(LASTING,),
            ),
            ActionSpec(
                "other",
                "Something else…",
                "Any other action, in words, for the log",
                "text",
                lambda c, text: act.OtherAction(c, text),
                button="Take this action",
            ),
        )

    def available(self, spec: ActionSpec, c: OsrCombatant) -> tuple[bool, str]:
        if spec.key == "stand" and not cond.has(c, "prone"):
            return False, f"{c.name} is not prone"
        if spec.key == "ranged" and not any(w.kind in (WeaponKind.MISSILE, WeaponKind.THROWN) for w in c.strikers()):
            return False, f"{c.name} has no missile or thrown weapon"
        return True, ""

    def choices(self, spec: ActionSpec, c: OsrCombatant) -> list[tuple[str, str, str]]:
        if spec.uses != "weapon":
            return []
        # A weapon that strikes an area (a breath, a bomb) is used as an Area effect, not at one foe.
        if spec.key == "ranged":
            return [(w.name, w.label, "") for w in c.strikers() if w.kind in (WeaponKind.MISSILE, WeaponKind.THROWN)]
        return [(w.name, w.label, "") for w in c.strikers() if w.melee]

    def checks(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: OsrCombatant,
        means: str | None,
        text: str,
        target: Any = None,
        extras: Mapping[str, Any] | None = None,
    ) -> list[Any]:
        """The Action dock's checks for an Old-School action; an action in words: that it is said."""
        number, of = rules.attacks_left(encounter, c)
        if number and spec.key not in ("melee", "ranged"):
            turn = encounter.combat.turn
            made = turn.attacks if turn is not None else 0
            return [
                Check(
                    "The turn's action is Attack",
                    False,
                    f"{made} of {of} attacks made: the next is a melee or a ranged attack, or end the turn",
                )
            ]
        if spec.key in ("melee", "ranged", "charge"):
            if target is None or means is None:
                return [Check("Pick a target", False, "click a foe on the map")]
            try:
                weapon = c.weapon(means)
            except RulesError as error:
                return [Check("The weapon", False, str(error))]
            more = dict(extras or {})
            turn = encounter.combat.turn
            following = number and turn is not None and turn.action == "charge"
            first = [Check(f"Attack 1 of {of}", True, "")] if of > 1 and not number else []
            return first + rules.attack_checks(
                encounter,
                c,
                target,
                weapon,
                "counter" if following else spec.key,  # type: ignore[arg-type]
                cover=str(more.get("cover", "none")),
                second=str(more.get("second", "") or ""),
                subdual=bool(more.get("subdual", False)),
                flat_of_blade=bool(more.get("flat_of_blade", False)),
                gm_modifier=int(more.get("gm_modifier", 0) or 0),
                gm_edge=str(more.get("gm_edge", "none") or "none"),
            )
        if spec.key in ("defend", "cast", "cast-here"):
            checks = rules.movement_checks(encounter, c, "cast" if spec.key.startswith("cast") else spec.key)
            if spec.key == "defend" and target is not None and target.id != c.id:
                feet = encounter.distance_between(c, target)
                checks.append(Check("An ally", target.side is c.side, f"{target.name} is not on {c.name}'s side"))
                checks.append(
                    Check("Adjacent", feet is not None and feet <= 5, f"{target.name} is not next to {c.name}")
                )
            if spec.key == "cast":
                more = dict(extras or {})
                said = bool(str(more.get("spell", "") or "").strip())
                checks.append(Check("Name the spell", said, "" if said else "type it in Spell"))
                if target is None:
                    checks.append(Check("Pick a target", False, "click a creature on the map"))
                else:
                    checks += rules.spell_checks(encounter, c, target, bool(more.get("harmful", True)))
            if spec.key == "cast-here":
                said = bool(text.strip())
                checks.append(Check("Say the spell", said, "" if said else "type it above"))
                checks += rules.spell_checks(encounter, c, None, False)
            return checks
        return said_checks(spec, text)

    def notes(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: OsrCombatant,
        means: str | None,
        target: Any,
        extras: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, str]]:
        notes: list[tuple[str, str]] = []
        if spec.key in ("melee", "ranged", "charge") and target is not None and means is not None:
            try:
                weapon = c.weapon(means)
            except RulesError:
                return notes
            more = dict(extras or {})
            hit = rules.to_hit(
                encounter,
                c,
                target,
                weapon,
                spec.key,  # type: ignore[arg-type]
                cover=str(more.get("cover", "none")),
                second=str(more.get("second", "") or ""),
                ability=str(more.get("ability", "best")),
                gm_modifier=int(more.get("gm_modifier", 0) or 0),
                gm_edge=str(more.get("gm_edge", "none") or "none"),
                gm_reason=str(more.get("gm_reason", "") or ""),
            )
            chance = round(hit.chance * 100)
            how = hit.auto_hit or f"d20 {hit.terms_text()} vs {hit.ac_text()}"
            edge = f"{hit.edge_text()}; " if hit.edge_text() and not hit.auto_hit else ""
            notes.append(("To hit", f"{chance}%: {edge}{how} (natural 20 hits, natural 1 misses)"))
            if hit.critical:
                notes.append(("Critical", hit.critical))
        if spec.key in ("melee", "ranged", "charge") and c.attacks > 1:
            notes.append(reach_note(encounter, c))
        if spec.key == "ranged":
            engaged = engagement.engaged_by(
                encounter, c, rules.reach_of, lambda s, m: rules.may_counter(encounter, s, m)
            )
            if engaged:
                names = ", ".join(encounter.combatant(x).name for x in engaged)
                notes.append(("Provokes", f"shooting while engaged: counter-attack from {names}"))
        return notes

    def still_open(self, encounter: Encounter, c: OsrCombatant, kind: str | None = None) -> str:
        """A monster with several attacks: after each roll, the next until its attacks per round are made."""
        number, of = rules.attacks_left(encounter, c)
        if not number or (kind is not None and kind not in ("melee", "ranged")):
            return ""
        return f"Attack {number} of {of}"

    def opening(self, encounter: Encounter, c: OsrCombatant) -> str | None:
        return None

    def result(self, encounter: Encounter, event: Any, after: list[Any]) -> ActionResult | None:
        return results.action_result(encounter, event, after)

    def means(self, c: OsrCombatant, name: str, spell: bool = False) -> Any:
        return c.weapon(name)

    def means_names(self, c: OsrCombatant) -> tuple[str, ...]:
        return tuple(w.name for w in c.weapons)


def reach_note(encounter: Encounter, c: OsrCombatant) -> tuple[str, str]:
    """Which attack this is and who is in reach of it now (it changes as foes fall)."""
    number, of = rules.attacks_left(encounter, c)
    turn = encounter.combat.turn
    which = f"Attack {number or 1} of {of}" if number or turn is None or turn.action is None else f"{of} attacks"
    reach = c.melee_reach
    near = []
    for other in encounter.combatants:
        feet = encounter.distance_between(c, other)
        if other.side is not c.side and feet is not None and feet <= reach and not rules.attackable(other):
            near.append(f"{other.name} ({feet:g} ft)")
    where = ", ".join(near) if near else "no foe"
    return which, f"each roll at any foe in reach, with any of its weapons. In reach ({reach} ft): {where}"
