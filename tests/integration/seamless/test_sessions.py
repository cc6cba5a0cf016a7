"""Player sessions and launch, on the real stack (the wallet in-process): an operator opens a
session, the launch URL's single-use ticket is exchanged for the session token, the player
places slips and reads its own bets and balance with it, never anyone else's; an ended,
expired or unknown session gets one answer."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit
from uuid import uuid4

import asyncpg
import httpx
import pytest
import uvicorn

from teenpatti.seamless.signing import (
    PrivateKey,
    generate_private_key,
    private_key_pem,
    public_key_pem,
)
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.databases import create_database, drop_database
from teenpatti_tools.devrun import free_port
from teenpatti_tools.operator.app import ADMIN_TOKEN_HEADER, OperatorServerConfig
from teenpatti_tools.operator.app import create_app as create_operator_app
from tests.integration.wallet.helpers import (
    OPERATOR_1,
    OPERATOR_2,
    balances,
    deposit,
    open_round,
    place,
    wallet,
)
from wallet_service.config import WalletSettings

OPERATOR_ADMIN_TOKEN = "test-operator-admin-token"


@pytest.fixture
def wallet_settings(settings: InfrastructureSettings, database_name: str) -> WalletSettings:
    return WalletSettings(
        **settings.model_dump(),
        wallet_database=database_name,
        player_view_url="https://play.example",
    )


@asynccontextmanager
async def wallet_database(settings: WalletSettings) -> AsyncIterator[asyncpg.Connection]:
    """The wallet's database as the wallet's own role (it owns the sessions' table)."""
    own = settings.as_principal("wallet")
    connection = await asyncpg.connect(own.postgres_dsn(own.wallet_database), timeout=15)
    try:
        yield connection
    finally:
        await connection.close()


async def open_session(
    client: httpx.AsyncClient,
    player_id: str = "p1",
    *,
    currency: str = "INR",
    table_id: str = "T1",
    headers: dict[str, str] = OPERATOR_1,
    **more: Any,
) -> dict[str, Any]:
    response = await client.post(
        "/sessions",
        json={
            "token": f"operator-token-{player_id}",
            "player_id": player_id,
            "currency": currency,
            "table_id": table_id,
            **more,
        },
        headers=headers,
    )
    assert response.status_code == 201, response.text
    opened: dict[str, Any] = response.json()
    return opened


def ticket_of(opened: dict[str, Any]) -> str:
    return str(parse_qs(urlsplit(opened["launch_url"]).query)["ticket"][0])


async def launch(client: httpx.AsyncClient, opened: dict[str, Any]) -> dict[str, str]:
    """The player view's launch: the ticket for the session's header."""
    response = await client.post("/sessions/launch", json={"ticket": ticket_of(opened)})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Session {response.json()['session_token']}"}


async def player_slip(
    client: httpx.AsyncClient,
    session: dict[str, str],
    round_id: str,
    bets: list[tuple[str, int]],
    *,
    key: str | None = None,
    **more: Any,
) -> httpx.Response:
    return await client.post(
        "/bets",
        json={
            "round_id": round_id,
            "bets": [{"bet_type": bet_type, "stake": stake} for bet_type, stake in bets],
            **more,
        },
        headers={**session, "Idempotency-Key": key or str(uuid4())},
    )


async def test_an_operator_opens_a_session_and_its_launch_ticket_opens_it_once(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        opened = await open_session(client, "p1", language="ja")
        url = urlsplit(opened["launch_url"])
        assert (url.scheme, url.netloc, url.path) == ("https", "play.example", "/play/T1")
        query = parse_qs(url.query)
        assert query["lang"] == ["ja"]
        assert set(query) == {"ticket", "lang"}  # nothing long-lived in the URL
        shown = await client.get(f"/sessions/{opened['session_id']}", headers=OPERATOR_1)
        assert shown.status_code == 200, shown.text
        assert shown.json()["status"] == "not_launched"
        assert (shown.json()["player_id"], shown.json()["language"]) == ("p1", "ja")

        launched = await client.post("/sessions/launch", json={"ticket": ticket_of(opened)})
        assert launched.status_code == 200, launched.text
        body = launched.json()
        assert body["session_id"] == opened["session_id"]
        assert body["token_type"] == "Session"
        assert body["session_token"].startswith(f"tps_{opened['session_id'].replace('-', '')}_")
        assert (body["player_id"], body["currency"], body["table_id"]) == ("p1", "INR", "T1")

        # the ticket is spent: a second launch, even at once, is refused
        again = await client.post("/sessions/launch", json={"ticket": ticket_of(opened)})
        assert again.status_code == 401
        assert again.json()["code"] == "invalid_ticket"

        me = await client.get("/me", headers={"Authorization": f"Session {body['session_token']}"})
        assert me.status_code == 200, me.text
        assert me.json()["player_id"] == "p1"
        assert me.json()["session_id"] == opened["session_id"]
        shown = await client.get(f"/sessions/{opened['session_id']}", headers=OPERATOR_1)
        assert shown.json()["status"] == "active"
        assert shown.json()["launched_at"] is not None

        # only its SHA-256 is kept: neither the ticket nor the token is in the database
        async with wallet_database(wallet_settings) as connection:
            row = await connection.fetchrow(
                "SELECT * FROM wallet_sessions WHERE session_id = $1::uuid",
                opened["session_id"],
            )
        assert row is not None
        stored = " ".join(str(value) for value in row.values())
        assert body["session_token"].rpartition("_")[2] not in stored
        assert ticket_of(opened)[4:] not in stored
        assert row["ticket_sha256"] is None  # spent
        assert row["operator_token"] == "operator-token-p1"


async def test_a_player_bets_and_reads_only_its_own_bets_and_balance(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await deposit(client, "p1", 5_000)
        await deposit(client, "p2", 5_000)
        await open_round(wallet_settings, client, "T1-1")
        await open_round(wallet_settings, client, "T2-1", table_id="T2")
        p1 = await launch(client, await open_session(client, "p1"))

        slip = await player_slip(client, p1, "T1-1", [("player_a", 300), ("tie", 100)], key="k1")
        assert slip.status_code == 201, slip.text
        assert (slip.json()["player_id"], slip.json()["currency"]) == ("p1", "INR")
        assert slip.json()["balance"] == 4_600
        # its own retry is the same answer; nothing moves twice
        retried = await player_slip(client, p1, "T1-1", [("player_a", 300), ("tie", 100)], key="k1")
        assert retried.status_code == 201
        assert retried.json() == slip.json()
        # the player's Idempotency-Key is its own: the operator's "k1" is another slip
        operators = await place(client, "p1", "T1-1", [("player_b", 200)], key="k1")
        assert operators.status_code == 201, operators.text
        assert operators.json()["slip_id"] != slip.json()["slip_id"]
        assert await balances(client, "p1") == {"INR": 4_400}

        # naming itself is allowed; naming anyone or anything else is not
        own = await player_slip(
            client, p1, "T1-1", [("player_b", 100)], player_id="p1", currency="INR"
        )
        assert own.status_code == 201, own.text
        for more, round_id, what in (
            ({"player_id": "p2"}, "T1-1", "player p2"),
            ({"currency": "EUR"}, "T1-1", "in EUR"),
            ({}, "T2-1", "round T2-1 is not of table T1"),
            ({"token": "another-token"}, "T1-1", "names no token"),
        ):
            refused = await player_slip(client, p1, round_id, [("player_a", 100)], **more)
            assert refused.status_code == 422, refused.text
            assert refused.json()["code"] == "session_mismatch"
            assert what in refused.json()["detail"]
        assert await balances(client, "p2") == {"INR": 5_000}
        assert await balances(client, "p1") == {"INR": 4_300}

        balance = await client.get("/me/balance", headers=p1)
        assert balance.status_code == 200, balance.text
        assert balance.json() == {"currency": "INR", "balance": 4_300}

        p2_slip = await place(client, "p2", "T1-1", [("player_a", 500)])
        assert p2_slip.status_code == 201, p2_slip.text
        mine = await client.get("/me/bets", headers=p1, params={"limit": 2})
        assert mine.status_code == 200, mine.text
        seen = list(mine.json()["items"])
        cursor = mine.json()["next_cursor"]
        while cursor is not None:
            page = await client.get("/me/bets", headers=p1, params={"limit": 2, "cursor": cursor})
            seen.extend(page.json()["items"])
            cursor = page.json()["next_cursor"]
        assert {bet["player_id"] for bet in seen} == {"p1"}
        assert len(seen) == 4  # two in its slip, the operator's one for it, and its last one
        one = await client.get(f"/me/bets/{seen[0]['bet_id']}", headers=p1)
        assert one.status_code == 200
        assert one.json() == seen[0]
        # another player's bet is as unknown as one that does not exist
        theirs = await client.get(f"/me/bets/{p2_slip.json()['bets'][0]['bet_id']}", headers=p1)
        nothing = await client.get(f"/me/bets/{uuid4()}", headers=p1)
        assert theirs.status_code == nothing.status_code == 404
        assert theirs.json()["code"] == nothing.json()["code"] == "unknown_bet"

        # the player's session opens none of the operator's routes
        operator_route = await client.get("/players/p2/balances", headers=p1)
        assert operator_route.status_code == 401
        assert operator_route.json()["code"] == "missing_api_key"
        # an operator's slip still names its player and currency
        unnamed = await player_slip(client, OPERATOR_1, "T1-1", [("player_a", 100)])
        assert unnamed.status_code == 422, unnamed.text
        assert unnamed.json()["code"] == "invalid_request"
        assert unnamed.json()["errors"][0]["field"] == "body.player_id"
        both = await player_slip(client, {**p1, **OPERATOR_1}, "T1-1", [("player_a", 100)])
        assert both.status_code == 400
        assert both.json()["code"] == "ambiguous_credentials"


async def test_an_ended_expired_or_unknown_session_gets_one_answer(
    wallet_settings: WalletSettings, caplog: pytest.LogCaptureFixture
) -> None:
    async with wallet(wallet_settings) as client:
        await deposit(client, "p1", 1_000)
        await open_round(wallet_settings, client, "T1-1")
        ended = await open_session(client, "p1")
        ended_session = await launch(client, ended)
        expired = await open_session(client, "p1")
        expired_session = await launch(client, expired)
        assert (await client.get("/me", headers=ended_session)).status_code == 200

        # another operator's session: as unknown as one that does not exist
        for method in ("GET", "DELETE"):
            for session_id, headers in (
                (ended["session_id"], OPERATOR_2),
                (str(uuid4()), OPERATOR_1),
            ):
                response = await client.request(method, f"/sessions/{session_id}", headers=headers)
                assert response.status_code == 404, response.text
                assert response.json()["code"] == "unknown_session"
        assert (await client.get("/me", headers=ended_session)).status_code == 200

        first_end = await client.delete(f"/sessions/{ended['session_id']}", headers=OPERATOR_1)
        assert first_end.status_code == 200, first_end.text
        assert first_end.json()["status"] == "ended"
        second_end = await client.delete(f"/sessions/{ended['session_id']}", headers=OPERATOR_1)
        assert second_end.json()["ended_at"] == first_end.json()["ended_at"]

        async with wallet_database(wallet_settings) as connection:
            await connection.execute(
                "UPDATE wallet_sessions SET expires_at = now() - interval '1 second'"
                " WHERE session_id = $1::uuid",
                expired["session_id"],
            )
        shown = await client.get(f"/sessions/{expired['session_id']}", headers=OPERATOR_1)
        assert shown.json()["status"] == "expired"

        token = ended_session["Authorization"].removeprefix("Session ")
        forged = token[:-1] + ("0" if token[-1] != "0" else "1")
        caplog.set_level(logging.WARNING)
        answers = []
        for headers in (
            ended_session,
            expired_session,
            {"Authorization": f"Session {forged}"},  # its session, not its secret
            {"Authorization": f"Session tps_{uuid4().hex}_{'0' * 64}"},
            {"Authorization": "Session not-a-token"},
            {"Authorization": f"Bearer {token}"},
            {},
        ):
            for method, path in (("GET", "/me"), ("GET", "/me/bets"), ("GET", "/me/balance")):
                response = await client.request(method, path, headers=headers)
                assert response.status_code == 401, (headers, response.text)
                answers.append((response.json()["code"], response.json()["detail"]))
            slip = await player_slip(client, headers, "T1-1", [("player_a", 100)])
            assert slip.status_code == 401, slip.text
            if headers.get("Authorization", "").startswith("Session "):  # else the key's 401
                answers.append((slip.json()["code"], slip.json()["detail"]))
        assert set(answers) == {
            ("invalid_session", "the session is not known, has expired or was ended")
        }
        assert await balances(client, "p1") == {"INR": 1_000}  # no slip went through

        # each refusal is logged with its reason and the session's id, never the secret
        reasons = {getattr(record, "auth_reason", None) for record in caplog.records}
        assert {"session_ended", "session_expired", "session_unknown", "session_malformed"} <= (
            reasons
        )
        assert not any(token.rpartition("_")[2] in record.getMessage() for record in caplog.records)
        assert any(ended["session_id"] in record.getMessage() for record in caplog.records)


async def test_a_launch_ticket_is_refused_when_late_used_or_its_session_ended(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        late = await open_session(client, "p1")
        ended = await open_session(client, "p1")
        async with wallet_database(wallet_settings) as connection:
            await connection.execute(
                "UPDATE wallet_sessions SET ticket_expires_at = now() - interval '1 second'"
                " WHERE session_id = $1::uuid",
                late["session_id"],
            )
        assert (await client.delete(f"/sessions/{ended['session_id']}", headers=OPERATOR_1)).json()[
            "status"
        ] == "ended"
        for ticket in (
            ticket_of(late),
            ticket_of(ended),
            "tpl_" + "0" * 64,
            "not-a-ticket",
        ):
            response = await client.post("/sessions/launch", json={"ticket": ticket})
            assert response.status_code == 401, response.text
            assert response.json()["code"] == "invalid_ticket"
        for session in (late, ended):
            shown = await client.get(f"/sessions/{session['session_id']}", headers=OPERATOR_1)
            assert shown.json()["launched_at"] is None

        # two launches with one ticket at once: one token
        raced = await open_session(client, "p1")
        answers = await asyncio.gather(
            *(client.post("/sessions/launch", json={"ticket": ticket_of(raced)}) for _ in range(4))
        )
        assert sorted(answer.status_code for answer in answers) == [200, 401, 401, 401]


async def test_a_session_with_bad_input_is_refused_and_nothing_is_opened(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        for change, field in (
            ({"language": "de"}, "body.language"),
            ({"table_id": "T 1"}, "body.table_id"),
            ({"currency": "inr"}, "body.currency"),
            ({"player_id": "a:b"}, "body.player_id"),
            ({"token": ""}, "body.token"),
            ({"token": None}, "body.token"),
            ({"extra": 1}, "body.extra"),
        ):
            body = {"token": "t", "player_id": "p1", "currency": "INR", "table_id": "T1"}
            response = await client.post("/sessions", json={**body, **change}, headers=OPERATOR_1)
            assert response.status_code == 422, response.text
            assert response.json()["code"] == "invalid_request"
            assert response.json()["detail"].startswith(field), response.json()["detail"]
        unauthenticated = await client.post("/sessions", json=body)
        assert unauthenticated.status_code == 401
        assert unauthenticated.json()["code"] == "missing_api_key"
        async with wallet_database(wallet_settings) as connection:
            assert await connection.fetchval("SELECT count(*) FROM wallet_sessions") == 0


# ----------------------------------------------------------------- a seamless operator
@asynccontextmanager
async def reference_operator(
    infrastructure: InfrastructureSettings, game_key: PrivateKey, operator_key: PrivateKey
) -> AsyncIterator[tuple[str, httpx.AsyncClient]]:
    """The reference operator (teenpatti_tools.operator) on a free port, on a database of
    its own: its base URL and an admin client."""
    name = f"test_operator_{uuid4().hex[:12]}"
    await create_database(infrastructure, name)
    app = create_operator_app(
        OperatorServerConfig(
            dsn=infrastructure.postgres_dsn(name),
            private_key=operator_key,
            game_public_keys=[game_key.public_key()],
            admin_token=OPERATOR_ADMIN_TOKEN,
        )
    )
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(30):
            while not server.started:
                assert not serving.done(), "the reference operator stopped"
                await asyncio.sleep(0.05)
        base_url = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(
            base_url=base_url, headers={ADMIN_TOKEN_HEADER: OPERATOR_ADMIN_TOKEN}, timeout=10
        ) as admin:
            yield base_url, admin
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, timeout=30)
        connection = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
        try:
            await drop_database(connection, name)
        finally:
            await connection.close()


async def operator_player(admin: httpx.AsyncClient, user: str, funds: int) -> str:
    """A player of the reference operator with `funds` (protocol units) and a token for it."""
    assert (await admin.put(f"/admin/users/{user}", json={})).status_code < 300
    deposited = await admin.post(
        f"/admin/users/{user}/deposits", json={"currency": "INR", "amount": funds}
    )
    assert deposited.status_code < 300, deposited.text
    issued = await admin.post(
        "/admin/tokens", json={"user": user, "currency": "INR", "ttl_seconds": 3600}
    )
    assert issued.status_code < 300, issued.text
    token: str = issued.json()["token"]
    return token


async def test_a_seamless_players_slip_carries_its_sessions_operator_token(
    infrastructure: InfrastructureSettings, wallet_settings: WalletSettings, tmp_path: Path
) -> None:
    game_key, operator_key = generate_private_key(), generate_private_key()
    (tmp_path / "game.pem").write_bytes(private_key_pem(game_key))
    settings = wallet_settings.model_copy(
        update={"seamless_signing_key_file": str(tmp_path / "game.pem")}
    )
    async with (
        reference_operator(infrastructure, game_key, operator_key) as (base_url, admin),
        wallet(settings) as client,
    ):
        async with wallet_database(settings) as connection:
            await connection.execute(
                "INSERT INTO operators (operator_id, config, updated_by) VALUES ($1, $2, 'test')",
                "operator-1",
                json.dumps(
                    {
                        "operator_id": "operator-1",
                        "mode": "seamless",
                        "base_url": base_url,
                        "public_keys": [public_key_pem(operator_key).decode()],
                        "timeout_seconds": 5,
                    }
                ),
            )
        await open_round(settings, client, "T1-1")
        # 50.00 INR at the operator (protocol units: x 100,000 / 100)
        p1_token = await operator_player(admin, "p1", 5_000_000)
        p2_token = await operator_player(admin, "p2", 5_000_000)
        p1 = await launch(client, await open_session(client, "p1", token=p1_token))

        slip = await player_slip(client, p1, "T1-1", [("player_a", 300), ("tie", 100)])
        assert slip.status_code == 201, slip.text
        assert slip.json()["balance"] == 4_600  # the operator's balance, in minor units
        [bet] = (await admin.get("/admin/transactions", params={"user": "p1"})).json()[
            "transactions"
        ]
        assert (bet["kind"], bet["amount"], bet["transaction_uuid"]) == (
            "bet",
            400_000,
            slip.json()["slip_id"],
        )

        # the player's balance is the operator's, asked with the session's token
        balance = await client.get("/me/balance", headers=p1)
        assert balance.status_code == 200, balance.text
        assert balance.json() == {"currency": "INR", "balance": 4_600}

        # a session opened with another player's token: the operator refuses the bet
        wrong = await launch(client, await open_session(client, "p1", token=p2_token))
        refused = await player_slip(client, wrong, "T1-1", [("player_b", 100)])
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "token_expired"
        assert "RS_ERROR_INVALID_TOKEN" in refused.json()["detail"]
        no_balance = await client.get("/me/balance", headers=wrong)
        assert no_balance.status_code == 403, no_balance.text
        assert no_balance.json()["code"] == "token_expired"
        assert no_balance.json()["operator_status"] == "RS_ERROR_INVALID_TOKEN"
        users = {
            t["user"]
            for t in (await admin.get("/admin/transactions")).json()["transactions"]
            if t["kind"] == "bet"
        }
        assert users == {"p1"}
        balance = (await admin.get("/admin/users/p1")).json()["balances"]["INR"]
        assert balance == 4_600_000
