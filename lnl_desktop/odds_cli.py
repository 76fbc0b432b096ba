"""``lnl-desktop odds FIGHT.lnl``: the fight odds for prep, from the command line — the same table
as the Fight odds view, plain text a person reads and a script parses, or JSON with ``--json``.
``lnl-desktop odds SESSION-FOLDER``: the Session dock's table, each of the night's encounters against
the party as it stands."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
from pathlib import Path

from lnl_desktop.core.encounter.model import Encounter
from lnl_desktop.core.encounter.words import visible
from lnl_desktop.core.errors import RulesError
from lnl_desktop.core.files import storage

MOST_FIGHTS = 1_000_000
INTERRUPTED = 130  # the shell's exit status for a command stopped by Ctrl+C (128 + SIGINT)


def shown(text: str, most: int = 24) -> str:
    """``text`` as a refusal quotes it: at most ``most`` characters."""
    return text if len(text) <= most else f"{text[: most - 1]}…"


_PLAIN_WHOLE_NUMBER = re.compile(r"-?[0-9]+")


def whole_number(text: str) -> int:
    """An option's whole number: plain ASCII digits, a minus before them at most (no spaces, no
    underscores, no other script's digits, all of which int() reads). Anything else is refused in a
    short line, the value shortened."""
    try:
        if _PLAIN_WHOLE_NUMBER.fullmatch(text) is None:
            raise ValueError(text)
        return int(text)
    except ValueError:  # not plain digits, or more of them than int() reads
        raise argparse.ArgumentTypeError(f"{shown(text)!r} is not a whole number") from None


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="lnl-desktop odds",
        description="The rest of the fight in an encounter file played many times by the default tactic "
        "(docs/RULESETS.md): each side's chance to win, each combatant's chance to drop, the rounds left.",
    )
    parser.add_argument(
        "file", type=Path, help="an encounter file (.lnl), in setup or mid-fight, or a session folder (session.json)"
    )
    parser.add_argument("--fights", type=whole_number, default=10_000, help="how many fights to play (default 10,000)")
    parser.add_argument(
        "--seed", type=whole_number, default=None, help="the dice's seed (0 or more), for the same numbers again"
    )
    parser.add_argument("--json", action="store_true", help="print the odds as JSON")
    args = parser.parse_args(argv)
    if not 1 <= args.fights <= MOST_FIGHTS:
        parser.error(f"--fights {shown(str(args.fights))}: from 1 to {MOST_FIGHTS:,}")
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed {shown(str(args.seed))}: a whole number from 0 up")
    return args


def state_words(encounter: Encounter) -> str:
    """'from the start of the fight', 'from round 2, Tombril's turn'."""
    combat = encounter.combat
    if combat.round == 0:
        return "from the start of the fight"
    turn = combat.turn
    if turn is not None:
        name = next((c.name for c in encounter.combatants if c.id == turn.combatant), turn.combatant)
        return f"from round {combat.round}, {name}'s turn"
    return f"from round {combat.round}"


def heading(name: str, title: str) -> str:
    """'Bandits at the Mill (Group d10)': the ruleset named once, not again after a name that has it."""
    return name if title.casefold() in name.casefold() else f"{name} ({title})"


def run(argv: list[str]) -> int:
    """The command: 0 with the odds printed, 2 for a refused file or option, 130 when stopped by Ctrl+C
    (a short line, no traceback)."""
    from lnl_desktop.memory_pages import small_pages

    small_pages()  # the simulator's fresh arrays are quicker in small pages (lnl_desktop.memory_pages)
    try:
        return odds_command(argv)
    except KeyboardInterrupt:
        print("lnl-desktop: stopped", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # the reader went away (`| head`): the rest goes nowhere, quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def odds_command(argv: list[str]) -> int:
    args = parse_args(argv)
    if is_session(args.file):
        return session_command(args)
    try:
        encounter = storage.load(args.file)
    except RulesError as error:  # the same words and exit as opening it in the window
        print(visible(f"lnl-desktop: {error}", lines=True), file=sys.stderr)
        return 2
    from lnl_desktop.core.rules.registry import get_ruleset
    from lnl_desktop.core.sim.run import fight_odds

    try:
        odds = fight_odds(encounter, args.fights, args.seed)
    except RulesError as error:
        print(visible(f"lnl-desktop: {error}", lines=True), file=sys.stderr)
        return 2
    if args.json:
        print(odds.as_json())
    else:
        # Names as a terminal may show them: an ESC or a right-to-left override in a name is
        # printed as its escape, never obeyed (the table's widths are the escaped names').
        title = get_ruleset(encounter.ruleset).title
        shown_odds = dataclasses.replace(
            odds, combatants=tuple(dataclasses.replace(c, name=visible(c.name)) for c in odds.combatants)
        )
        print(visible(f"{heading(encounter.name, title)}, {state_words(encounter)}: {odds.seconds:.2f} s"))
        print(visible(shown_odds.text(), lines=True))
    sys.stdout.flush()  # a closed pipe found here, not at the interpreter's exit
    return 0


def is_session(path: Path) -> bool:
    """A folder with a session.json (another folder is refused as an encounter file would be)."""
    try:
        return path.is_dir() and (path / "session.json").is_file()
    except OSError:  # a name too long for the system, a folder not to be read: the file's own refusal says
        return False


def session_command(args: argparse.Namespace) -> int:
    """The session folder's encounters, each against the party as it stands (the Session dock's table)."""
    from lnl_desktop.core.session.folder import open_session
    from lnl_desktop.core.session.odds import odds_table, session_odds

    try:
        folder = open_session(args.file)
        found = session_odds(folder, None, args.fights, args.seed)
    except RulesError as error:
        print(visible(f"lnl-desktop: {error}", lines=True), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"session": folder.session.name, "encounters": [f.as_dict() for f in found]}, indent=1))
    else:
        print(visible(odds_table(folder, found), lines=True))
    sys.stdout.flush()
    return 0
