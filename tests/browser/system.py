"""The system the browser tests drive: the four services and the web front as processes, on
fresh databases and topics (`teenpatti_tools.devrun.isolated_system`), one for the test
package using it (all the browser tests; the web front's end-to-end tests).

    async def test_something(front: Front, page: Page) -> None:
        await front.studio.open_table("T1")
        launch_url = await front.open_session("operator-2", "alice", "INR", "T1", "th")
        await page.goto(launch_url)

`front.url` is the web front's base URL (`/console`, `/play/...`, `/rules/...`);
`front.studio` the end-to-end driver (tests/e2e/driver.py: open tables, scan cards with the
table's simulated scanner, place slips with an operator's key); `front.services` the
services' own base URLs. The operators' and the player view's calls go through the operator
client (teenpatti-client). Tests keep apart by using their own table and player ids.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest

from teenpatti.settings import DEVELOPMENT_API_KEYS, InfrastructureSettings
from teenpatti_client import wallet as wallet_api
from teenpatti_client.wallet.api.default import balances, launch_session, open_session
from teenpatti_client.wallet.api.default import deposit as deposit_api
from teenpatti_client.wallet.models import (
    BalancesPublic,
    SessionCreate,
    SessionCreateLanguage,
    SessionLaunch,
    SessionLaunchedPublic,
    SessionOpenedPublic,
    TransferCreate,
)
from teenpatti_tools.devrun import IsolatedSystem, endpoints, free_base_port, isolated_system
from teenpatti_tools.simulator import (
    OPERATOR_KEYS,
    SUPERVISOR_KEY,
    Endpoints,
    answered,
    wallet_client,
)

from ..e2e.driver import SECOND_SUPERVISOR_KEY, Studio

# the development keys (the web front's `dev-web-key` among them) and a second supervisor's,
# for what takes two people (voiding a started round)
API_KEYS = f"{DEVELOPMENT_API_KEYS},supervisor-2:supervisor:{SECOND_SUPERVISOR_KEY}"
# what open_session deposits when the player holds less than it
DEFAULT_DEPOSIT = 1_000_000  # minor units: 10,000.00 INR


@dataclass
class Front:
    """The running system, seen from a browser test."""

    url: str  # the web front's base URL
    studio: Studio
    services: Endpoints
    system: IsolatedSystem
    http: httpx.AsyncClient

    supervisor_key = SUPERVISOR_KEY
    second_supervisor_key = SECOND_SUPERVISOR_KEY
    operator_keys = OPERATOR_KEYS

    async def open_session(
        self,
        operator_key: str,
        player_id: str,
        currency: str,
        table_id: str,
        language: str = "en",
        *,
        deposit: int | None = DEFAULT_DEPOSIT,
    ) -> str:
        """A new player session's launch URL (`<web front>/play/<table>?ticket=...&lang=...`,
        good once, for a minute). `operator_key`: an operator's key or its id
        (`operator-2`). For a transfer operator, the player is first funded up to `deposit`
        (None: no deposit)."""
        key = self.operator_keys.get(operator_key, operator_key)
        async with wallet_client(self.studio.transport, key, timeout=15) as wallet:
            if deposit is not None:
                held: BalancesPublic = answered(await balances.asyncio(player_id, client=wallet))
                missing = deposit - held.additional_properties.get(currency, 0)
                if missing > 0:
                    transfer = TransferCreate(
                        transfer_id=str(uuid.uuid4()), currency=currency, amount=missing
                    )
                    answered(await deposit_api.asyncio(player_id, client=wallet, body=transfer))
            opened: SessionOpenedPublic = answered(
                await open_session.asyncio(
                    client=wallet,
                    body=SessionCreate(
                        token=f"browser-{uuid.uuid4()}",
                        player_id=player_id,
                        currency=currency,
                        language=SessionCreateLanguage(language),
                        table_id=table_id,
                    ),
                )
            )
        launch_url = opened.launch_url
        assert launch_url.startswith(f"{self.url}/play/{table_id}?"), launch_url
        return launch_url

    async def launch(self, launch_url: str) -> dict[str, object]:
        """Exchange a launch URL's ticket for the session (`POST /api/wallet/sessions/launch`
        through the web front), as the player view does: `session_token`, `player_id`..."""
        ticket = httpx.URL(launch_url).params["ticket"]
        async with wallet_api.Client(
            base_url=f"{self.url}/api/wallet", timeout=httpx.Timeout(15)
        ) as view:
            launched: SessionLaunchedPublic = answered(
                await launch_session.asyncio(client=view, body=SessionLaunch(ticket=ticket))
            )
        return dict(launched.to_dict())


@pytest.fixture(scope="package")
async def front(infrastructure: InfrastructureSettings) -> AsyncIterator[Front]:
    async with (
        isolated_system(
            infrastructure,
            label="web",
            base_port=free_base_port(),
            extra_env={"TP_API_KEYS": API_KEYS},
            web=True,
        ) as system,
        httpx.AsyncClient(timeout=15) as http,
    ):
        assert system.web is not None
        services = endpoints(system.processes.services)
        studio = Studio(services)
        try:
            yield Front(system.web.url, studio, services, system, http)
        finally:
            await studio.close()
