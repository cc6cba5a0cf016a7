"""The wallet's own settings, read once from `TP_*` environment variables."""

import ipaddress
from urllib.parse import urlsplit

from pydantic import Field

from teenpatti.settings import PLACEHOLDER, InfrastructureSettings

_URL = r"^https?://[^/?#\s]+(/[^?#\s]*)?$"


class WalletSettings(InfrastructureSettings):
    wallet_database: str = Field(
        default="tp_wallet",
        description="The wallet's database; also read by `teenpatti migrate wallet` and"
        " `teenpatti audit` (unless given `--wallet-db`).",
    )
    betting_grace_ms: int = Field(
        default=0,
        ge=0,
        le=5_000,
        description="How long after the table's `betting_closes_at` (on the wallet's clock) a"
        " slip is still taken, to absorb a known clock skew; `0`: the deadline the table"
        " announced is the deadline.",
    )
    max_bets_per_slip: int = Field(
        default=6,
        ge=1,
        le=6,
        description="The most bets in one slip: a slip holds each bet type at most once, so at"
        " most six.",
    )
    slip_in_one_statement: bool = Field(
        default=True,
        description="Place a transfer slip in one statement (`wallet_place_slips`: one round"
        " trip, its own transaction) once the wallet knows its round's limits, the long way"
        " (a transaction of several statements) only when a guard fails or the key was used;"
        " `false`: always the long way (docs/decisions/0101-a-slip-in-one-round-trip.md).",
    )
    slip_batch_size: int = Field(
        default=16,
        ge=1,
        le=200,
        description="The most transfer slips placed in one statement and one commit (group"
        " commit): slips that arrive while every batch in flight is busy wait for the next;"
        " each is answered once its own batch committed. `1`: each slip alone.",
    )
    slip_batches_in_flight: int = Field(
        default=4,
        ge=1,
        le=64,
        description="How many batches of transfer slips (`TP_SLIP_BATCH_SIZE`) are placed at"
        " once, each on a connection of the pool; a slip that finds one free goes at once.",
    )
    settlement_poll_records: int = Field(
        default=5_000,
        ge=1,
        le=100_000,
        description="The most settlement parts (`BetsSettled`) one poll of `settlement.events`"
        " brings, so one payment transaction pays; in place of `TP_CONSUMER_MAX_RECORDS` for"
        " that topic. A round's settlements come in bursts: a bigger batch pays more bets per"
        " player lock and append.",
    )
    session_lifetime_seconds: int = Field(
        default=8 * 3600,
        ge=60,
        le=7 * 24 * 3600,
        description="How long a player session lives from its opening (`POST /sessions`); the"
        " operator may end it sooner (`DELETE /sessions/{id}`).",
    )
    session_ticket_seconds: int = Field(
        default=60,
        ge=5,
        le=600,
        description="How long the single-use launch ticket in a session's launch URL may be"
        " exchanged for the session token (`POST /sessions/launch`).",
    )
    session_balance_cache_seconds: float = Field(
        default=2.0,
        gt=0,
        le=60,
        description="A seamless operator's player: how long one wallet instance keeps the"
        " operator's answer to a session's `GET /me/balance` (its signed `/user/balance`"
        " call), so that a session makes at most one such call per this many seconds, and"
        " never two at once, however often it asks.",
    )
    player_view_url: str = Field(
        default="http://localhost:8103",
        pattern=_URL,
        description="The base URL of the player view that launch URLs point to"
        " (`<base>/play/<table>?ticket=...&lang=...`): the web front as players' browsers"
        " reach it. Outside development (`TP_ENV`) the wallet refuses to start unless it is an"
        " `https://` URL whose host is neither `localhost` nor a loopback or unspecified"
        " address: a launch URL carries the player's single-use ticket.",
    )
    seamless_signing_key_file: str = Field(
        default="",
        description="The path of our private key (PEM) that signs every call to a seamless"
        " operator's wallet server; operators verify with its public half. Required once any"
        " operator is seamless: without it (empty) their slips are refused"
        " (`operator_unavailable`).",
    )
    seamless_http_client: str = Field(
        default="http11",
        pattern=r"^(http11|httpx)$",
        description="The HTTP client of the calls to seamless operators' wallet servers:"
        " `http11`, our own kept-alive HTTP/1.1 connections, one pool per operator, a"
        " fraction of the CPU a call; `httpx` turns it off (decision 0099). Both bound an"
        " attempt by the operator's timeout, follow no redirect, verify TLS and never retry.",
    )
    seamless_config_cache_seconds: float = Field(
        default=5.0,
        ge=0,
        le=300,
        description="How long an operator's wallet configuration (`teenpatti operators set`)"
        " is used before it is read again: a change takes effect within this, no restart.",
    )
    seamless_sender_interval_seconds: float = Field(
        default=0.2,
        gt=0,
        le=60,
        description="How often the sender looks for owed wins and rollbacks that are due (a"
        " payment that owes some wakes its instance's sender at once), and the recovery loop"
        " for pending slips whose outcome is unknown.",
    )
    seamless_sender_batch: int = Field(
        default=500,
        ge=1,
        le=10_000,
        description="The most owed calls one instance claims at a time.",
    )
    seamless_sender_concurrency: int = Field(
        default=64,
        ge=1,
        le=1_000,
        description="The most calls one instance has in flight to operators' wallet servers"
        " at once (the sender's; slips are bounded by the HTTP server).",
    )
    seamless_sender_step_seconds: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description="The longest one database step of the sender or the recovery loop may"
        " take (waiting for a connection, claiming due calls, recording a batch of answers,"
        " refusing abandoned slips): past it the step is given up, logged and tried again,"
        " so that a connection that stops answering cannot hold the owed calls back.",
    )
    seamless_lease_margin_seconds: float = Field(
        default=1.5,
        gt=0.5,
        le=600,
        description="An owed win or rollback claimed by an instance is leased for its"
        " operator's call timeout plus this: room to record the answer. If the instance dies"
        " with the call in flight, another instance sends it again once the lease runs out"
        " (4.5 s at the default 3 s timeout), with the same `transaction_uuid`.",
    )
    seamless_recovery_margin_seconds: float = Field(
        default=10.0,
        gt=0,
        le=3_600,
        description="A pending slip older than its operator's call timeout plus this is taken"
        " as abandoned (an instance crashed during its bet call): it is refused and its bet"
        " rolled back.",
    )
    seamless_bad_answer_limit: int = Field(
        default=5,
        ge=1,
        le=1_000,
        description="After this many untrustworthy answers (unsigned, wrong signature,"
        " malformed...) to one owed win or rollback, it is `failed`: a problem for a person.",
    )

    def development_settings(self) -> list[str]:
        found = super().development_settings()
        why = unreachable_player_view(self.player_view_url)
        if why is not None:
            unset = "" if "player_view_url" in self.model_fields_set else " (not set: its default)"
            found.append(f"TP_PLAYER_VIEW_URL is {self.player_view_url}{unset}: {why}")
        return found


def unreachable_player_view(url: str) -> str | None:
    """Why players' browsers may not be sent to `url` outside development, or None: a launch
    URL carries a ticket that opens the player's session, so only over TLS, to a host that is
    not the player's own machine."""
    parts = urlsplit(url)
    if parts.scheme != "https":
        return "not https, so the launch ticket would travel in the clear"
    host = (parts.hostname or "").rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return "localhost is each player's own machine"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address is not None and (address.is_loopback or address.is_unspecified):
        return f"{host} is a loopback or unspecified address, each player's own machine"
    if host.startswith(PLACEHOLDER):
        return "still the placeholder of deploy/docker/.env.example"
    return None
