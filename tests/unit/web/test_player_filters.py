"""What the player view lets through of the table's answers: a round voided after its result
reaches the player with the result it voided, never who voided it or why."""

from __future__ import annotations

from typing import Any

from web_service.play import player_message, player_results, player_table


def test_a_round_voided_after_its_result_reaches_the_player_without_names_or_reasons() -> None:
    voided: dict[str, Any] = {
        "position": 42,
        "event_type": "RoundVoided",
        "occurred_at": "2026-03-01T20:05:00+00:00",
        "payload": {
            "round_id": "T1-000007",
            "table_id": "T1",
            "requested_by": "supervisor-1",
            "actor": "supervisor-2",
            "reason": "A2 misread (confirmed: seen on camera)",
            "closed_at": "2026-03-01T20:00:00+00:00",
            "cards": ["AS", "KD", "AH", "KC", "2S", "3D"],
            "player_a_hand": "pair",
            "player_b_hand": "pair",
            "winner": "player_a",
            "six_card_bonus_hand": None,
        },
    }
    seen = player_message(voided)
    assert seen is not None
    assert seen["payload"] == {
        "round_id": "T1-000007",
        "table_id": "T1",
        "closed_at": "2026-03-01T20:00:00+00:00",
        "cards": ["AS", "KD", "AH", "KC", "2S", "3D"],
        "player_a_hand": "pair",
        "player_b_hand": "pair",
        "winner": "player_a",
        "six_card_bonus_hand": None,
    }
    for studio_only in ("ResultVoidRequested", "ResultVoidRejected"):
        assert player_message({**voided, "event_type": studio_only}) is None


def test_the_player_sees_neither_waiting_voids_nor_why_a_round_was_voided() -> None:
    table = {"table_id": "T1", "version": 9, "result_voids": [{"round_id": "T1-000007"}]}
    assert player_table(table) == {"table_id": "T1", "version": 9}
    page = {
        "table_id": "T1",
        "results": [
            {"round_id": "T1-000007", "status": "voided", "voided_at": "x", "void_reason": "r"},
            {"round_id": "T1-000006", "status": "closed", "voided_at": None, "void_reason": None},
        ],
        "next": None,
    }
    assert player_results(page) == {
        "table_id": "T1",
        "results": [
            {"round_id": "T1-000007", "status": "voided", "voided_at": "x"},
            {"round_id": "T1-000006", "status": "closed", "voided_at": None},
        ],
        "next": None,
    }
