"""The Hub88 wire: our calls as requests (protocol units, exact fields), and answers read
strictly: each way an answer can be wrong is named, and only a signed answer to this very
request, in its currency, with a sane balance, is `Answered`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from teenpatti.seamless.calls import (
    BAD_ANSWER_REASONS,
    Answered,
    BadAnswer,
    BalanceCall,
    BetCall,
    Expected,
    RollbackCall,
    WinCall,
)
from teenpatti.seamless.config import OperatorConfig, WalletMode, WinPer
from teenpatti.seamless.hub88 import (
    INT64_MAX,
    Answer,
    BetRequest,
    Hub88Adapter,
    RollbackRequest,
    Status,
    WinRequest,
    encode,
)
from teenpatti.seamless.signing import (
    generate_private_key,
    load_private_key,
    load_public_key,
    public_key_pem,
    sign,
)

VECTORS = Path(__file__).parent / "vectors"
OPERATOR_KEY = load_private_key((VECTORS / "private.pem").read_bytes())
OPERATOR_PUBLIC = [load_public_key((VECTORS / "public.pub").read_bytes())]
ADAPTER = Hub88Adapter()
EXPECTED = Expected(request_uuid="req-1", user="p1", currency="INR")


def _answer(**changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "user": "p1",
        "status": "RS_OK",
        "request_uuid": "req-1",
        "currency": "INR",
        "balance": 10_000_000,
    }
    fields.update(changes)
    return {name: value for name, value in fields.items() if value is not ...}


def _read(fields: Any, *, key: Any = OPERATOR_KEY, signed: bool = True) -> Answered | BadAnswer:
    body = fields if isinstance(fields, bytes) else json.dumps(fields).encode()
    signature = sign(key, body) if signed else None
    return ADAPTER.read_answer(body, signature, OPERATOR_PUBLIC, EXPECTED)


def test_a_good_answer() -> None:
    outcome = _read(_answer())
    assert outcome == Answered(Status.RS_OK, 10_000, "INR", _answer(), "req-1")
    assert outcome.ok


def test_a_refusal_is_an_answer() -> None:
    outcome = _read(_answer(status="RS_ERROR_NOT_ENOUGH_MONEY", balance=356_000))
    assert isinstance(outcome, Answered)
    assert (outcome.status, outcome.balance, outcome.ok) == (
        Status.RS_ERROR_NOT_ENOUGH_MONEY,
        356,
        False,
    )


def test_a_refusal_may_name_the_players_own_currency() -> None:
    outcome = _read(_answer(status="RS_ERROR_WRONG_CURRENCY", currency="EUR", balance=5_000))
    assert outcome == Answered(
        Status.RS_ERROR_WRONG_CURRENCY,
        5,
        "EUR",
        _answer(status="RS_ERROR_WRONG_CURRENCY", currency="EUR", balance=5_000),
        "req-1",
    )


def test_unknown_fields_are_ignored() -> None:
    outcome = _read(_answer(extra_field={"anything": 1}))
    assert isinstance(outcome, Answered)
    assert outcome.balance == 10_000


@pytest.mark.parametrize(
    ("fields", "options", "reason"),
    [
        (_answer(), {"signed": False}, "unsigned"),
        (_answer(), {"key": generate_private_key()}, "wrong_signature"),
        (b"<html>502 Bad Gateway</html>", {}, "malformed"),
        (b"[1, 2]", {}, "malformed"),
        (b"\xff\xfe", {}, "malformed"),
        (_answer(balance=...), {}, "malformed"),
        (_answer(balance=100.0), {}, "malformed"),  # never floats
        (_answer(balance="100000"), {}, "malformed"),
        (_answer(balance=True), {}, "malformed"),
        (_answer(currency="inr"), {}, "malformed"),
        (_answer(status=None), {}, "malformed"),
        (_answer(request_uuid="req-0"), {}, "wrong_request_uuid"),
        (_answer(status="RS_MAYBE"), {}, "unknown_status"),
        (_answer(status="rs_ok"), {}, "unknown_status"),
        (_answer(user="p2"), {}, "wrong_user"),
        (_answer(currency="EUR"), {}, "other_currency"),
        (_answer(balance=-1_000), {}, "negative_balance"),
        (_answer(balance=INT64_MAX + 1), {}, "absurd_balance"),
        (_answer(balance=356_001), {}, "absurd_balance"),  # a hundredth of a paisa
    ],
)
def test_each_bad_answer_is_named(fields: Any, options: dict[str, Any], reason: str) -> None:
    outcome = _read(fields, **options)
    assert isinstance(outcome, BadAnswer), outcome
    assert outcome.reason == reason
    assert reason in BAD_ANSWER_REASONS
    assert outcome.detail
    assert outcome.request_uuid == "req-1"
    assert outcome.raw == (fields if isinstance(fields, bytes) else json.dumps(fields).encode())


def test_the_signature_is_checked_over_the_bytes_as_received() -> None:
    # the same JSON, re-serialised with other spacing, is other bytes: its signature fails
    body = json.dumps(_answer()).encode()
    spaced = json.dumps(_answer(), indent=2).encode()
    outcome = ADAPTER.read_answer(spaced, sign(OPERATOR_KEY, body), OPERATOR_PUBLIC, EXPECTED)
    assert isinstance(outcome, BadAnswer)
    assert outcome.reason == "wrong_signature"


def test_a_signed_answer_verifies_under_a_rolled_over_key() -> None:
    new_key = generate_private_key()
    both = [*OPERATOR_PUBLIC, load_public_key(public_key_pem(new_key))]
    body = json.dumps(_answer()).encode()
    for key in (OPERATOR_KEY, new_key):
        assert isinstance(ADAPTER.read_answer(body, sign(key, body), both, EXPECTED), Answered)


# --- requests ------------------------------------------------------------------------------


def _decoded(call: Any, request_uuid: str = "req-1") -> tuple[str, dict[str, Any]]:
    path, request = ADAPTER.request(call, "teen_patti_20_20", request_uuid)
    return path, json.loads(encode(request))


def test_a_bet_request() -> None:
    call = BetCall(
        user="p1",
        token="tok",
        transaction_uuid="slip-1",
        round="T1-42",
        amount=356,
        currency="INR",
        bet="player_a",
        meta={"table": "T1"},
    )
    assert _decoded(call) == (
        "/transaction/bet",
        {
            "user": "p1",
            "token": "tok",
            "game_code": "teen_patti_20_20",
            "request_uuid": "req-1",
            "transaction_uuid": "slip-1",
            "round": "T1-42",
            "round_closed": False,
            "amount": 356_000,
            "currency": "INR",
            "bet": "player_a",
            "meta": {"table": "T1"},
        },
    )


def test_a_win_request_references_its_bet_and_may_be_zero() -> None:
    call = WinCall(
        user="p1",
        token="tok",
        transaction_uuid="win-1",
        reference_transaction_uuid="slip-1",
        round="T1-42",
        amount=0,
        currency="JPY",
        round_closed=True,
    )
    path, body = _decoded(call)
    assert path == "/transaction/win"
    assert body["reference_transaction_uuid"] == "slip-1"
    assert (body["amount"], body["currency"], body["round_closed"]) == (0, "JPY", True)


def test_a_rollback_request_carries_no_amount() -> None:
    call = RollbackCall(
        user="p1",
        token="tok",
        transaction_uuid="rb-1",
        reference_transaction_uuid="slip-1",
        round="T1-42",
        currency="INR",
    )
    assert _decoded(call) == (
        "/transaction/rollback",
        {
            "user": "p1",
            "token": "tok",
            "game_code": "teen_patti_20_20",
            "request_uuid": "req-1",
            "transaction_uuid": "rb-1",
            "reference_transaction_uuid": "slip-1",
            "round": "T1-42",
        },
    )


def test_a_balance_request() -> None:
    assert _decoded(BalanceCall(user="p1", token="tok", currency="INR")) == (
        "/user/balance",
        {"user": "p1", "token": "tok", "game_code": "teen_patti_20_20", "request_uuid": "req-1"},
    )


def test_requests_parse_back_strictly_on_the_operators_side() -> None:
    _, body = _decoded(
        BetCall(user="p1", token="t", transaction_uuid="s", round="r", amount=1, currency="INR")
    )
    assert BetRequest.model_validate_json(json.dumps({**body, "unknown": 1})).amount == 1_000
    for wrong in ({"amount": 1000.0}, {"amount": "1000"}, {"amount": -1}, {"currency": "inr"}):
        with pytest.raises(ValidationError):
            BetRequest.model_validate_json(json.dumps({**body, **wrong}))
    with pytest.raises(ValidationError):
        WinRequest.model_validate_json(json.dumps(body))  # no reference_transaction_uuid
    with pytest.raises(ValidationError):
        RollbackRequest.model_validate_json(json.dumps(body))


def test_a_negative_amount_is_never_sent() -> None:
    call = BetCall(user="p1", token="t", transaction_uuid="s", round="r", amount=-1, currency="INR")
    with pytest.raises(ValidationError):
        ADAPTER.request(call, "teen_patti_20_20", "req-1")


def test_answers_encode_compactly() -> None:
    answer = Answer(user="p1", status="RS_OK", request_uuid="r", currency="INR", balance=1)
    assert encode(answer) == (
        b'{"user":"p1","status":"RS_OK","request_uuid":"r","currency":"INR","balance":1}'
    )


# --- configuration -------------------------------------------------------------------------


def test_an_operator_without_configuration_is_transfer() -> None:
    config = OperatorConfig.transfer("operator-1")
    assert (config.mode, config.seamless, config.base_url) == (WalletMode.TRANSFER, False, None)


def test_a_seamless_operator_needs_a_server_and_a_key() -> None:
    pem = (VECTORS / "public.pub").read_text()
    with pytest.raises(ValidationError, match="base_url"):
        OperatorConfig(operator_id="o", mode=WalletMode.SEAMLESS, public_keys=(pem,))
    with pytest.raises(ValidationError, match="public key"):
        OperatorConfig(operator_id="o", mode=WalletMode.SEAMLESS, base_url="http://w")
    with pytest.raises(ValidationError, match="not a readable PEM public key"):
        OperatorConfig(operator_id="o", public_keys=("garbage",))
    config = OperatorConfig(
        operator_id="o", mode=WalletMode.SEAMLESS, base_url="https://w/api/", public_keys=(pem,)
    )
    assert config.base_url == "https://w/api"
    assert len(config.loaded_public_keys) == 1


def test_wins_are_owed_per_player_and_round_unless_set_per_slip() -> None:
    assert OperatorConfig.transfer("o").win_per is WinPer.ROUND
    assert OperatorConfig(operator_id="o", win_per="slip").win_per is WinPer.SLIP
    for wrong in ("bet", "ROUND", "", 1):
        with pytest.raises(ValidationError, match="win_per"):
            OperatorConfig.model_validate({"operator_id": "o", "win_per": wrong})


def test_backoff_grows_to_its_cap_with_jitter() -> None:
    config = OperatorConfig(operator_id="o", base_backoff_seconds=1.0, max_backoff_seconds=30.0)
    assert [config.backoff_seconds(attempts, 1.0) for attempts in (1, 2, 3, 4, 5, 6, 100)] == [
        1.0,
        2.0,
        4.0,
        8.0,
        16.0,
        30.0,
        30.0,
    ]
    # the jitter keeps at least half of the step
    assert config.backoff_seconds(3, 0.0) == 2.0
    assert config.backoff_seconds(3, 0.5) == 3.0
