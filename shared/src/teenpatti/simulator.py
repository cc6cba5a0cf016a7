"""A simulated studio and its players, driving the running services through their HTTP APIs.

For each table: a supervisor opens it, a scanner device is registered to it, and a dealer
shuffles a fresh deck every round and scans the six cards once betting has closed (now and
then misreading a card, which the gateway answers with "rescan", or reading one twice,
which it absorbs). Players of two operators deposit money and bet on the open rounds
through the operator API. Each finished round is printed: cards, hands, winner, bets,
stake and returns. At the end, `Ledger.check()` verifies that no money appeared or vanished.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from teenpatti.engine import DECK

BET_TYPES = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
CURRENCY = "INR"
OPERATOR_KEYS = {"operator-1": "dev-operator-1-key", "operator-2": "dev-operator-2-key"}
SUPERVISOR_KEY = "dev-supervisor-key"
DEPOSIT = 5_000_000  # minor units: 50,000.00 INR per player


class Endpoints:
    """The services' base URLs. With several instances of a service (their HTTP edges are
    stateless), each call goes to one of them at random."""

    def __init__(self, urls: Mapping[str, Sequence[str]]) -> None:
        self._urls = {kind: list(found) for kind, found in urls.items()}
        self._pick = random.Random()

    def _one(self, kind: str) -> str:
        return self._pick.choice(self._urls[kind])

    @property
    def table(self) -> str:
        return self._one("table")

    @property
    def scanner(self) -> str:
        return self._one("scanner-gateway")

    @property
    def wallet(self) -> str:
        return self._one("wallet")

    @property
    def settlement(self) -> str:
        return self._one("settlement")

    def forget(self, url: str) -> None:
        """Stop sending to an instance (it was stopped or killed)."""
        for found in self._urls.values():
            if url in found and len(found) > 1:
                found.remove(url)


@dataclass
class Player:
    operator_id: str
    player_id: str

    @property
    def key(self) -> str:
        return OPERATOR_KEYS[self.operator_id]


@dataclass
class Ledger:
    """What the simulation did with money, to check against what the wallet reports."""

    deposits: int = 0
    stakes: int = 0
    returns: int = 0
    bets: int = 0
    refused_slips: int = 0
    rounds: int = 0
    cancelled: int = 0
    misreads: int = 0
    duplicate_reads: int = 0
    slips_by_round: dict[str, list[str]] = field(default_factory=dict)

    def check(self, balances: int, returns_paid: int, stakes_placed: int) -> list[str]:
        """Violations of money conservation (empty when every unit is accounted for)."""
        problems = []
        expected = self.deposits - stakes_placed + returns_paid
        if balances != expected:
            problems.append(
                f"players hold {balances:,} but deposits - stakes + returns = {expected:,}"
            )
        if stakes_placed != self.stakes:
            problems.append(
                f"wallet holds {stakes_placed:,} of stakes, players placed {self.stakes:,}"
            )
        return problems


def money(minor_units: int) -> str:
    """American format, as the rules ask for amounts shown to people."""
    sign = "-" if minor_units < 0 else ""
    whole, cents = divmod(abs(minor_units), 100)
    return f"{sign}{whole:,}.{cents:02d}"


class Studio:
    def __init__(
        self,
        endpoints: Endpoints,
        *,
        tables: int,
        players: int,
        betting_seconds: float,
        seed: int | None = None,
        print_line: Callable[[str], None] = print,
    ) -> None:
        self.endpoints = endpoints
        self.table_ids = [f"T{n:02d}" for n in range(1, tables + 1)]
        # players are new on every run, so the money check covers exactly this run
        run = uuid.uuid4().hex[:6]
        self.players = [
            Player(f"operator-{1 + n % 2}", f"sim-{run}-{n:04d}") for n in range(players)
        ]
        self.betting_seconds = betting_seconds
        self.random = random.Random(seed)
        self.ledger = Ledger()
        self.print = print_line
        self.http = httpx.AsyncClient(timeout=10)
        self.devices: dict[str, tuple[str, str]] = {}  # table -> (device id, credential)
        self._tasks: set[asyncio.Task[None]] = set()

    async def close(self) -> None:
        await self.http.aclose()

    # ------------------------------------------------------------------ setup
    async def open_tables(self) -> None:
        limits = {CURRENCY: {bet: {"min": 1_000, "max": 1_000_000} for bet in BET_TYPES}}
        for table_id in self.table_ids:
            response = await self.http.post(
                f"{self.endpoints.table}/tables",
                headers={"X-Api-Key": SUPERVISOR_KEY},
                json={
                    "table_id": table_id,
                    "name": f"Teen Patti 20-20 {table_id}",
                    "betting_seconds": self.betting_seconds,
                    "result_pause_seconds": 1.0,
                    "limits": limits,
                },
            )
            _expect(response, 200, 201)
            device = await self.http.post(
                f"{self.endpoints.scanner}/devices",
                headers={"X-Api-Key": SUPERVISOR_KEY},
                json={"device_id": f"scanner-{table_id}", "table_id": table_id},
            )
            _expect(device, 200, 201)
            body = device.json()
            self.devices[table_id] = (body["device_id"], body["credential"])

    async def fund_players(self) -> None:
        for player in self.players:
            response = await self.http.post(
                f"{self.endpoints.wallet}/players/{player.player_id}/deposits",
                headers={"X-Api-Key": player.key},
                json={
                    "transfer_id": f"sim-{uuid.uuid4()}",
                    "currency": CURRENCY,
                    "amount": DEPOSIT,
                },
            )
            _expect(response, 200, 201)
            self.ledger.deposits += DEPOSIT

    # ------------------------------------------------------------------ one table
    async def run_table(self, table_id: str, stop: asyncio.Event) -> None:
        # Catch up with the table's history first (it may have run before): only its last
        # round matters, and it may be waiting for bets or for the rest of its cards.
        position = 0
        current: tuple[str, str] | None = None  # (phase, round id) of the last round
        dealt: list[str] = []
        while page := await self.table_events(table_id, position):
            for item in page:
                position = int(item["position"])
                kind, payload = item["event_type"], item["payload"]
                if kind == "RoundOpened":
                    current, dealt = ("betting", payload["round_id"]), []
                elif kind == "BettingClosed" and current:
                    current = ("dealing", current[1])
                elif kind == "CardDealt":
                    dealt.append(payload["card"])
                elif kind in ("RoundClosed", "RoundCancelled"):
                    current = None
        if current and current[0] == "betting":
            self._spawn(self.place_bets(current[1]))
        elif current:
            self._spawn(self.deal(table_id, current[1], stop, already_dealt=dealt))

        while not stop.is_set():
            for item in await self.table_events(table_id, position):
                position = int(item["position"])
                kind, payload = item["event_type"], item["payload"]
                if kind == "RoundOpened":
                    self._spawn(self.place_bets(payload["round_id"]))
                elif kind == "BettingClosed":
                    self._spawn(self.deal(table_id, payload["round_id"], stop))
                elif kind == "RoundClosed":
                    await self.report_round(payload)
                elif kind == "RoundCancelled":
                    self.ledger.cancelled += 1
                    self.print(f"{table_id} {payload['round_id']}  cancelled: {payload['reason']}")
            await _sleep_or_stop(stop, 0.1)

    async def table_events(self, table_id: str, after: int) -> list[dict[str, Any]]:
        response = await self.http.get(
            f"{self.endpoints.table}/tables/{table_id}/events",
            params={"after": after},
            headers={"X-Api-Key": SUPERVISOR_KEY},
        )
        _expect(response, 200)
        return _events(response.json())

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def place_bets(self, round_id: str) -> None:
        bettors = self.random.sample(self.players, k=max(1, len(self.players) // 3))
        for player in bettors:
            bets: list[dict[str, Any]] = [
                {"bet_type": bet, "stake": self.random.randrange(1_000, 50_001, 500)}
                for bet in self.random.sample(BET_TYPES, k=self.random.randint(1, 3))
            ]
            headers = {"X-Api-Key": player.key, "Idempotency-Key": str(uuid.uuid4())}
            slip = {
                "player_id": player.player_id,
                "round_id": round_id,
                "currency": CURRENCY,
                "bets": bets,
            }
            for _ in range(30):  # a round opened a moment ago may not be at the wallet yet
                response = await self.http.post(
                    f"{self.endpoints.wallet}/bets", headers=headers, json=slip
                )
                if response.status_code != 404:
                    break
                await asyncio.sleep(0.1)
            if response.status_code == 201:
                self.ledger.bets += len(bets)
                self.ledger.stakes += sum(b["stake"] for b in bets)
            else:
                self.ledger.refused_slips += 1

    async def deal(
        self,
        table_id: str,
        round_id: str,
        stop: asyncio.Event,
        *,
        already_dealt: list[str] | None = None,
    ) -> None:
        device_id, credential = self.devices[table_id]
        headers = {"X-Device-Id": device_id, "Authorization": f"Bearer {credential}"}
        dealt = already_dealt or []
        deck = [str(card) for card in DECK if str(card) not in dealt]
        self.random.shuffle(deck)
        for card in deck[: 6 - len(dealt)]:
            await _sleep_or_stop(stop, 0.3)  # the dealer's hand
            if self.random.random() < 0.05:
                self.ledger.misreads += 1
                await self.scan(headers, table_id, self.random.choice(["", "1X", "??", "A"]))
            status = await self.scan(headers, table_id, card)
            while status in ("rescan", "pending") and not stop.is_set():
                await _sleep_or_stop(stop, 0.2)
                status = await self.scan(headers, table_id, card)
            if self.random.random() < 0.03:
                self.ledger.duplicate_reads += 1
                await self.scan(headers, table_id, card)  # absorbed by the gateway

    async def scan(self, headers: dict[str, str], table_id: str, read: str) -> str:
        response = await self.http.post(
            f"{self.endpoints.scanner}/scans",
            headers=headers,
            json={"read": read, "table_id": table_id},
        )
        if response.status_code >= 400 and response.status_code != 422:
            _expect(response, 200)
        status: str = response.json().get("status", "rescan")
        return status

    async def report_round(self, payload: dict[str, Any]) -> None:
        self.ledger.rounds += 1
        round_id = payload["round_id"]
        cards = payload["cards"]
        summary = await self.settlement_summary(round_id)
        hand_a, hand_b = " ".join(cards[0::2]), " ".join(cards[1::2])
        self.print(
            f"{payload['table_id']} {round_id}  A {hand_a} ({payload['player_a_hand']})"
            f"  B {hand_b} ({payload['player_b_hand']})  winner {payload['winner']}"
            f"  bonus {payload['six_card_bonus_hand'] or '-'}  {summary}"
        )

    async def settlement_summary(self, round_id: str) -> str:
        bets = stake = returned = 0
        for key in OPERATOR_KEYS.values():
            for _ in range(50):
                response = await self.http.get(
                    f"{self.endpoints.settlement}/rounds/{round_id}/settlement",
                    headers={"X-Api-Key": key},
                )
                if response.status_code == 200 and response.json().get("status") == "settled":
                    body = response.json()
                    for totals in body.get("totals", {}).values():
                        stake += int(totals["stake"])
                        returned += int(totals["returned"])
                    bets += len(body.get("bets", []))
                    break
                await asyncio.sleep(0.1)
            else:
                return "settlement pending"
        return f"bets {bets}  stake {money(stake)}  returns {money(returned)}"

    # ------------------------------------------------------------------ the end
    async def conservation(self) -> tuple[list[str], dict[str, int]]:
        balances = stakes = returns = 0
        for player in self.players:
            response = await self.http.get(
                f"{self.endpoints.wallet}/players/{player.player_id}/balances",
                headers={"X-Api-Key": player.key},
            )
            _expect(response, 200)
            balances += int(response.json().get(CURRENCY, 0))
            cursor: str | None = None
            while True:
                params: dict[str, str | int] = {"limit": 200}
                if cursor:
                    params["cursor"] = cursor
                page = await self.http.get(
                    f"{self.endpoints.wallet}/players/{player.player_id}/bets",
                    headers={"X-Api-Key": player.key},
                    params=params,
                )
                _expect(page, 200)
                body = page.json()
                for bet in body["items"]:
                    stakes += int(bet["stake"])
                    returns += int(bet.get("returned") or 0)
                cursor = body.get("next_cursor")
                if not cursor:
                    break
        figures = {"balances": balances, "stakes": stakes, "returns": returns}
        return self.ledger.check(balances, returns, stakes), figures


def _events(body: Any) -> list[dict[str, Any]]:
    items = body["events"] if isinstance(body, dict) else body
    return list(items)


def _expect(response: httpx.Response, *statuses: int) -> None:
    if response.status_code not in statuses:
        raise RuntimeError(
            f"{response.request.method} {response.request.url} answered"
            f" {response.status_code}: {response.text[:300]}"
        )


async def _sleep_or_stop(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)
