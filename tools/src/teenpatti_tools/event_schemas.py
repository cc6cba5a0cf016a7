"""The committed schema of each event at each `schema_version` (docs/events/), and the check
that a change to an event keeps it readable: `make contracts` writes an event's schema when
its version has none yet, rewrites it after a backward compatible change
(`schema_compat.incompatibilities`), and stops on any other change, telling the developer to
bump the event's `schema_version` and register an upcaster from the old version (the
catalog's `registry.upcaster`), which is how code reads the events stored before. The files of
older versions stay: they are what those upcasters read."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from teenpatti.events.contracts import Event
from teenpatti_tools.schema_compat import incompatibilities

EVENTS_PATH = Path("docs/events")
_FILE = re.compile(r"^(?P<type>[A-Za-z]+)\.v(?P<version>\d+)\.json$")
# the repository's root, where the committed schemas are read (tools is installed from the
# work tree: uv's workspace members are editable)
_ROOT = Path(__file__).resolve().parents[3]


class IncompatibleSchemaError(RuntimeError):
    """An event changed, at the same `schema_version`, so that events stored before no longer
    read: the message says which field and what to do."""


def schema_path(event: type[Event]) -> Path:
    return EVENTS_PATH / f"{event.event_type}.v{event.schema_version}.json"


def payload_schema(event: type[Event]) -> dict[str, Any]:
    """The JSON schema the event's class reads a payload with."""
    return event.model_json_schema(mode="validation")


def event_schemas(events: Iterable[type[Event]], root: Path | None = None) -> dict[Path, str]:
    """Each event's schema file at its current version, checked against the committed one."""
    root = _ROOT if root is None else root
    files: dict[Path, str] = {}
    for event in events:
        path = schema_path(event)
        current = payload_schema(event)
        committed = root / path
        if committed.is_file():
            problems = incompatibilities(json.loads(committed.read_text(encoding="utf-8")), current)
            if problems:
                raise IncompatibleSchemaError(
                    f"{event.event_type} changed at schema_version {event.schema_version} so that"
                    f" the events stored before no longer read: {'; '.join(problems)}. Bump its"
                    f" schema_version to {event.schema_version + 1} and register an upcaster"
                    f" from {event.schema_version} (teenpatti.events.catalog,"
                    f" `@registry.upcaster({event.event_type!r}, from_version="
                    f"{event.schema_version})`); {path} stays as the old version's schema"
                )
        files[path] = json.dumps(current, indent=2, ensure_ascii=False) + "\n"
    return files


def stale_schemas(events: Iterable[type[Event]], root: Path | None = None) -> list[Path]:
    """Files under docs/events/ of no event, or of a version beyond the event's current one."""
    root = _ROOT if root is None else root
    current = {event.event_type: event.schema_version for event in events}
    stale: list[Path] = []
    for file in sorted((root / EVENTS_PATH).glob("*")):
        found = _FILE.match(file.name)
        if found is None or int(found["version"]) > current.get(found["type"], 0):
            stale.append(file.relative_to(root))
    return stale
