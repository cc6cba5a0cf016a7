"""The PAR sheet as JSON-ready data and as a readable table (pure: both return values).

Numbers shown to people use the American format (rules README): 1,234.00.
"""

from __future__ import annotations

import textwrap
from fractions import Fraction

from teenpatti.engine.bonus import SixCardCategory
from teenpatti.engine.hands import ThreeCardCategory
from teenpatti.engine.par import (
    DEALS_PER_SIX_CARD_SET,
    DEALS_PER_THREE_CARD_HAND,
    SIX_CARD_SETS,
    STATED_MAX_RTP,
    THREE_CARD_HANDS,
    BetPar,
    ParSheet,
    ReturnLine,
)
from teenpatti.engine.paytable import BetType, format_odds, pay_table_to_mapping
from teenpatti.engine.rounds import Winner

DECIMAL_PLACES = 10

_BET_NAMES = {
    BetType.PLAYER_A: "Player A",
    BetType.PLAYER_B: "Player B",
    BetType.TIE: "Tie",
    BetType.PAIR_PLUS_A: "Pair + (A)",
    BetType.PAIR_PLUS_B: "Pair + (B)",
    BetType.SIX_CARD_BONUS: "6 Card Bonus",
}
_OUTCOME_NAMES = {
    Winner.PLAYER_A: "Player A wins",
    Winner.PLAYER_B: "Player B wins",
    Winner.TIE: "Tie",
}


def decimal_string(value: Fraction, places: int = DECIMAL_PLACES) -> str:
    """`value` rounded half-even to `places` decimals, e.g. "0.9750276621"."""
    scaled = round(value * 10**places)
    sign = "-" if scaled < 0 else ""
    whole, part = divmod(abs(scaled), 10**places)
    return f"{sign}{whole}.{part:0{places}d}" if places else f"{sign}{whole}"


def percent(value: Fraction, places: int = 6) -> str:
    scaled = round(value * 100 * 10**places)
    sign = "-" if scaled < 0 else ""
    whole, part = divmod(abs(scaled), 10**places)
    return f"{sign}{whole:,}.{part:0{places}d}%"


def fraction_string(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def par_sheet_to_mapping(sheet: ParSheet) -> dict[str, object]:
    counts = sheet.counts
    best = max(sheet.bets, key=lambda bet: bet.rtp)
    best_decided = max(sheet.bets, key=lambda bet: bet.rtp_excluding_pushes)
    return {
        "pay_table": pay_table_to_mapping(sheet.pay_table),
        "deals": counts.deals,
        "deals_per_three_card_hand": DEALS_PER_THREE_CARD_HAND,
        "deals_per_six_card_set": DEALS_PER_SIX_CARD_SET,
        "outcomes": {winner.value: counts.outcomes[winner] for winner in Winner},
        "outcomes_by_player_a_hand": {
            category.value: {w.value: n for w, n in by_winner.items()}
            for category, by_winner in counts.outcomes_by_player_a_hand.items()
        },
        "three_card_hands": {"total": THREE_CARD_HANDS}
        | {category.value: counts.three_card_hands[category] for category in ThreeCardCategory},
        "six_card_hands": {"total": SIX_CARD_SETS, "none": counts.six_card_sets[None]}
        | {category.value: counts.six_card_sets[category] for category in SixCardCategory},
        "rtp_floor": decimal_string(sheet.rtp_floor),
        "stated_max_rtp": decimal_string(STATED_MAX_RTP),
        "max_rtp": {"bet": best.bet_type.value, "rtp": decimal_string(best.rtp)},
        "max_rtp_excluding_pushes": {
            "bet": best_decided.bet_type.value,
            "rtp": decimal_string(best_decided.rtp_excluding_pushes),
        },
        "bets": {bet.bet_type.value: _bet_mapping(bet) for bet in sheet.bets},
    }


def _bet_mapping(bet: BetPar) -> dict[str, object]:
    exact = {
        "rtp": bet.rtp,
        "house_edge": bet.house_edge,
        "hit_frequency": bet.hit_frequency,
        "push_frequency": bet.push_frequency,
        "rtp_excluding_pushes": bet.rtp_excluding_pushes,
    }
    result: dict[str, object] = {}
    for name, value in exact.items():
        result[name] = decimal_string(value)
        result[f"{name}_fraction"] = fraction_string(value)
    result["below_floor"] = bet.below_floor
    result["lines"] = [_line_mapping(line) for line in bet.lines]
    return result


def _line_mapping(line: ReturnLine) -> dict[str, object]:
    return {
        "event": line.event,
        "odds": None if line.odds is None else format_odds(line.odds),
        "deals": line.deals,
        "probability": decimal_string(line.probability),
        "probability_fraction": fraction_string(line.probability),
        "returned_per_unit": format_odds(line.returned_per_unit),
        "contribution": decimal_string(line.contribution),
        "contribution_fraction": fraction_string(line.contribution),
    }


def format_par_sheet(sheet: ParSheet) -> str:
    sections = [
        _header(sheet),
        _main_game(sheet),
        _three_card_hands(sheet),
        _six_card_hands(sheet),
        _bets(sheet),
        _where_each_rtp_comes_from(sheet),
        where_the_stated_max_comes_from(sheet),
    ]
    return "\n\n".join("\n".join(section) for section in sections) + "\n"


def _header(sheet: ParSheet) -> list[str]:
    deals = sheet.counts.deals
    return [
        f"Teen Patti 20-20 PAR sheet, pay table {sheet.pay_table.name!r}",
        f"Exact enumeration of {deals:,} deals: {THREE_CARD_HANDS:,} hands for Player A"
        f" x {DEALS_PER_THREE_CARD_HAND:,} disjoint hands for Player B.",
        f"6 Card Bonus: all {SIX_CARD_SETS:,} six-card sets, each dealt in"
        f" {DEALS_PER_SIX_CARD_SET} ways ({SIX_CARD_SETS:,} x {DEALS_PER_SIX_CARD_SET}"
        f" = {SIX_CARD_SETS * DEALS_PER_SIX_CARD_SET:,} deals).",
    ]


def _main_game(sheet: ParSheet) -> list[str]:
    deals = sheet.counts.deals
    rows = [f"{'Main game':<24}{'deals':>14}{'probability':>15}"]
    for winner in Winner:
        n = sheet.counts.outcomes[winner]
        rows.append(f"  {_OUTCOME_NAMES[winner]:<22}{n:>14,}{percent(Fraction(n, deals)):>15}")
    rows.append(f"  {'Total':<22}{deals:>14,}{percent(Fraction(1)):>15}")
    return rows


def _three_card_hands(sheet: ParSheet) -> list[str]:
    rows = [
        f"{'Three-card hands':<18}{'hands':>8}{'probability':>13}"
        f"{'A wins':>14}{'B wins':>14}{'ties':>10}{'Pair+ A':>9}{'Pair+ B':>9}"
    ]
    for category in ThreeCardCategory:
        n = sheet.counts.three_card_hands[category]
        by_winner = sheet.counts.outcomes_by_player_a_hand[category]
        pays_a = _pays(sheet.pay_table.pair_plus_a.odds_for(category))
        pays_b = _pays(sheet.pay_table.pair_plus_b.odds_for(category))
        rows.append(
            f"  {category.value:<16}{n:>8,}{percent(Fraction(n, THREE_CARD_HANDS), 4):>13}"
            f"{by_winner[Winner.PLAYER_A]:>14,}{by_winner[Winner.PLAYER_B]:>14,}"
            f"{by_winner[Winner.TIE]:>10,}{pays_a:>9}{pays_b:>9}"
        )
    rows.append(f"  {'total':<16}{THREE_CARD_HANDS:>8,}")
    rows.append(
        f"  (A wins / B wins / ties: deals, by Player A's hand; each hand is in"
        f" {DEALS_PER_THREE_CARD_HAND:,} deals)"
    )
    return rows


def _six_card_hands(sheet: ParSheet) -> list[str]:
    rows = [f"{'6 Card Bonus hands':<22}{'six-card sets':>14}{'probability':>13}{'pays':>10}"]
    for category in SixCardCategory:
        n = sheet.counts.six_card_sets[category]
        pays = _pays(sheet.pay_table.six_card_bonus.odds_for(category))
        rows.append(
            f"  {category.value:<20}{n:>14,}{percent(Fraction(n, SIX_CARD_SETS), 4):>13}{pays:>10}"
        )
    none = sheet.counts.six_card_sets[None]
    share = percent(Fraction(none, SIX_CARD_SETS), 4)
    rows.append(f"  {'none (loses)':<20}{none:>14,}{share:>13}{'-':>10}")
    rows.append(f"  {'total':<20}{SIX_CARD_SETS:>14,}")
    return rows


def _bets(sheet: ParSheet) -> list[str]:
    rows = [
        f"Bets (RTP floor {percent(sheet.rtp_floor, 2)})",
        f"  {'bet':<14}{'RTP':>12}{'house edge':>12}{'hit freq':>12}{'push freq':>12}"
        f"  {'RTP exact':<18}flag",
    ]
    for bet in sheet.bets:
        flag = "BELOW FLOOR" if bet.below_floor else ""
        row = (
            f"  {_BET_NAMES[bet.bet_type]:<14}{percent(bet.rtp, 4):>12}"
            f"{percent(bet.house_edge, 4):>12}{percent(bet.hit_frequency, 4):>12}"
            f"{percent(bet.push_frequency, 4):>12}  {fraction_string(bet.rtp):<18}{flag}"
        )
        rows.append(row.rstrip())
    return rows


def _where_each_rtp_comes_from(sheet: ParSheet) -> list[str]:
    deals = sheet.counts.deals
    rows = ["Where each RTP comes from: RTP = sum of deals / all deals x (1 + odds)"]
    for bet in sheet.bets:
        rows.append(f"  {_BET_NAMES[bet.bet_type]}")
        for line in bet.lines:
            odds = "stake back" if line.odds is None else _pays(line.odds)
            rows.append(
                f"    {line.event:<16}{odds:>11}{line.deals:>13,} / {deals:,}"
                f" x {_for_people(line.returned_per_unit):<6} = {percent(line.contribution):>12}"
            )
        rows.append(f"    {'RTP':<16}{'':47} = {percent(bet.rtp):>12}")
    return rows


def where_the_stated_max_comes_from(sheet: ParSheet) -> list[str]:
    """The explanation of the rules' "maximum RTP of the game is 97.50%" for this table."""
    stated = STATED_MAX_RTP
    best_decided = max(sheet.bets, key=lambda bet: bet.rtp_excluding_pushes)
    best = max(sheet.bets, key=lambda bet: bet.rtp)
    name = _BET_NAMES[best_decided.bet_type]
    decided_rtp = percent(best_decided.rtp_excluding_pushes)
    pushes = sum(line.deals for line in best_decided.lines if line.odds is None)
    decided = sheet.counts.deals - pushes
    rows = [
        f"Where the rules' maximum RTP of {percent(stated, 2)} comes from",
        f"  Best bet once decided: {name}, RTP {decided_rtp} over the {decided:,} deals"
        " where it wins or loses.",
    ]
    wins = next(line for line in best_decided.lines if line.odds is not None)
    if best_decided.bet_type in (BetType.PLAYER_A, BetType.PLAYER_B):
        rows.append(
            "  The seats are symmetric, so a decided bet wins exactly half the time"
            f" ({wins.deals:,} of {decided:,}) and then returns"
            f" {_for_people(wins.returned_per_unit)} per unit:"
            f" 1/2 x {_for_people(wins.returned_per_unit)} = {decided_rtp}."
        )
    if best.push_frequency:
        rows.append(
            f"  Counting a tie as the stake returned (bets on Player A and B are refunded),"
            f" {_BET_NAMES[best.bet_type]} returns {percent(best.rtp_excluding_pushes)}"
            f" x (1 - {percent(best.push_frequency)}) + {percent(best.push_frequency)}"
            f" = {percent(best.rtp)} per bet placed."
        )
    if best_decided.rtp_excluding_pushes == stated:
        rows.append(
            f"  So {percent(stated, 2)} is exactly the {name} RTP with ties left out; with"
            f" ties counted as refunds it is {percent(best.rtp)},"
            f" which rounds to {percent(best.rtp, 2)}."
        )
    elif best_decided.rtp_excluding_pushes > stated:
        rows.append(f"  This table exceeds the stated maximum of {percent(stated, 2)}.")
    else:
        rows.append(f"  This table stays below the stated maximum of {percent(stated, 2)}.")
    main_bets = (BetType.PLAYER_A, BetType.PLAYER_B)
    shown = main_bets if best_decided.bet_type in main_bets else (best_decided.bet_type,)
    rows.append(
        "  The other bets return: "
        + ", ".join(
            f"{_BET_NAMES[bet.bet_type]} {percent(bet.rtp, 2)}"
            for bet in sheet.bets
            if bet.bet_type not in shown
        )
        + "."
    )
    return [textwrap.fill(row, width=98, subsequent_indent="    ") for row in rows]


def _pays(odds: Fraction | None) -> str:
    """Odds for people: "1,000:1", "0.95:1"; "-" for a hand that does not pay."""
    return "-" if odds is None else f"{_for_people(odds)}:1"


def _for_people(value: Fraction) -> str:
    """1001 as "1,001", 39/20 as "1.95", 4/3 as "4/3" (American format, rules README)."""
    whole, dot, part = format_odds(value).partition(".")
    return whole if "/" in whole else f"{int(whole):,}{dot}{part}"
