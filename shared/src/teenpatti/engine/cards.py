"""Cards of the one 52-card deck: parsing the forms people and scanners use, one canonical form.

Canonical form: rank then suit letter, upper case, ten written `10` (`AS`, `10H`, `2C`).
Accepted on input, case-insensitive, surrounding whitespace ignored: ranks `A K Q J 10 T 9 … 2`,
suits `S H D C`, `♠ ♥ ♦ ♣` or `♤ ♡ ♢ ♧` (an emoji variation selector after the symbol is
ignored). Anything else is an `InvalidCardError` that says which part was wrong.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntEnum

from teenpatti.engine.errors import CardCountError, DuplicateCardError, InvalidCardError


class Rank(IntEnum):
    # Rules, "Winning Hands": A K Q J 10 9 8 7 6 5 4 3 2, high to low; the value orders them.
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def label(self) -> str:
        return _RANK_LABELS[self]


class Suit(Enum):
    # Rules README: suits never decide a winner; `index` only numbers the cards 0-51.
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def index(self) -> int:
        return _SUIT_INDEX[self]


_RANK_LABELS: dict[Rank, str] = {
    rank: ("10" if rank is Rank.TEN else "JQKA"[rank - 11] if rank > 10 else str(int(rank)))
    for rank in Rank
}
_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
_SUIT_INDEX = {suit: i for i, suit in enumerate(Suit)}

_RANK_TOKENS: dict[str, Rank] = {label: rank for rank, label in _RANK_LABELS.items()} | {
    "T": Rank.TEN
}
_SUIT_TOKENS: dict[str, Suit] = (
    {suit.value: suit for suit in Suit}
    | {symbol: suit for suit, symbol in _SUIT_SYMBOLS.items()}
    | {"♧": Suit.CLUBS, "♢": Suit.DIAMONDS, "♡": Suit.HEARTS, "♤": Suit.SPADES}
)
_VARIATION_SELECTORS = ("\ufe0f", "\ufe0e")
_EXPECTED_RANKS = "A K Q J 10 (or T) 9 8 7 6 5 4 3 2"
_EXPECTED_SUITS = "S H D C or ♠ ♥ ♦ ♣"


@dataclass(frozen=True)
class Card:
    rank: Rank
    suit: Suit
    # 0-51, deuces first: (rank - 2) * 4 + suit index. The numpy code numbers cards this way,
    # and it makes a cheap hash (enum members hash in Python code, which is slow in hot loops).
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.rank, Rank) or not isinstance(self.suit, Suit):
            raise InvalidCardError(f"not a card: rank {self.rank!r}, suit {self.suit!r}")
        object.__setattr__(self, "index", (self.rank - 2) * 4 + _SUIT_INDEX[self.suit])

    def __hash__(self) -> int:
        return self.index

    def __str__(self) -> str:
        return f"{self.rank.label}{self.suit.value}"

    @property
    def symbol(self) -> str:
        """The form shown to people: `10♥`."""
        return f"{self.rank.label}{self.suit.symbol}"


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for rank in Rank for suit in Suit)
assert all(card.index == i for i, card in enumerate(DECK))


def card_from_index(index: int) -> Card:
    return DECK[index]


def parse_card(text: object) -> Card:
    if not isinstance(text, str):
        raise InvalidCardError(f"a card must be a string such as 'AS', got {type(text).__name__}")
    cleaned = text.strip()
    for selector in _VARIATION_SELECTORS:
        cleaned = cleaned.replace(selector, "")
    if not cleaned:
        raise InvalidCardError("empty card: expected a rank and a suit such as 'AS' or '10H'")
    if len(cleaned) < 2:
        raise InvalidCardError(
            f"{text!r} is not a card: expected a rank ({_EXPECTED_RANKS}) "
            f"followed by a suit ({_EXPECTED_SUITS})"
        )
    rank_token, suit_token = cleaned[:-1].upper(), cleaned[-1].upper()
    suit = _SUIT_TOKENS.get(suit_token)
    if suit is None:
        raise InvalidCardError(
            f"{text!r} is not a card: unknown suit {cleaned[-1]!r} (expected {_EXPECTED_SUITS})"
        )
    rank = _RANK_TOKENS.get(rank_token)
    if rank is None:
        raise InvalidCardError(
            f"{text!r} is not a card: unknown rank {cleaned[:-1]!r} (expected {_EXPECTED_RANKS})"
        )
    return Card(rank, suit)


def parse_cards(texts: Iterable[object]) -> tuple[Card, ...]:
    """Parse several cards; the error names the position (1-based) of the first bad one."""
    cards: list[Card] = []
    for position, text in enumerate(texts, start=1):
        try:
            cards.append(parse_card(text))
        except InvalidCardError as error:
            raise InvalidCardError(f"card {position}: {error}") from None
    return tuple(cards)


def require_distinct_cards(cards: Sequence[Card], count: int) -> None:
    # Rules README "Dealing": one 52-card deck, so no card can appear twice in a round.
    if len(cards) != count:
        raise CardCountError(f"expected {count} cards, got {len(cards)}")
    if len({card.index for card in cards}) != count:
        repeated = next(card for i, card in enumerate(cards) if card in cards[:i])
        raise DuplicateCardError(f"card {repeated} appears more than once (one deck per round)")
