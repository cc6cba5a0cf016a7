"""Rules engine benchmark (`make bench-engine`).

Measures, on seeded random deals:
- round results per second (`resolve_round`: both three-card hands, winner, 6 Card Bonus);
- 6 Card Bonus classifications per second: our scalar evaluator against `treys` (its 6-card
  evaluation, mapped to the bonus categories) on the same six-card sets, and our vectorised
  numpy classifier on the same sets and on a larger batch;
- the wall time of the full PAR sheet (exact enumeration of all 407,170,400 deals).

Card conversions (to treys integers, to numpy indices) happen before the clocks start; every
timed run is repeated and the best time is reported. Nothing is asserted: this prints figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import treys

from teenpatti.engine import (
    DECK,
    PUBLISHED_PAY_TABLE,
    BetType,
    Card,
    SixCardCategory,
    resolve_round,
    six_card_bonus_hand,
)
from teenpatti.engine.arrays import classify_six_card_sets
from teenpatti.engine.par import count_deals, par_sheet

SEED = 2020
ROUNDS = 50_000
BONUS_SETS = 50_000
NUMPY_SETS = 2_000_000
REPEATS = 5
PAR_REPEATS = 3

T = TypeVar("T")

# treys rank classes 0-6 are royal flush … three of a kind; 7-9 (two pair, pair, high card)
# do not qualify for the bonus.
TREYS_CLASS_TO_CODE = {0: 7, 1: 6, 2: 5, 3: 4, 4: 3, 5: 2, 6: 1, 7: 0, 8: 0, 9: 0}


@dataclass(frozen=True)
class Row:
    measure: str
    items: int
    seconds: float
    group: str = ""  # rows of a group are compared with the group's baseline (treys)
    baseline: bool = False

    @property
    def per_second(self) -> float:
        return self.items / self.seconds


def best_time(run: Callable[[], T], repeats: int = REPEATS) -> tuple[T, float, list[float]]:
    times: list[float] = []
    result: T | None = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    assert result is not None
    return result, min(times), times


def random_deals(rng: random.Random, count: int) -> list[list[Card]]:
    return [rng.sample(DECK, 6) for _ in range(count)]


def random_six_card_indices(seed: int, count: int) -> np.ndarray:
    """`count` uniformly random six-card sets (distinct cards) as an (n, 6) index array."""
    generator = np.random.default_rng(seed)
    rows: list[np.ndarray] = []
    have = 0
    while have < count:
        draw = np.sort(generator.integers(0, 52, size=(count, 6)), axis=1)
        draw = draw[(np.diff(draw, axis=1) != 0).all(axis=1)]
        rows.append(draw)
        have += draw.shape[0]
    # Sorting does not bias the set drawn; shuffle the columns back for realism.
    return generator.permuted(np.concatenate(rows)[:count], axis=1)


def treys_text(card: Card) -> str:
    rank = "T" if card.rank.label == "10" else card.rank.label
    return rank + card.suit.value.lower()


def run(smoke: bool = False) -> dict[str, float]:
    """Every measure, printed; the main figures returned (per second, or seconds). `smoke`:
    small sets, each timed once, the PAR sheet once in process and once as the command."""
    sizes = (2_000, 2_000, 20_000) if smoke else (ROUNDS, BONUS_SETS, NUMPY_SETS)
    rounds, bonus, numpy_sets = sizes
    repeats, par_repeats = (1, 1) if smoke else (REPEATS, PAR_REPEATS)
    rng = random.Random(SEED)
    deals = random_deals(rng, rounds)
    bonus_sets = deals[:bonus]
    treys_sets = [[treys.Card.new(treys_text(card)) for card in row] for row in bonus_sets]
    index_sets = np.array([[card.index for card in row] for row in bonus_sets], dtype=np.int64)
    big_batch = random_six_card_indices(SEED, numpy_sets)
    evaluator = treys.Evaluator()

    def run_rounds() -> int:
        return sum(1 for deal in deals if resolve_round(deal).six_card_bonus is not None)

    def run_ours_scalar() -> list[int]:
        codes = []
        for row in bonus_sets:
            hand = six_card_bonus_hand(row)
            codes.append(0 if hand is None else hand.category.code)
        return codes

    def run_treys() -> list[int]:
        return [
            TREYS_CLASS_TO_CODE[evaluator.get_rank_class(evaluator.evaluate(row[:2], row[2:]))]
            for row in treys_sets
        ]

    rows: list[Row] = []
    _, seconds, _ = best_time(run_rounds, repeats)
    rows.append(Row("round results: resolve_round (scalar)", rounds, seconds))
    treys_codes, seconds, _ = best_time(run_treys, repeats)
    rows.append(
        Row(
            f"6-card bonus: treys {_version('treys')}, 6-card evaluate",
            bonus,
            seconds,
            group="all",
            baseline=True,
        )
    )
    ours_codes, seconds, _ = best_time(run_ours_scalar, repeats)
    rows.append(Row("6-card bonus: ours, scalar (best five of six)", bonus, seconds, group="all"))
    numpy_codes, seconds, _ = best_time(lambda: classify_six_card_sets(index_sets), repeats)
    rows.append(Row("6-card bonus: ours, numpy, same sets", bonus, seconds, group="all"))
    _, seconds, _ = best_time(lambda: classify_six_card_sets(big_batch), repeats)
    rows.append(
        Row(f"6-card bonus: ours, numpy, {numpy_sets:,} random sets", numpy_sets, seconds, "all")
    )

    # Our scalar evaluator leaves early when no five of the six can make three of a kind or
    # better (about 93% of deals); treys always ranks the hand fully. Time the paying hands
    # alone as well, so that the early exit does not flatter us.
    paying = [i for i, code in enumerate(ours_codes) if code > 0]
    paying_sets = [bonus_sets[i] for i in paying]
    paying_treys = [treys_sets[i] for i in paying]
    _, seconds, _ = best_time(
        lambda: [
            evaluator.get_rank_class(evaluator.evaluate(row[:2], row[2:])) for row in paying_treys
        ],
        repeats,
    )
    rows.append(
        Row(
            f"paying hands only ({len(paying):,} of the same sets): treys",
            len(paying),
            seconds,
            group="paying",
            baseline=True,
        )
    )
    _, seconds, _ = best_time(lambda: [six_card_bonus_hand(row) for row in paying_sets], repeats)
    rows.append(Row("paying hands only: ours, scalar", len(paying), seconds, group="paying"))

    agree_treys = sum(a == b for a, b in zip(ours_codes, treys_codes, strict=True))
    agree_numpy = sum(a == b for a, b in zip(ours_codes, numpy_codes.tolist(), strict=True))

    start = time.perf_counter()
    sheet = par_sheet(PUBLISHED_PAY_TABLE, count_deals())
    cold = time.perf_counter() - start
    warm, warm_times = cold, [cold]
    if not smoke:
        _, warm, warm_times = best_time(
            lambda: par_sheet(PUBLISHED_PAY_TABLE, count_deals()), par_repeats
        )
    cli_seconds = _cli_par_sheet_seconds()

    _print_report(rows, agree_treys, agree_numpy, bonus, repeats)
    print()
    print("PAR sheet (exact enumeration of 407,170,400 deals and 20,358,520 six-card sets)")
    print(f"  in process, first run (cold caches)       {cold:8.2f} s")
    print(
        f"  in process, best of {par_repeats}                      {warm:8.2f} s"
        f"   (median {statistics.median(warm_times):.2f} s)"
    )
    print(f"  `teenpatti par-sheet` CLI, with startup    {cli_seconds:8.2f} s")
    rtp = sheet.bet(BetType.PLAYER_A).rtp
    print(f"  (Player A RTP from that run: {float(rtp):.10f} = {rtp})")
    return {
        "rounds_per_second": rows[0].per_second,
        "bonus_agreeing_with_treys": agree_treys / bonus,
        "bonus_agreeing_scalar_numpy": agree_numpy / bonus,
        "par_sheet_seconds": warm,
        "par_sheet_command_seconds": cli_seconds,
        "player_a_rtp": float(rtp),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="small sets, to show it works")
    run(parser.parse_args(argv).smoke)


def _print_report(
    rows: Sequence[Row], agree_treys: int, agree_numpy: int, bonus: int, repeats: int
) -> None:
    baselines = {row.group: row for row in rows if row.baseline}
    print(
        f"Teen Patti 20-20 rules engine benchmark: seed {SEED}, Python {platform.python_version()},"
        f" numpy {np.__version__}, {os.cpu_count()} CPUs, best of {repeats} runs"
    )
    print()
    header = f"{'measure':<56}{'items':>11}{'seconds':>10}{'per second':>14}{'vs treys':>10}"
    print(header)
    print("-" * len(header))
    for row in rows:
        baseline = baselines.get(row.group)
        ratio = f"{row.per_second / baseline.per_second:.2f}x" if baseline else ""
        print(
            f"{row.measure:<56}{row.items:>11,}{row.seconds:>10.3f}"
            f"{row.per_second:>14,.0f}{ratio:>10}"
        )
    print()
    print(
        f"Agreement on the same {bonus:,} sets: ours vs treys {agree_treys:,},"
        f" ours scalar vs ours numpy {agree_numpy:,}"
    )
    categories = ", ".join(category.value for category in SixCardCategory)
    print(f"(categories compared: {categories}, or none)")


def _cli_par_sheet_seconds() -> float:
    command = [sys.executable, "-m", "teenpatti.cli", "par-sheet", "--json"]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


if __name__ == "__main__":
    main()
