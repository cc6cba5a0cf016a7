"""The seamless wallet's integration fixtures: the wallet's settings, a key pair each for the
game side and the operator, and a fresh database for the reference operator."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from uuid import uuid4

import asyncpg
import pytest

from teenpatti.seamless.signing import (
    generate_private_key,
    private_key_pem,
)
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.databases import create_database, drop_database
from tests.integration.seamless.game import Keys
from wallet_service.config import WalletSettings


@pytest.fixture
def wallet_settings(settings: InfrastructureSettings, database_name: str) -> WalletSettings:
    return WalletSettings(**settings.model_dump(), wallet_database=database_name)


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    game, operator = generate_private_key(), generate_private_key()
    path = tmp_path / "signing.pem"
    path.write_bytes(private_key_pem(game))
    return Keys(game, operator, path)


@pytest.fixture
async def operator_database(infrastructure: InfrastructureSettings) -> AsyncIterator[str]:
    name = f"test_op_{uuid4().hex[:12]}"
    await create_database(infrastructure, name)
    try:
        yield infrastructure.postgres_dsn(name)
    finally:
        admin = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
        try:
            await drop_database(admin, name)
        finally:
            await admin.close()
