"""A test's hands on the running system: a supervisor, a dealer with a scanner, operators."""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import Mapping
from typing import Any

import httpx

from teenpatti_tools.simulator import (
    BET_TYPES,
    OPERATOR_KEYS,
    SUPERVISOR_KEY,
    Endpoints,
    ScannerSecret,
    enrol_device,
    gateway_post,
)

CURRENCY = "INR"
LIMITS = {CURRENCY: {bet: {"min": 100, "max": 100_000} for bet in BET_TYPES}}
# every read's sequence number: above every one before it, for whichever device sends it
_sequences = itertools.count(1)
# a second supervisor (the system's `TP_API_KEYS` holds it: conftest.SECOND_SUPERVISOR), for
# what takes two people: voiding a started round, approving a change
SECOND_SUPERVISOR_KEY = "dev-supervisor-2-key"


class Studio:
    def __init__(self, endpoints: Endpoints) -> None:
        self.urls = endpoints
        self.http = httpx.AsyncClient(timeout=15)
        self.devices: dict[str, tuple[str, str]] = {}

    async def close(self) -> None:
        await self.http.aclose()

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
        response = await self.http.post(
            f"{self.urls.wallet}/players/{player}/deposits",
            headers={"X-Api-Key": OPERATOR_KEYS[operator]},
            json={"transfer_id": str(uuid.uuid4()), "currency": CURRENCY, "amount": amount},
        )
        assert response.status_code in (200, 201), response.text

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
    ) -> httpx.Response:
        """Post a slip. A round opened a moment ago may not have reached the wallet yet
        (`unknown_round`): like an operator, retry for a few seconds unless told not to."""
        headers = {
            "X-Api-Key": OPERATOR_KEYS[operator],
            "Idempotency-Key": key or str(uuid.uuid4()),
        }
        body = {
            "player_id": player,
            "round_id": round_id,
            "currency": currency,
            "bets": [{"bet_type": t, "stake": s} for t, s in bets.items()],
        }
        for _ in range(50):
            response = await self.http.post(f"{self.urls.wallet}/bets", headers=headers, json=body)
            if not wait_for_round or response.status_code != 404:
                return response
            await asyncio.sleep(0.1)
        return response

    async def balance(self, operator: str, player: str) -> int:
        response = await self.http.get(
            f"{self.urls.wallet}/players/{player}/balances",
            headers={"X-Api-Key": OPERATOR_KEYS[operator]},
        )
        assert response.status_code == 200, response.text
        return int(response.json().get(CURRENCY, 0))

    async def history(self, operator: str, player: str) -> list[dict[str, Any]]:
        response = await self.http.get(
            f"{self.urls.wallet}/players/{player}/bets",
            headers={"X-Api-Key": OPERATOR_KEYS[operator]},
            params={"limit": 100},
        )
        assert response.status_code == 200, response.text
        return list(response.json()["items"])

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

    async def settlement(self, operator: str, round_id: str) -> httpx.Response:
        return await self.http.get(
            f"{self.urls.settlement}/rounds/{round_id}/settlement",
            headers={"X-Api-Key": OPERATOR_KEYS[operator]},
        )
