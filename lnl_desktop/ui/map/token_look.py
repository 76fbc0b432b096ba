"""What a token shows, as a frozen snapshot (:class:`TokenLook`), and its tooltip's words.

The scene builds a fresh look from the encounter after every action; the item
(:mod:`lnl_desktop.ui.map.tokens`) repaints only when its look changed. The stat block's words and
the token's icons are the ruleset's (``ruleset.tokens.token_tip`` / ``token_icons``): the map names
no ruleset's field. The players' look of an Opponent tells a condition word, never its numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lnl_desktop.core.encounter.map_model import Token
from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.core.map.grid import Cell
from lnl_desktop.core.rules.registry import DEFAULT_RULESET, Ruleset, get_ruleset
from lnl_desktop.core.rules.specs import Gauge
from lnl_desktop.ui.map.markers import markers_tooltip


@dataclass(frozen=True)
class TokenLook:
    """Everything a token shows; equal looks paint the same."""

    cid: str
    name: str
    label: str
    side: Side
    size: int
    cell: Cell
    facing: int
    gauges: tuple[Gauge, ...]  # the ruleset's bars (SP and IP in L&L); none for a secret Opponent
    down: bool
    concealed: bool
    guard: bool
    surprised: bool
    broken: bool
    has_turn: bool
    selected: bool
    tooltip: str
    hidden: bool = False  # hidden from the players: the GM's map shows it faded
    condition: str = ""  # in the player view, an Opponent's condition word instead of its bars
    word: str = ""  # the ruleset's word for a state the token must show ("flees", "dead")
    portrait: str | None = None  # the combatant's picture (base64 PNG), drawn inside the body
    markers: tuple[str, ...] = ()  # the conditions shown as badges round the edge (ruleset.tokens.markers)

    @classmethod
    def of(
        cls,
        c: Any,
        token: Token,
        label: str,
        has_turn: bool,
        selected: bool,
        player: bool = False,
        badly_hurt_below: float = 0.5,
        ruleset: Ruleset | None = None,
        share_markers: bool = False,
        names: dict[str, str] | None = None,
    ) -> TokenLook:
        """The look of a token; ``player`` gives the players' look, which tells no Opponent's numbers
        and shows an Opponent's condition markers only when ``share_markers``."""
        ruleset = ruleset or get_ruleset(DEFAULT_RULESET)
        gauges = ruleset.tokens.gauges(c)
        secret = player and c.side is not Side.PARTY
        condition = condition_word(c, badly_hurt_below, gauges) if secret else ""
        markers = ruleset.tokens.markers(c) if not secret or share_markers else ()
        tip = player_tooltip(c, condition) if secret else tooltip(c, token, has_turn, gauges, ruleset)
        icons = ruleset.tokens.token_icons(c)
        if markers:
            tip += "<br>" + markers_tooltip(markers, None if secret else c, names)  # what is left: the GM's
        return cls(
            cid=c.id,
            name=c.name,
            label=label,
            side=c.side,
            size=c.size,
            cell=(token.cell[0], token.cell[1]),
            facing=token.facing,
            gauges=() if secret else gauges,
            down=c.down,
            concealed=c.concealed,
            guard="guard" in icons,
            surprised=c.surprised,
            broken="broken" in icons,
            has_turn=has_turn,
            selected=selected,
            tooltip=tip,
            hidden=token.hidden,
            condition=condition,
            word=ruleset.tokens.token_word(c),
            portrait=c.portrait,
            markers=markers,
        )


def condition_word(c: Any, badly_hurt_below: float = 0.5, gauges: tuple[Gauge, ...] | None = None) -> str:
    """What the players may know of a creature's state: unhurt, wounded, badly hurt or down.

    "badly hurt" below ``badly_hurt_below`` of its bars together (L&L: SP and IP; a setting),
    "wounded" below all.
    """
    if c.down:
        return "down"
    if gauges is None:
        gauges = get_ruleset(DEFAULT_RULESET).tokens.gauges(c)
    total = sum(g.most for g in gauges)
    fraction = 1.0 if total <= 0 else sum(g.now for g in gauges) / total
    if fraction >= 1.0:
        return "unhurt"
    return "badly hurt" if fraction < badly_hurt_below else "wounded"


def player_tooltip(c: Any, condition: str) -> str:
    return f"<b>{_html(c.name)}</b><br><i>{condition}</i>"


def tooltip(
    c: Any, token: Token, has_turn: bool, gauges: tuple[Gauge, ...] = (), ruleset: Ruleset | None = None
) -> str:
    ruleset = ruleset or get_ruleset(DEFAULT_RULESET)
    said = ruleset.tokens.token_tip(c)  # the stat block's words: the ruleset's own
    identity = f", {_html(said.identity)}" if said.identity else ""
    numbers = [f"{g.label} {g.now}/{g.most}" for g in gauges]
    numbers += [_html(n) for n in said.numbers]
    numbers.append(f"Move {c.move_ft} ft")
    lines = [f"<b>{_html(c.name)}</b> ({c.side.value}{identity})", " &middot; ".join(numbers)]
    lines += [f"&bull; {_html(item)}" for item in said.items]
    status = (["its turn"] if has_turn else []) + [_html(word) for word in c.status_words()]
    if status:
        lines.append("<i>" + ", ".join(status) + "</i>")
    for word in c.conditions:  # what each condition means, as the ruleset words it
        tip = ruleset.conditions.tip(word)
        if tip:
            lines.append(f"<i>{_html(word)}</i>: {_html(tip)}")
    lines.append(f"at ({token.cell[0]}, {token.cell[1]}), facing {token.facing}&deg;")
    return "<br>".join(lines)


def _html(text: str) -> str:
    """``text`` in a rich-text tooltip: its control and bidi characters as escapes, its markup quoted."""
    return visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
