"""The Action dock's checklist: the checks an action must pass, each with its mark and reason.

The lines come from the core (:func:`lnl_desktop.core.engine.plan.checklist`); this box only draws
them (✔ holds, ✘ fails, – does not apply, ⚑ let through by the GM override, a heading for a group of
points with their details under it) and offers the GM override when a
check it covers blocks.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QCheckBox, QGridLayout, QGroupBox, QLabel, QWidget

from lnl_desktop.core.engine.plan import FAIL, HEAD, NA, NO, OK, OVERRIDDEN, YES, CheckRow
from lnl_desktop.core.rules.specs import ActionSpec
from lnl_desktop.ui.plumbing import style

# The GM override's words where the ruleset gives none (an ActionSpec with gm_override and no override_label).
OVERRIDE = "GM override: allow it anyway"
_ICONS = {
    OK: ("✔", "#1b7a3a"),
    FAIL: ("✘", "#c62828"),
    NA: ("–", "#8a8a8a"),
    YES: ("✔", "#1b7a3a"),
    NO: ("○", "#8a8a8a"),
    OVERRIDDEN: ("⚑", "#b35c00"),
}


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def override_label(spec: ActionSpec) -> str:
    """The override's words for an action: the ruleset's, or the dock's own."""
    return spec.override_label or OVERRIDE


class WrapLabel(QLabel):
    """A word-wrapped label that asks for the height its wrapped text needs at its real width.

    Grid layouts in a scroll area size labels by their unwrapped hint, which cut the second line
    of long reasons; fixing the minimum height once the width is known keeps every line visible.
    """

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_height()

    def fit_height(self) -> None:
        """As tall as the text needs at the width it has (none yet: its resize will tell)."""
        needed = self.heightForWidth(self.width()) if self.width() > 0 else 0
        if needed > 0 and needed != self.minimumHeight():
            self.setMinimumHeight(needed)


def _write(label: QLabel, text: str) -> bool:
    """Give ``label`` these words; whether they changed (the same words are not laid out again)."""
    if label.text() == text:
        return False
    label.setText(text)
    return True


class ChecklistBox(QGroupBox):
    """The "Allowed?" box: one line per check, the verdict in the title, the GM override under the lines."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Allowed?", parent)
        self.setToolTip("The engine's checks, before anything is rolled")
        self.grid = QGridLayout(self)
        self.grid.setColumnStretch(2, 1)
        self.grid.setHorizontalSpacing(6)
        self.grid.setVerticalSpacing(3)
        self.widgets: list[QWidget] = []
        self.override_check = QCheckBox(OVERRIDE, self)
        self._shown: tuple[object, ...] | None = None  # what the lines show now
        self._heads: list[QLabel] = []  # the labels lines are written in, in order of use
        self._pairs: list[tuple[QLabel, WrapLabel]] = []

    def _new_head(self) -> QLabel:
        head = QLabel(self)
        head.setContentsMargins(0, 6, 0, 0)
        self._heads.append(head)
        return head

    def _new_pair(self) -> tuple[QLabel, WrapLabel]:
        icon = QLabel(self)
        icon.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        text = WrapLabel(self)
        text.setWordWrap(True)
        text.setTextFormat(Qt.TextFormat.RichText)
        self._pairs.append((icon, text))
        return icon, text

    def forget(self) -> None:
        """Build the lines again on the next show (the UI scale changed: the marks' sizes are in points)."""
        self._shown = None

    def show_rows(self, kind: str, rows: list[CheckRow], spec: ActionSpec, offered: bool) -> None:
        """Draw ``rows``; with ``offered``, the override for ``spec`` under them."""
        # Every event refreshes the panel; the checklist's labels are rebuilt only when its rows
        # change (a move or an attack elsewhere leaves them as they are).
        shown = (kind, tuple(rows), offered, override_label(spec), style.ui_scale())
        if shown == self._shown:
            return
        self._shown = shown
        # The labels of the last lines are written again, not made anew: a rich-text label costs
        # milliseconds to build, and every step of a turn changes the checklist.
        grid = self.grid
        for widget in self.widgets:
            grid.removeWidget(widget)
        grid.removeWidget(self.override_check)
        heads, pairs = iter(self._heads), iter(self._pairs)
        used: list[QWidget] = []
        line = 0
        for row in rows:
            if row.status == HEAD:
                head = next(heads, None) or self._new_head()
                _write(head, f"<b>{escape(row.label)}</b>")
                grid.addWidget(head, line, 0, 1, 3)
                used.append(head)
                line += 1
                continue
            icon, text = next(pairs, None) or self._new_pair()
            mark, color = _ICONS[row.status]
            _write(
                icon, style.scaled_css(f'<span style="color:{color}; font-weight:bold; font-size:12pt">{mark}</span>')
            )
            icon.setFixedWidth(self.fontMetrics().horizontalAdvance("✔✔"))
            icon.setToolTip({OK: "holds", FAIL: "does not hold", NA: "does not apply here"}.get(row.status, ""))
            dim = row.status in (NA, NO)
            text_color = "#6b6b6b" if dim else "#000000"
            reason = f'<br><span style="color:#555555">{escape(row.reason)}</span>' if row.reason else ""
            if row.status == NA:
                reason = f'<br><span style="color:#6b6b6b">n/a: {escape(row.reason)}</span>' if row.reason else ""
            if _write(text, f'<span style="color:{text_color}">{escape(row.label)}</span>{reason}'):
                text.setMinimumHeight(0)  # the last words' height must not hold: Qt's measure keeps to it
                text.fit_height()
            if row.detail:
                grid.addWidget(icon, line, 1)
                grid.addWidget(text, line, 2)
            else:
                grid.addWidget(icon, line, 0)
                grid.addWidget(text, line, 1, 1, 2)
            used += [icon, text]
            line += 1
        for widget in (*heads, *(w for pair in pairs for w in pair)):
            if not widget.isHidden():
                widget.hide()  # a line fewer than before: kept for the next, out of sight
                widget.setText("")
        for widget in used:
            if widget.isHidden():
                widget.show()
        self.widgets = used
        failing = sum(1 for r in rows if r.blocks)
        overridden = any(r.status == OVERRIDDEN for r in rows)
        if failing:
            self.setTitle(
                f"Not allowed: {failing} check{'s' if failing != 1 else ''} fail{'' if failing != 1 else 's'}"
            )
        else:
            self.setTitle("Allowed (GM override)" if overridden else "Allowed: every check holds")
        offered = spec.gm_override and offered
        if offered:
            self._label_override(spec)
            grid.addWidget(self.override_check, line, 0, 1, 3)
        self.override_check.setVisible(offered)

    def _label_override(self, spec: ActionSpec) -> None:
        """The override's words: the ruleset's for what it lets through, or the dock's own."""
        self.override_check.setText(override_label(spec))
        if spec.override_tip:
            self.override_check.setToolTip(spec.override_tip)
            return
        what = spec.label.lower().rstrip("…")
        self.override_check.setToolTip(
            f"A GM ruling: the {what} goes ahead past the checks this override covers (shown ⚑ overridden); "
            "any other failing check still stops it"
        )
