"""What the fuzz tests tried, collected during the run and printed at its end."""

from __future__ import annotations

from collections import Counter

REPORT: list[str] = []


def record(title: str, counts: Counter[str] | dict[str, int]) -> None:
    total = sum(counts.values())
    lines = [f"{title}: {total} inputs"]
    lines += [f"  {kind:<48} {n}" for kind, n in sorted(counts.items())]
    REPORT.append("\n".join(lines))
