"""Bad encounter files: every one is refused with a message naming the file and the fault, quickly,
and nothing else happens (no hang, no memory eaten, no traceback from the command line)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lnl_desktop.core.encounter.model import MOST_CONDITIONS, MOST_TRAITS, MOST_WEAPONS, Encounter
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.storage import MAX_FILE_BYTES, EncounterFileError
from lnl_desktop.core.rules.lnl import script
from lnl_desktop.paths import demo_encounter_path

ROOT = Path(__file__).resolve().parents[2]
no_fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")


@pytest.fixture
def demo() -> Encounter:
    return storage.load(demo_encounter_path())


@pytest.fixture
def fought(demo: Encounter) -> dict[str, Any]:
    """The demo in round 1 with Tombril's turn under way after a move and an attack, as a document."""
    engine = Engine(demo)
    engine.start_combat(face=5)
    engine.begin_turn("tombril")
    engine.move("tombril", (14, 6))
    script.attack(engine, "tombril", "hill-giant", "Shortsword", faces=[5, 3, 4, 3, 2])
    return storage.to_document(demo)


def refused(document: dict[str, Any] | str) -> str:
    text = document if isinstance(document, str) else json.dumps(document)
    with pytest.raises(EncounterFileError) as caught:
        storage.loads(text, "bad.lnl")
    return str(caught.value)


def in_thread(call: Callable[[], object], seconds: float, unblock: Callable[[], None]) -> BaseException | None:
    """Run ``call`` in a thread; fail if it is not done in time (after ``unblock`` lets it go)."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as error:  # handed to the test to judge
            outcome.append(error)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        unblock()
        thread.join(5)
        pytest.fail(f"still running after {seconds} s")
    return outcome[0]


def open_fifo_writer(path: Path) -> None:
    # A reader blocked in open() gets EOF once a writer comes and goes.
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


# -- the text itself -----------------------------------------------------------------------------


def test_deep_nesting_is_refused_before_the_parser_recurses() -> None:
    message = refused("[" * 100_000 + "]" * 100_000)
    assert "bad.lnl is nested more than 64 levels deep" in message


def test_deep_nesting_inside_a_real_file_is_refused(fought: dict[str, Any], tmp_path: Path) -> None:
    text = json.dumps(fought).replace('"notes": ""', '"notes": ' + "[" * 5_000 + "]" * 5_000, 1)
    path = tmp_path / "deep.lnl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(EncounterFileError, match="deep.lnl is nested more than 64 levels deep"):
        storage.load(path)


def test_brackets_inside_strings_do_not_count_as_nesting(demo: Encounter) -> None:
    demo.combatants[0].notes = "[" * 2000 + '\\"{' * 500
    assert storage.loads(storage.dumps(demo)) == demo


def test_an_integer_of_thousands_of_digits_is_refused(fought: dict[str, Any]) -> None:
    text = json.dumps(fought).replace('"level": 9', '"level": ' + "7" * 5_000, 1)
    message = refused(text)
    assert "bad.lnl has a number longer than 20 digits at line 1" in message
    assert '"level", 5,000 digits' in message and "sys." not in message


def test_nan_infinity_and_huge_floats_are_refused(fought: dict[str, Any]) -> None:
    text = json.dumps(fought)
    assert '"feet_before": 30.0' in text
    for token in ("NaN", "Infinity", "-Infinity"):
        assert f"{token} is not a number" in refused(text.replace('"feet_before": 30.0', f'"feet_before": {token}'))
    assert "1e999 is too large" in refused(text.replace('"feet_before": 30.0', '"feet_before": 1e999'))


def test_a_utf8_bom_is_accepted(demo: Encounter, tmp_path: Path) -> None:
    path = tmp_path / "bom.lnl"
    path.write_bytes(b"\xef\xbb\xbf" + storage.dumps(demo).encode("utf-8"))
    assert storage.load(path) == demo
    assert storage.loads("\ufeff" + storage.dumps(demo)) == demo


def test_text_that_is_not_utf8_says_so(tmp_path: Path) -> None:
    path = tmp_path / "latin.lnl"
    path.write_bytes(b'{"name": "Caf\xe9"}')
    with pytest.raises(EncounterFileError, match="latin.lnl is not a text file"):
        storage.load(path)


# -- what the path is ------------------------------------------------------------------------------


@no_fifos
def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.lnl"
    os.mkfifo(fifo)
    error = in_thread(lambda: storage.load(fifo), 10, lambda: open_fifo_writer(fifo))
    assert isinstance(error, EncounterFileError), error
    assert "pipe.lnl is a pipe (FIFO), not an encounter file" in str(error)


@no_fifos
def test_a_file_swapped_for_a_fifo_after_the_check_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The race: stat sees a regular file, then the path becomes a FIFO before the open.
    fifo = tmp_path / "swapped.lnl"
    os.mkfifo(fifo)
    real_stat = os.stat
    regular = real_stat(__file__)
    monkeypatch.setattr(storage.os, "stat", lambda p, *a, **k: regular if Path(p) == fifo else real_stat(p, *a, **k))
    error = in_thread(lambda: storage.load(fifo), 10, lambda: open_fifo_writer(fifo))
    assert isinstance(error, EncounterFileError), error
    assert "is a pipe (FIFO)" in str(error)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_dev_zero_is_refused_without_reading_it() -> None:
    # In a child with a memory cap: reading /dev/zero to its end would eat the machine.
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "from lnl_desktop.core.files import storage\n"
        "try:\n"
        "    storage.load('/dev/zero')\n"
        "except storage.EncounterFileError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "zero is a device, not an encounter file" in done.stdout


def test_a_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "folder.lnl"
    folder.mkdir()
    with pytest.raises(EncounterFileError, match="folder.lnl is a folder, not an encounter file"):
        storage.load(folder)


def test_a_file_over_the_size_limit_is_refused_naming_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.lnl"
    big.touch()
    os.truncate(big, 65 * 1024 * 1024)  # sparse: costs no disk
    with pytest.raises(EncounterFileError, match=r"big.lnl is 65 MB; encounter files are limited to 64 MB"):
        storage.load(big)
    assert MAX_FILE_BYTES == 64 * 1024 * 1024


def test_a_refused_file_is_left_as_it_was(fought: dict[str, Any], tmp_path: Path) -> None:
    fought["encounter"]["combat"]["acted"] = ["nobody"]
    path = tmp_path / "keep.lnl"
    path.write_text(json.dumps(fought), encoding="utf-8")
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    with pytest.raises(EncounterFileError):
        storage.load(path)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


# -- references and combat states ------------------------------------------------------------------


def test_a_dangling_id_in_acted_is_refused(fought: dict[str, Any]) -> None:
    fought["encounter"]["combat"]["acted"] = ["hill-giant", "ghost"]
    assert "encounter.combat.acted[1]: no combatant has the id 'ghost'" in refused(fought)


def test_a_dangling_id_in_ranged_hits_is_refused(fought: dict[str, Any]) -> None:
    combat = fought["encounter"]["combat"]
    combat["ranged_hits"] = {"ghost": ["tombril"]}
    assert "encounter.combat.ranged_hits.ghost: no combatant has this id" in refused(fought)
    combat["ranged_hits"] = {"hill-giant": ["ghost"]}
    assert "encounter.combat.ranged_hits.hill-giant[0]: no combatant has the id 'ghost'" in refused(fought)


def test_a_dangling_id_in_attacks_is_refused(fought: dict[str, Any]) -> None:
    attacks = fought["encounter"]["combat"]["attacks"]
    assert attacks == [{"round": 1, "attacker": "tombril", "target": "hill-giant"}]
    attacks[0]["target"] = "ghost"
    assert "encounter.combat.attacks[0].target: no combatant has the id 'ghost'" in refused(fought)


def test_a_turn_of_nobody_is_refused(fought: dict[str, Any]) -> None:
    fought["encounter"]["combat"]["turn"]["combatant"] = "ghost"
    assert "encounter.combat.turn.combatant: no combatant has the id 'ghost'" in refused(fought)


def test_a_turn_of_someone_who_already_acted_is_refused(fought: dict[str, Any]) -> None:
    fought["encounter"]["combat"]["acted"] = ["tombril"]
    assert "encounter.combat.turn.combatant: 'tombril' has already acted" in refused(fought)


def test_fighting_in_round_0_is_refused(fought: dict[str, Any]) -> None:
    fought["encounter"]["combat"]["round"] = 0
    assert "encounter.combat.round: combat is fighting in round 0; it starts in round 1" in refused(fought)


def test_a_turn_before_combat_started_is_refused(fought: dict[str, Any]) -> None:
    combat = fought["encounter"]["combat"]
    combat.update(phase="setup", round=0, attacks=[], ranged_hits={})
    assert "encounter.combat.turn: a turn is under way before combat has started" in refused(fought)


def test_turn_cells_outside_the_map_are_refused(fought: dict[str, Any]) -> None:
    turn = fought["encounter"]["combat"]["turn"]
    turn["path"][2] = [999, 999]
    assert "encounter.combat.turn.path[2]: cell (999, 999) is outside the 24 x 16 map" in refused(fought)
    turn["path"][2] = [10, 6]
    turn["start_cell"] = [999, 999]
    assert "encounter.combat.turn.start_cell: cell (999, 999) is outside the 24 x 16 map" in refused(fought)


def test_negative_movement_is_refused(fought: dict[str, Any]) -> None:
    fought["encounter"]["combat"]["turn"]["feet_before"] = -30
    assert "encounter.combat.turn.feet_before: Feet before cannot be below 0 (got -30)" in refused(fought)


# -- strict types ----------------------------------------------------------------------------------


def test_true_where_a_number_belongs_is_refused(fought: dict[str, Any]) -> None:
    fought["encounter"]["combatants"][0]["level"] = True
    assert "encounter.combatants[0].level: Level must be a whole number from 1 to 40 (got True)" in refused(fought)


def test_a_string_where_a_number_belongs_is_refused(fought: dict[str, Any]) -> None:
    fought["encounter"]["combatants"][0]["stamina"] = "5"
    fought["encounter"]["combat"]["round"] = "1"
    message = refused(fought)
    assert "encounter.combatants[0].stamina: SP must be a whole number from 0 to 10,000 (got '5')" in message
    assert "encounter.combat.round: Round must be a whole number, at least 0 (got '1')" in message


def test_a_number_where_a_flag_belongs_is_refused(fought: dict[str, Any]) -> None:
    fought["encounter"]["combatants"][0]["concealed"] = 1
    assert "encounter.combatants[0].concealed: Concealed must be true or false (got 1)" in refused(fought)


def test_what_the_program_saves_still_loads_strictly(fought: dict[str, Any]) -> None:
    # Enums as their values, cells as lists, wall sets as lists, events with die faces.
    encounter = storage.loads(json.dumps(fought))
    assert storage.loads(storage.dumps(encounter)) == encounter
    assert encounter.combat.turn is not None and encounter.combat.turn.path[-1] == (14, 6)


# -- the command line --------------------------------------------------------------------------------


def run_cli(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lnl_desktop", str(path)], capture_output=True, text=True, timeout=60, cwd=ROOT
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("[" * 100_000, "lnl-desktop: bad.lnl is nested more than 64 levels deep"),
        (
            '{"format": "lnl-encounter", "version": 1, "encounter": {"name": ' + "1" * 5_000 + "}}",
            "lnl-desktop: bad.lnl has a number longer than 20 digits at line 1",
        ),
    ],
    ids=["deep", "huge-int"],
)
def test_the_command_line_prints_the_message_and_exits_2(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "bad.lnl"
    path.write_text(content, encoding="utf-8")
    done = run_cli(path)
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr
    assert "Traceback" not in done.stderr


@no_fifos
def test_the_command_line_refuses_a_fifo_and_exits_2(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.lnl"
    os.mkfifo(fifo)
    try:
        done = run_cli(fifo)
    except subprocess.TimeoutExpired:
        pytest.fail("lnl-desktop hung on a FIFO")
    assert done.returncode == 2, done.stderr
    assert "lnl-desktop: pipe.lnl is a pipe (FIFO), not an encounter file" in done.stderr
    assert "Traceback" not in done.stderr


# -- a refusal is short ------------------------------------------------------------------------------


def test_a_hundred_thousand_log_entries_of_no_kind_are_refused_with_the_first_problems_and_a_count(
    fought: dict[str, Any], tmp_path: Path
) -> None:
    """Every bad entry used to be a line of the message (66 MB, gigabytes to show): now the first
    problems and one line counting the rest."""
    fought["encounter"]["log"] += [{"kind": "nonsense", "text": f"entry {i}"} for i in range(100_000)]
    path = tmp_path / "noise.lnl"
    path.write_text(json.dumps(fought), encoding="utf-8")
    with pytest.raises(EncounterFileError) as caught:
        storage.load(path)
    lines = str(caught.value).splitlines()
    assert len(lines) == 21
    assert lines[0] == "noise.lnl has 100,000 problems:"
    first = len(fought["encounter"]["log"]) - 100_000  # the fight's own entries are good
    assert lines[1] == f"encounter.log[{first}]: Log: there is no kind called 'nonsense' (misspelt?)"
    assert lines[19].startswith(f"encounter.log[{first + 18}]: ")
    assert lines[20] == "… and 99,981 more problems"
    assert caught.value.reasons == lines[1:]


def _many(encounter: dict[str, Any], path: str, bad: Any, count: int) -> None:
    *parents, name = path.split(".")
    at = encounter
    for parent in parents:
        at = at.setdefault(parent, {})
    if name == "tokens":
        at[name] = {**at[name], **{f"t{i}": bad for i in range(count)}}
    else:
        at[name] = [*at.get(name, []), *[bad] * count]


@pytest.mark.parametrize(
    ("path", "bad", "each"),
    [
        ("combatants", {"name": "Goblin"}, 6),  # side, and the stat block's five numbers, missing
        ("tokens", {"cell": "x"}, 1),
        ("map.walls", [1.5, 2], 1),
        ("map.difficult", None, 1),
        ("map.segments", {"a": [0, 0]}, 1),
        ("map.doors", "door", 1),
        ("log", {"kind": "moved"}, 4),
        ("combat.acted", 5, 1),
    ],
)
def test_every_long_list_is_refused_with_the_first_problems_and_a_count(
    demo: Encounter, path: str, bad: Any, each: int
) -> None:
    document = storage.to_document(demo)
    _many(document["encounter"], path, bad, 3_000)
    document["encounter"]["name"] = ""  # and one problem outside the long list
    lines = refused(document).splitlines()
    total = 3_000 * each + 1
    assert lines[0] == f"bad.lnl has {total:,} problems:"
    assert lines[1] == "encounter.name: Name cannot be empty (got '')"
    assert lines[2].startswith(f"encounter.{path}")
    assert len(lines) == 21 and lines[-1] == f"… and {total - 19:,} more problems"


def test_a_few_problems_are_all_listed(fought: dict[str, Any]) -> None:
    fought["encounter"]["combat"]["acted"] = [1] * 20
    lines = refused(fought).splitlines()
    assert lines[0] == "bad.lnl has 20 problems:" and len(lines) == 21
    assert lines[-1] == "encounter.combat.acted[19]: Acted must be text (got 1)"
    fought["encounter"]["combat"]["acted"] = [1] * 21
    lines = refused(fought).splitlines()
    assert lines[0] == "bad.lnl has 21 problems:" and lines[-1] == "… and 2 more problems" and len(lines) == 21


def test_a_long_good_log_reads_as_the_whole_encounter_validated_at_once(fought: dict[str, Any]) -> None:
    fought["encounter"]["log"] *= 500
    encounter = storage.loads(json.dumps(fought))
    data = fought["encounter"]
    whole = type(encounter).model_validate_json(json.dumps(data), strict=True)
    assert len(encounter.log) == len(data["log"]) > storage.LONG_LIST
    assert encounter == whole and encounter.model_fields_set == whole.model_fields_set
    assert storage.dumps(encounter) == storage.dumps(whole)


def test_explain_lists_at_most_the_first_problems_and_a_count() -> None:
    from pydantic import BaseModel, ValidationError

    from lnl_desktop.core.encounter.validation import explain

    class Numbers(BaseModel):
        values: list[int]

    with pytest.raises(ValidationError) as caught:
        Numbers.model_validate({"values": ["x"] * 5_000})
    lines = explain(caught.value).splitlines()
    assert len(lines) == 20 and lines[-1] == "… and 4,981 more problems"


def test_walls_measuring_past_the_limit_are_refused_at_once_and_short_ones_read() -> None:
    """Walls drawn across the whole map cost painting and sight as much as their length: an encounter
    whose walls and doors measure over MAX_WALL_CELLS cells together is refused, the limit named."""
    from lnl_desktop.core.encounter.map_model import MAX_WALL_CELLS

    document = json.loads(demo_encounter_path().read_text(encoding="utf-8"))
    grid = document["encounter"]["map"]
    grid["width"] = grid["height"] = 100
    diagonal = {"a": [0.0, 0.0], "b": [100.0, 100.0]}  # 141.4 cells
    count = MAX_WALL_CELLS // 141 + 10
    grid["segments"] = [diagonal] * count
    with pytest.raises(EncounterFileError) as refused:
        storage.loads(json.dumps(document), "across.lnl")
    words = str(refused.value)
    assert f"{count:,} wall segments and doors measure" in words and f"at most {MAX_WALL_CELLS:,} cells" in words
    assert len(words.splitlines()) == 2
    grid["segments"] = [{"a": [1.0, 1.0], "b": [2.0, 1.0]}] * count  # a cell each: fine
    assert len(storage.loads(json.dumps(document), "short.lnl").map.segments) == count


# -- long lists inside the encounter's parts -----------------------------------------------------------


def _refused_within(document: dict[str, Any], most_mb: float) -> list[str]:
    """The refusal's lines, the Python memory taken while reading the file at most ``most_mb``: the
    problems of a long list are made and held a slice at a time."""
    import tracemalloc

    text = json.dumps(document)
    tracemalloc.start()
    try:
        with pytest.raises(EncounterFileError) as caught:
            storage.loads(text, "bad.lnl")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < most_mb * 1024 * 1024, f"{peak / 1024 / 1024:.0f} MB"
    lines = str(caught.value).splitlines()
    assert len(lines) <= 21 and caught.value.reasons == lines[1:]
    return lines


@pytest.mark.parametrize(
    ("field", "bad", "most"),
    [
        ("traits", "x", MOST_TRAITS),
        ("traits", 7, MOST_TRAITS),
        ("weapons", {"name": "Sword", "die": "d8", "kind": "catapult"}, MOST_WEAPONS),
        ("conditions", ["x"], MOST_CONDITIONS),
    ],
    ids=["trait-words", "trait-numbers", "weapons", "conditions"],
)
def test_a_combatants_list_past_its_limit_is_refused_before_its_items_are_read(
    demo: Encounter, field: str, bad: Any, most: int
) -> None:
    document = storage.to_document(demo)
    combatant = document["encounter"]["combatants"][1]
    combatant[field] = [bad] * 60_000
    lines = _refused_within(document, 40)
    assert lines == [
        "bad.lnl has 1 problem:",
        f"encounter.combatants[1].{field}: 60,000 items, more than the {most:,} it may hold",
    ]


def test_a_combatants_list_within_its_limit_says_each_bad_item(demo: Encounter) -> None:
    document = storage.to_document(demo)
    document["encounter"]["combatants"][1]["traits"] = [7] * MOST_TRAITS
    lines = _refused_within(document, 40)
    assert lines[0] == f"bad.lnl has {MOST_TRAITS} problems:"
    assert lines[1].startswith("encounter.combatants[1].traits[0]")


def test_a_long_list_inside_a_long_log_is_refused_with_the_rest_counted(fought: dict[str, Any]) -> None:
    log = fought["encounter"]["log"]
    fought["encounter"]["log"] = log * (storage.LONG_LIST // len(log) + 1)
    rolled = next(i for i, entry in enumerate(fought["encounter"]["log"]) if entry.get("faces"))
    entry = fought["encounter"]["log"][rolled] = dict(fought["encounter"]["log"][rolled])
    entry["faces"] = ["x"] * 100_000
    fought["encounter"]["name"] = ""
    lines = _refused_within(fought, 40)
    assert lines[0] == "bad.lnl has 100,001 problems:"
    assert lines[1] == "encounter.name: Name cannot be empty (got '')"
    assert lines[2].startswith(f"encounter.log[{rolled}].faces[0]")
    assert lines[20] == "… and 99,982 more problems"


def test_an_object_of_many_unknown_names_is_refused_a_few_named(demo: Encounter) -> None:
    document = storage.to_document(demo)
    combatant = document["encounter"]["combatants"][0]
    combatant.update({f"extra{i}": i for i in range(50_000)})
    lines = _refused_within(document, 40)
    assert lines[0] == "bad.lnl has 50,000 problems:"
    assert lines[1] == "encounter.combatants[0].extra0: there is nothing called 'extra0' here (misspelt?)"
    assert lines[20] == "… and 49,981 more problems"


def test_a_long_good_list_inside_a_combatant_reads_as_validated_whole(demo: Encounter) -> None:
    document = storage.to_document(demo)
    combatant = document["encounter"]["combatants"][0]
    combatant["conditions"] = [*combatant.get("conditions", []), *["prone"] * 1_000]
    text = json.dumps(document)
    model = type(demo)
    try:
        whole = model.model_validate_json(json.dumps(document["encounter"]), strict=True)
    except Exception:  # a check of the combatants refuses so many: the file says the same
        with pytest.raises(EncounterFileError):
            storage.loads(text)
        return
    assert storage.dumps(storage.loads(text)) == storage.dumps(whole)


def test_a_long_file_name_is_cut_short_in_a_refusal(tmp_path: Path) -> None:
    long = "x" * 200
    missing = tmp_path / f"{long}.lnl"
    with pytest.raises(EncounterFileError) as caught:
        storage.load(missing)
    assert str(caught.value) == f"{'x' * storage.MAX_NAME_CHARS}…: no such file"
    with pytest.raises(EncounterFileError) as caught:
        storage.loads("[", "y" * 100_000)
    assert str(caught.value).startswith(f"{'y' * storage.MAX_NAME_CHARS}… is not valid JSON")
    done = subprocess.run(
        [sys.executable, "-m", "lnl_desktop", "odds", "z" * 100_000],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 2 and done.stderr.startswith(f"lnl-desktop: {'z' * storage.MAX_NAME_CHARS}…")
    assert len(done.stderr) < 200 and done.stderr.count("\n") == 1


@pytest.mark.parametrize("kind", [{"a": 1}, [1, 2], 7, None])
def test_a_log_entry_whose_kind_is_no_word_is_refused_in_words(kind: Any) -> None:
    """A long log is looked into entry by entry by its kind: one whose kind is an object, a list or a
    number is refused with the reason, never a TypeError."""
    document = json.loads(demo_encounter_path().read_text(encoding="utf-8"))
    entry = {"kind": "nonsense", "round": 1}
    document["encounter"]["log"] = [entry] * 300 + [{**entry, "kind": kind}]
    with pytest.raises(EncounterFileError) as refused:
        storage.loads(json.dumps(document), "kinds.lnl")
    assert "encounter.log[300]" in str(refused.value) or "more problems" in str(refused.value)


@pytest.mark.parametrize(
    ("where", "says"),
    [
        ("drawings", "encounter.drawings: 20,000 items, more than the 500 it may hold"),
        ("lights", "encounter.lights: 20,000 items, more than the 500 it may hold"),
        ("templates", "encounter.templates: 20,000 items, more than the 100 it may hold"),
        ("explored", "encounter.fog.explored: 100,000 items, more than the 384 cells of a 24 x 16 map"),
        ("cell", "encounter.fog.explored[0]: 100,000 items, more than the 2 it may hold"),
    ],
)
def test_the_encounters_own_lists_past_their_limits_are_refused_before_their_items_are_read(
    demo: Encounter, where: str, says: str
) -> None:
    document = storage.to_document(demo)
    encounter = document["encounter"]
    grid = encounter["map"]
    assert (grid["width"], grid["height"]) == (24, 16)
    if where in ("drawings", "lights", "templates"):  # each item wrong too: none of them is read
        encounter[where] = [{"kind": "blob"}] * 20_000
    elif where == "explored":
        encounter["fog"] = {"enabled": True, "explored": [[x % 24, x // 24 % 16] for x in range(100_000)]}
    else:
        encounter["fog"] = {"enabled": True, "explored": [list(range(100_000))]}
    assert _refused_within(document, 40) == ["bad.lnl has 1 problem:", says]


def test_a_map_of_many_lines_is_read_in_bulk_once_and_as_strict_validation_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check of long lists reads a map's many segments and doors in bulk; the encounter is then
    made from those very lines, not from a second reading (each ~20 ms on a 10,000-segment map)."""
    import numpy  # noqa: F401 - loaded, as on a window with a map: a few thousand lines are then read in bulk

    from lnl_desktop.core.encounter import map_model
    from lnl_desktop.core.files import long_lists

    document = json.loads(demo_encounter_path().read_text(encoding="utf-8"))
    grid = document["encounter"]["map"]
    grid["width"] = grid["height"] = 300
    grid["segments"] = [
        {"a": [x % 290 + 1.0, x // 290 + 1.0], "b": [x % 290 + 2.0, x // 290 + 1.5]} for x in range(6_000)
    ]
    grid["doors"] = [{"a": [y % 250 + 1.0, 60.0], "b": [y % 250 + 1.0, 61.0], "open": y % 2 == 0} for y in range(600)]
    assert map_model.in_bulk(len(grid["segments"])) and map_model.in_bulk(len(grid["doors"]))
    calls: list[int] = []
    real = map_model.lines_from_json

    def counted(items: Any, doors: bool) -> Any:
        if isinstance(items[0], dict):  # the file's JSON values (the map's own check is given models: no read)
            calls.append(len(items))
        return real(items, doors)

    for module in (map_model, long_lists, storage):
        monkeypatch.setattr(module, "lines_from_json", counted)
    encounter = storage.loads(json.dumps(document), "many.lnl")
    assert sorted(calls) == [600, 6_000]  # each list read once
    monkeypatch.undo()
    whole = type(encounter).model_validate_json(json.dumps(document["encounter"]), strict=True)
    assert encounter.map.segments == whole.map.segments and encounter.map.doors == whole.map.doors
    assert storage.dumps(encounter) == storage.dumps(whole)
