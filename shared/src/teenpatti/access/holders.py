"""Who holds a key once it is found (`KeyHolder`), the configured keys (`ApiKeys`), and the
logged and counted refusal of a failed authentication (`refusal`)."""

from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass
from datetime import datetime

from teenpatti.access.keys import hash_key, parse_configured_key
from teenpatti.http import ProblemError
from teenpatti.observability.metrics import AUTH_FAILURES

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KeyHolder:
    name: str  # operator id, or a person's name for supervisors and dealers
    role: str  # "operator", "supervisor", "dealer", "viewer"
    key_id: str | None = None  # a key of the access database's; None: a configured key
    tables: frozenset[str] | None = None  # the tables it may act on; None: every table
    # a configured key's expiry (None: none); a database key's is on its row
    expires_at: datetime | None = None

    def may_act_on(self, table_id: str) -> bool:
        return self.tables is None or table_id in self.tables

    def require_table(self, table_id: str, path: str = "") -> None:
        """A 403 `table_not_in_scope` (logged and counted) unless the key may act on the
        table: every route that acts on or reads one table names it here, or in its path
        (`kernel.dependencies.holder_of` checks a `{table_id}` or `{round_id}` itself)."""
        if not self.may_act_on(table_id):
            raise refusal(
                "out_of_scope",
                ProblemError(
                    403, "table_not_in_scope", f"this key may not act on the table {table_id}"
                ),
                holder=self,
                path=path,
                table_id=table_id,
            )


def refusal(
    reason: str,
    problem: ProblemError,
    *,
    holder: KeyHolder | None = None,
    key_id: str | None = None,
    path: str = "",
    **facts: str,
) -> ProblemError:
    """`problem`, once the failed authentication is recorded (`record_refusal`)."""
    record_refusal(reason, holder=holder, key_id=key_id, path=path, **facts)
    return problem


def record_refusal(
    reason: str,
    *,
    holder: KeyHolder | None = None,
    key_id: str | None = None,
    path: str = "",
    **facts: str,
) -> None:
    """Log a failed authentication (the key id and the holder when known, never the key)
    and count it in `teenpatti_auth_failures_total{reason}`."""
    AUTH_FAILURES.labels(reason).inc()
    key_id = key_id or (holder.key_id if holder is not None else None)
    who = (
        f"{holder.role} {holder.name!r}"
        if holder is not None
        else ("an unknown key" if key_id is None else "a key")
    )
    log.warning(
        "authentication refused (%s): %s%s%s%s",
        reason,
        who,
        "" if key_id is None else f" (key id {key_id})",
        "".join(f", {name} {value}" for name, value in facts.items()),
        f" on {path}" if path else "",
        extra={
            "auth_reason": reason,
            "key_id": key_id,
            "holder": None if holder is None else holder.name,
            "path": path or None,
        },
    )


class ApiKeys:
    """API keys from a setting like `op-1:operator:KEY,alice:supervisor:KEY2:tables=T01`
    (`teenpatti.access.keys.parse_configured_key`); kept hashed. A holder may act on the
    tables its entry names (every table when none), until its entry's expiry."""

    def __init__(self, spec: str) -> None:
        self._holders: dict[str, KeyHolder] = {}
        for entry in filter(None, (part.strip() for part in spec.split(","))):
            parsed = parse_configured_key(entry)  # a ValueError naming the holder
            self._holders[hash_key(parsed.key)] = KeyHolder(
                parsed.holder, parsed.role, tables=parsed.tables, expires_at=parsed.expires_at
            )

    def find(self, key: str) -> KeyHolder | None:
        """The holder of `key`, if it is one of these (every digest compared in constant
        time)."""
        digest = hash_key(key)
        found = None
        for known, holder in self._holders.items():
            if hmac.compare_digest(known, digest):
                found = holder
        return found

    def holds(self, holder: KeyHolder) -> bool:
        """Whether one of these keys is `holder`'s (same name, role, tables and expiry)."""
        return holder in self._holders.values()

    def __len__(self) -> int:
        return len(self._holders)
