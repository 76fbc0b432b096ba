"""Encounter files: save and load give the same encounter; bad files open nothing and say why."""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lnl_desktop.core.encounter.model import Side
from lnl_desktop.core.engine.engine import Engine
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.storage import EncounterFileError
from lnl_desktop.core.rules.lnl import script
from lnl_desktop.core.rules.lnl.model import Combatant, Encounter, Weapon
from lnl_desktop.paths import demo_encounter_path, resource


@pytest.fixture
def demo() -> Encounter:
    return storage.load(demo_encounter_path())


def test_the_demo_encounter_is_the_hill_giant_fight(demo: Encounter) -> None:
    names = {c.name for c in demo.combatants}
    assert {"Tombril", "Hill Giant", "Cedryk the Sneaky", "Janine the Pious"} <= names
    assert len(demo.side(Side.PARTY)) == 3 and len(demo.side(Side.OPPONENTS)) >= 3
    assert demo.map.walls and demo.map.difficult
    assert set(demo.tokens) == {c.id for c in demo.combatants}
    assert demo.combatant("hill-giant").size == 2


def test_save_then_load_keeps_a_fought_encounter_and_its_log(demo: Encounter, tmp_path: Path) -> None:
    engine = Engine(demo)
    engine.start_combat(face=5)
    engine.begin_turn("tombril")
    engine.move("tombril", (14, 6))
    script.attack(engine, "tombril", "hill-giant", "Shortsword", faces=[5, 3, 4, 3, 2])
    path = storage.save(demo, tmp_path / "fight.lnl")
    again = storage.load(path)
    assert again == demo
    assert again.combatant("hill-giant").stamina == 37
    assert [e.text for e in again.log] == [e.text for e in demo.log]


def test_saving_twice_writes_the_same_bytes(demo: Encounter, tmp_path: Path) -> None:
    a, b = tmp_path / "a.lnl", tmp_path / "b.lnl"
    storage.save(demo, a)
    storage.save(storage.load(a), b)
    assert a.read_bytes() == b.read_bytes()


def test_not_json_says_where(tmp_path: Path) -> None:
    bad = tmp_path / "bad.lnl"
    bad.write_text('{"format": "lnl-encounter", "version": 1,\n "encounter": {,}}')
    with pytest.raises(EncounterFileError, match="not valid JSON.*line 2"):
        storage.load(bad)


def test_a_bad_value_names_the_field(demo: Encounter, tmp_path: Path) -> None:
    document = storage.to_document(demo)
    document["encounter"]["combatants"][1]["level"] = 0
    document["encounter"]["combatants"][3]["weapons"][0]["die"] = "d7"
    bad = tmp_path / "bad.lnl"
    bad.write_text(json.dumps(document))
    with pytest.raises(EncounterFileError) as caught:
        storage.load(bad)
    message = str(caught.value)
    assert "encounter.combatants[1].level" in message
    assert "encounter.combatants[3].weapons[0].die" in message
    assert "2 problems" in message


def test_stamina_above_its_maximum_is_refused(demo: Encounter) -> None:
    document = storage.to_document(demo)
    document["encounter"]["combatants"][0]["stamina"] = 99
    with pytest.raises(EncounterFileError, match="stamina: 99 SP is above the maximum of 55"):
        storage.loads(json.dumps(document))


def test_a_token_of_nobody_is_refused(demo: Encounter) -> None:
    document = storage.to_document(demo)
    document["encounter"]["tokens"]["ghost"] = {"cell": [1, 1], "facing": 0}
    with pytest.raises(EncounterFileError, match="tokens.ghost: no combatant"):
        storage.loads(json.dumps(document))


def test_other_json_and_newer_files_are_refused() -> None:
    with pytest.raises(EncounterFileError, match="not a Laurels & Loot encounter"):
        storage.loads('{"hello": 1}')
    with pytest.raises(EncounterFileError, match="newer version"):
        storage.loads('{"format": "lnl-encounter", "version": 99, "encounter": {}}')


def test_a_failed_save_leaves_the_old_file_whole(
    demo: Encounter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "keep.lnl"
    storage.save(demo, target)
    before = target.read_bytes()

    monkeypatch.setattr(storage.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        storage.save(demo, target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["keep.lnl"]


def test_the_committed_schema_matches_the_models() -> None:
    committed = resource("schema", "encounter.schema.json").read_text(encoding="utf-8")
    assert committed == storage.schema_text(), "run `python3 dev.py schema` and commit the result"


names = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FFF), min_size=1, max_size=20).filter(
    lambda s: any(ch.isalnum() for ch in s) and s.strip() == s
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=names,
    level=st.integers(1, 40),
    stamina_max=st.integers(0, 500),
    injury_max=st.integers(1, 200),
    bonus=st.integers(-10, 30),
    die=st.sampled_from(["d4", "d6", "d8", "d10"]),
    magic=st.integers(0, 10),
)
def test_save_then_load_gives_an_equal_encounter(
    name: str, level: int, stamina_max: int, injury_max: int, bonus: int, die: str, magic: int
) -> None:
    combatant = Combatant(
        id="c1",
        name=name,
        side=Side.PARTY,
        level=level,
        str_bonus=bonus,
        stamina_max=stamina_max,
        injury_max=injury_max,
        weapons=[Weapon(name="W", die=die, magic_bonus=magic)],  # type: ignore[arg-type]
    )
    encounter = Encounter(name=name, combatants=[combatant])
    assert storage.loads(storage.dumps(encounter)) == encounter
