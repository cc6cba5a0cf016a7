"""A round across the four running services moves their metrics: each service's `/metrics`
counts its HTTP requests by route template, its consumers' records, its relay's events, and
the round's own timings (betting window closed, scan to verdict, scan to RoundClosed,
RoundClosed to paid); the gauges read when scraped are there."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

import httpx
from prometheus_client.parser import text_string_to_metric_families

from teenpatti_tools.devrun import ServiceProcesses

from .driver import Studio
from .test_rounds import betting_round

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(url: str) -> Samples:
    async with httpx.AsyncClient(timeout=10) as client:
        answer = await client.get(f"{url}/metrics")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


async def scrape_all(system: ServiceProcesses) -> dict[str, Samples]:
    return {service.kind: await scrape(service.url) for service in system.services}


Where = Callable[[dict[str, str]], bool]


def total(samples: Samples, name: str, where: Where | None = None) -> float:
    """The sum of the samples named `name` (whose labels `where` accepts)."""
    return sum(
        value
        for (sample, labels), value in samples.items()
        if sample == name and (where is None or where(dict(labels)))
    )


def of_group(group: str) -> Where:
    # groups carry the system's run name after them: `table-scanner.e2e1a2b3c4d`
    return lambda labels: labels.get("group", "").startswith(f"{group}.")


def handled(group: str) -> Where:
    return lambda labels: of_group(group)(labels) and labels.get("outcome") == "handled"


async def test_a_round_moves_every_service_s_metrics(
    system: ServiceProcesses, studio: Studio
) -> None:
    before = await scrape_all(system)

    table_id, player = f"M{uuid.uuid4().hex[:6].upper()}", f"p-{uuid.uuid4().hex[:8]}"
    await studio.open_table(table_id, betting_seconds=2.0)
    await studio.deposit("operator-1", player, 10_000)
    round_id = str((await betting_round(studio, table_id))["round_id"])
    placed = await studio.bet("operator-1", player, round_id, {"player_a": 1000, "tie": 100})
    assert placed.status_code == 201, placed.text
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    await studio.deal(table_id, ["AS", "KS", "AC", "KH", "AD", "2D"])
    await studio.wait_for(table_id, "RoundClosed", round_id=round_id)
    await studio.paid_bets("operator-1", player, round_id, count=2)
    await studio.close_table(table_id)
    await asyncio.sleep(1.5)  # the relays' backlog is measured at most once a second

    after = await scrape_all(system)

    def grew(service: str, name: str, where: Where | None = None) -> float:
        return total(after[service], name, where) - total(before[service], name, where)

    # HTTP requests, by route template (never the table's id)
    table_routes = {
        dict(labels).get("route")
        for (name, labels) in after["table"]
        if name == "teenpatti_http_requests_total"
    }
    assert "/tables/{table_id}/events" in table_routes
    assert not any(route and table_id in route for route in table_routes)
    assert grew("wallet", "teenpatti_http_requests_total", lambda x: x.get("route") == "/bets") >= 1
    assert grew("scanner-gateway", "teenpatti_http_request_duration_seconds_count") >= 6

    # every consumer group handled records of the round
    for service, group in (
        ("table", "table-scanner"),
        ("table", "table-table"),
        ("scanner-gateway", "scanner-gateway-table"),
        ("wallet", "wallet-table"),
        ("wallet", "wallet-settlement"),
        ("settlement", "settlement-table"),
        ("settlement", "settlement-wallet"),
    ):
        assert grew(service, "teenpatti_consumer_records_total", handled(group)) >= 1, group
        lag = [
            value
            for (name, labels), value in after[service].items()
            if name == "teenpatti_consumer_lag_records" and of_group(group)(dict(labels))
        ]
        assert lag and max(lag) < 100, (group, lag)

    # every relay published, leads, and has nothing left to publish
    for service in ("table", "scanner-gateway", "wallet", "settlement"):

        def mine(labels: dict[str, str], relay: str = service) -> bool:
            return labels.get("relay") == relay

        assert grew(service, "teenpatti_outbox_published_events_total", mine) >= 1, service
        assert total(after[service], "teenpatti_outbox_relay_leader", mine) == 1, service
        assert total(after[service], "teenpatti_outbox_backlog_events", mine) == 0, service

    # the round's own timings
    assert grew("table", "teenpatti_table_betting_windows_closed_total") >= 1
    assert grew("table", "teenpatti_table_betting_close_lateness_seconds_count") >= 1
    assert grew("table", "teenpatti_table_scan_to_round_closed_seconds_count") >= 1
    assert grew("scanner-gateway", "teenpatti_gateway_scan_to_verdict_seconds_count") >= 6
    assert grew("wallet", "teenpatti_wallet_round_closed_to_paid_seconds_count") >= 1
    assert total(after["wallet"], "teenpatti_wallet_round_closed_to_paid_seconds_sum") > 0

    # the gauges read when scraped
    for service, samples in after.items():
        checks = {
            dict(labels)["check"]: value
            for (name, labels), value in samples.items()
            if name == "teenpatti_ready_check"
        }
        assert checks and set(checks.values()) == {1.0}, (service, checks)
        assert total(samples, "teenpatti_parked_events") == 0, service
        assert total(samples, "teenpatti_db_pool_max_connections") >= 2, service
    rounds = {
        dict(labels)["state"]
        for (name, labels) in after["table"]
        if name == "teenpatti_table_rounds"
    }
    assert rounds == {"open", "betting", "dealing", "paused", "closed", "cancelled"}
    assert total(after["table"], "teenpatti_table_round_stall_seconds") >= 0
    assert total(after["settlement"], "teenpatti_settlement_held_rounds") == 0
