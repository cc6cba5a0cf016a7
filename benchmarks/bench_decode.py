"""Decoding benchmark: the payloads a replay and the money path decode most, by the contracts'
pydantic validators alone and with the compiled decoders (docs/decisions/0102).

    uv run python benchmarks/bench_decode.py [--smoke]

For each type, microseconds per payload decoded from its JSON text by the registry
(`registry.decode_json`), with the compiled decoders off (`use_compiled(False)`: pydantic
alone, as before them) and on. Then a settlement part of 1,000 `BetSettled` lines as the
wallet decodes it: from the part's JSON text, and as its consumer does, the Kafka record's
envelope (`EventEnvelope.from_json_bytes`) and then its payload (`registry.decode_envelope`).
Each figure is the process's CPU time (not the wall clock: the machine may be shared), the
best of REPEATS runs, off and on taking turns in the same process. Nothing is asserted:
this prints figures.
"""

from __future__ import annotations

import argparse
import sys
import time
import timeit
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_rebuild import CARDS, round_events
from teenpatti.events import Event, EventEnvelope, new_envelope
from teenpatti.events.catalog import SETTLEMENT_PART, BetSettled, BetsSettled, registry

REPEATS = 7


@dataclass(frozen=True)
class Row:
    measure: str
    pydantic_us: float
    compiled_us: float

    @property
    def ratio(self) -> float:
        return self.pydantic_us / self.compiled_us


def settlement_part(lines: int) -> BetsSettled:
    return BetsSettled(
        round_id="T001-000001",
        table_id="T001",
        bets=[
            BetSettled(
                bet_id=uuid.uuid4(),
                operator_id="operator-1",
                player_id=f"player-{n // 6}",
                bet_type="player_a",
                stake=1_000 + n,
                currency="INR",
                outcome="won",
                returned=1_950 + 2 * n,
                fraction_kept="0",
                odds="19/20",
            )
            for n in range(lines)
        ],
    )


def cpu_us(action: Callable[[], Any], number: int) -> float:
    return timeit.timeit(action, number=number, timer=time.process_time) / number * 1e6


def off_and_on(measure: str, action: Callable[[], Any], number: int) -> Row:
    off: list[float] = []
    on: list[float] = []
    try:
        for _ in range(REPEATS):
            registry.use_compiled(False)
            off.append(cpu_us(action, number))
            registry.use_compiled(True)
            on.append(cpu_us(action, number))
    finally:
        registry.use_compiled(True)
    return Row(measure, min(off), min(on))


def measure(smoke: bool = False) -> list[Row]:
    calls = 200 if smoke else 20_000
    opened_at = datetime(2026, 11, 1, tzinfo=UTC)
    # one round of the rebuild benchmark's table: its first event of each type
    samples: dict[str, Event] = {}
    for event in round_events("T001", 1, opened_at + timedelta(seconds=30)):
        samples.setdefault(event.event_type, event)
    assert len(CARDS) == 6
    rows: list[Row] = []
    for event_type, event in samples.items():
        text = event.model_dump_json()

        def decode(event_type: str = event_type, text: str = text) -> Event:
            return registry.decode_json(event_type, 1, text)

        rows.append(off_and_on(f"{event_type} from its JSON text", decode, calls))
    part = settlement_part(10 if smoke else SETTLEMENT_PART)
    text = part.model_dump_json()
    record = new_envelope(
        part, stream_id="round-T001-000001", stream_version=1, table_id="T001", producer="bench"
    ).to_json_bytes()
    parts = 5 if smoke else 100
    lines = len(part.bets)
    rows.append(
        off_and_on(
            f"BetsSettled of {lines:,} lines from its JSON text",
            lambda: registry.decode_json("BetsSettled", 1, text),
            parts,
        )
    )
    rows.append(
        off_and_on(
            f"BetsSettled of {lines:,} lines from its Kafka record (envelope, then payload)",
            lambda: registry.decode_envelope(EventEnvelope.from_json_bytes(record)),
            parts,
        )
    )
    return rows


def print_rows(rows: Sequence[Row]) -> None:
    print(f"| {'decoded':<78} | {'pydantic µs':>11} | {'compiled µs':>11} | {'ratio':>5} |")
    print(f"|{'-' * 80}|{'-' * 13}|{'-' * 13}|{'-' * 7}|")
    for row in rows:
        print(
            f"| {row.measure:<78} | {row.pydantic_us:>11,.2f} | {row.compiled_us:>11,.2f} |"
            f" {row.ratio:>5.2f} |"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a few calls, to show it works")
    args = parser.parse_args(argv)
    print_rows(measure(args.smoke))


if __name__ == "__main__":
    main()
