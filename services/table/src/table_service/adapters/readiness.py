"""Whether the services a round needs can take one now: their `/ready`, asked over HTTP
before a table opens a round (`TP_ROUND_GATE_URLS`, docs/decisions/0086). The answers are
kept `cache_seconds` for every table of the instance, so a check costs one request per
service however many tables open rounds."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

import httpx

log = logging.getLogger(__name__)

_DETAIL_CHARS = 200  # of a service's answer, logged
_NO_ANSWER = "no answer"


class ReadinessGate:
    """`blockers()`: why a round cannot be taken now, one reason per service not ready; empty
    when every one is."""

    def __init__(
        self, targets: Sequence[tuple[str, str]], *, timeout: float, cache_seconds: float
    ) -> None:
        self._targets = list(targets)
        self._timeout = timeout
        self._cache_seconds = cache_seconds
        self._http: httpx.AsyncClient | None = None
        self._checked_at = -float("inf")
        self._blockers: tuple[str, ...] = ()
        self._lock = asyncio.Lock()

    @property
    def enabled(self) -> bool:
        return bool(self._targets)

    @property
    def recheck_seconds(self) -> float:
        return self._cache_seconds

    async def blockers(self) -> tuple[str, ...]:
        if not self._targets:
            return ()
        async with self._lock:
            if time.monotonic() - self._checked_at >= self._cache_seconds:
                self._blockers = await self._check()
                self._checked_at = time.monotonic()
            return self._blockers

    async def close(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def _check(self) -> tuple[str, ...]:
        if self._http is None:
            self._http = httpx.AsyncClient(timeout=self._timeout)
        answers = await asyncio.gather(*(self._ask(url) for _, url in self._targets))
        reasons = []
        for name in dict.fromkeys(name for name, _ in self._targets):
            mine = [a for (n, _), a in zip(self._targets, answers, strict=True) if n == name]
            if all(answer is not None for answer in mine):
                # the feed shows the reason: the service's name and state, never its address
                unreachable = all(answer == _NO_ANSWER for answer in mine)
                reasons.append(f"{name} {'unreachable' if unreachable else 'not ready'}")
                log.warning("round gate: %s: %s", name, "; ".join(a or "" for a in mine))
        return tuple(reasons)

    async def _ask(self, url: str) -> str | None:
        """None when `url` is ready, else what it (or its absence) says (for the log)."""
        assert self._http is not None
        try:
            response = await self._http.get(f"{url}/ready")
        except httpx.HTTPError as error:
            log.info("round gate: %s/ready: %s", url, type(error).__name__)
            return _NO_ANSWER
        if response.status_code == 200:
            return None
        return f"{url}/ready answered {response.status_code}: {response.text[:_DETAIL_CHARS]}"
