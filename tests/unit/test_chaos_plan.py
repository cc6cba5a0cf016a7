"""The chaos fault schedule: seeded, every target first, then random ones."""

from __future__ import annotations

from itertools import islice

import pytest

from teenpatti_tools.chaos.plan import Fault, schedule

TARGETS = ["table-1", "table-2", "wallet-1", "scanner-gateway-1", "kafka", "postgres", "redis"]


def test_one_seed_gives_one_schedule_and_another_seed_another() -> None:
    first = list(islice(schedule(7, TARGETS), 30))
    assert first == list(islice(schedule(7, TARGETS), 30))
    assert first != list(islice(schedule(8, TARGETS), 30))


def test_every_target_is_hit_once_before_any_is_hit_twice() -> None:
    faults = list(islice(schedule(3, TARGETS), 40))
    assert sorted(f.target for f in faults[: len(TARGETS)]) == sorted(TARGETS)
    assert {f.target for f in faults[len(TARGETS) :]} <= set(TARGETS)


def test_times_stay_in_their_ranges() -> None:
    for fault in islice(schedule(5, TARGETS, calm=(1.0, 2.0), down=(0.5, 0.6)), 200):
        assert 1.0 <= fault.after <= 2.0
        assert 0.5 <= fault.down <= 0.6


@pytest.mark.parametrize(
    ("target", "kind"),
    [
        ("wallet-2", "wallet"),
        ("scanner-gateway-1", "scanner-gateway"),
        ("scanner-gateway", "scanner-gateway"),
        ("kafka", "kafka"),
        ("settlement", "settlement"),
    ],
)
def test_a_fault_is_counted_under_its_kind(target: str, kind: str) -> None:
    assert Fault(1.0, target, 1.0).kind == kind


def test_bad_schedules_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one target"):
        next(schedule(1, []))
    with pytest.raises(ValueError, match="bad ranges"):
        next(schedule(1, TARGETS, calm=(3.0, 1.0)))
