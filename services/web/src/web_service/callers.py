"""Who calls the web front, and how much they may send.

Every browser reaches the services through the web front, and every player's table is read
with its one key: left alone, one client's flood would spend the services' limits of the
web front's address and key, and every other player's slip would be refused. So:
- the client address is the socket's peer, or what a proxy of `TP_WEB_TRUSTED_PROXIES`
  names (`teenpatti.kernel.proxies`);
- the web front limits each client address and each session or key itself (the kernel's
  `RateLimitMiddleware`, with `TP_WEB_RATE_LIMIT_*`), before any service is asked;
- every call it makes to a service for a request carries that address in
  `X-Forwarded-For` (`forwarded_for`), so that a service whose `TP_TRUSTED_PROXIES` names
  the web front counts the player, not the web front, per address and, for the web front's
  own key, per key and address.
(docs/decisions/0087-limits-at-the-web-front.md)
Every such call also carries the request's `X-Correlation-Id` (the caller's, or the one the
web front made; the answer names it too) and its W3C trace context (`traceparent`): one
request is followed through the services' logs and traces (`passed_on`).
"""

from __future__ import annotations

from contextvars import ContextVar

from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

from teenpatti.kernel.edges import Rate, RateLimitMiddleware
from teenpatti.kernel.proxies import TrustedProxies, client_address
from teenpatti.observability.logs import current_correlation_id
from teenpatti.observability.tracing import IncomingTraceContext, inject_context

from .config import WebSettings

# the client address of the request being served: set for each request, read by whatever
# calls a service for it (`Upstreams.request`, the feeds' relay)
_CLIENT: ContextVar[str | None] = ContextVar("web_client_address", default=None)


def forwarded_for() -> dict[str, str]:
    """The header that tells a service whom the web front calls for: none outside a request."""
    client = _CLIENT.get()
    return {} if client is None else {"X-Forwarded-For": client}


def passed_on() -> dict[str, str]:
    """The headers every call to a service made for a request carries: the client
    (`X-Forwarded-For`), the request's `X-Correlation-Id` and its trace context
    (`traceparent`, `tracestate`); none outside a request."""
    headers = forwarded_for()
    correlation_id = current_correlation_id()
    if correlation_id is not None:
        headers["X-Correlation-Id"] = correlation_id
    inject_context(headers)
    return headers


class ClientAddressMiddleware:
    """Sets the request's client address for `forwarded_for`, for the request's lifetime."""

    def __init__(self, app: ASGIApp, trusted_proxies: TrustedProxies) -> None:
        self._app = app
        self._proxies = trusted_proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self._app(scope, receive, send)
            return
        token = _CLIENT.set(client_address(scope, self._proxies).address)
        try:
            await self._app(scope, receive, send)
        finally:
            _CLIENT.reset(token)


def edges(settings: WebSettings, env: str) -> list[Middleware]:
    """The caller's trace context and the client address, then the web front's own limits
    (where on)."""
    proxies = TrustedProxies.parse(settings.trusted_proxies)
    found = [
        Middleware(IncomingTraceContext),
        Middleware(ClientAddressMiddleware, trusted_proxies=proxies),
    ]
    if settings.rate_limited(env):
        found.append(
            Middleware(
                RateLimitMiddleware,
                per_key=Rate(
                    settings.rate_limit_credential_per_second,
                    settings.rate_limit_credential_burst,
                ),
                per_address=Rate(
                    settings.rate_limit_address_per_second, settings.rate_limit_address_burst
                ),
                trusted_proxies=proxies,
            )
        )
    return found
