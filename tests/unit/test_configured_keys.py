"""The keys given in the configuration (`TP_API_KEYS`, `TP_API_KEYS_FILE`): scoped to tables
and expiring as the access database's keys are, the file's withdrawn without a restart, and
a feed's holder checked again (`Authenticator.recheck`)."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from teenpatti.access import (
    AccessKey,
    Authenticator,
    ConfiguredKeys,
    ConfiguredKeysError,
    InvalidKeySpecError,
    new_key,
)
from teenpatti.access.holders import ApiKeys, KeyHolder
from teenpatti.access.keys import parse_configured_key
from teenpatti.http import ProblemError

NOW = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)


class Clocks:
    def __init__(self) -> None:
        self.now = NOW
        self.seconds = 1000.0

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
        self.seconds += seconds


class Rows:
    def __init__(self, *rows: AccessKey) -> None:
        self.rows = {row.key_id: row for row in rows}

    async def find(self, key_id: str) -> AccessKey | None:
        return self.rows.get(key_id)

    async def close(self) -> None:
        pass


def test_an_entry_may_name_its_tables_and_its_expiry() -> None:
    entry = parse_configured_key("alice:supervisor:k-1:tables=T01|T02:expires=2027-03-01T00:00Z")
    assert (entry.holder, entry.role, entry.key) == ("alice", "supervisor", "k-1")
    assert entry.tables == frozenset({"T01", "T02"})
    assert entry.expires_at == datetime(2027, 3, 1, tzinfo=UTC)
    assert parse_configured_key("bob:dealer:k-2:expires=2027-03-01").expires_at == datetime(
        2027, 3, 1, tzinfo=UTC
    )
    plain = parse_configured_key("op-1:operator:k-3")
    assert (plain.tables, plain.expires_at) == (None, None)


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("alice:admin:s3cret", "role 'admin'"),
        ("op-1:operator:s3cret:tables=T01", "acts for the operator on every table"),
        ("alice:supervisor:s3cret:tables=T 01", "table id 'T 01'"),
        ("alice:supervisor:s3cret:expires=soon", "ISO 8601"),
        ("alice:supervisor:s3cret:with:colons", "a key holds no ':'"),
        ("alice:supervisor", "need holder:role:key"),
    ],
)
def test_a_bad_entry_is_refused_naming_its_holder_never_its_key(entry: str, reason: str) -> None:
    with pytest.raises(InvalidKeySpecError, match=reason) as refused:
        ApiKeys(f"ok:viewer:fine,{entry}")
    assert entry.split(":", 1)[0] in str(refused.value)
    assert "s3cret" not in str(refused.value)


async def test_a_configured_key_is_scoped_and_expires() -> None:
    clocks = Clocks()
    expiry = (NOW + timedelta(hours=1)).isoformat()
    auth = Authenticator(
        ApiKeys(f"alice:supervisor:alice-key:tables=T01:expires={expiry}"),
        None,
        cache_seconds=5,
        clock=lambda: clocks.now,
    )
    holder = await auth.holder("alice-key", ("supervisor",))
    assert holder.may_act_on("T01") and not holder.may_act_on("T02")
    with pytest.raises(ProblemError) as out_of_scope:
        holder.require_table("T02")
    assert out_of_scope.value.code == "table_not_in_scope"
    clocks.advance(3600)
    with pytest.raises(ProblemError) as expired:
        await auth.holder("alice-key")
    assert (expired.value.status, expired.value.code) == (401, "invalid_api_key")


def test_a_key_removed_from_the_file_is_withdrawn_without_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    path.write_text("# the studio's keys\nalice:supervisor:alice-key\nbob:dealer:bob-key\n")
    clocks = Clocks()
    keys = ConfiguredKeys(
        "op-1:operator:op-key", str(path), check_seconds=5, monotonic=lambda: clocks.seconds
    )
    keys.load()  # at start
    alice = keys.find("alice-key")
    assert alice == KeyHolder("alice", "supervisor")
    assert keys.find("op-key") == KeyHolder("op-1", "operator")
    path.write_text("bob:dealer:bob-key\n")
    clocks.advance(4.9)
    assert keys.find("alice-key") == alice  # not looked at yet: within the bound
    clocks.advance(0.2)
    assert keys.find("alice-key") is None
    assert not keys.holds(alice)
    assert keys.find("bob-key") == KeyHolder("bob", "dealer")
    assert keys.find("op-key") is not None  # TP_API_KEYS's: read once


def test_a_bad_file_stops_the_start_and_is_skipped_line_by_line_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "keys"
    path.write_text("alice:supervisor:alice-key\nbob:chef:bob-key\n")
    with pytest.raises(ConfiguredKeysError, match=r"keys:2: .*role 'chef'"):
        ConfiguredKeys("", str(path), check_seconds=1).load()
    unread = ConfiguredKeys("", str(tmp_path / "missing"), check_seconds=1)  # no I/O yet
    with pytest.raises(ConfiguredKeysError, match="cannot be read"):
        unread.load()

    clocks = Clocks()
    path.write_text("alice:supervisor:alice-key\n")
    keys = ConfiguredKeys("", str(path), check_seconds=1, monotonic=lambda: clocks.seconds)
    keys.load()
    path.write_text("alice:supervisor:alice-key\nbob:chef:bob-key\ncarol:dealer:carol-key\n")
    clocks.advance(1)
    with caplog.at_level(logging.ERROR):
        assert keys.find("carol-key") == KeyHolder("carol", "dealer")
    assert keys.find("bob-key") is None
    assert "keys:2 is skipped" in caplog.text and "bob-key" not in caplog.text
    # gone or unreadable: no key of it at all, never the last ones kept
    path.unlink()
    clocks.advance(1)
    assert keys.find("alice-key") is None


def test_outside_development_the_file_gives_no_development_key(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    path.write_text("supervisor-1:supervisor:dev-supervisor-key\n")
    with pytest.raises(ConfiguredKeysError, match="development key"):
        ConfiguredKeys(
            "", str(path), check_seconds=1, refused=frozenset({"dev-supervisor-key"})
        ).load()


async def test_an_open_connection_s_holder_is_checked_again(tmp_path: Path) -> None:
    clocks = Clocks()
    path = tmp_path / "keys"
    path.write_text("alice:supervisor:alice-key\n")
    issued = new_key(
        holder="carol",
        role="supervisor",
        tables=None,
        expires_at=NOW + timedelta(days=1),
        created_by="root",
        now=NOW,
    )
    rows = Rows(issued.row)
    auth = Authenticator(
        ConfiguredKeys("", str(path), check_seconds=1, monotonic=lambda: clocks.seconds),
        rows,
        cache_seconds=1,
        clock=lambda: clocks.now,
        monotonic=lambda: clocks.seconds,
    )
    alice = await auth.holder("alice-key")
    carol = await auth.holder(issued.key)
    await auth.recheck(alice)
    await auth.recheck(carol)
    path.write_text("")
    rows.rows[issued.row.key_id] = replace(issued.row, revoked_at=NOW, revoked_by="root")
    clocks.advance(1)
    for holder in (alice, carol):
        with pytest.raises(ProblemError) as refused:
            await auth.recheck(holder)
        assert (refused.value.status, refused.value.code) == (401, "invalid_api_key")
