"""The rules pages in a real browser (Debian's Chromium, headless): each of the five languages
shows its own title, the published pay figures and its hand names; the Farsi page is laid out
right to left; Thai, Persian and Japanese text is drawn with real glyphs, not the boxes a
browser draws for a character no installed font has; a screenshot of each page is kept. A
table's page whose table cannot be read shows the published pay figures and says so (a
table's own pay figures, through the player view's link: test_player_view.py).

The rules pages need nothing but the web front, so this module starts only that (a process on
a free port) and not the whole system.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, ConsoleMessage, Page, async_playwright, expect

from teenpatti.engine import PUBLISHED_PAY_TABLE, BetType, SixCardCategory, ThreeCardCategory
from teenpatti.engine.paytable import pay_lines
from teenpatti_tools.devrun import free_base_port
from web_service.rules import LANGUAGES, TableName, game_texts, odds_figure, rules_text

from .conftest import Screenshot

pytestmark = pytest.mark.integration

WAIT_MS = 20_000
START_SECONDS = 120.0  # importing the app takes a while on a busy machine
ODDS_AS_WRITTEN = {"en": "{}:1", "th": "{}:1", "fa": "{} به 1", "ja": "{}:1", "ru": "{}:1"}
# A private-use character: no installed font has a glyph for it, so the browser draws its
# "missing glyph" box. Text in a script that no installed font covers is drawn with the same
# box for every character that takes space (combining marks take none).
BOX = "\ue000"
# words of each script that no Latin font covers, from the game's own texts
SCRIPT_SAMPLES = {
    "th": game_texts("th")["hand.high_card"],  # ไพ่แต้มสูง
    "fa": game_texts("fa")["hand.high_card"],  # کارت بالا
    "ja": game_texts("ja")["bet.tie"],  # 引き分け
}

# Measures, in the page, how wide each character of `text` is drawn, and the box, in the font
# of the page's first heading (a span appended to it and removed again).
MEASURE = """([text, box]) => {
  const heading = document.querySelector("h1");
  const width = (content) => {
    const span = document.createElement("span");
    span.textContent = content;
    heading.append(span);
    const measured = span.getBoundingClientRect().width;
    span.remove();
    return measured;
  };
  return { characters: [...text].map(width), box: width(box) };
}"""


def drawn_as_boxes(widths: dict[str, Any]) -> bool:
    """Every character that takes space is exactly as wide as the missing-glyph box."""
    spacing = [width for width in widths["characters"] if width > 0]
    return bool(spacing) and all(abs(width - widths["box"]) < 0.5 for width in spacing)


@pytest.fixture(scope="module")
def web_front() -> Iterator[str]:
    """The web front alone, as a process (`uvicorn web_service.app:create_app`)."""
    port = free_base_port()
    url = f"http://127.0.0.1:{port}"
    log_path = Path(os.environ.get("TP_HOME") or ".local").resolve() / "logs" / "rules-web.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "web_service.app:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            _wait_until_healthy(url, process, log_path)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def _wait_until_healthy(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the web front exited ({process.returncode}); read {log}")
        try:
            if httpx.get(f"{url}/health", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    pytest.fail(f"the web front did not answer /health within {START_SECONDS}s; read {log}")


async def _open(page: Page, url: str) -> list[str]:
    """Open a page; returns the list that collects its console errors (CSP refusals...)."""
    errors: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(f"{message.text} ({message.location.get('url', '')})")

    page.on("console", on_console)
    page.on("pageerror", lambda error: errors.append(str(error)))
    answer = await page.goto(url, wait_until="load", timeout=WAIT_MS)
    assert answer is not None and answer.status == 200
    await page.evaluate("document.fonts.ready.then(() => true)")
    return errors


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_each_language_shows_its_rules_pay_figures_and_hand_names(
    web_front: str, page: Page, screenshot: Screenshot, lang: str
) -> None:
    errors = await _open(page, f"{web_front}/rules/{lang}")
    text, names = rules_text(lang), game_texts(lang)

    await expect(page).to_have_title(text.title, timeout=WAIT_MS)
    await expect(page.get_by_role("heading", level=1)).to_have_text(text.title)
    assert await page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == [
        lang,
        "rtl" if lang == "fa" else "ltr",
    ]

    # the pay figures: the published pay table, as this language writes odds
    shown = await page.locator(".payout").evaluate_all(
        "spans => spans.map(span => [span.dataset.line, span.textContent])"
    )
    expected = {
        line: ODDS_AS_WRITTEN[lang].format(odds_figure(odds))
        for line, odds in pay_lines(PUBLISHED_PAY_TABLE)
        if not line.startswith(BetType.PAIR_PLUS_B)  # one Pair + table: both pay alike
    }
    assert dict(shown) == expected

    # the hand names, in order, in the tables that rank them and the ones that pay them
    three_card = [names[f"hand.{hand}"] for hand in ThreeCardCategory]
    six_card = [names[f"six_card_hand.{hand}"] for hand in SixCardCategory]
    bets = [names[f"bet.{bet}"] for bet in (BetType.PLAYER_A, BetType.PLAYER_B, BetType.TIE)]
    tables: dict[TableName, list[str]] = {
        "three_card_hands": three_card,
        "six_card_hands": six_card,
        "main_bets": bets,
        "pair_plus": three_card[:-1],  # high card does not pay
        "six_card_bonus": six_card,
    }
    for table, rows in tables.items():
        await expect(page.locator(f"#{table} caption")).to_have_text(text.captions[table])
        await expect(page.locator(f"#{table} tbody th[scope=row]")).to_have_text(rows)

    # every section the English has, disconnection policy and pause/void included
    headings = [s.heading for s in text.sections if s.heading is not None]
    await expect(page.locator("main h2, main h3")).to_have_text(headings)
    # the other languages are one link away, each named in its own language
    for other in LANGUAGES:
        link = page.locator(f'nav a[hreflang="{other}"]')
        await expect(link).to_have_text(game_texts(other)["language.name"])
        await expect(link).to_have_attribute("href", f"/rules/{other}")
    await expect(page.locator("nav a[aria-current=page]")).to_have_attribute("lang", lang)

    assert errors == []  # the CSP refused nothing: no inline script or style on the page
    path = await screenshot(page, f"rules-{lang}")
    assert path.stat().st_size > 0


async def test_a_table_that_cannot_be_read_shows_the_published_pay_table_and_says_so(
    web_front: str, page: Page, screenshot: Screenshot
) -> None:
    # this web front runs alone: no table service answers it, and no table has this id
    errors = await _open(page, f"{web_front}/rules/fa?table=no-such-table")
    note = page.locator("#table-note")
    await expect(note).to_have_attribute("data-pay-table", "published")
    await expect(note).to_have_text(
        rules_text("fa").table_notes.published.format(table="no-such-table")
    )
    shown = await page.locator(".payout").evaluate_all(
        "spans => Object.fromEntries(spans.map(span => [span.dataset.line, span.textContent]))"
    )
    assert shown["tie"] == ODDS_AS_WRITTEN["fa"].format(odds_figure(PUBLISHED_PAY_TABLE.tie))
    for other in LANGUAGES:
        link = page.locator(f'nav a[hreflang="{other}"]')
        await expect(link).to_have_attribute("href", f"/rules/{other}?table=no-such-table")
    assert errors == []
    await screenshot(page, "rules-fa-unknown-table")


@pytest.mark.viewport(1280, 900)  # the title on one line, with room beside it
async def test_the_farsi_page_is_laid_out_right_to_left(
    web_front: str, page: Page, screenshot: Screenshot
) -> None:
    await _open(page, f"{web_front}/rules/fa")
    geometry = await page.evaluate(
        """() => {
          const heading = document.querySelector("h1");
          const range = document.createRange();
          range.selectNodeContents(heading);
          const box = heading.getBoundingClientRect();
          const text = range.getBoundingClientRect();
          const row = document.querySelector("#three_card_hands tbody tr");
          const name = row.querySelector("th").getBoundingClientRect();
          const description = row.querySelector("td").getBoundingClientRect();
          return {
            direction: getComputedStyle(heading).direction,
            pageDirection: getComputedStyle(document.body).direction,
            headingLeft: box.left, headingRight: box.right,
            textLeft: text.left, textRight: text.right,
            nameLeft: name.left, descriptionRight: description.right,
          };
        }"""
    )
    assert geometry["direction"] == "rtl"
    assert geometry["pageDirection"] == "rtl"
    # the heading's text hugs the right edge of its box and leaves room on the left
    assert abs(geometry["headingRight"] - geometry["textRight"]) <= 2
    assert geometry["textLeft"] - geometry["headingLeft"] > 10
    # a table's first column (the hand's name) is the rightmost one
    assert geometry["nameLeft"] >= geometry["descriptionRight"] - 1
    await screenshot(page, "rules-fa-rtl")


@pytest.mark.viewport(1280, 900)
async def test_the_english_page_is_laid_out_left_to_right(web_front: str, page: Page) -> None:
    await _open(page, f"{web_front}/rules/en")
    geometry = await page.evaluate(
        """() => {
          const heading = document.querySelector("h1");
          const range = document.createRange();
          range.selectNodeContents(heading);
          const box = heading.getBoundingClientRect();
          const text = range.getBoundingClientRect();
          return {
            direction: getComputedStyle(heading).direction,
            headingLeft: box.left, headingRight: box.right,
            textLeft: text.left, textRight: text.right,
          };
        }"""
    )
    assert geometry["direction"] == "ltr"
    assert abs(geometry["textLeft"] - geometry["headingLeft"]) <= 2
    assert geometry["headingRight"] - geometry["textRight"] > 10


@pytest.mark.parametrize("lang", sorted(SCRIPT_SAMPLES))
async def test_thai_persian_and_japanese_are_drawn_with_real_glyphs(
    web_front: str, page: Page, lang: str
) -> None:
    await _open(page, f"{web_front}/rules/{lang}")
    sample = SCRIPT_SAMPLES[lang]
    await expect(page.locator("main")).to_contain_text(sample)
    widths = await page.evaluate(MEASURE, [sample, BOX])
    assert not drawn_as_boxes(widths), widths


@pytest.fixture(scope="module")
async def browser_without_fonts(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Browser]:
    """A Chromium that sees only the DejaVu fonts, as on a machine without the Noto fonts."""
    folder = tmp_path_factory.mktemp("fontconfig")
    config = folder / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        "<dir>/usr/share/fonts/truetype/dejavu</dir>\n"
        f"<cachedir>{folder / 'cache'}</cachedir>\n</fontconfig>\n"
    )
    environment: dict[str, str | float | bool] = {**os.environ, "FONTCONFIG_FILE": str(config)}
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            headless=True,
            args=args,
            env=environment,
            timeout=60_000,
        )
        try:
            yield chromium
        finally:
            await chromium.close()


async def test_the_glyph_check_sees_boxes_when_the_fonts_are_missing(
    web_front: str, browser_without_fonts: Browser, screenshot: Screenshot
) -> None:
    # the check above can fail: without the fonts the project installs, Thai and Japanese
    # are drawn as boxes (DejaVu Sans has Arabic letters, so Persian still shows)
    context = await browser_without_fonts.new_context(viewport={"width": 390, "height": 844})
    try:
        page = await context.new_page()
        for lang in ("th", "ja"):
            await _open(page, f"{web_front}/rules/{lang}")
            widths = await page.evaluate(MEASURE, [SCRIPT_SAMPLES[lang], BOX])
            assert drawn_as_boxes(widths), (lang, widths)
        await screenshot(page, "rules-ja-without-fonts")
    finally:
        await context.close()
