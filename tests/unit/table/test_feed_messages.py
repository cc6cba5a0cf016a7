"""What the table relays from its feed channel to a viewer: only a message as it publishes
one (an event of the catalog at a position); anything else on the channel is passed over and
the viewer is sent what the store holds."""

from __future__ import annotations

import json
from uuid import uuid4

import pytest

from table_service.entrypoints import trusted_feed_message

DEALT = {
    "position": 7,
    "event_type": "CardDealt",
    "payload": {
        "round_id": "T1-000001",
        "table_id": "T1",
        "position": "A1",
        "card": "AS",
        "scan_id": str(uuid4()),
    },
    "occurred_at": "2026-12-06T18:00:00+00:00",
}


def test_a_message_the_table_publishes_is_relayed_as_it_is() -> None:
    assert trusted_feed_message(json.dumps(DEALT)) == DEALT


@pytest.mark.parametrize(
    "forged",
    [
        "not json",
        json.dumps([DEALT]),
        json.dumps({**DEALT, "note": "click here"}),  # a field of its own
        json.dumps({**DEALT, "event_type": "JackpotWon"}),  # not an event of the game
        json.dumps({**DEALT, "payload": {**DEALT["payload"], "card": "ZZ"}}),  # not a card
        json.dumps({**DEALT, "position": "7"}),
        json.dumps({**DEALT, "position": True}),
        json.dumps({**DEALT, "position": 0}),
        json.dumps({k: v for k, v in DEALT.items() if k != "occurred_at"}),
    ],
)
def test_anything_else_on_the_channel_is_passed_over(forged: str) -> None:
    assert trusted_feed_message(forged) is None
