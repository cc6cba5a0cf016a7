"""A test's hands on the running system: a supervisor, a dealer with a scanner, operators."""

from __future__ import annotations

import asyncio
import itertools
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from teenpatti_client.settlement.api.default import round_settlement
from teenpatti_client.settlement.types import Response as SettlementResponse
from teenpatti_client.wallet.api.default import (
    balances,
    deposit,
    place_bets,
    player_bets,
    player_games,
)
from teenpatti_client.wallet.models import (
    BalancesPublic,
    BetLine,
    BetPagePublic,
    GamesPublic,
    SlipCreate,
    TransferCreate,
)
from teenpatti_client.wallet.types import Response
from teenpatti_tools.simulator import (
    BET_TYPES,
    OPERATOR_KEYS,
    SUPERVISOR_KEY,
    Endpoints,
    InstancesTransport,
    ScannerSecret,
    answered,
    enrol_device,
    gateway_post,
    settlement_client,
    wallet_client,
)

CURRENCY = "INR"
LIMITS = {CURRENCY: {bet: {"min": 100, "max": 100_000} for bet in BET_TYPES}}
# every read's sequence number: above every one before it, for whichever device sends it
_sequences = itertools.count(1)
# a second supervisor (the system's `TP_API_KEYS` holds it: conftest.SECOND_SUPERVISOR), for
# what takes two people: voiding a started round, approving a change
SECOND_SUPERVISOR_KEY = "dev-supervisor-2-key"


@dataclass(frozen=True)
class Answer:
    """An answer through the operator client: its status, what the client parsed (the model,
    or a `Problem`), and its body for the assertions that read it whole."""

    status_code: int
    parsed: Any
    content: bytes

    @classmethod
    def of(cls, response: Response[Any] | SettlementResponse[Any]) -> Answer:
        return cls(int(response.status_code), response.parsed, response.content)

    def json(self) -> Any:
        return json.loads(self.content)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


class Studio:
    def __init__(
        self, endpoints: Endpoints, *, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        """`transport`: another way to reach the services than the network (in-process
        apps, by the host of their base URLs)."""
        self.urls = endpoints
        self.http = httpx.AsyncClient(timeout=15, transport=transport)
        # the operators call through the client (teenpatti-client), each request to any
        # instance, its answer as it comes
        self.transport = InstancesTransport(endpoints, patience=0, inner=transport, retry=False)
        self.wallets = {
            op: wallet_client(self.transport, key, timeout=15) for op, key in OPERATOR_KEYS.items()
        }
        self.settlements = {
            op: settlement_client(self.transport, key, timeout=15)
            for op, key in OPERATOR_KEYS.items()
        }
        self.devices: dict[str, tuple[str, str]] = {}

    async def close(self) -> None:
        await self.http.aclose()
        await self.transport.shut()

    # ---------------------------------------------------------------- supervisor
    async def open_table(
        self, table_id: str, *, betting_seconds: float = 1.5, result_pause_seconds: float = 0.5
    ) -> None:
        """The table open with its scanner, enrolled first: its rounds start at once, and a
        device change waits while one is dealt."""
        await self.enrol(table_id)
        response = await self.http.post(
            f"{self.urls.table}/tables",
            headers={"X-Api-Key": SUPERVISOR_KEY},
            json={
                "table_id": table_id,
                "name": f"e2e {table_id}",
                "betting_seconds": betting_seconds,
                "result_pause_seconds": result_pause_seconds,
                "limits": LIMITS,
            },
        )
        assert response.status_code in (200, 201, 202), response.text
        if response.status_code == 202:  # new terms: the second supervisor approves (0086)
            change_id = response.json()["pending_change"]["change_id"]
            approved = await self.http.post(
                f"{self.urls.table}/tables/{table_id}/changes/{change_id}/approve",
                headers={"X-Api-Key": SECOND_SUPERVISOR_KEY},
            )
            assert approved.status_code == 200, approved.text

    async def enrol(self, table_id: str, device_id: str | None = None) -> tuple[str, str]:
        """The table's scanner from now on, as a studio registers one (docs/decisions/0085):
        the device makes its credential, one supervisor proposes it by its hash, the second
        approves it by its fingerprint. The device and its credential."""
        device_id = device_id or f"scanner-{table_id}"
        secret = ScannerSecret()
        approved = await enrol_device(self.gateway_post, device_id, table_id, secret)
        assert approved.status_code == 200, approved.text
        self.devices[table_id] = (device_id, secret.credential)
        return self.devices[table_id]

    async def gateway_post(self, path: str, key: str, body: Mapping[str, Any]) -> httpx.Response:
        """A supervisor's POST to the scanner gateway."""
        return await gateway_post(self.http, self.urls.scanner)(path, key, body)

    async def command(
        self, table_id: str, action: str, reason: str = "e2e", *, key: str = SUPERVISOR_KEY
    ) -> httpx.Response:
        return await self.http.post(
            f"{self.urls.table}/tables/{table_id}/{action}",
            headers={"X-Api-Key": key},
            json={"reason": reason},
        )

    async def close_table(self, table_id: str) -> None:
        await self.command(table_id, "close", "test finished")

    # ---------------------------------------------------------------- the table's events
    async def events(self, table_id: str, after: int = 0) -> list[dict[str, Any]]:
        response = await self.http.get(
            f"{self.urls.table}/tables/{table_id}/events",
            params={"after": after},
            headers={"X-Api-Key": SUPERVISOR_KEY},
        )
        assert response.status_code == 200, response.text
        body = response.json()
        return list(body["events"] if isinstance(body, dict) else body)

    async def wait_for(
        self, table_id: str, event_type: str, *, after: int = 0, timeout: float = 30, **match: Any
    ) -> dict[str, Any]:
        """The first event of `event_type` after `after` whose payload has `match`."""
        async with asyncio.timeout(timeout):
            while True:
                for event in await self.events(table_id, after):
                    payload = event["payload"]
                    if event["event_type"] == event_type and all(
                        payload.get(k) == v for k, v in match.items()
                    ):
                        return {**payload, "_position": event["position"]}
                await asyncio.sleep(0.1)

    async def next_round(self, table_id: str, after: int = 0) -> dict[str, Any]:
        return await self.wait_for(table_id, "RoundOpened", after=after)

    # ---------------------------------------------------------------- the dealer
    async def scan(
        self,
        table_id: str,
        read: str,
        *,
        device: tuple[str, str] | None = None,
        sequence: int | None = None,
    ) -> httpx.Response:
        """A read from the table's scanner (or `device`), with the next sequence number
        (or `sequence`: a replay)."""
        device_id, credential = device or self.devices[table_id]
        if sequence is None:
            sequence = next(_sequences)
        return await self.http.post(
            f"{self.urls.scanner}/scans",
            headers={"X-Device-Id": device_id, "Authorization": f"Bearer {credential}"},
            json={"read": read, "table_id": table_id, "sequence": sequence},
        )

    async def deal(self, table_id: str, cards: list[str]) -> list[dict[str, Any]]:
        answers = []
        for card in cards:
            response = await self.scan(table_id, card)
            assert response.status_code in (200, 202), response.text
            answers.append(response.json())
        return answers

    # ---------------------------------------------------------------- operators
    async def deposit(self, operator: str, player: str, amount: int) -> None:
        answered(
            await deposit.asyncio(
                player,
                client=self.wallets[operator],
                body=TransferCreate(
                    transfer_id=str(uuid.uuid4()), currency=CURRENCY, amount=amount
                ),
            )
        )

    async def bet(
        self,
        operator: str,
        player: str,
        round_id: str,
        bets: dict[str, int],
        *,
        key: str | None = None,
        currency: str = CURRENCY,
        wait_for_round: bool = True,
    ) -> Answer:
        """Post a slip. A round opened a moment ago may not have reached the wallet yet
        (`unknown_round`): like an operator, retry for a few seconds unless told not to."""
        body = SlipCreate(
            player_id=player,
            round_id=round_id,
            currency=currency,
            bets=[BetLine(bet_type=t, stake=s) for t, s in bets.items()],
        )
        idempotency_key = key or str(uuid.uuid4())
        for _ in range(50):
            response = await place_bets.asyncio_detailed(
                client=self.wallets[operator], body=body, idempotency_key=idempotency_key
            )
            if not wait_for_round or response.status_code != 404:
                break
            await asyncio.sleep(0.1)
        return Answer.of(response)

    async def balance(self, operator: str, player: str) -> int:
        found: BalancesPublic = answered(
            await balances.asyncio(player, client=self.wallets[operator])
        )
        return found.additional_properties.get(CURRENCY, 0)

    async def history(self, operator: str, player: str) -> list[dict[str, Any]]:
        """The player's last 100 bets, as the wallet serves them (JSON)."""
        page: BetPagePublic = answered(
            await player_bets.asyncio(player, client=self.wallets[operator], limit=100)
        )
        return [bet.to_dict() for bet in page.items]

    async def paid_bets(
        self, operator: str, player: str, round_id: str, count: int, timeout: float = 30
    ) -> list[dict[str, Any]]:
        """The player's bets of `round_id` once `count` of them are settled and paid."""
        async with asyncio.timeout(timeout):
            while True:
                bets = [
                    b for b in await self.history(operator, player) if b["round_id"] == round_id
                ]
                if sum(b.get("outcome") is not None for b in bets) >= count:
                    return bets
                await asyncio.sleep(0.2)

    async def games(self, operator: str, player: str) -> list[dict[str, Any]]:
        """The player's last games, as the wallet serves them (JSON)."""
        found: GamesPublic = answered(
            await player_games.asyncio(player, client=self.wallets[operator])
        )
        return [game.to_dict() for game in found.games]

    async def settlement(self, operator: str, round_id: str) -> Answer:
        return Answer.of(
            await round_settlement.asyncio_detailed(round_id, client=self.settlements[operator])
        )
