"""Our own HTTP/1.1 client of operators' wallets (teenpatti.seamless.http11) over real
sockets, against wallet servers written here byte by byte with asyncio's streams, so that
each edge a connection can reach is reached on purpose: kept-alive connections reused, one
the server closed never written to, a request whose connection dies after it was sent
answered as no answer and never sent again, a late answer never read as the next one's, the
cap, redirects, interim answers, chunks, TLS verified, the pool's limit."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from teenpatti.seamless.calls import Answered, BadAnswer, BetCall, NoAnswer, WinCall
from teenpatti.seamless.client import MAX_ANSWER_BYTES, OperatorWalletClient
from teenpatti.seamless.config import OperatorConfig, WalletMode
from teenpatti.seamless.http11 import Http11Transport
from teenpatti.seamless.signing import (
    SIGNATURE_HEADER,
    generate_private_key,
    load_private_key,
    public_key_pem,
    sign,
)
from tests.counterparts.hub88_operator import hub88_operator

pytestmark = pytest.mark.timeout(60)

VECTORS = Path(__file__).parents[2] / "unit" / "seamless" / "vectors"
OPERATOR_KEY = load_private_key((VECTORS / "private.pem").read_bytes())
GAME_KEY = generate_private_key()
BET = BetCall(
    user="p1", token="t", transaction_uuid="slip-1", round="R1", amount=100, currency="INR"
)

Fields = dict[str, Any]
# how the server answers its n-th request (from 1): writes to the writer, returns whether the
# connection is kept open
Behaviour = Callable[[int, Fields, asyncio.StreamWriter], Awaitable[bool]]


def answer_body(fields: Fields, status: str = "RS_OK") -> bytes:
    return json.dumps(
        {
            "user": fields["user"],
            "status": status,
            "request_uuid": fields["request_uuid"],
            "currency": "INR",
            "balance": 10_000_000,
        }
    ).encode()


def signed(body: bytes, *, status_line: bytes = b"HTTP/1.1 200 OK", extra: bytes = b"") -> bytes:
    """An answer with its length and the operator's signature."""
    return (
        status_line
        + b"\r\nContent-Type: application/json\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n"
        + SIGNATURE_HEADER.encode()
        + b": "
        + sign(OPERATOR_KEY, body).encode()
        + b"\r\n"
        + extra
        + b"\r\n"
        + body
    )


async def answers(n: int, fields: Fields, writer: asyncio.StreamWriter) -> bool:
    writer.write(signed(answer_body(fields)))
    await writer.drain()
    return True


@dataclass
class RawWallet:
    """A wallet server on a free local port: reads each request (head and Content-Length
    body), records it and lets `behaviour` answer."""

    behaviour: Behaviour = answers
    requests: list[Fields] = field(default_factory=list)
    connections: int = 0
    open_now: int = 0
    most_open: int = 0
    released: asyncio.Event = field(default_factory=asyncio.Event)
    base_url: str = ""

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open_now += 1
        self.most_open = max(self.most_open, self.open_now)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                fields = json.loads(await reader.readexactly(length))
                self.requests.append(fields)
                if not await self.behaviour(len(self.requests), fields, writer):
                    return
        except ConnectionError:
            return
        finally:
            self.open_now -= 1
            writer.close()


@asynccontextmanager
async def serving(
    behaviour: Behaviour = answers, tls: ssl.SSLContext | None = None
) -> AsyncIterator[RawWallet]:
    wallet = RawWallet(behaviour)
    server = await asyncio.start_server(wallet.serve, "127.0.0.1", 0, ssl=tls)
    port = server.sockets[0].getsockname()[1]
    wallet.base_url = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    try:
        yield wallet
    finally:
        wallet.released.set()
        server.close()
        await server.wait_closed()


def config(base_url: str, timeout: float = 5.0) -> OperatorConfig:
    return OperatorConfig(
        operator_id="op-http11",
        mode=WalletMode.SEAMLESS,
        base_url=base_url,
        public_keys=(public_key_pem(OPERATOR_KEY).decode(),),
        timeout_seconds=timeout,
    )


def client(max_connections: int = 8, tls: ssl.SSLContext | None = None) -> OperatorWalletClient:
    return OperatorWalletClient(
        GAME_KEY, http=Http11Transport(max_connections=max_connections, ssl_context=tls)
    )


def win(n: int) -> WinCall:
    return WinCall("p1", "t", f"win-{n}", "slip-1", "R1", 100, "INR")


async def test_calls_one_after_another_share_one_kept_alive_connection() -> None:
    async with serving() as wallet, client() as opened:
        outcomes = [await opened.win(config(wallet.base_url), win(n)) for n in range(5)]
    assert all(isinstance(outcome, Answered) and outcome.ok for outcome in outcomes)
    assert (len(wallet.requests), wallet.connections) == (5, 1)


async def test_a_connection_the_operator_closed_while_idle_is_not_written_to() -> None:
    closed = asyncio.Event()

    async def answers_then_closes(n: int, fields: Fields, writer: asyncio.StreamWriter) -> bool:
        # keep-alive promised (HTTP/1.1, no `Connection: close`), then the server's idle
        # timeout closes it
        await answers(n, fields, writer)
        writer.close()
        await writer.wait_closed()
        closed.set()
        return False

    async with serving(answers_then_closes) as wallet, client() as opened:
        first = await opened.bet(config(wallet.base_url), BET)
        await closed.wait()
        # the client's loop may not have read the EOF yet: it must find it before writing
        second = await opened.bet(config(wallet.base_url), BET)
    assert isinstance(first, Answered) and isinstance(second, Answered)
    assert second.request_uuid == wallet.requests[1]["request_uuid"]
    assert (len(wallet.requests), wallet.connections) == (2, 2)


async def test_a_connection_that_dies_after_the_request_was_sent_is_no_answer_sent_once() -> None:
    async def reads_then_dies(n: int, fields: Fields, writer: asyncio.StreamWriter) -> bool:
        if n == 1:
            return await answers(n, fields, writer)
        return False  # the operator received the bet, then its connection ended

    async with serving(reads_then_dies) as wallet, client() as opened:
        assert isinstance(await opened.bet(config(wallet.base_url), BET), Answered)
        outcome = await opened.bet(config(wallet.base_url), BET)
    # the bet may have been applied: no answer, never sent again by the client
    assert isinstance(outcome, NoAnswer), outcome
    assert outcome.reason == "unreadable"
    assert "before any answer" in outcome.detail
    assert len(wallet.requests) == 2


async def test_an_answer_that_comes_after_the_deadline_is_never_read_as_the_next_one() -> None:
    async def holds_the_first(n: int, fields: Fields, writer: asyncio.StreamWriter) -> bool:
        if n == 1:
            await wallet.released.wait()
        return await answers(n, fields, writer)

    async with serving(holds_the_first) as wallet, client(max_connections=1) as opened:
        held = await opened.bet(config(wallet.base_url, timeout=0.3), BET)
        wallet.released.set()  # its answer now goes out on the connection given up
        after = await opened.bet(config(wallet.base_url), BET)
    assert isinstance(held, NoAnswer) and held.reason == "timeout"
    assert isinstance(after, Answered), after
    assert after.request_uuid == wallet.requests[1]["request_uuid"]
    assert wallet.connections == 2


async def test_bytes_nobody_asked_for_on_an_idle_connection_retire_it() -> None:
    async def answers_and_babbles(n: int, fields: Fields, writer: asyncio.StreamWriter) -> bool:
        writer.write(signed(answer_body(fields)) + b"HTTP/1.1 200 OK\r\n")
        await writer.drain()
        return True

    async with serving(answers_and_babbles) as wallet, client() as opened:
        outcomes = [await opened.bet(config(wallet.base_url), BET) for _ in range(2)]
    assert all(isinstance(outcome, Answered) for outcome in outcomes), outcomes
    assert wallet.connections == 2


@pytest.mark.parametrize("chunked", [False, True])
async def test_an_answer_over_the_cap_ends_the_attempt_without_reading_the_rest(
    chunked: bool,
) -> None:
    async def floods(n: int, fields: Fields, writer: asyncio.StreamWriter) -> bool:
        framing = b"Transfer-Encoding: chunked" if chunked else b"Content-Length: 100000000"
        writer.write(b"HTTP/1.1 200 OK\r\n" + framing + b"\r\n\r\n")
        part = b" " * (MAX_ANSWER_BYTES + 1)
        writer.write(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
        await writer.drain()
        await wallet.released.wait()  # the rest never comes: only the cap can end it
        return False

    async with serving(floods) as wallet, client() as opened:
        outcome = await opened.bet(config(wallet.base_url, timeout=10), BET)
    assert isinstance(outcome, BadAnswer), outcome
    assert outcome.reason == "oversized"


async def test_an_error_page_is_cut_to_its_beginning() -> None:
    async def fails_at_length(n: int, fields: Fields, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 100000000\r\n\r\n")
        writer.write(b"down " * 1_000)
        await writer.drain()
        await wallet.released.wait()
        return False

    async with serving(fails_at_length) as wallet, client() as opened:
        outcome = await opened.bet(config(wallet.base_url, timeout=10), BET)
    assert isinstance(outcome, NoAnswer), outcome
    assert outcome.reason == "http_status"
    assert outcome.detail.startswith("HTTP 503: down down")
    assert len(outcome.detail) < 400


async def test_a_redirect_is_not_followed() -> None:
    async def redirects(n: int, fields: Fields, writer: asyncio.StreamWriter) -> bool:
        location = f"{wallet.base_url}/elsewhere".encode()
        writer.write(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: " + location)
        writer.write(b"\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        return True

    async with serving(redirects) as wallet, client() as opened:
        outcome = await opened.bet(config(wallet.base_url), BET)
    assert isinstance(outcome, NoAnswer) and outcome.detail == "HTTP 307"
    assert len(wallet.requests) == 1


async def test_an_interim_answer_chunks_and_an_answer_ended_by_its_connection_are_read() -> None:
    async def in_three_ways(n: int, fields: Fields, writer: asyncio.StreamWriter) -> bool:
        body = answer_body(fields)
        signature = SIGNATURE_HEADER.encode() + b": " + sign(OPERATOR_KEY, body).encode()
        if n == 1:  # an interim answer first, then the answer
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n" + signed(body))
        elif n == 2:  # in chunks
            writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n" + signature)
            chunks = b"5\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (body[:5], len(body) - 5, body[5:])
            writer.write(b"\r\n\r\n" + chunks)
        else:  # neither length nor chunks: the answer ends with its connection
            writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n" + signature + b"\r\n\r\n")
            writer.write(body)
            await writer.drain()
            return False
        await writer.drain()
        return True

    async with serving(in_three_ways) as wallet, client() as opened:
        outcomes = [await opened.bet(config(wallet.base_url), BET) for _ in range(3)]
    assert all(isinstance(outcome, Answered) and outcome.ok for outcome in outcomes), outcomes
    assert [outcome.request_uuid for outcome in outcomes] == [
        request["request_uuid"] for request in wallet.requests
    ]


async def test_no_more_connections_than_the_limit_and_every_call_answered() -> None:
    async def slowly(n: int, fields: Fields, writer: asyncio.StreamWriter) -> bool:
        await asyncio.sleep(0.01)  # so that calls pile up behind the limit
        return await answers(n, fields, writer)

    async with serving(slowly) as wallet, client(max_connections=2) as opened:
        outcomes = await asyncio.gather(
            *(opened.win(config(wallet.base_url), win(n)) for n in range(12))
        )
    assert all(isinstance(outcome, Answered) for outcome in outcomes)
    assert len(wallet.requests) == 12
    assert wallet.most_open <= 2


async def test_a_url_with_a_user_or_password_is_not_called() -> None:
    async with serving() as wallet, client() as opened:
        with_secret = wallet.base_url.replace("http://", "http://user:secret@")
        outcome = await opened.bet(config(with_secret), BET)
    assert isinstance(outcome, NoAnswer) and outcome.reason == "connection"
    assert "no user or password" in outcome.detail
    assert "secret" not in outcome.detail
    assert wallet.requests == []


def certificate(folder: Path) -> tuple[Path, Path, bytes]:
    """A self-signed certificate for 127.0.0.1: its file, its key's file and its PEM."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "operator.test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    pem = cert.public_bytes(serialization.Encoding.PEM)
    (folder / "cert.pem").write_bytes(pem)
    (folder / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return folder / "cert.pem", folder / "key.pem", pem


async def test_https_is_verified_and_a_certificate_nobody_vouches_for_is_refused(
    tmp_path: Path,
) -> None:
    cert, key, pem = certificate(tmp_path)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    async with serving(tls=tls) as wallet:
        async with client() as untrusting:
            refused = await untrusting.bet(config(wallet.base_url), BET)
        async with client(tls=ssl.create_default_context(cadata=pem.decode())) as trusting:
            answered = await trusting.bet(config(wallet.base_url), BET)
    assert isinstance(refused, NoAnswer) and refused.reason == "connection"
    assert "CERTIFICATE_VERIFY_FAILED" in refused.detail
    assert isinstance(answered, Answered) and answered.ok
    assert len(wallet.requests) == 1  # the refused one sent nothing


async def test_the_deadline_bounds_a_tls_handshake_that_never_ends() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # accepts, never speaks TLS

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with client() as opened:
            outcome = await opened.bet(config(f"https://127.0.0.1:{port}", timeout=0.3), BET)
    finally:
        server.close()
        await server.wait_closed()
    assert isinstance(outcome, NoAnswer) and outcome.reason == "timeout"


async def test_a_win_held_past_the_deadline_is_applied_once_and_its_repeat_answered() -> None:
    """Against the independent counterpart: the held win's connection is given up, the
    caller's repeat (a win is retried until RS_OK, with the same transaction_uuid) goes on a
    connection of its own and is answered as a repeat; the operator applied the win once."""
    async with hub88_operator([public_key_pem(GAME_KEY).decode()]) as operator:
        token = operator.add_player("p-held", "INR", 10_000_000)
        settings = OperatorConfig(
            operator_id="op-held",
            mode=WalletMode.SEAMLESS,
            base_url=operator.base_url,
            public_keys=(operator.public_key_pem,),
            timeout_seconds=0.5,
        )
        patient = settings.model_copy(update={"timeout_seconds": 5.0})
        bet = BetCall("p-held", token, "slip-held", "R1", 356, "INR")
        won = WinCall("p-held", token, "win-held", "slip-held", "R1", 712, "INR", True)
        async with client(max_connections=1) as opened:
            placed = await opened.bet(patient, bet)
            operator.hold_next("/transaction/win", 2.0)
            held = await opened.win(settings, won)
            repeated = await opened.win(patient, won)
        assert isinstance(placed, Answered) and placed.ok, placed
        assert isinstance(held, NoAnswer) and held.reason == "timeout"
        assert isinstance(repeated, Answered) and repeated.ok, repeated
        assert repeated.balance == 10_000 + 356
        applied = [t.transaction_uuid for t in operator.transactions("p-held")]
        assert applied == ["slip-held", "win-held"]
        assert operator.check() == []
