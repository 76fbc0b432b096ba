"""The round log kept in a LogBook: every event of a long fight, the old ones sealed compact, reads
back as the list of events the engine made (index, slices, both ways), writes the very same file,
and an undo reaching into sealed events puts the log back exactly."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import pytest

from lnl_desktop.core import Combatant, Encounter, Engine, MapGrid, RandomDice, Side, Token, Weapon
from lnl_desktop.core.encounter import log_book
from lnl_desktop.core.encounter.events import Event, RoundEnded, Undone
from lnl_desktop.core.encounter.log_book import LogBook
from lnl_desktop.core.files import storage
from lnl_desktop.core.files.journal import _BaseText
from lnl_desktop.core.rules.lnl import script


def fighter(name: str, side: Side, **fields: Any) -> Combatant:
    data: dict[str, Any] = {
        "name": name,
        "side": side,
        "level": 3,
        "stamina_max": 200,
        "injury_max": 100,
        "weapons": [Weapon(name="Sword", die="d6")],
    }
    return Combatant(**{**data, **fields})


def duel(seed: int = 1, plain: bool = False) -> Engine:
    """Ana and Orc face to face; ``plain``: the log kept as a plain list, the way it was kept before."""
    encounter = Encounter(
        map=MapGrid(width=30, height=30),
        combatants=[fighter("Ana", Side.PARTY), fighter("Orc", Side.OPPONENTS)],
        tokens={"ana": Token(cell=(10, 10), facing=90), "orc": Token(cell=(11, 10), facing=270)},
    )
    if plain:
        encounter.log = []  # type: ignore[assignment]
    engine = Engine(encounter, RandomDice(seed))
    engine.start_combat(face=4)
    return engine


def play_round(engine: Engine) -> None:
    """Each fighter steps aside and back, strikes the other and ends the turn; the GM heals; next round."""
    while engine.waiting():
        who = engine.waiting()[0].id
        engine.begin_turn(who)
        x, y = engine.encounter.tokens[who].cell
        engine.move(who, (x, y - 1))
        engine.move(who, (x, y))
        script.attack(engine, who, "orc" if who == "ana" else "ana", "Sword")
        engine.end_turn()
    for c in list(engine.encounter.combatants):
        if c.stamina < c.stamina_max or c.injury < c.injury_max:
            engine.edit(c.id, stamina=c.stamina_max, injury=c.injury_max)
    engine.next_round()


def with_plain_log(encounter: Encounter, events: list[Event]) -> Encounter:
    return type(encounter).model_construct(**{**encounter.__dict__, "log": list(events)})


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 8 events, 8 kept live: a few rounds seal several chunks."""
    monkeypatch.setattr(log_book, "CHUNK", 8)
    monkeypatch.setattr(log_book, "LIVE", 8)


def test_a_thousand_round_fights_log_is_every_event_as_made_and_the_same_file() -> None:
    engine = duel()
    made: list[Event] = list(engine.encounter.log)
    engine.subscribe(made.extend)
    for _ in range(1000):
        play_round(engine)
    log = engine.encounter.log
    assert isinstance(log, LogBook)
    assert len(log) == len(made) > 10_000
    assert log.sealed >= len(made) - log_book.LIVE - log_book.CHUNK  # all but the newest few hundred sealed
    assert all(a == b for a, b in zip(log, made, strict=True))  # event by event
    assert [e.round for e in log[:20]] == [e.round for e in made[:20]]
    text = storage.dumps(engine.encounter)
    assert text == storage.dumps(with_plain_log(engine.encounter, made))  # byte for byte
    assert _BaseText()(engine.encounter) == text  # the journal's text of it too
    assert storage.loads(text).log == made


def test_the_log_reads_as_the_list_it_stands_for(small_chunks: None) -> None:
    engine = duel()
    for _ in range(6):
        play_round(engine)
    log = engine.encounter.log
    made = list(log)
    assert isinstance(log, LogBook) and log.sealed >= 3 * 8
    n = len(made)
    assert len(log) == n and bool(log) and not LogBook()
    assert [log[i] for i in range(-n, n)] == made + made
    for index in (slice(None), slice(3, 30), slice(-12, None), slice(5, 60, 7), slice(None, None, -1), slice(40, 2)):
        assert log[index] == made[index]
    assert list(reversed(log)) == made[::-1]
    assert log == made and log.index(made[17]) == made.index(made[17])
    with pytest.raises(IndexError):
        log[n]
    with pytest.raises(IndexError):
        log[-n - 1]


def test_an_undo_reaching_into_sealed_events_puts_the_log_back_exactly(small_chunks: None) -> None:
    book, plain = duel(seed=5), duel(seed=5, plain=True)
    for engine in (book, plain):
        for _ in range(4):
            play_round(engine)
    log = book.encounter.log
    assert isinstance(log, LogBook) and isinstance(plain.encounter.log, list)
    assert len(log) - log.sealed < 16  # an undo of a round's actions cuts into sealed chunks
    sealed = [log.sealed]
    for _ in range(30):  # back two rounds
        book.undo()
        plain.undo()
        sealed.append(log.sealed)
    assert min(sealed) < sealed[0]  # sealed events were opened again
    assert log == plain.encounter.log
    assert sum(isinstance(e, Undone) for e in log) == 30
    assert storage.dumps(book.encounter) == storage.dumps(plain.encounter)
    for engine in (book, plain):  # redone with the same faces, then played on: the logs stay alike
        for _ in range(30):
            engine.redo()
        play_round(engine)
    assert log == plain.encounter.log
    assert storage.dumps(book.encounter) == storage.dumps(plain.encounter)


def test_copies_share_sealed_events_and_change_apart(small_chunks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = duel()
    for _ in range(4):
        play_round(engine)
    encounter = engine.encounter
    made = list(encounter.log)
    decoded: list[object] = []
    real = log_book._Chunk.decode
    monkeypatch.setattr(log_book._Chunk, "decode", lambda chunk: decoded.append(chunk) or real(chunk))
    deep = deepcopy(encounter)
    validated = type(encounter).model_validate(encounter.model_dump(mode="json"))
    assert decoded == []  # copied without reading the sealed events
    deep.log.append(RoundEnded(round=9, text="Only in the copy"))
    del validated.log[3:]
    assert encounter.log == made and deep.log[:-1] == made and validated.log == made[:3]
    assert isinstance(deep.log, LogBook) and isinstance(validated.log, LogBook)
    assert encounter.copy_without_log().log == []


def test_a_file_read_back_keeps_its_log_in_a_book_and_the_same_text(small_chunks: None, tmp_path: Any) -> None:
    engine = duel()
    for _ in range(5):
        play_round(engine)
    path = storage.save(engine.encounter, tmp_path / "long.lnl")
    read = storage.load(path)
    assert isinstance(read.log, LogBook) and read.log.sealed > 0
    assert read.log == engine.encounter.log
    assert storage.dumps(read) == path.read_text(encoding="utf-8")


def test_a_change_anywhere_changes_the_log_as_it_would_a_list(small_chunks: None) -> None:
    engine = duel()
    for _ in range(4):
        play_round(engine)
    log = engine.encounter.log
    made = list(log)
    extra = RoundEnded(round=99, text="A line put in")
    changes = [
        lambda events: events.pop(),
        lambda events: events.pop(3),
        lambda events: events.insert(5, extra),
        lambda events: events.__setitem__(-2, extra),
        lambda events: events.__setitem__(1, extra),
        lambda events: events.__delitem__(slice(4, 20)),
        lambda events: events.__delitem__(-3),
        lambda events: events.__delitem__(slice(2, None, 5)),
    ]
    for change in changes:
        change(made)
        change(log)
        assert log == made and len(log) == len(made)
    assert isinstance(log, LogBook) and log.sealed > 0
