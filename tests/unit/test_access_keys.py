"""API keys of the access database (docs/access.md): their format, hash, scope and expiry
(pure), and the authenticator's decisions over a fake lookup (cache, revocation, refusals
logged without the key and counted)."""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client import REGISTRY

from teenpatti.access import (
    AccessKey,
    AccessUnavailableError,
    Authenticator,
    InvalidKeySpecError,
    new_key,
    parse_expiry,
    parse_key,
    parse_tables,
)
from teenpatti.access.holders import ApiKeys, KeyHolder
from teenpatti.http import ProblemError, install_problem_handlers
from teenpatti.kernel.dependencies import Supervisor

NOW = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)
IN_90_DAYS = NOW + timedelta(days=90)


def issue(**override: object) -> tuple[AccessKey, str]:
    spec: dict[str, object] = {
        "holder": "alice",
        "role": "supervisor",
        "tables": frozenset({"T01"}),
        "expires_at": IN_90_DAYS,
        "created_by": "root",
        "now": NOW,
    }
    spec.update(override)
    issued = new_key(**spec)  # type: ignore[arg-type]
    return issued.row, issued.key


def failures(reason: str) -> float:
    return REGISTRY.get_sample_value("teenpatti_auth_failures_total", {"reason": reason}) or 0.0


# ------------------------------------------------------------------------------ pure
def test_a_key_names_its_id_and_only_the_secret_s_hash_is_kept() -> None:
    row, key = issue()
    key_id, secret = parse_key(key) or ("", "")
    assert key == f"tp_{row.key_id}_{secret}"
    assert key_id == row.key_id and len(key_id) == 12
    assert len(secret) == 64  # 256 random bits
    assert row.secret_sha256 == hashlib.sha256(secret.encode()).digest()
    assert secret not in repr(row)
    assert row.opens_with(secret)
    assert not row.opens_with(secret[:-1] + ("0" if secret[-1] != "0" else "1"))


def test_two_keys_share_nothing() -> None:
    (first, first_key), (second, second_key) = issue(), issue()
    assert first.key_id != second.key_id
    assert first_key != second_key


@pytest.mark.parametrize(
    "text",
    [
        "dev-supervisor-key",
        "tp_",
        "tp_0123456789ab_",
        "tp_0123456789ab_" + "a" * 63,
        "tp_0123456789ab_" + "a" * 65,
        "tp_0123456789AB_" + "a" * 64,
        "tp_0123456789ab-" + "a" * 64,
        "xp_0123456789ab_" + "a" * 64,
        "tp_0123456789ab_" + "a" * 64 + "\n",
    ],
)
def test_what_is_not_a_key_of_the_access_database(text: str) -> None:
    assert parse_key(text) is None


def test_status_revoked_whatever_the_clocks_then_expired_then_active() -> None:
    row, _ = issue()
    assert row.status(NOW) == "active"
    assert row.status(IN_90_DAYS) == "expired"
    revoked = AccessKey(
        **{**vars_of(row), "revoked_at": NOW + timedelta(hours=1), "revoked_by": "bob"}
    )
    # revoked by a clock ahead of the reader's: revoked all the same
    assert revoked.status(NOW) == "revoked"


def vars_of(row: AccessKey) -> dict[str, object]:
    return {name: getattr(row, name) for name in AccessKey.__slots__}


@pytest.mark.parametrize(
    ("text", "tables"),
    [
        ("all", None),
        ("ALL", None),
        ("T01", frozenset({"T01"})),
        (" T01, T02 ,T01", frozenset({"T01", "T02"})),
    ],
)
def test_tables_parse(text: str, tables: frozenset[str] | None) -> None:
    assert parse_tables(text) == tables


@pytest.mark.parametrize(
    ("text", "says"),
    [("", "no table"), (" , ", "no table"), ("T01,T 02", "'T 02'"), ("-T1", "'-T1'")],
)
def test_bad_tables_are_named(text: str, says: str) -> None:
    with pytest.raises(InvalidKeySpecError, match=says):
        parse_tables(text)


@pytest.mark.parametrize(
    ("text", "expires_at"),
    [
        ("90d", NOW + timedelta(days=90)),
        ("12h", NOW + timedelta(hours=12)),
        ("30m", NOW + timedelta(minutes=30)),
        ("2w", NOW + timedelta(weeks=2)),
        ("2027-01-01T00:00:00Z", datetime(2027, 1, 1, tzinfo=UTC)),
        ("2027-01-01T00:00:00", datetime(2027, 1, 1, tzinfo=UTC)),
        ("2027-01-01T01:00:00+01:00", datetime(2027, 1, 1, tzinfo=UTC)),
    ],
)
def test_expiry_parses(text: str, expires_at: datetime) -> None:
    assert parse_expiry(text, NOW) == expires_at


@pytest.mark.parametrize("text", ["soon", "90", "-1d", "1y", "999999w"])
def test_bad_expiry_is_refused(text: str) -> None:
    with pytest.raises(InvalidKeySpecError):
        new_key(
            holder="alice",
            role="dealer",
            tables=None,
            expires_at=parse_expiry(text, NOW),
            created_by="root",
            now=NOW,
        )


@pytest.mark.parametrize(
    ("override", "says"),
    [
        ({"holder": ""}, "holder"),
        ({"holder": "a:b"}, "holder"),
        ({"holder": "x" * 65}, "holder"),
        ({"role": "admin"}, "role 'admin'"),
        ({"role": "operator"}, "every table"),  # an operator's key with tables
        ({"expires_at": NOW}, "in the future"),
        ({"expires_at": NOW + timedelta(days=367)}, "at most 366 days"),
        ({"created_by": " "}, "issuer"),
    ],
)
def test_a_bad_key_spec_is_refused_with_its_reason(override: dict[str, object], says: str) -> None:
    with pytest.raises(InvalidKeySpecError, match=says):
        issue(**override)


def test_an_operator_key_acts_on_every_table() -> None:
    row, _ = issue(holder="operator-9", role="operator", tables=None)
    assert row.tables is None


def test_scope() -> None:
    scoped = KeyHolder("alice", "supervisor", key_id="0123456789ab", tables=frozenset({"T01"}))
    assert scoped.may_act_on("T01")
    assert not scoped.may_act_on("T02")
    assert KeyHolder("supervisor-1", "supervisor").may_act_on("T02")  # a configured key
    with pytest.raises(ProblemError) as refused:
        scoped.require_table("T02")
    assert (refused.value.status, refused.value.code) == (403, "table_not_in_scope")


# ------------------------------------------------------------------------------ authenticator
class FakeLookup:
    def __init__(self, *rows: AccessKey) -> None:
        self.rows = {row.key_id: row for row in rows}
        self.reads = 0
        self.down = False

    async def find(self, key_id: str) -> AccessKey | None:
        self.reads += 1
        if self.down:
            raise ConnectionRefusedError("down")
        return self.rows.get(key_id)

    async def close(self) -> None:
        pass


class Clocks:
    def __init__(self) -> None:
        self.now = NOW
        self.seconds = 1000.0

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
        self.seconds += seconds


def authenticator(lookup: FakeLookup, clocks: Clocks, cache_seconds: float = 5.0) -> Authenticator:
    return Authenticator(
        ApiKeys("supervisor-1:supervisor:configured-key"),
        lookup,
        cache_seconds=cache_seconds,
        clock=lambda: clocks.now,
        monotonic=lambda: clocks.seconds,
    )


async def test_a_stored_key_gives_its_holder_and_scope() -> None:
    row, key = issue()
    auth = authenticator(FakeLookup(row), Clocks())
    holder = await auth.holder(key, ("supervisor",))
    assert holder == KeyHolder("alice", "supervisor", key_id=row.key_id, tables=frozenset({"T01"}))


async def test_configured_keys_act_on_every_table_and_never_read_the_database() -> None:
    lookup = FakeLookup()
    holder = await authenticator(lookup, Clocks()).holder("configured-key", ("supervisor",))
    assert holder == KeyHolder("supervisor-1", "supervisor")
    assert lookup.reads == 0


async def test_a_revocation_takes_effect_once_the_cache_has_expired() -> None:
    row, key = issue()
    lookup, clocks = FakeLookup(row), Clocks()
    auth = authenticator(lookup, clocks, cache_seconds=5)
    await auth.holder(key)
    lookup.rows[row.key_id] = AccessKey(
        **{**vars_of(row), "revoked_at": clocks.now, "revoked_by": "bob"}
    )
    clocks.advance(4.9)
    await auth.holder(key)  # still cached: within the bound
    assert lookup.reads == 1
    clocks.advance(0.2)
    with pytest.raises(ProblemError) as refused:
        await auth.holder(key)
    assert (refused.value.status, refused.value.code) == (401, "invalid_api_key")
    assert lookup.reads == 2


async def test_without_a_cache_every_request_reads_the_database() -> None:
    row, key = issue()
    lookup = FakeLookup(row)
    auth = authenticator(lookup, Clocks(), cache_seconds=0)
    for _ in range(3):
        await auth.holder(key)
    assert lookup.reads == 3


async def test_an_expiry_takes_effect_at_once_cached_or_not() -> None:
    row, key = issue(expires_at=NOW + timedelta(seconds=10))
    clocks = Clocks()
    auth = authenticator(FakeLookup(row), clocks, cache_seconds=300)
    await auth.holder(key)
    clocks.advance(10)
    with pytest.raises(ProblemError):
        await auth.holder(key)


@pytest.mark.parametrize(
    ("case", "reason", "status", "code"),
    [
        ("missing", "missing", 401, "missing_api_key"),
        ("made up", "unknown", 401, "invalid_api_key"),
        ("unknown id", "unknown", 401, "invalid_api_key"),
        ("wrong secret", "unknown", 401, "invalid_api_key"),
        ("expired", "expired", 401, "invalid_api_key"),
        ("revoked", "revoked", 401, "invalid_api_key"),
        ("wrong role", "wrong_role", 403, "forbidden"),
    ],
)
async def test_every_refusal_is_logged_without_the_key_and_counted(
    case: str, reason: str, status: int, code: str, caplog: pytest.LogCaptureFixture
) -> None:
    row, key = issue()
    revoked, revoked_key = issue()
    revoked = AccessKey(**{**vars_of(revoked), "revoked_at": NOW, "revoked_by": "bob"})
    expired, expired_key = issue(expires_at=NOW + timedelta(seconds=1))
    clocks = Clocks()
    auth = authenticator(FakeLookup(row, revoked, expired), clocks)
    clocks.advance(1)
    sent = {
        "missing": None,
        "made up": "dev-supervisor-key-2",
        "unknown id": "tp_0123456789ab_" + "0" * 64,
        "wrong secret": f"tp_{row.key_id}_" + "0" * 64,
        "expired": expired_key,
        "revoked": revoked_key,
        "wrong role": key,
    }[case]
    before = failures(reason)
    with caplog.at_level(logging.WARNING), pytest.raises(ProblemError) as refused:
        await auth.holder(sent, ("operator",))
    assert (refused.value.status, refused.value.code) == (status, code)
    assert failures(reason) == before + 1
    [line] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert f"({reason})" in line.getMessage()
    for secret in (sent, key, revoked_key, expired_key):
        if secret:
            assert secret not in line.getMessage()
            assert secret.rsplit("_", 1)[-1] not in line.getMessage()
    if case in ("wrong secret", "expired", "revoked", "wrong role"):
        assert "key id" in line.getMessage()  # the public id names the key


async def test_an_unreadable_access_database_refuses_the_key_as_unavailable() -> None:
    row, key = issue()
    lookup = FakeLookup(row)
    lookup.down = True
    before = failures("access_unavailable")
    with pytest.raises(AccessUnavailableError):  # the kernel answers 503 with Retry-After
        await authenticator(lookup, Clocks()).holder(key)
    assert failures("access_unavailable") == before + 1


async def test_the_cache_is_bounded() -> None:
    from teenpatti.access import authenticator as module

    lookup = FakeLookup()
    auth = authenticator(lookup, Clocks())
    for n in range(module.MAX_CACHED_KEYS + 10):
        with pytest.raises(ProblemError):
            await auth.holder(f"tp_{n:012x}_" + "0" * 64)
    assert len(auth._cache) == module.MAX_CACHED_KEYS


def test_a_key_of_the_access_database_is_redacted_from_any_log_line() -> None:
    from teenpatti.observability.logs import redact

    _, key = issue()
    key_id, secret = parse_key(key) or ("", "")
    for line in (f"bad request with {key} in it", f"X-Api-Key: {key}", f"'{key}'"):
        redacted = redact(line)
        assert secret not in redacted
    assert redact(f"got {key}") == f"got tp_{key_id}_[redacted]"  # the public id stays


async def test_a_route_naming_a_table_or_a_round_in_its_path_is_scoped_by_it() -> None:
    row, key = issue(tables=frozenset({"T-01"}))
    app = FastAPI()
    install_problem_handlers(app)
    app.state.authenticator = authenticator(FakeLookup(row), Clocks())

    @app.post("/tables/{table_id}/pause")
    async def pause(table_id: str, holder: Supervisor) -> str:
        return holder.name

    @app.post("/rounds/{round_id}/release")
    async def release(round_id: str, holder: Supervisor) -> str:
        return holder.name

    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://service"
    ) as client:
        answers = {
            path: (await client.post(path, headers={"X-Api-Key": key})).status_code
            for path in (
                "/tables/T-01/pause",
                "/tables/T-02/pause",
                "/rounds/T-01-000007/release",
                "/rounds/T-02-000007/release",
                "/rounds/T-01/release",  # not a round of T-01: its table would be `T`
            )
        }
        configured = await client.post(
            "/rounds/T-02-000007/release", headers={"X-Api-Key": "configured-key"}
        )
    assert answers == {
        "/tables/T-01/pause": 200,
        "/tables/T-02/pause": 403,
        "/rounds/T-01-000007/release": 200,
        "/rounds/T-02-000007/release": 403,
        "/rounds/T-01/release": 403,
    }
    assert configured.status_code == 200  # a configured key acts on every table
