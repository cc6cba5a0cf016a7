"""Property-based fuzzing of a service's HTTP API from its own OpenAPI schema (schemathesis).

The app runs in-process in the test's event loop with its lifespan (store, relay, consumers
on the real Postgres, Kafka and Redis). Schemathesis and hypothesis are synchronous, so they
run in a worker thread: each generated case is sent to the app through an httpx ASGI client
on the test's loop (`run_coroutine_threadsafe`), and the answer is checked there:

- no 5xx (`not_a_server_error`);
- the status, content type, headers and body are the ones the OpenAPI declares for the
  operation (`status_code_conformance`, `content_type_conformance`,
  `response_headers_conformance`, `response_schema_conformance`);
- data the schema forbids is refused with a 4xx (`negative_data_rejection`; a body over an
  edge's size limit is refused before it is read, with 413, which counts as a refusal);
- every error is an RFC 9457 problem (`application/problem+json`) whose `status` is the
  HTTP status and whose `code` is specific (not the catch-all `internal_error`/`http_error`).

Every operation is fuzzed with the schema's positive data (valid per the schema) and its
negative data (violating it), with the right credentials, and with the generated (wrong or
missing) credentials. The default is `TP_FUZZ_EXAMPLES` (30) cases per operation and run.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
import hypothesis
import hypothesis.errors
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, Phase
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.config._checks import NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES
from schemathesis.core.result import Err
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from teenpatti.settings import development_keys

BASE_URL = "http://service"
REQUEST_TIMEOUT = 30.0
GENERIC_CODES = frozenset({"internal_error", "http_error"})
KEPT_FAILURES = 3  # per operation and run: enough to see the bug, not a wall of text

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]

CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {
            "negative_data_rejection": {
                "expected-statuses": [*NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES, "413"]
            }
        }
    }
)


def examples() -> int:
    return int(os.environ.get("TP_FUZZ_EXAMPLES", "30"))


@dataclass
class Run:
    """One operation fuzzed in one mode with one kind of credentials."""

    operation: str
    mode: str
    credentials: str
    statuses: Counter[int] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    unsendable: int = 0
    failures: list[str] = field(default_factory=list)
    failed: int = 0
    unsatisfiable: bool = False

    @property
    def sent(self) -> int:
        return sum(self.statuses.values())


@dataclass
class Tally:
    service: str
    runs: list[Run] = field(default_factory=list)

    @property
    def sent(self) -> int:
        return sum(run.sent for run in self.runs)

    def failures(self) -> list[str]:
        return [
            f"{run.operation} [{run.mode}, {run.credentials} credentials]: {failure}"
            for run in self.runs
            for failure in run.failures
        ]

    def summary(self) -> str:
        lines = [f"{self.service}: {self.sent} requests in {len(self.runs)} runs"]
        for run in self.runs:
            if run.unsatisfiable and not run.sent:
                continue
            statuses = " ".join(f"{s}x{n}" for s, n in sorted(run.statuses.items()))
            codes = " ".join(f"{c}x{n}" for c, n in run.codes.most_common(6))
            extra = f" unsendable={run.unsendable}" if run.unsendable else ""
            lines.append(
                f"  {run.operation:<42} {run.mode:<8} {run.credentials:<9} "
                f"n={run.sent:<4} {statuses}  [{codes}]{extra}"
                + (f" FAILED={run.failed}" if run.failed else "")
            )
        return "\n".join(lines)


# which credentials an operation needs: headers given as-is to every case of the "right" run
Credentials = Callable[[str, str], Mapping[str, str] | None]


def problem_violation(response: httpx.Response) -> str | None:
    """Why an error response is not a specific problem detail (None if it is one)."""
    if response.status_code < 400:
        return None
    media_type = response.headers.get("content-type", "").split(";")[0].strip()
    if media_type != "application/problem+json":
        return f"error {response.status_code} with content type {media_type!r}"
    try:
        body = response.json()
    except ValueError:
        return f"error {response.status_code} whose body is not JSON"
    if not isinstance(body, dict):
        return f"error {response.status_code} whose body is not an object"
    code = body.get("code")
    if not isinstance(code, str) or not code or code in GENERIC_CODES:
        return f"error {response.status_code} with unspecific code {code!r}: {body}"
    if body.get("status") != response.status_code:
        return f"problem status {body.get('status')!r} but HTTP {response.status_code}"
    return None


def fuzz_app(
    app: FastAPI,
    client: httpx.AsyncClient,
    loop: asyncio.AbstractEventLoop,
    service: str,
    credentials: Credentials,
    max_examples: int | None = None,
) -> Tally:
    """Fuzz every operation of `app` (call from a worker thread, not from `loop`)."""
    schema = schemathesis.openapi.from_dict(app.openapi(), config=CONFIG)
    tally = Tally(service)
    n = max_examples or examples()
    for result in schema.get_all_operations():
        if isinstance(result, Err):
            raise AssertionError(f"{service}: the OpenAPI has an invalid operation: {result.err()}")
        operation = result.ok()
        label = f"{operation.method.upper()} {operation.path}"
        right = credentials(operation.method.upper(), operation.path)
        plans: list[tuple[GenerationMode, str, Mapping[str, str] | None]] = [
            (GenerationMode.POSITIVE, "right", right),
            (GenerationMode.NEGATIVE, "right", right),
        ]
        if right:  # the operation needs credentials: also the generated (wrong) ones
            plans.append((GenerationMode.POSITIVE, "generated", None))
        for mode, kind, headers in plans:
            run = Run(label, mode.value, kind)
            tally.runs.append(run)
            strategy = operation.as_strategy(
                generation_mode=mode, headers=dict(headers) if headers else None
            )
            # a wrong key is refused before anything else is looked at: 401, whatever the rest
            _drive(strategy, run, client, loop, n, expected=401 if kind == "generated" else None)
    return tally


def _drive(
    strategy: Any,
    run: Run,
    client: httpx.AsyncClient,
    loop: asyncio.AbstractEventLoop,
    max_examples: int,
    expected: int | None = None,
) -> None:
    @hypothesis.settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis.given(strategy)
    def case_is_handled(case: Any) -> None:
        try:
            request = _request(client, case)
        except (httpx.HTTPError, UnicodeError, ValueError, TypeError):
            run.unsendable += 1  # no client could send it (e.g. a header httpx refuses)
            return
        future = asyncio.run_coroutine_threadsafe(_send(client, request), loop)
        response = future.result(REQUEST_TIMEOUT)
        run.statuses[response.status_code] += 1
        if response.status_code >= 400:
            try:
                run.codes[str(response.json().get("code"))] += 1
            except (ValueError, AttributeError):
                run.codes["(not a problem)"] += 1
        problems: list[str] = []
        if (
            expected is not None
            and response.status_code != expected
            and not _a_real_key_of_another_role(request, response)
        ):
            problems.append(f"expected {expected}, got {response.status_code}")
        violation = problem_violation(response)
        if violation:
            problems.append(violation)
        try:
            case.validate_response(response, checks=CHECKS)
        except (AssertionError, BaseExceptionGroup) as failure:  # a schemathesis FailureGroup
            problems.append(_short(str(failure)))
        if problems:
            run.failed += 1
            if len(run.failures) < KEPT_FAILURES:
                run.failures.append(
                    f"{_describe(request)} -> {response.status_code}: " + "; ".join(problems)
                )

    try:
        case_is_handled()
    except hypothesis.errors.Unsatisfiable:
        run.unsatisfiable = True  # nothing to negate (an operation without inputs)


def _a_real_key_of_another_role(request: httpx.Request, response: httpx.Response) -> bool:
    """A 403 `forbidden` to a key the service really holds (a development key, sent now and
    then in the generated-credentials run): the right answer, not a wrong key let through.
    Any other key must be refused 401."""
    known = {key for _, key in development_keys()}
    return (
        response.status_code == 403
        and request.headers.get("x-api-key") in known
        and response.json().get("code") == "forbidden"
    )


def _request(client: httpx.AsyncClient, case: Any) -> httpx.Request:
    kwargs: dict[str, Any] = case.as_transport_kwargs(base_url=BASE_URL)
    body: dict[str, Any] = {}
    if "json" in kwargs:
        body["content"] = json.dumps(kwargs["json"]).encode()
    elif isinstance(kwargs.get("data"), str | bytes):
        body["content"] = kwargs["data"]
    elif kwargs.get("data") is not None:
        body["data"] = kwargs["data"]
    headers = {str(k): str(v) for k, v in (kwargs.get("headers") or {}).items()}
    if "json" in kwargs:
        headers.setdefault("Content-Type", "application/json")
    return client.build_request(
        kwargs["method"],
        kwargs["url"],
        headers=headers,
        params=kwargs.get("params"),
        cookies=kwargs.get("cookies"),
        **body,
    )


async def _send(client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
    async with asyncio.timeout(REQUEST_TIMEOUT):
        return await client.send(request)


def _short(message: str, limit: int = 900) -> str:
    lines = [line for line in message.strip().splitlines() if line.strip()]
    kept = "\n    ".join(line for line in lines if not line.startswith("curl"))
    return kept if len(kept) <= limit else kept[:limit] + " ..."


def _describe(request: httpx.Request) -> str:
    content = request.content[:200].decode(errors="replace")
    return f"{request.method} {request.url} {content!r}"


async def fuzz(
    app: FastAPI,
    client: httpx.AsyncClient,
    service: str,
    credentials: Credentials,
    max_examples: int | None = None,
) -> Tally:
    """`fuzz_app` from async code: hypothesis in a thread, the app on this loop."""
    loop = asyncio.get_running_loop()
    return await asyncio.to_thread(fuzz_app, app, client, loop, service, credentials, max_examples)
