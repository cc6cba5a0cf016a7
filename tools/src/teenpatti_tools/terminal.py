"""What a tool's terminal shows a person: its progress and its results.

The tools (`make run`, `make chaos`, `make bench`) start the services as processes that write
their logs to files (`devrun.ServiceProcesses`). The tool's own process logs only warnings and
worse, as lines for people: it loads the services' declarations and talks to them through
libraries that log at INFO (httpx: every request), which would bury the progress lines.
"""

from __future__ import annotations

from teenpatti.observability.logs import configure_logging


def tool_logging(tool: str) -> None:
    """This process's log records: warnings and worse, on stderr, `HH:MM:SS level <tool>
    message key=value...`."""
    configure_logging(service=tool, level="WARNING", fmt="text")
