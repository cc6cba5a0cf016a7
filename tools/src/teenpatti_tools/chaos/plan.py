"""The fault schedule of a chaos run: which process is SIGKILLed, after how long, and how long
it stays down; and the faults the reference operator (the seamless operator's wallet server)
answers with. Pure and seeded: one seed and one list of targets give one schedule."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from teenpatti_tools.operator.faults import Call, FaultKind, FaultPlan, FaultSwitch

INFRASTRUCTURE = ("kafka", "postgres", "redis")
OPERATOR = "operator"  # the reference operator's process, a target like a service instance


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


def operator_faults(seed: int, *, hold_seconds: float = 3.5) -> FaultPlan:
    """What the reference operator does wrong, seeded, for the whole run: latency on every
    money call, and a second of it on some bets (a slip sent just before the close gets its
    RS_OK after it); on bets, timeouts (held past the wallet's 3 s, then applied: the late
    bet after its rollback), 5xx, answers lost after the debit and refusals (not enough
    money, limit reached: expected refusals of a slip); on wins and rollbacks, 5xx, lost
    answers and answers held past the timeout after the credit, each retried until RS_OK. No
    win or rollback is ever refused: a refusal there is a problem for a person (a `failed`
    call), which a clean run must not have. `hold_seconds` must exceed the wallet's call timeout."""
    settle: frozenset[Call] = frozenset({"win", "rollback"})
    bet: frozenset[Call] = frozenset({"bet"})
    rng = random.Random(seed)
    return FaultPlan(
        seed=seed,
        switches=(
            FaultSwitch(
                kind=FaultKind.LATENCY,
                calls=bet | settle,
                probability=0.5,
                seconds=round(rng.uniform(0.02, 0.3), 3),
            ),
            # a bet answered a second late: a slip sent a moment before the close gets its
            # RS_OK after it, and is rolled back (`betting_closed`)
            FaultSwitch(kind=FaultKind.LATENCY, calls=bet, probability=0.15, seconds=1.0),
            FaultSwitch(kind=FaultKind.TIMEOUT, calls=bet, probability=0.03, seconds=hold_seconds),
            FaultSwitch(kind=FaultKind.ERROR, calls=bet, probability=0.04, http_status=503),
            FaultSwitch(kind=FaultKind.LOST, calls=bet, probability=0.03, http_status=502),
            FaultSwitch(
                kind=FaultKind.REFUSE,
                calls=bet,
                probability=0.03,
                status="RS_ERROR_NOT_ENOUGH_MONEY",
            ),
            FaultSwitch(
                kind=FaultKind.REFUSE, calls=bet, probability=0.02, status="RS_ERROR_LIMIT_REACHED"
            ),
            FaultSwitch(kind=FaultKind.ERROR, calls=settle, probability=0.08, http_status=500),
            FaultSwitch(kind=FaultKind.LOST, calls=settle, probability=0.05, http_status=504),
            FaultSwitch(
                kind=FaultKind.TIMEOUT,
                calls=settle,
                probability=0.03,
                seconds=hold_seconds,
                applied_first=True,
            ),
        ),
    )
