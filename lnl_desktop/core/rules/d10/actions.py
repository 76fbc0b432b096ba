"""Group d10's actions of a turn (RULES §13): what the Action dock offers with the action's own inputs
(an edge, cover, a called shot, what a natural 20 does), whether a combatant can take one, its checks
(the declaration among them) and notes, the action declared for the round, and the result shown."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.model import Encounter, Phase
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.rules.base import Handler
from lnl_desktop.core.rules.common import Check
from lnl_desktop.core.rules.d10 import model, play, results, rules, timers
from lnl_desktop.core.rules.d10.model import D10Combatant, D10Weapon
from lnl_desktop.core.rules.shared import said_checks
from lnl_desktop.core.rules.specs import ActionResult, ActionSpec, Setting

NONE, PARTY, OPPONENTS, STUMBLED = "no surprise", "Party ambushes", "Opponents ambush", "both stumbled"

EDGE = Setting(
    "gm_edge",
    "GM edge",
    "Advantage (2d20, the higher), cinematic advantage (3d20, the highest) or disadvantage "
    "(2d20, the lower) the GM gives; say why below. Advantage and disadvantage cancel",
    "choice",
    "none",
    choices=model.EDGE,
)
REASON = Setting("gm_reason", "Why", "The reason for the GM's edge, for the log (flanking, high ground…)", "text", "")
COVER = Setting("cover", "Cover", "The target is under cover: disadvantage", "bool", False)
CALLED = Setting("called_shot", "Called shot", "Aiming at a spot: disadvantage", "bool", False)
EXTREME = Setting(
    "extreme_range", "Extreme range", "An extreme long-range shot (the GM's call): disadvantage", "bool", False
)
SUBDUAL = Setting(
    "subdual", "Subdual", "Not to kill: disadvantage; no lasting wound at 1 HP, unconscious at 0", "bool", False
)
ON_20 = Setting(
    "on_20",
    "On a 20",
    "A natural 20 always hits: double damage, or instead disarm, knock prone (normal damage) or grapple (no damage)",
    "choice",
    model.ON_20[0],
    choices=model.ON_20,
)
IGNORES_DR = Setting(
    "ignores_dr",
    "Ignores DR",
    "A weapon or spell that disregards armor (its listing says so): the target's DR is not taken off",
    "bool",
    False,
)
PICK_UP = Setting(
    "pick_up",
    "Pick up",
    "A dropped weapon taken up again (after a disarm): it can strike with it from its next attack",
    "means",
    "",
    optional=True,
)
OVERRIDE = "GM override: act against the declaration"


def _attack(skill: str) -> Any:
    def build(
        c: str,
        target: str,
        means: str,
        *,
        ignore_dex: bool = False,
        override: bool = False,
        gm_edge: str = "none",
        gm_reason: str = "",
        cover: bool = False,
        called_shot: bool = False,
        extreme_range: bool = False,
        subdual: bool = False,
        on_20: str = model.ON_20[0],
        ignores_dr: bool = False,
    ) -> model.D10Attack:
        return model.D10Attack(
            c,
            target,
            means,
            skill,
            gm_edge,
            gm_reason,
            cover,
            called_shot,
            extreme_range,
            subdual,
            on_20,
            override,
            ignores_dr,
        )

    return build


def _disengage(c: str, target: str, means: str, *, ignore_dex: bool = False, override: bool = False) -> model.Disengage:
    return model.Disengage(c, target, means, override)


class D10Actions:
    """The Action dock's actions and the engine's handlers of them."""

    # The engine's handler of each of Group d10's own actions (play.py).
    handlers: Mapping[type, Handler] = {
        model.Declare: play.declare,
        model.D10Attack: play.attack,
        model.FreeAttack: play.free_attack,
        model.ParryDodge: play.parry,
        model.Disengage: play.disengage,
        model.UseItem: play.use_item,
        model.Sprint: play.sprint,
        model.Stealth: play.stealth,
        model.Grapple: play.grapple,
        model.BreakFree: play.break_free,
        model.LetGo: play.let_go,
        model.StandUp: play.stand_up,
        model.SavingThrow: play.saving_throw,
        model.Mishap: play.mishap,
        model.OpposedRoll: play.opposed,
        model.SetTimer: timers.set_timer,
        model.TimerNoted: timers.timer_noted,
    }
    # Its checks hear the declared action's override and the action's inputs (an item picked up, an edge).
    hooks_with_extras: frozenset[str] = frozenset({"action_checks", "action_notes"})

    def kinds(self) -> tuple[ActionSpec, ...]:
        extras = (EDGE, REASON, COVER, CALLED, SUBDUAL, ON_20, IGNORES_DR)
        return (
            ActionSpec(
                "attack",
                "Attack",
                "d20 + melee or ranged against Defense; the move may come before or after",
                "weapon",
                _attack(""),
                targeted=True,
                mode="weapon attack",
                button="Roll the attack",
                rolls=True,
                extras=(*extras[:4], EXTREME, *extras[4:]),
                gm_override=True,
                override_label=OVERRIDE,
            ),
            ActionSpec(
                "cast",
                "Spell attack",
                "d20 + casting against Defense (spells never use weapon tiers)",
                "weapon",
                _attack("casting"),
                targeted=True,
                mode="spell attack",
                button="Roll the spell",
                rolls=True,
                extras=(EDGE, REASON, COVER, ON_20, IGNORES_DR),
                gm_override=True,
                override_label=OVERRIDE,
            ),
            ActionSpec(
                "grapple",
                "Grapple",
                "In place of the attack, no damage: d20 + feats of strength each; the higher grapples (Move 0)",
                "none",
                lambda c, target, means=None, *, ignore_dex=False, override=False: model.Grapple(c, target, override),
                targeted=True,
                button="Roll the grapple",
                rolls=True,
                gm_override=True,
                override_label=OVERRIDE,
            ),
            ActionSpec(
                "break free",
                "Break free",
                "Its attack: d20 + feats of strength against its grappler's; the higher breaks free",
                "none",
                lambda c, override=False: model.BreakFree(c, override),
                button="Roll to break free",
                rolls=True,
                gm_override=True,
                override_label=OVERRIDE,
            ),
            ActionSpec(
                "stand up",
                "Stand up",
                "A prone creature gets up: it takes its move this turn, its attack still free (tripped: its "
                "lost attack, the move stays)",
                "none",
                lambda c: model.StandUp(c),
                button="Stand up",
            ),
            ActionSpec(
                "parry",
                "Parry / dodge",
                "Uses the attack and the move: to-hit rolls against it at disadvantage until its next action",
                "none",
                lambda c, override=False: model.ParryDodge(c, override),
                button="Parry / dodge",
                gm_override=True,
                override_label=OVERRIDE,
            ),
            ActionSpec(
                "disengage",
                "Disengage",
                "A to-hit roll against the foe: success, it moves freely and no foe gets a free attack",
                "weapon",
                _disengage,
                targeted=True,
                button="Roll to disengage",
                rolls=True,
                gm_override=True,
                override_label=OVERRIDE,
            ),
            ActionSpec(
                "item",
                "Use / ready an item",
                "Replaces the attack; the move is still free",
                "text",
                lambda c, text, override=False, pick_up="": model.UseItem(c, text, override, pick_up or ""),
                button="Use it",
                extras=(PICK_UP,),
                gm_override=True,
                override_label=OVERRIDE,
            ),
            ActionSpec(
                "sprint",
                "Sprint / flee",
                "Uses the attack and the move: up to twice the Move; leaving an adjacent foe gives it a free attack",
                "none",
                lambda c, override=False: model.Sprint(c, override),
                button="Sprint",
                gm_override=True,
                override_label=OVERRIDE,
            ),
            ActionSpec(
                "stealth",
                "Stealth",
                "Replaces the attack: d20 + stealth against d20 + the best perception of the foes who could see "
                "it; higher, it is hidden: its next attack on an unsuspecting foe has advantage. The move stays free",
                "none",
                lambda c, override=False: model.Stealth(c, override),
                button="Roll Stealth",
                rolls=True,
                gm_override=True,
                override_label=OVERRIDE,
            ),
            ActionSpec(
                "other",
                "Something else…",
                "In words, for the log",
                "text",
                lambda c, text: act.OtherAction(c, text),
                button="Take this action",
            ),
        )

    def choices(self, spec: ActionSpec, c: D10Combatant) -> list[tuple[str, str, str]]:
        if spec.uses != "weapon":
            return []
        return [(w.name, w.label, f"{w.name} is dropped: pick it up first" if w.dropped else "") for w in c.weapons]

    def available(self, spec: ActionSpec, c: D10Combatant) -> tuple[bool, str]:
        if spec.uses == "weapon" and not c.weapons:
            return False, f"{c.name} has no weapon"
        if spec.key == "stand up" and not c.prone:
            return False, f"{c.name} is not prone"
        if spec.key == "break free" and not c.has("grappled"):
            return False, f"{c.name} is not grappled"
        return True, ""

    def checks(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: D10Combatant,
        means: str | None,
        text: str,
        target: Any = None,
        extras: Mapping[str, Any] | None = None,
    ) -> list[Any]:
        """The Action dock's checks for a Group d10 action, the declaration among them; something else,
        in words, only needs saying."""
        keys = model.AS_DECLARED.get(spec.key, (spec.key,))
        override = bool((extras or {}).get("override", False))
        checks: list[Check] = []
        if spec.key in ("attack", "cast", "disengage"):
            if target is None or means is None:
                return [Check("Pick a target", False, "click a foe on the map")]
            try:
                weapon = c.weapon(means)
            except RulesError as error:
                return [Check("The weapon", False, str(error))]
            skill = "casting" if spec.key == "cast" else weapon.skill
            checks += rules.turn_attack_checks(encounter, c)
            checks += rules.attack_checks(encounter, c, target, weapon, skill)
        elif spec.key == "parry":
            turn = encounter.combat.turn
            moved = turn.feet_used if turn is not None and turn.combatant == c.id else 0
            checks.append(Check("Not moved yet", not moved, f"moved {moved:g} ft; Parry / dodge uses the move too"))
        elif spec.key == "grapple":
            if target is None:
                return [Check("Pick a target", False, "click a foe on the map")]
            checks += rules.turn_attack_checks(encounter, c)
            checks += rules.grapple_checks(encounter, c, target)
            strength = f"{c.name} {c.strength:+d} against {target.name} {target.strength:+d} feats of strength"
            checks.append(Check("Opposed roll", True, strength))
        elif spec.key == "break free":
            checks += rules.turn_attack_checks(encounter, c)
            holder = c.holder
            if not c.has("grappled"):
                checks.append(Check("Grappled", False, f"{c.name} is not grappled"))
            elif holder is None or holder not in encounter.by_id():
                checks.append(Check("Its grappler", False, f"nobody holds {c.name} in the app: remove “grappled”"))
            else:
                g = encounter.by_id()[holder]
                words = f"held by {g.name}: {c.name} {c.strength:+d} against {g.strength:+d} feats of strength"
                checks.append(Check("Grappled", True, words))
        elif spec.key == "stand up":
            return rules.stand_checks(encounter, c)
        elif spec.key == "item":
            pick_up = str((extras or {}).get("pick_up") or "")
            checks += rules.item_checks(c, text, pick_up)
            keys = model.PICK_UP_DECLARED if pick_up else keys
        elif spec.key == "other":
            return said_checks(spec, text)
        return checks + rules.declaration_check(encounter, c, keys, override)

    def notes(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: D10Combatant,
        means: str | None,
        target: Any,
        extras: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, str]]:
        notes: list[tuple[str, str]] = []
        if spec.key in ("attack", "cast", "disengage") and target is not None and means is not None:
            try:
                weapon = c.weapon(means)
            except RulesError:
                return notes
            more = dict(extras or {})
            edge = rules.edge_of(
                encounter,
                c,
                target,
                gm_edge=str(more.get("gm_edge", "none")),
                gm_reason=str(more.get("gm_reason", "")),
                cover=bool(more.get("cover", False)),
                called_shot=bool(more.get("called_shot", False)),
                extreme_range=bool(more.get("extreme_range", False)),
                subdual=bool(more.get("subdual", False)),
            )
            skill = "casting" if spec.key == "cast" else weapon.skill
            hit = rules.to_hit(encounter, c, target, skill, edge)
            from lnl_desktop.core.rules.d10.odds import hit_chance

            chance = round(hit_chance(hit) * 100)
            notes.append(("To hit", f"{chance}%: {edge.words()}; d20 {hit.terms()} vs Defense {hit.defense}"))
            if target.minion:
                notes.append(("Minion", f"{target.name} dies on any hit"))
        declared = encounter.combat.declared.get(c.id)  # type: ignore[attr-defined]
        if declared and encounter.combat.phase is Phase.FIGHTING:
            notes.append(("Declared", model.DECLARED_LABEL.get(declared, declared)))
        return notes

    def still_open(self, encounter: Encounter, c: D10Combatant, kind: str | None = None) -> str:
        return ""

    def opening(self, encounter: Encounter, c: D10Combatant) -> str | None:
        """The action declared for this round: acting otherwise needs a GM override."""
        declared: str | None = encounter.combat.declared.get(c.id)  # type: ignore[attr-defined]
        return declared if declared in {spec.key for spec in self.kinds()} else None

    def result(self, encounter: Encounter, event: Any, after: list[Any]) -> ActionResult | None:
        return results.action_result(encounter, event, after)

    def means(self, c: D10Combatant, name: str, spell: bool = False) -> D10Weapon:
        return c.weapon(name)

    def means_names(self, c: D10Combatant) -> tuple[str, ...]:
        return tuple(w.name for w in c.weapons)
