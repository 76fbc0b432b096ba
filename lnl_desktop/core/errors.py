"""The one error family of the rules core.

Like python-chess's ``IllegalMoveError``, these subclass ``ValueError`` so plain callers can
catch them without importing anything; the UI shows ``str(error)`` and ``error.reasons``.
"""

from __future__ import annotations

from collections.abc import Sequence


class RulesError(ValueError):
    """Something the rules or the data do not allow; nothing was changed."""

    def __init__(self, message: str, reasons: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.reasons: list[str] = list(reasons) or [message]


class IllegalAction(RulesError):
    """An action refused by the rules, with every reason it is refused."""

    def __init__(self, action: str, reasons: Sequence[str]) -> None:
        reasons = list(reasons)
        super().__init__(f"{action} is not allowed: " + "; ".join(reasons), reasons)
        self.action = action
