"""The web front's own settings (`TP_WEB_*` environment variables), read once at start.

The web front connects to no database, broker or cache: it needs the four services' base
URLs, its own API key (role `viewer`), which reads the table of a player's session for the
player view, the proxies in front of it and its own rate limits. That key's default is
public, so outside development (`TP_ENV`) the process refuses it, as every service refuses the
development keys (docs/decisions/0049-no-default-secret-outside-development.md). `TP_ENV`
and the `TP_LOG_*` settings are the shared ones (`teenpatti.settings.InfrastructureSettings`).
"""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from teenpatti.kernel.proxies import TrustedProxies
from teenpatti.settings import DEVELOPMENT, PLACEHOLDER, DefaultSecretError

DEVELOPMENT_WEB_KEY = "dev-web-key"
_URL = r"^https?://[^/?#\s]+(/[^?#\s]*)?$"


class WebSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TP_WEB_", frozen=True, extra="ignore")

    table_url: str = Field(
        default="http://127.0.0.1:8101",
        pattern=_URL,
        description="The table service's base URL: `/api/table/...`, the player's table and"
        " results, and the feeds (its WebSocket at the same address, `ws://` or `wss://`).",
    )
    scanner_url: str = Field(
        default="http://127.0.0.1:8102",
        pattern=_URL,
        description="The scanner-gateway's base URL (`/api/scanner/...`).",
    )
    wallet_url: str = Field(
        default="http://127.0.0.1:8103",
        pattern=_URL,
        description="The wallet's base URL (`/api/wallet/...`; a player's session is checked"
        " there, `GET /me`, on every call of the player view's own routes).",
    )
    settlement_url: str = Field(
        default="http://127.0.0.1:8104",
        pattern=_URL,
        description="The settlement service's base URL (`/api/settlement/...`).",
    )
    api_key: SecretStr = Field(
        default=SecretStr(DEVELOPMENT_WEB_KEY),
        description="The web front's own API key, of the role `viewer` (it reads and acts on"
        " nothing): used only to read the table of a player's session (`/api/play/...`), never"
        " for a forwarded call. Its default, the development key `dev-web-key`, is refused"
        " outside development (`TP_ENV`).",
    )
    frame_ancestors: str = Field(
        default="'self'",
        pattern=r"^[^;,\r\n]*$",
        description="Who may embed the player view (`/play/...`) in a frame: the CSP"
        " `frame-ancestors` sources, space-separated, e.g. `https://lobby.operator.example`;"
        " `'none'`: nobody. The console is never framed (`'none'`).",
    )
    upstream_timeout_seconds: float = Field(
        default=15.0,
        gt=0,
        le=120,
        description="How long the web front waits for a service's answer to a forwarded call"
        " before it answers 502 `upstream_unavailable`.",
    )
    trusted_proxies: str = Field(
        default="",
        description="The proxies in front of the web front whose `X-Forwarded-For` it believes"
        " (a balancer, an ingress), comma-separated addresses or CIDR networks: from such a"
        " peer the client address is the right-most entry of `X-Forwarded-For` that is not one"
        " of them. Empty: none, the client address is the socket's peer. The web front passes"
        " the client address on to the services (`X-Forwarded-For`), which believe it when"
        " their `TP_TRUSTED_PROXIES` names the web front.",
    )
    # the web front's own limits (docs/decisions/0087-limits-at-the-web-front.md)
    rate_limit_address_per_second: float = Field(
        default=100.0,
        ge=0,
        le=1_000_000,
        description="Requests per second (pages, files, API calls and feed openings alike) one"
        " client address may make to one instance of the web front, sustained; past its burst"
        " it gets 429 `rate_limited` with `Retry-After` (`limit: address`) before any service"
        " is asked. An IPv6 address counts by its /64. 0: no limit. In development"
        " (`TP_ENV=dev`) the web front's limits are off unless a `TP_WEB_RATE_LIMIT_*` setting"
        " is given another value than its default.",
    )
    rate_limit_address_burst: int = Field(
        default=400,
        ge=1,
        le=1_000_000,
        description="How many requests one client address may make at once above its rate"
        " (a page and its files are some 30).",
    )
    rate_limit_credential_per_second: float = Field(
        default=20.0,
        ge=0,
        le=1_000_000,
        description="Requests per second one player session (`Authorization: Session`) or one"
        " key (`X-Api-Key`: the console's) may make to one instance of the web front,"
        " sustained, from any address; past its burst 429 `rate_limited` (`limit: api_key`)."
        " 0: no limit.",
    )
    rate_limit_credential_burst: int = Field(
        default=100,
        ge=1,
        le=1_000_000,
        description="How many requests one session or key may make at once above its rate.",
    )

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: str) -> str:
        TrustedProxies.parse(value)  # a ValueError names the entry
        return value

    def rate_limited(self, env: str) -> bool:
        """Whether the web front's limits apply: always outside development; in development
        only when a `TP_WEB_RATE_LIMIT_*` setting is given another value than its default."""
        fields = type(self).model_fields
        given = any(
            getattr(self, name) != field.default
            for name, field in fields.items()
            if name.startswith("rate_limit_")
        )
        return env != DEVELOPMENT or given

    def url_of(self, service: str) -> str:
        """The base URL of `service` (`table`, `wallet`, `settlement`, `scanner`)."""
        url: str = getattr(self, f"{service}_url")
        return url.rstrip("/")

    def refuse_default_secrets(self, env: str) -> None:
        """Outside development, raise DefaultSecretError if the web front's key is public:
        called before the process answers anything."""
        if env == DEVELOPMENT:
            return
        key = self.api_key.get_secret_value()
        if "api_key" not in self.model_fields_set:
            reason = "TP_WEB_API_KEY is not set, so its development default is in use"
        elif key == DEVELOPMENT_WEB_KEY:
            reason = "TP_WEB_API_KEY is set to its development default"
        elif key.startswith(PLACEHOLDER):
            reason = "TP_WEB_API_KEY is still the placeholder of deploy/docker/.env.example"
        else:
            return
        raise DefaultSecretError(f"TP_ENV={env}", [reason])
