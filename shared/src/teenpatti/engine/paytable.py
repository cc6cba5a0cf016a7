"""Pay tables: the published one, and operator variants loaded from JSON and validated.

Odds are exact `Fraction`s of winnings per unit staked ("x:1": x times the stake won, plus the
stake back). A pay table prices every bet type; a variant is a JSON object such as

    {"name": "operator-x",
     "player_a": "0.95", "player_b": "0.95", "tie": "50",
     "pair_plus_a": {"trail_of_aces": "50", "trail": "40", "straight_flush": "30",
                     "straight": "6", "flush": "3", "pair": "1"},
     "pair_plus_b": {…the same six lines…},
     "six_card_bonus": {"royal_flush": "1000", "straight_flush": "200", "four_of_a_kind": "100",
                        "full_house": "20", "flush": "15", "straight": "10",
                        "three_of_a_kind": "7"}}

Odds may be written `"0.95"`, `"19/20"`, `"0.95:1"`, `"19:20"` or as a JSON number. Every line
must be more than 0:1 and at most 10,000:1, with a denominator of at most 1,000 (a minor unit
can be split, but not absurdly).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from typing import Any

from teenpatti.engine.bonus import SixCardCategory
from teenpatti.engine.errors import InvalidPayTableError
from teenpatti.engine.hands import ThreeCardCategory

MAX_ODDS = Fraction(10_000)
MAX_ODDS_DENOMINATOR = 1_000


class BetType(StrEnum):
    PLAYER_A = "player_a"
    PLAYER_B = "player_b"
    TIE = "tie"
    PAIR_PLUS_A = "pair_plus_a"
    PAIR_PLUS_B = "pair_plus_b"
    SIX_CARD_BONUS = "six_card_bonus"


@dataclass(frozen=True)
class PairPlusOdds:
    # Rules, "Side Bet – Pair +": a Pair or better pays, whoever wins; high card loses.
    trail_of_aces: Fraction
    trail: Fraction
    straight_flush: Fraction
    straight: Fraction
    flush: Fraction
    pair: Fraction

    def odds_for(self, category: ThreeCardCategory) -> Fraction | None:
        odds: Fraction | None = getattr(self, category.value, None)
        return odds


@dataclass(frozen=True)
class SixCardBonusOdds:
    # Rules, "Side Bet – 6 Card Bonus": Three of a Kind or better pays; anything less loses.
    royal_flush: Fraction
    straight_flush: Fraction
    four_of_a_kind: Fraction
    full_house: Fraction
    flush: Fraction
    straight: Fraction
    three_of_a_kind: Fraction

    def odds_for(self, category: SixCardCategory | None) -> Fraction | None:
        if category is None:
            return None
        odds: Fraction = getattr(self, category.value)
        return odds


@dataclass(frozen=True)
class PayTable:
    name: str
    player_a: Fraction
    player_b: Fraction
    tie: Fraction
    pair_plus_a: PairPlusOdds
    pair_plus_b: PairPlusOdds
    six_card_bonus: SixCardBonusOdds

    def __post_init__(self) -> None:
        problems = [
            f"{line}: {problem}"
            for line, odds in pay_lines(self)
            if (problem := _odds_problem(odds)) is not None
        ]
        if problems:
            raise InvalidPayTableError(f"pay table {self.name!r}: " + "; ".join(problems))


def pay_lines(table: PayTable) -> list[tuple[str, Fraction]]:
    """Every priced line as ("bet" or "bet.hand", odds), in the order of the rules."""
    lines: list[tuple[str, Fraction]] = [
        (BetType.PLAYER_A.value, table.player_a),
        (BetType.PLAYER_B.value, table.player_b),
        (BetType.TIE.value, table.tie),
    ]
    for bet_type, odds in (
        (BetType.PAIR_PLUS_A, table.pair_plus_a),
        (BetType.PAIR_PLUS_B, table.pair_plus_b),
        (BetType.SIX_CARD_BONUS, table.six_card_bonus),
    ):
        lines += [(f"{bet_type}.{f.name}", getattr(odds, f.name)) for f in fields(odds)]
    return lines


def pay_table_from_json(text: str) -> PayTable:
    """Parse and validate a pay table from JSON text (decimals are read exactly)."""
    try:
        data = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as error:
        raise InvalidPayTableError(f"pay table is not valid JSON: {error}") from None
    return pay_table_from_mapping(data)


def pay_table_from_mapping(data: object) -> PayTable:
    """Validate a decoded JSON pay table; the error lists every problem found."""
    if not isinstance(data, Mapping):
        raise InvalidPayTableError(f"pay table must be a JSON object, got {_json_type_name(data)}")
    problems: list[str] = []
    known = {"name", *(bet.value for bet in BetType)}
    problems += [f"unknown key {key!r}" for key in data if key not in known]
    problems += [f"bet type {bet.value!r} is not priced" for bet in BetType if bet not in data]
    name = data.get("name", "custom")
    if not isinstance(name, str) or not name.strip():
        problems.append("name must be a non-empty string")
        name = "custom"

    main: dict[str, Fraction] = {}
    for bet in (BetType.PLAYER_A, BetType.PLAYER_B, BetType.TIE):
        if bet in data:
            main[bet] = _collect_odds(bet.value, data[bet], problems)
    pair_plus = {
        bet: _collect_lines(bet.value, data[bet], PairPlusOdds, problems)
        for bet in (BetType.PAIR_PLUS_A, BetType.PAIR_PLUS_B)
        if bet in data
    }
    bonus = None
    if BetType.SIX_CARD_BONUS in data:
        bonus = _collect_lines("six_card_bonus", data["six_card_bonus"], SixCardBonusOdds, problems)
    if problems:
        raise InvalidPayTableError("invalid pay table: " + "; ".join(problems))
    assert isinstance(bonus, SixCardBonusOdds)
    pair_plus_a, pair_plus_b = pair_plus[BetType.PAIR_PLUS_A], pair_plus[BetType.PAIR_PLUS_B]
    assert isinstance(pair_plus_a, PairPlusOdds) and isinstance(pair_plus_b, PairPlusOdds)
    return PayTable(
        name=name.strip(),
        player_a=main[BetType.PLAYER_A],
        player_b=main[BetType.PLAYER_B],
        tie=main[BetType.TIE],
        pair_plus_a=pair_plus_a,
        pair_plus_b=pair_plus_b,
        six_card_bonus=bonus,
    )


def pay_table_to_mapping(table: PayTable) -> dict[str, object]:
    """The JSON form read by `pay_table_from_mapping` (odds as exact strings)."""
    result: dict[str, object] = {"name": table.name}
    for line, odds in pay_lines(table):
        bet, _, hand = line.partition(".")
        if hand:
            lines = result.setdefault(bet, {})
            assert isinstance(lines, dict)
            lines[hand] = format_odds(odds)
        else:
            result[bet] = format_odds(odds)
    return result


def format_odds(odds: Fraction) -> str:
    """`19/20` as "0.95", `50` as "50"; odds with no finite decimal form as "p/q"."""
    decimal = _finite_decimal(odds)
    return decimal if decimal is not None else f"{odds.numerator}/{odds.denominator}"


def parse_odds(value: object) -> Fraction:
    """Odds "x:1" from a JSON value; raises InvalidPayTableError with the reason."""
    odds = _to_fraction(value)
    problem = _odds_problem(odds)
    if problem is not None:
        raise InvalidPayTableError(f"{_show(value)}: {problem}")
    return odds


def _to_fraction(value: object) -> Fraction:
    if isinstance(value, bool):
        raise InvalidPayTableError(f"{_show(value)} is not odds: expected a number such as 0.95")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Decimal | float):
        if not _finite(value):
            raise InvalidPayTableError(f"{_show(value)} is not a finite number")
        # A float from json.loads is read through its shortest repr, so 0.95 means 19/20.
        return Fraction(value) if isinstance(value, Decimal) else Fraction(repr(value))
    if isinstance(value, str):
        text = value.strip()
        try:
            if ":" in text:
                winnings, _, stake = text.partition(":")
                return Fraction(winnings.strip()) / Fraction(stake.strip())
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise InvalidPayTableError(
                f'{_show(value)} is not odds: expected e.g. "0.95", "19/20" or "0.95:1"'
            ) from None
    raise InvalidPayTableError(
        f'odds must be a number or a string such as "0.95:1", got {_json_type_name(value)}'
    )


def _odds_problem(odds: Fraction) -> str | None:
    if odds <= 0:
        return f"odds {format_odds(odds)}:1 must be more than 0:1"
    if odds > MAX_ODDS:
        return f"odds {format_odds(odds)}:1 exceed the maximum of {format_odds(MAX_ODDS)}:1"
    if odds.denominator > MAX_ODDS_DENOMINATOR:
        return (
            f"odds {odds.numerator}/{odds.denominator} are too fine "
            f"(denominator above {MAX_ODDS_DENOMINATOR})"
        )
    return None


def _collect_odds(where: str, value: object, problems: list[str]) -> Fraction:
    try:
        return parse_odds(value)
    except InvalidPayTableError as error:
        problems.append(f"{where}: {error}")
        return Fraction(1)


def _collect_lines(
    where: str,
    value: object,
    odds_class: type[PairPlusOdds] | type[SixCardBonusOdds],
    problems: list[str],
) -> PairPlusOdds | SixCardBonusOdds | None:
    if not isinstance(value, Mapping):
        listed = ", ".join(f.name for f in fields(odds_class))
        problems.append(
            f"{where}: expected an object pricing each of {listed}, got {_json_type_name(value)}"
        )
        return None
    names = [f.name for f in fields(odds_class)]
    before = len(problems)
    problems += [f"{where}: unknown hand {key!r}" for key in value if key not in names]
    unpriced = [name for name in names if name not in value]
    if unpriced:
        problems.append(f"{where}: hands not priced: {', '.join(unpriced)}")
    odds = {
        name: _collect_odds(f"{where}.{name}", value[name], problems)
        for name in names
        if name in value
    }
    if len(problems) > before:
        return None
    return odds_class(**odds)


def _finite(value: Decimal | float) -> bool:
    return (
        value.is_finite() if isinstance(value, Decimal) else value == value and abs(value) < 1e308
    )


def _finite_decimal(value: Fraction) -> str | None:
    twos = fives = 0
    denominator = value.denominator
    while denominator % 2 == 0:
        denominator, twos = denominator // 2, twos + 1
    while denominator % 5 == 0:
        denominator, fives = denominator // 5, fives + 1
    if denominator != 1:
        return None
    places = max(twos, fives)
    scaled = abs(value.numerator) * 10**places // value.denominator  # exact: 10^places / q
    sign = "-" if value < 0 else ""
    if places == 0:
        return f"{sign}{scaled}"
    whole, part = divmod(scaled, 10**places)
    return f"{sign}{whole}.{part:0{places}d}".rstrip("0").rstrip(".")


def _show(value: object) -> str:
    return repr(str(value)) if isinstance(value, Decimal) else repr(value)


def _json_type_name(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    for python_type, name in names.items():
        if isinstance(value, python_type):
            return name
    return "a number" if isinstance(value, int | float | Decimal) else type(value).__name__


_PUBLISHED_PAIR_PLUS = PairPlusOdds(
    trail_of_aces=Fraction(50),
    trail=Fraction(40),
    straight_flush=Fraction(30),
    straight=Fraction(6),
    flush=Fraction(3),
    pair=Fraction(1),
)

# Rules README "Bets and pay tables" (the published table).
PUBLISHED_PAY_TABLE = PayTable(
    name="published",
    player_a=Fraction(19, 20),  # 0.95:1
    player_b=Fraction(19, 20),
    tie=Fraction(50),
    pair_plus_a=_PUBLISHED_PAIR_PLUS,
    pair_plus_b=_PUBLISHED_PAIR_PLUS,
    six_card_bonus=SixCardBonusOdds(
        royal_flush=Fraction(1000),
        straight_flush=Fraction(200),
        four_of_a_kind=Fraction(100),
        full_house=Fraction(20),
        flush=Fraction(15),
        straight=Fraction(10),
        three_of_a_kind=Fraction(7),
    ),
)
