"""Single-use tickets for the live feed's WebSocket (decision 0056): a browser cannot set a
header on a WebSocket, and a key must never travel in a URL, so a client holding a key asks
`POST /tables/{table_id}/feed/tickets` for a ticket and opens the feed with `?ticket=...`.
A ticket opens one feed of one table, once, within its time to live; Redis keeps only its
SHA-256 (`<prefix>feed-ticket:<digest>`), and redeeming it deletes it (`GETDEL`)."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

from redis.asyncio import Redis

from teenpatti.http import hash_key


@dataclass(frozen=True)
class Ticket:
    table_id: str
    holder: str  # who asked for it (for the log of a refusal)


class FeedTickets:
    def __init__(self, redis: Redis, prefix: str = "", ttl_seconds: int = 10) -> None:
        self._redis = redis
        self._prefix = prefix
        self.ttl_seconds = ttl_seconds

    def _key(self, ticket: str) -> str:
        return f"{self._prefix}feed-ticket:{hash_key(ticket)}"

    async def issue(self, table_id: str, holder: str) -> str:
        ticket = secrets.token_urlsafe(24)
        value = json.dumps({"table_id": table_id, "holder": holder})
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
        return Ticket(table_id=str(data["table_id"]), holder=str(data["holder"]))
