"""The four services the web front talks to: one HTTP client for all of them, their base URLs
by the names the pages use (`table`, `wallet`, `settlement`, `scanner`), and the one answer
when a service cannot be reached (502 `upstream_unavailable`, naming it). Every call names
the client it is made for (`X-Forwarded-For`), the request's `X-Correlation-Id` and its trace
context (`traceparent`): `callers.passed_on`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any

import httpx
from starlette.requests import HTTPConnection

from teenpatti.http import ProblemError

from .callers import passed_on
from .config import WebSettings

SERVICES = ("table", "wallet", "settlement", "scanner")


class UpstreamUnavailableError(ProblemError):
    def __init__(self, service: str) -> None:
        super().__init__(
            502,
            "upstream_unavailable",
            f"the {service} service cannot be reached for the moment; retry",
            service=service,
        )


@dataclass
class Upstreams:
    settings: WebSettings
    http: httpx.AsyncClient

    @classmethod
    def open(cls, settings: WebSettings) -> Upstreams:
        # no redirects followed, no cookie ever kept (one caller's would reach the next):
        # what a service answers goes back as it is
        no_cookies = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))
        http = httpx.AsyncClient(
            timeout=settings.upstream_timeout_seconds,
            follow_redirects=False,
            cookies=httpx.Cookies(no_cookies),
            trust_env=False,
        )
        return cls(settings, http)

    async def close(self) -> None:
        await self.http.aclose()

    def url(self, service: str, path: str) -> str:
        return self.settings.url_of(service) + path

    def ws_url(self, service: str, path: str) -> str:
        base = self.settings.url_of(service)
        scheme, _, rest = base.partition("://")
        return f"{'wss' if scheme == 'https' else 'ws'}://{rest}{path}"

    @property
    def viewer(self) -> dict[str, str]:
        """The web front's own key (role `viewer`), for its reads of a session's table."""
        return {"X-Api-Key": self.settings.api_key.get_secret_value()}

    async def request(
        self,
        service: str,
        method: str,
        path: str,
        *,
        headers: Mapping[str, str] | None = None,
        **options: Any,
    ) -> httpx.Response:
        """`method path` on `service`, naming the client it is made for, the request's
        correlation id and trace (`callers.passed_on`); UpstreamUnavailableError if it does
        not answer."""
        sent = {**(headers or {}), **passed_on()}
        try:
            return await self.http.request(method, self.url(service, path), headers=sent, **options)
        except httpx.HTTPError:
            raise UpstreamUnavailableError(service) from None


def upstreams(connection: HTTPConnection) -> Upstreams:
    found: Upstreams | None = connection.app.state.upstreams
    if found is None:
        raise ProblemError(503, "service_unavailable", "the web front is starting or stopping")
    return found
