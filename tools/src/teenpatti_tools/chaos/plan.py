"""The fault schedule of a chaos run: which process is SIGKILLed, after how long, and how long
it stays down. Pure and seeded: one seed and one list of targets give one schedule."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

INFRASTRUCTURE = ("kafka", "postgres", "redis")


@dataclass(frozen=True, slots=True)
class Fault:
    after: float  # seconds of calm since the previous fault was repaired
    target: str  # a service instance ("wallet-2") or one of INFRASTRUCTURE
    down: float  # seconds it stays dead before it is restarted

    @property
    def kind(self) -> str:
        """What was killed, for the counts: "kafka", or the service of an instance."""
        if self.target in INFRASTRUCTURE:
            return self.target
        service, _, number = self.target.rpartition("-")
        return service if number.isdigit() else self.target


def schedule(
    seed: int,
    targets: Sequence[str],
    *,
    calm: tuple[float, float] = (2.0, 6.0),
    down: tuple[float, float] = (0.2, 3.0),
) -> Iterator[Fault]:
    """Faults one after the other, without end: every target once first (in a seeded order,
    so even a short run kills each of them), then targets drawn at random."""
    if not targets:
        raise ValueError("a chaos schedule needs at least one target")
    if not (0 <= calm[0] <= calm[1] and 0 <= down[0] <= down[1]):
        raise ValueError(f"bad ranges: calm {calm}, down {down}")
    rng = random.Random(seed)
    first = list(targets)
    rng.shuffle(first)
    count = 0
    while True:
        target = first[count] if count < len(first) else rng.choice(targets)
        yield Fault(
            after=round(rng.uniform(*calm), 3), target=target, down=round(rng.uniform(*down), 3)
        )
        count += 1
