"""`/rules/{lang}?table=<id>`: the pay figures of the pay table the table service holds for
that table, read with the web front's own key; the published ones, said so, when the table
cannot be read. The table service is a stand-in here (httpx's MockTransport)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from fractions import Fraction

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from teenpatti.engine import PUBLISHED_PAY_TABLE
from teenpatti.engine.paytable import pay_table_to_mapping
from teenpatti.http import install_problem_handlers
from web_service.config import DEVELOPMENT_WEB_KEY, WebSettings
from web_service.rules import LANGUAGES, odds_figure, router, rules_text
from web_service.upstream import Upstreams

TABLE_URL = "http://table.test"
HOUSE = replace(
    PUBLISHED_PAY_TABLE,
    name="house-2",
    tie=Fraction(45),
    pair_plus_b=replace(PUBLISHED_PAY_TABLE.pair_plus_b, pair=Fraction(2)),
)
PUBLISHED_TIE = f"{odds_figure(PUBLISHED_PAY_TABLE.tie)}:1"
Handler = Callable[[httpx.Request], httpx.Response]


def _table(table_id: str) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "table_id": table_id,
            "status": "open",
            "config": {"name": "Salon Privé", "paytable": pay_table_to_mapping(HOUSE)},
        },
    )


def _payouts(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-line="([^"]+)">([^<]+)<', html))


def _note(html: str) -> str:
    found = re.search(r'<p id="table-note"[^>]*>(.*?)</p>', html)
    assert found is not None, html[:500]
    return re.sub(r"<[^>]+>", "", found.group(1))


@pytest.fixture
def asked() -> list[httpx.Request]:
    return []


@pytest.fixture
def answers() -> dict[str, Handler]:
    """Path -> what the stand-in table service answers; anything else is a 404."""
    return {"/tables/T7": lambda request: _table("T7")}


@pytest.fixture
def client(asked: list[httpx.Request], answers: dict[str, Handler]) -> Iterator[TestClient]:
    def table_service(request: httpx.Request) -> httpx.Response:
        asked.append(request)
        answer = answers.get(request.url.path)
        return answer(request) if answer else httpx.Response(404, json={"code": "unknown_table"})

    app = FastAPI()
    install_problem_handlers(app)
    app.include_router(router)
    http = httpx.AsyncClient(transport=httpx.MockTransport(table_service))
    app.state.upstreams = Upstreams(WebSettings(table_url=TABLE_URL), http)
    with TestClient(app) as test_client:
        yield test_client


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_tables_own_pay_table_with_a_note_naming_it(client: TestClient, lang: str) -> None:
    answer = client.get(f"/rules/{lang}", params={"table": "T7"})
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "no-store"
    odds = rules_text(lang).odds
    payouts = _payouts(answer.text)
    assert payouts["tie"] == odds.format(odds="45")
    assert payouts["pair_plus_a.pair"] == odds.format(odds="1")
    assert payouts["pair_plus_b.pair"] == odds.format(odds="2")
    note = rules_text(lang).table_notes.shown.format(table="Salon Privé")
    assert _note(answer.text) == note
    assert 'data-pay-table="table"' in answer.text
    # the other languages keep the table
    assert f'href="/rules/{lang}?table=T7" hreflang="{lang}"' in answer.text


def test_the_table_service_is_asked_with_the_web_fronts_own_key(
    client: TestClient, asked: list[httpx.Request]
) -> None:
    client.get("/rules/en", params={"table": "T7"})
    assert [(r.method, str(r.url)) for r in asked] == [("GET", f"{TABLE_URL}/tables/T7")]
    assert asked[0].headers["x-api-key"] == DEVELOPMENT_WEB_KEY


@pytest.mark.parametrize(
    ("table", "answer"),
    [
        ("nosuch", None),  # never opened: 404
        ("T7", httpx.Response(403, json={"code": "forbidden"})),
        ("T7", httpx.Response(200, json={"table_id": "T7", "config": None})),
        ("T7", httpx.Response(200, json={"config": {"name": "x", "paytable": {"tie": "-1"}}})),
    ],
)
def test_a_table_that_cannot_be_read_shows_the_published_pay_table_and_says_so(
    client: TestClient, answers: dict[str, Handler], table: str, answer: httpx.Response | None
) -> None:
    if answer is not None:
        answers["/tables/T7"] = lambda request: answer
    page = client.get("/rules/ja", params={"table": table})
    assert page.status_code == 200
    assert _payouts(page.text)["tie"] == PUBLISHED_TIE
    assert _note(page.text) == rules_text("ja").table_notes.published.format(table=table)
    assert 'data-pay-table="published"' in page.text


def test_the_table_service_unreachable_shows_the_published_pay_table_and_says_so(
    client: TestClient, answers: dict[str, Handler]
) -> None:
    def unreachable(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    answers["/tables/T7"] = unreachable
    page = client.get("/rules/en", params={"table": "T7"})
    assert page.status_code == 200
    assert _payouts(page.text)["tie"] == PUBLISHED_TIE
    assert "cannot be read" in _note(page.text)


def test_an_id_no_table_can_have_is_not_asked_for(
    client: TestClient, asked: list[httpx.Request]
) -> None:
    page = client.get("/rules/en", params={"table": "../wallet/x"})
    assert page.status_code == 200
    assert asked == []
    assert 'data-pay-table="published"' in page.text
    assert "table=..%2Fwallet%2Fx" in page.text  # the language links keep it, encoded


def test_without_a_table_no_note_and_nothing_asked(
    client: TestClient, asked: list[httpx.Request]
) -> None:
    page = client.get("/rules/en")
    assert 'id="table-note"' not in page.text
    assert asked == []


def test_the_readers_language_keeps_the_table(client: TestClient) -> None:
    answer = client.get(
        "/rules", params={"table": "T7"}, headers={"Accept-Language": "fa"}, follow_redirects=False
    )
    assert answer.status_code == 307
    assert answer.headers["location"] == "/rules/fa?table=T7"
