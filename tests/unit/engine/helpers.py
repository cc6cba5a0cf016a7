"""Small builders for the engine tests: cards from text, so that tests read like the rules."""

from __future__ import annotations

from teenpatti.engine import Card, ThreeCardHand, evaluate_three_card_hand, parse_card


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(token) for token in text.split())


def hand(text: str) -> ThreeCardHand:
    return evaluate_three_card_hand(cards(text))
