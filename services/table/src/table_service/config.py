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
