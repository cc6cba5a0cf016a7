"""A player's last games and a round's stakes, on the real stack (the wallet in-process, the
table's and settlement's events published as they would): rounds won, lost, tied, voided
mid-deal and still open, with exact stakes, returns and balances around each round; only
the player's own games; every operator's stakes per bet type; bad input refused."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

import httpx
import pytest

from teenpatti import engine
from teenpatti.events.catalog import (
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    BetSettled,
    BetsSettled,
    CardDealt,
    RoundCancelled,
    SettlementResolved,
)
from teenpatti.settings import InfrastructureSettings
from tests.integration.access import issue_key
from tests.integration.seamless.test_sessions import launch, open_session
from wallet_service.config import WalletSettings

from .helpers import (
    OPERATOR_1,
    OPERATOR_2,
    close_betting,
    close_round,
    deposit,
    engine_settles,
    eventually,
    open_round,
    place,
    send,
    wait_for_round,
    wallet,
)

SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}
WON = ["AS", "2D", "AH", "3C", "KD", "9S"]  # A: pair of aces; B: high card
LOST = WON
TIE = ["AS", "AH", "KD", "KC", "9C", "9S"]  # A and B: A K 9 high, other suits


@pytest.fixture
def wallet_settings(settings: InfrastructureSettings, database_name: str) -> WalletSettings:
    return WalletSettings(
        **settings.model_dump(), wallet_database=database_name, player_view_url="https://play.x"
    )


def _lines(slip: dict[str, Any], operator_id: str, settle: Any) -> list[BetSettled]:
    """The settlement lines of a slip (its answer), each settled by `settle(bet_type, stake)`
    to (outcome, returned)."""
    lines = []
    for bet in slip["bets"]:
        outcome, returned = settle(bet["bet_type"], bet["stake"])
        lines.append(
            BetSettled(
                bet_id=UUID(bet["bet_id"]),
                operator_id=operator_id,
                player_id=slip["player_id"],
                bet_type=bet["bet_type"],
                stake=bet["stake"],
                currency=slip["currency"],
                outcome=outcome,
                returned=returned,
                fraction_kept="0",
                odds=None,
            )
        )
    return lines


async def _settle(
    settings: WalletSettings, slips: list[tuple[dict[str, Any], str]], settle: Any
) -> None:
    """Settlement's part for these slips of one round, as settlement publishes it."""
    first = slips[0][0]
    await send(
        settings,
        SETTLEMENT_EVENTS,
        BetsSettled(
            round_id=first["round_id"],
            table_id=first["table_id"],
            bets=[line for slip, operator in slips for line in _lines(slip, operator, settle)],
        ),
        table_id=first["table_id"],
    )


def _by_cards(cards: list[str]) -> Any:
    return lambda bet_type, stake: engine_settles(bet_type, stake, cards)


def _refund(bet_type: str, stake: int) -> tuple[str, int]:
    return "refunded", stake


async def _slip(client: httpx.AsyncClient, player: str, round_id: str, bets: Any) -> Any:
    response = await place(client, player, round_id, bets)
    assert response.status_code == 201, response.text
    return response.json()


async def _play_closed(
    settings: WalletSettings,
    client: httpx.AsyncClient,
    round_id: str,
    cards: list[str],
    slips: list[tuple[dict[str, Any], str]],
) -> None:
    await close_betting(settings, round_id)
    await wait_for_round(client, round_id, "sealed")
    await close_round(settings, client, round_id, cards)
    await _settle(settings, slips, _by_cards(cards))
    # paid before the test's next slip: a balance after is the balance at its round's payment
    headers = {"operator-1": OPERATOR_1, "operator-2": OPERATOR_2}

    async def paid() -> bool:
        for slip, operator in slips:
            games = await _games(client, slip["player_id"], headers[operator])
            if not any(g["round_id"] == round_id and g["returned"] is not None for g in games):
                return False
        return True

    await eventually(paid, what=f"round {round_id} paid")


async def _games(
    client: httpx.AsyncClient, player: str, headers: dict[str, str] = OPERATOR_1, **query: Any
) -> list[dict[str, Any]]:
    response = await client.get(f"/players/{player}/games", params=query, headers=headers)
    assert response.status_code == 200, response.text
    games: list[dict[str, Any]] = response.json()["games"]
    return games


def _expected_wagers(slip: dict[str, Any], settle: Any) -> list[dict[str, Any]]:
    wagers = []
    for bet in slip["bets"]:
        outcome, returned = settle(bet["bet_type"], bet["stake"])
        wagers.append(
            {
                "bet_id": bet["bet_id"],
                "bet_type": bet["bet_type"],
                "stake": bet["stake"],
                "returned": returned,
                "outcome": outcome,
            }
        )
    return wagers


async def test_a_players_last_games_won_lost_tied_voided_and_open(
    wallet_settings: WalletSettings,
) -> None:
    settings = wallet_settings
    tie = engine.resolve_round(engine.parse_cards(TIE))
    assert tie.winner.value == "tie"
    async with wallet(settings) as client:
        assert await deposit(client, "p1", 20_000) == 20_000
        await deposit(client, "p2", 5_000)

        # 1: won (and p2, another player, bets on it too)
        await open_round(settings, client, "T1-000001")
        won = await _slip(client, "p1", "T1-000001", [("player_a", 1_000), ("tie", 200)])
        won_more = await _slip(client, "p1", "T1-000001", [("pair_plus_a", 300)])
        other = await _slip(client, "p2", "T1-000001", [("player_b", 700)])
        await _play_closed(
            settings,
            client,
            "T1-000001",
            WON,
            [(won, "operator-1"), (won_more, "operator-1"), (other, "operator-1")],
        )
        # 2: lost
        await open_round(settings, client, "T1-000002")
        lost = await _slip(client, "p1", "T1-000002", [("player_b", 500)])
        await _play_closed(settings, client, "T1-000002", LOST, [(lost, "operator-1")])
        # 3: tied
        await open_round(settings, client, "T1-000003")
        tied = await _slip(client, "p1", "T1-000003", [("player_a", 400), ("tie", 100)])
        await _play_closed(settings, client, "T1-000003", TIE, [(tied, "operator-1")])
        # 4: voided after two cards
        await open_round(settings, client, "T1-000004")
        voided = await _slip(client, "p1", "T1-000004", [("six_card_bonus", 250)])
        await close_betting(settings, "T1-000004")
        await wait_for_round(client, "T1-000004", "sealed")
        for position, card in (("A1", "7H"), ("B1", "QS")):
            await send(
                settings,
                TABLE_EVENTS,
                CardDealt(
                    round_id="T1-000004",
                    table_id="T1",
                    position=position,  # type: ignore[arg-type]
                    card=card,
                    scan_id=UUID(int=len(position + card)),
                ),
                table_id="T1",
            )
        await send(
            settings,
            TABLE_EVENTS,
            RoundCancelled(
                round_id="T1-000004",
                table_id="T1",
                actor="supervisor-1",
                reason="the shoe jammed",
                cards_dealt=2,
            ),
            table_id="T1",
        )
        await wait_for_round(client, "T1-000004", "cancelled")
        await _settle(settings, [(voided, "operator-1")], _refund)

        async def every_round_paid() -> bool:
            games = await _games(client, "p1")
            return len(games) == 4 and all(g["returned"] is not None for g in games)

        await eventually(every_round_paid, what="p1's four rounds paid")

        # 5: still open
        await open_round(settings, client, "T1-000005")
        still_open = await _slip(client, "p1", "T1-000005", [("player_a", 150)])

        games = await _games(client, "p1")
        assert [g["round_id"] for g in games] == [f"T1-00000{n}" for n in (5, 4, 3, 2, 1)]
        open_game, void_game, tie_game, lost_game, won_game = games

        # the balance runs from round to round: before each is after the last
        won_stakes = 1_000 + 200 + 300
        won_returns = sum(
            engine_settles(bet_type, stake, WON)[1]
            for bet_type, stake in (("player_a", 1_000), ("tie", 200), ("pair_plus_a", 300))
        )
        assert won_returns == 1_950 + 0 + 300 * 2  # 1:0.95 on A, the tie lost, a pair 1:1
        after_won = 20_000 - won_stakes + won_returns
        tie_returns = sum(
            engine_settles(t, s, TIE)[1] for t, s in (("player_a", 400), ("tie", 100))
        )
        after_tie = after_won - 500 - 500 + tie_returns
        assert won_game == {
            "round_id": "T1-000001",
            "table_id": "T1",
            "status": "closed",
            "ended_at": won_game["ended_at"],
            "cards": WON,
            "player_a": {"cards": ["AS", "AH", "KD"], "hand": "pair"},
            "player_b": {"cards": ["2D", "3C", "9S"], "hand": "high_card"},
            "winner": "player_a",
            "six_card_bonus_hand": None,
            "currency": "INR",
            "wagers": _expected_wagers(won, _by_cards(WON))
            + _expected_wagers(won_more, _by_cards(WON)),
            "staked": won_stakes,
            "returned": won_returns,
            "balance_before": 20_000,
            "balance_after": after_won,
            "voided_at": None,
            "correction": None,
        }
        assert datetime.fromisoformat(won_game["ended_at"]).tzinfo == UTC
        assert other["bets"][0]["bet_id"] not in {w["bet_id"] for g in games for w in g["wagers"]}

        assert (lost_game["winner"], lost_game["staked"], lost_game["returned"]) == (
            "player_a",
            500,
            0,
        )
        assert lost_game["wagers"] == [
            {
                "bet_id": lost["bets"][0]["bet_id"],
                "bet_type": "player_b",
                "stake": 500,
                "returned": 0,
                "outcome": "lost",
            }
        ]
        assert (lost_game["balance_before"], lost_game["balance_after"]) == (
            after_won,
            after_won - 500,
        )

        assert tie_game["winner"] == "tie"
        assert tie_game["cards"] == TIE
        assert tie_game["wagers"] == _expected_wagers(tied, _by_cards(TIE))
        assert {w["outcome"] for w in tie_game["wagers"]} == {"push", "won"}
        assert (tie_game["balance_before"], tie_game["balance_after"]) == (
            after_won - 500,
            after_tie,
        )

        assert void_game == {
            "round_id": "T1-000004",
            "table_id": "T1",
            "status": "cancelled",
            "ended_at": void_game["ended_at"],
            "cards": ["7H", "QS"],
            "player_a": None,
            "player_b": None,
            "winner": None,
            "six_card_bonus_hand": None,
            "currency": "INR",
            "wagers": [
                {
                    "bet_id": voided["bets"][0]["bet_id"],
                    "bet_type": "six_card_bonus",
                    "stake": 250,
                    "returned": 250,
                    "outcome": "refunded",
                }
            ],
            "staked": 250,
            "returned": 250,
            "balance_before": after_tie,
            "balance_after": after_tie,
            "voided_at": None,
            "correction": None,
        }
        assert void_game["ended_at"] is not None

        assert open_game == {
            "round_id": "T1-000005",
            "table_id": "T1",
            "status": "open",
            "ended_at": None,
            "cards": [],
            "player_a": None,
            "player_b": None,
            "winner": None,
            "six_card_bonus_hand": None,
            "currency": "INR",
            "wagers": [
                {
                    "bet_id": still_open["bets"][0]["bet_id"],
                    "bet_type": "player_a",
                    "stake": 150,
                    "returned": None,
                    "outcome": None,
                }
            ],
            "staked": 150,
            "returned": None,
            "balance_before": after_tie,
            "balance_after": None,
            "voided_at": None,
            "correction": None,
        }

        # the limit; the same games to the player through its session
        assert [g["round_id"] for g in await _games(client, "p1", limit=2)] == [
            "T1-000005",
            "T1-000004",
        ]
        session = await launch(client, await open_session(client, "p1"))
        mine = await client.get("/me/games", headers=session)
        assert mine.status_code == 200, mine.text
        assert mine.json()["games"] == games

        # another player's games: p2's own, never p1's; p1 of another operator has none
        (p2_game,) = await _games(client, "p2")
        assert [w["bet_id"] for w in p2_game["wagers"]] == [other["bets"][0]["bet_id"]]
        assert (p2_game["balance_before"], p2_game["balance_after"]) == (
            5_000,
            5_000 - 700,
        )
        assert await _games(client, "p1", OPERATOR_2) == []
        p2_session = await launch(client, await open_session(client, "p2"))
        theirs = (await client.get("/me/games", headers=p2_session)).json()["games"]
        assert [g["round_id"] for g in theirs] == ["T1-000001"]


async def test_a_rounds_stakes_per_bet_type_and_currency_across_operators(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001")
        await deposit(client, "p1", 10_000)
        await deposit(client, "p1", 10_000, "EUR")
        await deposit(client, "p9", 10_000, headers=OPERATOR_2)
        await _slip(client, "p1", "T1-000001", [("player_a", 1_000), ("tie", 200)])
        await _slip(client, "p1", "T1-000001", [("player_a", 300)])
        response = await place(client, "p1", "T1-000001", [("player_b", 60)], currency="EUR")
        assert response.status_code == 201, response.text
        response = await place(client, "p9", "T1-000001", [("player_a", 2_000)], headers=OPERATOR_2)
        assert response.status_code == 201, response.text

        stakes = await client.get("/rounds/T1-000001/stakes", headers=SUPERVISOR)
        assert stakes.status_code == 200, stakes.text
        assert stakes.json() == {
            "round_id": "T1-000001",
            "table_id": "T1",
            "status": "open",
            "by_currency": {
                "EUR": {"player_b": {"bets": 1, "staked": 60}},
                "INR": {
                    "player_a": {"bets": 3, "staked": 3_300},
                    "tie": {"bets": 1, "staked": 200},
                },
            },
        }
        # a round with no bet yet: nothing staked
        await open_round(wallet_settings, client, "T1-000002")
        empty = await client.get("/rounds/T1-000002/stakes", headers=SUPERVISOR)
        assert empty.json()["by_currency"] == {}


async def test_bad_input_to_the_games_and_stakes_gets_a_problem(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        for limit in (0, 51, "ten"):
            response = await client.get(
                "/players/p1/games", params={"limit": limit}, headers=OPERATOR_1
            )
            assert response.status_code == 422, response.text
            assert response.headers["content-type"] == "application/problem+json"
            assert response.json()["code"] == "invalid_request"
        unknown = await client.get("/rounds/T1-999999/stakes", headers=SUPERVISOR)
        assert unknown.status_code == 404, unknown.text
        assert unknown.json()["code"] == "unknown_round"
        # the stakes are the studio's: an operator's key is refused, and so is no key
        refused = await client.get("/rounds/T1-999999/stakes", headers=OPERATOR_1)
        assert refused.status_code == 403, refused.text
        assert (await client.get("/rounds/T1-999999/stakes")).status_code == 401
        # a player's games need its session; an operator's key is not one
        assert (await client.get("/me/games", headers=OPERATOR_1)).status_code == 401
        assert (await client.get("/players/p1/games")).status_code == 401


async def test_a_rounds_stakes_need_a_supervisor_key_for_its_table(
    monkeypatch: pytest.MonkeyPatch, wallet_settings: WalletSettings, access_database: str
) -> None:
    settings = wallet_settings.model_copy(update={"access_database": access_database})
    _, here = await issue_key(monkeypatch, access_database, "sam", "supervisor", "--tables", "T1")
    _, there = await issue_key(monkeypatch, access_database, "tom", "supervisor", "--tables", "T2")
    async with wallet(settings) as client:
        await open_round(settings, client, "T1-000001")
        allowed = await client.get("/rounds/T1-000001/stakes", headers={"X-Api-Key": here})
        assert allowed.status_code == 200, allowed.text
        refused = await client.get("/rounds/T1-000001/stakes", headers={"X-Api-Key": there})
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "table_not_in_scope"


async def test_a_round_voided_at_settlement_after_it_closed_shows_its_cards_and_refunds(
    wallet_settings: WalletSettings,
) -> None:
    settings = wallet_settings
    async with wallet(settings) as client:
        await deposit(client, "p1", 10_000)
        await open_round(settings, client, "T1-000001")
        slip = await _slip(client, "p1", "T1-000001", [("player_b", 800)])
        await close_betting(settings, "T1-000001")
        await wait_for_round(client, "T1-000001", "sealed")
        await close_round(settings, client, "T1-000001", WON)
        closed_at = (await _games(client, "p1"))[0]["ended_at"]
        # two supervisors void the held round at the settlement; its refunds follow
        await send(
            settings,
            SETTLEMENT_EVENTS,
            SettlementResolved(
                resolution_id=uuid4(),
                round_id="T1-000001",
                table_id="T1",
                action="void",
                reason="the shoe was not shuffled",
                problems=[],
                requested_by="supervisor-1",
                confirmed_by="supervisor-2",
            ),
            table_id="T1",
        )
        await wait_for_round(client, "T1-000001", "cancelled")
        await _settle(settings, [(slip, "operator-1")], _refund)

        async def refunded() -> bool:
            return (await _games(client, "p1"))[0]["returned"] is not None

        await eventually(refunded, what="the voided round's refund")
        (voided,) = await _games(client, "p1")
        # the round as dealt, ended when it closed; every wager refunded
        assert {k: voided[k] for k in ("status", "ended_at", "cards", "winner")} == {
            "status": "cancelled",
            "ended_at": closed_at,
            "cards": WON,
            "winner": "player_a",
        }
        assert voided["player_b"] == {"cards": ["2D", "3C", "9S"], "hand": "high_card"}
        assert [(w["returned"], w["outcome"]) for w in voided["wagers"]] == [(800, "refunded")]
        assert (voided["balance_before"], voided["balance_after"]) == (10_000, 10_000)
