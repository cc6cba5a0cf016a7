"""The browser kit: Debian's Chromium (/usr/bin/chromium, headless), driven by Playwright's
async API; the fonts it needs for Thai, Persian and Japanese are installed by the project
(`deploy/local/stack.sh tools`, run by `make install`), never Playwright's own downloads.

Fixtures:
- `browser` (session): one Chromium for the whole run.
- `page`: a fresh context (cookies, storage) and page per test, phone-sized (390x844) unless
  the test says `@pytest.mark.viewport(1280, 900)`; every wait of a test carries a timeout.
- `screenshot(page, name)`: the whole page as `$TP_HOME/artefacts/browser/<name>.png`
  (`.local/artefacts/browser/` by default), kept as a test artefact; returns its path.
- `front` (package, tests/browser/system.py): the four services and the web front.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, ViewportSize, async_playwright

from .system import front  # noqa: F401

CHROMIUM = Path("/usr/bin/chromium")
PHONE = ViewportSize(width=390, height=844)
ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = Path(os.environ.get("TP_HOME") or ROOT / ".local").resolve() / "artefacts" / "browser"

Screenshot = Callable[[Page, str], Awaitable[Path]]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "viewport(width, height): the size of the `page` fixture's window"
    )


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: install it with `deploy/local/stack.sh tools`")
    return CHROMIUM


@pytest.fixture(scope="session")
async def browser(chromium_path: Path) -> AsyncIterator[Browser]:
    # Chromium refuses to sandbox itself as root (a container's usual user)
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=str(chromium_path), headless=True, args=args, timeout=60_000
        )
        try:
            yield chromium
        finally:
            await chromium.close()


@pytest.fixture
async def page(browser: Browser, request: pytest.FixtureRequest) -> AsyncIterator[Page]:
    marker = request.node.get_closest_marker("viewport")
    viewport = ViewportSize(width=marker.args[0], height=marker.args[1]) if marker else PHONE
    context = await browser.new_context(viewport=viewport)
    context.set_default_timeout(20_000)
    try:
        yield await context.new_page()
    finally:
        await context.close()


@pytest.fixture
def screenshot() -> Screenshot:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)

    async def take(page: Page, name: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "page"
        path = ARTEFACTS / f"{safe}.png"
        await page.screenshot(path=str(path), full_page=True, timeout=20_000)
        return path

    return take
