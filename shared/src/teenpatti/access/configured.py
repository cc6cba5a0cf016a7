"""The keys given in the configuration: `TP_API_KEYS`, read once, and `TP_API_KEYS_FILE`,
read again whenever it changes, so that removing or changing a line withdraws a key without
a restart, within the same bound as a revocation in the access database
(docs/decisions/0087-limits-at-the-web-front.md).

The file is looked at (its size, modification time and inode: a Kubernetes Secret mounted
as a volume is swapped for a new file) at most every `check_seconds`, when a key is looked
up. At start every line must be valid; when read again, a line that is not is skipped and
logged (its line number and holder, never its key), and a file that cannot be read gives no
keys at all: a broken file never keeps a withdrawn key working.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

from teenpatti.access.holders import ApiKeys, KeyHolder
from teenpatti.access.keys import InvalidKeySpecError

log = logging.getLogger(__name__)

# the least time between two looks at the file: a flood of requests costs one stat a second
MIN_CHECK_SECONDS = 1.0


class ConfiguredKeysError(ValueError):
    """The keys file cannot be read at start, or one of its lines is not a key entry."""


class ConfiguredKeys:
    """`find(key)`: the holder of a configured key, the file's read again when it changed.
    `load()` reads it first, at start (the app's lifespan): never at import."""

    def __init__(
        self,
        spec: str,
        path: str = "",
        *,
        check_seconds: float,
        refused: frozenset[str] = frozenset(),
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fixed = ApiKeys(spec)
        self._path = Path(path) if path else None
        self._check_seconds = max(check_seconds, MIN_CHECK_SECONDS)
        self._refused = refused  # keys no file may give (outside development: the public ones)
        self._monotonic = monotonic
        self._checked_at = monotonic()
        self._seen: tuple[int, int, int] | None = None
        self._from_file = ApiKeys("")
        self._loaded = False

    def load(self) -> None:
        """Read the file for the first time, before the process answers anything:
        ConfiguredKeysError if it cannot be read or a line is not a key entry."""
        if self._path is not None:
            self._seen, self._from_file = self._read(strict=True)
            self._checked_at = self._monotonic()
        self._loaded = True

    def find(self, key: str) -> KeyHolder | None:
        """The holder of `key`, if it is one of these (compared in constant time)."""
        self._refresh()
        found = self._fixed.find(key)
        return found if found is not None else self._from_file.find(key)

    def holds(self, holder: KeyHolder) -> bool:
        """Whether `holder` still has a configured key (its line not removed or changed)."""
        self._refresh()
        return self._fixed.holds(holder) or self._from_file.holds(holder)

    def _refresh(self) -> None:
        if self._path is None:
            return
        if not self._loaded:  # never answer from a file not read yet
            self.load()
            return
        now = self._monotonic()
        if now - self._checked_at < self._check_seconds:
            return
        self._checked_at = now
        if _stamp(self._path) != self._seen:
            self._seen, self._from_file = self._read(strict=False)
            log.info(
                "the API keys file %s was read again: %d keys", self._path, len(self._from_file)
            )

    def _read(self, *, strict: bool) -> tuple[tuple[int, int, int] | None, ApiKeys]:
        assert self._path is not None
        stamp = _stamp(self._path)
        try:
            text = self._path.read_text()
        except (OSError, UnicodeDecodeError) as error:
            if strict:
                raise ConfiguredKeysError(
                    f"TP_API_KEYS_FILE {self._path} cannot be read: {error}"
                ) from None
            log.error(
                "the API keys file %s cannot be read (%s): no key of it is taken", self._path, error
            )
            return stamp, ApiKeys("")
        kept = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.lstrip().startswith("#"):
                continue
            for entry in filter(None, (part.strip() for part in line.split(","))):
                problem = self._problem(entry)
                if problem is None:
                    kept.append(entry)
                elif strict:
                    raise ConfiguredKeysError(f"TP_API_KEYS_FILE {self._path}:{number}: {problem}")
                else:
                    log.error("the API keys file %s:%d is skipped: %s", self._path, number, problem)
        return stamp, ApiKeys(",".join(kept))

    def _problem(self, entry: str) -> str | None:
        """Why `entry` gives no key, or None."""
        try:
            ApiKeys(entry)
        except InvalidKeySpecError as error:
            return str(error)
        if entry.split(":", 3)[2] in self._refused:
            return f"{entry.split(':', 1)[0]!r} has a development key"
        return None


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_ino, status.st_size, status.st_mtime_ns)
