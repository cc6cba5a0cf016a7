"""The rules pages: `GET /rules` (to the reader's language) and `GET /rules/{lang}`.

The published rules in five languages, rendered on the server as plain accessible HTML (no
script): headings, lists and the pay tables as real tables with captions. The prose comes
from `rules/{lang}.json`, the rules texts of `../shared/rules/` put in a structured form and
corrected where a translation says something else than the English, which prevails
(`rules/CORRECTIONS.md` lists every change). The names of hands and bets come from the
game's texts (`static/i18n/{lang}/game.json`), the ones the player view shows, and every pay
figure from a pay table of the engine, so no page can disagree with what the wallet pays
(docs/decisions/0075-the-rules-in-five-languages.md): the published one, or with `?table=`
(the player view's link) the one the table service holds for that table, read with the web
front's own key; when that table cannot be read, the published one with a note that says so.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cache, lru_cache
from html import escape
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import quote

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field

from teenpatti.access.keys import TABLE_ID_PATTERN
from teenpatti.engine import (
    PUBLISHED_PAY_TABLE,
    BetType,
    InvalidPayTableError,
    PayTable,
    SixCardCategory,
    ThreeCardCategory,
    parse_cards,
)
from teenpatti.engine.paytable import format_odds, pay_table_from_mapping
from teenpatti.http import ProblemError

from .upstream import UpstreamUnavailableError, upstreams

log = logging.getLogger(__name__)

RULES_DIR = Path(__file__).parent / "rules"
I18N_DIR = Path(__file__).parent / "static" / "i18n"

# English first: the fallback, and the version that prevails.
LANGUAGES = ("en", "th", "fa", "ja", "ru")
DEFAULT_LANGUAGE = "en"
RIGHT_TO_LEFT = frozenset({"fa"})

TableName = Literal[
    "three_card_hands", "six_card_hands", "main_bets", "pair_plus", "six_card_bonus"
]

# The rules' own examples (the same cards in every language). The English shows the straight
# flush as K♠ Q♠ J♣, a typo (rules README): a straight flush is suited.
THREE_CARD_EXAMPLES: dict[ThreeCardCategory, str] = {
    ThreeCardCategory.TRAIL_OF_ACES: "AS AD AC",
    ThreeCardCategory.TRAIL: "KS KH KC",
    ThreeCardCategory.STRAIGHT_FLUSH: "KS QS JS",
    ThreeCardCategory.STRAIGHT: "KC QD JH",
    ThreeCardCategory.FLUSH: "9H 7H 5H",
    ThreeCardCategory.PAIR: "4D 4H 2S",
    ThreeCardCategory.HIGH_CARD: "QH 9C 7S",
}
SIX_CARD_EXAMPLES: dict[SixCardCategory, str] = {
    SixCardCategory.ROYAL_FLUSH: "AS KS QS JS 10S",
    SixCardCategory.STRAIGHT_FLUSH: "KS QS JS 10S 9S",
    SixCardCategory.FOUR_OF_A_KIND: "KS KH KC KD AD",
    SixCardCategory.FULL_HOUSE: "KS KH KC QH QC",
    SixCardCategory.FLUSH: "9H 8H 5H 3H 2H",
    SixCardCategory.STRAIGHT: "6S 5H 4C 3D 2S",
    SixCardCategory.THREE_OF_A_KIND: "KS KH KC 7H 5D",
}


class Html(str):
    """Text that is already HTML (built here from trusted parts): inserted as it is."""

    __slots__ = ()


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Paragraph(_Strict):
    p: str


class BulletList(_Strict):
    ul: list[str]


class PayTableBlock(_Strict):
    table: TableName


class Section(_Strict):
    heading: str | None = None
    level: Literal[2, 3] = 2
    blocks: list[Paragraph | BulletList | PayTableBlock]


class Columns(_Strict):
    pattern: str
    description: str
    example: str
    bet_type: str
    payout: str


class TableNotes(_Strict):
    """What a table's page says of its pay figures; `{table}` is the table's name or id."""

    shown: str = Field(description="the figures are the table's own")
    published: str = Field(description="the table's cannot be read: the published ones shown")


class RulesText(_Strict):
    """One language's rules (`rules/{lang}.json`): the prose, in the order of the English."""

    language: str
    title: str
    odds: str = Field(description='how the language writes "x to 1", e.g. "{odds}:1"')
    table_notes: TableNotes
    columns: Columns
    captions: dict[TableName, str]
    hand_descriptions: dict[ThreeCardCategory, str]
    six_card_hand_descriptions: dict[SixCardCategory, str]
    sections: list[Section]


@cache
def rules_text(lang: str) -> RulesText:
    path = RULES_DIR / f"{lang}.json"
    return RulesText.model_validate_json(path.read_text(encoding="utf-8"))


@cache
def game_texts(lang: str) -> dict[str, str]:
    """The game's texts of a language (`static/i18n/{lang}/game.json`), English filling gaps."""
    texts: dict[str, str] = json.loads((I18N_DIR / lang / "game.json").read_text("utf-8"))
    if lang == DEFAULT_LANGUAGE:
        return texts
    return game_texts(DEFAULT_LANGUAGE) | texts


def preferred_language(accept_language: str | None) -> str:
    """The best of our languages for an `Accept-Language` header (RFC 9110), else English."""
    best, best_weight = DEFAULT_LANGUAGE, 0.0
    for position, item in enumerate((accept_language or "").split(",")):
        tag, _, params = item.strip().partition(";")
        primary = tag.strip().lower().partition("-")[0]
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        # an earlier tag wins a tie of weights: the tiny offset keeps the header's order
        weight -= position * 1e-6
        if primary in LANGUAGES and weight > 0 and weight > best_weight:
            best, best_weight = primary, weight
    return best


def odds_figure(odds: Fraction) -> str:
    """Odds as the rules write them, in the American format: 19/20 "0.95", 1000 "1,000"."""
    text = format_odds(odds)
    if "/" in text:
        return text
    whole, dot, part = text.partition(".")
    return f"{int(whole):,}{dot}{part}"


@dataclass(frozen=True)
class TableShown:
    """The table whose pay table a page is for: `name` when its own is shown, None when it
    could not be read (unknown, or the table service unreachable) and the published one is."""

    table_id: str
    name: str | None


def render_rules_page(
    lang: str, pay_table: PayTable = PUBLISHED_PAY_TABLE, table: TableShown | None = None
) -> str:
    """The whole HTML page of the rules in `lang` (one of LANGUAGES), with `pay_table`'s
    figures; for `table`, a note saying whose they are, and links that keep the table."""
    text = rules_text(lang)
    names = game_texts(lang)
    direction = "rtl" if lang in RIGHT_TO_LEFT else "ltr"
    body = [f"<h1>{escape(text.title)}</h1>"]
    if table is not None:
        body.append(_table_note(text.table_notes, table))
    for number, section in enumerate(text.sections, start=1):
        body.append(_section(number, section, text, names, pay_table))
    alternates = "\n".join(
        f'<link rel="alternate" hreflang="{other}" href="{_rules_url(other, table)}">'
        for other in LANGUAGES
    )
    content = "\n".join(body)
    return f"""<!doctype html>
<html lang="{lang}" dir="{direction}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(text.title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/css/base.css">
<link rel="stylesheet" href="/static/css/rules.css">
{alternates}
</head>
<body class="rules-page">
<header class="rules-header">
<nav aria-label="{escape(names["nav.languages"])}">
<ul class="languages">
{_language_links(lang, table)}
</ul>
</nav>
</header>
<main id="rules" class="rules">
{content}
</main>
</body>
</html>
"""


def _rules_url(lang: str, table: TableShown | None) -> str:
    if table is None:
        return f"/rules/{lang}"
    return escape(f"/rules/{lang}?table={quote(table.table_id, safe='')}")


def _language_links(current: str, table: TableShown | None) -> str:
    links = []
    for lang in LANGUAGES:
        name = escape(game_texts(lang)["language.name"])
        direction = "rtl" if lang in RIGHT_TO_LEFT else "ltr"
        here = ' aria-current="page"' if lang == current else ""
        links.append(
            f'<li><a href="{_rules_url(lang, table)}" hreflang="{lang}" lang="{lang}"'
            f' dir="{direction}"{here}>{name}</a></li>'
        )
    return "\n".join(links)


def _table_note(notes: TableNotes, table: TableShown) -> str:
    """Whose pay figures the page shows; the table's name isolated (a Latin name in Farsi)."""
    found = table.name is not None
    sentence = notes.shown if found else notes.published
    before, _, after = sentence.partition("{table}")
    named = f'<bdi class="table-name">{escape(table.name or table.table_id)}</bdi>'
    return (
        f'<p id="table-note" class="table-note" data-table="{escape(table.table_id)}"'
        f' data-pay-table="{"table" if found else "published"}">'
        f"{escape(before)}{named}{escape(after)}</p>"
    )


def _section(
    number: int, section: Section, text: RulesText, names: dict[str, str], pay_table: PayTable
) -> str:
    parts = []
    labelled = ""
    if section.heading is not None:
        heading_id = f"section-{number}"
        labelled = f' aria-labelledby="{heading_id}"'
        level = section.level
        parts.append(f'<h{level} id="{heading_id}">{escape(section.heading)}</h{level}>')
    for block in section.blocks:
        if isinstance(block, Paragraph):
            parts.append(f"<p>{escape(block.p)}</p>")
        elif isinstance(block, BulletList):
            items = "".join(f"<li>{escape(item)}</li>" for item in block.ul)
            parts.append(f"<ul>{items}</ul>")
        else:
            parts.append(_pay_table(block.table, text, names, pay_table))
    return f"<section{labelled}>\n" + "\n".join(parts) + "\n</section>"


def _pay_table(name: TableName, text: RulesText, names: dict[str, str], table: PayTable) -> str:
    columns = text.columns
    if name == "three_card_hands":
        rows = [
            (names[f"hand.{hand}"], [text.hand_descriptions[hand], _cards(example)])
            for hand, example in THREE_CARD_EXAMPLES.items()
        ]
        heads = [columns.pattern, columns.description, columns.example]
        return _table(name, text.captions[name], heads, rows)
    if name == "six_card_hands":
        rows = [
            (names[f"six_card_hand.{hand}"], [text.six_card_hand_descriptions[hand], _cards(cards)])
            for hand, cards in SIX_CARD_EXAMPLES.items()
        ]
        heads = [columns.pattern, columns.description, columns.example]
        return _table(name, text.captions[name], heads, rows)
    if name == "main_bets":
        main = [
            (BetType.PLAYER_A, table.player_a),
            (BetType.PLAYER_B, table.player_b),
            (BetType.TIE, table.tie),
        ]
        rows = [(names[f"bet.{bet}"], [_odds(text, odds, bet)]) for bet, odds in main]
        return _table(name, text.captions[name], [columns.bet_type, columns.payout], rows)
    if name == "pair_plus":
        # one column when both Pair + bets pay alike (the published table), else one each
        sides = [(BetType.PAIR_PLUS_A, table.pair_plus_a), (BetType.PAIR_PLUS_B, table.pair_plus_b)]
        if table.pair_plus_a == table.pair_plus_b:
            sides = sides[:1]
            heads = [columns.pattern, columns.payout]
        else:
            heads = [columns.pattern, *(f"{columns.payout}: {names[f'bet.{b}']}" for b, _ in sides)]
        rows = [
            (
                names[f"hand.{line.name}"],
                [
                    _odds(text, getattr(odds, line.name), f"{bet}.{line.name}")
                    for bet, odds in sides
                ],
            )
            for line in fields(table.pair_plus_a)
        ]
        return _table(name, text.captions[name], heads, rows)
    bonus = table.six_card_bonus
    rows = [
        (
            names[f"six_card_hand.{line.name}"],
            [_odds(text, getattr(bonus, line.name), f"{BetType.SIX_CARD_BONUS}.{line.name}")],
        )
        for line in fields(bonus)
    ]
    return _table(name, text.captions[name], [columns.pattern, columns.payout], rows)


def _table(name: str, caption: str, heads: list[str], rows: list[tuple[str, list[str]]]) -> str:
    """A table whose first column names each row; cells are escaped unless already `Html`."""
    head = "".join(f'<th scope="col">{escape(cell)}</th>' for cell in heads)
    lines = []
    for row_name, cells in rows:
        tds = "".join(
            f"<td>{cell if isinstance(cell, Html) else escape(cell)}</td>" for cell in cells
        )
        lines.append(f'<tr><th scope="row">{escape(row_name)}</th>{tds}</tr>')
    return (
        f'<table class="pay-table" id="{name}">\n<caption>{escape(caption)}</caption>\n'
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(lines) + "\n</tbody>\n</table>"
    )


def _odds(text: RulesText, odds: Fraction, line: str) -> Html:
    shown = escape(text.odds.format(odds=odds_figure(odds)))
    # no `dir`: "0.95 به 1" reads right to left in Farsi, like the sentence around it
    return Html(f'<span class="payout" data-line="{escape(line)}">{shown}</span>')


def _cards(codes: str) -> Html:
    spans = []
    for card in parse_cards(codes.split()):
        colour = "red" if card.suit.value in "HD" else "black"
        spans.append(
            f'<span class="playing-card playing-card--{colour}">{escape(card.symbol)}</span>'
        )
    return Html(f'<span class="cards" dir="ltr">{" ".join(spans)}</span>')


router = APIRouter(tags=["rules"])


TableQuery = Annotated[str | None, Query(max_length=100, description="a table's id")]


@router.get("/rules", include_in_schema=False)
async def rules_index(
    accept_language: Annotated[str | None, Header()] = None, table: TableQuery = None
) -> RedirectResponse:
    """To the rules in the reader's language (`Accept-Language`), English by default."""
    lang = preferred_language(accept_language)
    location = f"/rules/{lang}" if table is None else f"/rules/{lang}?table={quote(table, safe='')}"
    return RedirectResponse(location, status_code=307, headers={"Vary": "Accept-Language"})


@router.get("/rules/{lang}", response_class=HTMLResponse, include_in_schema=False)
async def rules_page(lang: str, request: Request, table: TableQuery = None) -> HTMLResponse:
    """The rules in one of en, th, fa, ja, ru; another language is a 404 problem. With
    `?table=<id>`, the pay figures of that table's pay table (the published ones, said so,
    when the table cannot be read)."""
    if lang not in LANGUAGES:
        raise ProblemError(
            404,
            "unknown_language",
            f"the rules are published in {', '.join(LANGUAGES)}, not {lang!r}",
            languages=list(LANGUAGES),
        )
    if table is None:
        return HTMLResponse(_published_page(lang), headers={"Cache-Control": "no-cache"})
    pay_table, shown = await table_pay_table(request, table)
    # a table's pay table changes with a supervisors' approval: never kept by a cache
    return HTMLResponse(_table_page(lang, pay_table, shown), headers={"Cache-Control": "no-store"})


async def table_pay_table(request: Request, table_id: str) -> tuple[PayTable, TableShown]:
    """The pay table the table service holds for `table_id` (its configuration's: the one
    its rounds pay by, as approved), or the published one when it cannot be read."""
    unread = (PUBLISHED_PAY_TABLE, TableShown(table_id, None))
    if not TABLE_ID_PATTERN.match(table_id):
        return unread
    parts = upstreams(request)
    try:
        answer = await parts.request("table", "GET", f"/tables/{table_id}", headers=parts.viewer)
    except UpstreamUnavailableError:
        log.warning("the rules of table %s: the table service cannot be reached", table_id)
        return unread
    if answer.status_code in (401, 403):
        log.error("the table service refused the web front's key (TP_WEB_API_KEY): %s", answer.text)
        return unread
    if answer.status_code != 200:
        return unread  # 404: never opened
    try:
        config = answer.json().get("config")
    except (ValueError, AttributeError):
        config = None
    if not isinstance(config, dict):
        log.error("the table service's answer for table %s has no configuration", table_id)
        return unread
    try:
        pay_table = pay_table_from_mapping(config.get("paytable"))
    except InvalidPayTableError as error:
        log.error("the pay table of table %s is unreadable: %s", table_id, error)
        return unread
    return pay_table, TableShown(table_id, str(config.get("name") or table_id))


@cache
def _published_page(lang: str) -> str:
    return render_rules_page(lang)  # the texts and the published table change with a release


@lru_cache(maxsize=256)
def _table_page(lang: str, pay_table: PayTable, table: TableShown) -> str:
    return render_rules_page(lang, pay_table, table)
