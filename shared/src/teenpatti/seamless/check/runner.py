"""The run: every case in order against one operator, its verdicts in a report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from uuid import uuid4

from teenpatti.seamless.check.cases import CASES, Case
from teenpatti.seamless.check.exchanges import Exchange, Transport
from teenpatti.seamless.check.probe import CaseFailedError, Probe, Session
from teenpatti.seamless.signing import PrivateKey, PublicKey, generate_private_key


@dataclass(frozen=True, slots=True)
class CaseResult:
    name: str
    title: str
    passed: bool
    detail: str  # what passed, or why it failed
    exchanges: tuple[Exchange, ...] = ()  # a failure's: what was sent and received


@dataclass(frozen=True, slots=True)
class Report:
    session: Session
    results: tuple[CaseResult, ...]

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.results)

    def result(self, name: str) -> CaseResult:
        return next(result for result in self.results if result.name == name)


@dataclass
class OperatorCheck:
    """Runs the cases in order against one operator; every case gets fresh ids and rounds."""

    transport: Transport
    signing_key: PrivateKey
    operator_keys: Sequence[PublicKey]
    session: Session
    new_id: Callable[[], str] = field(default=lambda: str(uuid4()))
    # every exchange of the run, and whether the operator answered anything yet
    exchanges: list[Exchange] = field(default_factory=list, init=False)
    answered: bool = field(default=False, init=False)
    _stranger: PrivateKey | None = field(default=None, init=False, repr=False)

    def stranger_key(self) -> PrivateKey:
        """A key the operator cannot know, made for this run."""
        if self._stranger is None:
            self._stranger = generate_private_key()
        return self._stranger

    async def run(self, cases: Sequence[Case] = CASES) -> Report:
        """Every case's verdict. Raises UnreachableError when the operator's server cannot
        be connected to before it answered anything."""
        results: list[CaseResult] = []
        for case in cases:
            probe = Probe(self, case.name)
            try:
                detail = await case.run(probe)
                result = CaseResult(case.name, case.title, True, detail)
            except CaseFailedError as failure:
                shown = failure.exchanges if failure.exchanges is not None else probe.exchanges
                result = CaseResult(case.name, case.title, False, failure.reason, tuple(shown))
            try:
                await probe.tidy()
            finally:
                self.exchanges.extend(probe.exchanges)
            results.append(result)
        return Report(self.session, tuple(results))
