"""The table service's settings (`TP_*` environment variables)."""

from pydantic import Field

from teenpatti.settings import InfrastructureSettings


class TableSettings(InfrastructureSettings):
    table_database: str = Field(
        default="tp_table",
        description="The table service's database; also read by `teenpatti migrate table` and"
        " `teenpatti audit` (unless given `--table-db`).",
    )
    pause_timeout_seconds: float = Field(
        default=120,
        gt=0,
        le=86_400,
        description='Rules (ru/fa "error handling"): a round paused before its first card and'
        " not resumed within this time is cancelled by its clock, and every bet refunded.",
    )
    clock_poll_seconds: float = Field(
        default=0.5,
        gt=0,
        le=60,
        description="How often the clock manager looks for open tables in the partitions it"
        " owns; while the `table_changed` listener is down, how often clocks re-read their"
        " streams.",
    )
    clock_max_nap_seconds: float = Field(
        default=5.0,
        gt=0,
        le=60,
        description="The longest a table's clock sleeps before re-reading its stream: only a"
        " safety net, as every change of a table is announced to its clock (`table_changed`"
        " notifications; docs/decisions/0029-clocks-sleep-until-deadline.md).",
    )
    snapshot_every: int = Field(
        default=200,
        ge=0,
        le=1_000_000,
        description="A snapshot of a table's state is kept every this many events of its"
        " stream, so a process that starts or takes a table over replays at most this many"
        " events; `0`: never (docs/decisions/0030-snapshots-every-n-events.md).",
    )
    redis_max_connections: int = Field(
        default=10_000,
        ge=10,
        le=1_000_000,
        description="Redis connections of one instance: the live state, the feed publisher,"
        " and one per open WebSocket feed (each holds its own subscription).",
    )
    rtp_ceiling_percent: float = Field(
        default=97.50,
        gt=0,
        le=100,
        description="Rules: the game's maximum RTP, in percent (two decimals). Opening a table"
        " or changing its pay table is refused when any bet type's exact RTP (the rules"
        " engine's PAR sheet), in percent rounded half-up to two decimals as the rules state"
        " it, is above this (docs/decisions/0057-game-configuration-four-eyes.md).",
    )
    max_currencies: int = Field(
        default=20,
        ge=1,
        le=200,
        description="The most currencies one table's limits may price (every round's events"
        " carry them all, and must stay far below Kafka's message limit).",
    )
    dealing_stall_seconds: float = Field(
        default=120,
        gt=0,
        le=86_400,
        description="A round dealing without its next card for this long pauses itself"
        " (`RoundPaused` by `system`) and appears in `GET /problems`; a supervisor resumes or"
        " voids it.",
    )
    paused_round_alert_minutes: float = Field(
        default=10,
        gt=0,
        le=10_080,
        description="A started round paused for longer than this is flagged `overdue` in"
        " `GET /problems` (rules: a started round completes, it is never cancelled by itself).",
    )
    correction_window_hours: float = Field(
        default=24,
        gt=0,
        le=720,
        description="How long after its result two supervisors may still void a round"
        " (`POST /tables/{table_id}/rounds/{round_id}/void`): every bet of it refunded and"
        " what it paid taken back.",
    )
    round_gate_urls: str = Field(
        default="",
        pattern=r"^([A-Za-z0-9_-]+=https?://[^,=\s]+(,[A-Za-z0-9_-]+=https?://[^,=\s]+)*)?$",
        description="The services a round needs, `name=base-url,...` (e.g."
        " `wallet=http://wallet:8000,settlement=http://settlement:8000`; a name given twice is"
        " ready when any of its URLs is): before opening a round the table asks each its"
        " `/ready`, and opens none while a name is not ready: it holds its rounds"
        " (`RoundsHeld`, naming why, on the feed and in `GET /problems`) and asks again every"
        " `TP_ROUND_GATE_CACHE_SECONDS`. Empty: no check (`make run` and the e2e stack set the"
        " wallet's and settlement's; docs/decisions/0086).",
    )
    round_gate_timeout_seconds: float = Field(
        default=1.0,
        gt=0,
        le=30,
        description="How long the table waits for one `/ready` answer of"
        " `TP_ROUND_GATE_URLS` before counting that URL not ready.",
    )
    round_gate_cache_seconds: float = Field(
        default=1.0,
        gt=0,
        le=60,
        description="How long the table keeps the answers of `TP_ROUND_GATE_URLS` (one check"
        " per instance, for all its tables), and how often a table holding its rounds asks"
        " again.",
    )

    def round_gate_targets(self) -> list[tuple[str, str]]:
        """`TP_ROUND_GATE_URLS` as (name, base URL) pairs."""
        pairs = (entry.split("=", 1) for entry in self.round_gate_urls.split(",") if entry)
        return [(name, url.rstrip("/")) for name, url in pairs]
