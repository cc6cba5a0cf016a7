"""Operators' wallets: each operator's configuration (transfer or seamless, read from the
`operators` table and kept for a few seconds) and the one client that calls seamless
operators' wallet servers, signed with our key (docs/operators.md)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import asyncpg

from teenpatti.seamless import (
    BalanceCall,
    CallOutcome,
    OperatorConfig,
    OperatorWalletClient,
    load_private_key,
)
from teenpatti.seamless.client import HttpClient

from .adapters import seamless as calls
from .config import WalletSettings
from .domain.seamless import OperatorUnavailableError


class OperatorConfigs:
    """Each operator's wallet configuration, read from the `operators` table and kept for a
    few seconds, so that a change takes effect without a restart; no row: transfer."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        ttl_seconds: float,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._pool = pool
        self._ttl = ttl_seconds
        self._monotonic = monotonic
        self._cache: dict[str, tuple[float, OperatorConfig]] = {}

    async def get(self, operator_id: str) -> OperatorConfig:
        now = self._monotonic()
        cached = self._cache.get(operator_id)
        if cached is not None and now - cached[0] < self._ttl:
            return cached[1]
        async with self._pool.acquire() as connection:
            raw = await calls.operator_config(connection, operator_id)
        config = (
            OperatorConfig.transfer(operator_id)
            if raw is None
            else OperatorConfig.model_validate({**raw, "operator_id": operator_id})
        )
        self._cache[operator_id] = (now, config)
        return config

    def timeouts(self) -> dict[str, float]:
        """The call timeout of each operator read so far (however long ago: for an owed
        call's lease, where a stale value costs at most a second attempt in flight)."""
        return {
            operator_id: config.timeout_seconds for operator_id, (_, config) in self._cache.items()
        }


class OperatorWallets:
    """The operators' configurations and the client of their wallet servers."""

    def __init__(self, pool: asyncpg.Pool, settings: WalletSettings) -> None:
        self.configs = OperatorConfigs(pool, settings.seamless_config_cache_seconds)
        key_file = settings.seamless_signing_key_file
        # no I/O in a constructor but the key file's read: the HTTP client connects lazily
        self.client: OperatorWalletClient | None = (
            None
            if not key_file
            else OperatorWalletClient(
                load_private_key(Path(key_file).read_bytes()),
                http=HttpClient(settings.seamless_http_client),
            )
        )

    def client_for(self, config: OperatorConfig) -> OperatorWalletClient:
        if self.client is None:
            raise OperatorUnavailableError(
                f"operator {config.operator_id} is seamless but the wallet has no signing key"
                " (TP_SEAMLESS_SIGNING_KEY_FILE)"
            )
        return self.client

    async def balance(self, config: OperatorConfig, call: BalanceCall) -> CallOutcome:
        """One `/user/balance` call, for a player's `GET /me/balance`: it moves nothing, so
        nothing of it is recorded."""
        return await self.client_for(config).balance(config, call)

    async def close(self) -> None:
        if self.client is not None:
            await self.client.aclose()
