"""The Action dock's choice lists: the actions, the weapons or spells, the targets, and the line
of movement, each filled from the ruleset's answers for the acting combatant.

:class:`ChoiceLists` is a part of :class:`~lnl_desktop.ui.docks.actions.ActionPanel`: it keeps the
panel's choices (``_kind``, ``_weapon``, ``_spell``, ``_choice``, ``_target``, ``_ally``) ones the
combatant still has and shows them in the combos.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox

    from lnl_desktop.core.rules.specs import ActionSpec
    from lnl_desktop.ui.plumbing.controller import TableController


def feet(value: float) -> str:
    """A distance in words: "12.5 ft"."""
    return f"{value:g} ft"


class ChoiceLists:
    """The Action dock's combos, filled for the acting combatant."""

    controller: TableController
    specs: dict[str, ActionSpec]
    kind_combo: QComboBox
    means_combo: QComboBox
    target_combo: QComboBox
    _kind: str
    _target: str | None
    _ally: str | None

    if TYPE_CHECKING:  # the panel's own

        def spec(self) -> ActionSpec: ...
        def _raw_means(self) -> str | None: ...

    def _movement_text(self, c: Any) -> str:
        turn = self.controller.encounter.combat.turn
        assert turn is not None
        left = self.controller.engine.feet_left(c.id) or 0
        extra = f" (+{feet(turn.extra_ft)} from the {turn.action if turn.action else 'action'})"
        extra = extra if turn.extra_ft else ""
        if not turn.feet_used:
            moved = "Not moved yet"
        elif not turn.feet_after:
            moved = f"Moved {feet(turn.feet_before)} before the action"
        elif not turn.feet_before:
            moved = f"Moved {feet(turn.feet_after)} after the action"
        else:
            moved = f"Moved {feet(turn.feet_before)} before the action and {feet(turn.feet_after)} after"
        return f"{moved} · {feet(max(left, 0))} left of {feet(c.move_ft + turn.extra_ft)}{extra}"

    def _validate_choices(self, c: Any) -> None:
        """Keep each kind of means (weapon, spell, the ruleset's own choice) one the combatant still has; else its
        first usable one."""
        ruleset = self.controller.engine.ruleset
        for uses, attribute in (("weapon", "_weapon"), ("spell", "_spell"), ("choice", "_choice")):
            # The chosen action's own list when it uses this kind of means (a ranged attack offers
            # only missile weapons, a melee attack only melee ones), else the first such action's.
            current = self.spec()
            spec = current if current.uses == uses else next((s for s in self.specs.values() if s.uses == uses), None)
            if spec is None:
                continue
            offered = ruleset.actions.choices(spec, c)
            if getattr(self, attribute) not in [name for name, _, _ in offered]:
                fine = [name for name, _, why in offered if not why]
                setattr(self, attribute, (fine or [name for name, _, _ in offered] or [None])[0])
        available = {k: ruleset.actions.available(spec, c)[0] for k, spec in self.specs.items()}
        if not available.get(self._kind, True):
            self._kind = next((k for k, ok in available.items() if ok), self._kind)

    def _fill_kinds(self, c: Any) -> None:
        model = self.kind_combo.model()
        assert isinstance(model, QStandardItemModel)
        ruleset = self.controller.engine.ruleset
        for i, spec in enumerate(self.specs.values()):
            ok, why = ruleset.actions.available(spec, c)
            item = model.item(i)
            item.setEnabled(ok)
            item.setToolTip(spec.tip if ok else why)
        self.kind_combo.setCurrentIndex(self.kind_combo.findData(self._kind))

    def _fill_means(self, c: Any) -> None:
        combo = self.means_combo
        combo.clear()
        spec = self.spec()
        for name, label, why in self.controller.engine.ruleset.actions.choices(spec, c):
            combo.addItem(label, name)
            if why:
                combo.setItemData(combo.count() - 1, why, Qt.ItemDataRole.ToolTipRole)
        index = combo.findData(self._raw_means())
        combo.setCurrentIndex(max(index, 0) if combo.count() else -1)
        combo.setToolTip(combo.currentText())

    def _fill_targets(self, c: Any) -> None:
        combo = self.target_combo
        combo.clear()
        combo.addItem("— click a token on the map, or pick —", None)
        if self.spec().allies:
            # Aimed at one's own side (guard an ally, defend oneself): oneself first, then the friends.
            others = [o for o in self.controller.encounter.combatants if o.side is c.side]
            others.sort(key=lambda o: (o.id != c.id, o.down))
            chosen = self._ally
        else:
            others = [o for o in self.controller.encounter.combatants if o.id != c.id]
            others.sort(key=lambda o: (o.side is c.side, o.down))
            chosen = self._target
        for o in others:
            if o.id == c.id:
                combo.addItem(f"{o.name} (self)", o.id)
                continue
            away = self.controller.encounter.distance_between(c, o)
            where = f"{feet(away)} away" if away is not None else "not on the map"
            down = " · down" if o.down else ""
            side = "" if self.spec().allies else f" ({o.side.value})"  # friends all share one side
            combo.addItem(f"{o.name}{side} · {where}{down}", o.id)
        index = combo.findData(chosen)
        combo.setCurrentIndex(max(index, 0))
