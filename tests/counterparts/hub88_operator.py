"""A second, strict Hub88 operator wallet server for tests.

Written from `operator-wallet.md` alone; it imports nothing from the product, so a mistake
the product makes on both of its own sides (a header name, the amount scale, the signing)
shows up here as a refusal or a recorded violation. See README.md for the choices made where
the text is silent.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn

import uvicorn
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

SIGNATURE_HEADER = "X-Hub88-Signature"
BALANCE_PATH = "/user/balance"
BET_PATH = "/transaction/bet"
WIN_PATH = "/transaction/win"
ROLLBACK_PATH = "/transaction/rollback"
PATHS = (BALANCE_PATH, BET_PATH, WIN_PATH, ROLLBACK_PATH)
INT64_MAX = 2**63 - 1

RS_OK = "RS_OK"
RS_ERROR_UNKNOWN = "RS_ERROR_UNKNOWN"
RS_ERROR_INVALID_TOKEN = "RS_ERROR_INVALID_TOKEN"
RS_ERROR_WRONG_CURRENCY = "RS_ERROR_WRONG_CURRENCY"
RS_ERROR_NOT_ENOUGH_MONEY = "RS_ERROR_NOT_ENOUGH_MONEY"
RS_ERROR_INVALID_SIGNATURE = "RS_ERROR_INVALID_SIGNATURE"
RS_ERROR_TOKEN_EXPIRED = "RS_ERROR_TOKEN_EXPIRED"
RS_ERROR_WRONG_SYNTAX = "RS_ERROR_WRONG_SYNTAX"
RS_ERROR_WRONG_TYPES = "RS_ERROR_WRONG_TYPES"
RS_ERROR_DUPLICATE_TRANSACTION = "RS_ERROR_DUPLICATE_TRANSACTION"
RS_ERROR_TRANSACTION_DOES_NOT_EXIST = "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
RS_ERROR_TRANSACTION_ROLLED_BACK = "RS_ERROR_TRANSACTION_ROLLED_BACK"
ERROR_STATUSES = frozenset(
    {
        RS_ERROR_UNKNOWN,
        "RS_ERROR_INVALID_PARTNER",
        RS_ERROR_INVALID_TOKEN,
        "RS_ERROR_INVALID_GAME",
        RS_ERROR_WRONG_CURRENCY,
        RS_ERROR_NOT_ENOUGH_MONEY,
        "RS_ERROR_USER_DISABLED",
        RS_ERROR_INVALID_SIGNATURE,
        RS_ERROR_TOKEN_EXPIRED,
        RS_ERROR_WRONG_SYNTAX,
        RS_ERROR_WRONG_TYPES,
        RS_ERROR_DUPLICATE_TRANSACTION,
        RS_ERROR_TRANSACTION_DOES_NOT_EXIST,
        "RS_ERROR_LIMIT_REACHED",
        RS_ERROR_TRANSACTION_ROLLED_BACK,
    }
)

_COMMON_FIELDS = ("user", "token", "game_code", "request_uuid")
_MOVEMENT_FIELDS = (*_COMMON_FIELDS, "transaction_uuid", "round", "currency")
_STRING_FIELDS: dict[str, tuple[str, ...]] = {
    BALANCE_PATH: _COMMON_FIELDS,
    BET_PATH: _MOVEMENT_FIELDS,
    WIN_PATH: (*_MOVEMENT_FIELDS, "reference_transaction_uuid"),
    ROLLBACK_PATH: (*_COMMON_FIELDS, "transaction_uuid", "reference_transaction_uuid", "round"),
}
_OTHER_FIELDS: dict[str, tuple[str, ...]] = {
    BALANCE_PATH: (),
    BET_PATH: ("round_closed", "amount", "bet", "meta"),
    WIN_PATH: ("round_closed", "amount", "bet", "meta"),
    ROLLBACK_PATH: (),
}

Kind = Literal["bet", "win", "rollback"]
BetState = Literal["open", "won", "closed_by_round", "rolled_back"]
_FaultKind = Literal["hold", "lose", "fail", "refuse", "sign_badly"]
_Wallet = tuple[str, str]
_Message = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_Message]]
_Send = Callable[[_Message], Awaitable[None]]


@dataclass(frozen=True)
class Transaction:
    """A money movement the operator applied (a tombstone moves nothing but is kept)."""

    kind: Kind
    transaction_uuid: str
    reference_transaction_uuid: str | None
    user: str
    round: str
    amount: int
    currency: str
    round_closed: bool | None
    tombstone: bool
    balance_after: int


@dataclass(frozen=True)
class Bet:
    """A bet the operator applied, as it stands now."""

    transaction_uuid: str
    user: str
    round: str
    amount: int
    currency: str
    state: BetState
    ended_by: list[str]


@dataclass
class _BetRecord:
    transaction_uuid: str
    user: str
    round: str
    amount: int
    currency: str
    state: BetState = "open"
    ended_by: list[str] = field(default_factory=list)

    def snapshot(self) -> Bet:
        return Bet(
            self.transaction_uuid,
            self.user,
            self.round,
            self.amount,
            self.currency,
            self.state,
            list(self.ended_by),
        )


@dataclass
class _Session:
    user: str
    currency: str
    expired: bool = False


@dataclass(frozen=True)
class _Fault:
    kind: _FaultKind
    seconds: float = 0.0
    status: str = ""


@dataclass(frozen=True)
class _Request:
    path: str
    user: str
    token: str
    game_code: str
    request_uuid: str
    transaction_uuid: str = ""
    reference_transaction_uuid: str = ""
    round: str = ""
    round_closed: bool | None = None
    amount: int = 0
    currency: str | None = None

    def identity(self) -> tuple[object, ...]:
        # request_uuid and token change between attempts of one movement; bet and meta are
        # descriptive. Everything that decides the money must be the same on a repeat.
        return (
            self.path,
            self.user,
            self.game_code,
            self.round,
            self.round_closed,
            self.amount,
            self.currency,
            self.reference_transaction_uuid,
        )


class _Refusal(Exception):
    def __init__(
        self, status: str, violation: str | None = None, wallet: _Wallet | None = None
    ) -> None:
        super().__init__(status)
        self.status = status
        self.violation = violation
        self.wallet = wallet


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Two values for one key would let signer and parser read different amounts.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _parse_json(body: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(
            body.decode("utf-8"), object_pairs_hook=_unique_keys, parse_constant=_no_constant
        )
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _parse_request(path: str, body: dict[str, Any] | None) -> _Request:
    if body is None:
        raise _Refusal(RS_ERROR_WRONG_SYNTAX, f"{path}: the body is not a JSON object")
    strings = _STRING_FIELDS[path]
    missing = [name for name in (*strings, *_OTHER_FIELDS[path]) if name not in body]
    if missing:
        raise _Refusal(RS_ERROR_WRONG_SYNTAX, f"{path}: missing field(s) {', '.join(missing)}")
    for name in strings:
        if not isinstance(body[name], str):
            raise _Refusal(
                RS_ERROR_WRONG_TYPES, f"{path}: {name} is {body[name]!r}, not a JSON string"
            )
        if not body[name]:
            raise _Refusal(RS_ERROR_WRONG_SYNTAX, f"{path}: {name} is empty")
    amount = 0
    round_closed: bool | None = None
    if path in (BET_PATH, WIN_PATH):
        raw_amount = body["amount"]
        # bool is an int in Python, not in JSON
        if type(raw_amount) is not int:
            raise _Refusal(
                RS_ERROR_WRONG_TYPES,
                f"amounts are int64, never floats (or strings): {path} sent amount {raw_amount!r}",
            )
        if not 0 <= raw_amount <= INT64_MAX:
            raise _Refusal(
                RS_ERROR_WRONG_TYPES,
                f"{path}: amount {raw_amount} is not a non-negative int64",
            )
        amount = raw_amount
        if not isinstance(body["round_closed"], bool):
            raise _Refusal(
                RS_ERROR_WRONG_TYPES,
                f"{path}: round_closed is {body['round_closed']!r}, not a JSON boolean",
            )
        round_closed = body["round_closed"]
        if body["bet"] is not None and not isinstance(body["bet"], str):
            raise _Refusal(RS_ERROR_WRONG_TYPES, f"{path}: bet is {body['bet']!r}")
        if body["meta"] is not None and not isinstance(body["meta"], dict):
            raise _Refusal(RS_ERROR_WRONG_TYPES, f"{path}: meta is {body['meta']!r}")
    # Only the call's own fields: an extra one (a currency on a rollback) is ignored.
    known: dict[str, str] = {name: body[name] for name in strings}
    return _Request(
        path=path,
        user=known["user"],
        token=known["token"],
        game_code=known["game_code"],
        request_uuid=known["request_uuid"],
        transaction_uuid=known.get("transaction_uuid", ""),
        reference_transaction_uuid=known.get("reference_transaction_uuid", ""),
        round=known.get("round", ""),
        round_closed=round_closed,
        amount=amount,
        currency=known.get("currency"),
    )


def _sign(key: rsa.RSAPrivateKey, body: bytes) -> bytes:
    return base64.b64encode(key.sign(body, padding.PKCS1v15(), hashes.SHA256()))


def _load_rsa_public_key(pem: str) -> rsa.RSAPublicKey:
    key = serialization.load_pem_public_key(pem.encode())
    if not isinstance(key, rsa.RSAPublicKey):
        raise ValueError("a game public key must be an RSA key")
    return key


class Hub88Operator:
    """The operator side of the Hub88 wallet protocol, with in-memory wallets."""

    base_url: str
    public_key_pem: str
    violations: list[str]
    requests: list[dict[str, Any]]

    def __init__(
        self, game_public_keys_pem: Sequence[str], private_key: rsa.RSAPrivateKey | None = None
    ) -> None:
        if not game_public_keys_pem:
            raise ValueError("at least one game public key is needed")
        self._game_keys = [_load_rsa_public_key(pem) for pem in game_public_keys_pem]
        self._key = private_key or rsa.generate_private_key(public_exponent=65537, key_size=2048)
        # A fault that must produce a signature the game side cannot verify.
        self._wrong_key: rsa.RSAPrivateKey | None = None
        self.public_key_pem = (
            self._key.public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            .decode()
        )
        self.base_url = ""
        self.violations = []
        self.requests = []
        # The server runs on its own thread, so every state change and read takes this lock.
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._sessions: dict[str, _Session] = {}
        self._wallets: dict[_Wallet, int] = {}
        self._initial: dict[_Wallet, int] = {}
        self._transactions: list[Transaction] = []
        self._applied: dict[str, tuple[tuple[object, ...], Transaction]] = {}
        self._bets: dict[str, _BetRecord] = {}
        # referenced transaction_uuid -> (rollback transaction_uuid, user)
        self._tombstones: dict[str, tuple[str, str]] = {}
        self._closed_rounds: set[tuple[str, str]] = set()
        self._faults: dict[str, deque[_Fault]] = {path: deque() for path in PATHS}
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    # -- the test's side ----------------------------------------------------------------

    def add_player(self, user: str, currency: str, balance: int) -> str:
        if type(balance) is not int or balance < 0:
            raise ValueError("balance is a non-negative int in protocol units")
        with self._lock:
            if (user, currency) in self._wallets:
                raise ValueError(f"{user} already has a {currency} wallet: use new_token")
            self._wallets[(user, currency)] = balance
            self._initial[(user, currency)] = balance
        return self.new_token(user, currency)

    def new_token(self, user: str, currency: str) -> str:
        """Another session token for an existing wallet (the player launched the game again)."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            if (user, currency) not in self._wallets:
                raise KeyError(f"{user} has no {currency} wallet")
            self._sessions[token] = _Session(user, currency)
        return token

    def expire_token(self, token: str) -> None:
        with self._lock:
            self._sessions[token].expired = True

    def balance(self, user: str, currency: str) -> int:
        with self._lock:
            return self._wallets[(user, currency)]

    def transactions(self, user: str | None = None) -> list[Transaction]:
        with self._lock:
            return [t for t in self._transactions if user is None or t.user == user]

    def bets(self, user: str | None = None) -> list[Bet]:
        with self._lock:
            return [b.snapshot() for b in self._bets.values() if user is None or b.user == user]

    def hold_next(self, path: str, seconds: float, count: int = 1) -> None:
        self._add_fault(path, _Fault("hold", seconds=seconds), count)

    def lose_answer_next(self, path: str, count: int = 1) -> None:
        self._add_fault(path, _Fault("lose"), count)

    def fail_next(self, path: str, count: int = 1) -> None:
        self._add_fault(path, _Fault("fail"), count)

    def refuse_next(self, path: str, status: str, count: int = 1) -> None:
        if status not in ERROR_STATUSES:
            raise ValueError(f"{status} is not an RS_ERROR_* status of the protocol")
        self._add_fault(path, _Fault("refuse", status=status), count)

    def sign_badly_next(self, path: str, count: int = 1) -> None:
        """Apply the next `count` requests to `path`, then sign the answer with a wrong key."""
        if self._wrong_key is None:
            self._wrong_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._add_fault(path, _Fault("sign_badly"), count)

    def _add_fault(self, path: str, fault: _Fault, count: int) -> None:
        if path not in self._faults:
            raise ValueError(f"{path} is not a wallet path: {', '.join(PATHS)}")
        with self._lock:
            self._faults[path].extend([fault] * count)

    def check(self) -> list[str]:
        """Violations, plus what is wrong at the end: open bets, unclosed rounds, money."""
        with self._lock:
            problems = list(self.violations)
            for bet in self._bets.values():
                if bet.state == "open":
                    problems.append(
                        f"bet {bet.transaction_uuid} of {bet.user} in round {bet.round} was "
                        "never ended (no win, no round close, no rollback)"
                    )
            unclosed = {
                (bet.user, bet.round)
                for bet in self._bets.values()
                if bet.state != "rolled_back" and (bet.user, bet.round) not in self._closed_rounds
            }
            problems.extend(
                f"round {round_id} of {user} was never closed (no win with round_closed true)"
                for user, round_id in sorted(unclosed)
            )
            for wallet, balance in self._wallets.items():
                expected = self._initial[wallet]
                for t in self._transactions:
                    if (t.user, t.currency) == wallet:
                        expected += -t.amount if t.kind == "bet" else t.amount
                if balance != expected:
                    problems.append(
                        f"money: {wallet[0]} holds {balance} {wallet[1]}, the transactions "
                        f"say {expected}"
                    )
            return problems

    # -- serving --------------------------------------------------------------------------

    async def start(self) -> None:
        # proto must say TCP: asyncio turns Nagle off only on sockets that do, and with Nagle
        # on every answer on a kept-alive connection waits ~40 ms for a delayed ACK.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        config = uvicorn.Config(
            self._app,
            interface="asgi3",
            lifespan="off",
            log_level="warning",
            access_log=False,
            http="h11",
            ws="none",
            timeout_graceful_shutdown=2,
        )
        server = uvicorn.Server(config)
        # Its own thread and loop: a game side that blocks its loop still gets answers.
        thread = threading.Thread(
            target=lambda: asyncio.run(server.serve(sockets=[sock])),
            name=f"hub88-operator-{port}",
            daemon=True,
        )
        self._server, self._thread = server, thread
        thread.start()
        while not server.started:
            if not thread.is_alive():
                sock.close()
                raise RuntimeError("the operator server did not start")
            await asyncio.sleep(0.005)
        self.base_url = f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        self._closing.set()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 10)

    async def _app(self, scope: _Message, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        headers: list[tuple[bytes, bytes]] = list(scope["headers"])
        record: dict[str, Any] = {
            "path": path,
            # every header as received (lower-case names; the last of a repeated one), for a
            # test to read what else the game side sends (trace context, say)
            "headers": {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in headers},
            "body": None,
            "signature_ok": False,
            "status": None,
            "http_status": 0,
        }
        with self._lock:
            self.requests.append(record)
        if scope["method"] != "POST" or path not in PATHS:
            self._violate(f"{scope['method']} {path} is not a wallet call")
            record["http_status"] = 404
            await self._send(send, 404, b'{"error":"not found"}')
            return

        # Over the bytes as received, before anything reads them.
        signature_ok = self._verify(path, headers, body)
        parsed = _parse_json(body)
        record["signature_ok"] = signature_ok
        record["body"] = parsed
        content_types = [v for k, v in headers if k.lower() == b"content-type"]
        media = content_types[0].split(b";")[0].strip().lower() if content_types else b""
        if media != b"application/json":
            self._violate(f"{path}: Content-Type {media.decode(errors='replace')!r} is not JSON")

        with self._lock:
            fault = self._faults[path].popleft() if self._faults[path] else None
        if fault is not None and fault.kind == "fail":
            record["http_status"] = 503
            await self._send(send, 503, b'{"error":"service unavailable"}')
            return
        if fault is not None and fault.kind == "refuse":
            answer = self._refused_answer(fault.status, parsed, signature_ok)
        else:
            answer = self._process(path, parsed, signature_ok)

        if fault is not None and fault.kind == "hold":
            deadline = time.monotonic() + fault.seconds
            while not self._closing.is_set() and (left := deadline - time.monotonic()) > 0:
                await asyncio.sleep(min(left, 0.02))
        if fault is not None and fault.kind == "lose":
            record["http_status"] = 500
            await self._send(send, 500, b'{"error":"internal server error"}')
            return
        encoded = json.dumps(answer, separators=(",", ":")).encode()
        record["status"] = answer["status"]
        record["http_status"] = 200
        wrong = fault is not None and fault.kind == "sign_badly"
        await self._send(send, 200, encoded, key=self._wrong_key if wrong else None)

    async def _send(
        self, send: _Send, status: int, body: bytes, key: rsa.RSAPrivateKey | None = None
    ) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (SIGNATURE_HEADER.lower().encode(), _sign(key or self._key, body)),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _verify(self, path: str, headers: list[tuple[bytes, bytes]], body: bytes) -> bool:
        values = [v for k, v in headers if k.lower() == SIGNATURE_HEADER.lower().encode()]
        if not values:
            self._violate(f"unsigned request: {path} had no {SIGNATURE_HEADER} header")
            return False
        if len(values) > 1:
            self._violate(f"bad signature: {path} had {len(values)} {SIGNATURE_HEADER} headers")
            return False
        try:
            signature = base64.b64decode(values[0], validate=True)
        except (binascii.Error, ValueError):
            self._violate(f"bad signature: {path} {SIGNATURE_HEADER} is not Base64")
            return False
        for key in self._game_keys:
            try:
                key.verify(signature, body, padding.PKCS1v15(), hashes.SHA256())
            except InvalidSignature:
                continue
            return True
        self._violate(f"bad signature: {path} body does not verify with any game key")
        return False

    def _violate(self, sentence: str) -> None:
        with self._lock:
            self.violations.append(sentence)

    # -- the protocol -------------------------------------------------------------------

    def _process(
        self, path: str, parsed: dict[str, Any] | None, signature_ok: bool
    ) -> dict[str, Any]:
        with self._lock:
            try:
                if not signature_ok:
                    raise _Refusal(RS_ERROR_INVALID_SIGNATURE)
                request = _parse_request(path, parsed)
                if path == BALANCE_PATH:
                    return self._on_balance(request)
                if path == BET_PATH:
                    return self._on_bet(request)
                if path == WIN_PATH:
                    return self._on_win(request)
                return self._on_rollback(request)
            except _Refusal as refusal:
                if refusal.violation is not None:
                    self.violations.append(refusal.violation)
                return self._error_answer(refusal.status, parsed, refusal.wallet)

    def _refused_answer(
        self, status: str, parsed: dict[str, Any] | None, signature_ok: bool
    ) -> dict[str, Any]:
        wallet: _Wallet | None = None
        token, user = (parsed or {}).get("token"), (parsed or {}).get("user")
        with self._lock:
            session = self._sessions.get(token) if isinstance(token, str) else None
            if signature_ok and session is not None and session.user == user:
                wallet = (session.user, session.currency)
            return self._error_answer(status, parsed, wallet)

    def _error_answer(
        self, status: str, parsed: dict[str, Any] | None, wallet: _Wallet | None
    ) -> dict[str, Any]:
        def echo(name: str) -> str:
            value = (parsed or {}).get(name)
            return value if isinstance(value, str) else ""

        return {
            "user": echo("user"),
            "status": status,
            "request_uuid": echo("request_uuid"),
            "currency": wallet[1] if wallet else echo("currency"),
            "balance": self._wallets[wallet] if wallet else 0,
        }

    def _ok(self, request: _Request, wallet: _Wallet) -> dict[str, Any]:
        return {
            "user": request.user,
            "status": RS_OK,
            "request_uuid": request.request_uuid,
            "currency": wallet[1],
            "balance": self._wallets[wallet],
        }

    def _session(self, request: _Request, *, owed: bool) -> _Wallet:
        """The wallet the token opens; `owed` (a win or rollback) accepts an expired token."""
        session = self._sessions.get(request.token)
        if session is None:
            # A player may present a stale token; a win or rollback carries the one we issued.
            raise _Refusal(
                RS_ERROR_INVALID_TOKEN,
                f"{request.path} {request.transaction_uuid}: a token the operator never issued"
                if owed
                else None,
            )
        if session.user != request.user:
            raise _Refusal(
                RS_ERROR_INVALID_TOKEN,
                f"{request.path}: the token belongs to {session.user}, the request names "
                f"{request.user}",
            )
        wallet = (session.user, session.currency)
        if request.currency is not None and request.currency != session.currency:
            raise _Refusal(
                RS_ERROR_WRONG_CURRENCY,
                f"{request.path} {request.transaction_uuid}: currency {request.currency}, "
                f"the token is bound to {session.currency}",
                wallet,
            )
        if session.expired and not owed:
            raise _Refusal(RS_ERROR_TOKEN_EXPIRED, None, wallet)
        return wallet

    def _repeat(self, request: _Request, wallet: _Wallet) -> Transaction | None:
        """The movement this transaction_uuid already made, if any; refuses a reuse."""
        uuid = request.transaction_uuid
        if uuid in self._tombstones:
            raise _Refusal(
                RS_ERROR_DUPLICATE_TRANSACTION,
                f"transaction_uuid {uuid} reused: a rollback already named it as a bet",
                wallet,
            )
        previous = self._applied.get(uuid)
        if previous is None:
            return None
        identity, transaction = previous
        if identity != request.identity():
            raise _Refusal(
                RS_ERROR_DUPLICATE_TRANSACTION,
                f"transaction_uuid {uuid} reused with other data: first a {transaction.kind}, "
                f"now {request.path} {request.identity()!r}",
                wallet,
            )
        return transaction

    def _record(
        self, request: _Request, kind: Kind, amount: int, currency: str, tombstone: bool = False
    ) -> None:
        transaction = Transaction(
            kind=kind,
            transaction_uuid=request.transaction_uuid,
            reference_transaction_uuid=request.reference_transaction_uuid or None,
            user=request.user,
            round=request.round,
            amount=amount,
            currency=currency,
            round_closed=request.round_closed,
            tombstone=tombstone,
            balance_after=self._wallets[(request.user, currency)],
        )
        self._transactions.append(transaction)
        self._applied[request.transaction_uuid] = (request.identity(), transaction)

    def _on_balance(self, request: _Request) -> dict[str, Any]:
        return self._ok(request, self._session(request, owed=False))

    def _on_bet(self, request: _Request) -> dict[str, Any]:
        wallet = self._session(request, owed=False)
        uuid = request.transaction_uuid
        if uuid in self._tombstones:
            rollback_uuid, user = self._tombstones[uuid]
            if user != request.user:
                self.violations.append(
                    f"bet {uuid} of {request.user} was rolled back earlier by {rollback_uuid} "
                    f"for {user}"
                )
            raise _Refusal(RS_ERROR_TRANSACTION_ROLLED_BACK, None, wallet)
        if self._repeat(request, wallet) is not None:
            self.violations.append(
                f"bet {uuid} sent again: a bet is never retried (on no answer it is rolled back)"
            )
            if self._bets[uuid].state == "rolled_back":
                raise _Refusal(RS_ERROR_TRANSACTION_ROLLED_BACK, None, wallet)
            return self._ok(request, wallet)
        if self._wallets[wallet] < request.amount:
            raise _Refusal(RS_ERROR_NOT_ENOUGH_MONEY, None, wallet)
        if (request.user, request.round) in self._closed_rounds:
            self.violations.append(
                f"bet {uuid} arrived for round {request.round} of {request.user}, already closed"
            )
        if request.round_closed:
            self.violations.append(
                f"bet {uuid} has round_closed true: only the closing win may close a round, "
                "every bet is still owed its win or rollback"
            )
        self._wallets[wallet] -= request.amount
        self._bets[uuid] = _BetRecord(uuid, request.user, request.round, request.amount, wallet[1])
        self._record(request, "bet", request.amount, wallet[1])
        return self._ok(request, wallet)

    def _ended_bet(self, request: _Request, wallet: _Wallet) -> _BetRecord:
        """The bet a win or rollback names, refusing what it may not name."""
        ref, uuid, what = request.reference_transaction_uuid, request.transaction_uuid, request.path
        bet = self._bets.get(ref)
        if bet is None:
            raise _Refusal(
                RS_ERROR_TRANSACTION_DOES_NOT_EXIST,
                f"{what} {uuid} names {ref}, not a bet the operator holds",
                wallet,
            )
        if bet.user != request.user:
            raise _Refusal(
                RS_ERROR_TRANSACTION_DOES_NOT_EXIST,
                f"{what} {uuid} for {request.user} names bet {ref} of {bet.user}",
                wallet,
            )
        if bet.currency != wallet[1]:
            raise _Refusal(
                RS_ERROR_WRONG_CURRENCY,
                f"{what} {uuid} in {wallet[1]} names bet {ref} in {bet.currency}",
                wallet,
            )
        if bet.round != request.round:
            raise _Refusal(
                RS_ERROR_UNKNOWN,
                f"{what} {uuid} for round {request.round} names bet {ref} of round {bet.round}",
                wallet,
            )
        return bet

    def _on_win(self, request: _Request) -> dict[str, Any]:
        wallet = self._session(request, owed=True)
        if self._repeat(request, wallet) is not None:
            return self._ok(request, wallet)
        uuid, ref = request.transaction_uuid, request.reference_transaction_uuid
        if ref in self._tombstones:
            raise _Refusal(
                RS_ERROR_TRANSACTION_ROLLED_BACK,
                f"win names a rolled-back bet: win {uuid} names {ref}, rolled back by "
                f"{self._tombstones[ref][0]}",
                wallet,
            )
        bet = self._ended_bet(request, wallet)
        if bet.state == "rolled_back":
            raise _Refusal(
                RS_ERROR_TRANSACTION_ROLLED_BACK,
                f"win names a rolled-back bet: win {uuid} names {ref}, rolled back by "
                f"{bet.ended_by[0]}",
                wallet,
            )
        if bet.state != "open":
            raise _Refusal(
                RS_ERROR_UNKNOWN,
                f"bet ended twice: win {uuid} names bet {ref}, already {bet.state} by "
                f"{bet.ended_by[0]}",
                wallet,
            )
        player_round = (request.user, request.round)
        if player_round in self._closed_rounds:
            self.violations.append(
                f"win {uuid} arrived for round {request.round} of {request.user}, already closed"
            )
        self._wallets[wallet] += request.amount
        bet.state = "won"
        bet.ended_by.append(uuid)
        if request.round_closed:
            for other in self._bets.values():
                if other.state == "open" and (other.user, other.round) == player_round:
                    other.state = "closed_by_round"
                    other.ended_by.append(uuid)
            self._closed_rounds.add(player_round)
        self._record(request, "win", request.amount, wallet[1])
        return self._ok(request, wallet)

    def _on_rollback(self, request: _Request) -> dict[str, Any]:
        wallet = self._session(request, owed=True)
        if self._repeat(request, wallet) is not None:
            return self._ok(request, wallet)
        uuid, ref = request.transaction_uuid, request.reference_transaction_uuid
        if (request.user, request.round) in self._closed_rounds:
            self.violations.append(
                f"rollback after the round was closed: rollback {uuid} of {ref} in round "
                f"{request.round} of {request.user}"
            )
        if ref in self._tombstones:
            raise _Refusal(
                RS_ERROR_TRANSACTION_ROLLED_BACK,
                f"bet ended twice: rollback {uuid} names {ref}, already rolled back by "
                f"{self._tombstones[ref][0]}",
                wallet,
            )
        if ref not in self._applied:
            # The bet may still be on its way: remember the id so it is refused on arrival.
            self._tombstones[ref] = (uuid, request.user)
            self._record(request, "rollback", 0, wallet[1], tombstone=True)
            return self._ok(request, wallet)
        bet = self._ended_bet(request, wallet)
        if bet.state == "rolled_back":
            raise _Refusal(
                RS_ERROR_TRANSACTION_ROLLED_BACK,
                f"bet ended twice: rollback {uuid} names {ref}, already rolled back by "
                f"{bet.ended_by[0]}",
                wallet,
            )
        if bet.state != "open":
            raise _Refusal(
                RS_ERROR_UNKNOWN,
                f"rollback of a settled bet: rollback {uuid} names {ref}, already {bet.state} "
                f"by {bet.ended_by[0]}",
                wallet,
            )
        self._wallets[wallet] += bet.amount
        bet.state = "rolled_back"
        bet.ended_by.append(uuid)
        self._record(request, "rollback", bet.amount, wallet[1])
        return self._ok(request, wallet)


@contextlib.asynccontextmanager
async def hub88_operator(game_public_keys_pem: Sequence[str]) -> AsyncIterator[Hub88Operator]:
    """A running operator that trusts `game_public_keys_pem` (two during a key rollover)."""
    key = await asyncio.to_thread(rsa.generate_private_key, public_exponent=65537, key_size=2048)
    operator = Hub88Operator(game_public_keys_pem, private_key=key)
    await operator.start()
    try:
        yield operator
    finally:
        await operator.stop()
