"""Shared fixtures of the rules-engine tests: the exact deal counts, computed once per session."""

from __future__ import annotations

import pytest

from teenpatti.engine.par import DealCounts, count_deals


@pytest.fixture(scope="session")
def deal_counts() -> DealCounts:
    # The full enumeration behind the PAR sheet (a few seconds): every test shares it.
    return count_deals()
