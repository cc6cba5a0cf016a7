"""What a tool's terminal shows (`teenpatti_tools.terminal`): `make chaos`, `make bench` and
`make run` print their progress and results, never the JSON log lines of a service, and the
services' logs stay in their files. Each probe runs in a fresh interpreter: what it checks is
the logging of a whole process, from its first import."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from teenpatti_tools.devrun import services, where_to_look

# what a tool does that logged a flood before: load the services' declarations (as
# `isolated_system` and `teenpatti migrate` do) and send HTTP requests (httpx logs each one)
TOOL_WORK = """
import asyncio, logging, httpx
from teenpatti.migrations import declared_services

def load_the_declarations():
    for load in declared_services().values():
        load()

async def send_a_request():
    transport = httpx.MockTransport(lambda request: httpx.Response(201))
    async with httpx.AsyncClient(transport=transport) as client:
        await client.post("http://127.0.0.1:1/bets", json={})
"""


def run_probe(code: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(TOOL_WORK) + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result


def json_objects(text: str) -> list[str]:
    found = []
    for line in text.splitlines():
        try:
            if isinstance(json.loads(line), dict):
                found.append(line)
        except ValueError:
            continue
    return found


def test_loading_a_service_s_declaration_sets_up_no_logging_and_uvicorn_finds_its_app() -> None:
    result = run_probe(
        """
        load_the_declarations()
        root = logging.getLogger()
        print(len(root.handlers), logging.getLevelName(root.level))
        asyncio.run(send_a_request())
        from uvicorn.importer import import_from_string
        app = import_from_string("settlement_service.app:app")
        import settlement_service.app as module
        print(type(app).__name__, app is module.app, len(root.handlers))
        """
    )
    assert result.stdout.splitlines() == ["0 WARNING", "FastAPI True 1"]
    assert "HTTP Request" not in result.stderr


def test_a_tool_shows_its_warnings_as_lines_for_people_and_no_request_lines() -> None:
    result = run_probe(
        """
        from teenpatti_tools.terminal import tool_logging
        tool_logging("bench")
        load_the_declarations()  # after the setup, as a benchmark's system does
        asyncio.run(send_a_request())
        logging.getLogger("aiokafka").warning("the broker went away")
        print("== intake: machine quiet", flush=True)
        """
    )
    assert result.stdout == "== intake: machine quiet\n"
    assert json_objects(result.stderr) == []
    assert "HTTP Request" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.endswith(" WARNING bench the broker went away")


def test_the_chaos_command_prints_its_progress_and_report_only() -> None:
    # the real entry point, its run replaced: it loads the declarations and sends requests
    # as a run does; the stack is left alone (restore_stack replaced too)
    result = run_probe(
        """
        import sys
        import teenpatti_tools.chaos.__main__ as entry

        class Report:
            ok = True
            def format(self):
                return "chaos seed 1: result\\n"

        async def run_chaos(config, infrastructure, *, print_line):
            load_the_declarations()
            await send_a_request()
            print_line("chaos seed 1: 1 s of load")
            logging.getLogger("httpx").info("an INFO line of a library")
            return Report()

        entry.run_chaos = run_chaos
        entry.restore_stack = lambda: ""
        sys.argv = ["chaos", "--duration", "1"]
        try:
            entry.main()
        except SystemExit as exit_:
            print("exit", exit_.code)
        """
    )
    assert result.stdout.splitlines() == [
        "chaos seed 1: 1 s of load",
        "chaos seed 1: result",
        "exit 0",
    ]
    assert json_objects(result.stderr) == []
    assert " INFO " not in result.stderr and "HTTP Request" not in result.stderr


def test_make_run_says_where_each_service_its_metrics_dashboards_and_logs_are() -> None:
    running = services(8101, instances=2)
    lines = where_to_look(
        running,
        prometheus="http://127.0.0.1:19090",
        log_dir=Path(".local/logs"),
        dashboards=Path("deploy/grafana/dashboards"),
    )
    text = "\n".join(lines)
    for service in running:
        [line] = [line for line in lines if line.lstrip().startswith(f"{service.name}:")]
        assert f"http://127.0.0.1:{service.port}  (metrics " in line
        assert f"http://127.0.0.1:{service.port}/metrics" in line
    assert "prometheus: http://127.0.0.1:19090  (" in text
    assert "dashboards: deploy/grafana/dashboards/*.json" in text
    assert "logs: .local/logs/<service>.log" in text
    assert len(lines) == len(running) + 3


def test_the_readme_shows_what_make_run_prints() -> None:
    readme = Path(__file__).parents[2] / "README.md"
    printed = where_to_look(
        services(), prometheus="http://127.0.0.1:19090", log_dir=Path(".local/logs")
    )
    assert "\n".join(printed) in readme.read_text()
