"""The shared HTTP error handlers: a server outage is a 503 problem, a bug a 500 one."""

from __future__ import annotations

import asyncpg
import httpx
import pytest
from fastapi import FastAPI
from redis.exceptions import ConnectionError as RedisConnectionError

from teenpatti.http import PROBLEM_JSON, install_problem_handlers


def app_raising(error: Exception) -> FastAPI:
    app = FastAPI()
    install_problem_handlers(app)

    @app.get("/boom")
    async def boom() -> None:
        raise error

    return app


async def get(app: FastAPI) -> httpx.Response:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://service") as client:
        return await client.get("/boom")


@pytest.mark.parametrize(
    "error",
    [
        ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 15432)"),
        asyncpg.CannotConnectNowError("the database system is starting up"),
        asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        asyncpg.InterfaceError("connection is closed"),
        RedisConnectionError("Error 111 connecting to 127.0.0.1:16379"),
    ],
    ids=lambda error: type(error).__name__,
)
async def test_a_server_outage_answers_503_with_retry_after(error: Exception) -> None:
    response = await get(app_raising(error))
    assert response.status_code == 503
    assert response.headers["content-type"] == PROBLEM_JSON
    assert response.headers["retry-after"] == "1"
    assert response.json()["code"] == "service_unavailable"
    assert response.json()["status"] == 503


async def test_a_bug_is_still_a_500() -> None:
    response = await get(app_raising(KeyError("nope")))
    assert response.status_code == 500
    assert response.json()["code"] == "internal_error"
