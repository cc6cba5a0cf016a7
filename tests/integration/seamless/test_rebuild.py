"""`teenpatti rebuild wallet` on the real stack: a session of transfer and seamless players
(deposits, a withdrawal, slips refused and taken, a round paid then voided after its result,
a round voided before its result and refunded, a round held at the settlement and voided by
two supervisors there, an instance stopped and started again) rebuilt from the wallet's
event stream into fresh tables, every projection equal to the live one row for row; a live
row changed behind the events' back is found."""

from __future__ import annotations

import json
from uuid import UUID, uuid4

import pytest

from teenpatti.events.catalog import (
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    RoundCancelled,
    SettlementResolved,
)
from tests.integration.seamless.game import (
    FUNDS,
    Keys,
    call_done,
    configure,
    operators_cli,
    reference_operator,
    seamless_settings,
    settle,
    slip,
)
from tests.integration.seamless.support import CARDS, reverse, voided_after_result
from tests.integration.seamless.support import settle as settle_slips
from tests.integration.wallet.helpers import (
    OPERATOR_2,
    close_betting,
    close_round,
    database,
    deposit,
    eventually,
    open_round,
    place,
    send,
    wait_for_round,
    wallet,
)
from wallet_service.config import WalletSettings


async def rebuild(
    monkeypatch: pytest.MonkeyPatch, settings: WalletSettings, *argv: str
) -> tuple[int, dict[str, object], str]:
    """`teenpatti rebuild wallet --json ARGV...` on the test's wallet database."""
    status, out, err = await operators_cli(
        monkeypatch, settings.wallet_database, "wallet", "--json", *argv, command="rebuild"
    )
    return status, (json.loads(out) if out else {}), err


async def test_the_wallet_rebuilt_from_its_events_equals_the_live_projections(
    monkeypatch: pytest.MonkeyPatch,
    wallet_settings: WalletSettings,
    keys: Keys,
    operator_database: str,
) -> None:
    settings = seamless_settings(wallet_settings, keys)
    async with reference_operator(operator_database, keys) as operator:
        async with wallet(settings) as client:
            await configure(settings, operator, keys)
            await open_round(settings, client, "T1-000301")
            # transfer players: deposits, a withdrawal, a slip refused for its funds, slips
            await deposit(client, "tp1", 10_000, headers=OPERATOR_2)
            await deposit(client, "tp2", 3_000, headers=OPERATOR_2)
            withdrawn = await client.post(
                "/players/tp2/withdrawals",
                json={"transfer_id": f"w-{uuid4()}", "currency": "INR", "amount": 500},
                headers=OPERATOR_2,
            )
            assert withdrawn.status_code == 200, withdrawn.text
            poor = await place(client, "tp2", "T1-000301", [("tie", 9_000)], headers=OPERATOR_2)
            assert poor.status_code == 409, poor.text
            transfer = [
                await place(client, "tp1", "T1-000301", bets, headers=OPERATOR_2)
                for bets in ([("player_a", 1_000), ("tie", 200)], [("pair_plus_b", 300)])
            ]
            assert [r.status_code for r in transfer] == [201, 201]
            # seamless players
            user, token = await operator.player()
            seamless = await slip(client, user, token, "T1-000301", [("player_a", 2_000)])
            assert seamless.status_code == 201, seamless.text

        # the instance stops and another starts on the same database
        async with wallet(settings) as client:
            await close_betting(settings, "T1-000301")
            await close_round(settings, client, "T1-000301", CARDS)
            await settle_slips(
                settings,
                "T1-000301",
                [("operator-2", r.json()) for r in transfer],
                cancelled=False,
            )
            await settle(settings, "T1-000301", [seamless.json()], cancelled=False)
            await call_done(settings, seamless.json()["slip_id"], "win")

            # a round voided before its result: every stake refunded
            await open_round(settings, client, "T1-000302")
            refunded = await place(
                client, "tp1", "T1-000302", [("player_b", 700)], headers=OPERATOR_2
            )
            assert refunded.status_code == 201, refunded.text
            voided = await slip(client, user, token, "T1-000302", [("tie", 400)])
            assert voided.status_code == 201, voided.text
            await send(
                settings,
                TABLE_EVENTS,
                RoundCancelled(
                    round_id="T1-000302", table_id="T1", actor="sup", reason="shoe", cards_dealt=0
                ),
                table_id="T1",
            )
            await wait_for_round(client, "T1-000302", "cancelled")
            await settle_slips(
                settings, "T1-000302", [("operator-2", refunded.json())], cancelled=True
            )
            await settle(settings, "T1-000302", [voided.json()], cancelled=True)
            await call_done(settings, voided.json()["slip_id"], "rollback")

            # a round held at the settlement, voided there by two supervisors: refunded
            await open_round(settings, client, "T1-000303")
            held = await place(client, "tp1", "T1-000303", [("tie", 600)], headers=OPERATOR_2)
            assert held.status_code == 201, held.text
            await close_betting(settings, "T1-000303")
            await close_round(settings, client, "T1-000303", CARDS)
            await send(
                settings,
                SETTLEMENT_EVENTS,
                SettlementResolved(
                    resolution_id=UUID(int=303),
                    round_id="T1-000303",
                    table_id="T1",
                    action="void",
                    reason="two results were recorded",
                    problems=["conflicting_result"],
                    requested_by="sup-ana",
                    confirmed_by="sup-ben",
                ),
                table_id="T1",
            )
            await wait_for_round(client, "T1-000303", "cancelled")
            await settle_slips(settings, "T1-000303", [("operator-2", held.json())], cancelled=True)

            # the first round voided after its result: stakes back, winnings taken back
            await send(settings, TABLE_EVENTS, voided_after_result("T1-000301"), table_id="T1")
            await reverse(
                settings,
                "T1-000301",
                [("operator-2", r.json()) for r in transfer] + [("operator-1", seamless.json())],
            )

            async def corrected() -> bool:
                async with database(settings) as connection:
                    return bool(
                        await connection.fetchval("SELECT count(*) = 2 FROM wallet_corrections")
                    )

            await eventually(corrected, what="the voided round's corrections")
        assert await operator.balance(user) > FUNDS - 2_000  # player A won, and it stays

    status, report, err = await rebuild(monkeypatch, settings)
    assert status == 0, err + json.dumps(report, indent=1)
    assert report["equal"] is True and report["disagreements"] == []
    counted = {p["name"]: p for p in report["projections"]}  # type: ignore[attr-defined]
    assert set(counted) == {
        "wallet_accounts",
        "wallet_transfers",
        "wallet_bets",
        "wallet_ledger",
        "wallet_round_seals",
        "wallet_corrections",
    }
    assert counted["wallet_bets"]["live_rows"] == counted["wallet_bets"]["rebuilt_rows"] == 7
    assert counted["wallet_transfers"]["rebuilt_rows"] == 3
    assert counted["wallet_round_seals"]["rebuilt_rows"] == 3
    assert counted["wallet_corrections"]["rebuilt_rows"] == 2
    assert counted["wallet_ledger"]["rebuilt_rows"] > 6
    assert report["events"] > 0 and report["schema"] is None

    # a balance changed behind the events' back, and a ledger entry lost: both found
    async with database(settings) as connection:
        await connection.execute(
            "UPDATE wallet_accounts SET balance = balance + 1 WHERE player_id = 'tp1'"
        )
        await connection.execute(
            "DELETE FROM wallet_ledger WHERE entry_id = (SELECT entry_id FROM wallet_ledger"
            " WHERE kind = 'deposit' LIMIT 1)"
        )
    status, report, err = await rebuild(monkeypatch, settings, "--keep")
    assert status == 1, err
    differing = {p["name"]: p for p in report["projections"] if p["only_live"] or p["only_rebuilt"]}  # type: ignore[attr-defined]
    assert set(differing) == {"wallet_accounts", "wallet_ledger"}
    accounts = differing["wallet_accounts"]
    assert (accounts["only_live"], accounts["only_rebuilt"]) == (1, 1)
    assert accounts["examples_live"][0]["balance"] == accounts["examples_rebuilt"][0]["balance"] + 1
    assert (
        differing["wallet_ledger"]["only_live"],
        differing["wallet_ledger"]["only_rebuilt"],
    ) == (0, 1)
    # the fresh tables are kept for a person to query
    schema = str(report["schema"])
    async with database(settings) as connection:
        kept = await connection.fetchval(f"SELECT count(*) FROM {schema}.wallet_bets")
        await connection.execute(f"DROP SCHEMA {schema} CASCADE")
    assert kept == 7


async def test_a_service_that_rebuilds_nothing_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, wallet_settings: WalletSettings
) -> None:
    for name, why in (("table", "declares no rebuild"), ("casino", "no service 'casino'")):
        status, _, err = await operators_cli(
            monkeypatch, wallet_settings.wallet_database, name, command="rebuild"
        )
        assert (status, why in err) == (2, True), err
