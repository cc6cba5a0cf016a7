"""The payment benchmark runs at its smoke size: each stage of the wallet's payment measured,
and the Postgres stage beside its raw limit (docs/decisions/0104). The sizes are tiny: the
figures say nothing of speed."""

from __future__ import annotations

import math

from benchmarks import bench_payment


async def test_each_stage_of_the_payment_is_measured() -> None:
    rows = await bench_payment.measure(smoke=True)
    stages = {row.stage.split(" ", 1)[0] for row in rows}
    assert {"decode", "check", "build", "encode", "Postgres:", "asyncpg:"} <= stages
    python = [row for row in rows if row.baseline == "-"]
    assert all(math.isfinite(row.us_per_line) and row.us_per_line > 0 for row in python)
    # the whole is its stages' sum
    *parts, whole = python
    assert whole.us_per_line == sum(row.us_per_line for row in parts)
    # /proc counts in hundredths of a second: a tiny run may see no tick, never a negative one
    database = [row for row in rows if row.baseline != "-"]
    assert len(database) == 3
    assert all(row.us_per_line >= 0 and row.baseline_us >= 0 for row in database)
