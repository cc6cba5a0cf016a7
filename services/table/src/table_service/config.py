"""The table service's settings (`TP_*` environment variables)."""

from pydantic import Field

from teenpatti.settings import InfrastructureSettings


class TableSettings(InfrastructureSettings):
    table_database: str = "tp_table"
    # Rules (ru/fa "error handling"): a round paused before its first card and not resumed
    # within this time is cancelled and every bet refunded.
    pause_timeout_seconds: float = Field(default=120, gt=0, le=86_400)
    # how often the clock manager looks for open tables in the partitions it owns
    clock_poll_seconds: float = Field(default=0.5, gt=0, le=60)
    # the longest a table clock sleeps before re-reading its stream: only a safety net, as
    # every change of a table is announced to its clock (`table_changed` notifications)
    clock_max_nap_seconds: float = Field(default=5.0, gt=0, le=60)
    # a snapshot of the table's state is kept every this many events of its stream, so a
    # process that starts or takes a table over replays at most this many events (0: never)
    snapshot_every: int = Field(default=200, ge=0, le=1_000_000)
    # Redis connections of one instance: the live state, the feed publisher, and one per
    # open WebSocket feed (each holds its own subscription)
    redis_max_connections: int = Field(default=10_000, ge=10, le=1_000_000)
