"""The player view in a real browser (Debian's Chromium, headless, phone-sized), against the
real stack: a transfer operator's player opens the session's launch URL, bets on each of the
six bet types, watches the studio's simulated scanner deal the cards, and sees the result,
each bet's return and the balance change by exactly what the wallet recorded; refused slips
say why in the player's words; a connection cut in the middle of a round recovers by itself
and shows the round's result and returns (the rules' disconnection policy); a round paused
then voided refunds every bet; a used launch ticket opens nothing. Amounts show each
currency's own decimals (VND, KWD, JPY on the view; every currency the wallet accepts through
the page's own formatter), and the view links to the rules in the session's language with the
table's own pay table. Screenshots of the view (betting and result in English, the result in
Farsi, right to left) are kept as test artefacts in `.local/artefacts/browser/`."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, WebSocketRoute, expect

from teenpatti.currencies import minor_units
from teenpatti.engine import PUBLISHED_PAY_TABLE
from teenpatti.engine.paytable import pay_table_to_mapping

from .system import Front

pytestmark = pytest.mark.integration

OPERATOR = "operator-2"  # a transfer operator: the wallet holds its players' money
CURRENCY = "INR"
WAIT_MS = 20_000  # every wait on the page has a bound: a round's events come within seconds
PAYMENT_MS = 40_000  # a result, its settlement and the wallet's payment
BET_TYPES = ["player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus"]
# A1 B1 A2 B2 A3 B3: Player A holds three aces, Player B three kings; the six cards make a
# full house: Player A and both Pair + bets and the 6 Card Bonus win, Player B and Tie lose
CARDS = ["AS", "KD", "AH", "KC", "AD", "KS"]

Screenshot = Callable[[Page, str], Awaitable[Path]]


def inr(minor: int) -> str:
    """An amount as the rules print it (1,234.00) with its code: the page must match it."""
    sign = "-" if minor < 0 else ""
    units, cents = divmod(abs(minor), 100)
    return f"{sign}{units:,}.{cents:02d} {CURRENCY}"


def refused_by_csp(console_text: str) -> list[str]:
    return [console_text] if "Content Security Policy" in console_text else []


def new_table() -> str:
    return f"pv{uuid.uuid4().hex[:8]}"


async def start_round(front: Front, table_id: str, *, betting_seconds: float) -> dict[str, Any]:
    """A new table and its first round; a result stays up long enough to be read."""
    await front.studio.open_table(
        table_id, betting_seconds=betting_seconds, result_pause_seconds=20
    )
    return await front.studio.next_round(table_id)


async def open_view(front: Front, page: Page, table_id: str, player: str, **kw: Any) -> None:
    launch_url = await front.open_session(OPERATOR, player, CURRENCY, table_id, **kw)
    await page.goto(launch_url)
    await expect(page.get_by_test_id("phase")).to_have_attribute(
        "data-phase", "betting", timeout=WAIT_MS
    )


async def choose_chip(page: Page, amount: int) -> None:
    await page.get_by_role("radio", name=inr(amount), exact=True).check(timeout=WAIT_MS)


async def deal_and_watch(
    front: Front,
    page: Page,
    table_id: str,
    round_id: str,
    after_first_card: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """The dealer deals once betting is closed; each card appears in its place on the page."""
    await front.studio.wait_for(table_id, "BettingClosed", round_id=round_id, timeout=60)
    for position, card in zip(["A1", "B1", "A2", "B2", "A3", "B3"], CARDS, strict=True):
        await front.studio.deal(table_id, [card])
        slot = page.locator(f'.card-slot[data-position="{position}"] [data-card]')
        await expect(slot).to_have_attribute("data-card", card, timeout=WAIT_MS)
        if position == "A1" and after_first_card is not None:
            await after_first_card()


class FeedProxy:
    """Every player feed the page opens, passed through a route the test can cut, or hold
    (the page then hears nothing from the table until `release`)."""

    def __init__(self) -> None:
        self.feeds: list[WebSocketRoute] = []
        self.holding = False
        self.held: list[tuple[WebSocketRoute, str | bytes]] = []

    async def install(self, page: Page) -> None:
        await page.route_web_socket("**/api/play/feed", self.connect)

    def connect(self, feed: WebSocketRoute) -> None:
        server = feed.connect_to_server()
        server.on_message(lambda message: self.pass_on(feed, message))
        self.feeds.append(feed)

    def pass_on(self, feed: WebSocketRoute, message: str | bytes) -> None:
        if self.holding:
            self.held.append((feed, message))
        else:
            feed.send(message)

    def release(self) -> None:
        self.holding = False
        for feed, message in self.held:
            feed.send(message)
        self.held.clear()


async def wallet_sees_paused(front: Front, round_id: str) -> None:
    """Until the wallet has the round paused (it hears of it through the table's events)."""
    for _ in range(200):
        book = await front.http.get(
            f"{front.services.wallet}/rounds/{round_id}/book",
            headers={"X-Api-Key": front.operator_keys[OPERATOR]},
        )
        assert book.status_code == 200, book.text
        if book.json()["paused"]:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the wallet never saw round {round_id} paused")


async def test_a_player_bets_on_every_type_and_sees_the_result_and_what_the_wallet_paid(
    front: Front, page: Page, screenshot: Screenshot
) -> None:
    table_id, player = new_table(), f"pv-{uuid.uuid4().hex[:8]}"
    opened = await start_round(front, table_id, betting_seconds=20)
    round_id = opened["round_id"]
    proxy = FeedProxy()
    await proxy.install(page)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.extend(refused_by_csp(message.text)))
    await open_view(front, page, table_id, player)

    # the ticket is not left in the address bar; the balance is the wallet's
    assert "ticket=" not in page.url
    before = await front.studio.balance(OPERATOR, player)
    await expect(page.get_by_test_id("balance")).to_have_text(inr(before), timeout=WAIT_MS)
    await expect(page.get_by_test_id("round")).to_have_text(f"Round {opened['number']}")
    # each spot with what it pays (the table's pay table) and its limits in the currency
    await expect(page.get_by_test_id("spot-player_a")).to_contain_text("Pays 0.95:1")
    await expect(page.get_by_test_id("spot-six_card_bonus")).to_contain_text("Pays up to 1000:1")
    await expect(page.get_by_test_id("spot-tie")).to_contain_text(f"{inr(100)} – {inr(100_000)}")

    # 20.00 on Player A (two chips), 10.00 on each other type; Tie from the keyboard
    await choose_chip(page, 1_000)
    stakes = {bet_type: 1_000 for bet_type in BET_TYPES}
    stakes["player_a"] = 2_000
    for bet_type in BET_TYPES:
        if bet_type == "tie":
            await page.get_by_test_id("spot-tie").focus()
            await page.keyboard.press("Enter")
        else:
            await page.get_by_test_id(f"spot-{bet_type}").click()
    await page.get_by_test_id("spot-player_a").click()
    await expect(page.get_by_test_id("spot-player_a")).to_contain_text(f"New: {inr(2_000)}")
    await expect(page.get_by_test_id("countdown")).to_be_visible()
    await screenshot(page, "player-view-betting")
    await page.get_by_test_id("place").click()

    message = page.get_by_test_id("slip-message")
    await expect(message).to_have_attribute("data-kind", "accepted", timeout=WAIT_MS)
    staked = sum(stakes.values())
    await expect(message).to_have_text(f"Bets accepted: {inr(staked)}")
    for bet_type, stake in stakes.items():
        await expect(page.get_by_test_id(f"spot-{bet_type}")).to_contain_text(
            f"Placed: {inr(stake)}"
        )
    after_stakes = await front.studio.balance(OPERATOR, player)
    assert after_stakes == before - staked
    await expect(page.get_by_test_id("balance")).to_have_text(inr(after_stakes))

    # the cards arrive one by one (the feed is cut after the first: the view opens another
    # by itself and goes on from where it was), then both hands are named and the winner shown
    async def cut_the_feed() -> None:
        assert len(proxy.feeds) == 1
        await proxy.feeds[0].close(code=1011, reason="the test cuts the feed")

    await deal_and_watch(front, page, table_id, round_id, after_first_card=cut_the_feed)
    assert len(proxy.feeds) == 2
    await expect(page.get_by_test_id("category-player_a")).to_have_text(
        "Three of a Kind (A)", timeout=WAIT_MS
    )
    await expect(page.get_by_test_id("category-player_b")).to_have_text("Three of a Kind (2-K)")
    await expect(page.get_by_test_id("outcome")).to_contain_text("Player A wins")
    await expect(page.get_by_test_id("outcome")).to_contain_text("6 Card Bonus: Full House")

    # each bet's return and the new balance, exactly as the wallet recorded them
    paid = await front.studio.paid_bets(OPERATOR, player, round_id, len(BET_TYPES), timeout=40)
    returned = {bet["bet_type"]: int(bet["returned"]) for bet in paid}
    assert set(returned) == set(BET_TYPES)
    assert returned["player_b"] == returned["tie"] == 0
    assert returned["pair_plus_a"] > 0 and returned["six_card_bonus"] > 0
    my_round = page.get_by_test_id("my-round")
    await expect(my_round).to_have_attribute("data-round-id", round_id, timeout=PAYMENT_MS)
    for bet_type, amount in returned.items():
        row = my_round.locator(f'tr[data-bet-type="{bet_type}"]')
        await expect(row.locator(".wager-returned")).to_have_text(inr(amount))
        await expect(row).to_contain_text(inr(stakes[bet_type]))
    await expect(my_round.locator('tr[data-bet-type="player_b"]')).to_contain_text("Lost")
    await expect(my_round.locator('tr[data-bet-type="player_a"]')).to_contain_text("Won")
    await expect(page.get_by_test_id("my-round-totals")).to_have_text(
        f"Staked {inr(staked)}, returned {inr(sum(returned.values()))}"
    )
    final = await front.studio.balance(OPERATOR, player)
    assert final == before - staked + sum(returned.values())
    await expect(page.get_by_test_id("balance")).to_have_text(inr(final))
    await expect(page.get_by_test_id("my-round-balance")).to_have_text(f"Balance now: {inr(final)}")

    # the last games: this round with the balance before and after, as the wallet has it
    answer = await front.http.get(
        f"{front.services.wallet}/players/{player}/games",
        headers={"X-Api-Key": front.operator_keys[OPERATOR]},
    )
    assert answer.status_code == 200, answer.text
    game = next(g for g in answer.json()["games"] if g["round_id"] == round_id)
    assert game["balance_after"] == final
    recalled = page.locator(f'#games details[data-round-id="{round_id}"]')
    await recalled.locator("summary").click()
    await expect(recalled).to_contain_text(
        f"Balance before {inr(game['balance_before'])}, after {inr(final)}"
    )
    await expect(recalled.locator('tr[data-bet-type="pair_plus_a"] .wager-returned')).to_have_text(
        inr(returned["pair_plus_a"])
    )

    # the roadmap has the round (A), and its cards on demand
    bead = page.locator(f'#roadmap button[data-round-id="{round_id}"]')
    await expect(bead).to_have_text("A", timeout=WAIT_MS)
    await bead.click()
    detail = page.get_by_test_id("roadmap-detail")
    for card in CARDS:
        await expect(detail.locator(f'[data-card="{card}"]')).to_have_count(1)
    await screenshot(page, "player-view-en")
    assert errors == []  # no script error, nothing the Content-Security-Policy refused
    await front.studio.close_table(table_id)


async def test_a_refused_slip_says_why_in_the_players_words(front: Front, page: Page) -> None:
    table_id, player = new_table(), f"pv-{uuid.uuid4().hex[:8]}"
    await start_round(front, table_id, betting_seconds=30)
    # a player holding 5.00 INR
    await open_view(front, page, table_id, player, deposit=500)
    await expect(page.get_by_test_id("balance")).to_have_text(inr(500), timeout=WAIT_MS)
    message = page.get_by_test_id("slip-message")

    await choose_chip(page, 1_000)
    await page.get_by_test_id("spot-player_a").click()
    await page.get_by_test_id("place").click()
    await expect(message).to_have_attribute("data-code", "insufficient_funds", timeout=WAIT_MS)
    await expect(message).to_have_text("Insufficient funds for these bets.")

    # above the table's maximum on Tie (1,000.00 INR): the limit is named
    await page.get_by_role("button", name="Clear").click()
    await choose_chip(page, 10_000)
    for _ in range(11):
        await page.get_by_test_id("spot-tie").click()
    await page.get_by_test_id("place").click()
    await expect(message).to_have_attribute("data-code", "above_maximum", timeout=WAIT_MS)
    await expect(message).to_have_text(f"Tie: the maximum stake is {inr(100_000)}.")

    # nothing was taken
    assert await front.studio.balance(OPERATOR, player) == 500
    await expect(page.get_by_test_id("balance")).to_have_text(inr(500))
    await front.studio.close_table(table_id)


async def test_a_connection_cut_mid_round_recovers_and_shows_the_result_in_farsi(
    front: Front, page: Page, screenshot: Screenshot
) -> None:
    table_id, player = new_table(), f"pv-{uuid.uuid4().hex[:8]}"
    opened = await start_round(front, table_id, betting_seconds=12)
    round_id = opened["round_id"]
    await open_view(front, page, table_id, player, language="fa")
    assert await page.evaluate("document.documentElement.dir") == "rtl"
    assert await page.evaluate("document.documentElement.lang") == "fa"

    await choose_chip(page, 5_000)
    await page.get_by_test_id("spot-player_b").click()
    await page.get_by_test_id("place").click()
    await expect(page.get_by_test_id("slip-message")).to_have_attribute(
        "data-kind", "accepted", timeout=WAIT_MS
    )

    # the round starts (two cards), then the player's network goes
    await front.studio.wait_for(table_id, "BettingClosed", round_id=round_id, timeout=60)
    await front.studio.deal(table_id, CARDS[:2])
    await expect(page.locator('.card-slot[data-position="B1"] [data-card]')).to_have_count(
        1, timeout=WAIT_MS
    )
    await page.context.set_offline(True)
    connection = page.get_by_test_id("connection")
    await expect(connection).to_be_visible(timeout=WAIT_MS)
    await expect(connection).to_have_attribute("data-state", "reconnecting")

    # the round goes on without the player, to its result and payment
    await front.studio.deal(table_id, CARDS[2:])
    paid = await front.studio.paid_bets(OPERATOR, player, round_id, 1, timeout=40)
    assert paid[0]["bet_type"] == "player_b" and paid[0]["outcome"] == "lost"
    await expect(page.locator('.card-slot[data-position="B3"] [data-card]')).to_have_count(0)

    # back online: the view reconnects by itself and shows what happened while away
    await page.context.set_offline(False)
    await expect(connection).to_be_hidden(timeout=WAIT_MS)
    my_round = page.get_by_test_id("my-round")
    await expect(my_round).to_have_attribute("data-round-id", round_id, timeout=PAYMENT_MS)
    for card in CARDS:
        await expect(my_round.locator(f'[data-card="{card}"]')).to_have_count(1)
    row = my_round.locator('tr[data-bet-type="player_b"]')
    await expect(row.locator(".wager-returned")).to_have_text(inr(0))
    await expect(row).to_contain_text("باخت")  # lost
    await expect(my_round).to_contain_text("بازیکن A برنده شد")  # Player A wins
    final = await front.studio.balance(OPERATOR, player)
    await expect(page.get_by_test_id("balance")).to_have_text(inr(final))
    await screenshot(page, "player-view-fa")
    await front.studio.close_table(table_id)


async def test_a_used_launch_ticket_opens_nothing_and_says_so_in_the_players_language(
    front: Front, page: Page
) -> None:
    table_id = new_table()
    await front.studio.open_table(table_id)
    launch_url = await front.open_session(
        OPERATOR, f"pv-{uuid.uuid4().hex[:8]}", CURRENCY, table_id, "ru"
    )
    await front.launch(launch_url)  # someone used the ticket first
    await page.goto(launch_url)
    fatal = page.get_by_test_id("fatal")
    await expect(fatal).to_have_text(
        "У этой игры нет открытой сессии. Откройте её заново в вашем казино.", timeout=WAIT_MS
    )
    assert "ticket=" not in page.url
    await expect(page.locator("#table")).to_be_hidden()
    await front.studio.close_table(table_id)


async def test_a_paused_then_cancelled_round_refunds_every_bet_and_says_so_in_japanese(
    front: Front, page: Page
) -> None:
    table_id, player = new_table(), f"pv-{uuid.uuid4().hex[:8]}"
    opened = await start_round(front, table_id, betting_seconds=30)
    round_id = opened["round_id"]
    proxy = FeedProxy()
    await proxy.install(page)
    await open_view(front, page, table_id, player, language="ja")
    before = await front.studio.balance(OPERATOR, player)
    await choose_chip(page, 500)
    for bet_type in ("tie", "pair_plus_a"):
        await page.get_by_test_id(f"spot-{bet_type}").click()
    await page.get_by_test_id("place").click()
    await expect(page.get_by_test_id("slip-message")).to_have_attribute(
        "data-kind", "accepted", timeout=WAIT_MS
    )

    # a supervisor pauses the round; a slip sent before the page hears of it is refused
    await page.get_by_test_id("spot-tie").click()
    proxy.holding = True
    paused = await front.studio.command(table_id, "pause", "a question for the supervisor")
    assert paused.status_code == 200, paused.text
    await wallet_sees_paused(front, round_id)
    await page.get_by_test_id("place").click()
    message = page.get_by_test_id("slip-message")
    await expect(message).to_have_attribute("data-code", "betting_closed", timeout=WAIT_MS)
    await expect(message).to_have_text("このラウンドのベットは締め切られました。")

    # once it hears: no more bets, no countdown
    proxy.release()
    await expect(page.get_by_test_id("phase")).to_have_text("ラウンド一時停止中", timeout=WAIT_MS)
    await expect(page.get_by_test_id("countdown")).to_be_hidden()
    await expect(page.get_by_test_id("spot-tie")).to_be_disabled()

    # then voids it (before its first card: one supervisor is enough); every stake comes back
    cancelled = await front.studio.command(table_id, "cancel", "not resolved quickly")
    assert cancelled.status_code == 200, cancelled.text
    await expect(page.get_by_test_id("outcome")).to_have_text(
        "ラウンド中止: すべてのベットは全額返金されます。", timeout=WAIT_MS
    )
    paid = await front.studio.paid_bets(OPERATOR, player, round_id, 2, timeout=40)
    assert {bet["outcome"] for bet in paid} == {"refunded"}
    my_round = page.get_by_test_id("my-round")
    await expect(my_round).to_have_attribute("data-round-id", round_id, timeout=PAYMENT_MS)
    for bet in paid:
        row = my_round.locator(f'tr[data-bet-type="{bet["bet_type"]}"]')
        await expect(row).to_contain_text("ラウンドキャンセル：ベット払い戻し")
        await expect(row.locator(".wager-returned")).to_have_text(inr(int(bet["returned"])))
        assert bet["returned"] == bet["stake"] == 500
    assert await front.studio.balance(OPERATOR, player) == before
    await expect(page.get_by_test_id("balance")).to_have_text(inr(before))
    await front.studio.close_table(table_id)


# ------------------------------------------------------------------ currencies and the rules
def american(minor: int, decimals: int) -> str:
    """`minor` units with `decimals` decimals as the rules print amounts: 1,234.56."""
    sign = "-" if minor < 0 else ""
    whole, part = divmod(abs(minor), 10**decimals)
    return f"{sign}{whole:,}" + (f".{part:0{decimals}d}" if decimals else "")


def priced(minimum: int, maximum: int) -> dict[str, dict[str, int]]:
    return {bet_type: {"min": minimum, "max": maximum} for bet_type in BET_TYPES}


async def open_table_as_approved(
    front: Front, table_id: str, limits: dict[str, Any], paytable: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A new table with these limits and pay table; what takes a second supervisor (a pay
    table other than the published one) is approved by supervisor-2. Its state."""
    opened = await front.http.post(
        f"{front.services.table}/tables",
        headers={"X-Api-Key": front.supervisor_key},
        json={
            "table_id": table_id,
            "name": f"Table {table_id}",
            "betting_seconds": 30,
            "result_pause_seconds": 5,
            "limits": limits,
            **({"paytable": paytable} if paytable is not None else {}),
        },
    )
    assert opened.status_code in (201, 202), opened.text
    if opened.status_code == 201:
        return dict(opened.json())
    change = opened.json()["pending_change"]["change_id"]
    approved = await front.http.post(
        f"{front.services.table}/tables/{table_id}/changes/{change}/approve",
        headers={"X-Api-Key": front.second_supervisor_key},
    )
    assert approved.status_code == 200, approved.text
    return dict(approved.json())


async def test_amounts_show_each_currencys_own_decimals_vnd_kwd_and_jpy(
    front: Front, page: Page
) -> None:
    table_id = new_table()
    # dong and yen have no minor unit, the Kuwaiti dinar's is a thousandth
    limits = {
        "VND": priced(10_000, 50_000_000),
        "KWD": priced(100, 500_000),
        "JPY": priced(100, 1_000_000),
    }
    await open_table_as_approved(front, table_id, limits)
    shown = {
        "VND": ("123,456 VND", "10,000 VND – 50,000,000 VND", "10,000 VND"),
        "KWD": ("123.456 KWD", "0.100 KWD – 500.000 KWD", "0.100 KWD"),
        "JPY": ("123,456 JPY", "100 JPY – 1,000,000 JPY", "100 JPY"),
    }
    for currency, (balance, range_, chip) in shown.items():
        player = f"pv-{currency.lower()}-{uuid.uuid4().hex[:6]}"
        await page.goto(
            await front.open_session(OPERATOR, player, currency, table_id, deposit=123_456)
        )
        await expect(page.get_by_test_id("balance")).to_have_text(balance, timeout=WAIT_MS)
        for bet_type in BET_TYPES:
            await expect(page.get_by_test_id(f"spot-{bet_type}")).to_contain_text(range_)
        await expect(page.get_by_role("radio", name=chip, exact=True)).to_have_count(1)
    await front.studio.close_table(table_id)


# the page's own formatter (money.js, as the page loaded it) over amounts of every currency
FORMAT_EVERY_CURRENCY = """async ([amounts]) => {
  const money = await import("/static/js/money.js");
  const shown = {};
  for (const code of Object.keys(money.currencies())) {
    shown[code] = amounts.map((minor) => money.formatMoney(BigInt(minor), code));
  }
  return shown;
}"""


async def test_every_currency_the_wallet_accepts_is_shown_with_its_minor_unit(
    front: Front, page: Page
) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # the player view without a session: it says so, with money.js loaded as for a player
    await page.goto(f"{front.url}/play/{new_table()}")
    await expect(page.get_by_test_id("fatal")).to_be_visible(timeout=WAIT_MS)
    amounts = [123_456, 0, 5, -1_234_567, 9_007_199_254_740_993]
    shown = await page.evaluate(FORMAT_EVERY_CURRENCY, [[str(minor) for minor in amounts]])
    expected = {
        code: [f"{american(minor, decimals)} {code}" for minor in amounts]
        for code, decimals in minor_units().items()
    }
    assert shown == expected
    assert shown["VND"][0] == "123,456 VND" and shown["IQD"][0] == "123.456 IQD"
    assert errors == []


async def test_the_rules_link_opens_the_rules_in_the_sessions_language_with_the_tables_pay_table(
    front: Front, page: Page, screenshot: Screenshot
) -> None:
    table_id = new_table()
    house = replace(PUBLISHED_PAY_TABLE, name=f"house-{table_id}", tie=Fraction(45))
    state = await open_table_as_approved(
        front, table_id, {CURRENCY: priced(100, 100_000)}, pay_table_to_mapping(house)
    )
    assert state["config"]["paytable"]["tie"] == "45"
    player = f"pv-{uuid.uuid4().hex[:8]}"
    await page.goto(await front.open_session(OPERATOR, player, CURRENCY, table_id, "ja"))
    await expect(page.locator("#table")).to_be_visible(timeout=WAIT_MS)
    await expect(page.get_by_test_id("spot-tie")).to_contain_text("配当 45:1")  # pays 45:1

    link = page.get_by_test_id("rules-link")
    await expect(link).to_have_text("ゲームルール")
    await expect(link).to_have_attribute("href", f"/rules/ja?table={table_id}")
    await screenshot(page, "player-view-ja-rules-link")
    async with page.context.expect_page(timeout=WAIT_MS) as opening:
        await link.click()
    rules = await opening.value
    await rules.wait_for_load_state()
    assert await rules.evaluate("document.documentElement.lang") == "ja"
    await expect(rules.get_by_role("heading", level=1)).to_have_text(
        "ティーンパティ20-20 ゲームルール"
    )
    note = rules.locator("#table-note")
    await expect(note).to_have_attribute("data-pay-table", "table")
    await expect(note).to_contain_text(f"Table {table_id}")
    await expect(rules.locator('.payout[data-line="tie"]')).to_have_text("45:1")
    await expect(rules.locator('.payout[data-line="player_a"]')).to_have_text("0.95:1")
    # another language keeps the table
    await rules.locator('nav a[hreflang="ru"]').click()
    await expect(rules.locator('.payout[data-line="tie"]')).to_have_text("45:1", timeout=WAIT_MS)
    assert rules.url.endswith(f"/rules/ru?table={table_id}")
    await front.studio.close_table(table_id)
