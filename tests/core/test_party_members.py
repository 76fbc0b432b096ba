"""The Party's members, kept between the four asks of a move (party_view), are always the very
combatants of the Party now: after a side changed in place, a combatant replaced by an equal copy,
added, removed or moved in the list, and on another encounter."""

from __future__ import annotations

from lnl_desktop.core import Combatant, Encounter, MapGrid, Side, Token
from lnl_desktop.core.engine import party_view

PARTY, OPP = Side.PARTY, Side.OPPONENTS


def fighter(name: str, side: Side) -> Combatant:
    return Combatant(name=name, side=side, level=1, stamina_max=10, injury_max=10)


def by_hand(encounter: Encounter) -> list[int]:
    return [id(c) for c in encounter.combatants if c.side is PARTY]


def kept(encounter: Encounter) -> list[int]:
    return [id(c) for c in party_view._party_members(encounter)]


def test_the_kept_members_are_the_partys_after_every_kind_of_change() -> None:
    combatants = [fighter(f"F{n}", PARTY if n % 2 else OPP) for n in range(8)]
    e = Encounter(map=MapGrid(width=10, height=10), combatants=combatants)
    assert kept(e) == by_hand(e) and len(kept(e)) == 4
    e.combatants[0].side = PARTY  # in place
    assert kept(e) == by_hand(e) and len(kept(e)) == 5
    e.combatants[1] = e.combatants[1].model_copy()  # an equal copy: the new object is the member
    assert kept(e) == by_hand(e)
    e.combatants.append(fighter("New", PARTY))
    assert kept(e) == by_hand(e) and len(kept(e)) == 6
    del e.combatants[3]
    assert kept(e) == by_hand(e) and len(kept(e)) == 5
    e.combatants.reverse()
    assert kept(e) == by_hand(e)
    other = Encounter(map=MapGrid(width=10, height=10), combatants=[fighter("Solo", PARTY)])
    assert kept(other) == by_hand(other) and len(kept(other)) == 1
    assert kept(e) == by_hand(e)


def test_the_partys_sight_follows_a_member_going_down_in_place() -> None:
    ana, bo = fighter("Ana", PARTY), fighter("Bo", OPP)
    tokens = {ana.id: Token(cell=(5, 5), facing=0), bo.id: Token(cell=(5, 2), facing=180)}
    e = Encounter(map=MapGrid(width=10, height=10), combatants=[ana, bo], tokens=tokens)
    assert (5, 2) in party_view.party_view(e)
    ana.injury = 0  # down: sees nothing for the group
    assert ana.down and party_view.party_view(e) == frozenset()
    bo.side = PARTY  # now of the Party, in place: its eyes count
    assert (5, 8) in party_view.party_view(e)
