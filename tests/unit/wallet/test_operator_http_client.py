"""`TP_SEAMLESS_HTTP_CLIENT` chooses the HTTP client of the wallet's calls to operators:
our own HTTP/1.1 client by default, httpx when it says so, nothing else
(docs/decisions/0099-a-lean-http-client-for-operator-calls.md)."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import asyncpg
import pytest
from pydantic import ValidationError

from teenpatti.seamless.http11 import Http11Transport
from teenpatti.seamless.signing import generate_private_key, private_key_pem
from teenpatti.seamless.transports import HttpxTransport
from wallet_service.config import WalletSettings
from wallet_service.operators import OperatorWallets


@pytest.mark.parametrize(("setting", "kind"), [(None, Http11Transport), ("httpx", HttpxTransport)])
async def test_the_setting_chooses_the_http_client(
    tmp_path: Path, setting: str | None, kind: type
) -> None:
    key = tmp_path / "signing.pem"
    key.write_bytes(private_key_pem(generate_private_key()))
    settings = WalletSettings(seamless_signing_key_file=str(key))
    if setting is not None:
        settings = WalletSettings(seamless_signing_key_file=str(key), seamless_http_client=setting)
    wallets = OperatorWallets(cast(asyncpg.Pool, None), settings)
    try:
        assert wallets.client is not None
        assert isinstance(wallets.client.transport, kind)
    finally:
        await wallets.close()


def test_an_unknown_http_client_is_refused() -> None:
    with pytest.raises(ValidationError, match="seamless_http_client"):
        WalletSettings(seamless_http_client="aiohttp")
