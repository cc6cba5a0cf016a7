"""The reference operator's fault switches (teenpatti_tools.operator.faults): which calls a
switch fires on, with a seeded probability or on the next N calls."""

from __future__ import annotations

import pydantic
import pytest

from teenpatti_tools.operator.faults import Fate, FaultPlan, FaultSwitch, FaultSwitches


def switches(*switch: dict[str, object], seed: int = 0) -> FaultSwitches:
    return FaultSwitches.of(FaultPlan.model_validate({"seed": seed, "switches": switch}))


def test_no_switch_answers_every_call_normally() -> None:
    assert switches().draw("bet") == Fate()


def test_next_n_fires_on_the_next_n_matching_calls_only() -> None:
    faults = switches({"kind": "error", "next": 2, "calls": ["win"]})
    assert faults.draw("bet").fault is None
    fates = [faults.draw("win").fault for _ in range(3)]
    assert [fate is not None for fate in fates] == [True, True, False]
    described = faults.describe()["switches"][0]
    assert (described["fired"], described["remaining"], described["calls"]) == (2, 0, ["win"])


def test_latencies_add_up_and_the_first_other_fault_decides() -> None:
    faults = switches(
        {"kind": "latency", "seconds": 0.25, "probability": 1},
        {"kind": "refuse", "status": "RS_ERROR_USER_DISABLED", "next": 1},
        {"kind": "latency", "seconds": 0.5, "next": 1},
        {"kind": "error", "next": 1},
    )
    fate = faults.draw("bet")
    assert fate.delay == 0.75
    assert fate.fault is not None and fate.fault.status == "RS_ERROR_USER_DISABLED"
    # a `next` switch another one shadowed is kept for the next call
    fate = faults.draw("bet")
    assert fate.delay == 0.25
    assert fate.fault is not None and fate.fault.kind == "error"
    assert faults.draw("bet") == Fate(0.25, None)
    assert [s["fired"] for s in faults.describe()["switches"]] == [3, 1, 1, 1]


def test_a_seeded_probability_fires_the_same_calls_every_time() -> None:
    switch = {"kind": "lost", "probability": 0.3}
    draws = switches(switch, seed=11)
    again = switches(switch, seed=11)
    pattern = [draws.draw("win").fault is not None for _ in range(200)]
    assert pattern == [again.draw("win").fault is not None for _ in range(200)]
    assert 20 < sum(pattern) < 100
    other = switches(switch, seed=12)
    assert [other.draw("win").fault is not None for _ in range(200)] != pattern


@pytest.mark.parametrize(
    "switch",
    [
        {"kind": "error"},
        {"kind": "error", "probability": 0.5, "next": 3},
        {"kind": "error", "probability": 1.5},
        {"kind": "error", "next": 0},
        {"kind": "error", "next": 1, "http_status": 404},
        {"kind": "refuse", "next": 1, "status": "RS_OK"},
        {"kind": "melt", "next": 1},
        {"kind": "error", "next": 1, "calls": ["deposit"]},
    ],
)
def test_a_switch_that_makes_no_sense_is_refused(switch: dict[str, object]) -> None:
    with pytest.raises(pydantic.ValidationError):
        FaultSwitch.model_validate(switch)
