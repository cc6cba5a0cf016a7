"""The studio console in a real browser (Debian's Chromium, headless), against the real stack:
a supervisor logs in with their own key, opens a table from the page, watches a round
being dealt by the studio's simulated scanner (a misread, a card read twice, a card read
while bets are taken), pauses and resumes it, sees the problems the table reports appear and
clear, sees the result and the exact PAR sheet, marks a dealt card wrong (the round stops) and
a second supervisor has it dealt again, voids a round's result after it closed and the round
in play with the second supervisor, and closes the table; the studio's "Video lost" button
cancels a round in betting and not one being dealt; a wrong key is refused with a clear
message; a service out of reach shows in the problems. A screenshot of the console is kept
as a test artefact."""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, Locator, Page, ViewportSize, expect

from teenpatti import engine
from teenpatti_tools.simulator import BET_TYPES, SUPERVISOR_KEY

from .system import Front

# desktop first: the console is a studio's screen
pytestmark = [pytest.mark.integration, pytest.mark.viewport(1280, 900)]
DESKTOP = ViewportSize(width=1280, height=900)
Screenshot = Callable[[Page, str], Awaitable[Path]]  # the `screenshot` fixture (conftest)

WAIT_MS = 20_000  # every wait on the page has a bound: a round's events come within seconds
CURRENCY = "INR"
STAKE = 2_500  # minor units: 25.00 INR
# A1 B1 A2 B2 A3 B3: Player A holds a pair of aces, Player B a pair of kings
CARDS = ["AS", "KD", "AH", "KC", "2S", "3D"]


async def open_console(page: Page, front: Front, fragment: str = "") -> None:
    await page.goto(f"{front.url}/console{fragment}")


async def log_in(page: Page, key: str) -> None:
    await page.get_by_label("Supervisor key").fill(key)
    await page.get_by_role("button", name="Log in").click()


async def confirm(page: Page, reason: str | None = None) -> None:
    """Answer the console's confirmation dialog (with the reason it asks for)."""
    dialog = page.locator("dialog#confirm")
    await expect(dialog).to_be_visible(timeout=WAIT_MS)
    if reason is not None:
        await dialog.get_by_label(re.compile("Reason")).fill(reason)
    await dialog.locator("#confirm-yes").click()
    await expect(dialog).to_be_hidden(timeout=WAIT_MS)


async def warm_up(front: Front) -> None:
    """Open and close a table straight on the table service: the first table a process opens
    counts every possible deal to price its pay table (seconds, more on a loaded machine),
    longer than the web front waits for an answer. Its first round is cancelled at once."""
    table_id = f"W{uuid.uuid4().hex[:8]}"
    headers = {"X-Api-Key": SUPERVISOR_KEY}
    async with httpx.AsyncClient(timeout=180) as http:
        opened = await http.post(
            f"{front.services.table}/tables",
            headers=headers,
            json={
                "table_id": table_id,
                "name": "warm-up",
                "betting_seconds": 60,
                "result_pause_seconds": 1,
                "limits": {CURRENCY: {bet: {"min": 100, "max": 1000} for bet in BET_TYPES}},
            },
        )
        assert opened.status_code == 202, opened.text  # a new table's terms: four eyes
        await approve(front, table_id, opened.json()["pending_change"]["change_id"])
        await front.studio.next_round(table_id)
        for action in ("close", "cancel"):  # and its first round, before any card
            done = await http.post(
                f"{front.services.table}/tables/{table_id}/{action}",
                headers=headers,
                json={"reason": "warm-up done"},
            )
            assert done.status_code == 200, done.text


async def approve(front: Front, table_id: str, change_id: str) -> None:
    """The second supervisor approves a proposed configuration (docs/decisions/0086)."""
    async with httpx.AsyncClient(timeout=30) as http:
        approved = await http.post(
            f"{front.services.table}/tables/{table_id}/changes/{change_id}/approve",
            headers={"X-Api-Key": front.second_supervisor_key},
        )
    assert approved.status_code == 200, approved.text


def problem_of(page: Page, table_id: str, kind: str) -> Locator:
    return page.locator(f'#problems-list li[data-table="{table_id}"][data-kind="{kind}"]')


async def test_a_wrong_key_is_refused_with_a_clear_message(page: Page, front: Front) -> None:
    await open_console(page, front)
    await log_in(page, "not-a-key-of-anyone")
    error = page.locator("#login-error")
    await expect(error).to_be_visible(timeout=WAIT_MS)
    await expect(error).to_contain_text("That key was refused", timeout=WAIT_MS)
    await expect(page.locator("#console")).to_be_hidden()
    # a valid key of another role is told the console needs a supervisor's
    await log_in(page, "dev-operator-1-key")
    await expect(error).to_contain_text("not a supervisor's key", timeout=WAIT_MS)
    await expect(page.locator("#console")).to_be_hidden()


async def test_a_supervisor_runs_a_table_from_the_console(
    page: Page, browser: Browser, front: Front, screenshot: Screenshot
) -> None:
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    await open_console(page, front)
    studio = front.studio
    table_id = f"C{uuid.uuid4().hex[:8]}"
    player = f"console-player-{uuid.uuid4().hex[:6]}"
    await studio.deposit("operator-1", player, 100_000)
    await warm_up(front)

    await log_in(page, SUPERVISOR_KEY)
    await expect(page.locator("#console")).to_be_visible(timeout=WAIT_MS)

    # open a table from the console: the form, then its confirmation
    await page.get_by_role("button", name="Open a table").click()
    form = page.locator("dialog#open-dialog")
    await form.get_by_label("Table id").fill(table_id)
    await form.get_by_label("Name").fill("Console test table")
    await form.get_by_label("Betting time (seconds)").fill("10")
    await form.get_by_label("Result shown for (seconds)").fill("15")
    await form.get_by_label("Minimum stake (minor units)").fill("100")
    await form.get_by_label("Maximum stake (minor units)").fill("100000")
    await form.get_by_role("button", name="Open the table").click()
    await confirm(page)
    # a new table's terms wait for a second supervisor, who approves them
    proposed = await studio.wait_for(table_id, "ConfigChangeProposed")
    await approve(front, table_id, proposed["change_id"])
    await expect(page.locator("#live-name")).to_have_text("Console test table", timeout=WAIT_MS)
    await expect(page.locator(f'#tables-list [data-table-id="{table_id}"]')).to_be_visible(
        timeout=WAIT_MS
    )
    await studio.enrol(table_id)  # its scanner, by two supervisors (docs/decisions/0085)

    # the round takes bets: its countdown runs, and the bet placed shows in its bet type
    opened = await studio.next_round(table_id)
    round_id = opened["round_id"]
    slip = await studio.bet("operator-1", player, round_id, {"player_a": STAKE})
    assert slip.status_code in (200, 201), slip.text
    await expect(page.locator("#live-phase")).to_have_text("Betting", timeout=WAIT_MS)
    await expect(page.locator("#live-countdown")).to_have_text(
        re.compile(r"^\d+ s$"), timeout=WAIT_MS
    )
    listed = page.locator(f'#tables-list [data-table-id="{table_id}"]')
    await expect(listed.locator(".table-item__phase")).to_have_text("Betting", timeout=WAIT_MS)
    await expect(listed.locator(".table-item__clock")).to_have_text(
        re.compile(r"^betting \d+ s$"), timeout=WAIT_MS
    )

    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    await expect(page.locator("#live-phase")).to_have_text("Dealing", timeout=WAIT_MS)
    stakes_row = page.locator('#stakes tr[data-bet-type="player_a"]')
    await expect(stakes_row.locator("td").nth(0)).to_have_text("1", timeout=WAIT_MS)
    await expect(stakes_row.locator("td").nth(1)).to_have_text("25.00 INR", timeout=WAIT_MS)
    await expect(page.locator('#stakes tr[data-bet-type="tie"] td').nth(0)).to_have_text("0")

    # the dealer's scanner misreads a card (the gateway asks for a rescan), then deals two
    misread = await studio.scan(table_id, "ZZ")
    assert misread.status_code in (200, 202, 422), misread.text
    await studio.deal(table_id, CARDS[:2])
    await expect(page.locator('#deal li[data-card="AS"]')).to_be_visible(timeout=WAIT_MS)
    await expect(page.locator('#deal li[data-card="KD"]')).to_be_visible(timeout=WAIT_MS)
    # the misread's value stays sealed: the table never showed it (decision 0058)
    await expect(page.locator("#scans tbody tr.scan--rejected").first).to_contain_text(
        "sealed", timeout=WAIT_MS
    )

    # the supervisor pauses the round: the table reports it as a problem until it resumes
    await page.get_by_role("button", name="Pause round").click()
    await confirm(page, "camera check")
    await expect(page.locator("#live-phase")).to_have_text("Dealing (paused)", timeout=WAIT_MS)
    await expect(page.locator("#live-alert")).to_contain_text("camera check", timeout=WAIT_MS)
    paused = problem_of(page, table_id, "paused_round")
    await expect(paused).to_be_visible(timeout=WAIT_MS)
    await expect(paused).to_contain_text(round_id)
    await page.get_by_role("button", name="Resume round").click()
    await confirm(page)
    await expect(page.locator("#live-phase")).to_have_text("Dealing", timeout=WAIT_MS)
    await expect(paused).to_have_count(0, timeout=WAIT_MS)

    # a card read twice: the table refuses it and pauses the round by itself
    await studio.deal(table_id, CARDS[2:3])
    duplicate = await studio.scan(table_id, CARDS[0])
    assert duplicate.status_code in (200, 202, 409, 422), duplicate.text
    await expect(page.locator("#scans-note")).to_contain_text("Duplicate card", timeout=WAIT_MS)
    await expect(paused).to_be_visible(timeout=WAIT_MS)
    await expect(paused).to_contain_text("duplicate card")
    await expect(page.locator("#par-chart svg")).to_be_visible(timeout=WAIT_MS)
    await screenshot(page, "console")
    await page.get_by_role("button", name="Resume round").click()
    await confirm(page, "card checked: the deal goes on")
    await expect(paused).to_have_count(0, timeout=WAIT_MS)

    # the rest of the deal, then the result
    await studio.deal(table_id, CARDS[3:])
    result = engine.resolve_round(engine.parse_cards(CARDS))
    await expect(page.locator("#live-result")).to_contain_text("Player A wins", timeout=WAIT_MS)
    assert result.winner.value == "player_a"
    await expect(page.locator("#hand-a .hand__name")).to_have_text("Pair")
    await expect(page.locator("#hand-b .hand__name")).to_have_text("Pair")
    dealt = page.locator("#deal li")
    await expect(dealt).to_have_count(6)
    for index, code in enumerate(CARDS):
        await expect(dealt.nth(index)).to_have_attribute("data-card", code)
    await expect(page.locator("#events")).to_contain_text("RoundClosed", timeout=WAIT_MS)

    # the PAR sheet: every bet type's exact RTP as the table service computes it
    async with httpx.AsyncClient(timeout=30) as http:
        answer = await http.get(
            f"{front.url}/api/table/tables/{table_id}/par-sheet",
            headers={"X-Api-Key": SUPERVISOR_KEY},
        )
    assert answer.status_code == 200, answer.text
    sheet = answer.json()
    bars = page.locator("#par-chart svg rect.par-chart__bar")
    await expect(bars).to_have_count(len(sheet["bets"]), timeout=WAIT_MS)
    for bet in sheet["bets"]:
        table = page.locator(f'#par-tables table[data-bet-type="{bet["bet_type"]}"]')
        await expect(table.locator("caption")).to_contain_text(f"{bet['rtp_percent']} %")
        await expect(table.locator("caption")).to_contain_text(bet["rtp"])
        await expect(page.locator("#par-chart svg")).to_contain_text(f"{bet['rtp_percent']} %")

    # the next round: a card read while bets are taken exposes it (its value stays sealed)
    following = await studio.wait_for(table_id, "RoundOpened", number=opened["number"] + 1)
    exposing = await studio.scan(table_id, "9H")
    assert exposing.status_code in (200, 202, 409, 422), exposing.text
    exposed = problem_of(page, table_id, "exposed_card")
    await expect(exposed).to_be_visible(timeout=WAIT_MS)
    await expect(page.locator("#live-alert")).to_contain_text(
        "A card was read while betting was open", timeout=WAIT_MS
    )
    await expect(page.locator("#deal li[data-card]")).to_have_count(0)
    await page.get_by_role("button", name="Replace deck").click()
    await confirm(page, "new shoe")
    await expect(exposed).to_have_count(0, timeout=WAIT_MS)
    await page.get_by_role("button", name="Resume round").click()
    await confirm(page)
    await expect(page.locator("#live-phase")).to_have_text("Betting", timeout=WAIT_MS)

    # a card dealt and found wrong: the round stops at once
    await studio.wait_for(table_id, "BettingClosed", round_id=following["round_id"])
    await studio.deal(table_id, ["QS"])
    await expect(page.locator('#deal li[data-card="QS"]')).to_be_visible(timeout=WAIT_MS)
    await page.get_by_role("button", name="Card wrong").click()
    await expect(page.locator("dialog#confirm").get_by_label("Card")).to_have_value("A1")
    await confirm(page, "QS misread: the card is QH")
    await expect(page.locator("#live-alert")).to_contain_text(
        "Card A1 marked wrong by supervisor-1", timeout=WAIT_MS
    )
    await expect(page.locator("#live-phase")).to_have_text("Dealing (paused)", timeout=WAIT_MS)
    marked = problem_of(page, table_id, "card_marked_wrong")
    await expect(marked).to_be_visible(timeout=WAIT_MS)
    await expect(page.get_by_role("button", name="Card wrong")).to_be_disabled()

    # a second supervisor, on a console of their own, takes the card back: A1 is dealt again
    second = await browser.new_context(viewport=DESKTOP)
    try:
        other = await second.new_page()
        await open_console(other, front, f"#table={table_id}")
        await log_in(other, front.second_supervisor_key)
        await expect(other.locator("#live-name")).to_have_text(
            "Console test table", timeout=WAIT_MS
        )
        await other.get_by_role("button", name="Re-scan from it").click()
        await confirm(other, "QS misread: A1 dealt again")
        await expect(other.locator("#action-status")).to_contain_text("deals again")
        await expect(marked).to_have_count(0, timeout=WAIT_MS)
        await expect(page.locator("#deal li[data-card]")).to_have_count(0, timeout=WAIT_MS)
        await studio.deal(table_id, ["QH"])
        await expect(page.locator('#deal li[data-card="QH"]')).to_be_visible(timeout=WAIT_MS)

        # the first round's result found wrong after it closed: one asks to void it from the
        # last rounds, the other confirms; the round shows the result it voided struck through
        first = page.locator(f'#rounds tr[data-round-id="{round_id}"]')
        await first.get_by_role("button", name="Void result").click()
        await confirm(page, "A2 was the AD: misread after the result")
        await expect(first).to_contain_text("Void asked by supervisor-1", timeout=WAIT_MS)
        await expect(page.locator("#live-alert")).to_contain_text(
            f"Void of the result of round {opened['number']}", timeout=WAIT_MS
        )
        asked = problem_of(page, table_id, "result_void_requested")
        await expect(asked).to_be_visible(timeout=WAIT_MS)
        mirrored = other.locator(f'#rounds tr[data-round-id="{round_id}"]')
        await mirrored.get_by_role("button", name="Confirm void").click(timeout=WAIT_MS)
        await confirm(other, "seen on camera")
        await expect(other.locator("#action-status")).to_contain_text("voided")
        await expect(first).to_have_class(re.compile("round--voided"), timeout=WAIT_MS)
        await expect(first.locator("s")).to_have_text(re.compile("^Player A wins"))
        await expect(first).to_contain_text("seen on camera")
        await screenshot(page, "console-result-voided")
        await expect(asked).to_have_count(0, timeout=WAIT_MS)

        # a card dealt, so the supervisor's cancel is a request for a second one
        await page.get_by_role("button", name="Cancel round").click()
        await confirm(page, "wrong shoe")
        await expect(page.locator("#live-alert")).to_contain_text(
            "Void requested by supervisor-1", timeout=WAIT_MS
        )
        await expect(problem_of(page, table_id, "void_requested")).to_be_visible(timeout=WAIT_MS)
        # the same supervisor cannot confirm it: the dialog stays open with the service's reason
        await page.get_by_role("button", name="Cancel round").click()
        dialog = page.locator("dialog#confirm")
        await dialog.get_by_label(re.compile("Reason")).fill("wrong shoe, again")
        await dialog.locator("#confirm-yes").click()
        await expect(dialog.get_by_role("alert")).to_contain_text(
            "another supervisor must confirm it (same_supervisor)", timeout=WAIT_MS
        )
        await dialog.get_by_role("button", name="Go back").click()
        await expect(dialog).to_be_hidden(timeout=WAIT_MS)

        # the second supervisor confirms the void
        await other.get_by_role("button", name="Cancel round").click()
        await confirm(other, "wrong shoe, confirmed")
        await expect(other.locator("#action-status")).to_contain_text("cancelled")
    finally:
        await second.close()
    await expect(page.locator("#live-alert")).to_contain_text(
        "cancelled by supervisor-2", timeout=WAIT_MS
    )
    await expect(problem_of(page, table_id, "void_requested")).to_have_count(0, timeout=WAIT_MS)

    # the table is closed from the console: no round opens any more
    await page.get_by_role("button", name="Close table").click()
    await confirm(page, "end of the shift")
    await expect(page.locator("#live-status")).to_have_text("Closed", timeout=WAIT_MS)
    await expect(page.locator("#live-alert")).to_contain_text("end of the shift")
    await expect(page.get_by_role("button", name="Close table")).to_be_disabled()
    assert script_errors == []


async def test_the_video_lost_button_cancels_a_round_in_betting_and_not_one_in_dealing(
    page: Page, front: Front
) -> None:
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    studio = front.studio
    table_id = f"V{uuid.uuid4().hex[:8]}"
    await warm_up(front)
    await studio.open_table(table_id, betting_seconds=20, result_pause_seconds=1)
    first = await studio.next_round(table_id)
    await open_console(page, front, f"#table={table_id}")
    await log_in(page, SUPERVISOR_KEY)
    await expect(page.locator("#live-phase")).to_have_text("Betting", timeout=WAIT_MS)
    restored = page.get_by_role("button", name="Video restored")
    await expect(restored).to_be_disabled()

    # betting: the round has not started, so it is cancelled and every bet refunded
    await page.get_by_role("button", name="Video lost").click()
    await confirm(page, "camera 2 frozen")
    await expect(page.locator("#live-alert")).to_contain_text(
        "Video lost, reported by supervisor-1 (camera 2 frozen)", timeout=WAIT_MS
    )
    await expect(page.locator("#live-phase")).to_have_text("Cancelled", timeout=WAIT_MS)
    cancelled = await studio.wait_for(table_id, "RoundCancelled", round_id=first["round_id"])
    assert "video lost before the first card" in cancelled["reason"]
    await expect(page.get_by_role("button", name="Video lost")).to_be_disabled()
    await expect(problem_of(page, table_id, "video_lost")).to_be_visible(timeout=WAIT_MS)

    # restored: the next round opens; once a card is dealt, a lost video lets it finish
    await restored.click()
    await confirm(page)
    second = await studio.next_round(table_id, after=cancelled["_position"])
    await expect(page.locator("#live-phase")).to_have_text("Betting", timeout=WAIT_MS)
    await studio.wait_for(table_id, "BettingClosed", round_id=second["round_id"], timeout=60)
    await studio.deal(table_id, CARDS[:1])
    await expect(page.locator('#deal li[data-card="AS"]')).to_be_visible(timeout=WAIT_MS)
    await page.get_by_role("button", name="Video lost").click()
    await confirm(page, "stream down")
    await expect(page.locator("#action-status")).to_contain_text(
        "no new round opens", timeout=WAIT_MS
    )
    await expect(page.locator("#live-phase")).to_have_text("Dealing", timeout=WAIT_MS)
    await studio.deal(table_id, CARDS[1:])
    await studio.wait_for(table_id, "RoundClosed", round_id=second["round_id"])
    await expect(page.locator("#live-phase")).to_have_text("Result", timeout=WAIT_MS)
    events = await studio.events(table_id, second["_position"])
    assert "RoundCancelled" not in [event["event_type"] for event in events]
    await studio.close_table(table_id)
    assert script_errors == []


async def test_a_service_out_of_reach_shows_in_the_problems(page: Page, front: Front) -> None:
    await open_console(page, front)
    await log_in(page, SUPERVISOR_KEY)
    summary = page.locator("#problems-summary")
    await expect(summary).to_contain_text(re.compile("problem"), timeout=WAIT_MS)
    await expect(summary).not_to_contain_text("not reachable")
    processes = front.system.processes
    settlement = next(s for s in processes.services if s.kind == "settlement")
    await processes.stop(settlement.name)
    try:
        await expect(summary).to_contain_text("not reachable: Settlement", timeout=WAIT_MS)
        await expect(
            page.locator('#problems-list li.problem--unreachable[data-service="settlement"]')
        ).to_be_visible(timeout=WAIT_MS)
    finally:
        await processes.start(settlement)
    await expect(summary).not_to_contain_text("not reachable", timeout=WAIT_MS)


async def test_the_console_works_from_the_keyboard(page: Page, front: Front) -> None:
    await open_console(page, front)
    key = page.get_by_label("Supervisor key")
    await expect(key).to_be_focused(timeout=WAIT_MS)
    await page.keyboard.type(SUPERVISOR_KEY)
    await page.keyboard.press("Enter")
    await expect(page.locator("#console")).to_be_visible(timeout=WAIT_MS)
    # Tab reaches the console's first control
    opener = page.get_by_role("button", name="Open a table")
    for _ in range(10):
        if await opener.evaluate("button => button === document.activeElement"):
            break
        await page.keyboard.press("Tab")
    await expect(opener).to_be_focused()
    await page.keyboard.press("Enter")
    form = page.locator("dialog#open-dialog")
    await expect(form).to_be_visible(timeout=WAIT_MS)
    await expect(form.get_by_label("Table id")).to_be_focused()
    await page.keyboard.press("Escape")
    await expect(form).to_be_hidden(timeout=WAIT_MS)
    await expect(opener).to_be_focused()
    # the key is kept for this tab only: logging out forgets it
    await page.get_by_role("button", name="Log out").click()
    await expect(key).to_be_visible(timeout=WAIT_MS)
    assert await page.evaluate("() => window.sessionStorage.length") == 0
