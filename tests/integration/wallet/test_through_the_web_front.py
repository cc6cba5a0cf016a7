"""A caller's trace and correlation id through the web front to a real service: the web
front (in-process) forwards a deposit to the wallet (under uvicorn, over HTTP), which serves
it in the caller's trace though nothing is recorded (no `TP_OTLP_ENDPOINT`): the event it
appends carries the caller's `traceparent` on, and the answer names the caller's
`X-Correlation-Id`."""

from __future__ import annotations

from uuid import uuid4

import httpx

from teenpatti.settings import InfrastructureSettings
from tests.integration.table.helpers import serving
from tests.integration.wallet.helpers import OPERATOR_1, database
from wallet_service.app import create_app as create_wallet
from wallet_service.config import WalletSettings
from web_service.app import create_app as create_web
from web_service.config import WebSettings

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


async def test_a_deposit_through_the_web_front_goes_on_in_the_callers_trace(
    wallet_settings: WalletSettings,
) -> None:
    async with serving(create_wallet(wallet_settings)) as address:
        web = create_web(
            WebSettings(wallet_url=f"http://{address}", api_key="web-front-key"),
            InfrastructureSettings(env="production"),
        )
        async with (
            web.router.lifespan_context(web),
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=web), base_url="http://front"
            ) as front,
        ):
            answer = await front.post(
                f"/api/wallet/players/p-{uuid4().hex[:8]}/deposits",
                json={"transfer_id": f"dep-{uuid4()}", "currency": "INR", "amount": 5_000},
                headers={
                    **OPERATOR_1,
                    "traceparent": TRACEPARENT,
                    "X-Correlation-Id": "deposit-1",
                },
            )
    assert answer.status_code == 200, answer.text
    assert answer.headers["x-correlation-id"] == "deposit-1"
    async with database(wallet_settings) as connection:
        carried = await connection.fetchval(
            "SELECT trace_context FROM events WHERE event_type = 'FundsDeposited'"
        )
    # the caller's trace; its very span where no server span is recorded (another test of the
    # process may have installed a tracer provider: then the wallet's server span's)
    assert carried is not None and carried.split("-")[1] == TRACEPARENT.split("-")[1]
