"""The operator's wallet in the wallet's /metrics, driven by real calls: a seamless operator
(the independent counterpart `tests/counterparts/hub88_operator.py`) answering a bet, holding
one past the timeout, signing one badly and refusing one; each attempt counted by its
outcome and timed, the timeout and the bad answer on their own counters too, and every slip
refused, seamless or transfer, counted by its operator and code."""

from __future__ import annotations

from uuid import uuid4

import httpx
from prometheus_client.parser import text_string_to_metric_families

from teenpatti.seamless.signing import public_key_pem
from tests.counterparts.hub88_operator import hub88_operator
from tests.integration.seamless.game import (
    SEAMLESS,
    UNITS,
    Keys,
    configure_wallet_server,
    seamless_settings,
    slip,
)
from tests.integration.wallet.helpers import OPERATOR_2, open_round, place, wallet
from wallet_service.config import WalletSettings

BET = "/transaction/bet"
ROUND = "T1-000301"


async def scrape(client: httpx.AsyncClient) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of the wallet's /metrics, by name and labels."""
    answer = await client.get("/metrics")
    assert answer.status_code == 200
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def grew(
    before: dict[tuple[str, frozenset[tuple[str, str]]], float],
    after: dict[tuple[str, frozenset[tuple[str, str]]], float],
    name: str,
    **labels: str,
) -> float:
    key = (name, frozenset(labels.items()))
    return after.get(key, 0.0) - before.get(key, 0.0)


async def test_calls_to_the_operators_wallet_and_refused_slips_are_counted(
    wallet_settings: WalletSettings, keys: Keys
) -> None:
    settings = seamless_settings(wallet_settings, keys)
    async with (
        hub88_operator([public_key_pem(keys.game).decode()]) as operator,
        wallet(settings) as client,
    ):
        await configure_wallet_server(
            settings, operator.base_url, operator.public_key_pem, timeout=0.5
        )
        await open_round(settings, client, ROUND)
        user = f"m-{uuid4().hex[:12]}"
        token = operator.add_player(user, "INR", 1_000_000 * UNITS)
        before = await scrape(client)

        taken = await slip(client, user, token, ROUND, [("player_a", 1_000)])
        assert taken.status_code == 201, taken.text
        operator.hold_next(BET, 5.0)  # answered long after the wallet's 0.5 s
        held = await slip(client, user, token, ROUND, [("player_a", 1_000)])
        assert (held.status_code, held.json()["code"]) == (503, "operator_unavailable")
        operator.sign_badly_next(BET)
        forged = await slip(client, user, token, ROUND, [("player_a", 1_000)])
        assert (forged.status_code, forged.json()["code"]) == (502, "bad_operator_answer")
        operator.refuse_next(BET, "RS_ERROR_NOT_ENOUGH_MONEY")
        short = await slip(client, user, token, ROUND, [("player_a", 1_000)])
        assert (short.status_code, short.json()["code"]) == (409, "insufficient_funds")
        # a transfer operator's slip for a player with no money
        broke = await place(
            client, f"m-{uuid4().hex[:12]}", ROUND, [("tie", 100)], headers=OPERATOR_2
        )
        assert (broke.status_code, broke.json()["code"]) == (409, "insufficient_funds")

        after = await scrape(client)

    def calls(outcome: str) -> float:
        return grew(
            before,
            after,
            "teenpatti_operator_calls_total",
            operator=SEAMLESS,
            call="bet",
            outcome=outcome,
        )

    assert {
        outcome: calls(outcome)
        for outcome in ("RS_OK", "timeout", "bad_answer", "RS_ERROR_NOT_ENOUGH_MONEY", "no_answer")
    } == {"RS_OK": 1, "timeout": 1, "bad_answer": 1, "RS_ERROR_NOT_ENOUGH_MONEY": 1, "no_answer": 0}
    timed = grew(
        before,
        after,
        "teenpatti_operator_call_duration_seconds_count",
        operator=SEAMLESS,
        call="bet",
    )
    assert timed == 4
    assert (
        grew(before, after, "teenpatti_operator_call_timeouts_total", operator=SEAMLESS, call="bet")
        == 1
    )
    assert (
        grew(
            before,
            after,
            "teenpatti_operator_bad_answers_total",
            operator=SEAMLESS,
            reason="wrong_signature",
        )
        == 1
    )

    def refused(operator_id: str, code: str) -> float:
        return grew(
            before, after, "teenpatti_wallet_slips_refused_total", operator=operator_id, code=code
        )

    assert refused(SEAMLESS, "operator_unavailable") == 1
    assert refused(SEAMLESS, "bad_operator_answer") == 1
    assert refused(SEAMLESS, "insufficient_funds") == 1
    assert refused("operator-2", "insufficient_funds") == 1
    # the operator's own account: every bet it received, the held one included
    assert [r["path"] for r in operator.requests].count(BET) == 4
