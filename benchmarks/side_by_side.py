"""The benchmarks of two revisions side by side in one run: before (a git revision) and after (the checkout).

    python3 dev.py bench --against REV [--after REV] [--rounds N] [bench_core bench_osr ...] [-- ARGS]

Each benchmark script runs alternately on the revision (a git worktree of it, its own code and its own
script) and on the checkout, ``--rounds`` times, so both see the same machine load; every line that
prints a median ("what: median 1.23 ms ...") is compared by the median of its rounds. A figure more than
5 % slower is marked. Lines only one side prints are listed apart.
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
ROW = re.compile(r"^\s+(?P<what>.+?) \(budget [\d.]+ (?P<unit>us|ms|s)\): (?P<cells>.+)$")
MEDIAN = re.compile(r"^(?P<what>.+?): median (?P<value>[\d.]+) ?(?P<unit>us|µs|ms|s)\b")
SCALE = {"us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
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


def run(tree: Path, script: str, scripts: Path | None = None, extra: tuple[str, ...] = ()) -> dict[str, float]:
    """The medians one run of ``script`` (from ``scripts``' benchmarks, else ``tree``'s) prints on ``tree``'s code,
    in seconds, by what they measure."""
    env = dict(os.environ, PYTHONPATH=str(tree), QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    done = subprocess.run(
        [sys.executable, str((scripts or tree) / "benchmarks" / script), *extra],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    found: dict[str, float] = {}
    heading = ""
    for line in done.stdout.splitlines():
        row = ROW.match(line)
        if row:
            for cell in row["cells"].split(" | "):
                label, _, value = cell.partition(": ")
                number = value.replace("OVER", "").strip()
                if number not in ("", "-"):
                    found[f"{heading}: {row['what']} [{label}]"] = float(number) * SCALE[row["unit"]]
            continue
        match = MEDIAN.match(line.strip())
        if match:
            what, seen = match["what"], 1
            while what in found:  # the same words again (a "warm" line under each case): number them
                seen += 1
                what = f"{match['what']} ({seen})"
            found[what] = float(match["value"]) * SCALE[match["unit"]]
        elif line.strip() and not line.startswith(" "):
            heading = line.strip().split(",")[0]  # "300x300 map", "Long lines and cave walls (100x100 map"
    if done.returncode != 0 and not found:
        print(f"  {script} failed on {tree}:\n{done.stderr[-800:]}", file=sys.stderr)
    return found


def shown(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


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
    slower = 0
    for script in names:
        if not (before_tree / "benchmarks" / script).exists():
            print(f"{script}: new, nothing to compare with")
            continue
        runs: dict[str, tuple[list[float], list[float]]] = {}
        for _ in range(args.rounds):
            for side, tree in ((0, before_tree), (1, after_tree)):
                scripts = after_tree if args.same_scripts else None
                for what, value in run(tree, script, scripts, passed).items():
                    runs.setdefault(what, ([], []))[side].append(value)
        print(f"{script} ({args.rounds} rounds each, alternating)")
        for what, (before, after) in runs.items():
            if not before or not after:
                print(f"  {what}: only {'after' if after else 'before'}")
                continue
            b, a = statistics.median(before), statistics.median(after)
            ratio = a / b if b > 0 else 1.0
            mark = "  SLOWER" if ratio > SLOWER else ""
            slower += bool(mark)
            print(f"  {what}: before {shown(b)}, after {shown(a)} ({(ratio - 1) * 100:+.1f} %){mark}")
    print(f"{slower} figure(s) more than {round((SLOWER - 1) * 100)} % slower")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
