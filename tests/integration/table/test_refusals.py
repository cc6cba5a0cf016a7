"""The table's refusals of a supervisor's action that does not fit the moment, on the real
stack: each with its code, nothing recorded. A web front over a table service that has no
open table says so (the demo's `no_open_table`)."""

from __future__ import annotations

import httpx

from table_service.app import create_app
from table_service.config import TableSettings
from tests.integration.services import running
from web_service.app import create_app as create_web_app
from web_service.config import WebSettings

from .helpers import SUPERVISOR, count, events_of, new_table_id, open_table, serving, wait_for


def refused(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.json()["code"] == code, answer.text


async def test_an_action_that_does_not_fit_the_round_is_refused_and_records_nothing(
    table_settings: TableSettings,
) -> None:
    table_id = new_table_id()
    async with running(create_app(table_settings)) as client:
        await open_table(client, table_id, betting_seconds=60)
        await wait_for(client, table_id, count("RoundOpened"))
        before = len(await events_of(client, table_id))

        def action(name: str) -> str:
            return f"/tables/{table_id}/{name}"

        reason = {"reason": "test"}
        refused(await client.post(action("resume"), headers=SUPERVISOR), 409, "nothing_to_resume")
        refused(
            await client.post(action("replace-deck"), json=reason, headers=SUPERVISOR),
            409,
            "nothing_exposed",
        )
        refused(
            await client.post(action("rescan"), json=reason, headers=SUPERVISOR),
            409,
            "nothing_marked_wrong",
        )
        assert (await client.post(action("pause"), json=reason, headers=SUPERVISOR)).is_success
        refused(
            await client.post(action("pause"), json=reason, headers=SUPERVISOR),
            409,
            "round_already_paused",
        )
        refused(
            await client.delete(f"/tables/{table_id}", headers=SUPERVISOR),
            405,
            "method_not_allowed",
        )
        assert len(await events_of(client, table_id)) == before + 1  # the one pause

        # a table with no round in play: nothing to pause, cancel, mark or take back
        await client.post(f"/tables/{table_id}/cancel", json=reason, headers=SUPERVISOR)
        await client.post(f"/tables/{table_id}/close", json=reason, headers=SUPERVISOR)
        await wait_for(client, table_id, count("TableClosed"))
        await wait_for(client, table_id, count("RoundCancelled"))
        for name, code in (
            ("pause", "nothing_to_pause"),
            ("cancel", "nothing_to_cancel"),
            ("replace-deck", "nothing_to_replace_deck"),
            ("rescan", "nothing_to_rescan"),
            ("cards/A1/wrong", "nothing_to_mark_wrong"),
        ):
            refused(await client.post(action(name), json=reason, headers=SUPERVISOR), 409, code)


async def test_the_demo_over_a_table_service_with_no_open_table_says_so(
    table_settings: TableSettings,
) -> None:
    async with serving(create_app(table_settings)) as address:
        table_url = f"http://{address}"
        web = create_web_app(
            WebSettings(
                table_url=table_url,
                scanner_url=table_url,
                wallet_url=table_url,
                settlement_url=table_url,
            )
        )
        async with (
            web.router.lifespan_context(web),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=web), base_url="http://web") as c,
        ):
            refused(await c.get("/demo/play"), 404, "no_open_table")
