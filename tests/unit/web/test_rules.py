"""The rules pages as the server renders them: every language complete and shaped like the
English, the rules' examples true to the engine, pay figures from the pay table."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from html.parser import HTMLParser

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from teenpatti.engine import (
    PUBLISHED_PAY_TABLE,
    BetType,
    SixCardCategory,
    ThreeCardCategory,
    evaluate_three_card_hand,
    parse_cards,
    six_card_bonus_hand,
)
from teenpatti.engine.paytable import pay_lines
from teenpatti.http import install_problem_handlers
from web_service.rules import (
    LANGUAGES,
    SIX_CARD_EXAMPLES,
    THREE_CARD_EXAMPLES,
    Paragraph,
    PayTableBlock,
    game_texts,
    odds_figure,
    preferred_language,
    render_rules_page,
    router,
    rules_text,
)

ODDS_AS_WRITTEN = {"en": "{}:1", "th": "{}:1", "fa": "{} به 1", "ja": "{}:1", "ru": "{}:1"}


def _payouts(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-line="([^"]+)">([^<]+)<', html))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_language_is_shaped_like_the_english(lang: str) -> None:
    english, text = rules_text("en"), rules_text(lang)
    assert text.language == lang
    assert set(text.hand_descriptions) == set(ThreeCardCategory)
    assert set(text.six_card_hand_descriptions) == set(SixCardCategory)
    # the same sections (disconnection policy and pause/void included) with the same blocks
    assert [(s.level, s.heading is None) for s in text.sections] == [
        (s.level, s.heading is None) for s in english.sections
    ]
    for theirs, ours in zip(text.sections, english.sections, strict=True):
        assert [type(block) for block in theirs.blocks] == [type(block) for block in ours.blocks]
        assert [b.table for b in theirs.blocks if isinstance(b, PayTableBlock)] == [
            b.table for b in ours.blocks if isinstance(b, PayTableBlock)
        ]
    everything = " ".join(b.p for s in text.sections for b in s.blocks if isinstance(b, Paragraph))
    assert "97.50" in everything  # the American format, also in Russian (97,50% corrected)
    assert "1,234.00" in everything


@pytest.mark.parametrize("lang", LANGUAGES)
def test_game_texts_name_every_bet_hand_winner_and_outcome(lang: str) -> None:
    own = game_texts(lang)
    keys = (
        [f"bet.{bet}" for bet in BetType]
        + [f"hand.{hand}" for hand in ThreeCardCategory]
        + [f"six_card_hand.{hand}" for hand in SixCardCategory]
        + [f"winner.{winner}" for winner in ("player_a", "player_b", "tie")]
        + [f"outcome.{outcome}" for outcome in ("won", "lost", "push", "refunded")]
    )
    assert all(own[key].strip() for key in keys)
    assert own["language.dir"] == ("rtl" if lang == "fa" else "ltr")
    if lang != "en":  # the translation's own words, not the English left in place
        assert own["hand.high_card"] != game_texts("en")["hand.high_card"]


def test_the_examples_are_hands_of_their_category() -> None:
    for category, three in THREE_CARD_EXAMPLES.items():
        assert evaluate_three_card_hand(parse_cards(three.split())).category is category
    for six_category, five in SIX_CARD_EXAMPLES.items():
        cards = parse_cards(five.split())
        # a sixth card that improves nothing: the 2 of clubs or, where it is used, the 3
        extra = next(c for c in parse_cards(["2C", "3C"]) if c not in cards)
        hand = six_card_bonus_hand((*cards, extra))
        assert hand is not None and hand.category is six_category


def test_the_straight_flush_example_is_suited_in_every_language() -> None:
    # the English source shows K♠ Q♠ J♣ (a typo, rules README)
    html = render_rules_page("en")
    row = re.search(r"<tr><th scope=\"row\">Straight Flush</th>.*?</tr>", html)
    assert row is not None
    assert "J♠" in row.group(0) and "J♣" not in row.group(0)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_pay_figures_come_from_the_published_pay_table(lang: str) -> None:
    payouts = _payouts(render_rules_page(lang))
    expected = {
        line: ODDS_AS_WRITTEN[lang].format(odds_figure(odds))
        for line, odds in pay_lines(PUBLISHED_PAY_TABLE)
        if not line.startswith(BetType.PAIR_PLUS_B)  # one Pair + table: both pay alike
    }
    assert payouts == expected
    assert payouts["player_a"] == ODDS_AS_WRITTEN[lang].format("0.95")
    assert payouts["six_card_bonus.royal_flush"] == ODDS_AS_WRITTEN[lang].format("1,000")


def test_a_different_pay_table_changes_the_page() -> None:
    table = replace(
        PUBLISHED_PAY_TABLE,
        tie=Fraction(45),
        pair_plus_b=replace(PUBLISHED_PAY_TABLE.pair_plus_b, pair=Fraction(2)),
    )
    payouts = _payouts(render_rules_page("en", table))
    assert payouts["tie"] == "45:1"
    # the two Pair + bets now pay differently: a column each
    assert payouts["pair_plus_a.pair"] == "1:1"
    assert payouts["pair_plus_b.pair"] == "2:1"


def test_odds_figures_use_the_american_format() -> None:
    assert odds_figure(Fraction(19, 20)) == "0.95"
    assert odds_figure(Fraction(1000)) == "1,000"
    assert odds_figure(Fraction(12345, 10)) == "1,234.5"
    assert odds_figure(Fraction(1, 3)) == "1/3"


class _Outline(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_is_accessible_html_without_inline_script_or_style(lang: str) -> None:
    html = render_rules_page(lang)
    outline = _Outline()
    outline.feed(html)
    tags = outline.tags
    root = tags[0][1]
    assert root == {"lang": lang, "dir": "rtl" if lang == "fa" else "ltr"}
    names = [tag for tag, _ in tags]
    assert names.count("h1") == 1
    assert names.count("table") == names.count("caption") == 5
    assert "script" not in names and "style" not in names
    assert not any(
        "style" in attrs or any(name.startswith("on") for name in attrs) for _, attrs in tags
    )
    links = {attrs.get("hreflang") for tag, attrs in tags if tag == "a"}
    assert links == set(LANGUAGES)
    current = [attrs for tag, attrs in tags if tag == "a" and "aria-current" in attrs]
    assert [attrs["href"] for attrs in current] == [f"/rules/{lang}"]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, "en"),
        ("", "en"),
        ("fa-IR,fa;q=0.9,en;q=0.8", "fa"),
        ("de-DE, ja;q=0.5, ru;q=0.7", "ru"),
        ("th, ja", "th"),
        ("ru;q=0, ja;q=0.1", "ja"),
        ("de, fr;q=0.9", "en"),
        ("ja;q=bad, th;q=0.2", "th"),
    ],
)
def test_preferred_language(header: str | None, expected: str) -> None:
    assert preferred_language(header) == expected


@pytest.fixture
def client() -> TestClient:
    app = FastAPI()
    install_problem_handlers(app)
    app.include_router(router)
    return TestClient(app)


def test_rules_redirects_to_the_readers_language(client: TestClient) -> None:
    answer = client.get("/rules", headers={"Accept-Language": "ja-JP"}, follow_redirects=False)
    assert answer.status_code == 307
    assert answer.headers["location"] == "/rules/ja"
    assert answer.headers["vary"] == "Accept-Language"
    assert client.get("/rules", follow_redirects=False).headers["location"] == "/rules/en"


def test_rules_page_is_html(client: TestClient) -> None:
    answer = client.get("/rules/th")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert "<title>กติกาของเกม ทีน แพตตี 20-20</title>" in answer.text


def test_an_unknown_language_is_a_problem(client: TestClient) -> None:
    answer = client.get("/rules/de")
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/problem+json"
    body = answer.json()
    assert body["code"] == "unknown_language"
    assert body["languages"] == list(LANGUAGES)
