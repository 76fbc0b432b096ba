"""Taking the Action dock's action: with the app's dice ("Roll") or with faces the GM types off
the table's dice ("Type faces…", checked by a dry run on a copy of the encounter first).

:class:`TakingAction` is a part of :class:`~lnl_desktop.ui.docks.actions.ActionPanel`: it reads the
panel's choices (``active``, ``spec``, ``target``, ``extras``...) and gives the action to the controller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lnl_desktop.core.dice.rolls import DiceSource, ScriptedDice
from lnl_desktop.core.encounter import actions as act
from lnl_desktop.core.encounter.events import Event
from lnl_desktop.core.errors import RulesError
from lnl_desktop.ui.dialogs.faces import DryRun, FacesDialog, check_faces, engine_dry_run, faces_example, faces_hint

if TYPE_CHECKING:
    from PySide6.QtWidgets import QCheckBox, QLineEdit

    from lnl_desktop.core.rules.specs import ActionSpec
    from lnl_desktop.ui.plumbing.controller import TableController


class TakingAction:
    """The action as set up, and taking it (the Action dock's Roll and Type faces… buttons)."""

    controller: TableController
    faces_dialog: FacesDialog | None
    ignore_dex_check: QCheckBox
    other_edit: QLineEdit

    if TYPE_CHECKING:  # the panel's own choices and messages

        def active(self) -> Any: ...
        def spec(self) -> ActionSpec: ...
        def _raw_means(self) -> str | None: ...
        def means(self) -> str | None: ...
        def target(self) -> str | None: ...
        def extras(self) -> dict[str, Any]: ...
        def overriding(self) -> bool: ...
        def allowed(self) -> tuple[bool, list[str]]: ...
        def _refuse(self, text: str) -> None: ...
        def _clear_message(self) -> None: ...

    def action(self) -> act.Action | None:
        """The action as set up (None when something is missing)."""
        c = self.active()
        if c is None:
            return None
        spec = self.spec()
        means = self._raw_means()
        if spec.uses in ("weapon", "spell", "choice") and means is None:
            return None
        extras = self.extras()  # empty for an action with no inputs of its own: the build is called as before
        if spec.targeted:
            target = self.target()
            if target is None:
                return None
            action: act.Action = spec.build(
                c.id,
                target,
                means,
                ignore_dex=self.ignore_dex_check.isChecked() and spec.ignore_dex,
                override=self.overriding(),
                **extras,
            )
            return action
        if self.overriding():  # an action of another form the GM may override: told only when it is
            extras["override"] = True
        if spec.uses == "text":
            return spec.build(c.id, self.other_edit.text(), **extras)  # type: ignore[no-any-return]
        if means is not None:
            return spec.build(c.id, means, **extras)  # type: ignore[no-any-return]
        return spec.build(c.id, **extras)  # type: ignore[no-any-return]

    def roll(self) -> list[Event] | None:
        """Take the action with the app's dice (or no dice at all for an action that rolls none)."""
        ok, reasons = self.allowed()
        if not ok:
            self._refuse("Not allowed: " + "; ".join(reasons))
            return None
        return self._apply(None)

    def type_faces(self) -> FacesDialog | None:
        """Open the dialog for faces read off physical dice (window-modal); it applies when they fit."""
        ok, reasons = self.allowed()
        dry_run = self._dry_run()
        if not ok or dry_run is None or not self.spec().rolls:
            self._refuse("Not allowed: " + "; ".join(reasons or ["this action rolls no dice"]))
            return None
        c = self.active()
        assert c is not None
        try:
            hint = faces_hint(dry_run)
            example = faces_example(dry_run)
        except RulesError as refused:  # a rule the checklist could not see (an input of the action) refuses it
            self._refuse(str(refused))
            return None
        with_ = f" with {self.means()}" if self.means() else ""
        title = f"{c.name}: {self.spec().label.lower()}{with_} — type the faces"
        dialog = FacesDialog(
            title,
            hint,
            lambda faces: check_faces(faces, dry_run),
            self,
            example=example,
        )
        dialog.accepted.connect(lambda: self._faces_accepted(dialog))
        dialog.finished.connect(dialog.deleteLater)
        self.faces_dialog = dialog
        dialog.open()
        return dialog

    def faces_refusal(self, faces: list[int]) -> str | None:
        """Why these typed faces cannot make the roll now (a dry run), or None when they fit."""
        dry_run = self._dry_run()
        if dry_run is None:
            return "nothing to roll"
        return check_faces(faces, dry_run)

    def apply_faces(self, faces: list[int]) -> list[Event] | None:
        """Take the rolling action with these typed faces, after a dry run says they fit exactly."""
        ok, reasons = self.allowed()
        if not ok:
            self._refuse("Not allowed: " + "; ".join(reasons))
            return None
        reason = self.faces_refusal(faces)
        if reason is not None:
            self._refuse(f"Faces refused: {reason}")
            return None
        return self._apply(ScriptedDice(faces))

    def _faces_accepted(self, dialog: FacesDialog) -> None:
        faces = dialog.faces()
        if faces is not None:
            self.apply_faces(faces)

    def _apply(self, dice: DiceSource | None) -> list[Event] | None:
        action = self.action()
        if action is None:
            self._refuse("Set up the action first")
            return None
        events = self.controller.do(action, dice)
        if events is None:
            self._refuse(self.controller.refusal or "refused")
        else:
            self._clear_message()
        return events

    def _dry_run(self) -> DryRun | None:
        """The rolls the action as set up makes, as a function of a dice source: the action applied to a
        copy of the encounter (its log left out), so the real one never changes."""
        action = self.action()
        if action is None or not self.spec().rolls:
            return None
        return engine_dry_run(self.controller.encounter, action)
