"""The audit's device checks (docs/decisions/0085): every card of a round read with a
credential a second supervisor approved, all with one credential, none given to the table
between the round's betting closed and its result."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from uuid import UUID, uuid4

from teenpatti.audit.chain import Row
from teenpatti.audit.checks import History, Scope, check_history
from teenpatti.engine import PUBLISHED_PAY_TABLE, pay_table_to_mapping
from teenpatti.events import Event
from teenpatti.events.catalog import (
    DEALING_ORDER,
    BettingClosed,
    CardDealt,
    CardScanned,
    DeviceCredentialRotated,
    DeviceRegistered,
    RoundClosed,
    RoundOpened,
    StakeLimit,
)

from .test_checks import T0

ROUND = "T1-000001"
CARDS = ["AS", "2D", "KS", "3C", "QS", "4H"]
LIMITS: Any = {
    "EUR": {
        bet: StakeLimit(min=1, max=100)
        for bet in ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
    }
}
# (seconds after T0, store, stream, event)
Timeline = list[tuple[float, str, str, Event]]


def registered(at: float, device: str = "D1", approved_by: str | None = "bob") -> Any:
    event = DeviceRegistered(
        device_id=device, table_id="T1", actor="alice", change_id=uuid4(), approved_by=approved_by
    )
    return (at, "scanner", f"device-{device}", event)


def rotated(at: float, device: str = "D1", approved_by: str | None = "bob") -> Any:
    event = DeviceCredentialRotated(
        device_id=device, table_id="T1", actor="alice", change_id=uuid4(), approved_by=approved_by
    )
    return (at, "scanner", f"device-{device}", event)


def round_dealt(devices: list[str], *, closed_at: float = 10, first_card: float = 11) -> Timeline:
    """Round T1-000001: opened at 0, betting closed at `closed_at`, a card a second from
    `first_card` on, each read by its device in `devices`, closed a second after the last."""
    timeline: Timeline = [
        (
            0,
            "table",
            "table-T1",
            RoundOpened(
                round_id=ROUND,
                table_id="T1",
                number=1,
                opened_at=T0,
                betting_closes_at=T0 + timedelta(seconds=closed_at),
                limits=LIMITS,
                paytable=pay_table_to_mapping(PUBLISHED_PAY_TABLE),
            ),
        ),
        (
            closed_at,
            "table",
            "table-T1",
            BettingClosed(round_id=ROUND, table_id="T1", closed_at=T0),
        ),
    ]
    for n, (position, card, device) in enumerate(zip(DEALING_ORDER, CARDS, devices, strict=True)):
        at, scan_id = first_card + n, uuid4()
        timeline.append(
            (at - 0.5, "scanner", f"scans-{device}", scanned(scan_id, device, at - 0.5))
        )
        dealt = CardDealt(
            round_id=ROUND, table_id="T1", position=position, card=card, scan_id=scan_id
        )
        timeline.append((at, "table", "table-T1", dealt))
    closed = RoundClosed.of(ROUND, "T1", CARDS)
    timeline.append((first_card + len(devices), "table", "table-T1", closed))
    return timeline


def scanned(scan_id: UUID, device: str, at: float) -> CardScanned:
    return CardScanned(
        scan_id=scan_id,
        device_id=device,
        table_id="T1",
        round_id=ROUND,
        sequence=int(at * 1000),
        card="AS",
        raw="AS",
        scanned_at=T0 + timedelta(seconds=at),
    )


def findings(timeline: Timeline) -> list[tuple[str, str]]:
    """The device findings, the stores read as the audit reads them: the table's, then the
    gateway's, each stream in version order."""
    history = History()
    versions: dict[str, int] = {}
    ordered = sorted(timeline, key=lambda item: (item[1] != "table", item[2], item[0]))
    for at, store, stream_id, event in ordered:
        versions[stream_id] = versions.get(stream_id, 0) + 1
        history.add(
            Row(
                store=store,
                stream_id=stream_id,
                stream_version=versions[stream_id],
                event_id=uuid4(),
                event_type=event.event_type,
                schema_version=event.schema_version,
                table_id="T1",
                occurred_at=T0 + timedelta(seconds=at),
                correlation_id=uuid4(),
                causation_id=None,
                producer=store,
                payload_text=event.model_dump_json(),
                hash=None,
                transaction_id=1,
                position=1,
            )
        )
    outcome = check_history(history, Scope(), T0 + timedelta(days=1))
    return [(f.code, f.detail) for f in outcome.findings if f.check == "device"]


def test_a_round_dealt_by_an_approved_device_has_no_finding() -> None:
    assert findings([registered(-5), *round_dealt(["D1"] * 6)]) == []
    assert findings([registered(-5), rotated(5), *round_dealt(["D1"] * 6)]) == []


def test_a_card_read_with_a_credential_one_supervisor_gave_is_a_finding() -> None:
    for unapproved in (registered(-5, approved_by=None), registered(-5, approved_by="alice")):
        found = findings([unapproved, *round_dealt(["D1"] * 6)])
        assert [code for code, _ in found] == ["device_not_approved"]
    (alone,) = findings([registered(-5, approved_by=None), *round_dealt(["D1"] * 6)])
    assert "registered by alice alone" in alone[1]
    # approved at first, then rotated by one supervisor before the round
    found = findings([registered(-5), rotated(5, approved_by=None), *round_dealt(["D1"] * 6)])
    assert [code for code, _ in found] == ["device_not_approved"]


def test_a_round_dealt_by_two_devices_or_two_credentials_is_a_finding() -> None:
    two_devices = [registered(-5), registered(13.2, "D2"), *round_dealt(["D1"] * 3 + ["D2"] * 3)]
    assert [code for code, _ in findings(two_devices)] == ["device_changed_mid_round"]
    two_credentials = [registered(-5), rotated(13.2), *round_dealt(["D1"] * 6)]
    (found,) = findings(two_credentials)
    assert found[0] == "device_changed_mid_round" and "2 credentials" in found[1]


def test_a_device_given_a_credential_after_betting_closed_is_a_finding() -> None:
    # the whole round read by a device registered between betting closed and its first card
    found = findings([registered(10.5), *round_dealt(["D1"] * 6)])
    assert [code for code, _ in found] == ["device_changed_mid_round"]
    # a change after the result is the next round's
    assert findings([registered(-5), rotated(30), *round_dealt(["D1"] * 6)]) == []


def test_a_card_whose_scan_the_gateways_store_does_not_hold_is_not_judged_here() -> None:
    timeline = [item for item in round_dealt(["D1"] * 6) if item[1] == "table"]
    assert findings(timeline) == []
