"""Player sessions, the pure parts: the session and its launch ticket, the session token,
the statuses, what a player's slip may name, and the redaction of both secrets."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from itertools import count
from uuid import UUID

import pytest

from teenpatti.access.holders import KeyHolder
from teenpatti.http import ProblemError
from teenpatti.observability.logs import redact
from teenpatti.seamless import Answered, BadAnswer, NoAnswer, Status
from wallet_service.domain.seamless import (
    BadOperatorAnswerError,
    OperatorRefusedError,
    OperatorUnavailableError,
    TokenExpiredError,
    UserDisabledError,
)
from wallet_service.domain.sessions import (
    ACTIVE,
    ENDED,
    EXPIRED,
    NOT_LAUNCHED,
    PlayerSession,
    SessionMismatchError,
    launch_url,
    new_session,
    operator_balance,
    parse_session_token,
    session_token,
    ticket_digest,
)
from wallet_service.session_auth import placement

NOW = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
SESSION_ID = UUID("12345678-1234-5678-1234-567812345678")


def _hex() -> object:
    digits = count(1)
    return lambda n: f"{next(digits):x}".rjust(2 * n, "0")


def _opened(**changes: object) -> PlayerSession:
    new = new_session(
        session_id=SESSION_ID,
        operator_id="op-1",
        player_id="p1",
        currency="INR",
        language="th",
        table_id="T1",
        operator_token="operator-token-1",
        now=NOW,
        lifetime=timedelta(hours=8),
        ticket_lifetime=timedelta(seconds=60),
    )
    return replace(new.row, **changes)  # type: ignore[arg-type]


def test_a_new_session_keeps_only_the_tickets_digest_and_expires_after_its_lifetime() -> None:
    new = new_session(
        session_id=SESSION_ID,
        operator_id="op-1",
        player_id="p1",
        currency="INR",
        language="en",
        table_id="T1",
        operator_token="operator-token-1",
        now=NOW,
        lifetime=timedelta(hours=8),
        ticket_lifetime=timedelta(seconds=60),
        token_hex=_hex(),  # type: ignore[arg-type]
    )
    assert new.ticket == "tpl_" + "1".rjust(64, "0")
    assert new.ticket_sha256 == hashlib.sha256(new.ticket.encode()).digest()
    assert ticket_digest(new.ticket) == new.ticket_sha256
    assert new.ticket_expires_at == NOW + timedelta(seconds=60)
    assert new.row.expires_at == NOW + timedelta(hours=8)
    assert new.row.secret_sha256 is None
    assert new.row.status(NOW) == NOT_LAUNCHED


def test_a_ticket_never_outlives_its_session() -> None:
    new = new_session(
        session_id=SESSION_ID,
        operator_id="op-1",
        player_id="p1",
        currency="INR",
        language="en",
        table_id="T1",
        operator_token="t",
        now=NOW,
        lifetime=timedelta(seconds=30),
        ticket_lifetime=timedelta(seconds=60),
    )
    assert new.ticket_expires_at == NOW + timedelta(seconds=30)


@pytest.mark.parametrize(
    ("language", "table_id", "message"),
    [("de", "T1", "language 'de'"), ("en", "T 1", "table id 'T 1'")],
)
def test_a_session_for_an_unknown_language_or_a_bad_table_is_refused(
    language: str, table_id: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        new_session(
            session_id=SESSION_ID,
            operator_id="op-1",
            player_id="p1",
            currency="INR",
            language=language,
            table_id=table_id,
            operator_token="t",
            now=NOW,
            lifetime=timedelta(hours=1),
            ticket_lifetime=timedelta(seconds=60),
        )


def test_a_session_token_names_its_session_and_only_its_secret_opens_it() -> None:
    issued = session_token(SESSION_ID)
    parsed = parse_session_token(issued.token)
    assert parsed is not None
    session_id, secret = parsed
    assert session_id == SESSION_ID
    assert issued.token == f"tps_{SESSION_ID.hex}_{secret}"
    session = _opened(launched_at=NOW, secret_sha256=issued.secret_sha256)
    assert session.opens_with(secret)
    assert not session.opens_with(secret[:-1] + ("0" if secret[-1] != "0" else "1"))
    assert not _opened().opens_with(secret)  # not launched: no secret opens it


@pytest.mark.parametrize(
    "token",
    [
        "",
        "tp_0123456789ab_" + "0" * 64,  # an API key is no session token
        f"tps_{SESSION_ID.hex}_" + "0" * 63,
        f"tps_{SESSION_ID.hex}_" + "G" * 64,
        f"tps_{SESSION_ID.hex}_" + "0" * 64 + "\n",
    ],
)
def test_a_malformed_session_token_is_no_token(token: str) -> None:
    assert parse_session_token(token) is None


@pytest.mark.parametrize("ticket", ["", "tpl_" + "0" * 63, "tps_" + "0" * 64, "tpl_" + "x" * 64])
def test_a_malformed_ticket_is_no_ticket(ticket: str) -> None:
    assert ticket_digest(ticket) is None


def test_a_sessions_status_ended_before_expired_before_not_launched() -> None:
    later = NOW + timedelta(hours=9)
    assert _opened().status(NOW) == NOT_LAUNCHED
    assert _opened(launched_at=NOW, secret_sha256=b"x" * 32).status(NOW) == ACTIVE
    assert _opened(launched_at=NOW, secret_sha256=b"x" * 32).status(later) == EXPIRED
    assert _opened().status(later) == EXPIRED
    assert _opened(ended_at=NOW, ended_by="op-1").status(NOW) == ENDED
    assert _opened(ended_at=NOW, ended_by="op-1").status(later) == ENDED


def test_a_player_slip_names_only_its_sessions_player_currency_and_table() -> None:
    session = _opened(launched_at=NOW)
    session.check_slip(None, None, "T1-7")
    session.check_slip("p1", "INR", "T1-7")
    with pytest.raises(SessionMismatchError, match="player p2"):
        session.check_slip("p2", None, "T1-7")
    with pytest.raises(SessionMismatchError, match="in EUR"):
        session.check_slip(None, "EUR", "T1-7")
    with pytest.raises(SessionMismatchError, match="round T2-7 is not of table T1"):
        session.check_slip(None, None, "T2-7")
    with pytest.raises(SessionMismatchError, match="round T1 is not of table T1"):
        session.check_slip(None, None, "T1")


def test_a_players_slip_is_placed_for_its_session_under_its_own_idempotency_key() -> None:
    session = _opened(launched_at=NOW)
    placed = placement(
        session, player_id=None, currency=None, round_id="T1-3", idempotency_key="k1"
    )
    assert (placed.operator_id, placed.player_id, placed.currency) == ("op-1", "p1", "INR")
    assert placed.idempotency_key == "session-player:p1:k1"
    assert placed.operator_token == "operator-token-1"
    # the operator's token is the session's: a player cannot send another
    with pytest.raises(SessionMismatchError, match="names no token"):
        placement(
            session,
            player_id=None,
            currency=None,
            round_id="T1-3",
            idempotency_key="k1",
            token="someone-elses",
        )


def test_an_operators_slip_names_its_player_and_currency() -> None:
    operator = KeyHolder("op-1", "operator")
    placed = placement(
        operator, player_id="p9", currency="EUR", round_id="T1-3", idempotency_key="k1"
    )
    assert placed == type(placed)("op-1", "p9", "EUR", "k1", None)
    with_token = placement(
        operator,
        player_id="p9",
        currency="EUR",
        round_id="T1-3",
        idempotency_key="k1",
        token="operator-token-9",
    )
    assert with_token.operator_token == "operator-token-9"
    with pytest.raises(ProblemError) as refused:
        placement(operator, player_id=None, currency="EUR", round_id="T1-3", idempotency_key="k")
    assert (refused.value.status, refused.value.code) == (422, "invalid_request")
    assert "player_id" in refused.value.detail


def test_the_launch_url_carries_the_ticket_and_the_language_never_a_token() -> None:
    url = launch_url("https://play.example/", "T1", "tpl_" + "a" * 64, "ja")
    assert url == f"https://play.example/play/T1?ticket=tpl_{'a' * 64}&lang=ja"


def test_session_tokens_and_tickets_are_redacted_from_log_lines() -> None:
    token = session_token(SESSION_ID).token
    ticket = "tpl_" + "c" * 64
    line = redact(f"player {token} launched from /play/T1?ticket={ticket} (sent as {token})")
    assert token.rpartition("_")[2] not in line
    assert ticket[4:] not in line
    assert f"tps_{SESSION_ID.hex}_[redacted]" in line  # the session id stays for the reader


def test_a_seamless_players_balance_is_the_operators_answer_or_a_named_refusal() -> None:
    def answered(status: Status) -> Answered:
        return Answered(status=status, balance=4_600, currency="INR", raw={})

    assert operator_balance(answered(Status.RS_OK)) == 4_600
    for outcome, refusal, code in (
        (answered(Status.RS_ERROR_TOKEN_EXPIRED), TokenExpiredError, "token_expired"),
        (answered(Status.RS_ERROR_INVALID_TOKEN), TokenExpiredError, "token_expired"),
        (answered(Status.RS_ERROR_USER_DISABLED), UserDisabledError, "user_disabled"),
        (answered(Status.RS_ERROR_UNKNOWN), OperatorRefusedError, "operator_refused"),
        (NoAnswer("timeout", "3.0 s"), OperatorUnavailableError, "operator_unavailable"),
        (BadAnswer("wrong_signature", b"{}"), BadOperatorAnswerError, "bad_operator_answer"),
    ):
        with pytest.raises(refusal) as refused:
            operator_balance(outcome)
        assert refused.value.code == code
        # its problem document's own members (status, code, ...) are never overwritten
        assert not {"status", "code", "detail"} & set(refused.value.extra)


def test_the_http_edge_takes_exactly_the_sessions_languages() -> None:
    from typing import get_args

    from wallet_service.domain.sessions import LANGUAGES
    from wallet_service.session_entrypoints import Language

    assert get_args(Language) == LANGUAGES
