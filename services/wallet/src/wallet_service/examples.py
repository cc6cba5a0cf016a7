"""Examples of the HTTP requests and answers that move money or open a session: each model's
`examples` in the OpenAPI document (its `json_schema_extra`), one round told throughout (a
slip of two bets on T01-000042, player A winning with a pair). tests/unit/
test_openapi_documents.py checks that each fits its schema."""

from __future__ import annotations

from pydantic import JsonValue

TRANSFER_CREATE: list[JsonValue] = [
    {"transfer_id": "dep-20261202-0001", "currency": "INR", "amount": 500000}
]

TRANSFER_PUBLIC: list[JsonValue] = [
    {"transfer_id": "dep-20261202-0001", "currency": "INR", "balance": 500000}
]

BALANCES_PUBLIC: list[JsonValue] = [{"INR": 488000, "USD": 2500}]

SLIP_CREATE: list[JsonValue] = [
    {
        "player_id": "p-1001",
        "round_id": "T01-000042",
        "currency": "INR",
        "bets": [{"bet_type": "player_a", "stake": 10000}, {"bet_type": "tie", "stake": 2000}],
    },
    {"round_id": "T01-000042", "bets": [{"bet_type": "player_b", "stake": 5000}]},
]

SLIP_PUBLIC: list[JsonValue] = [
    {
        "slip_id": "2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
        "round_id": "T01-000042",
        "table_id": "T01",
        "player_id": "p-1001",
        "currency": "INR",
        "placed_at": "2026-12-02T09:08:05.228831+00:00",
        "bets": [
            {
                "bet_id": "6b1f0e52-3c1d-4a8e-9f47-0c2d7e5a9b11",
                "bet_type": "player_a",
                "stake": 10000,
            },
            {"bet_id": "9e4c7a10-5d2b-4f6e-8a13-7b9d1c2e3f40", "bet_type": "tie", "stake": 2000},
        ],
        "balance": 488000,
    }
]

BET_PUBLIC: list[JsonValue] = [
    {
        "bet_id": "6b1f0e52-3c1d-4a8e-9f47-0c2d7e5a9b11",
        "slip_id": "2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
        "player_id": "p-1001",
        "round_id": "T01-000042",
        "table_id": "T01",
        "bet_type": "player_a",
        "stake": 10000,
        "currency": "INR",
        "placed_at": "2026-12-02T09:08:05.228831+00:00",
        "status": "paid",
        "outcome": "won",
        "returned": 19500,
        "paid_at": "2026-12-02T09:08:41.512004+00:00",
        "round": {
            "status": "closed",
            "cards": ["KS", "9C", "KH", "2S", "4D", "JD"],
            "winner": "player_a",
            "player_a_hand": "pair",
            "player_b_hand": "high_card",
            "six_card_bonus_hand": None,
        },
    }
]

SESSION_CREATE: list[JsonValue] = [
    {
        "token": "operator-token-p1001",
        "player_id": "p-1001",
        "currency": "INR",
        "table_id": "T01",
        "language": "en",
    }
]

SESSION_OPENED_PUBLIC: list[JsonValue] = [
    {
        "session_id": "3f0c9a2b-7d4e-4c1f-8a6b-5e2d1c0f9a8b",
        "expires_at": "2026-12-02T17:45:00+00:00",
        "launch_url": "https://play.example/play/T01?ticket=tpl_9d1e000000000000000000000000000000000000000000000000000000000000&lang=en",
        "launch_expires_at": "2026-12-02T09:46:00+00:00",
    }
]

SESSION_LAUNCH: list[JsonValue] = [
    {"ticket": "tpl_9d1e000000000000000000000000000000000000000000000000000000000000"}
]

SESSION_LAUNCHED_PUBLIC: list[JsonValue] = [
    {
        "session_id": "3f0c9a2b-7d4e-4c1f-8a6b-5e2d1c0f9a8b",
        "session_token": "tps_3f0c9a2b7d4e4c1f8a6b5e2d1c0f9a8b_"
        "8a418a418a418a418a418a418a418a418a418a418a418a418a418a418a418a41",
        "token_type": "Session",
        "expires_at": "2026-12-02T17:45:00+00:00",
        "player_id": "p-1001",
        "currency": "INR",
        "language": "en",
        "table_id": "T01",
    }
]

PLAYER_BALANCE_PUBLIC: list[JsonValue] = [{"currency": "INR", "balance": 488000}]

TRANSACTION_PAGE_PUBLIC: list[JsonValue] = [
    {
        "items": [
            {
                "id": "slip:2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
                "kind": "slip",
                "wallet": "transfer",
                "player_id": "p-1001",
                "round_id": "T01-000042",
                "table_id": "T01",
                "slip_id": "2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
                "transaction_uuid": "2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
                "reference_transaction_uuid": None,
                "amount": 12000,
                "currency": "INR",
                "status": "accepted",
                "attempts": None,
                "round_closed": None,
                "at": "2026-12-02T09:08:05.228831+00:00",
                "finished_at": "2026-12-02T09:08:05.228831+00:00",
                "operator_answer": None,
                "error": None,
            },
            {
                "id": "payment:2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
                "kind": "win",
                "wallet": "transfer",
                "player_id": "p-1001",
                "round_id": "T01-000042",
                "table_id": "T01",
                "slip_id": "2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
                "transaction_uuid": "2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
                "reference_transaction_uuid": "2722a0c8-c989-4ac3-9011-b90dfdb0c1e7",
                "amount": 19500,
                "currency": "INR",
                "status": "ok",
                "attempts": None,
                "round_closed": None,
                "at": "2026-12-02T09:08:41.512004+00:00",
                "finished_at": "2026-12-02T09:08:41.512004+00:00",
                "operator_answer": None,
                "error": None,
            },
        ],
        "next_cursor": None,
    }
]
