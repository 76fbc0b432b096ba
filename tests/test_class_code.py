"""The dataclasses' methods from their kept code: the same classes as without it, and a bad file costs nothing."""

from __future__ import annotations

import dataclasses
import marshal
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lnl_desktop.class_code import FORMAT, ClassCode

ROOT = Path(__file__).resolve().parent.parent


def _make_classes() -> tuple[type, type]:
    """A frozen dataclass and a plain one, as the rules core writes them (defaults, factories, annotations)."""

    @dataclasses.dataclass(frozen=True)
    class Wound:
        where: str
        depth: int = 1
        notes: tuple[str, ...] = ()

    @dataclasses.dataclass
    class Tally:
        name: str
        marks: list[int] = dataclasses.field(default_factory=list)

    return Wound, Tally


def _with(kept: ClassCode, monkeypatch: pytest.MonkeyPatch) -> tuple[type, type]:
    monkeypatch.setattr(dataclasses, "exec", kept.exec, raising=False)
    try:
        return _make_classes()
    finally:
        monkeypatch.delattr(dataclasses, "exec")


def _behaviour(wound_cls: type, tally_cls: type) -> list[object]:
    wound = wound_cls("left arm", 3)
    tally = tally_cls("Tombril")
    tally.marks.append(2)
    try:
        wound.depth = 4  # frozen: refused
        refused = False
    except dataclasses.FrozenInstanceError:
        refused = True
    return [
        repr(wound),
        repr(tally),
        wound == wound_cls("left arm", 3),
        wound == wound_cls("left arm", 2),
        hash(wound) == hash(wound_cls("left arm", 3)),
        refused,
        tally_cls("x").marks is not tally_cls("x").marks,  # a fresh list each
        wound_cls.__init__.__annotations__,  # objects, not strings: no future flag slipped in
        wound_cls.__init__.__code__.co_code,
        wound_cls.__eq__.__code__.co_code,
        wound_cls.__setattr__.__code__.co_filename,
    ]


def test_a_class_made_from_kept_code_is_the_class_made_without(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _behaviour(*_make_classes())
    first = ClassCode(tmp_path / "code.marshal")
    assert _behaviour(*_with(first, monkeypatch)) == plain
    assert first.compiled > 0
    assert first.write()
    again = ClassCode(tmp_path / "code.marshal")
    assert _behaviour(*_with(again, monkeypatch)) == plain
    assert again.compiled == 0  # every method from the file: nothing compiled at this "start"
    assert again.used.keys() == first.used.keys()


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00garbage\xff" * 10,
        marshal.dumps((FORMAT, "2.7.18 (another interpreter)", {})),
        marshal.dumps(("another format", sys.version, {})),
    ],
    ids=["empty", "garbage", "another version", "another format"],
)
def test_a_file_that_cannot_be_used_is_ignored_and_written_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    path = tmp_path / "code.marshal"
    good = ClassCode(path)
    _with(good, monkeypatch)
    good.write()
    whole = path.read_bytes()
    path.write_bytes(content if content else whole[: len(whole) // 2])  # empty: a file cut off mid-write
    kept = ClassCode(path)
    assert kept.known == {}
    assert _behaviour(*_with(kept, monkeypatch)) == _behaviour(*_make_classes())
    assert kept.write()
    assert ClassCode(path).known.keys() == kept.used.keys()


def test_a_file_holding_something_else_than_code_for_a_text_is_compiled_past(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "code.marshal"
    good = ClassCode(path)
    _with(good, monkeypatch)
    path.write_bytes(marshal.dumps((FORMAT, sys.version, dict.fromkeys(good.used, 42))))  # no code in it
    kept = ClassCode(path)
    assert _behaviour(*_with(kept, monkeypatch)) == _behaviour(*_make_classes())
    assert kept.compiled == len(good.used)


def test_a_read_only_place_leaves_the_start_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    kept = ClassCode(blocked / "code.marshal")  # its folder cannot be made
    assert _behaviour(*_with(kept, monkeypatch)) == _behaviour(*_make_classes())
    assert kept.write() is False


def test_the_program_writes_the_file_at_exit_and_reads_it_at_the_next_start(tmp_path: Path) -> None:
    """Real processes: the rules core imported with the kept code, a second start compiles nothing."""
    path = tmp_path / "class-code.marshal"
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from lnl_desktop.class_code import install
        kept = install(Path({str(path)!r}), write_at_exit=True)
        from lnl_desktop.core.files.compiled import load_own
        from lnl_desktop.paths import demo_encounter_path
        encounter = load_own(demo_encounter_path())
        print(kept.compiled, len(kept.used), len(encounter.combatants))
        """
    )
    env = dict(os.environ)
    runs = [
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
        for _ in range(2)
    ]
    first, second = (tuple(int(n) for n in run.stdout.split()) for run in runs)
    assert first[0] > 100 and first[0] == first[1]  # the rules core's dataclasses: all compiled the first time
    assert second == (0, first[1], first[2])  # then none: the same methods, from the file
