"""Capability pieces more than one ruleset shares, for a ruleset to compose (or subclass where it differs).

Each is the shared rule itself, not a placeholder: the side-by-side turn order of RULES §2
(:class:`SideTurns`), the GM saying who acts first (:class:`GmSaysRounds`), the conditions' menu and
a d20 save against a DC to end one (:class:`D20Conditions`, RULES §10), movement by feet with no
provocations (:class:`FeetMovement`), who an action strikes (:func:`attack_of_action`), no calls for
the GM (:class:`NoPrompts`) and a fight simulator's shared readings (:class:`FightsBase`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.conditions import CONDITION_TIPS, DEFAULT_MENU
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Encounter, Phase, Side, WeaponKind
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.rules.base import Table
from lnl_desktop.core.rules.common import Check, Opening, RoundOrder
from lnl_desktop.core.rules.specs import (
    BY_HAND,
    DeclareSpec,
    DurationSave,
    PromptSpec,
    Provocation,
    Reach,
    RowAction,
    SaveRoll,
    Setting,
    Situation,
    StartProcedure,
)

if TYPE_CHECKING:
    from lnl_desktop.core.rules.common import CheckSection
    from lnl_desktop.core.rules.specs import ActionResult, ActionSpec


class SideTurns:
    """Who acts next (RULES §2): with a turn order set (``combat.order``), the first place in it whose members
    still may act; otherwise the acting side's members, the first side's before the other's."""

    def waiting(self, engine: Table) -> list[Any]:
        combat = engine.encounter.combat
        if combat.turn is not None:
            return []
        if combat.order:
            for ready in order_places(engine):
                ready = [c for c in ready if engine.may_act(c)]
                if ready:
                    return ready
            return []
        side = engine.acting_side()
        return [] if side is None else [c for c in engine.encounter.side(side) if engine.may_act(c)]

    def order_refusal(self, engine: Table, c: Any) -> str | None:
        """Why it is not ``c``'s place in the order to act now (it may act later this round), or None."""
        combat = engine.encounter.combat
        if combat.order:
            ready = self.waiting(engine)
            if ready and c not in ready:
                names = ", ".join(w.name for w in ready)
                return f"{names} act{'s' if len(ready) == 1 else ''} before {c.name} in the initiative order"
            return None
        side = engine.acting_side()
        if side is not None and c.side is not side:
            return f"the {side.value} are acting now"
        return None

    def turn_refusal(self, encounter: Encounter, c: Any) -> str | None:
        """Why ``c`` takes no turn this round (besides having acted), or None."""
        if c.down:
            return f"{c.name} is down"
        if c.surprised:
            return f"{c.name} is surprised in {encounter.combat.round_phrase}"
        return None

    def acting_side(self, engine: Table) -> Side | None:
        combat = engine.encounter.combat
        if combat.phase is not Phase.FIGHTING or combat.first_side is None:
            return None
        if combat.order:
            for place in order_places(engine):
                for c in place:
                    if engine.may_act(c):
                        return c.side  # type: ignore[no-any-return]
            return None
        for side in (combat.first_side, combat.first_side.other):
            if any(engine.may_act(c) for c in engine.encounter.side(side)):
                return side
        return None

    def on_turn_start(self, engine: Table, c: Any) -> list[Event]:
        return []


def order_places(engine: Table) -> list[list[Any]]:
    """The round's order as combatants, place by place; whoever joined after the roll acts last."""
    by_id = engine.encounter.by_id()
    places = [[by_id[cid] for cid in slot.members if cid in by_id] for slot in engine.encounter.combat.order]
    listed = {c.id for place in places for c in place}
    late = [c for c in engine.encounter.combatants if c.id not in listed]
    return [*places, late] if late else places


class GmSaysRounds:
    """The start of combat and each round by the GM's word: who acts first (and who is surprised), the order kept."""

    def __init__(self, title: str) -> None:
        self.title = title

    def start_procedure(self) -> StartProcedure:
        return StartProcedure(
            question="Who acts first?",
            situations=(
                Situation(
                    BY_HAND, "The GM sets who acts first", f"{self.title} rolls no die for it: say it by hand", True
                ),
            ),
            die_label="initiative",
            reading=lambda situation, face: "",
        )

    def open_combat(self, engine: Table, action: Any, dice: DiceSource) -> Opening:
        """The GM's word, as the ``StartCombat``'s ``first_side`` and ``surprised_side`` say it."""
        first, surprised = action.first_side, action.surprised_side
        if first is None:
            raise IllegalAction("Start combat", ["say which side acts first"])
        if surprised is first:
            raise IllegalAction("Start combat", ["the side that acts first cannot be the surprised one"])
        words = first.acts_first if surprised is None else f"{surprised.value} surprised: {first.acts_first}"
        return Opening(
            situation=action.situation, first_side=first, surprised_side=surprised, text=f"Round 1 (GM): {words}"
        )

    def round_order(self, engine: Table, action: Any, dice: DiceSource) -> RoundOrder:
        """A new round keeps the order of the round before."""
        first = engine.encounter.combat.first_side or Side.PARTY
        return RoundOrder(first, None, f"the order is kept: {first.acts_first}")

    def initiative(self, face: int) -> Side:
        raise IllegalAction("Initiative", [f"{self.title} has no side initiative"])

    def declarations(self, engine: Table) -> DeclareSpec | None:
        return None

    def notes(self, engine: Table) -> tuple[str, ...]:
        return ()

    def settings(self) -> tuple[Setting, ...]:
        return ()

    def row_actions(self, engine: Table, c: Any) -> tuple[RowAction, ...]:
        return ()

    def on_round_start(self, engine: Table) -> list[Event]:
        return []

    def on_combat_start(self, engine: Table) -> None:
        return None

    def on_combat_end(self, engine: Table) -> None:
        return None


class D20Conditions:
    """The conditions' menu (RULES §1) with their tips, and a d20 against a DC at the end of each turn to end one."""

    def __init__(self, title: str, menu: tuple[str, ...] = DEFAULT_MENU) -> None:
        self.title = title
        self._menu = menu

    def menu(self) -> tuple[str, ...]:
        return self._menu

    def tip(self, condition: str) -> str:
        return CONDITION_TIPS.get(condition.strip().lower(), "")

    def duration_save(self) -> DurationSave:
        return DurationSave()

    def save_problem(self, c: Any, save: str | None, dc: int | None) -> str | None:
        """Why a save each turn naming ``save`` and ``dc`` cannot be rolled for ``c``, or None."""
        spec = self.duration_save()
        known = [value for value, _ in spec.saves]
        if save is not None and save not in known:
            offered = f" (one of {', '.join(known)})" if known else ""
            return f"{self.title} has no save {save!r}{offered}"
        if spec.needs_save and save is None:
            return f"say which save ends it ({', '.join(known)})"
        if spec.needs_dc and dc is None:
            return "give the save's DC"
        return None

    def save(
        self, encounter: Encounter, c: Any, save: str | None, dc: int | None, dice: DiceSource, purpose: str
    ) -> SaveRoll:
        face = roll_plain(dice, 20, purpose).face
        target = dc or 0
        return SaveRoll(face >= target, face, f"d20 {face} vs DC {target}")


class FeetMovement:
    """A combatant moves its Move in feet (plus what a Dash adds); no path provokes anything."""

    provocation_word = "Free attack"

    def allowance(self, engine: Table, c: Any) -> float:
        turn = engine.encounter.combat.turn
        return float(c.move_ft + (turn.extra_ft if turn is not None else 0))

    def refusal(self, engine: Table, c: Any) -> str | None:
        return None

    def terrain_free(self, engine: Table, cid: str) -> bool:
        return False

    def provocations(self, engine: Table, cid: str, path: list[tuple[int, int]]) -> list[Provocation]:
        return []

    def after_move(self, engine: Table, c: Any, path: list[tuple[int, int]], forced: bool) -> list[Event]:
        return []


def attack_of_action(encounter: Encounter, action: Any, provocation_word: str) -> tuple[str, str] | None:
    """Who attacks whom with ``action`` (attacker id, target id), read before it is applied, or None.

    An action with ``attacker`` and ``target`` (an attack), ``caster`` and a ``target`` (a spell aimed at a
    creature), or an ``index`` into ``combat.pending`` naming an item of the kind the ruleset's paths provoke."""
    target = getattr(action, "target", None)
    who = getattr(action, "attacker", None) or getattr(action, "caster", None)
    if isinstance(who, str) and isinstance(target, str) and target:
        return who, target
    from lnl_desktop.core.encounter.actions import SkipPending  # actions imports the rulesets: not at the top

    if isinstance(action, SkipPending):
        return None  # the GM passes over the attack: nobody strikes, nobody turns
    index = getattr(action, "index", None)
    pending = encounter.combat.pending
    if isinstance(index, int) and 0 <= index < len(pending):
        item = pending[index]
        if item.kind == provocation_word.lower() and item.target:
            return item.who, item.target
    return None


def said_checks(spec: ActionSpec, text: str) -> list[Any]:
    """The one check of an action the GM describes in words: that it is described."""
    if spec.uses != "text":
        return []
    said = bool(text.strip())
    return [Check("Say what the action is", said, "" if said else "type it above")]


class NoPrompts:
    """No calls for the GM beyond a pending item's own words; the dice roller's d20 and d6."""

    def prompt(self, engine: Table, item: Any) -> PromptSpec:
        return PromptSpec(item.kind.capitalize(), item.text, (), ())

    def tools(self, engine: Table) -> tuple[PromptSpec, ...]:
        return ()

    def combatant_tools(self, engine: Table, c: Any) -> tuple[PromptSpec, ...]:
        return ()

    def quick_rolls(self) -> tuple[tuple[str, str], ...]:
        return (("d20", "d20"), ("d6", "d6"))


class FightsBase:
    """A fight simulator's shared readings: out when down; the health columns read from the stat block."""

    tactic = ""
    health_columns: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()
    tells_death = False

    def out(self, c: Any) -> bool:
        return bool(c.down)

    def health(self, c: Any) -> tuple[float, ...]:
        return tuple(float(getattr(c, name.lower(), 0)) for name in self.health_columns)


def weapon_words(w: Any) -> str:
    """A weapon of the shared kinds in a token's tooltip: its label, a reach weapon's reach, a ranged one's range."""
    if w.kind is WeaponKind.REACH:
        return f"{w.label}, reach {w.reach} ft"
    if w.kind is WeaponKind.RANGED and w.max_range_ft:
        return f"{w.label}, range {w.max_range_ft} ft"
    return str(w.label)


def weapons_reach(weapons: Sequence[Any], too_close_ft: int = 0) -> Reach:
    """The reach of a stat block's weapons of the shared kinds (melee, reach, ranged): the longest reach,
    the longest range when every ranged weapon has one, and the ruleset's ranged minimum."""
    longest = max((w.reach for w in weapons if w.kind is WeaponKind.REACH), default=0)
    ranged = [w for w in weapons if w.kind is WeaponKind.RANGED]
    limits = [w.max_range_ft for w in ranged]
    limit = max(limits) if ranged and all(r is not None for r in limits) else None
    return Reach(longest, too_close_ft if ranged else 0, limit, bool(ranged))


class NoActions:
    """A ruleset whose turns take no action of its own: only the shared ones (move, face, an action said in words)."""

    handlers: Mapping[type, Any] = MappingProxyType({})
    hooks_with_extras: frozenset[str] = frozenset()

    def kinds(self) -> tuple[ActionSpec, ...]:
        return ()

    def available(self, spec: ActionSpec, c: Any) -> tuple[bool, str]:
        return True, ""

    def choices(self, spec: ActionSpec, c: Any) -> list[tuple[str, str, str]]:
        return []

    def checks(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: Any,
        means: str | None,
        text: str,
        target: Any = None,
        extras: Mapping[str, Any] | None = None,
    ) -> list[Any]:
        return said_checks(spec, text)

    def notes(
        self,
        encounter: Encounter,
        spec: ActionSpec,
        c: Any,
        means: str | None,
        target: Any,
        extras: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, str]]:
        return []

    def still_open(self, encounter: Encounter, c: Any, kind: str | None = None) -> str:
        return ""

    def opening(self, encounter: Encounter, c: Any) -> str | None:
        return None

    def result(self, encounter: Encounter, event: Any, after: list[Any]) -> ActionResult | None:
        return None

    def means(self, c: Any, name: str, spell: bool = False) -> Any:
        return None

    def means_names(self, c: Any) -> tuple[str, ...]:
        return ()


class PlainAttacks:
    """Attacks with no checks, sections or forecast of their own: who strikes whom is read from the action."""

    checks_modes = False

    def __init__(self, provocation_word: str = FeetMovement.provocation_word) -> None:
        self.provocation_word = provocation_word

    def attack_of(self, encounter: Encounter, action: Any) -> tuple[str, str] | None:
        return attack_of_action(encounter, action, self.provocation_word)

    def checks(self, encounter: Encounter, attacker: Any, target: Any, means: Any, mode: Any) -> list[Any]:
        return []

    def concealment(self, encounter: Encounter, attacker: Any, target: Any) -> list[Any]:
        return []

    def sections(self, encounter: Encounter, attacker: Any, target: Any, means: Any) -> tuple[CheckSection, ...]:
        return ()

    def forecast(self, attacker: Any, target: Any, means: Any, mode: Any, options: Any, **context: Any) -> Any:
        return None


class NoDamageByHand:
    """A ruleset with no damage or healing by hand: the GM's Damage / Heal is refused in its words."""

    def __init__(self, title: str) -> None:
        self.title = title

    def kinds(self, heal: bool) -> tuple[tuple[str, str], ...]:
        return ()

    def fields(self) -> Mapping[str, str]:
        return {}

    def by_hand(self, engine: Table, c: Any, amount: int, heal: bool, kind: str) -> list[Event]:
        raise IllegalAction(f"{'Heal' if heal else 'Damage'} {c.name}", [f"{self.title} has no damage by hand"])


def refuse_unknown_rest(title: str, kind: str, kinds: Sequence[tuple[str, str]]) -> None:
    """RulesError naming the rests ``title`` has, when ``kind`` is none of them (a rest capability's check)."""
    if kind not in dict(kinds):
        known = ", ".join(f"{key} ({words})" for key, words in kinds)
        raise RulesError(f"{title} has no rest {kind!r}: its rests are {known}")
