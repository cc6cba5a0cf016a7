"""Carries out a fault schedule on a running system: SIGKILL a service instance, a part of
the local stack or the reference operator, leave it down for a while, restart it, wait until
it answers again; and keep the reference operator's fault switches on while the run lasts."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from teenpatti_tools.chaos.plan import INFRASTRUCTURE, OPERATOR, Fault
from teenpatti_tools.devrun import Service, ServiceProcesses
from teenpatti_tools.operator.control import LaunchedOperator
from teenpatti_tools.operator.faults import FaultPlan

STACK = Path("deploy/local/stack.sh")


class FaultError(RuntimeError):
    """A fault could not be injected or repaired (the stack script failed)."""


@dataclass
class Injected:
    """What was done: kills by kind, and service instances that died without being killed."""

    kills: Counter[str] = field(default_factory=Counter)
    log: list[str] = field(default_factory=list)
    unexpected_exits: list[str] = field(default_factory=list)


def restore_stack(stack: Path = STACK, timeout: float = 300.0) -> str:
    """Start again whatever part of the stack is down (`stack.sh up`, which starts only what
    is not running), synchronously: for a `finally` after a run that failed, was cancelled or
    timed out, so that no killed Kafka, Postgres or Redis is left behind. Its output."""
    done = subprocess.run(
        ["bash", str(stack), "up", *INFRASTRUCTURE],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise FaultError(f"stack.sh up failed ({done.returncode}): {done.stdout[-500:]}")
    return done.stdout


class Faults:
    def __init__(
        self,
        processes: ServiceProcesses,
        *,
        stack: Path = STACK,
        print_line: Callable[[str], None] = print,
        operator: LaunchedOperator | None = None,
        operator_faults: FaultPlan | None = None,
    ) -> None:
        if not stack.is_file():
            raise FaultError(f"{stack} not found: run from the repository's root")
        self._processes = processes
        self._stack = stack
        self._print = print_line
        self._operator = operator
        self._operator_faults = operator_faults
        self.injected = Injected()
        # how often each of the reference operator's switches fired, over its restarts
        self.operator_fired: Counter[str] = Counter()

    async def operator_faults_on(self) -> None:
        """The reference operator's switches on (again, after a restart: they live in its
        memory)."""
        if self._operator is not None and self._operator_faults is not None:
            await self._operator.admin.set_faults(self._operator_faults)

    async def operator_faults_off(self) -> None:
        """Its switches off, what they did counted: the wind-down runs without them."""
        if self._operator is None:
            return
        self._count_fired(await self._operator.admin.faults())
        await self._operator.admin.clear_faults()

    def _count_fired(self, described: dict[str, Any]) -> None:
        switches = described.get("switches")
        for switch in switches if isinstance(switches, list) else []:
            calls = "/".join(sorted(switch["calls"])) or "all"
            self.operator_fired[f"{switch['kind']} {calls}"] += int(switch["fired"])

    async def run(self, faults: Iterator[Fault], *, until: float, at_least: int = 0) -> None:
        """Inject `faults` one after the other until the loop time `until`, and at least
        `at_least` of them however long that takes."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        for count, fault in enumerate(faults):
            if count >= at_least and loop.time() + fault.after >= until:
                await asyncio.sleep(max(0.0, until - loop.time()))
                return
            await asyncio.sleep(fault.after)
            line = f"+{loop.time() - started:6.1f}s  SIGKILL {fault.target}, down {fault.down:.1f}s"
            await self.kill(fault.target)
            await asyncio.sleep(fault.down)
            seconds = await self.restart(fault.target)
            self.injected.kills[fault.kind] += 1
            self.injected.log.append(f"{line}, back in {seconds:.1f}s")
            self._print(self.injected.log[-1])
            await self.heal()

    async def kill(self, target: str) -> None:
        if target == OPERATOR:
            operator = self._require_operator()
            # what its switches did before the crash, which forgets them
            with contextlib.suppress(httpx.HTTPError):
                self._count_fired(await operator.admin.faults())
            await asyncio.to_thread(operator.kill)
            return
        if target in INFRASTRUCTURE:
            await self._stack_command("kill", target)
            return
        self._processes.kill(target)
        await self._processes.processes[target].wait()

    async def restart(self, target: str) -> float:
        """Start `target` again; return how long it took to answer."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        if target == OPERATOR:
            await self._require_operator().restart()
            await self.operator_faults_on()
        elif target in INFRASTRUCTURE:
            await self._stack_command("up", target)
        else:
            await self._processes.start(self._service(target))
        return loop.time() - started

    async def heal(self) -> None:
        """Everything up again: the stack, and any service instance that exited by itself
        (recorded: no service may die of a fault elsewhere)."""
        await self._stack_command("up", *INFRASTRUCTURE)
        for service in self._processes.services:
            process = self._processes.processes[service.name]
            if process.returncode is not None:
                self.injected.unexpected_exits.append(
                    f"{service.name} exited with status {process.returncode}"
                )
                self._print(f"  {service.name} had exited by itself; restarting it")
                await self._processes.start(service)
        operator = self._operator
        if operator is not None and operator.process.poll() is not None:
            self.injected.unexpected_exits.append(
                f"{OPERATOR} exited with status {operator.process.returncode}"
            )
            self._print(f"  {OPERATOR} had exited by itself; restarting it")
            await operator.restart()
            await self.operator_faults_on()

    def _require_operator(self) -> LaunchedOperator:
        if self._operator is None:
            raise FaultError(f"no {OPERATOR} in this run to kill")
        return self._operator

    def _service(self, name: str) -> Service:
        return next(s for s in self._processes.services if s.name == name)

    async def _stack_command(self, *args: str) -> None:
        process = await asyncio.create_subprocess_exec(
            "bash",
            str(self._stack),
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=os.environ.copy(),
        )
        output, _ = await process.communicate()
        if process.returncode != 0:
            raise FaultError(
                f"stack.sh {' '.join(args)} failed ({process.returncode}):"
                f" {output.decode(errors='replace').strip()[-500:]}"
            )
