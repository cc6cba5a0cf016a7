"""Examples of the HTTP requests and answers that move money or open a session: each model's
`examples` in the OpenAPI document (its `json_schema_extra`), one round told throughout (a
slip of two bets on T01-000042, player A winning with a pair). tests/unit/
test_openapi_documents.py checks that each fits its schema."""

from __future__ import annotations

from pydantic import JsonValue

ROUND_SETTLEMENT_PUBLIC: list[JsonValue] = [
    {
        "round_id": "T01-000042",
        "table_id": "T01",
        "status": "settled",
        "cancelled": False,
        "cancel_reason": None,
        "result": {
            "cards": ["KS", "9C", "KH", "2S", "4D", "JD"],
            "winner": "player_a",
            "player_a_hand": "pair",
            "player_b_hand": "high_card",
            "six_card_bonus_hand": None,
        },
        "settled_at": "2026-12-02T09:08:41.512004+00:00",
        "voided": False,
        "void_reason": None,
        "reversed_at": None,
        "totals": {"INR": {"stake": 12000, "returned": 19500, "house_result": -7500}},
        "reversal_totals": {},
        "bets": [
            {
                "bet_id": "6b1f0e52-3c1d-4a8e-9f47-0c2d7e5a9b11",
                "round_id": "T01-000042",
                "table_id": "T01",
                "slip_id": "2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
                "player_id": "p-1001",
                "bet_type": "player_a",
                "stake": 10000,
                "currency": "INR",
                "placed_at": "2026-12-02T09:08:05.228831+00:00",
                "status": "settled",
                "outcome": "won",
                "returned": 19500,
                "fraction_kept": "0",
                "odds": "19/20",
                "settled_at": "2026-12-02T09:08:41.512004+00:00",
                "reversed": False,
                "reversed_at": None,
            },
            {
                "bet_id": "9e4c7a10-5d2b-4f6e-8a13-7b9d1c2e3f40",
                "round_id": "T01-000042",
                "table_id": "T01",
                "slip_id": "2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
                "player_id": "p-1001",
                "bet_type": "tie",
                "stake": 2000,
                "currency": "INR",
                "placed_at": "2026-12-02T09:08:05.228831+00:00",
                "status": "settled",
                "outcome": "lost",
                "returned": 0,
                "fraction_kept": "0",
                "odds": None,
                "settled_at": "2026-12-02T09:08:41.512004+00:00",
                "reversed": False,
                "reversed_at": None,
            },
        ],
    }
]

BET_WITH_ROUND_PUBLIC: list[JsonValue] = [
    {
        "bet_id": "6b1f0e52-3c1d-4a8e-9f47-0c2d7e5a9b11",
        "round_id": "T01-000042",
        "table_id": "T01",
        "slip_id": "2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
        "player_id": "p-1001",
        "bet_type": "player_a",
        "stake": 10000,
        "currency": "INR",
        "placed_at": "2026-12-02T09:08:05.228831+00:00",
        "status": "settled",
        "outcome": "won",
        "returned": 19500,
        "fraction_kept": "0",
        "odds": "19/20",
        "settled_at": "2026-12-02T09:08:41.512004+00:00",
        "reversed": False,
        "reversed_at": None,
        "round": {
            "round_id": "T01-000042",
            "table_id": "T01",
            "status": "settled",
            "cancelled": False,
            "cancel_reason": None,
            "result": {
                "cards": ["KS", "9C", "KH", "2S", "4D", "JD"],
                "winner": "player_a",
                "player_a_hand": "pair",
                "player_b_hand": "high_card",
                "six_card_bonus_hand": None,
            },
            "settled_at": "2026-12-02T09:08:41.512004+00:00",
            "voided": False,
            "void_reason": None,
            "reversed_at": None,
        },
    }
]

RESOLUTION_CREATE: list[JsonValue] = [
    {
        "action": "release",
        "reason": "B3 checked on the video: the card read stands, settle the round",
    },
    {"action": "void", "reason": "the deck was found incomplete after the round"},
]

RESOLUTION_PUBLIC: list[JsonValue] = [
    {
        "resolution_id": "0d6f3b9e-2a4c-4e8f-b1d7-5c9a3e2f6b80",
        "round_id": "T01-000042",
        "action": "release",
        "reason": "B3 checked on the video: the card read stands, settle the round",
        "problems": ["stake_mismatch"],
        "requested_by": "alice",
        "requested_at": "2026-12-02T09:20:00+00:00",
        "status": "pending",
        "confirmed_by": None,
        "confirmed_at": None,
        "outcome": None,
    },
    {
        "resolution_id": "0d6f3b9e-2a4c-4e8f-b1d7-5c9a3e2f6b80",
        "round_id": "T01-000042",
        "action": "release",
        "reason": "B3 checked on the video: the card read stands, settle the round",
        "problems": ["stake_mismatch"],
        "requested_by": "alice",
        "requested_at": "2026-12-02T09:20:00+00:00",
        "status": "confirmed",
        "confirmed_by": "bob",
        "confirmed_at": "2026-12-02T09:23:10+00:00",
        "outcome": "settled",
    },
]
