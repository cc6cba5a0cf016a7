"""BetsSettled to BetsPaid: paid once per bet, one event and one ledger credit per player and
settlement part, the history shows the round, money is conserved."""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import (
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    BetSettled,
    BetsPaid,
    BetsSettled,
    RoundClosed,
    registry,
)
from tests.integration.services import count_of, of_type, paid_bets
from wallet_service.config import WalletSettings

from .helpers import (
    OPERATOR_1,
    OPERATOR_2,
    balances,
    close_betting,
    close_round,
    database,
    deposit,
    eventually,
    open_round,
    place,
    published,
    send,
    wait_for_round,
    wallet,
)

CARDS = ["AS", "2D", "AH", "3C", "KD", "9S"]


def line(bet: dict[str, Any], operator_id: str, outcome: str, returned: int) -> BetSettled:
    """The bet's `BetSettled` line (`bet` as the wallet shows it)."""
    return BetSettled(
        bet_id=UUID(bet["bet_id"]),
        operator_id=operator_id,
        player_id=bet["player_id"],
        bet_type=bet["bet_type"],
        stake=bet["stake"],
        currency=bet["currency"],
        outcome=outcome,  # type: ignore[arg-type]
        returned=returned,
        fraction_kept="0",
        odds=None,
    )


def settled(bet: dict[str, Any], operator_id: str, outcome: str, returned: int) -> BetsSettled:
    """A settlement part of the one bet."""
    return BetsSettled(
        round_id=bet["round_id"],
        table_id=bet["table_id"],
        bets=[line(bet, operator_id, outcome, returned)],
    )


async def test_a_full_round_pays_once_and_conserves_money(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001")
        await deposit(client, "p1", 5_000)
        await deposit(client, "p1", 3_000, headers=OPERATOR_2)
        first = await place(client, "p1", "T1-000001", [("player_a", 1_000), ("tie", 200)])
        second = await place(client, "p1", "T1-000001", [("player_b", 500)], headers=OPERATOR_2)
        assert first.status_code == second.status_code == 201
        bets_1 = {b["bet_type"]: b["bet_id"] for b in first.json()["bets"]}
        (bet_2,) = second.json()["bets"]

        await close_betting(wallet_settings, "T1-000001")
        await wait_for_round(client, "T1-000001", "sealed")
        await send(
            wallet_settings,
            TABLE_EVENTS,
            RoundClosed(
                round_id="T1-000001",
                table_id="T1",
                cards=CARDS,
                player_a_hand="pair",
                player_b_hand="high_card",
                winner="player_a",
                six_card_bonus_hand=None,
            ),
            table_id="T1",
        )
        await wait_for_round(client, "T1-000001", "closed")
        history = (await client.get("/players/p1/bets", headers=OPERATOR_1)).json()["items"]
        assert {b["round"]["winner"] for b in history} == {"player_a"}
        assert history[0]["round"]["cards"] == CARDS
        assert {b["status"] for b in history} == {"placed"}

        view_1 = {b["bet_type"]: b for b in history}
        view_2 = (await client.get(f"/bets/{bet_2['bet_id']}", headers=OPERATOR_2)).json()
        won = settled(view_1["player_a"], "operator-1", "won", 1_950)
        # the same settlement twice, as two events: paid once
        for event in (
            won,
            settled(view_1["tie"], "operator-1", "lost", 0),
            won,
            settled(view_2, "operator-2", "lost", 0),
        ):
            await send(wallet_settings, SETTLEMENT_EVENTS, event, table_id="T1")

        async def all_paid() -> bool:
            bet = await client.get(f"/bets/{bet_2['bet_id']}", headers=OPERATOR_2)
            return bool(bet.json()["status"] == "paid")

        # the last event is behind the duplicate on the same partition
        await eventually(all_paid, what="the last bet to be paid")
        assert await balances(client, "p1") == {"INR": 5_000 - 1_200 + 1_950}
        assert await balances(client, "p1", OPERATOR_2) == {"INR": 3_000 - 500}

        events = await published(wallet_settings, count_of("BetsPaid", 3))
        paid = paid_bets(events)
        assert sorted((str(e.bet_id), e.outcome, e.amount) for e in paid) == sorted(
            [
                (bets_1["player_a"], "won", 1_950),
                (bets_1["tie"], "lost", 0),
                (bet_2["bet_id"], "lost", 0),
            ]
        )
        assert {e.balance_after for e in paid if str(e.bet_id) == bets_1["player_a"]} == {5_750}

        history = (await client.get("/players/p1/bets", headers=OPERATOR_1)).json()["items"]
        assert {(b["bet_type"], b["status"], b["outcome"], b["returned"]) for b in history} == {
            ("player_a", "paid", "won", 1_950),
            ("tie", "paid", "lost", 0),
        }

        withdrawn = await client.post(
            "/players/p1/withdrawals",
            json={"transfer_id": "w1", "currency": "INR", "amount": 750},
            headers=OPERATOR_1,
        )
        assert withdrawn.json()["balance"] == 5_000

        async with database(wallet_settings) as connection:
            accounts = await connection.fetchval("SELECT sum(balance) FROM wallet_accounts")
            house = await connection.fetchval(
                "SELECT sum(amount) FROM wallet_ledger WHERE account = 'house'"
            )
            net_transfers = await connection.fetchval(
                "SELECT sum(CASE kind WHEN 'deposit' THEN amount ELSE -amount END)"
                " FROM wallet_transfers"
            )
            mismatched = await connection.fetch(
                "SELECT a.operator_id, a.player_id, a.balance, sum(l.amount) AS ledger"
                " FROM wallet_accounts a JOIN wallet_ledger l ON l.account = 'player'"
                " AND l.operator_id = a.operator_id AND l.player_id = a.player_id"
                " AND l.currency = a.currency"
                " GROUP BY a.operator_id, a.player_id, a.currency, a.balance"
                " HAVING sum(l.amount) <> a.balance"
            )
        assert net_transfers == 5_000 + 3_000 - 750
        assert house == 1_200 + 500 - 1_950
        assert accounts + house == net_transfers
        assert mismatched == []


async def test_a_settlement_that_does_not_describe_its_bet_is_parked_not_paid(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001")
        await deposit(client, "p1", 5_000)
        placed = (await place(client, "p1", "T1-000001", [("player_a", 1_000)])).json()
        bet = {**placed["bets"][0], "round_id": "T1-000001", "table_id": "T1", "player_id": "p1"}
        bet["currency"] = "INR"
        # a settlement that does not match the bet (another stake) is refused and parked
        forged = settled({**bet, "stake": 5_000}, "operator-1", "won", 9_000)
        await send(wallet_settings, SETTLEMENT_EVENTS, forged, table_id="T1")
        await eventually(
            parked_with("BetMismatchError", wallet_settings), what="the forged settlement parked"
        )
        assert await balances(client, "p1") == {"INR": 4_000}
        status = (await client.get(f"/bets/{bet['bet_id']}", headers=OPERATOR_1)).json()
        assert status["status"] == "placed"


def parked_with(error: str, settings: WalletSettings | None = None) -> Any:
    """Whether the wallet parked an event whose error names `error`."""

    async def found() -> bool:
        assert settings is not None
        async with database(settings) as connection:
            return bool(
                await connection.fetchval(
                    "SELECT count(*) FROM parked_events WHERE error LIKE $1", f"%{error}%"
                )
            )

    return found


async def test_a_settlement_for_an_unknown_bet_is_parked_not_paid(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001")
        await deposit(client, "p1", 5_000)
        placed = (await place(client, "p1", "T1-000001", [("player_a", 1_000)])).json()
        await close_betting(wallet_settings, "T1-000001")
        await close_round(wallet_settings, client, "T1-000001", CARDS)
        # a bet id the wallet never took, for its player and round
        ghost = {
            "bet_id": str(uuid4()),
            "bet_type": "player_a",
            "stake": 1_000,
            "round_id": "T1-000001",
            "table_id": "T1",
            "player_id": "p1",
            "currency": "INR",
        }
        await send(
            wallet_settings,
            SETTLEMENT_EVENTS,
            settled(ghost, "operator-1", "won", 1_950),
            table_id="T1",
        )
        await eventually(
            parked_with("UnknownBetError", wallet_settings), what="the ghost settlement parked"
        )
        assert await balances(client, "p1") == {"INR": 4_000}
        (taken,) = placed["bets"]
        status = (await client.get(f"/bets/{taken['bet_id']}", headers=OPERATOR_1)).json()
        assert status["status"] == "placed"


async def test_a_part_of_a_round_is_paid_whole_or_parked_whole(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001")
        await deposit(client, "p1", 5_000)
        await deposit(client, "p2", 5_000)
        placed = [
            *(await place(client, "p1", "T1-000001", [("player_a", 1_000), ("tie", 200)])).json()[
                "bets"
            ],
            *(await place(client, "p2", "T1-000001", [("player_b", 500)])).json()["bets"],
        ]
        await close_betting(wallet_settings, "T1-000001")
        await wait_for_round(client, "T1-000001", "sealed")
        views = {
            b["bet_id"]: (await client.get(f"/bets/{b['bet_id']}", headers=OPERATOR_1)).json()
            for b in placed
        }
        a, tie, b = (views[bet["bet_id"]] for bet in placed)
        good = [
            line(a, "operator-1", "won", 1_950),
            line(tie, "operator-1", "lost", 0),
            line(b, "operator-1", "lost", 0),
        ]
        # one line the wallet does not hold as told (another stake): the whole part is parked
        forged = [good[0], line({**b, "stake": 5_000}, "operator-1", "won", 9_000)]
        (forged_part,) = BetsSettled.parts("T1-000001", "T1", forged)
        await send(wallet_settings, SETTLEMENT_EVENTS, forged_part, table_id="T1")

        async def parked() -> bool:
            async with database(wallet_settings) as connection:
                return bool(await connection.fetchval("SELECT count(*) FROM parked_events"))

        await eventually(parked, what="the part with a forged line to be parked", timeout=60)
        assert await balances(client, "p1") == {"INR": 5_000 - 1_200}
        status = (await client.get(f"/bets/{a['bet_id']}", headers=OPERATOR_1)).json()
        assert status["status"] == "placed"  # its good line was not paid either

        await close_round(wallet_settings, client, "T1-000001", CARDS)
        (part,) = BetsSettled.parts("T1-000001", "T1", good)
        for _ in range(2):  # the same part twice, as two events: paid once
            await send(wallet_settings, SETTLEMENT_EVENTS, part, table_id="T1")
        events = await published(wallet_settings, count_of("BetsPaid", 2))
        paid = paid_bets(events)
        assert sorted((str(e.bet_id), e.outcome, e.amount) for e in paid) == sorted(
            [(a["bet_id"], "won", 1_950), (tie["bet_id"], "lost", 0), (b["bet_id"], "lost", 0)]
        )
        # one BetsPaid per player of the part, its lines in the part's order, the balance
        # running over them; each names the part as its cause
        by_player: dict[str, tuple[BetsPaid, EventEnvelope]] = {}
        for envelope in events:
            event = registry.decode_envelope(envelope)
            if isinstance(event, BetsPaid):
                by_player[event.player_id] = (event, envelope)
        assert len(of_type(events, "BetsPaid")) == 2
        p1, p1_envelope = by_player["p1"]
        assert [(str(line.bet_id), line.balance_after) for line in p1.bets] == [
            (a["bet_id"], 5_000 - 1_200 + 1_950),
            (tie["bet_id"], 5_000 - 1_200 + 1_950),
        ]
        p2, p2_envelope = by_player["p2"]
        assert [(str(line.bet_id), line.balance_after) for line in p2.bets] == [
            (b["bet_id"], 5_000 - 500)
        ]
        assert p1_envelope.causation_id == p2_envelope.causation_id is not None

        async def second_part_handled() -> bool:
            async with database(wallet_settings) as connection:
                return bool(
                    await connection.fetchval(
                        "SELECT count(*) = 2 FROM processed_events"  # parked: not processed
                        " WHERE consumer LIKE 'wallet-settlement%'"
                    )
                )

        await eventually(second_part_handled, what="the repeated part to be handled")
        assert await balances(client, "p1") == {"INR": 5_000 - 1_200 + 1_950}
        assert await balances(client, "p2") == {"INR": 5_000 - 500}
        async with database(wallet_settings) as connection:
            returns = await connection.fetch(
                "SELECT account, player_id, amount, reference FROM wallet_ledger"
                " WHERE kind = 'return' ORDER BY account"
            )
        # the part's returns, once: into p1's account and out of the house, each one entry
        # that names the part; the lost bets return 0 and write nothing
        part_ref = f"settlement:{p1_envelope.causation_id}"
        assert [tuple(row) for row in returns] == [
            ("house", None, -1_950, part_ref),
            ("player", "p1", 1_950, part_ref),
        ]

        # a forged line for a bet already paid is parked too, and pays nothing again
        forged_paid = settled({**b, "stake": 5_000}, "operator-1", "won", 9_000)
        await send(wallet_settings, SETTLEMENT_EVENTS, forged_paid, table_id="T1")

        async def both_parked() -> bool:
            async with database(wallet_settings) as connection:
                return bool(await connection.fetchval("SELECT count(*) = 2 FROM parked_events"))

        await eventually(both_parked, what="the forged line of a paid bet to be parked")
        async with database(wallet_settings) as connection:
            error = await connection.fetchval("SELECT error FROM parked_events ORDER BY id DESC")
        assert "BetMismatchError" in error
        assert await balances(client, "p2") == {"INR": 5_000 - 500}
