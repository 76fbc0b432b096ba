"""The engine: the only way an encounter changes.

Each action is checked against the ruleset first (an illegal one is refused with all its
reasons and changes nothing), then applied; it returns the events it produced, which go into
the encounter's log. Every applied action can be undone back to the exact previous state and
redone with the very same dice. An action's cost and its undo record follow what it changed, not
the size of the encounter, and :attr:`Engine.touched` tells views which combatants and tokens each
change touched, so they can redraw just those.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from lnl_desktop.core.dice.rolls import DiceSource, RandomDice, RecordingDice, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import (
    Event,
    RulesetChanged,
    Undone,
)
from lnl_desktop.core.encounter.map_model import Token
from lnl_desktop.core.encounter.model import CombatantBase, Encounter, Phase, Side, TurnState
from lnl_desktop.core.engine import conditions, movement, rounds
from lnl_desktop.core.engine.areas import HANDLERS as AREA_HANDLERS
from lnl_desktop.core.engine.dice_rolls import roll_dice
from lnl_desktop.core.engine.drawings import HANDLERS as DRAWING_HANDLERS
from lnl_desktop.core.engine.edits import HANDLERS as EDIT_HANDLERS
from lnl_desktop.core.engine.edits import WRITES as EDIT_WRITES
from lnl_desktop.core.engine.history import (
    _SHARED_PARTS,
    HistoryListener,
    HistoryStep,
    Touched,
    Writes,
    _Change,
    _Record,
    _Shadow,
    _share_field_sets,
    _Swap,
    _touched,
)
from lnl_desktop.core.engine.lights import HANDLERS as LIGHT_HANDLERS
from lnl_desktop.core.engine.movement import HANDLERS as MOVEMENT_HANDLERS
from lnl_desktop.core.engine.movement import WRITES as MOVEMENT_WRITES
from lnl_desktop.core.engine.occupancy import Occupancy
from lnl_desktop.core.engine.party import HANDLERS as PARTY_HANDLERS
from lnl_desktop.core.engine.party_view import party_sight, players_unseen
from lnl_desktop.core.engine.rounds import HANDLERS as ROUND_HANDLERS
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.map.explored import explore
from lnl_desktop.core.map.explored import prepare as prepare_explore
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.map.movement import MoveRules, Reach
from lnl_desktop.core.map.sight_index import warm_heap
from lnl_desktop.core.map.terrain import map_terrain
from lnl_desktop.core.rules.base import Ruleset
from lnl_desktop.core.rules.common import AttackMeans, Check, failed
from lnl_desktop.core.rules.registry import DEFAULT_RULESET, get_ruleset

Listener = Callable[[list[Event]], None]
# The actions an undo can go back through. Older ones drop off (their records only: the round log
# keeps every event), or a long fight's undo history would grow for ever (about 800 bytes an
# action, 30 MB over 1,000 rounds of the demo). The window's undo stack keeps fewer commands (a
# command may hold several actions), so it never asks for one dropped here.
UNDO_LIMIT = 2000
# Actions whose handler reads the occupancy index once, before it changes anything.
_READS_FIRST = frozenset({act.Move, act.PlaceToken})


def convert_ruleset(engine: Engine, a: act.ConvertRuleset, dice: DiceSource) -> list[Event]:
    """A setup-phase encounter as another ruleset's: the shared fields kept, the rest mapped or defaulted."""
    from lnl_desktop.core.rules.convert import convert_encounter

    old = engine.encounter
    title = f"Convert to {a.ruleset}"
    if old.combat.phase is not Phase.SETUP:
        raise IllegalAction(title, ["only an encounter before combat can change its ruleset"])
    if a.ruleset == old.ruleset:
        raise IllegalAction(title, [f"the encounter already uses {engine.ruleset.title}"])
    try:
        target = get_ruleset(a.ruleset)
    except RulesError as error:
        raise IllegalAction(title, [str(error)]) from None
    new, notes = convert_encounter(old, target)
    if new.party_links:
        # The party roster is kept per ruleset: a converted character is no longer its roster's.
        count = len(new.party_links)
        notes.append(f"{count} party roster link{'' if count == 1 else 's'} dropped (a roster is per ruleset)")
        new.party_links = {}
    source = engine.ruleset
    engine._set_encounter(new)
    lost = f": {'; '.join(notes)}" if notes else ", nothing dropped"
    return [
        RulesetChanged(
            round=0,
            text=f"Ruleset: {source.title} → {target.title}{lost}",
            old=source.name,
            new=target.name,
            notes=notes,
        )
    ]


def _writes_of(touched: Touched) -> Writes:
    """The shadow's roots under what a change touched (None: anywhere)."""
    if touched.combatants is None or touched.tokens is None:
        return None
    return frozenset(
        [
            *(("combatants", cid) for cid in touched.combatants),
            *(("tokens", cid) for cid in touched.tokens),
            *((part,) for part in touched.parts),
        ]
    )


class Engine:
    """Applies actions to one :class:`Encounter`, keeps its undo history, tells listeners."""

    def __init__(
        self,
        encounter: Encounter | None = None,
        dice: DiceSource | None = None,
        ruleset: Ruleset | None = None,
    ) -> None:
        self.encounter = encounter if encounter is not None else get_ruleset(DEFAULT_RULESET).new_encounter()
        self.dice: DiceSource = dice if dice is not None else RandomDice()
        self.ruleset: Ruleset = ruleset or get_ruleset(self.encounter.ruleset)
        if self.ruleset.name != self.encounter.ruleset:
            raise RulesError(f"ruleset: the encounter is for {self.encounter.ruleset!r}, not {self.ruleset.name!r}")
        map_terrain(self.encounter.map)
        self._undo: list[_Record] = []
        self._redo: list[_Record] = []
        self.undo_limit = UNDO_LIMIT
        self._listeners: list[Listener] = []
        self._history_listeners: list[HistoryListener] = []
        # The encounter as the engine last left it, to find out what an action changes (see _Shadow).
        self._shadow: _Shadow | None = None
        self.touched = Touched(0)  # what the last change touched, for views that redraw only that
        self._occupancy = Occupancy(self.encounter)  # who covers each cell, kept up to date per change
        # Between actions the index may be read at will ("kept"); mid-action only once, by a handler
        # that asks before it changes anything ("once"), and never after that ("stale").
        self._occupancy_reads = "kept"

    # -- history and listeners ---------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def subscribe_history(self, listener: HistoryListener) -> None:
        """Be told of every apply, undo and redo before the event listeners are (a journal)."""
        self._history_listeners.append(listener)

    def _tell_history(self, step: HistoryStep) -> None:
        for listener in list(self._history_listeners):
            listener(step)

    def _tell(self, events: list[Event]) -> None:
        for listener in list(self._listeners):
            listener(events)

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    @property
    def undo_text(self) -> str:
        return self._undo[-1].summary if self._undo else ""

    @property
    def redo_text(self) -> str:
        return self._redo[-1].summary if self._redo else ""

    def _set_encounter(self, encounter: Encounter) -> None:
        if encounter.ruleset != self.ruleset.name:
            self.ruleset = get_ruleset(encounter.ruleset)
        self.encounter = encounter
        map_terrain(encounter.map)  # the map's cached terrain with its wall segments and closed doors

    def replace(self, encounter: Encounter) -> None:
        """Start over on another encounter (New, Open, recovery): its ruleset, a fresh history."""
        self._set_encounter(encounter)
        self.clear_history()
        self._set_touched(Touched(self.touched.step + 1))

    def _set_touched(self, touched: Touched) -> None:
        self.touched = touched
        self._occupancy.note(touched)

    def occupancy(self) -> Occupancy | None:
        """Who covers each cell as the encounter is now, or None mid-action once the action may
        have changed it (then read it afresh: :func:`occupancy.rebuilt_blockers`)."""
        reads = self._occupancy_reads
        if reads == "stale":
            return None
        if reads == "once":
            self._occupancy_reads = "stale"
        return self._occupancy.current(self.encounter)

    def _shadow_of(self, encounter: Encounter) -> _Shadow:
        shadow = self._shadow
        if shadow is None or not shadow.holds(encounter):
            shadow = self._shadow = _Shadow(encounter)
        return shadow

    def prepare_undo(self) -> None:
        """Make the undo shadow of the encounter now (at an idle moment), not at the first action: on a
        map with hundreds of tokens that is tens of milliseconds the GM's first move would wait for."""
        self._shadow_of(self.encounter)

    def prepare(self) -> None:
        """At an idle moment once a table is shown: what its first action would otherwise wait for,
        the undo shadow (:meth:`prepare_undo`), the heap for a map's big arrays (``sight_index.warm_heap``)
        and, with fog of war on, what the Party sees now and the explored cells' mask (``explored.prepare``:
        a file's tens of thousands of cells)."""
        self.prepare_undo()
        warm_heap()  # a map's big arrays (sight, reach) from the heap, not fresh mappings: the first move's view
        fog = self.encounter.fog
        if fog.enabled:
            party_sight(self.encounter)
            prepare_explore(fog.explored, self.encounter.map.width, self.encounter.map.height)

    def clear_history(self) -> None:
        self._undo.clear()
        self._redo.clear()

    def apply(self, action: act.Action, dice: DiceSource | None = None) -> list[Event]:
        """Check and apply one action; return its events. Refused actions change nothing."""
        events = self._apply(action, dice)
        self._redo.clear()
        self._tell_history(HistoryStep("apply", action, self._undo[-1].faces))
        self._tell(events)
        return events

    def _apply(self, action: act.Action, dice: DiceSource | None) -> list[Event]:
        handler = self._handlers.get(type(action)) or self.ruleset.actions.handlers.get(type(action))
        if handler is None:
            raise IllegalAction(
                type(action).__name__, [f"{self.ruleset.title} has no such action ({type(action).__name__})"]
            )
        recorder = RecordingDice(dice if dice is not None else self.dice)
        old = self.encounter
        # Where the action may write: the undo shadow compares only there (a ruleset's handlers declare nothing).
        declared = self._writes.get(type(action)) if handler is self._handlers.get(type(action)) else None
        writes: Writes = declared(action) if declared is not None else None
        shadow = self._shadow_of(old)
        shared = {name: old.__dict__[name] for name in _SHARED_PARTS}
        fields_set = set(old.__pydantic_fields_set__)
        log_length = len(old.log)
        try:
            # Read before the handler runs: taking a counter-attack takes it off the pending queue.
            attack = self.ruleset.attacks.attack_of(old, action) if old.options.face_target_on_attack else None
            # A move or a placing reads who stands where before it changes anything; any other
            # handler, and anything after that first read, works it out afresh.
            first = handler is self._handlers.get(type(action)) and type(action) in _READS_FIRST
            self._occupancy_reads = "once" if first else "stale"
            try:
                events = handler(self, action, recorder)
            finally:
                self._occupancy_reads = "kept"
            if attack is not None:
                events = movement.face_target(self, events, *attack)
                writes = None if writes is None else writes | {("tokens", attack[0])}
            if self.encounter.fog.enabled and self._sight_may_grow(action):
                self._explore()
                writes = None if writes is None else writes | {("fog",)}
        except Exception:
            # Handlers check before they change, but a half-applied action must never remain.
            shadow.change(shared, fields_set, log_length).restore(old)
            shadow.follow()
            self._set_encounter(old)
            raise
        change: _Change | _Swap
        if self.encounter is old:
            change = shadow.change(shared, fields_set, log_length, writes)
        else:
            change = _Swap(old, log_length)
            self._shadow = None
        self._set_touched(_touched(self.touched.step + 1, change, self.encounter))
        _share_field_sets(events)
        self.encounter.log.extend(events)
        summary = events[0].text if events else type(action).__name__
        self._undo.append(_Record(action, change, tuple(recorder.faces), summary))
        if len(self._undo) > self.undo_limit:
            del self._undo[: len(self._undo) - self.undo_limit]
        return events

    def undo(self) -> list[Event]:
        """Put the encounter back exactly as it was before the last action."""
        if not self._undo:
            raise RulesError("there is nothing to undo")
        record = self._undo.pop()
        change = record.change
        assert change is not None
        log = self.encounter.log
        # Earlier undos after this point stay in the log: every undo is part of the story.
        kept = [e for e in log[change.log_length :] if isinstance(e, Undone)]
        touched = _touched(self.touched.step + 1, change, self.encounter)  # before: paths lead through it
        self._set_touched(touched)
        if isinstance(change, _Swap):
            self._set_encounter(change.old)
            del change.old.log[change.log_length :]
        else:
            change.restore(self.encounter)
            if self._shadow is not None and self._shadow.encounter is self.encounter:
                self._shadow.follow(_writes_of(touched))  # the undo wrote back where the action wrote
        log = self.encounter.log
        record.change = None  # spent: the values it kept are the encounter's own now
        log.extend(kept)
        self._redo.append(record)
        event = Undone(round=self._round(), text=f"Undone: {record.summary}", undone=record.summary)
        self.encounter.log.append(event)
        self._tell_history(HistoryStep("undo"))
        self._tell([event])
        return [event]

    def redo(self) -> list[Event]:
        """Apply the last undone action again, with the very same dice faces."""
        if not self._redo:
            raise RulesError("there is nothing to redo")
        record = self._redo.pop()
        try:
            events = self._apply(record.action, ScriptedDice(record.faces))
        except RulesError:
            self._redo.append(record)
            raise
        self._tell_history(HistoryStep("redo", record.action, record.faces))
        self._tell(events)
        return events

    # -- queries -----------------------------------------------------------------------------

    def combatant(self, cid: str) -> Any:
        """The combatant ``cid``: an instance of the encounter's ruleset's stat block."""
        return self.encounter.combatant(cid)

    def may_act(self, c: CombatantBase) -> bool:
        """Whether ``c`` still gets a turn this round."""
        combat = self.encounter.combat
        if combat.phase is not Phase.FIGHTING or c.id in combat.acted:
            return False
        return self.ruleset.turns.turn_refusal(self.encounter, c) is None

    def acting_side(self) -> Side | None:
        """The side whose members pick turns now (by default the first side until it is done, then the other)."""
        return self.ruleset.turns.acting_side(self)

    def waiting(self) -> list[Any]:
        """Who may take the next turn: the acting side's members who have not acted, or the next
        place of the round's initiative order where the ruleset sets one."""
        return self.ruleset.turns.waiting(self)

    @property
    def elapsed_seconds(self) -> int:
        """Time the finished rounds took, by the ruleset's round length (:attr:`Ruleset.round_seconds`)."""
        combat = self.encounter.combat
        return max(0, combat.round - combat.first_round) * self.ruleset.round_seconds

    @property
    def round_over(self) -> bool:
        combat = self.encounter.combat
        return combat.phase is Phase.FIGHTING and combat.turn is None and self.acting_side() is None

    def means(self, c: Any, name: str, spell: bool = False) -> AttackMeans:
        return self.ruleset.actions.means(c, name, spell)

    def casts(self, mode: str) -> bool:
        """Whether the ruleset's attack mode ``mode`` is cast with a spell (its action ``uses`` one)."""
        return any(spec.mode == mode and spec.uses == "spell" for spec in self.ruleset.actions.kinds())

    def attack_checks(self, attacker: str, target: str, means: str, mode: str = "attack") -> list[Check]:
        """Every condition of the attack with its reason: the turn, the weapon, the distance. ``mode`` is
        the word of the ruleset's attack mode (an :attr:`ActionSpec.mode`), read by its attacks capability."""
        a, t = self.combatant(attacker), self.combatant(target)
        weapon = self.means(a, means, spell=self.casts(mode))
        checks = self.turn_checks(a, needs_action=True)
        checks += self.ruleset.attacks.checks(self.encounter, a, t, weapon, mode)
        return checks

    def concealment_details(self, attacker: str, target: str) -> list[Check]:
        """How the attacker may count as concealed or the target as distracted, point by point."""
        return self.ruleset.attacks.concealment(self.encounter, self.combatant(attacker), self.combatant(target))

    def turn_checks(self, c: CombatantBase, needs_action: bool, kind: str | None = None) -> list[Check]:
        """Whether it is ``c``'s turn and, if asked, whether its action is still unused (or, as the
        ruleset says, still open to another action of ``kind``: the next of several attacks)."""
        combat = self.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return [Check("Combat under way", False, "combat has not started")]
        turn = combat.turn
        checks = [
            Check(
                f"{c.name}'s turn",
                turn is not None and turn.combatant == c.id,
                "no turn is under way" if turn is None else f"it is {self.combatant(turn.combatant).name}'s turn",
            )
        ]
        if needs_action and turn is not None and turn.combatant == c.id and c.incapacitated_by is not None:
            # RULES §10: its turn offers only End turn, saying why.
            checks.append(Check("Able to act", False, f"{c.name} is {c.incapacitated_by}: only End turn"))
        if needs_action and turn is not None and turn.combatant == c.id:
            more = self.ruleset.actions.still_open(self.encounter, c, kind) if turn.action else ""
            checks.append(
                Check(
                    more or "Action not used yet",
                    turn.action is None or bool(more),
                    f"already took its action ({turn.action})" if turn.action and not more else "",
                )
            )
        return checks

    # -- helpers -----------------------------------------------------------------------------

    def _token(self, cid: str) -> Token:
        return movement.token_of(self, cid)

    # -- the map's questions, asked of movement (the UI's move overlays and drags) --------------

    def feet_left(self, cid: str) -> float | None:
        """Movement left this turn, or None when it is not this combatant's turn."""
        return movement.feet_left(self, cid)

    def stopped_by(self, c: Any) -> str | None:
        """Why ``c`` may not move on its own (RULES §10: stunned, grappled...), or None."""
        return movement.stopped_by(self, c)

    def move_rules(self, cid: str) -> MoveRules:
        return movement.move_rules(self, cid)

    def blockers(self, cid: str) -> tuple[frozenset[Cell], frozenset[Cell]]:
        """(enemy cells that cannot be passed, every other token's cells that cannot be ended on)."""
        return movement.blockers(self, cid)

    def reach(self, cid: str, budget_ft: float | None = None, allowed: Callable[[Cell], bool] | None = None) -> Reach:
        """The cells ``cid`` can still move to this turn (or within ``budget_ft``)."""
        return movement.reach(self, cid, budget_ft, allowed)

    def _round(self) -> int:
        return self.encounter.combat.round

    def require(self, action: str, checks: list[Check]) -> None:
        """Refuse ``action`` with the reasons of the checks that block, if any do."""
        reasons = failed(checks)
        if reasons:
            raise IllegalAction(action, reasons)

    def use_action(self, c: CombatantBase, kind: str, detail: str = "") -> TurnState:
        """Spend ``c``'s action of this turn on ``kind``; refused if it is not ``c``'s turn or the action is used."""
        self.require(f"{c.name}: {kind}", self.turn_checks(c, needs_action=True, kind=kind))
        turn = self.encounter.combat.turn
        assert turn is not None
        turn.action = kind
        turn.action_detail = detail
        return turn

    # -- the round ---------------------------------------------------------------------------

    def turn_refusals(self, cid: str) -> list[str]:
        """Why ``cid`` may not begin a turn now, in the words a refused ``BeginTurn`` gives (empty
        when it may)."""
        return rounds.turn_refusals(self, cid)

    def turn_state(self, cid: str) -> str:
        """``cid``'s state this round: "waiting", "acting now", "acted", "surprised", "down" (the
        ruleset skips its turns), or "" outside a fight."""
        e = self.encounter
        c = self.combatant(cid)
        combat = e.combat
        if combat.phase is not Phase.FIGHTING:
            return ""
        if combat.turn is not None and combat.turn.combatant == c.id:
            return "acting now"
        if c.down and self.ruleset.turns.turn_refusal(e, c) is not None:
            return "down"
        if c.id in combat.acted:
            return "acted"
        if c.surprised:
            return "surprised"
        return "waiting"

    # -- what the Party sees ------------------------------------------------------------------

    def _sight_may_grow(self, action: act.Action) -> bool:
        """Whether the action may let the Party see cells it did not: a Party token placed, moved,
        turned or shown to the players, a door opened, a wall taken away, fog turned on..."""
        if isinstance(action, act.SetFog | act.RemoveWall | act.EditMap | act.ConvertRuleset):
            return True
        if isinstance(action, act.SetDoor):
            return action.open
        if isinstance(action, act.SetHidden):
            return not action.hidden and self._is_party(action.combatant)
        if isinstance(action, act.Move | act.PlaceToken | act.Face | act.EditCombatant):
            return self._is_party(action.combatant)
        if isinstance(action, act.AddCombatant):
            return action.cell is not None
        return False

    def players_unseen(self) -> frozenset[str]:
        """:func:`party_view.players_unseen` of the encounter as it is, from the tokens' table the
        engine keeps up to date per change (a move patches its token's row: no pass over every token)."""
        table = self._occupancy.current(self.encounter).sight_table()
        return players_unseen(self.encounter, table)

    def _is_party(self, cid: str) -> bool:
        c = next((c for c in self.encounter.combatants if c.id == cid), None)
        return c is not None and c.side is Side.PARTY

    def _explore(self) -> None:
        """Add what the Party sees now to the fog of war's explored cells (part of the same undo step).

        The Party's view is the one both windows' fog shows (worked out once per state), and only
        the cells it newly shows become tuples: the explored cells' mask says which are new."""
        fog = self.encounter.fog
        grown = explore(fog.explored, party_sight(self.encounter).mask)
        if grown is not fog.explored:
            fog.explored = grown

    # Where the engine's own handlers may write (history.Writes); an action not named here may write anywhere.
    _writes: ClassVar[dict[type, Callable[[Any], frozenset[tuple[str, ...]]]]] = {**MOVEMENT_WRITES, **EDIT_WRITES}

    _handlers: ClassVar[dict[type, Callable[[Engine, Any, DiceSource], list[Event]]]] = {
        **ROUND_HANDLERS,  # the round and the turn
        act.SetCondition: conditions.set_condition,
        act.ConvertRuleset: convert_ruleset,  # the engine's own: it swaps the encounter
        **MOVEMENT_HANDLERS,  # the move and the facing
        **EDIT_HANDLERS,  # the roster and the map
        **PARTY_HANDLERS,  # the party roster's links and notes (RULES §16)
        **LIGHT_HANDLERS,  # light on the map
        act.RollDice: roll_dice,
        **DRAWING_HANDLERS,
        **AREA_HANDLERS,  # area templates and effects (RULES §14)
    }

    # -- conveniences for scripts and tests: one call, one action ------------------------------

    def start_combat(
        self,
        situation: str | None = None,
        face: int | None = None,
        *,
        first_side: Side | None = None,
        surprised_side: Side | None = None,
        initiative_face: int | None = None,
    ) -> list[Event]:
        """Start combat; ``situation`` is one of the ruleset's (``ruleset.rounds.start_procedure``; None: its first)."""
        if situation is None:
            situation = self.ruleset.rounds.start_procedure().situations[0].key
        return self.apply(act.StartCombat(str(situation), face, first_side, surprised_side, initiative_face))

    def next_round(self, face: int | None = None) -> list[Event]:
        return self.apply(act.NextRound(face))

    def begin_turn(self, combatant: str) -> list[Event]:
        return self.apply(act.BeginTurn(combatant))

    def end_turn(self) -> list[Event]:
        return self.apply(act.EndTurn())

    def move(
        self, combatant: str, to: Cell | None = None, *, path: list[Cell] | None = None, forced: bool = False
    ) -> list[Event]:
        return self.apply(act.Move(combatant, to, tuple(path) if path else None, forced))

    def face(self, combatant: str, facing: int) -> list[Event]:
        return self.apply(act.Face(combatant, facing))

    def edit(self, combatant: str, **changes: Any) -> list[Event]:
        return self.apply(act.EditCombatant(combatant, changes))
