"""The reference operator's fault switches: what goes wrong, on which calls, how often.

A switch is one fault (`latency`, `timeout`, `error`, `lost`, `refuse`, `bad_signature`), the
calls it applies to (`bet`, `win`, `rollback`, `balance`; none named: all) and when it fires:
with a `probability` drawn from a seeded generator, or on the `next` N matching calls. Every
probability is drawn on every call it applies to; the latencies that fire add up, and the
first other switch that fires decides the call's fate; a `next` N is spent only on the calls
it decides (or delays). Pure: the generator is seeded by the plan.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Call = Literal["bet", "win", "rollback", "balance"]


class FaultKind(StrEnum):
    LATENCY = "latency"  # answer after `seconds`, otherwise normally
    # hold the request `seconds` (past the caller's timeout), then apply it; with
    # `applied_first`, apply it at once and hold the answer
    TIMEOUT = "timeout"
    ERROR = "error"  # answer HTTP `http_status` (5xx) without applying anything
    LOST = "lost"  # apply the change, then answer HTTP `http_status`: the answer is lost
    REFUSE = "refuse"  # answer `status` (an RS_ERROR_*) without applying anything
    BAD_SIGNATURE = "bad_signature"  # apply the change, sign the answer with a wrong signature


class FaultSwitch(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: FaultKind
    calls: frozenset[Call] = Field(default=frozenset(), description="none: every call")
    probability: float | None = Field(default=None, ge=0, le=1)
    next: int | None = Field(default=None, ge=1, description="the next N matching calls")
    seconds: float = Field(default=0.0, ge=0, le=600, description="latency or hold time")
    http_status: int = Field(default=500, ge=500, le=599)
    status: str = Field(default="RS_ERROR_UNKNOWN", pattern=r"^RS_ERROR_[A-Z_]+$")
    applied_first: bool = Field(default=False, description="timeout: apply, then hold")

    @model_validator(mode="after")
    def _one_trigger(self) -> FaultSwitch:
        if (self.probability is None) == (self.next is None):
            raise ValueError("a fault switch fires with a `probability` or on the `next` N calls")
        return self

    def applies_to(self, call: Call) -> bool:
        return not self.calls or call in self.calls


class FaultPlan(BaseModel):
    """What `PUT /admin/faults` takes and `--faults` reads: the switches and the seed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = 0
    switches: tuple[FaultSwitch, ...] = ()


@dataclass(frozen=True, slots=True)
class Fate:
    """What happens to one call: wait `delay` seconds, then `fault` (None: answer normally)."""

    delay: float = 0.0
    fault: FaultSwitch | None = None


@dataclass
class FaultSwitches:
    """The switches in force, with what is left of each `next` N and how often each fired."""

    plan: FaultPlan = field(default_factory=FaultPlan)
    remaining: list[int | None] = field(default_factory=list)
    fired: list[int] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    @classmethod
    def of(cls, plan: FaultPlan) -> FaultSwitches:
        return cls(
            plan,
            [switch.next for switch in plan.switches],
            [0] * len(plan.switches),
            random.Random(plan.seed),
        )

    def draw(self, call: Call) -> Fate:
        delay = 0.0
        outcome: FaultSwitch | None = None
        for index, switch in enumerate(self.plan.switches):
            if not switch.applies_to(call):
                continue
            if switch.kind is FaultKind.LATENCY:
                if self._fires(index, switch):
                    delay += switch.seconds
                    self.fired[index] += 1
            elif switch.probability is not None:
                # drawn even when another fault decides, so that one switch's draws do not
                # depend on the others'
                if self._fires(index, switch) and outcome is None:
                    outcome = switch
                    self.fired[index] += 1
            elif outcome is None and self._fires(index, switch):
                outcome = switch
                self.fired[index] += 1
        return Fate(delay, outcome)

    def _fires(self, index: int, switch: FaultSwitch) -> bool:
        if switch.probability is not None:
            return self.rng.random() < switch.probability
        left = self.remaining[index]
        if not left:
            return False
        self.remaining[index] = left - 1
        return True

    def describe(self) -> dict[str, Any]:
        """The plan, each switch with how often it fired and what is left of its `next`."""
        return {
            "seed": self.plan.seed,
            "switches": [
                {**switch.model_dump(mode="json"), "fired": fired, "remaining": remaining}
                for switch, fired, remaining in zip(
                    self.plan.switches, self.fired, self.remaining, strict=True
                )
            ],
        }
