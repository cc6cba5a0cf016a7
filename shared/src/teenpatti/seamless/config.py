"""One operator's wallet configuration: its mode and, when seamless, where and how its
wallet server is called. Kept as data (the wallet's `operators` table), never as code."""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from teenpatti.seamless.signing import PublicKey, load_public_key

GAME_CODE = "teen_patti_20_20"


class WalletMode(StrEnum):
    # the operator moves money in, our wallet keeps the balances
    TRANSFER = "transfer"
    # the operator keeps the money; we call its wallet server for every movement
    SEAMLESS = "seamless"


class WinPer(StrEnum):
    """How a settled round's returns go to the operator
    (docs/decisions/0079-one-win-per-player-and-round.md)."""

    # one win per player and round: the returns of all the player's bets of the round,
    # referencing its last bet, `round_closed` (which ends every other bet of the round)
    ROUND = "round"
    # one win per slip (per `bet` call), `round_closed` on the player's last one
    SLIP = "slip"


class Adapter(StrEnum):
    """The dialect the operator's wallet server speaks."""

    HUB88 = "hub88"


class OperatorConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    operator_id: Annotated[str, Field(min_length=1, max_length=64)]
    mode: WalletMode = WalletMode.TRANSFER
    adapter: Adapter = Adapter.HUB88
    # calls go to base_url + the adapter's path ("/transaction/bet", ...)
    base_url: Annotated[str, Field(pattern=r"^https?://[^\s]+$")] | None = None
    # the operator's public keys (PEM); two during a rollover, its answers verify under any
    public_keys: tuple[str, ...] = ()
    timeout_seconds: Annotated[float, Field(gt=0, le=60)] = 3.0
    base_backoff_seconds: Annotated[float, Field(gt=0, le=3_600)] = 0.5
    max_backoff_seconds: Annotated[float, Field(gt=0, le=86_400)] = 60.0
    game_code: Annotated[str, Field(min_length=1, max_length=64)] = GAME_CODE
    win_per: WinPer = WinPer.ROUND

    @classmethod
    def transfer(cls, operator_id: str) -> Self:
        """An operator with no configuration: today's transfer wallet."""
        return cls(operator_id=operator_id)

    @field_validator("base_url")
    @classmethod
    def _no_trailing_slash(cls, base_url: str | None) -> str | None:
        return base_url.rstrip("/") if base_url is not None else None

    @field_validator("public_keys")
    @classmethod
    def _readable_keys(cls, public_keys: tuple[str, ...]) -> tuple[str, ...]:
        for pem in public_keys:
            load_public_key(pem.encode())  # SigningKeyError is a ValueError: a validation error
        return public_keys

    @model_validator(mode="after")
    def _seamless_needs_a_server(self) -> Self:
        if self.mode is WalletMode.SEAMLESS:
            if self.base_url is None:
                raise ValueError("a seamless operator needs a base_url")
            if not self.public_keys:
                raise ValueError("a seamless operator needs at least one public key")
        if self.max_backoff_seconds < self.base_backoff_seconds:
            raise ValueError("max_backoff_seconds is below base_backoff_seconds")
        return self

    @property
    def seamless(self) -> bool:
        return self.mode is WalletMode.SEAMLESS

    @property
    def loaded_public_keys(self) -> tuple[PublicKey, ...]:
        return _loaded(self.public_keys)

    def backoff_seconds(self, attempts: int, random_fraction: float) -> float:
        """How long to wait before the next try of an owed call tried `attempts` times:
        exponential from `base_backoff_seconds`, capped at `max_backoff_seconds`, then between
        half of that and all of it by `random_fraction` (in [0, 1], passed in): the jitter
        spreads the instances' retries out; the floor keeps a struggling server from being
        retried at once."""
        ceiling = min(
            self.max_backoff_seconds,
            self.base_backoff_seconds * 2.0 ** min(max(attempts - 1, 0), 32),
        )
        return ceiling * (0.5 + 0.5 * min(max(random_fraction, 0.0), 1.0))


@lru_cache(maxsize=1_024)
def _loaded(public_keys: tuple[str, ...]) -> tuple[PublicKey, ...]:
    # parsed once per set of keys, not once per answer (a copy of a configuration shares it)
    return tuple(load_public_key(pem.encode()) for pem in public_keys)
