"""The web front serves the one currency table the wallet accepts currencies by: the pages'
money.js formats every amount by the same file."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from teenpatti.currencies import CURRENCIES_FILE, minor_units
from web_service.pages import router


def test_the_pages_read_the_wallets_currency_table() -> None:
    app = FastAPI()
    app.include_router(router)
    answer = TestClient(app).get("/currencies.json")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["cache-control"] == "no-cache"
    assert answer.content == CURRENCIES_FILE.read_bytes()
    assert answer.json()["minor_units"] == dict(minor_units())
