"""API keys issued to people and operators, kept hashed in the access database, with a role,
the tables they may act on, an expiry and a revocation (docs/access.md)."""

from teenpatti.access.authenticator import AccessUnavailableError, Authenticator, KeyLookup
from teenpatti.access.configured import ConfiguredKeys, ConfiguredKeysError
from teenpatti.access.keys import (
    AccessKey,
    InvalidKeySpecError,
    NewKey,
    new_key,
    parse_expiry,
    parse_key,
    parse_tables,
)
from teenpatti.access.store import (
    MIGRATIONS,
    AccessKeyStore,
    KeyIdTakenError,
    PostgresKeyLookup,
    migrate_access,
)

__all__ = [
    "MIGRATIONS",
    "AccessKey",
    "AccessKeyStore",
    "AccessUnavailableError",
    "Authenticator",
    "ConfiguredKeys",
    "ConfiguredKeysError",
    "InvalidKeySpecError",
    "KeyIdTakenError",
    "KeyLookup",
    "NewKey",
    "PostgresKeyLookup",
    "migrate_access",
    "new_key",
    "parse_expiry",
    "parse_key",
    "parse_tables",
]
