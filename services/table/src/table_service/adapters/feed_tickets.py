"""Single-use tickets for the live feed's WebSocket (decision 0056): a browser cannot set a
header on a WebSocket, and a key must never travel in a URL, so a client holding a key asks
`POST /tables/{table_id}/feed/tickets` for a ticket and opens the feed with `?ticket=...`.
A ticket opens one feed of one table, once, within its time to live; Redis keeps only its
SHA-256 (`<prefix>feed-ticket:<digest>`), and redeeming it deletes it (`GETDEL`). It names
who asked for it (the holder, its role, its key id if any, its tables and expiry, never the
key), so that the feed it opened can check that key again while it stays open."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from redis.asyncio import Redis

from teenpatti.access.holders import KeyHolder
from teenpatti.access.keys import hash_key


@dataclass(frozen=True)
class Ticket:
    table_id: str
    holder: KeyHolder  # who asked for it: the feed checks its key again while open


class FeedTickets:
    def __init__(self, redis: Redis, prefix: str = "", ttl_seconds: int = 10) -> None:
        self._redis = redis
        self._prefix = prefix
        self.ttl_seconds = ttl_seconds

    def _key(self, ticket: str) -> str:
        return f"{self._prefix}feed-ticket:{hash_key(ticket)}"

    async def issue(self, table_id: str, holder: KeyHolder) -> str:
        ticket = secrets.token_urlsafe(24)
        value = json.dumps({"table_id": table_id, "holder": _holder_fields(holder)})
        await self._redis.set(self._key(ticket), value, ex=self.ttl_seconds)
        return ticket

    async def redeem(self, ticket: str) -> Ticket | None:
        """The ticket's table and holder, once: a second use, an expired or an unknown
        ticket is None."""
        if not ticket or len(ticket) > 100:
            return None
        value = await self._redis.getdel(self._key(ticket))
        if value is None:
            return None
        data = json.loads(value)
        return Ticket(table_id=str(data["table_id"]), holder=_holder_of(data["holder"]))


def _holder_fields(holder: KeyHolder) -> dict[str, Any]:
    return {
        "name": holder.name,
        "role": holder.role,
        "key_id": holder.key_id,
        "tables": None if holder.tables is None else sorted(holder.tables),
        "expires_at": None if holder.expires_at is None else holder.expires_at.isoformat(),
    }


def _holder_of(fields: dict[str, Any]) -> KeyHolder:
    tables, expires_at = fields["tables"], fields["expires_at"]
    return KeyHolder(
        str(fields["name"]),
        str(fields["role"]),
        key_id=fields["key_id"],
        tables=None if tables is None else frozenset(tables),
        expires_at=None if expires_at is None else datetime.fromisoformat(expires_at),
    )
