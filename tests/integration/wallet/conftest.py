from __future__ import annotations

import pytest

from teenpatti.settings import InfrastructureSettings
from wallet_service.config import WalletSettings


@pytest.fixture
def wallet_settings(settings: InfrastructureSettings, database_name: str) -> WalletSettings:
    return WalletSettings(**settings.model_dump(), wallet_database=database_name)
