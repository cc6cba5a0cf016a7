"""Log lines (`teenpatti.observability.logs`): the JSON and text formats, the fields the
context gives, the redaction of credentials, uvicorn's lines, and the setup."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from teenpatti.cli import main
from teenpatti.kernel.subscriptions import dispatcher
from teenpatti.observability import logs
from teenpatti.observability.logs import (
    LogHandler,
    RequestLogContext,
    background_context,
    configure_logging,
    current_log_context,
    log_context,
    redact,
)

API_KEY = "dev-supervisor-key"


@pytest.fixture(autouse=True)
def logging_as_it_was() -> Iterator[None]:
    """Each test changes the process's logging: put it back as it was afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    installed = logs._installed
    service, instance = logs._Process.service, logs._Process.instance
    uvicorn = {
        name: (list(logger.handlers), logger.propagate, logger.level)
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
        for logger in [logging.getLogger(name)]
    }
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    logs._installed = installed
    logs._Process.service, logs._Process.instance = service, instance
    for name, (kept, propagate, was) in uvicorn.items():
        logger = logging.getLogger(name)
        logger.handlers[:] = kept
        logger.propagate = propagate
        logger.setLevel(was)


def lines_of(fmt: str = "json", name: str = "teenpatti.test") -> tuple[logging.Logger, io.StringIO]:
    """A logger of its own whose records go only to a `LogHandler` writing to a buffer."""
    buffer = io.StringIO()
    logger = logging.getLogger(name)
    logger.handlers[:] = [LogHandler(buffer, fmt)]
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    return logger, buffer


def json_lines(buffer: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


# ------------------------------------------------------------------------- JSON lines
def test_a_json_line_has_the_fields_and_what_the_context_knows() -> None:
    logger, buffer = lines_of()
    configure_logging(service="table", instance="table-0:7", stream=io.StringIO())
    with log_context(table_id="T1", round_id="T1-000001", correlation_id="c-1"):
        with log_context(event_type="CardScanned", event_id="e-1"):
            logger.info("dealt %s", "AS", extra={"position": 7})
        logger.warning("after")
    inner, outer = json_lines(buffer)
    assert inner == {
        "time": inner["time"],
        "level": "INFO",
        "logger": "teenpatti.test",
        "message": "dealt AS",
        "service": "table",
        "instance": "table-0:7",
        "table_id": "T1",
        "round_id": "T1-000001",
        "event_type": "CardScanned",
        "event_id": "e-1",
        "correlation_id": "c-1",
        "position": 7,
    }
    moment = datetime.fromisoformat(inner["time"])
    assert inner["time"].endswith("Z") and moment.utcoffset() == timedelta(0)
    assert abs(datetime.now(UTC) - moment) < timedelta(minutes=1)
    assert "event_type" not in outer and outer["table_id"] == "T1"
    assert outer["level"] == "WARNING"


def test_a_field_given_as_none_is_not_known_inside() -> None:
    with log_context(table_id="T1", event_id="e-1"), log_context(event_id=None):
        assert dict(current_log_context()) == {"table_id": "T1"}
    assert dict(current_log_context()) == {}


def test_an_exception_is_one_string_field() -> None:
    logger, buffer = lines_of()
    try:
        raise RuntimeError("the table is on fire")
    except RuntimeError:
        logger.exception("it failed")
    [line] = json_lines(buffer)
    assert line["message"] == "it failed"
    assert isinstance(line["exc_info"], str)
    assert "RuntimeError: the table is on fire" in line["exc_info"]
    assert "Traceback" in line["exc_info"]


def test_the_log_context_reaches_the_tasks_a_context_starts() -> None:
    logger, buffer = lines_of()

    async def run() -> None:
        with log_context(table_id="T9"):
            await asyncio.create_task(_log(logger))

    asyncio.run(run())
    assert json_lines(buffer)[0]["table_id"] == "T9"


async def _log(logger: logging.Logger) -> None:
    logger.info("from a task")


def test_a_background_context_keeps_the_service_and_leaves_the_work_in_hand() -> None:
    with log_context(service="table", table_id="T1", correlation_id="c-1"):
        context = background_context(table_id="T2")
    assert dict(context.run(current_log_context)) == {"service": "table", "table_id": "T2"}


def test_the_consumer_dispatch_names_what_a_run_of_events_shares() -> None:
    from teenpatti.events import new_envelope
    from teenpatti.events.catalog import TableClosed

    seen: list[dict[str, str]] = []

    async def handler(connection: Any, run: list[Any]) -> None:
        seen.append(dict(current_log_context()))

    def closed(table_id: str) -> Any:
        event = TableClosed(table_id=table_id, actor="supervisor-1", reason="end of shift")
        return new_envelope(
            event, stream_id=f"table-{table_id}", stream_version=2, table_id=table_id, producer="t"
        )

    one, other = closed("T1"), closed("T2")
    dispatch = dispatcher({TableClosed: handler})
    asyncio.run(dispatch(None, [one]))  # type: ignore[arg-type]
    asyncio.run(dispatch(None, [one, other]))  # type: ignore[arg-type]
    assert seen[0] == {
        "event_type": "TableClosed",
        "table_id": "T1",
        "correlation_id": str(one.correlation_id),
        "event_id": str(one.event_id),
    }
    assert seen[1] == {"event_type": "TableClosed"}


# ------------------------------------------------------------------------- text lines
def test_a_text_line_is_time_level_service_message_then_the_fields() -> None:
    logger, buffer = lines_of("text")
    configure_logging(service="wallet", stream=io.StringIO())
    with log_context(table_id="T1", correlation_id="c-1"):
        logger.warning("round %s sealed", "T1-000001", extra={"why": "betting closed"})
    line = buffer.getvalue().rstrip("\n")
    assert re.fullmatch(
        r"\d\d:\d\d:\d\d WARNING wallet round T1-000001 sealed table_id=T1 correlation_id=c-1"
        r' why="betting closed"',
        line,
    ), line


def test_a_text_line_is_followed_by_its_traceback() -> None:
    logger, buffer = lines_of("text")
    try:
        raise ValueError("bad card")
    except ValueError:
        logger.error("refused", exc_info=True)
    first, *rest = buffer.getvalue().splitlines()
    assert " ERROR " in first and first.endswith(" refused")
    assert rest[0] == "Traceback (most recent call last):"
    assert rest[-1] == "ValueError: bad card"


# ------------------------------------------------------------------------- redaction
@pytest.mark.parametrize(
    ("message", "kept"),
    [
        (f"X-Api-Key: {API_KEY}", "X-Api-Key: "),
        (f"headers {{'x-api-key': '{API_KEY}'}}", "'x-api-key': '"),
        (f'{{"X-Api-Key": "{API_KEY}"}}', '"X-Api-Key": "'),
        (f"[(b'x-api-key', b'{API_KEY}')]", "(b'x-api-key', b'"),
        (f"Authorization: Bearer {API_KEY}", "Authorization: Bearer "),
        (f"authorization={API_KEY}", "authorization="),
        (f"device credential={API_KEY} refused", "credential="),
        (f"password: {API_KEY}", "password: "),
        (f"GET /tables/T1/feed?after=3&key={API_KEY}", "/tables/T1/feed?after=3&key="),
        (f"api_key={API_KEY}; then", "api_key="),
        (f"token={API_KEY}", "token="),
        (f"postgresql://teenpatti:{API_KEY}@db:5432/tp_table", "postgresql://teenpatti:"),
    ],
)
def test_a_credential_in_a_message_is_redacted(message: str, kept: str) -> None:
    redacted = redact(message)
    assert API_KEY not in redacted
    assert kept in redacted and "[redacted]" in redacted


def test_what_is_not_a_credential_is_left_alone() -> None:
    for message in (
        "round T1-000001 closed: winner player_a",
        "bad_credential (recorded)",
        "keyed by table id",
        "monkey=banana",
    ):
        assert redact(message) == message


def test_every_line_is_redacted_its_arguments_and_traceback_too() -> None:
    logger, buffer = lines_of()
    try:
        raise PermissionError(f"refused X-Api-Key: {API_KEY}")
    except PermissionError:
        logger.exception(
            "request with %s", {"X-Api-Key": API_KEY}, extra={"seen": f"key={API_KEY}"}
        )
    text = buffer.getvalue()
    assert API_KEY not in text
    assert text.count("[redacted]") >= 3  # the message, the field, the exception (and its line)


# ------------------------------------------------------------------------- uvicorn
def test_an_access_line_loses_its_query_string_and_names_its_parts() -> None:
    logger, buffer = lines_of(name="uvicorn.access")
    logger.info(
        '%s - "%s %s HTTP/%s" %d',
        "127.0.0.1:5000",
        "GET",
        f"/tables/T1/events?after=0&key={API_KEY}",
        "1.1",
        200,
    )
    [line] = json_lines(buffer)
    assert line["message"] == '127.0.0.1:5000 - "GET /tables/T1/events HTTP/1.1" 200'
    assert (line["http_method"], line["http_path"], line["http_status"]) == (
        "GET",
        "/tables/T1/events",
        200,
    )


def test_a_websocket_line_loses_its_query_string() -> None:
    logger, buffer = lines_of(name="uvicorn.error")
    logger.info(
        '%s - "WebSocket %s" [accepted]', "127.0.0.1:5000", f"/tables/T1/feed?key={API_KEY}"
    )
    [line] = json_lines(buffer)
    assert line["message"] == '127.0.0.1:5000 - "WebSocket /tables/T1/feed" [accepted]'


# ------------------------------------------------------------------------- the setup
def test_the_setup_is_idempotent_and_takes_in_uvicorn_s_loggers() -> None:
    uvicorn, access = logging.getLogger("uvicorn"), logging.getLogger("uvicorn.access")
    uvicorn.handlers[:] = [logging.StreamHandler(io.StringIO())]
    uvicorn.propagate = False
    access.handlers[:] = []
    access.propagate = False  # uvicorn --no-access-log
    buffer = io.StringIO()
    configure_logging(service="settlement", level="warning", fmt="json", stream=buffer)
    configure_logging(service="settlement", level="info", fmt="json", stream=buffer)
    root = logging.getLogger()
    assert sum(isinstance(handler, LogHandler) for handler in root.handlers) == 1
    assert root.level == logging.INFO
    assert uvicorn.handlers == [] and uvicorn.propagate
    assert access.handlers == [] and not access.propagate  # still off
    logging.getLogger("uvicorn.error").info("Started server process [%d]", 42)
    [line] = json_lines(buffer)
    assert (line["logger"], line["service"]) == ("uvicorn.error", "settlement")


def test_a_bad_level_or_format_is_refused() -> None:
    with pytest.raises(ValueError, match="log level"):
        configure_logging(service="table", level="loud")
    with pytest.raises(ValueError, match="log format"):
        configure_logging(service="table", fmt="xml")


def test_the_command_logs_text_to_stderr_and_refuses_a_bad_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["par-sheet", "--help"], None, out, err) == 0
    monkeypatch.setenv("TP_LOG_LEVEL", "info")
    out, err = io.StringIO(), io.StringIO()
    code = main(["evaluate"], io.StringIO(""), out, err)
    assert code == 0
    logging.getLogger("teenpatti.audit").info("reading the stores")
    assert re.fullmatch(r"\d\d:\d\d:\d\d INFO teenpatti reading the stores\n", err.getvalue())
    monkeypatch.setenv("TP_LOG_LEVEL", "loud")
    err = io.StringIO()
    assert main(["evaluate"], io.StringIO(""), io.StringIO(), err) == 2
    assert "TP_LOG_LEVEL" in err.getvalue()


# ------------------------------------------------------------------------- HTTP
def test_a_request_s_lines_name_the_service_and_its_correlation_id() -> None:
    seen: list[dict[str, str]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(dict(current_log_context()))

    middleware = RequestLogContext(app, service="wallet")

    async def call(headers: list[tuple[bytes, bytes]]) -> None:
        await middleware({"type": "http", "headers": headers}, _nothing, _nothing)

    asyncio.run(call([(b"x-correlation-id", b"req-42")]))
    asyncio.run(call([]))
    asyncio.run(call([(b"x-correlation-id", b"not one\nof ours")]))
    asyncio.run(middleware({"type": "lifespan"}, _nothing, _nothing))
    assert seen[0] == {"service": "wallet", "correlation_id": "req-42"}
    assert re.fullmatch(r"[0-9a-f-]{36}", seen[1]["correlation_id"])
    assert seen[2]["correlation_id"] != "not one\nof ours"
    assert seen[3] == {"service": "wallet"}


async def _nothing(*_: Any) -> Any:
    return None


async def test_a_response_names_its_requests_correlation_id() -> None:

    async def seen(request: Request) -> JSONResponse:
        return JSONResponse(
            {"correlation_id": logs.current_correlation_id()},
            headers={"X-Correlation-Id": "not-this-one"},
        )

    app = RequestLogContext(Starlette(routes=[Route("/", seen)]), service="table")

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://s") as client:
        given = await client.get("/", headers={"X-Correlation-Id": "c-42"})
        made = await client.get("/")
    assert given.headers.get_list("x-correlation-id") == ["c-42"]
    assert given.json() == {"correlation_id": "c-42"}
    assert made.headers["x-correlation-id"] == made.json()["correlation_id"]
    assert re.match(r"^[0-9a-f-]{36}$", made.headers["x-correlation-id"])
    assert logs.current_correlation_id() is None  # outside a request
