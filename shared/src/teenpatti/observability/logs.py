"""Log lines: one setup for every service and command, standard library `logging` only.

`configure_logging` puts one handler of this module on the root logger (a second call
updates it), and sends uvicorn's loggers through it. Every line says when (`time`, UTC
ISO-8601), how bad (`level`), who (`logger`, `service`, `instance`) and what (`message`);
and, where known, what is being handled: `table_id`, `round_id`, `event_type`, `event_id`,
`correlation_id` (context that the kernel's consumer dispatch and its HTTP middleware set,
`log_context`) and the current span's `trace_id`. Fields a call passes (`extra={...}`) are
kept; an exception comes as the `exc_info` text.

Formats: `json`, an object per line, for a log pipeline; `text`, a line for people,
`HH:MM:SS level service message key=value...` (`make run`, the `teenpatti` command).

No credential is written: the handler's filter scrubs the values of API keys, authorization
headers, credentials, passwords, tokens and `key=` from every message (`redact`), and
uvicorn's lines lose their query strings (a WebSocket client may send its key in one).
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import re
import socket
import sys
import types
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from teenpatti.settings import InfrastructureSettings

# what a line says of the work in hand, when it is known (`log_context`)
CONTEXT_FIELDS = ("table_id", "round_id", "event_type", "event_id", "correlation_id")

_EMPTY: Mapping[str, str] = types.MappingProxyType({})
_context: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "teenpatti_log_context", default=_EMPTY
)


@contextmanager
def log_context(**fields: object) -> Iterator[None]:
    """Every line logged inside (by this task and the tasks it starts) carries `fields`
    (`service` or any of `CONTEXT_FIELDS`); a field given as None is not known here."""
    merged = dict(_context.get())
    for name, value in fields.items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = str(value)
    token = _context.set(merged)
    try:
        yield
    finally:
        _context.reset(token)


def current_log_context() -> Mapping[str, str]:
    return _context.get()


def background_context(**fields: object) -> contextvars.Context:
    """A context for a task started while handling a request or an event that outlives
    it (`asyncio.create_task(..., context=background_context())`): the service's name and
    `fields`, not the request's or the event's, and no current span (else every event the
    task appends would join the trace of whatever started it)."""
    context = contextvars.copy_context()
    context.run(_leave_the_work_in_hand, {k: str(v) for k, v in fields.items() if v is not None})
    return context


def _leave_the_work_in_hand(fields: dict[str, str]) -> None:
    service = _context.get().get("service")
    _context.set({**({"service": service} if service else {}), **fields})
    if "opentelemetry.context" in sys.modules:
        from opentelemetry import context as otel_context

        otel_context.attach(otel_context.Context())  # for the rest of this context's life


# ------------------------------------------------------------------------- redaction
# a secret's name, its separator (`=`, `:`, or a quoted tuple's comma), a scheme, its value
_SECRET = re.compile(
    r"(?i)((?:x-api-key|authorization|credentials?|passwords?|passwd|secret|tokens?"
    r"|api[_-]?key|\bkey)['\"]?\s*(?:[:=]|,\s*b?(?=['\"]))\s*['\"]?"
    r"(?:(?:bearer|basic|token)\s+)?)"
    r"[^\s'\"&,;)}\]]+"
)
_URL_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^:/@\s]+:)[^@\s]+(@)", re.IGNORECASE)
# a key of the access database wherever it appears: its public id kept (docs/access.md)
_ACCESS_KEY = re.compile(r"(tp_[0-9a-f]{12}_)[0-9a-f]{64}")
# a player's session token (its session id kept) and a launch ticket (docs/operators.md)
_SESSION_TOKEN = re.compile(r"(tps_[0-9a-f]{32}_)[0-9a-f]{64}")
_LAUNCH_TICKET = re.compile(r"(tpl_)[0-9a-f]{64}")
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """`text` with the value of every credential it names replaced by `[redacted]`."""
    if not text:
        return text
    text = _URL_PASSWORD.sub(rf"\1{REDACTED}\2", _SECRET.sub(rf"\1{REDACTED}", text))
    text = _SESSION_TOKEN.sub(rf"\1{REDACTED}", _LAUNCH_TICKET.sub(rf"\1{REDACTED}", text))
    return _ACCESS_KEY.sub(rf"\1{REDACTED}", text)


def _without_query(value: object) -> object:
    if isinstance(value, str) and value.startswith("/") and "?" in value:
        return value.split("?", 1)[0]
    return value


class RedactSecrets(logging.Filter):
    """Scrubs each record's message (`redact`) before any formatter sees it; uvicorn's
    paths lose their query strings, and its access lines name their method, path and
    status as fields."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            if record.name.startswith("uvicorn") and isinstance(record.args, tuple):
                record.args = tuple(_without_query(arg) for arg in record.args)
                if record.name == "uvicorn.access" and len(record.args) == 5:
                    _, method, path, _, status = record.args
                    record.http_method, record.http_path, record.http_status = method, path, status
            record.msg, record.args = redact(record.getMessage()), None
        except Exception:  # a malformed call: logging reports it when the line is formatted
            pass
        return True


# ------------------------------------------------------------------------- the lines
def instance_name(configured: str = "") -> str:
    """The process's name in logs and traces: `TP_INSTANCE`, else `<hostname>:<pid>`."""
    return configured or f"{socket.gethostname()}:{os.getpid()}"


class _Process:
    service = "teenpatti"
    instance = instance_name()


# what every LogRecord has; the rest of a record's attributes came from `extra`
_RECORD_ATTRIBUTES = frozenset(
    [*logging.LogRecord("", 0, "", 0, "", None, None).__dict__, "message", "asctime"]
) | {"color_message"}  # uvicorn's coloured copy of the message


class JsonLines(logging.Formatter):
    """One JSON object per record."""

    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(_fields(self, record), ensure_ascii=False, default=str)


class TextLines(logging.Formatter):
    """`HH:MM:SS level service message key=value...`, then the traceback, if any."""

    def format(self, record: logging.LogRecord) -> str:
        fields = _fields(self, record)
        when = datetime.fromtimestamp(record.created, UTC).strftime("%H:%M:%S")
        line = f"{when} {record.levelname} {fields.pop('service')} {fields.pop('message')}"
        exc = fields.pop("exc_info", None)
        stack = fields.pop("stack_info", None)
        for name in ("time", "level", "logger", "instance", "trace_id"):
            fields.pop(name, None)
        for name, value in fields.items():
            text = str(value)
            line += f" {name}={json.dumps(text) if not text or ' ' in text else text}"
        for more in (exc, stack):
            if more:
                line += f"\n{more}"
        return line


def _fields(formatter: logging.Formatter, record: logging.LogRecord) -> dict[str, Any]:
    context = _context.get()
    fields: dict[str, Any] = {
        "time": datetime.fromtimestamp(record.created, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z"),
        "level": record.levelname,
        "logger": record.name,
        "message": record.getMessage(),
        "service": context.get("service") or _Process.service,
        "instance": _Process.instance,
    }
    for name in CONTEXT_FIELDS:
        if name in context:
            fields[name] = context[name]
    trace_id = _current_trace_id()
    if trace_id is not None:
        fields["trace_id"] = trace_id
    for name, value in record.__dict__.items():
        if name not in _RECORD_ATTRIBUTES and not name.startswith("_"):
            fields[name] = redact(value) if isinstance(value, str) else value
    if record.exc_info:
        fields["exc_info"] = redact(formatter.formatException(record.exc_info))
    elif record.exc_text:
        fields["exc_info"] = redact(record.exc_text)
    if record.stack_info:
        fields["stack_info"] = formatter.formatStack(record.stack_info)
    return fields


def _current_trace_id() -> str | None:
    # No span is current in a process that never loaded the tracing API (the `teenpatti`
    # command): it is not loaded for this.
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    span = trace.get_current_span().get_span_context()
    return f"{span.trace_id:032x}" if span.is_valid else None


# ------------------------------------------------------------------------- the setup
class LogHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes records in a format (`json` or `text`) to a stream (default: whatever
    `sys.stderr` is when it writes), each scrubbed first (`RedactSecrets`)."""

    def __init__(self, stream: TextIO | None = None, fmt: str = "json") -> None:
        super().__init__(stream if stream is not None else sys.stderr)
        self.target = stream
        self.addFilter(RedactSecrets())
        self.use(fmt)

    def use(self, fmt: str) -> None:
        if fmt not in ("json", "text"):
            raise ValueError(f"log format {fmt!r}: json or text")
        self.setFormatter(TextLines() if fmt == "text" else JsonLines())

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = self.target if self.target is not None else sys.stderr
        super().emit(record)


_installed: LogHandler | None = None
_UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")


def configure_logging(
    *,
    service: str,
    level: str = "INFO",
    fmt: str = "json",
    instance: str = "",
    stream: TextIO | None = None,
) -> None:
    """Lines of `level` and worse go to `stream` (default: stderr) in `fmt`, named after
    `service` where no `log_context` says otherwise. Once per process; a later call sets
    the level, format, names and stream again."""
    global _installed
    numeric = logging.getLevelNamesMapping().get(level.upper())
    if numeric is None:
        raise ValueError(f"log level {level!r}: debug, info, warning, error or critical")
    root = logging.getLogger()
    if _installed is None:
        _installed = LogHandler(stream, fmt)
    else:
        _installed.target = stream
        _installed.use(fmt)
    if _installed not in root.handlers:
        root.addHandler(_installed)
    root.setLevel(numeric)
    _Process.service = service
    _Process.instance = instance_name(instance)
    for name in _UVICORN_LOGGERS:
        logger = logging.getLogger(name)
        if not logger.handlers and not logger.propagate:
            continue  # turned off (uvicorn's `--no-access-log`)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.propagate = True
        logger.setLevel(logging.NOTSET)  # the level is TP_LOG_LEVEL's


def setup_logging(settings: InfrastructureSettings, service: str) -> None:
    """`configure_logging` as a service's settings say, to stderr."""
    configure_logging(
        service=service,
        level=settings.log_level,
        fmt=settings.log_format,
        instance=settings.instance,
    )


# ------------------------------------------------------------------------- HTTP
_CORRELATION_HEADER = b"x-correlation-id"
_CORRELATION = re.compile(r"^[A-Za-z0-9._:-]{1,100}$")


class RequestLogContext:
    """ASGI middleware: what is logged while serving a request or a WebSocket names the
    service and the request's correlation id (the caller's `X-Correlation-Id`, else a
    new one), which the response carries back as `X-Correlation-Id`; the lifespan's lines
    (and its tasks') name the service."""

    def __init__(self, app: ASGIApp, service: str) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            with log_context(service=self.service):
                await self.app(scope, receive, send)
            return
        correlation_id = _correlation_id(scope)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (name, value)
                    for name, value in message.get("headers", [])
                    if bytes(name).lower() != _CORRELATION_HEADER
                ]
                headers.append((_CORRELATION_HEADER, correlation_id.encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        with log_context(service=self.service, correlation_id=correlation_id):
            await self.app(scope, receive, send_with_id)


def current_correlation_id() -> str | None:
    """The correlation id of the request or event being handled, if any."""
    return _context.get().get("correlation_id")


def _correlation_id(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == _CORRELATION_HEADER:
            given = bytes(value).decode("latin-1")
            if _CORRELATION.match(given):
                return given
            break
    return str(uuid.uuid4())
