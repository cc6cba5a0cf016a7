from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from teenpatti.engine import (
    PUBLISHED_PAY_TABLE,
    InvalidPayTableError,
    PairPlusOdds,
    PayTable,
    SixCardCategory,
    ThreeCardCategory,
    pay_table_from_json,
    pay_table_from_mapping,
    pay_table_to_mapping,
)
from teenpatti.engine.paytable import format_odds, parse_odds

PUBLISHED_JSON = {
    "name": "published",
    "player_a": "0.95",
    "player_b": "0.95",
    "tie": "50",
    "pair_plus_a": {
        "trail_of_aces": "50",
        "trail": "40",
        "straight_flush": "30",
        "straight": "6",
        "flush": "3",
        "pair": "1",
    },
    "pair_plus_b": {
        "trail_of_aces": "50",
        "trail": "40",
        "straight_flush": "30",
        "straight": "6",
        "flush": "3",
        "pair": "1",
    },
    "six_card_bonus": {
        "royal_flush": "1000",
        "straight_flush": "200",
        "four_of_a_kind": "100",
        "full_house": "20",
        "flush": "15",
        "straight": "10",
        "three_of_a_kind": "7",
    },
}


def test_the_published_table_is_the_rules_table() -> None:
    table = PUBLISHED_PAY_TABLE
    assert table.player_a == table.player_b == Fraction(95, 100)
    assert table.tie == 50
    for pair_plus in (table.pair_plus_a, table.pair_plus_b):
        assert [pair_plus.odds_for(category) for category in ThreeCardCategory] == [
            50,
            40,
            30,
            6,
            3,
            1,
            None,  # high card loses
        ]
    assert [table.six_card_bonus.odds_for(c) for c in SixCardCategory] == [
        1000,
        200,
        100,
        20,
        15,
        10,
        7,
    ]
    assert table.six_card_bonus.odds_for(None) is None


def test_the_published_table_round_trips_through_json() -> None:
    assert pay_table_to_mapping(PUBLISHED_PAY_TABLE) == PUBLISHED_JSON
    assert pay_table_from_mapping(PUBLISHED_JSON) == PUBLISHED_PAY_TABLE
    assert pay_table_from_json(json.dumps(PUBLISHED_JSON)) == PUBLISHED_PAY_TABLE


def test_an_operator_variant() -> None:
    variant = copy.deepcopy(PUBLISHED_JSON)
    variant["name"] = "operator-x"
    variant["player_b"] = "19/20"
    variant["tie"] = 40
    variant["pair_plus_a"]["straight"] = "5:1"  # type: ignore[index]
    variant["six_card_bonus"]["three_of_a_kind"] = 6.5  # type: ignore[index]
    table = pay_table_from_mapping(variant)
    assert table.name == "operator-x"
    assert table.player_b == Fraction(19, 20)
    assert table.tie == 40
    assert table.pair_plus_a.straight == 5
    assert table.pair_plus_b.straight == 6
    assert table.six_card_bonus.three_of_a_kind == Fraction(13, 2)


def test_json_decimals_are_read_exactly() -> None:
    text = json.dumps(PUBLISHED_JSON).replace('"player_a": "0.95"', '"player_a": 0.95')
    assert pay_table_from_json(text).player_a == Fraction(19, 20)


@pytest.mark.parametrize(
    ("value", "odds"),
    [
        ("0.95", Fraction(19, 20)),
        ("19/20", Fraction(19, 20)),
        ("0.95:1", Fraction(19, 20)),
        ("19:20", Fraction(19, 20)),
        (" 50 ", Fraction(50)),
        (50, Fraction(50)),
        (0.95, Fraction(19, 20)),
        ("1/3", Fraction(1, 3)),
        ("10000", Fraction(10_000)),
    ],
)
def test_odds_forms(value: object, odds: Fraction) -> None:
    assert parse_odds(value) == odds


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("-1", "must be more than 0:1"),
        (0, "must be more than 0:1"),
        ("0:1", "must be more than 0:1"),
        ("10001", "exceed the maximum of 10000:1"),
        ("1e9", "exceed the maximum"),
        ("0.0001", "too fine"),
        ("1/1001", "too fine"),
        ("abc", "is not odds"),
        ("1:0", "is not odds"),
        ("", "is not odds"),
        (True, "is not odds"),
        (None, "got null"),
        ([1], "got an array"),
        (float("nan"), "not a finite number"),
        (float("inf"), "not a finite number"),
    ],
)
def test_no_negative_or_absurd_odds(value: object, reason: str) -> None:
    with pytest.raises(InvalidPayTableError, match=reason):
        parse_odds(value)


def test_every_bet_type_must_be_priced_and_every_problem_is_listed() -> None:
    broken = copy.deepcopy(PUBLISHED_JSON)
    del broken["tie"]
    del broken["pair_plus_b"]["pair"]  # type: ignore[attr-defined]
    broken["six_card_bonus"]["flush"] = "-15"  # type: ignore[index]
    broken["six_card_bonus"]["two_pair"] = "2"  # type: ignore[index]
    broken["bonus"] = 1
    with pytest.raises(InvalidPayTableError) as error:
        pay_table_from_mapping(broken)
    message = str(error.value)
    assert "unknown key 'bonus'" in message
    assert "bet type 'tie' is not priced" in message
    assert "pair_plus_b: hands not priced: pair" in message
    assert "six_card_bonus: unknown hand 'two_pair'" in message
    assert "six_card_bonus.flush: '-15': odds -15:1 must be more than 0:1" in message


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ([], "must be a JSON object, got an array"),
        ("x", "must be a JSON object, got a string"),
        ({**PUBLISHED_JSON, "pair_plus_a": "1"}, "pair_plus_a: expected an object pricing"),
        ({**PUBLISHED_JSON, "name": ""}, "name must be a non-empty string"),
        ({**PUBLISHED_JSON, "name": 3}, "name must be a non-empty string"),
    ],
)
def test_structural_errors(data: object, reason: str) -> None:
    with pytest.raises(InvalidPayTableError, match=reason):
        pay_table_from_mapping(data)


def test_not_json() -> None:
    with pytest.raises(InvalidPayTableError, match="not valid JSON"):
        pay_table_from_json("{")


def test_the_name_is_optional() -> None:
    unnamed = {key: value for key, value in PUBLISHED_JSON.items() if key != "name"}
    assert pay_table_from_mapping(unnamed).name == "custom"


def test_a_table_built_in_code_is_validated_too() -> None:
    with pytest.raises(InvalidPayTableError, match="tie: odds -1:1 must be more than 0:1"):
        PayTable(
            name="bad",
            player_a=Fraction(19, 20),
            player_b=Fraction(19, 20),
            tie=Fraction(-1),
            pair_plus_a=PUBLISHED_PAY_TABLE.pair_plus_a,
            pair_plus_b=PairPlusOdds(*(Fraction(1),) * 6),
            six_card_bonus=PUBLISHED_PAY_TABLE.six_card_bonus,
        )


@pytest.mark.parametrize(
    ("odds", "text"),
    [(Fraction(19, 20), "0.95"), (Fraction(50), "50"), (Fraction(1, 3), "1/3")],
)
def test_format_odds(odds: Fraction, text: str) -> None:
    assert format_odds(odds) == text
