from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import numpy as np
import pytest

from teenpatti.engine import (
    DECK,
    PUBLISHED_PAY_TABLE,
    BetType,
    InvalidRtpFloorError,
    ThreeCardCategory,
    Winner,
    resolve_hands,
)
from teenpatti.engine.arrays import combinations_array
from teenpatti.engine.par import DealCounts, disjoint_matchups, par_sheet, parse_rtp_floor
from teenpatti.engine.par_report import (
    decimal_string,
    format_par_sheet,
    par_sheet_to_mapping,
    percent,
)

C = ThreeCardCategory


def test_deal_space(deal_counts: DealCounts) -> None:
    assert deal_counts.deals == 22_100 * 18_424 == 407_170_400
    assert sum(deal_counts.outcomes.values()) == 407_170_400


def test_main_game_outcomes(deal_counts: DealCounts) -> None:
    assert deal_counts.outcomes == {
        Winner.PLAYER_A: 203_359_936,
        Winner.PLAYER_B: 203_359_936,
        Winner.TIE: 450_528,
    }


def test_three_card_counts(deal_counts: DealCounts) -> None:
    assert deal_counts.three_card_hands == {
        C.TRAIL_OF_ACES: 4,
        C.TRAIL: 48,
        C.STRAIGHT_FLUSH: 48,
        C.STRAIGHT: 720,
        C.FLUSH: 1_096,
        C.PAIR: 3_744,
        C.HIGH_CARD: 16_440,
    }


def test_ties_and_losses_by_category_that_can_be_counted_by_hand(deal_counts: DealCounts) -> None:
    by_hand = deal_counts.outcomes_by_player_a_hand
    # Trails never tie; a trail of rank r loses to the 4 trails of each of the 14 - r higher
    # ranks: 4 hands x 4 x (12 + 11 + … + 1) = 1,248.
    assert by_hand[C.TRAIL] == {
        Winner.PLAYER_A: 48 * 18_424 - 1_248,
        Winner.PLAYER_B: 1_248,
        Winner.TIE: 0,
    }
    assert by_hand[C.TRAIL_OF_ACES][Winner.PLAYER_A] == 4 * 18_424
    # A straight flush ties only with the same sequence in the three other suits.
    assert by_hand[C.STRAIGHT_FLUSH][Winner.TIE] == 48 * 3
    # A flush ties with the same ranks suited in one of the three other suits.
    assert by_hand[C.FLUSH][Winner.TIE] == 274 * 4 * 3
    # A pair (6 x 4 suit choices) ties with the same ranks: the other two suits for the pair
    # and one of the three other suits for the odd card.
    assert by_hand[C.PAIR][Winner.TIE] == 156 * 24 * 3
    # Three distinct ranks, unsuited (60 suit choices): B takes another suit at each rank
    # (27 ways) but must not be suited: 24 choices of A leave one suit free, 36 leave two.
    unsuited_pairs = 60 * 27 - (24 * 1 + 36 * 2)
    assert unsuited_pairs == 1_524
    assert by_hand[C.STRAIGHT][Winner.TIE] == 12 * unsuited_pairs
    assert by_hand[C.HIGH_CARD][Winner.TIE] == 274 * unsuited_pairs


def test_inclusion_exclusion_matches_brute_force_on_sampled_hands() -> None:
    matchups = disjoint_matchups()
    hands = matchups.hands.astype(np.int64)
    rng = np.random.default_rng(3)
    sample = list(rng.choice(len(hands), size=60, replace=False))
    # Include the extremes: the weakest and strongest hands and a tie-prone one.
    sample += [int(np.argmin(matchups.strength)), int(np.argmax(matchups.strength))]
    for index in sample:
        shares = (hands[:, :, None] == hands[index][None, None, :]).any(axis=(1, 2))
        other = matchups.strength[~shares]
        mine = matchups.strength[index]
        assert other.size == 18_424
        assert (
            int((other < mine).sum()),
            int((other == mine).sum()),
            int((other > mine).sum()),
        ) == (
            int(matchups.weaker[index]),
            int(matchups.equal[index]),
            int(matchups.stronger[index]),
        )


def test_strength_indices_agree_with_the_rules_code_on_sampled_pairs() -> None:
    matchups = disjoint_matchups()
    rng = np.random.default_rng(11)
    for first, second in rng.integers(0, len(matchups.hands), size=(300, 2)):
        a = [DECK[i] for i in matchups.hands[first]]
        b = [DECK[i] for i in matchups.hands[second]]
        if set(a) & set(b):
            continue
        expected = np.sign(matchups.strength[first] - matchups.strength[second])
        winner = resolve_hands(a, b).winner
        assert {1: Winner.PLAYER_A, -1: Winner.PLAYER_B, 0: Winner.TIE}[int(expected)] is winner


def test_combinations_array() -> None:
    assert combinations_array(4, 2).tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    assert combinations_array(52, 3).shape == (22_100, 3)
    assert combinations_array(3, 0).shape == (1, 0)
    assert combinations_array(2, 3).shape == (0, 3)


def test_published_table_rtps_are_exact(deal_counts: DealCounts) -> None:
    sheet = par_sheet(PUBLISHED_PAY_TABLE, deal_counts)
    player_a = sheet.bet(BetType.PLAYER_A)
    tie_probability = Fraction(450_528, 407_170_400)
    assert player_a.rtp == Fraction(975, 1000) + Fraction(25, 1000) * tie_probability
    assert player_a.rtp == Fraction(9_543_327, 9_787_750)
    assert player_a.rtp_excluding_pushes == Fraction(975, 1000)  # the rules' 97.50%
    assert player_a.push_frequency == tie_probability
    assert player_a.hit_frequency == Fraction(203_359_936, 407_170_400)
    assert player_a.house_edge == 1 - player_a.rtp
    assert sheet.bet(BetType.PLAYER_B).rtp == player_a.rtp
    assert sheet.bet(BetType.TIE).rtp == 51 * tie_probability
    # Pair +: (4x51 + 48x41 + 48x31 + 720x7 + 1096x4 + 3744x2) / 22,100
    assert sheet.bet(BetType.PAIR_PLUS_A).rtp == Fraction(20_572, 22_100)
    assert sheet.bet(BetType.PAIR_PLUS_B).rtp == Fraction(20_572, 22_100)
    # 6 Card Bonus: (188x1001 + 1656x201 + 14664x101 + 165984x21 + 205792x16 + 361620x11
    #                + 732160x8) / 20,358,520
    assert sheet.bet(BetType.SIX_CARD_BONUS).rtp == Fraction(18_615_544, 20_358_520)
    assert sheet.bet(BetType.SIX_CARD_BONUS).hit_frequency == Fraction(1_482_064, 20_358_520)


def test_each_rtp_is_the_sum_of_its_lines(deal_counts: DealCounts) -> None:
    sheet = par_sheet(PUBLISHED_PAY_TABLE, deal_counts)
    for bet in sheet.bets:
        assert bet.rtp == sum(line.contribution for line in bet.lines)
        for line in bet.lines:
            assert line.contribution == Fraction(line.deals, 407_170_400) * line.returned_per_unit


def test_the_rtp_floor_flags_bets(deal_counts: DealCounts) -> None:
    default = par_sheet(PUBLISHED_PAY_TABLE, deal_counts)
    assert [bet.bet_type for bet in default.bets if bet.below_floor] == [BetType.TIE]
    strict = par_sheet(PUBLISHED_PAY_TABLE, deal_counts, rtp_floor=Fraction(93, 100))
    assert [bet.bet_type for bet in strict.bets if bet.below_floor] == [
        BetType.TIE,
        BetType.SIX_CARD_BONUS,
    ]
    with pytest.raises(InvalidRtpFloorError):
        par_sheet(PUBLISHED_PAY_TABLE, deal_counts, rtp_floor=Fraction(3, 2))


def test_an_operator_table_changes_only_its_prices(deal_counts: DealCounts) -> None:
    variant = dataclasses.replace(
        PUBLISHED_PAY_TABLE,
        name="variant",
        tie=Fraction(80),
        six_card_bonus=dataclasses.replace(
            PUBLISHED_PAY_TABLE.six_card_bonus, three_of_a_kind=Fraction(8)
        ),
    )
    sheet = par_sheet(variant, deal_counts)
    assert sheet.bet(BetType.TIE).rtp == 81 * Fraction(450_528, 407_170_400)
    assert sheet.bet(BetType.SIX_CARD_BONUS).rtp == Fraction(18_615_544 + 732_160, 20_358_520)
    assert sheet.bet(BetType.PLAYER_A).rtp == Fraction(9_543_327, 9_787_750)


@pytest.mark.parametrize(
    ("text", "floor"),
    [
        ("0.9", Fraction(9, 10)),
        ("9/10", Fraction(9, 10)),
        ("90%", Fraction(9, 10)),
        ("97.5 %", Fraction(39, 40)),
        ("0", 0),
        ("1", 1),
    ],
)
def test_rtp_floor_forms(text: str, floor: Fraction) -> None:
    assert parse_rtp_floor(text) == floor


@pytest.mark.parametrize(
    ("text", "reason"),
    [("97.5", "above 1"), ("abc", "not an RTP floor"), ("-1%", "between"), ("150%", "between")],
)
def test_bad_rtp_floors(text: str, reason: str) -> None:
    with pytest.raises(InvalidRtpFloorError, match=reason):
        parse_rtp_floor(text)


def test_json_report(deal_counts: DealCounts) -> None:
    report = par_sheet_to_mapping(par_sheet(PUBLISHED_PAY_TABLE, deal_counts))
    json.dumps(report)  # plain JSON types only
    assert report["deals"] == 407_170_400
    assert report["outcomes"] == {"player_a": 203_359_936, "player_b": 203_359_936, "tie": 450_528}
    assert report["three_card_hands"] == {
        "total": 22_100,
        "trail_of_aces": 4,
        "trail": 48,
        "straight_flush": 48,
        "straight": 720,
        "flush": 1_096,
        "pair": 3_744,
        "high_card": 16_440,
    }
    six = report["six_card_hands"]
    assert isinstance(six, dict)
    assert six["total"] == 20_358_520 and six["none"] == 18_876_456 and six["royal_flush"] == 188
    bets = report["bets"]
    assert isinstance(bets, dict)
    assert set(bets) == {t.value for t in BetType}
    player_a = bets["player_a"]
    assert player_a["rtp"] == "0.9750276621"
    assert player_a["rtp_fraction"] == "9543327/9787750"
    assert player_a["rtp_excluding_pushes"] == "0.9750000000"
    assert player_a["house_edge"] == "0.0249723379"
    assert player_a["below_floor"] is False
    assert bets["tie"]["below_floor"] is True
    assert report["stated_max_rtp"] == "0.9750000000"


def test_readable_report_explains_the_stated_maximum(deal_counts: DealCounts) -> None:
    text = format_par_sheet(par_sheet(PUBLISHED_PAY_TABLE, deal_counts))
    assert "407,170,400" in text
    assert "97.502766%" in text
    assert "1/2 x 1.95 = 97.500000%" in text
    assert "So 97.50% is exactly the Player A RTP with ties left out" in text
    assert "BELOW FLOOR" in text
    assert "1,000:1" in text


@pytest.mark.parametrize(
    ("value", "places", "text"),
    [
        (Fraction(1, 3), 4, "0.3333"),
        (Fraction(2, 3), 4, "0.6667"),
        (Fraction(1, 8), 2, "0.12"),  # half-even
        (Fraction(-1, 3), 2, "-0.33"),
        (Fraction(7), 0, "7"),
    ],
)
def test_decimal_strings(value: Fraction, places: int, text: str) -> None:
    assert decimal_string(value, places) == text


def test_percent_uses_the_american_format() -> None:
    assert percent(Fraction(12_345, 1)) == "1,234,500.000000%"
