"""Redis: the live state of each table (`table:<id>`) and its event feed (`feed:<id>`).

Keys and channels carry `TP_TOPIC_PREFIX` in front, like topics (empty in production), so
test runs sharing one Redis never see each other's tables.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import ConfigDict, with_config
from redis.asyncio import Redis
from typing_extensions import TypedDict

from .views import TableView

# SET the live state only if it is newer than what is there: feed events may be handled
# out of order across a rebalance, and the state must never go back in time.
_SET_IF_NEWER = """
local current = redis.call('GET', KEYS[1])
if current then
  local ok, decoded = pcall(cjson.decode, current)
  if ok and type(decoded) == 'table' and tonumber(decoded['version'])
     and tonumber(decoded['version']) >= tonumber(ARGV[2]) then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
"""


@with_config(ConfigDict(use_attribute_docstrings=True))
class FeedMessage(TypedDict):
    """One event as the WebSocket feed sends it (and the event pages list it)."""

    position: int
    """The event's stream version: the feed's position, which a reader resumes after."""
    event_type: str
    """The event's type, as the AsyncAPI document (docs/asyncapi.yaml) names it, e.g. `RoundOpened`.
    """
    payload: dict[str, Any]
    """The event's fields, as the AsyncAPI document describes its type."""
    occurred_at: str
    """When it was recorded (ISO 8601, UTC)."""


def feed_message(
    position: int, event_type: str, payload: dict[str, Any], occurred_at: str
) -> FeedMessage:
    """One event as the WebSocket feed sends it."""
    return {
        "position": position,
        "event_type": event_type,
        "payload": payload,
        "occurred_at": occurred_at,
    }


class RedisTableFeed:
    def __init__(self, redis: Redis, prefix: str = "") -> None:
        self.redis = redis
        self._prefix = prefix
        self._set_if_newer = redis.register_script(_SET_IF_NEWER)

    def state_key(self, table_id: str) -> str:
        return f"{self._prefix}table:{table_id}"

    def channel(self, table_id: str) -> str:
        return f"{self._prefix}feed:{table_id}"

    async def store_state(self, table_id: str, view: TableView) -> bool:
        stored = await self._set_if_newer(
            keys=[self.state_key(table_id)], args=[json.dumps(view), int(view["version"])]
        )
        return bool(stored)

    async def live_state(self, table_id: str) -> dict[str, Any] | None:
        raw = await self.redis.get(self.state_key(table_id))
        if raw is None:
            return None
        decoded: dict[str, Any] = json.loads(raw)
        return decoded

    async def publish_all(self, updates: list[FeedUpdate]) -> None:
        """For several tables in order: `store_state` (when a view is given), then each message
        published on the table's channel; in one pipeline (a round trip or two in all)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for update in updates:
                if update.view is not None:
                    await self._set_if_newer(
                        keys=[self.state_key(update.table_id)],
                        args=[json.dumps(update.view), int(update.view["version"])],
                        client=pipe,
                    )
                for message in update.messages:
                    pipe.publish(self.channel(update.table_id), json.dumps(message))
            await pipe.execute()


@dataclass
class FeedUpdate:
    """What one table's feed gets: its live state (if current) and its messages in order."""

    table_id: str
    view: TableView | None
    messages: list[FeedMessage]
