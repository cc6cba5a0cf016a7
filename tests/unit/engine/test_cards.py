from __future__ import annotations

import pytest

from teenpatti.engine import (
    DECK,
    Card,
    CardCountError,
    DuplicateCardError,
    InvalidCardError,
    Rank,
    Suit,
    card_from_index,
    parse_card,
    parse_cards,
)
from teenpatti.engine.cards import require_distinct_cards


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AS", Card(Rank.ACE, Suit.SPADES)),
        ("as", Card(Rank.ACE, Suit.SPADES)),
        ("aS", Card(Rank.ACE, Suit.SPADES)),
        ("A♠", Card(Rank.ACE, Suit.SPADES)),
        ("A♤", Card(Rank.ACE, Suit.SPADES)),
        ("10H", Card(Rank.TEN, Suit.HEARTS)),
        ("10h", Card(Rank.TEN, Suit.HEARTS)),
        ("TH", Card(Rank.TEN, Suit.HEARTS)),
        ("th", Card(Rank.TEN, Suit.HEARTS)),
        ("10♥", Card(Rank.TEN, Suit.HEARTS)),
        ("10♥\ufe0f", Card(Rank.TEN, Suit.HEARTS)),
        ("TD", Card(Rank.TEN, Suit.DIAMONDS)),
        ("qc", Card(Rank.QUEEN, Suit.CLUBS)),
        ("Q♣", Card(Rank.QUEEN, Suit.CLUBS)),
        ("J♦", Card(Rank.JACK, Suit.DIAMONDS)),
        ("K♡", Card(Rank.KING, Suit.HEARTS)),
        ("2♧", Card(Rank.TWO, Suit.CLUBS)),
        ("9♢", Card(Rank.NINE, Suit.DIAMONDS)),
        ("  7s \n", Card(Rank.SEVEN, Suit.SPADES)),
    ],
)
def test_parses_the_forms_people_and_scanners_use(text: str, expected: Card) -> None:
    assert parse_card(text) == expected


@pytest.mark.parametrize(
    ("card", "canonical", "symbol"),
    [
        (Card(Rank.ACE, Suit.SPADES), "AS", "A♠"),
        (Card(Rank.TEN, Suit.HEARTS), "10H", "10♥"),
        (Card(Rank.QUEEN, Suit.CLUBS), "QC", "Q♣"),
        (Card(Rank.TWO, Suit.DIAMONDS), "2D", "2♦"),
    ],
)
def test_one_canonical_form_and_a_symbol_for_people(
    card: Card, canonical: str, symbol: str
) -> None:
    assert str(card) == canonical
    assert card.symbol == symbol


def test_every_card_round_trips_through_its_canonical_and_symbol_forms() -> None:
    assert len(DECK) == len(set(DECK)) == 52
    for card in DECK:
        assert parse_card(str(card)) == card
        assert parse_card(card.symbol) == card
        assert parse_card(str(card).lower()) == card


def test_card_indices_number_the_deck() -> None:
    assert [card.index for card in DECK] == list(range(52))
    assert card_from_index(0) == Card(Rank.TWO, Suit.CLUBS)
    assert card_from_index(51) == Card(Rank.ACE, Suit.SPADES)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty card"),
        ("   ", "empty card"),
        ("A", "expected a rank"),
        ("1H", "unknown rank '1'"),
        ("11H", "unknown rank '11'"),
        ("0H", "unknown rank '0'"),
        ("AX", "unknown suit 'X'"),
        ("A S", "unknown rank 'A '"),
        ("SA", "unknown suit 'A'"),
        ("10", "unknown suit '0'"),
        ("JOKER", "unknown suit 'R'"),
        ("A♠♠", "unknown rank 'A♠'"),
    ],
)
def test_anything_else_is_a_clear_error(text: str, reason: str) -> None:
    with pytest.raises(InvalidCardError, match=reason):
        parse_card(text)


@pytest.mark.parametrize("value", [None, 14, ["AS"], b"AS"])
def test_a_card_must_be_a_string(value: object) -> None:
    with pytest.raises(InvalidCardError, match="must be a string"):
        parse_card(value)


def test_parse_cards_names_the_bad_position() -> None:
    assert parse_cards(["AS", "10h", "2♦"]) == (
        Card(Rank.ACE, Suit.SPADES),
        Card(Rank.TEN, Suit.HEARTS),
        Card(Rank.TWO, Suit.DIAMONDS),
    )
    with pytest.raises(InvalidCardError, match="card 2: 'ZZ' is not a card"):
        parse_cards(["AS", "ZZ", "2D"])


def test_one_deck_means_no_repeated_card_and_a_fixed_count() -> None:
    ace = Card(Rank.ACE, Suit.SPADES)
    king = Card(Rank.KING, Suit.SPADES)
    with pytest.raises(DuplicateCardError, match="AS appears more than once"):
        require_distinct_cards([ace, king, ace], 3)
    with pytest.raises(CardCountError, match="expected 3 cards, got 2"):
        require_distinct_cards([ace, king], 3)


def test_a_card_is_built_from_a_rank_and_a_suit_only() -> None:
    with pytest.raises(InvalidCardError, match="not a card"):
        Card(14, "S")  # type: ignore[arg-type]
    assert hash(Card(Rank.ACE, Suit.SPADES)) == hash(parse_card("A♠"))
    assert {Card(Rank.ACE, Suit.SPADES), parse_card("as")} == {parse_card("AS")}
