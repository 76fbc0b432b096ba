"""Old-School d20's round (RULES §12): who is surprised, initiative every round (a d20 per side with its
leader's INIT, or per combatant), highest first with the ties broken as the rules say, the round's
considerations (light, how initiative is rolled) in words, and what lapses as a round begins or a fight ends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lnl_desktop.core.dice.rolls import DiceSource, roll_plain
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.encounter.model import Side, TurnSlot
from lnl_desktop.core.errors import IllegalAction, RulesError
from lnl_desktop.core.rules import engagement
from lnl_desktop.core.rules.common import Opening, RoundOrder
from lnl_desktop.core.rules.osr.model import (
    LIGHT_PENALTY,
    InitiativeMode,
    Kind,
    Light,
    MoraleResult,
    OsrCombatant,
    OsrOptions,
)
from lnl_desktop.core.rules.specs import DeclareSpec, RowAction, Setting, Situation, StartProcedure

if TYPE_CHECKING:
    from lnl_desktop.core.rules.base import Table

# The Start combat dialog's situations: the GM marks who is surprised (RULES §12, step 2).
NOBODY, PARTY, OPPONENTS, BOTH = (
    "nobody surprised",
    "Party surprised",
    "Opponents surprised",
    "both sides surprised",
)

LIGHT = Setting(
    "light",
    "Light",
    "The round's light: dim -2, dark -5 to attacks (RULES §12 considerations)",
    "choice",
    Light.NORMAL.value,
    choices=tuple(x.value for x in Light),
)
INITIATIVE = Setting(
    "initiative",
    "Initiative",
    "group: one d20 per side + its leader's INIT, the side acts together; "
    "individual: d20 + INIT for each combatant, one at a time",
    "choice",
    InitiativeMode.GROUP.value,
    choices=tuple(x.value for x in InitiativeMode),
)


@dataclass
class _Entry:
    title: str
    members: list[str]
    face: int
    bonus: int
    pcs: bool
    who: str  # the roller's name for the die's purpose
    tiebreak: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.face + self.bonus


def roll_initiative(engine: Table, dice: DiceSource) -> tuple[list[TurnSlot], str]:
    """Initiative by group (d20 + the leader's INIT, one roll per side) or individually (d20 + INIT
    each); highest first; ties: PCs first, then the higher INIT, then a tie-break d20."""
    e = engine.encounter
    options: OsrOptions = e.options  # type: ignore[assignment]
    able: list[OsrCombatant] = [
        c
        for c in e.combatants
        if not c.down and c.morale_result is not MoraleResult.SURRENDERS  # type: ignore[attr-defined]
    ]
    entries: list[_Entry] = []
    group = InitiativeMode(options.initiative) is InitiativeMode.GROUP
    if group:
        for side in (Side.PARTY, Side.OPPONENTS):
            for name, ids in groups(e.combatants, side):
                members = [c for c in able if c.id in ids]
                if not members:
                    continue
                leader = next((c for c in members if c.leader), members[0])
                who = name or side.value
                face = roll_plain(
                    dice, 20, f"initiative d20 for the {who} ({leader.name}, INIT {leader.init_mod:+d})"
                ).face
                entries.append(
                    _Entry(
                        f"{who} ({leader.name} leads)",
                        ids,
                        face,
                        leader.init_mod,
                        any(c.kind is Kind.PC for c in members),
                        who,
                    )
                )
    else:
        for c in able:
            face = roll_plain(dice, 20, f"initiative d20 for {c.name} (INIT {c.init_mod:+d})").face
            entries.append(_Entry(c.name, [c.id], face, c.init_mod, c.kind is Kind.PC, c.name))

    def key(x: _Entry) -> tuple[int, bool, int]:
        return (x.total, x.pcs, x.bonus)

    # Tie-break d20s where total, PC-ness and INIT all tie, rolled again until they differ.
    by_key: dict[tuple[int, bool, int], list[_Entry]] = {}
    for entry in entries:
        by_key.setdefault(key(entry), []).append(entry)
    for tied in by_key.values():
        while len(tied) > 1:
            for entry in tied:
                entry.tiebreak.append(roll_plain(dice, 20, f"tie-break d20 for {entry.who}").face)
            faces = [x.tiebreak[-1] for x in tied]
            tied = [x for x in tied if faces.count(x.tiebreak[-1]) > 1]
    entries.sort(key=lambda x: (key(x), x.tiebreak), reverse=True)
    slots = []
    for entry in entries:
        roll = f"d20 {entry.face} {entry.bonus:+d} INIT = {entry.total}"
        if entry.tiebreak:
            roll += f" (tie-break {', '.join(str(f) for f in entry.tiebreak)})"
        slots.append(TurnSlot(title=entry.title, members=entry.members, roll=roll, total=entry.total))
    how = "by group" if group else "individually"
    listed = "; ".join(f"{s.title.split(' (')[0]} {s.roll}" for s in slots)
    return slots, f"initiative {how}: {listed}"


def groups(combatants: list[OsrCombatant], side: Side) -> list[tuple[str, list[str]]]:
    """A side's initiative groups in the order first met: ("", ids) for the side's own group, then
    each group the GM named (a boss apart from its goblins), spelt as first written."""
    found: dict[str, tuple[str, list[str]]] = {}
    for c in combatants:
        if c.side is not side:
            continue
        name = " ".join(c.initiative_group.split())
        found.setdefault(name.casefold(), (name, []))[1].append(c.id)
    return sorted(found.values(), key=lambda g: g[0] != "")


def considerations(options: OsrOptions) -> str:
    light = Light(options.light)
    return "light normal" if light is Light.NORMAL else f"light {light.value} ({LIGHT_PENALTY[light]} to attacks)"


class OsrRounds:
    """The start of combat (who is surprised), initiative rolled every round, the round's considerations."""

    def __init__(self, title: str) -> None:
        self.title = title

    def start_procedure(self) -> StartProcedure:
        def reading(situation: str, face: int) -> str:
            return {
                NOBODY: "Nobody is surprised; everyone acts in the initiative order",
                PARTY: "The Party is surprised: its members take no action in round 1",
                OPPONENTS: "The Opponents are surprised: they take no action in round 1",
                BOTH: "Both sides surprised: nobody is; initiative as usual",
            }.get(situation, "")

        return StartProcedure(
            question="Who is surprised?",
            situations=(
                Situation(NOBODY, "Nobody is surprised", "Both sides saw each other coming"),
                Situation(PARTY, "The Party is surprised", "Party members take no action in round 1"),
                Situation(OPPONENTS, "The Opponents are surprised", "Opponents take no action in round 1"),
                Situation(BOTH, "Both sides are surprised", "A moment of shared confusion: nobody is surprised"),
            ),
            die_label="initiative",
            reading=reading,
            surprise_die=False,
            rolls_initiative=True,
            settings=(LIGHT, INITIATIVE),
        )

    def open_combat(self, engine: Table, action: Any, dice: DiceSource) -> Opening:
        situation = action.situation
        surprised = {PARTY: Side.PARTY, OPPONENTS: Side.OPPONENTS}.get(situation)
        if situation not in (NOBODY, PARTY, OPPONENTS, BOTH):
            raise RulesError(f"Start combat: {situation!r} is not one of: {NOBODY}, {PARTY}, {OPPONENTS}, {BOTH}")
        slots, words = roll_initiative(engine, dice)
        first = first_side(engine, slots)
        said = {
            NOBODY: "nobody surprised",
            PARTY: "the Party is surprised",
            OPPONENTS: "the Opponents are surprised",
            BOTH: "both sides surprised, so nobody is",
        }[situation]
        options: OsrOptions = engine.encounter.options  # type: ignore[assignment]
        text = f"Round 1: {considerations(options)}; {said}; {words}"
        return Opening(situation=situation, first_side=first, surprised_side=surprised, text=text, order=tuple(slots))

    def round_order(self, engine: Table, action: Any, dice: DiceSource) -> RoundOrder:
        slots, words = roll_initiative(engine, dice)
        options: OsrOptions = engine.encounter.options  # type: ignore[assignment]
        return RoundOrder(first_side(engine, slots), None, f"{considerations(options)}; {words}", order=tuple(slots))

    def initiative(self, face: int) -> Side:
        raise IllegalAction("Initiative", [f"{self.title} has no side initiative"])

    def declarations(self, engine: Table) -> DeclareSpec | None:
        return None

    def notes(self, engine: Table) -> tuple[str, ...]:
        return ()

    def settings(self) -> tuple[Setting, ...]:
        return (LIGHT, INITIATIVE)

    def row_actions(self, engine: Table, c: Any) -> tuple[RowAction, ...]:
        return ()

    def on_round_start(self, engine: Table) -> list[Event]:
        """Counter-attacks not taken in the round before lapse: they were immediate."""
        return engagement.lapse(engine.encounter, "counter-attack")

    def on_combat_start(self, engine: Table) -> None:
        return None

    def on_combat_end(self, engine: Table) -> None:
        for c in engine.encounter.combatants:
            c.defending = None  # type: ignore[attr-defined]
            c.casting = None  # type: ignore[attr-defined]
        engine.encounter.combat.pending = []


def first_side(engine: Table, slots: list[Any]) -> Side:
    """The side of the first to act in the order rolled (the Party when nobody is left to roll)."""
    if slots and slots[0].members:
        return engine.combatant(slots[0].members[0]).side  # type: ignore[no-any-return]
    return Side.PARTY
