"""The Turns dock's rows: the round's groups (the sides, or the places of the round's turn order)
and a line per combatant with its state this round, built again only where something changed.

:class:`TurnRows` is a part of :class:`~lnl_desktop.ui.docks.turns.TurnsPanel`: it fills the panel's
:class:`~lnl_desktop.ui.models.turns.TurnsModel` from the engine's answers (:meth:`Engine.turn_state`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex
from PySide6.QtGui import QColor, QFont

from lnl_desktop.core.encounter.model import Phase, Side
from lnl_desktop.core.errors import RulesError
from lnl_desktop.ui.docks.declare import DECLARED, MISSING_MARK
from lnl_desktop.ui.docks.round_dice import slot_title
from lnl_desktop.ui.docks.round_state import PALE
from lnl_desktop.ui.models.turns import Line
from lnl_desktop.ui.plumbing import style

if TYPE_CHECKING:
    from lnl_desktop.ui.docks.turns_list import TurnsView
    from lnl_desktop.ui.models.turns import TurnsModel
    from lnl_desktop.ui.plumbing.controller import TableController

# The states a combatant shows this round (Engine.turn_state's words).
WAITING = "waiting"
ACTING = "acting now"
ACTED = "acted"
SURPRISED = "surprised"
DOWN = "down"
OUT_OF_COMBAT = ""

GREY = QColor("#8a8a8a")
GREEN = QColor("#1b7a3a")  # the state of a combatant whose turn may begin now
NEXT_PLACE = QColor("#fff3c4")  # the place of the turn order whose members may act now

NOT_IN_ORDER = "Not in this round's order"

RESIZE_PRECISION = 100  # rows measured (besides those in view) when a column fits its contents


@dataclass(frozen=True)
class _Head:
    """The heading of a group in the Turns list: a side, or a place of the round's turn order."""

    title: str
    side: Side | None  # the colour of the heading (None: several sides, or none)
    tip: str
    single: bool = False  # a place held by one combatant: shown as its row
    next: bool = False  # the place acting now (highlighted)
    done: bool = False  # everyone in it has acted (greyed)


@dataclass(frozen=True)
class RowsRead:
    """What every row of the list reads alike, worked out once per refresh: the combatants by id,
    and the acting side."""

    by_id: dict[str, Any]
    side: Side | None


# The parts of the encounter besides the combatants that rows read: the round's state, and the
# options (whether a creature that is down still takes turns).
_ROWS_READ = frozenset({"combat", "options"})


class TurnRows:
    """The Turns list's groups and rows, from the engine."""

    controller: TableController
    tree: TurnsView
    turns_model: TurnsModel

    def _refresh_tree(self) -> None:
        touched = self.controller.engine.touched
        step, self._tree_step = self._tree_step, touched.step
        if (
            step is not None
            and touched.step == step + 1
            and touched.combatants == frozenset()
            and touched.tokens is not None
            and not touched.parts & _ROWS_READ
        ):
            return  # the one change since the last refresh left every row as it was (a token moved)
        self._now_cache = self._now()  # read by every row: a lookup by id each, not a search
        try:
            # After one change of some combatants alone, the other rows read nothing that changed,
            # unless what all rows read alike did (checked in _fill_tree).
            alone = (
                step is not None
                and touched.step == step + 1
                and touched.combatants is not None
                and not touched.parts & _ROWS_READ
            )
            self._fill_tree(touched.combatants if alone else None)
        finally:
            self._now_cache = None

    def _fill_tree(self, only: frozenset[str] | None = None) -> None:
        """Show the list as it stands; ``only``: the combatants whose rows may have changed, if what
        all rows read alike (the acting side, the declarations, the groups) did not."""
        encounter = self.controller.encounter
        engine = self.controller.engine
        keep = self.selected_id() or self.controller.selected
        groups = self._order_groups() if encounter.combat.order else self._side_groups()
        spec = self.declare_spec
        # What every row reads alike, besides the round's state: the acting side, who declared what,
        # the names the rows' words give (whose turn is under way, who acts first in the order), the
        # list's font, and the groups with their members.
        now = self._now()
        turn = encounter.combat.turn
        holder = now.by_id.get(turn.combatant) if turn is not None else None
        declaring = None if spec is None else (spec.choices, spec.open, tuple(spec.missing), dict(spec.declared))
        alike = (
            now.side,
            declaring,
            tuple((c.id, c.name) for c in engine.waiting()) if encounter.combat.order else None,
            None if holder is None else holder.name,
            self.tree.font().key(),
            tuple((head, tuple(c.id for c in members)) for head, members in groups),
        )
        self._quiet = True
        try:
            if only is not None and alike == self._tree_shown:
                heads = {c.id: head for head, members in groups for c in members}
                for cid in only:
                    c = now.by_id.get(cid)
                    if c is None or cid not in heads:
                        continue
                    line = self._row_content(c, heads[cid])
                    shown = self.turns_model.line(self.turns_model.index_of(cid))
                    if shown is None or shown.look() != line.look():
                        self._add_row(line, c)
            else:
                self._tree_shown = alike
                self._show_groups(groups)
            self._keep_selected(keep)
        finally:
            self._quiet = False

    def _show_groups(self, groups: list[tuple[_Head, list[Any]]]) -> None:
        """Hand the model every line; it tells the list what changed. The Declared combos follow."""
        encounter = self.controller.encounter
        spec = self.declare_spec
        # The bars' columns are the ruleset's (SP and IP in L&L); a declare phase adds its column first.
        sample = encounter.combatants[0] if encounter.combatants else None
        ruleset = self.controller.engine.ruleset
        gauges = (
            [g.label for g in ruleset.tokens.gauges(sample)]
            if sample is not None
            else list(ruleset.tokens.gauge_labels())
        )
        declared = [DECLARED] if spec is not None else []
        self._declared_column = 2 if spec is not None else None
        headers = ["Combatant", "This round", *declared, *gauges]
        tips: dict[int, str] = {}
        if spec is not None:
            when = "for the coming round" if spec.open else "this round (a change is a GM override)"
            tips[2] = f"The action each combatant declared before initiative, {when}. Pick one in the list"
        lines: list[Line] = []
        members_of: dict[str, Any] = {}
        for head, members in groups:
            members_of.update((c.id, c) for c in members)
            if head.single and members:
                lines.append(self._row_content(members[0], head))
                continue
            lines.append(self._heading(head, [self._row_content(c, head) for c in members]))
        told, changed = self.turns_model.show(headers, tips, lines)
        if told == "reset":
            self.tree.fit_columns()
            # A combo is taller than a line of text: the rows follow their contents then.
            self.tree.setUniformRowHeights(spec is None)
        if spec is None:
            self._combos_for = None
            return
        combos_for = (spec.choices, spec.open)
        if told == "reset" or combos_for != self._combos_for:
            changed = set(members_of)
        self._combos_for = combos_for
        for cid in changed:
            if cid in members_of:
                self._add_declare_combo(self.turns_model.index_of(cid), members_of[cid], spec)

    def _keep_selected(self, cid: str | None) -> None:
        """The row selected before the list changed is selected still."""
        index = self.turns_model.index_of(cid) if cid else QModelIndex()
        selection = self.tree.selectionModel()
        if index.isValid() and not selection.isSelected(index):
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            selection.setCurrentIndex(index, flags)

    def _side_groups(self) -> list[tuple[_Head, list[Any]]]:
        """RULES §2: the first side's members, then the other side's."""
        encounter = self.controller.encounter
        acting = self.controller.engine.acting_side()
        first = encounter.combat.first_side or Side.PARTY
        return [
            (_Head(self._group_title(side, acting), side, side.value), encounter.side(side))
            for side in (first, first.other)
        ]

    def _order_groups(self) -> list[tuple[_Head, list[Any]]]:
        """The round's turn order: each place with its roll, its members, the one acting now marked."""
        encounter = self.controller.encounter
        engine = self.controller.engine
        by_id = encounter.by_id()
        acting = self._acting_slot()
        groups: list[tuple[_Head, list[Any]]] = []
        placed: set[str] = set()
        for i, slot in enumerate(encounter.combat.order, 1):
            members = [by_id[cid] for cid in slot.members if cid in by_id]
            placed.update(c.id for c in members)
            sides = {c.side for c in members}
            single = len(members) == 1
            title = slot_title(i, slot)
            now = slot is acting
            done = not now and not any(engine.may_act(c) for c in members)
            if now and not single:
                title += " ◀"  # the highlight says it too; the banner says what to do
            state = "acting now" if now else "done this round" if done else "later this round"
            tip = f"{i}. {slot.title}: {slot.roll or 'placed by the rules'} ({state})"
            side = sides.pop() if len(sides) == 1 else None
            groups.append((_Head(title, side, tip, single=single, next=now, done=done), members))
        rest = [c for c in encounter.combatants if c.id not in placed]
        if rest:
            tip = "Not placed in this round's initiative order (down, or added during the round)"
            groups.append((_Head(NOT_IN_ORDER, None, tip, done=True), rest))
        return groups

    def _heading(self, head: _Head, members: list[Line]) -> Line:
        """A group's heading: bold, in its side's colour (grey once done), the place acting now highlighted."""
        font = QFont(self.tree.font())
        font.setBold(True)
        line = Line(None, [head.title], tips={0: head.tip}, fonts={0: font}, children=members)
        if head.done:
            line.fore[0] = GREY
        elif head.side is not None:
            line.fore[0] = style.side_color(head.side)
        if head.next:
            line.back[0] = NEXT_PLACE
        return line

    def _row_content(self, c: Any, head: _Head | None = None) -> Line:
        """Everything a combatant's line shows: its texts, tooltips, colours and fonts, from the
        engine's answers (its state, whether its turn may begin). A place of the order held by ``c``
        alone (``head.single``) is its line, the place's title and roll first."""
        state = self.controller.engine.turn_state(c.id)
        label = state
        if state == WAITING and c.surprised and c.cannot_be_surprised:
            label = "waiting (cannot be surprised)"
        word = self._token_word(c)
        if word:
            label = f"{label} · {word}" if label else word  # who flees, surrenders, is dead
        gauges = [f"{g.now}/{g.most}" for g in self.controller.engine.ruleset.tokens.gauges(c)]
        spec = self.declare_spec
        declared = [""] if spec is not None else []
        single = head is not None and head.single
        texts = [head.title if single and head is not None else c.name, label, *declared, *gauges]
        ok, why = self._may_begin(c)
        tip = why if ok else f"Cannot begin the turn: {why}"
        line = Line(c.id, texts, tips={0: tip, 1: tip}, state=state, may_begin=ok, declared=self._declaration_of(c))
        columns = range(len(texts))
        if line.declared is not None and line.declared[1]:
            line.back[2] = MISSING_MARK
        if state in (ACTED, SURPRISED, DOWN):
            line.fore.update(dict.fromkeys(columns, GREY))
        if state == DOWN:
            font = QFont(self.tree.font())
            font.setItalic(True)
            font.setStrikeOut(True)
            line.fonts[0] = font
        if state == ACTING:
            font = QFont(self.tree.font())
            font.setBold(True)
            line.fonts.update(dict.fromkeys(columns, font))
            line.back.update(dict.fromkeys(columns, QColor(PALE[c.side])))
        elif ok:
            font = QFont(self.tree.font())
            font.setBold(True)
            line.fonts[1] = font
            line.fore[1] = GREEN
        if single and head is not None:
            line.tips[0] = f"{head.tip}. {tip}"
            if head.next:
                line.back.update(dict.fromkeys(columns, NEXT_PLACE))
        return line

    def _token_word(self, c: Any) -> str:
        """The ruleset's word for the combatant's state ("flees", "surrenders", "dead"), or ""."""
        try:
            return str(self.controller.engine.ruleset.tokens.token_word(c) or "")
        except (RulesError, ValueError):
            return ""

    def _group_title(self, side: Side, acting: Side | None) -> str:
        combat = self.controller.encounter.combat
        if combat.phase is not Phase.FIGHTING:
            return side.value
        if combat.turn is not None and self.controller.encounter.combatant(combat.turn.combatant).side is side:
            return f"{side.value} · acting now"
        if acting is side:
            return f"{side.value} · acting now: pick who goes next"
        if combat.round == combat.first_round and combat.surprised_side is side:
            return f"{side.value} · surprised in {combat.round_phrase}"
        if acting is not None:
            return f"{side.value} · after the {acting.value}"
        return f"{side.value} · done this round"

    def _add_row(self, line: Line, c: Any) -> None:
        """Show combatant ``c``'s line anew in its place, with its Declared combo."""
        self.turns_model.replace(line)
        spec = self.declare_spec
        if spec is not None:
            self._add_declare_combo(self.turns_model.index_of(c.id), c, spec)
