"""The replay audit (`teenpatti audit`): recompute rounds, bets and balances from the stored
events, verify each stream's hash chain, and compare stores, topics and wallet balances.
See docs/audit.md."""

from teenpatti.audit.chain import ZERO_HASH, Finding, Row, canonical_bytes, chain_hash
from teenpatti.audit.checks import BalanceTables, History, Scope, check_balances, check_history
from teenpatti.audit.runner import AuditUnavailableError, Report, StoreSpec, run_audit

__all__ = [
    "ZERO_HASH",
    "AuditUnavailableError",
    "BalanceTables",
    "Finding",
    "History",
    "Report",
    "Row",
    "Scope",
    "StoreSpec",
    "canonical_bytes",
    "chain_hash",
    "check_balances",
    "check_history",
    "run_audit",
]
