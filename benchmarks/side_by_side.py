"""The benchmarks of two revisions side by side in one run: before (a git revision) and after (the checkout).

    python3 dev.py bench --against REV [--after REV] [--rounds N] [bench_core bench_osr ...] [-- ARGS]

Each benchmark script runs alternately on the revision (a git worktree of it, its own code and its own
script, or the checkout's script where the revision has none) and on the checkout, ``--rounds`` times, so
both see the same machine load; every line that prints a median or a figure against its budget ("what:
median 1.23 ms (budget 5 ms)", "what: 35.1 MB (budget 15 MB)", "ratio: 4.5x (target 2.5x)") is compared by
the median of its rounds, and printed against its budget on both sides. A figure more than 5 % slower is
marked. Lines only one side prints are listed apart.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench_big_map's rows: "  a press on a token (budget 16.7 ms): 0: 3.1 | 200: 3.4 OVER", under a heading line.
ROW = re.compile(r"^\s+(?P<what>.+?) \(budget (?P<budget>[\d.]+) (?P<unit>us|ms|s)\): (?P<cells>.+)$")
# Any other figure: "what: median 1.23 ms (budget 5 ms) ok", "what: 35.10 MB (budget 15 MB to 1000) OVER BUDGET",
# "start-up ratio (app / bare window, source): 4.50x (target 2.5x) OVER", "Party move ...: 12.3 ms (budget 16.7 ms)".
FIGURE = re.compile(
    r"^(?P<what>.+?): (?:median )?(?P<value>[\d,]*\.?\d+) ?(?P<unit>us|µs|ms|s|MB|x)\b"
    r"(?:.*?\b(?:budget|target) (?P<budget>[\d,]*\.?\d+) ?(?P<bunit>us|µs|ms|s|MB|x)?)?"
)
# Several figures on one line, after its "what: " ("10,000 segments: repaint at fit 3.1 ms (budget 8 ms) ok,
# drag step median 2.0 ms, ..."): each a segment between commas.
SEGMENT = re.compile(
    r"^(?P<what>.+?) (?P<value>\d*\.?\d+) ?(?P<unit>us|ms|s)\b(?: \(budget (?P<budget>[\d.]+) ?(?P<bunit>us|ms|s)\))?"
)
SCALE = {"us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "MB": 1.0, "x": 1.0}
SLOWER = 1.05  # the bound: nothing slower by more than 5 %


def worktree(revision: str) -> Path:
    """A checkout of ``revision`` beside the temporary files, made once and reused."""
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{revision}^{{commit}}"], cwd=ROOT, capture_output=True, text=True
    )
    if commit.returncode != 0:
        raise SystemExit(f"bench --against: {revision!r} is not a revision of this repository")
    sha = commit.stdout.strip()
    place = Path(os.environ.get("TMPDIR", "/tmp")) / f"lnl-bench-{sha[:12]}"
    if not (place / "lnl_desktop").is_dir():
        subprocess.run(["git", "worktree", "add", "--detach", "-f", str(place), sha], cwd=ROOT, check=True)
    return place


Figure = tuple[float, float | None, str]  # value (seconds for times), its budget if printed, its unit


def run(tree: Path, script: str, scripts: Path | None = None, extra: tuple[str, ...] = ()) -> dict[str, Figure]:
    """The figures one run of ``script`` (from ``scripts``' benchmarks, else ``tree``'s) prints on ``tree``'s code,
    by what they measure: times in seconds, with the budget printed beside them."""
    env = dict(os.environ, PYTHONPATH=str(tree), QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    done = subprocess.run(
        [sys.executable, str((scripts or tree) / "benchmarks" / script), *extra],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    found: dict[str, Figure] = {}
    heading = ""
    for line in done.stdout.splitlines():
        row = ROW.match(line)
        if row:
            scale = SCALE[row["unit"]]
            for cell in row["cells"].split(" | "):
                label, _, value = cell.partition(": ")
                number = value.replace("OVER", "").strip()
                if number not in ("", "-"):
                    figure = (float(number) * scale, float(row["budget"]) * scale, row["unit"])
                    found[f"{heading}: {row['what']} [{label}]"] = figure
            continue
        if line.count("(budget ") > 1:
            prefix, _, rest = line.strip().partition(": ")
            for part in rest.split(", "):
                seg = SEGMENT.match(part)
                if seg:
                    scale, budget = SCALE[seg["unit"]], seg["budget"]
                    bound = None if budget is None else float(budget) * SCALE[seg["bunit"] or seg["unit"]]
                    found[f"{heading}: {prefix}: {seg['what']}"] = (float(seg["value"]) * scale, bound, seg["unit"])
            continue
        match = FIGURE.match(line.strip())
        if match and ("median" in line or match["budget"]):
            unit = match["unit"]
            budget = match["budget"]
            scale_budget = SCALE[match["bunit"] or unit]
            what = f"{heading}: {match['what']}" if line.startswith(" ") and heading else match["what"]
            base, seen = what, 1
            while what in found:  # the same words again (a "warm" line under each case): number them
                seen += 1
                what = f"{base} ({seen})"
            value = float(match["value"].replace(",", "")) * SCALE[unit]
            found[what] = (value, None if budget is None else float(budget.replace(",", "")) * scale_budget, unit)
        elif line.strip() and not line.startswith(" "):
            # "300x300 map, 500 tokens", "Long lines and cave walls (100x100 map": two maps of one size
            # (the 50x50 with 10 and with 200 tokens) are told apart by their tokens.
            sized = re.match(r"\d+x\d+ map, [\d,]+ tokens", line.strip())
            heading = sized[0] if sized else line.strip().split(",")[0]
    if done.returncode != 0 and not found:
        print(f"  {script} failed on {tree}:\n{done.stderr[-800:]}", file=sys.stderr)
    return found


def shown(value: float, unit: str = "s") -> str:
    if unit in ("MB", "x"):
        return f"{value:.2f}{'x' if unit == 'x' else ' MB'}"
    seconds = value
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def against_budget(value: float, budget: float | None) -> str:
    return "" if budget is None else ("ok" if value <= budget else "OVER")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="the revision to compare with (before)")
    parser.add_argument("--after", default="", help="a revision to measure instead of the checkout (after)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each script on each side (alternating)")
    parser.add_argument(
        "--same-scripts",
        action="store_true",
        help="run the after side's benchmark scripts on both sides' code (finer figures; needs the same names)",
    )
    parser.add_argument("scripts", nargs="*", help="bench_*.py names (default: every one both sides have)")
    passed = tuple(argv[argv.index("--") + 1 :]) if "--" in argv else ()  # after "--": to every script
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    before_tree = worktree(args.against)
    after_tree = worktree(args.after) if args.after else ROOT
    names = args.scripts or sorted(p.name for p in (ROOT / "benchmarks").glob("bench_*.py"))
    names = [n if n.endswith(".py") else f"{n}.py" for n in names]
    slower = over = 0
    for script in names:
        # A script the revision lacks runs from the checkout on the revision's code (when the code allows).
        own = (before_tree / "benchmarks" / script).exists() and not args.same_scripts
        runs: dict[str, tuple[list[Figure], list[Figure]]] = {}
        for _ in range(args.rounds):
            for side, tree in ((0, before_tree), (1, after_tree)):
                for what, figure in run(tree, script, None if own else after_tree, passed).items():
                    runs.setdefault(what, ([], []))[side].append(figure)
        scripts_said = "" if own else ", the checkout's script on both"
        print(f"{script} ({args.rounds} rounds each, alternating{scripts_said})")
        for what, (before, after) in runs.items():
            if not before or not after:
                print(f"  {what}: only {'after' if after else 'before'}")
                continue
            unit = after[0][2]
            b = statistics.median(f[0] for f in before)
            a = statistics.median(f[0] for f in after)
            budget = after[0][1] if after[0][1] is not None else before[0][1]
            ratio = a / b if b > 0 else 1.0
            mark = "  SLOWER" if ratio > SLOWER else ""
            slower += bool(mark)
            said = f"{what}: before {shown(b, unit)}, after {shown(a, unit)} ({(ratio - 1) * 100:+.1f} %)"
            if budget is not None:
                over += a > budget
                verdicts = f"before {against_budget(b, budget)}, after {against_budget(a, budget)}"
                said += f"; budget {shown(budget, unit)}: {verdicts}"
            print(f"  {said}{mark}")
    print(f"{slower} figure(s) more than {round((SLOWER - 1) * 100)} % slower; {over} figure(s) over budget after")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
