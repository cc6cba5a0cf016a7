"""The table's answer when its stream kept moving under a command (every retry lost the race
to another writer): 503 `table_busy`, nothing applied, try again. How the service declares
it (`SERVICE.errors`), answered through the kernel's own refusal handler."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from table_service.app import SERVICE
from teenpatti.eventsourcing import ConcurrencyError
from teenpatti.http import install_problem_handlers
from teenpatti.kernel.service import _refusal_handler


def test_a_command_that_keeps_losing_the_race_is_answered_table_busy() -> None:
    app = FastAPI()
    install_problem_handlers(app)
    app.add_exception_handler(ConcurrencyError, _refusal_handler(SERVICE.errors[ConcurrencyError]))

    @app.post("/tables/T1/pause")
    async def pause() -> None:
        raise ConcurrencyError("table-T1 moved on to version 8")

    answer = TestClient(app).post("/tables/T1/pause")
    assert answer.status_code == 503
    assert answer.json()["code"] == "table_busy"
    assert answer.headers["content-type"] == "application/problem+json"
