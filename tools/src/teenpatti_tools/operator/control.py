"""Driving the reference operator from the tools and tests: its admin API as a client
(`OperatorAdmin`) and the process itself (`launched`: its own key pair and admin token in a
folder, started, ready, stopped or killed).

    async with launched(game_public_key_pem, port=8201, folder=run_folder) as operator:
        token = await operator.admin.player("player-1", "INR", 5_000_000_000)
        ...  # the game side calls operator.url, verifies with operator.public_key_pem
        assert (await operator.admin.check())["ok"]
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import httpx

from teenpatti.seamless.signing import (
    PrivateKey,
    generate_private_key,
    private_key_pem,
    public_key_pem,
)
from teenpatti_tools.operator.app import ADMIN_TOKEN_HEADER
from teenpatti_tools.operator.faults import FaultPlan


class OperatorAdmin:
    """The admin API of a running reference operator (amounts in protocol units)."""

    def __init__(self, url: str, admin_token: str, *, timeout: float = 30) -> None:
        self._http = httpx.AsyncClient(
            base_url=url, headers={ADMIN_TOKEN_HEADER: admin_token}, timeout=timeout
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        response = await self._http.request(method, f"/admin{path}", **kwargs)
        response.raise_for_status()
        return response.json()

    async def put_user(
        self, user: str, *, disabled: bool | None = None, bet_limit: int | None = None
    ) -> dict[str, Any]:
        body = {"disabled": disabled, "bet_limit": bet_limit}
        result: dict[str, Any] = await self._json(
            "PUT", f"/users/{user}", json={k: v for k, v in body.items() if v is not None}
        )
        return result

    async def user(self, user: str) -> dict[str, Any]:
        result: dict[str, Any] = await self._json("GET", f"/users/{user}")
        return result

    async def deposit(self, user: str, currency: str, amount: int) -> int:
        result = await self._json(
            "POST", f"/users/{user}/deposits", json={"currency": currency, "amount": amount}
        )
        return int(result["balance"])

    async def issue_token(self, user: str, currency: str, *, ttl_seconds: float = 3600) -> str:
        result = await self._json(
            "POST", "/tokens", json={"user": user, "currency": currency, "ttl_seconds": ttl_seconds}
        )
        return str(result["token"])

    async def player(
        self, user: str, currency: str, funds: int, *, ttl_seconds: float = 3600
    ) -> str:
        """A player with `funds` deposited (none when 0); a session token for the launch."""
        await self.put_user(user)
        if funds:
            await self.deposit(user, currency, funds)
        return await self.issue_token(user, currency, ttl_seconds=ttl_seconds)

    async def transactions(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        round_id: str | None = None,
        user: str | None = None,
        page_size: int = 1_000,
    ) -> list[dict[str, Any]]:
        """Every transaction it applied in that range, round or player, all pages."""
        params: dict[str, Any] = {"limit": page_size}
        for name, value in (("from", since), ("to", until), ("round", round_id), ("user", user)):
            if value is not None:
                params[name] = value.isoformat() if isinstance(value, datetime) else value
        found: list[dict[str, Any]] = []
        cursor: int | None = 0
        while cursor is not None:
            page = await self._json("GET", "/transactions", params={**params, "cursor": cursor})
            found += page["transactions"]
            cursor = page["next_cursor"]
        return found

    async def check(self) -> dict[str, Any]:
        """Each balance beside deposits - bets + wins + rollbacks; `ok` when all agree."""
        result: dict[str, Any] = await self._json("GET", "/check")
        return result

    async def set_faults(self, plan: FaultPlan) -> dict[str, Any]:
        result: dict[str, Any] = await self._json(
            "PUT", "/faults", json=plan.model_dump(mode="json")
        )
        return result

    async def faults(self) -> dict[str, Any]:
        result: dict[str, Any] = await self._json("GET", "/faults")
        return result

    async def clear_faults(self) -> None:
        await self._json("DELETE", "/faults")


@dataclass
class LaunchedOperator:
    """A reference operator process and what the game side needs to know of it."""

    url: str  # the operator's wallet base URL
    public_key_pem: bytes  # verifies its answers
    admin: OperatorAdmin
    command: list[str]
    log: IO[bytes]
    process: subprocess.Popen[bytes] = field(init=False)

    def __post_init__(self) -> None:
        self.process = self._spawn()

    def _spawn(self) -> subprocess.Popen[bytes]:
        # a session of its own: a terminal's Ctrl-C stops the run, which then checks the
        # operator's money before stopping it (as devrun's services)
        return subprocess.Popen(
            self.command, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

    async def ready(self, within_seconds: float = 30) -> None:
        """Bounded wait for its health answer; an error if it exits or never answers."""
        async with httpx.AsyncClient(base_url=self.url, timeout=1) as client:
            for _ in range(int(within_seconds / 0.05)):
                if self.process.poll() is not None:
                    raise RuntimeError(f"the reference operator exited ({self.process.returncode})")
                try:
                    if (await client.get("/healthz")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)
        raise RuntimeError(f"the reference operator did not answer within {within_seconds} s")

    def kill(self) -> None:
        """SIGKILL, as a crash (chaos): held calls are lost, applied ones are in its database.
        The whole process group: with `--workers` the server processes are the parent's
        children, which a SIGKILL of the parent alone leaves serving."""
        with contextlib.suppress(ProcessLookupError):  # the group is gone already
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    async def restart(self) -> None:
        if self.process.poll() is None:
            self.kill()
        self.process = self._spawn()
        await self.ready()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


@asynccontextmanager
async def launched(
    game_public_key_pem: bytes,
    *,
    port: int,
    folder: Path,
    database: str = "tp_operator",
    faults: FaultPlan | None = None,
    workers: int = 1,
    host: str = "127.0.0.1",
) -> AsyncIterator[LaunchedOperator]:
    """Start a reference operator with a new key pair and admin token written to `folder`
    (its log too, `operator.log`), ready; stopped on leaving. `database`: a database's name
    on the local stack (the admin's credentials come from TP_CREDENTIALS_DIR, never the
    command line)."""
    key = generate_private_key()
    token = secrets.token_urlsafe(24)
    await asyncio.to_thread(_write_secrets, folder, key, token, game_public_key_pem)
    command = [
        *(sys.executable, "-m", "teenpatti_tools.operator"),
        *("--host", host, "--port", str(port), "--database", database),
        *("--private-key", str(folder / "operator.pem")),
        *("--game-public-key", str(folder / "game.pub.pem")),
        *("--admin-token-file", str(folder / "admin-token")),
        *("--workers", str(workers)),
    ]
    if faults is not None:
        command += ["--faults", faults.model_dump_json()]
    url = f"http://{host}:{port}"
    with (folder / "operator.log").open("ab") as log:
        operator = LaunchedOperator(
            url, public_key_pem(key), OperatorAdmin(url, token), command, log
        )
        try:
            await operator.ready()
            yield operator
        finally:
            operator.stop()
            await operator.admin.aclose()


def _write_secrets(folder: Path, key: PrivateKey, token: str, game_public_key_pem: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content, mode in (
        ("operator.pem", private_key_pem(key), 0o600),
        ("operator.pub.pem", public_key_pem(key), 0o644),
        ("game.pub.pem", game_public_key_pem, 0o644),
        ("admin-token", f"{token}\n".encode(), 0o600),
    ):
        path = folder / name
        path.unlink(missing_ok=True)
        # created with its mode: a private key is never readable by others, even for a moment
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), "wb") as file:
            file.write(content)
