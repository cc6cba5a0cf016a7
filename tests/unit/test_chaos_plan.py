"""The chaos fault schedule: seeded, every target first, then random ones."""

from __future__ import annotations

from itertools import islice

import pytest

from teenpatti.seamless.config import OperatorConfig
from teenpatti_tools.chaos.plan import OPERATOR, Fault, operator_faults, schedule
from teenpatti_tools.operator.faults import FaultKind

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


def test_the_operator_target_is_counted_as_the_operator() -> None:
    assert Fault(1.0, OPERATOR, 1.0).kind == "operator"


def test_the_operator_faults_are_seeded() -> None:
    assert operator_faults(3) == operator_faults(3)
    assert operator_faults(3) != operator_faults(4)


def test_wins_and_rollbacks_are_never_refused_only_delayed_or_failed_in_transit() -> None:
    # a refused win or rollback is a problem for a person (a failed call): a clean run has none
    plan = operator_faults(1)
    for switch in plan.switches:
        if switch.calls & {"win", "rollback"}:
            assert switch.kind in (
                FaultKind.LATENCY,
                FaultKind.ERROR,
                FaultKind.LOST,
                FaultKind.TIMEOUT,
            ), switch
    assert FaultKind.BAD_SIGNATURE not in {s.kind for s in plan.switches}
    refused = {s.status for s in plan.switches if s.kind is FaultKind.REFUSE}
    assert refused == {"RS_ERROR_NOT_ENOUGH_MONEY", "RS_ERROR_LIMIT_REACHED"}
    assert all(s.calls == {"bet"} for s in plan.switches if s.kind is FaultKind.REFUSE)


def test_every_fault_the_issue_names_is_injected_and_timeouts_outlast_the_call_timeout() -> None:
    plan = operator_faults(1)
    kinds = {(s.kind, call) for s in plan.switches for call in s.calls}
    for kind in (FaultKind.LATENCY, FaultKind.TIMEOUT, FaultKind.ERROR, FaultKind.LOST):
        assert {(kind, "bet"), (kind, "win"), (kind, "rollback")} <= kinds, kind
    assert (FaultKind.REFUSE, "bet") in kinds
    timeout = OperatorConfig.model_fields["timeout_seconds"].default
    assert all(s.seconds > timeout for s in plan.switches if s.kind is FaultKind.TIMEOUT)
