"""Turns pydantic's validation errors into messages a GM can act on: which field, what is wrong."""

from __future__ import annotations

from pydantic import ValidationError


def field_path(loc: tuple[int | str, ...]) -> str:
    """('combatants', 2, 'level') -> 'combatants[2].level'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def explain(error: ValidationError, prefix: str = "") -> str:
    """One line per problem: '<field>: <what is wrong> (got <value>)'."""
    lines = []
    for item in error.errors(include_url=False):
        # Unions list every member's complaint; the discriminator tag in loc is noise.
        loc = tuple(p for p in item["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        where = field_path(loc)
        message = item["msg"].removeprefix("Value error, ")
        if ":" in message and not where:
            # Model-level checks already name their field ('stamina: 70 SP is above ...').
            where, message = message.split(":", 1)
            message = message.strip()
        elif ":" in message and message.split(":", 1)[0].replace(".", "").replace("_", "").isalnum():
            head, rest = message.split(":", 1)
            if " " not in head:
                where = f"{where}.{head}" if where else head
                message = rest.strip()
        got = ""
        if item["type"] not in ("missing", "extra_forbidden") and "input" in item:
            shown = repr(item["input"])
            if len(shown) <= 40 and not isinstance(item["input"], dict | list):
                got = f" (got {shown})"
        path = f"{prefix}{'.' if prefix and where else ''}{where}"
        lines.append(f"{path or 'value'}: {message}{got}")
    return "\n".join(lines)
