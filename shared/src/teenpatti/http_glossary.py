"""The words the HTTP APIs share: a field or parameter named here means the same in every
service's answers and requests, so it is described once, here, for every OpenAPI document
(`describe_by_name`). A model's own description of a field wins: a name that means different
things in different answers (`status`, `reason`, `token`...) is described where it is
declared, never here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_UTC = " (ISO 8601, UTC)"

GLOSSARY: Mapping[str, str] = {
    # ids
    "table_id": "The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.",
    "round_id": "The round's id: `<table id>-<number>`, the number from 1 zero-padded to six"
    " digits, e.g. `T01-000042`.",
    "bet_id": "The bet's id (a UUID), given by the wallet when it took the slip.",
    "slip_id": "The slip's id (a UUID): a slip is the bets of one `POST /bets`, taken or"
    " refused whole.",
    "player_id": "The player's id in its operator's own system (letters, digits and"
    " `. _ @ -`). A player is its operator's: the same id under two operators is two players.",
    "session_id": "The player session's id (a UUID), given when its operator opened it.",
    "device_id": "The scanner device's id, as a supervisor registered it (`POST /devices`).",
    "scan_id": "The read's id (a UUID), given by the scanner gateway when the read arrived.",
    "resolution_id": "The resolution's id (a UUID), given when a supervisor asked for it.",
    "change_id": "The id of a proposed change that waits for a second supervisor's approval"
    " or rejection.",
    # money
    "currency": "An ISO 4217 code of the platform's currency table (e.g. `INR`): every"
    " amount beside it is in integer minor units of it (paise for INR, cents for USD).",
    "stake": "The amount staked, in integer minor units of the currency.",
    "staked": "The total staked, in integer minor units of the currency.",
    "returned": "What was returned to the player, in integer minor units of the currency:"
    " the stake and the win for a won bet, the stake for a push or a refund, 0 for a lost"
    " bet; null while not settled.",
    "balance": "The player's balance in the currency, in integer minor units, right after"
    " what this answer reports.",
    "bet_type": "The bet: `player_a`, `player_b` or `tie` (who wins), `pair_plus_a` or"
    " `pair_plus_b` (that player's three cards make a pair or better), `six_card_bonus`"
    " (the best five of the six cards make three of a kind or better).",
    "outcome": "How the bet ended: `won`, `lost`, `push` (the stake back) or `refunded`"
    " (its round cancelled or voided); null until settled.",
    # the game
    "cards": "The cards dealt, in dealing order A1 B1 A2 B2 A3 B3 (A: player A's, B: player"
    " B's), each as rank and suit (`2`-`10`, `J`, `Q`, `K`, `A`; `S` `H` `D` `C`), e.g."
    " `10H`; fewer while dealing or when the round was cancelled.",
    "card": "A card as rank and suit (`2`-`10`, `J`, `Q`, `K`, `A`; `S` `H` `D` `C`), e.g. `10H`.",
    "position": "Where a card is dealt: `A1` `B1` `A2` `B2` `A3` `B3`, in dealing order"
    " (A: player A's three cards, B: player B's).",
    "winner": "Who won the round: `player_a`, `player_b` or `tie`; null until its result.",
    "player_a_hand": "Player A's three-card hand: `trail_of_aces`, `trail`,"
    " `straight_flush`, `straight`, `flush`, `pair` or `high_card`; null until its result.",
    "player_b_hand": "Player B's three-card hand, named as player A's; null until its result.",
    "six_card_bonus_hand": "The best five-card hand of all six cards, for the six-card bonus"
    " bet: `royal_flush` down to `three_of_a_kind`; null when they make none of those (or"
    " before the result).",
    "hand": "The three-card hand: `trail_of_aces`, `trail`, `straight_flush`, `straight`,"
    " `flush`, `pair` or `high_card`.",
    "number": "The round's number at its table, from 1.",
    "name": "The table's name, as players see it.",
    "betting_seconds": "How long betting stays open in each round, in seconds.",
    "result_pause_seconds": "How long a result stays shown before the next round opens, in"
    " seconds.",
    "limits": "The stake limits: `{currency: {bet_type: {min, max}}}`, in integer minor"
    " units of each currency; every bet type is priced in every currency the table takes.",
    "paytable": "The pay table, in the engine's mapping form (docs/rules-engine.md): per bet"
    ' type, its winnings per unit staked as a decimal string (e.g. `"player_a": "0.95"`),'
    " and per hand for `pair_plus_a`, `pair_plus_b` and `six_card_bonus`.",
    "language": "The player view's language: `en`, `th`, `fa`, `ja` or `ru`.",
    # times and people
    "placed_at": "When the wallet took the slip" + _UTC + ".",
    "settled_at": "When it was settled" + _UTC + "; null until then.",
    "paid_at": "When the wallet paid the bet" + _UTC + "; null until then.",
    "reversed_at": "When its settlement was reversed, its round voided after its result"
    + _UTC
    + "; null if it was not.",
    "voided_at": "When the round was voided after its result" + _UTC + "; null if it was not.",
    "void_reason": "Why the round was voided after its result, as the supervisors wrote it;"
    " null if it was not.",
    "cancel_reason": "Why the round was cancelled, as the supervisor wrote it; null if it was not.",
    "ended_at": "When the round ended: its result recorded, or its cancellation" + _UTC + ".",
    "opened_at": "When the round opened for bets" + _UTC + ".",
    "sealed_at": "When betting closed on the round" + _UTC + "; null while open.",
    "betting_closes_at": "When betting closes on the round" + _UTC + ".",
    "expires_at": "When it expires" + _UTC + ".",
    "proposed_by": "The supervisor who proposed it (its key's holder).",
    "proposed_at": "When it was proposed" + _UTC + ".",
    "requested_by": "The supervisor who asked for it (its key's holder).",
    "requested_at": "When it was asked for" + _UTC + ".",
    "decided_by": "The second supervisor who approved or rejected it; null while pending.",
    "decided_at": "When it was approved or rejected" + _UTC + "; null while pending.",
    "registered_at": "When the device's credential was approved" + _UTC + ".",
    "retired_at": "When the device stopped being its table's active one" + _UTC + "; null"
    " while active.",
    # pages and probes
    "limit": "At most this many items in the answer.",
    "cursor": "Where the page starts: the `next_cursor` of the page before, as received;"
    " left out for the first page.",
    "next_cursor": "The `cursor` of the next page; null on the last page.",
    "service": "The service that answers: `table`, `scanner-gateway`, `settlement`, `wallet`"
    " or `web`.",
    "checks": "Each dependency (Postgres, Kafka, Redis, the other services) and background"
    " task by name, with `ok` or what is wrong with it.",
}


def describe_by_name(document: dict[str, Any]) -> None:
    """Give every schema property and parameter of `document` that has no description of its
    own the glossary's, by its name."""
    for path_item in document.get("paths", {}).values():
        for operation in path_item.values():
            if isinstance(operation, dict):
                for parameter in operation.get("parameters", []):
                    _describe(parameter, parameter.get("name"))
    _describe_properties(document)


def _describe_properties(node: Any) -> None:
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict):
            for name, schema in properties.items():
                if isinstance(schema, dict):
                    _describe(schema, name)
        for key, value in node.items():
            if key not in ("example", "examples"):
                _describe_properties(value)
    elif isinstance(node, list):
        for item in node:
            _describe_properties(item)


def _describe(node: dict[str, Any], name: object) -> None:
    if not node.get("description") and isinstance(name, str) and name in GLOSSARY:
        node["description"] = GLOSSARY[name]
