"""`teenpatti operator-check` against the reference operator (teenpatti_tools.operator) on the
real Postgres: every case passes, the run leaves the test player's balance as it found it
and every bet it placed ended, and the operator's own money check agrees."""

from __future__ import annotations

from typing import Any

import httpx

from teenpatti.seamless.check import CASES, HttpTransport, OperatorCheck, Session
from teenpatti.seamless.signing import generate_private_key
from teenpatti_tools.operator.app import ADMIN_TOKEN_HEADER, OperatorServerConfig, create_app

ADMIN_TOKEN = "test-admin-token"
FUNDS = 500 * 100_000  # 500.00 EUR in protocol units


async def test_the_reference_operator_passes_every_case(database: str) -> None:
    game_key, operator_key = generate_private_key(), generate_private_key()
    app = create_app(
        OperatorServerConfig(
            dsn=database,
            private_key=operator_key,
            game_public_keys=[game_key.public_key()],
            admin_token=ADMIN_TOKEN,
        )
    )
    asgi = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=asgi, base_url="http://operator", headers={ADMIN_TOKEN_HEADER: ADMIN_TOKEN}
        ) as admin,
    ):

        async def call(method: str, path: str, **kwargs: Any) -> Any:
            response = await admin.request(method, f"/admin{path}", **kwargs)
            assert response.status_code < 300, response.text
            return response.json()

        await call("PUT", "/users/dora", json={})
        await call("POST", "/users/dora/deposits", json={"currency": "EUR", "amount": FUNDS})
        issued = await call("POST", "/tokens", json={"user": "dora", "currency": "EUR"})

        async with HttpTransport("http://operator", transport=asgi) as http:
            check = OperatorCheck(
                http,
                game_key,
                [operator_key.public_key()],
                Session("dora", issued["token"], "EUR", 250),  # 2.50 EUR
            )
            report = await check.run()

        assert [(r.name, r.passed, r.detail) for r in report.results if not r.passed] == []
        assert [r.name for r in report.results] == [case.name for case in CASES]
        assert (await call("GET", "/users/dora"))["balances"] == {"EUR": FUNDS}
        assert (await call("GET", "/check"))["ok"]
        applied = (await call("GET", "/transactions", params={"user": "dora"}))["transactions"]
        bets = [t for t in applied if t["kind"] == "bet"]
        # bet 1, replay 1, duplicate 1, win 2, zero win 1, round close 2, rollback 1
        assert len(bets) == 9
        ended = {t["reference_transaction_uuid"] for t in applied if t["kind"] != "bet"}
        closed = {t["round"] for t in applied if t["kind"] == "win" and t["round_closed"]}
        # every bet ended: by a win or rollback naming it, or by its round's closing win
        assert [
            b for b in bets if b["transaction_uuid"] not in ended and b["round"] not in closed
        ] == []
