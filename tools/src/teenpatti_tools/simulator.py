"""A simulated studio and its players, driving the running services through their HTTP APIs:
the operators and players through the operator client (teenpatti-client), the supervisors and
the scanners with plain requests.

For each table: a supervisor opens it (a second one approves its terms, docs/decisions/0086),
a scanner device is registered to it (by two supervisors, docs/decisions/0085), and a
dealer shuffles a fresh deck every round and
scans the six cards once betting has closed (now and then misreading a card, which the
gateway answers with "rescan", or reading one twice, which it absorbs). Players of two
operators bet on the open rounds. A transfer operator's players deposit money and bet
through the operator API; with `seamless`, one operator's players keep their money with that
operator's wallet server (the reference operator): each gets a token from it, a session per
table from `POST /sessions`, and bets with the session.
Each finished round is printed: cards, hands, winner, bets, stake and returns. At the end,
`Ledger.check()` verifies that no money appeared or vanished on the transfer wallet.

The studio rides out faults the way its people would: a request that finds no service (or a
5xx) is sent again, to any instance, with the same idempotency key, for up to `patience`
seconds; a dealer whose read is pending asks for its verdict instead of reading the card
again, and the supervisor resumes a round the table paused for a card read twice, or for
one read during betting once the deck is replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import random
import secrets
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import httpx

from teenpatti.engine import DECK
from teenpatti.seamless.hub88 import to_protocol
from teenpatti.settings import DEVELOPMENT_API_KEYS
from teenpatti_client import settlement as settlement_api
from teenpatti_client import wallet as wallet_api
from teenpatti_client.settlement.api.default import round_settlement
from teenpatti_client.settlement.models import RoundSettlementPublic
from teenpatti_client.wallet.api.default import (
    balances,
    deposit,
    launch_session,
    open_session,
    place_bets,
    player_bets,
)
from teenpatti_client.wallet.models import (
    BalancesPublic,
    BetLine,
    BetPagePublic,
    BetPublic,
    Problem,
    SessionCreate,
    SessionLaunch,
    SessionLaunchedPublic,
    SessionOpenedPublic,
    SlipCreate,
    SlipPublic,
    TransferCreate,
)
from teenpatti_client.wallet.types import UNSET
from teenpatti_tools.operator.control import OperatorAdmin

BET_TYPES = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
CURRENCY = "INR"
OPERATOR_KEYS = {"operator-1": "dev-operator-1-key", "operator-2": "dev-operator-2-key"}
SUPERVISOR_KEY = "dev-supervisor-key"
# the second supervisor who approves a table's new terms (docs/decisions/0086) and its
# scanner (0085); devrun gives
# the services its key beside the development keys
SECOND_SUPERVISOR_KEY = "dev-supervisor-2-key"
# the development keys and that second supervisor's: what a studio's services run with
STUDIO_API_KEYS = f"{DEVELOPMENT_API_KEYS},supervisor-2:supervisor:{SECOND_SUPERVISOR_KEY}"
DEPOSIT = 5_000_000  # minor units: 50,000.00 INR per player
# a seamless slip's refusals answered with a 5xx: the wallet's decision, not a missing service
OPERATOR_REFUSALS = frozenset({"operator_unavailable", "bad_operator_answer"})


class Endpoints:
    """The services' base URLs. With several instances of a service (their HTTP edges are
    stateless), each call goes to one of them at random."""

    def __init__(self, urls: Mapping[str, Sequence[str]]) -> None:
        self._urls = {kind: list(found) for kind, found in urls.items()}
        self._pick = random.Random()

    def any(self, kind: str) -> str:
        """One instance of the service `kind` ("table", "scanner-gateway", "wallet"...)."""
        return self._pick.choice(self._urls[kind])

    @property
    def table(self) -> str:
        return self.any("table")

    @property
    def scanner(self) -> str:
        return self.any("scanner-gateway")

    @property
    def wallet(self) -> str:
        return self.any("wallet")

    @property
    def settlement(self) -> str:
        return self.any("settlement")

    def forget(self, url: str) -> None:
        """Stop sending to an instance (it was stopped or killed)."""
        for found in self._urls.values():
            if url in found and len(found) > 1:
                found.remove(url)


class InstancesTransport(httpx.AsyncBaseTransport):
    """Requests to our services, addressed `http://<service>/...` (`Endpoints`' kinds): each
    goes to one instance of the service at random. No answer, a 5xx or a 429 (rate limited):
    the same request again (every call the studio makes is safe to repeat), on any instance,
    for up to `patience` seconds; then the last failure is raised (`RuntimeError`). Without
    `retry`, every answer and failure as it comes. A studio's clients share it: closing one of
    them closes nothing, the studio closes it (`shut`)."""

    def __init__(
        self,
        endpoints: Endpoints,
        *,
        patience: float,
        on_retry: Callable[[], None] = lambda: None,
        inner: httpx.AsyncBaseTransport | None = None,
        retry: bool = True,
    ) -> None:
        self.endpoints = endpoints
        self.patience = patience
        self.retry = retry
        self.on_retry = on_retry
        self.inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        kind = request.url.host
        body = await request.aread()
        headers = [(name, value) for name, value in request.headers.raw if name.lower() != b"host"]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.patience
        delay = 0.1
        while True:
            base = httpx.URL(self.endpoints.any(kind))
            url = request.url.copy_with(scheme=base.scheme, host=base.host, port=base.port)
            attempt = httpx.Request(
                request.method, url, headers=headers, content=body, extensions=request.extensions
            )
            label = f"{request.method} {url.copy_with(query=None)}"
            if not self.retry:
                return await self.inner.handle_async_request(attempt)
            try:
                response = await self.inner.handle_async_request(attempt)
                if response.status_code < 500 and response.status_code != 429:
                    return response
                content = await response.aread()
                if _code(response) in OPERATOR_REFUSALS:
                    return response
                failure = f"{label} answered {response.status_code}: {content[:300]!r}"
            except httpx.TransportError as error:
                failure = f"{label}: {type(error).__name__} {error}".strip()
            if loop.time() >= deadline:
                raise RuntimeError(f"{failure} (for {self.patience:g} s)")
            self.on_retry()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)

    async def aclose(self) -> None:
        """Nothing: the transport outlives each client that uses it."""

    async def shut(self) -> None:
        await self.inner.aclose()


class RefusedError(Exception):
    """The API's refusal, as the client answers it: its problem document."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(f"{problem.status} {problem.code}: {problem.detail}")
        self.problem = problem


T = TypeVar("T")


def answered(result: T | Problem | None) -> T:
    """The answer the operation documents, or its refusal raised (`RefusedError`)."""
    if isinstance(result, Problem):
        raise RefusedError(result)
    if result is None:
        raise RuntimeError("an answer the API does not document")
    return result


def wallet_client(
    transport: httpx.AsyncBaseTransport, key: str, *, timeout: float = 10
) -> wallet_api.AuthenticatedClient:
    """The wallet's operator client through `transport`, with an operator's key."""
    return wallet_api.AuthenticatedClient(
        base_url="http://wallet",
        token=key,
        auth_header_name="X-Api-Key",
        prefix="",
        timeout=httpx.Timeout(timeout),
        httpx_args={"transport": transport},
    )


def player_client(
    transport: httpx.AsyncBaseTransport, session_token: str, *, timeout: float = 10
) -> wallet_api.AuthenticatedClient:
    """The wallet's client as a player's view calls it: its session, never an operator's key."""
    return wallet_api.AuthenticatedClient(
        base_url="http://wallet",
        token=session_token,
        auth_header_name="Authorization",
        prefix="Session",
        timeout=httpx.Timeout(timeout),
        httpx_args={"transport": transport},
    )


def settlement_client(
    transport: httpx.AsyncBaseTransport, key: str, *, timeout: float = 10
) -> settlement_api.AuthenticatedClient:
    """The settlement's operator client through `transport`, with an operator's key."""
    return settlement_api.AuthenticatedClient(
        base_url="http://settlement",
        token=key,
        auth_header_name="X-Api-Key",
        prefix="",
        timeout=httpx.Timeout(timeout),
        httpx_args={"transport": transport},
    )


@dataclass(frozen=True)
class ScannerSecret:
    """What a scanner makes for itself and keeps: its credential, sent only with its reads.
    The studio registers the device by the credential's SHA-256 and approves it by the
    fingerprint the device shows (docs/decisions/0085-a-scanner-needs-two-supervisors.md)."""

    credential: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def credential_hash(self) -> str:
        return hashlib.sha256(self.credential.encode()).hexdigest()

    @property
    def fingerprint(self) -> str:
        head = self.credential_hash[:16]
        return "-".join(head[i : i + 4] for i in range(0, 16, 4))


# a POST to the scanner gateway: (path, the supervisor key, the JSON body) -> its answer
GatewayPost = Callable[[str, str, Mapping[str, Any]], Awaitable[httpx.Response]]


def gateway_post(client: httpx.AsyncClient, base_url: str = "") -> GatewayPost:
    """`GatewayPost` through `client`, to the gateway at `base_url` (or the client's own)."""

    async def post(path: str, key: str, body: Mapping[str, Any]) -> httpx.Response:
        return await client.post(f"{base_url}{path}", headers={"X-Api-Key": key}, json=dict(body))

    return post


async def propose_device(
    post: GatewayPost,
    device_id: str,
    table_id: str | None,
    secret: ScannerSecret,
    *,
    key: str = SUPERVISOR_KEY,
) -> httpx.Response:
    """The first supervisor proposes the device for `table_id` (or, with None, its new
    credential) by its credential's hash: 202 with the change, 409 `change_pending` (with
    its `change_id`) while another change of the device waits."""
    if table_id is None:
        path, body = f"/devices/{device_id}/rotate", {"credential_hash": secret.credential_hash}
    else:
        path = "/devices"
        body = {
            "device_id": device_id,
            "table_id": table_id,
            "credential_hash": secret.credential_hash,
        }
    return await post(path, key, body)


async def approve_device(
    post: GatewayPost, change_id: str, secret: ScannerSecret, *, key: str = SECOND_SUPERVISOR_KEY
) -> httpx.Response:
    """The second supervisor approves the change with the fingerprint read off the device:
    200, or 409 `round_dealing` while a round of its table is being dealt."""
    path = f"/devices/changes/{change_id}/approve"
    return await post(path, key, {"fingerprint": secret.fingerprint})


async def enrol_device(
    post: GatewayPost,
    device_id: str,
    table_id: str | None,
    secret: ScannerSecret,
    *,
    keys: tuple[str, str] = (SUPERVISOR_KEY, SECOND_SUPERVISOR_KEY),
) -> httpx.Response:
    """Propose and approve the device (or its new credential, with `table_id` None), by the
    supervisors of `keys`: the approval's answer."""
    proposed = await propose_device(post, device_id, table_id, secret, key=keys[0])
    _expect(proposed, 202)
    change_id = str(proposed.json()["change_id"])
    return await approve_device(post, change_id, secret, key=keys[1])


@dataclass
class Player:
    operator_id: str
    player_id: str
    seamless: bool = False
    token: str = ""  # a seamless player's session token at its operator
    sessions: dict[str, str] = field(default_factory=dict)  # table -> our session token

    @property
    def key(self) -> str:
        return OPERATOR_KEYS[self.operator_id]


@dataclass(frozen=True)
class SeamlessOperator:
    """An operator whose players' money stays in its own wallet server, and that server's
    admin API (the reference operator's)."""

    operator_id: str
    admin: OperatorAdmin


@dataclass(frozen=True)
class Slip:
    """A slip as sent: the client it goes through (an operator's, or a player's session),
    its idempotency key and its body."""

    wallet: wallet_api.AuthenticatedClient
    key: str
    body: SlipCreate
    seamless: bool


@dataclass
class Ledger:
    """What the simulation did with money, to check against what the wallet reports."""

    deposits: int = 0
    stakes: int = 0
    returns: int = 0
    bets: int = 0
    # the seamless operator's players: funds deposited at their operator, stakes accepted
    seamless_deposits: int = 0
    seamless_stakes: int = 0
    refused_slips: int = 0
    rounds: int = 0
    cancelled: int = 0
    misreads: int = 0
    duplicate_reads: int = 0
    retries: int = 0  # requests sent again after no answer or a 5xx
    refusals: Counter[str] = field(default_factory=Counter)  # refused slips by the wallet's code
    # slips that got no answer within `patience`, to ask again at the end
    unanswered: list[Slip] = field(default_factory=list)
    resumed: int = 0  # rounds the supervisor resumed after the table paused them
    last_moment: int = 0  # slips sent a moment before betting closed
    # bet id -> (player, stake) of every bet the wallet accepted (answered 201)
    accepted: dict[str, tuple[str, int]] = field(default_factory=dict)

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
        patience: float = 30.0,
        seamless: SeamlessOperator | None = None,
        last_moment: float = 0.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.endpoints = endpoints
        # the chance, each round, that a player sends one more slip a moment before betting
        # closes: it races the close (a seamless operator's answer may come after it)
        self.last_moment = last_moment
        self.table_ids = [f"T{n:02d}" for n in range(1, tables + 1)]
        # players are new on every run, so the money check covers exactly this run
        run = uuid.uuid4().hex[:6]
        self.seamless = seamless
        self.players = [
            Player(
                f"operator-{1 + n % 2}",
                f"sim-{run}-{n:04d}",
                seamless=seamless is not None and f"operator-{1 + n % 2}" == seamless.operator_id,
            )
            for n in range(players)
        ]
        self.betting_seconds = betting_seconds
        self.random = random.Random(seed)
        self.ledger = Ledger()
        self.print = print_line
        self.patience = patience
        # every request goes through it: any instance, sent again while there is no answer
        # (`transport`: another way to reach the services, such as in-process apps)
        self.transport = InstancesTransport(
            endpoints, patience=patience, on_retry=self._retried, inner=transport
        )
        self.http = httpx.AsyncClient(timeout=10, transport=self.transport)
        # the operators' clients of our API (teenpatti-client), one per operator
        self.wallets = {op: wallet_client(self.transport, key) for op, key in OPERATOR_KEYS.items()}
        self.settlements = {
            op: settlement_client(self.transport, key) for op, key in OPERATOR_KEYS.items()
        }
        # the player view before it has a session: launching one
        self.player_view = wallet_api.Client(
            base_url="http://wallet",
            timeout=httpx.Timeout(10),
            httpx_args={"transport": self.transport},
        )
        self._player_wallets: dict[str, wallet_api.AuthenticatedClient] = {}  # by session
        self.devices: dict[str, tuple[str, str]] = {}  # table -> (device id, credential)
        # reads' sequence numbers: microseconds since the epoch at start, then one more per
        # read, so a restarted simulation stays above what its devices sent before
        self.sequences = itertools.count(time.time_ns() // 1000)
        self.dealt: dict[str, list[str]] = {}  # round -> its cards, as the table's events say
        self._tasks: set[asyncio.Task[None]] = set()

    async def close(self) -> None:
        await self.http.aclose()
        await self.transport.shut()

    def _retried(self) -> None:
        self.ledger.retries += 1

    async def call(
        self,
        method: str,
        kind: str,
        path: str,
        *,
        headers: Mapping[str, str],
        json: Any = None,
        params: Mapping[str, str | int] | None = None,
    ) -> httpx.Response:
        """`method path` on any instance of `kind`, sent again while there is no answer
        (`InstancesTransport`): for what the operator client does not cover (supervisors,
        scanners, the table's events)."""
        return await self.http.request(
            method, f"http://{kind}{path}", headers=headers, json=json, params=params
        )

    # ------------------------------------------------------------------ setup
    async def open_tables(self) -> None:
        limits = {CURRENCY: {bet: {"min": 1_000, "max": 1_000_000} for bet in BET_TYPES}}
        for table_id in self.table_ids:
            # its scanner first: a new table deals from its first round
            await self.enrol(table_id)
            response = await self.call(
                "POST",
                "table",
                "/tables",
                headers={"X-Api-Key": SUPERVISOR_KEY},
                json={
                    "table_id": table_id,
                    "name": f"Teen Patti 20-20 {table_id}",
                    "betting_seconds": self.betting_seconds,
                    "result_pause_seconds": 1.0,
                    "limits": limits,
                },
            )
            _expect(response, 200, 201, 202)
            if response.status_code == 202:  # new terms: a second supervisor approves them
                change_id = response.json()["pending_change"]["change_id"]
                approved = await self.call(
                    "POST",
                    "table",
                    f"/tables/{table_id}/changes/{change_id}/approve",
                    headers={"X-Api-Key": SECOND_SUPERVISOR_KEY},
                )
                if _code(approved) == "no_such_change":  # approved by the request sent again
                    table = await self.call(
                        "GET", "table", f"/tables/{table_id}", headers={"X-Api-Key": SUPERVISOR_KEY}
                    )
                    if table.status_code == 200 and table.json()["status"] == "open":
                        continue
                _expect(approved, 200)

    async def enrol(self, table_id: str) -> None:
        """The table's scanner, with a credential it makes for itself, proposed and approved
        by two supervisors. A change of the device left waiting by an earlier run is
        rejected first; a round an earlier run left half-dealt is voided (a round is dealt
        by one device and one credential), then the change is approved."""
        device_id, secret = f"scanner-{table_id}", ScannerSecret()

        async def post(path: str, key: str, body: Mapping[str, Any]) -> httpx.Response:
            return await self.call(
                "POST", "scanner-gateway", path, headers={"X-Api-Key": key}, json=body
            )

        proposed = await propose_device(post, device_id, table_id, secret)
        if _code(proposed) == "change_pending":
            left = proposed.json()["change_id"]
            reason = {"reason": "left by an earlier run of the simulator"}
            _expect(await post(f"/devices/changes/{left}/reject", SUPERVISOR_KEY, reason), 200)
            proposed = await propose_device(post, device_id, table_id, secret)
        _expect(proposed, 202)
        change_id = str(proposed.json()["change_id"])
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.patience
        while (approved := await approve_device(post, change_id, secret)).status_code != 200:
            if _code(approved) == "change_decided":
                break  # approved by the request sent again after its answer was lost
            if _code(approved) != "round_dealing" or loop.time() >= deadline:
                _expect(approved, 200)
            await self.void_round(table_id, "its scanner was registered again")
            await asyncio.sleep(0.5)  # until the gateway hears the round's end
        self.devices[table_id] = (device_id, secret.credential)

    async def void_round(self, table_id: str, reason: str) -> None:
        """Void the table's round in play, by two supervisors once a card is dealt. The first
        supervisor's request sent again after its answer was lost is answered
        `same_supervisor` (it waits for the second already): the second confirms it."""
        for key in (SUPERVISOR_KEY, SECOND_SUPERVISOR_KEY):
            response = await self.call(
                "POST",
                "table",
                f"/tables/{table_id}/cancel",
                headers={"X-Api-Key": key},
                json={"reason": reason},
            )
            first_waits = key == SUPERVISOR_KEY and _code(response) == "same_supervisor"
            if response.status_code != 202 and not first_waits:  # 202: the first of two
                return

    @property
    def transfer_players(self) -> list[Player]:
        return [player for player in self.players if not player.seamless]

    @property
    def seamless_players(self) -> list[Player]:
        return [player for player in self.players if player.seamless]

    async def fund_players(self) -> None:
        for player in self.seamless_players:
            assert self.seamless is not None
            player.token = await self.seamless.admin.player(
                player.player_id, CURRENCY, to_protocol(DEPOSIT, CURRENCY)
            )
            self.ledger.seamless_deposits += DEPOSIT
        for player in self.transfer_players:
            transfer = TransferCreate(
                transfer_id=f"sim-{uuid.uuid4()}", currency=CURRENCY, amount=DEPOSIT
            )
            answered(
                await deposit.asyncio(
                    player.player_id, client=self.wallets[player.operator_id], body=transfer
                )
            )
            self.ledger.deposits += DEPOSIT

    # ------------------------------------------------------------------ one table
    async def run_table(self, table_id: str, stop: asyncio.Event) -> None:
        # Catch up with the table's history first (it may have run before): only its last
        # round matters, and it may be waiting for bets or for the rest of its cards.
        position = 0
        current: tuple[str, str] | None = None  # (phase, round id) of the last round
        dealt: list[str] = []
        paused: str | None = None  # why the table paused the last round, while it is
        while page := await self.table_events(table_id, position):
            for item in page:
                position = int(item["position"])
                kind, payload = item["event_type"], item["payload"]
                if kind == "RoundOpened":
                    current, dealt, paused = ("betting", payload["round_id"]), [], None
                    self.dealt[payload["round_id"]] = dealt
                elif kind == "RoundPaused" and payload["actor"] == "system":
                    paused = payload["reason"]
                elif kind == "RoundResumed":
                    paused = None
                elif kind == "BettingClosed" and current:
                    current = ("dealing", current[1])
                elif kind == "CardDealt":
                    dealt.append(payload["card"])
                elif kind in ("RoundClosed", "RoundCancelled"):
                    current = None
        if current and current[0] == "betting":
            self._spawn(self.place_bets(table_id, current[1]))
        elif current:
            self._spawn(self.deal(table_id, current[1], stop))
        if current and paused:
            # paused while no one dealt (the last run stopped mid-round): carry on
            self._spawn(self.resume(table_id, paused))

        while not stop.is_set():
            for item in await self.table_events(table_id, position):
                position = int(item["position"])
                kind, payload = item["event_type"], item["payload"]
                if kind == "RoundOpened":
                    self.dealt[payload["round_id"]] = []
                    self._spawn(self.place_bets(table_id, payload["round_id"]))
                    if self.random.random() < self.last_moment:
                        closes_at = datetime.fromisoformat(payload["betting_closes_at"])
                        self._spawn(
                            self.place_last_moment(table_id, payload["round_id"], closes_at)
                        )
                elif kind == "BettingClosed":
                    self._spawn(self.deal(table_id, payload["round_id"], stop))
                elif kind == "CardDealt":
                    self.dealt.setdefault(payload["round_id"], []).append(payload["card"])
                elif kind == "RoundPaused" and payload["actor"] == "system":
                    # the table paused the round (a card read twice): the supervisor looks
                    # at the table and carries on
                    self._spawn(self.resume(table_id, payload["reason"]))
                elif kind == "RoundClosed":
                    self.dealt.pop(payload["round_id"], None)
                    await self.report_round(payload)
                elif kind == "RoundCancelled":
                    self.dealt.pop(payload["round_id"], None)
                    self.ledger.cancelled += 1
                    self.print(f"{table_id} {payload['round_id']}  cancelled: {payload['reason']}")
            await _sleep_or_stop(stop, 0.1)

    async def resume(self, table_id: str, reason: str) -> None:
        """The supervisor resumes a round the table paused, as a studio's would: after a
        card read during betting (409 `card_exposed`), the deck is replaced first. Any other
        refusal ends it (`nothing_to_resume`: resumed already); the transport has sent the
        request again while the table service gave no answer or a 5xx."""
        headers = {"X-Api-Key": SUPERVISOR_KEY}
        await asyncio.sleep(0.5)
        response = await self.call("POST", "table", f"/tables/{table_id}/resume", headers=headers)
        if response.status_code == 409 and _code(response) == "card_exposed":
            replaced = await self.call(
                "POST",
                "table",
                f"/tables/{table_id}/replace-deck",
                headers=headers,
                json={"reason": "a card was read during betting: new deck"},
            )
            if replaced.status_code != 200:
                return
            self.print(f"{table_id} deck replaced by the supervisor after: {reason}")
            response = await self.call(
                "POST", "table", f"/tables/{table_id}/resume", headers=headers
            )
        if response.status_code == 200:
            self.ledger.resumed += 1
            self.print(f"{table_id} resumed by the supervisor after: {reason}")

    async def table_events(self, table_id: str, after: int) -> list[dict[str, Any]]:
        response = await self.call(
            "GET",
            "table",
            f"/tables/{table_id}/events",
            params={"after": after},
            headers={"X-Api-Key": SUPERVISOR_KEY},
        )
        _expect(response, 200)
        return _events(response.json())

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def session(self, player: Player, table_id: str) -> str:
        """The seamless player's session for the table: opened by its operator with the
        operator's token, then launched as the player view would (its ticket exchanged)."""
        if table_id not in player.sessions:
            opened: SessionOpenedPublic = answered(
                await open_session.asyncio(
                    client=self.wallets[player.operator_id],
                    body=SessionCreate(
                        token=player.token,
                        player_id=player.player_id,
                        currency=CURRENCY,
                        table_id=table_id,
                    ),
                )
            )
            ticket = parse_qs(urlsplit(opened.launch_url).query)["ticket"][0]
            # the player view's own request: no key, only the ticket
            launched: SessionLaunchedPublic = answered(
                await launch_session.asyncio(
                    client=self.player_view,
                    body=SessionLaunch(ticket=ticket),
                )
            )
            player.sessions[table_id] = launched.session_token
        return player.sessions[table_id]

    async def place_bets(self, table_id: str, round_id: str) -> None:
        bettors = self.random.sample(self.players, k=max(1, len(self.players) // 3))
        for player in bettors:
            await self.place_slip(player, table_id, round_id)

    async def place_last_moment(self, table_id: str, round_id: str, closes_at: datetime) -> None:
        """One slip sent 0.1 to 0.4 s before betting closes (on this machine's clock)."""
        player = self.random.choice(self.players)
        lead = self.random.uniform(0.1, 0.4)
        await asyncio.sleep(max(0.0, (closes_at - datetime.now(UTC)).total_seconds() - lead))
        self.ledger.last_moment += 1
        await self.place_slip(player, table_id, round_id)

    async def place_slip(self, player: Player, table_id: str, round_id: str) -> None:
        bets = [
            BetLine(bet_type=bet, stake=self.random.randrange(1_000, 50_001, 500))
            for bet in self.random.sample(BET_TYPES, k=self.random.randint(1, 3))
        ]
        wallet = self.wallets[player.operator_id]
        if player.seamless:
            # the player's own request, never with the operator's key
            wallet = self.player_wallet(await self.session(player, table_id))
        slip = Slip(
            wallet,
            key=str(uuid.uuid4()),
            body=SlipCreate(
                player_id=player.player_id, round_id=round_id, currency=CURRENCY, bets=bets
            ),
            seamless=player.seamless,
        )
        try:
            await self.send_slip(slip)
        except RuntimeError:
            self.ledger.unanswered.append(slip)

    def player_wallet(self, session_token: str) -> wallet_api.AuthenticatedClient:
        """The wallet as the player with this session calls it."""
        if session_token not in self._player_wallets:
            self._player_wallets[session_token] = player_client(self.transport, session_token)
        return self._player_wallets[session_token]

    async def send_slip(self, slip: Slip) -> None:
        for _ in range(50):
            answer = await place_bets.asyncio_detailed(
                client=slip.wallet, body=slip.body, idempotency_key=slip.key
            )
            code = answer.parsed.code if isinstance(answer.parsed, Problem) else None
            # a round opened a moment ago may not be at the wallet yet; a repeated seamless
            # slip may still wait for its operator's answer
            if answer.status_code != 404 and code != "slip_pending":
                break
            await asyncio.sleep(0.1)
        if isinstance(answer.parsed, SlipPublic):
            accepted = answer.parsed.bets
            self.ledger.bets += len(accepted)
            stakes = sum(bet.stake for bet in accepted)
            if slip.seamless:
                self.ledger.seamless_stakes += stakes
            else:
                self.ledger.stakes += stakes
            for bet in accepted:
                self.ledger.accepted[str(bet.bet_id)] = (str(slip.body.player_id), bet.stake)
        else:
            self.ledger.refused_slips += 1
            self.ledger.refusals[str(code)] += 1

    async def ask_again(self) -> None:
        """Send every unanswered slip again with its idempotency key: the wallet answers
        what it decided then, or decides now (the round is over: refused)."""
        unanswered, self.ledger.unanswered = self.ledger.unanswered, []
        for slip in unanswered:
            await self.send_slip(slip)

    async def deal(self, table_id: str, round_id: str, stop: asyncio.Event) -> None:
        """Deal the round's cards still missing, from a fresh deck without those dealt."""
        device_id, credential = self.devices[table_id]
        headers = {"X-Device-Id": device_id, "Authorization": f"Bearer {credential}"}
        dealt = self.dealt.setdefault(round_id, [])
        deck = [str(card) for card in DECK if str(card) not in dealt]
        self.random.shuffle(deck)
        for card in deck:
            if len(dealt) >= 6 or stop.is_set() or round_id not in self.dealt:
                return
            await _sleep_or_stop(stop, 0.3)  # the dealer's hand
            if self.random.random() < 0.05:
                self.ledger.misreads += 1
                await self.scan(headers, table_id, self.random.choice(["", "1X", "??", "A"]))
            if not await self.scan_until_answered(headers, table_id, round_id, card, stop):
                return
            if self.random.random() < 0.03:
                self.ledger.duplicate_reads += 1
                await self.scan(headers, table_id, card)  # absorbed by the gateway

    async def scan_until_answered(
        self,
        headers: dict[str, str],
        table_id: str,
        round_id: str,
        card: str,
        stop: asyncio.Event,
    ) -> bool:
        """Scan `card` until the table has it; False when the round cannot take more cards."""
        while not stop.is_set():
            answer = await self.scan(headers, table_id, card)
            while answer.get("status") == "pending" and not stop.is_set():
                # the gateway passed the read on; the table has not answered yet
                await _sleep_or_stop(stop, 0.3)
                response = await self.call(
                    "GET", "scanner-gateway", f"/scans/{answer['scan_id']}", headers=headers
                )
                answer = response.json() if response.status_code == 200 else {}
            status, reason = answer.get("status"), answer.get("reason")
            if status == "registered" or reason == "duplicate_card":
                return True  # on the table (a read twice: the supervisor resumes the round)
            # paused, or read before the gateway heard of the round (decision 0055): again
            if status == "refused" and reason not in ("round_paused", "wrong_round"):
                return False  # the round is over or not dealing
            if card in self.dealt.get(round_id, [card]):
                return True  # its answer was lost, but the table's events show the card
            await _sleep_or_stop(stop, 0.3)  # unreadable, paused, or no answer: read again
        return False

    async def scan(self, headers: dict[str, str], table_id: str, read: str) -> dict[str, Any]:
        """One read, with the next sequence number; `{}` when the gateway had recorded it
        already (a repeated request whose first answer was lost: 409 stale_sequence)."""
        response = await self.call(
            "POST",
            "scanner-gateway",
            "/scans",
            headers=headers,
            json={"read": read, "table_id": table_id, "sequence": next(self.sequences)},
        )
        if response.status_code == 409 and response.json().get("code") == "stale_sequence":
            return {}
        if response.status_code >= 400 and response.status_code != 422:
            _expect(response, 200)
        answer: dict[str, Any] = response.json()
        return answer

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
        for operator_id in OPERATOR_KEYS:
            for _ in range(50):
                found = await round_settlement.asyncio(
                    round_id, client=self.settlements[operator_id]
                )
                if isinstance(found, RoundSettlementPublic) and found.status == "settled":
                    for totals in found.totals.additional_properties.values():
                        stake += totals.stake
                        returned += totals.returned
                    bets += len(found.bets)
                    break
                await asyncio.sleep(0.1)
            else:
                return "settlement pending"
        return f"bets {bets}  stake {money(stake)}  returns {money(returned)}"

    # ------------------------------------------------------------------ the end
    async def conservation(self) -> tuple[list[str], dict[str, int]]:
        """The transfer wallet's money check, over the transfer operators' players."""
        held = stakes = returns = 0
        for player in self.transfer_players:
            held += await self.balance(player)
            for bet in await self.player_bets(player):
                stakes += bet.stake
                returns += bet.returned or 0
        figures = {"balances": held, "stakes": stakes, "returns": returns}
        return self.ledger.check(held, returns, stakes), figures

    async def balance(self, player: Player) -> int:
        """The player's balance in the studio's currency at the transfer wallet."""
        found: BalancesPublic = answered(
            await balances.asyncio(player.player_id, client=self.wallets[player.operator_id])
        )
        return found.additional_properties.get(CURRENCY, 0)

    async def player_bets(self, player: Player) -> list[BetPublic]:
        """The player's whole bet history, as the wallet serves it."""
        bets: list[BetPublic] = []
        cursor: str | None = None
        while True:
            page: BetPagePublic = answered(
                await player_bets.asyncio(
                    player.player_id,
                    client=self.wallets[player.operator_id],
                    limit=200,
                    cursor=cursor if cursor else UNSET,
                )
            )
            bets.extend(page.items)
            cursor = page.next_cursor
            if not cursor:
                return bets


def _code(response: httpx.Response) -> str | None:
    """A problem document's `code`, if the answer is one."""
    try:
        body = response.json()
    except ValueError:
        return None
    return str(body.get("code")) if isinstance(body, dict) and "code" in body else None


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
