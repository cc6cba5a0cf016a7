"""The simulated supervisors' requests sent again after a lost answer (the studio's transport
sends a request again when no answer comes): what the table answers to the repeat moves
them on instead of stopping them."""

from __future__ import annotations

import json

import httpx
import pytest

from teenpatti_tools.simulator import (
    SECOND_SUPERVISOR_KEY,
    SUPERVISOR_KEY,
    Endpoints,
    Studio,
)

SERVICES = {"table": ["http://127.0.0.1:9101"], "scanner-gateway": ["http://127.0.0.1:9102"]}


def studio_answering(
    answer: dict[tuple[str, str], list[httpx.Response]], seen: list[httpx.Request]
) -> Studio:
    """A studio whose table service answers each (method, path) from `answer` in turn."""

    def handle(request: httpx.Request) -> httpx.Response:
        request.read()
        seen.append(request)
        return answer[(request.method, request.url.path)].pop(0)

    return Studio(
        Endpoints(SERVICES),
        tables=1,
        players=0,
        betting_seconds=1.0,
        print_line=lambda _: None,
        patience=1.0,
        transport=httpx.MockTransport(handle),
    )


def problem(status: int, code: str) -> httpx.Response:
    return httpx.Response(status, json={"status": status, "code": code, "detail": code})


async def test_a_void_the_first_supervisor_asked_for_already_is_confirmed_by_the_second() -> None:
    seen: list[httpx.Request] = []
    studio = studio_answering(
        {("POST", "/tables/T01/cancel"): [problem(403, "same_supervisor"), httpx.Response(200)]},
        seen,
    )
    try:
        await studio.void_round("T01", "its scanner was registered again")
    finally:
        await studio.close()
    assert [r.headers["X-Api-Key"] for r in seen] == [SUPERVISOR_KEY, SECOND_SUPERVISOR_KEY]
    assert {json.loads(r.content)["reason"] for r in seen} == {"its scanner was registered again"}


async def test_a_round_with_nothing_to_void_asks_no_second_supervisor() -> None:
    seen: list[httpx.Request] = []
    studio = studio_answering(
        {("POST", "/tables/T01/cancel"): [problem(409, "no_round_in_play")]}, seen
    )
    try:
        await studio.void_round("T01", "its scanner was registered again")
    finally:
        await studio.close()
    assert [r.headers["X-Api-Key"] for r in seen] == [SUPERVISOR_KEY]


async def test_an_approval_its_own_lost_request_applied_is_taken_as_made() -> None:
    change = "00000000-0000-0000-0000-000000000001"
    seen: list[httpx.Request] = []
    studio = studio_answering(
        {
            ("POST", "/devices"): [httpx.Response(202, json={"change_id": "d-1"})],
            ("POST", "/devices/changes/d-1/approve"): [httpx.Response(200, json={})],
            ("POST", "/tables"): [
                httpx.Response(202, json={"pending_change": {"change_id": change}})
            ],
            ("POST", f"/tables/T01/changes/{change}/approve"): [problem(409, "no_such_change")],
            ("GET", "/tables/T01"): [httpx.Response(200, json={"status": "open"})],
        },
        seen,
    )
    try:
        await studio.open_tables()
    finally:
        await studio.close()
    assert [(r.method, r.url.path) for r in seen][-2:] == [
        ("POST", f"/tables/T01/changes/{change}/approve"),
        ("GET", "/tables/T01"),
    ]


async def test_an_approval_refused_for_a_table_not_open_stops_the_opening() -> None:
    change = "00000000-0000-0000-0000-000000000002"
    studio = studio_answering(
        {
            ("POST", "/devices"): [httpx.Response(202, json={"change_id": "d-2"})],
            ("POST", "/devices/changes/d-2/approve"): [httpx.Response(200, json={})],
            ("POST", "/tables"): [
                httpx.Response(202, json={"pending_change": {"change_id": change}})
            ],
            ("POST", f"/tables/T01/changes/{change}/approve"): [problem(409, "no_such_change")],
            ("GET", "/tables/T01"): [httpx.Response(200, json={"status": "unknown"})],
        },
        [],
    )
    try:
        with pytest.raises(RuntimeError, match="no_such_change"):
            await studio.open_tables()
    finally:
        await studio.close()
