"""Crazy 4 Poker wager placement (§ 657a.7): every subsection's accept and refuse, cited."""

import pytest

from rules.crazy4 import (
    Action, BonusTarget, Crazy4Offer, Crazy4Table, Crazy4Wager as W, Decision, Instrument, WagerRequest,
)

ALL = Crazy4Offer(four_card_progressive=True, five_card_progressive=True, five_card_hand_bonus=True)


def req(wager, amount=500, player="p1", position=1, **kw):
    return WagerRequest(player, position, wager, amount, **kw)


def run(table, *requests):
    decisions = []
    for r in requests:
        d, table = table.request(r)
        decisions.append(d)
    return decisions, table


def with_ante_and_super_bonus(offer=ALL, amount=500, player="p1", position=1):
    ds, t = run(Crazy4Table(offer), req(W.ANTE, amount, player, position), req(W.SUPER_BONUS, amount, player, position))
    assert all(d.accepted for d in ds)
    return t


def test_a_verbal_wager_with_cash_is_refused():
    d, t = Crazy4Table().request(req(W.ANTE, instrument=Instrument.VERBAL_WITH_CASH))
    assert not d.accepted and d.citation == "§ 657a.7(a)" and "verbal" in d.reason and not t.positions
    for inst in (Instrument.VALUE_CHIPS, Instrument.PLAQUES, Instrument.OTHER_APPROVED):
        assert Crazy4Table().request(req(W.ANTE, instrument=inst))[0].accepted
    d, _ = Crazy4Table().request(req(W.ANTE, instrument=Instrument.ELECTRONIC_WAGERING_DEVICE))
    assert not d.accepted and d.citation == "§ 657a.7(a)"


def test_only_seated_players_wager():
    d, _ = Crazy4Table().request(req(W.ANTE, seated=False))
    assert not d.accepted and d.citation == "§ 657a.7(b)"


def test_one_position_per_player():
    t = with_ante_and_super_bonus()
    d, _ = t.request(req(W.ANTE, position=2))
    assert not d.accepted and d.citation == "§ 657a.7(e)" and "more than one player position" in d.reason
    d, _ = t.request(req(W.ANTE, player="p2"))  # another player's position
    assert not d.accepted and d.citation == "§ 657a.7(e)"
    d, t2 = t.request(req(W.ANTE, player="p2", position=2))
    assert d.accepted and set(t2.positions) == {1, 2}


def test_ante_and_super_bonus_equal_before_the_optional_wagers():
    ds, t = run(Crazy4Table(ALL), req(W.ANTE, 500), req(W.FOUR_CARD_PROGRESSIVE, 100), req(W.QUEENS_UP, 500))
    assert [d.accepted for d in ds] == [True, False, False]
    assert ds[1].citation == "§ 657a.7(d)(3); § 657a.7(d)(1)" and ds[2].citation.startswith("§ 657a.7(d)(2)")
    ds, t = run(t, req(W.SUPER_BONUS, 300), req(W.FIVE_CARD_PROGRESSIVE, 100))  # unequal: still refused
    assert [d.accepted for d in ds] == [True, False] and ds[1].citation.startswith("§ 657a.7(d)(4)")
    ds, t = run(t, req(W.SUPER_BONUS, 200), req(W.FOUR_CARD_PROGRESSIVE, 100), req(W.FIVE_CARD_PROGRESSIVE, 100),
                req(W.QUEENS_UP, 500),
                req(W.FIVE_CARD_HAND_BONUS, 100, instrument=Instrument.ELECTRONIC_WAGERING_DEVICE,
                    target=BonusTarget.BOTH))
    assert all(d.accepted for d in ds), [str(d) for d in ds]
    assert [d.citation for d in ds] == ["§ 657a.7(d)(1)", "§ 657a.7(d)(3)", "§ 657a.7(d)(4)", "§ 657a.7(d)(2)",
                                        "§ 657a.7(d)(5)"]
    pos = t.positions[1]
    assert pos.amount(W.ANTE) == pos.amount(W.SUPER_BONUS) == 500 and pos.bonus_target is BonusTarget.BOTH


def test_optional_wagers_need_the_rules_submission():
    t = with_ante_and_super_bonus(offer=Crazy4Offer())
    for wager, sub in ((W.FOUR_CARD_PROGRESSIVE, "(d)(3)"), (W.FIVE_CARD_PROGRESSIVE, "(d)(4)")):
        d, _ = t.request(req(wager, 100))
        assert not d.accepted and d.citation == f"§ 657a.7{sub}" and "Rules Submission" in d.reason
    d, _ = t.request(req(W.FIVE_CARD_HAND_BONUS, 100, instrument=Instrument.ELECTRONIC_WAGERING_DEVICE,
                         target="dealer's hand"))
    assert not d.accepted and d.citation == "§ 657a.7(d)(5)"
    assert t.request(req(W.QUEENS_UP, 100))[0].accepted  # (d)(2) needs no Rules Submission option


def test_how_the_optional_wagers_are_made():
    t = with_ante_and_super_bonus()
    d, _ = t.request(req(W.FOUR_CARD_PROGRESSIVE, 100, instrument=Instrument.PLAQUES))
    assert not d.accepted and d.citation == "§ 657a.7(d)(3)" and "value chip" in d.reason
    d, _ = t.request(req(W.FIVE_CARD_HAND_BONUS, 100, target=BonusTarget.PLAYER))  # chips on the layout
    assert not d.accepted and d.citation == "§ 657a.7(d)(5)" and "electronic wagering device" in d.reason
    ds, _ = run(t, req(W.FOUR_CARD_PROGRESSIVE, 100), req(W.FOUR_CARD_PROGRESSIVE, 100))
    assert [d.accepted for d in ds] == [True, False] and "one value chip" in ds[1].reason
    with pytest.raises(ValueError, match="names its hand"):
        req(W.FIVE_CARD_HAND_BONUS, 100, instrument=Instrument.ELECTRONIC_WAGERING_DEVICE)
    with pytest.raises(ValueError, match="names its hand"):
        req(W.ANTE, 100, target=BonusTarget.PLAYER)


def test_after_no_more_bets_only_the_play_wager():
    t = with_ante_and_super_bonus()
    d, _ = t.request(req(W.PLAY, 500))
    assert not d.accepted and d.citation == "§ 657a.7(d)(1)"  # the Play Wager comes after the cards
    ds, t = t.announce_no_more_bets()
    assert [d.accepted for d in ds] == [True] and t.no_more_bets
    for r in (req(W.ANTE, 100), req(W.QUEENS_UP, 100), req(W.ANTE, 100, action=Action.WITHDRAW),
              req(W.FOUR_CARD_PROGRESSIVE, 100)):
        d, _ = t.request(r)
        assert not d.accepted and d.citation == "§ 657a.7(c)", r
    d, t = t.request(req(W.PLAY, 1000))
    assert d.accepted and t.positions[1].amount(W.PLAY) == 1000
    for r in (req(W.PLAY, 500), req(W.PLAY, 1000, action=Action.WITHDRAW)):
        d, _ = t.request(r)
        assert not d.accepted and d.citation == "§ 657a.7(c)"
    d, _ = t.request(req(W.PLAY, 500, player="p9", position=4))  # no Ante and Super Bonus
    assert not d.accepted and d.citation == "§ 657a.7(d)(1)"
    with pytest.raises(ValueError, match="already announced"):
        t.announce_no_more_bets()


def test_no_more_bets_refuses_unequal_ante_and_super_bonus():
    ds, t = run(Crazy4Table(ALL), req(W.ANTE, 500), req(W.SUPER_BONUS, 500),
                req(W.ANTE, 500, player="p2", position=2), req(W.SUPER_BONUS, 400, player="p2", position=2),
                req(W.QUEENS_UP, 500, player="p3", position=3))
    assert [d.accepted for d in ds] == [True, True, True, True, False]
    # an increase after the optional wager breaks the equality: caught at "no more bets"
    ds, t = run(t, req(W.QUEENS_UP, 100), req(W.ANTE, 100))
    assert all(d.accepted for d in ds)
    ds, t = t.announce_no_more_bets()
    assert [(d.position, d.accepted, d.citation) for d in ds] == [(1, False, "§ 657a.7(d)(1)"),
                                                                 (2, False, "§ 657a.7(d)(1)")]
    assert not t.positions


def test_withdrawals_before_no_more_bets():
    t = with_ante_and_super_bonus()
    d, t2 = t.request(req(W.ANTE, 200, action=Action.WITHDRAW))
    assert d.accepted and d.citation == "§ 657a.7(c)" and t2.positions[1].amount(W.ANTE) == 300
    d, _ = t.request(req(W.ANTE, 900, action=Action.WITHDRAW))
    assert not d.accepted and "cannot withdraw" in d.reason
    ds, t3 = run(t, req(W.QUEENS_UP, 100), req(W.SUPER_BONUS, 500, action=Action.WITHDRAW))
    assert [d.accepted for d in ds] == [True, False] and ds[1].citation == "§ 657a.7(d)(2)"
    ds, t4 = run(t3, req(W.QUEENS_UP, 100, action=Action.WITHDRAW), req(W.SUPER_BONUS, 500, action=Action.WITHDRAW),
                 req(W.ANTE, 500, action=Action.WITHDRAW))
    assert all(d.accepted for d in ds) and not t4.positions  # the position is free again
    assert t4.request(req(W.ANTE, 100, player="p2"))[0].accepted


def test_requests_are_checked():
    with pytest.raises(ValueError, match="positive number of cents"):
        req(W.ANTE, 0)
    with pytest.raises(ValueError, match="player position"):
        req(W.ANTE, 100, position=0)
    with pytest.raises(ValueError):
        req("Big Blind", 100)
    assert str(Decision(False, "why", "§ 657a.7(a)")) == "refuse: why (§ 657a.7(a))"
