"""Typed errors raised by the engine and translated only at each boundary.

Every error has a short ``title`` and a ``message`` that says what went wrong and
what to do. The CLI maps ``exit_code`` to its process exit status, the TUI shows a
notification, MCP returns an error result and REST an HTTP status.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any


class ExitCode(IntEnum):
    """The one list of process exit codes used by every command."""

    OK = 0
    FAILURE = 1
    USAGE = 2
    NOT_INITIALISED = 3
    WRONG_KEY = 4
    MISSING_KEY = 5
    NOT_A_STORE = 6
    LEDGER_BROKEN = 7
    NOT_FOUND = 8
    INVALID_INPUT = 9
    REFUSED = 10
    MODEL_ERROR = 11
    SYNC_ERROR = 12
    BUSY = 13
    LOCKED = 14


class VeramemError(Exception):
    """Base of every error a user may see.

    A subclass names what sets it apart in its class line, ``title=``, ``exit_code=`` and
    ``http_status=``; what it leaves out it inherits from its base.
    """

    title = "VeraMem error"
    exit_code = ExitCode.FAILURE
    http_status = 500

    def __init_subclass__(
        cls,
        *,
        title: str | None = None,
        exit_code: ExitCode | None = None,
        http_status: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        for name, value in (("title", title), ("exit_code", exit_code), ("http_status", http_status)):
            if value is not None:
                setattr(cls, name, value)

    def __init__(self, message: str, *, title: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if title is not None:
            self.title = title

    def __str__(self) -> str:
        return self.message


class NotInitialisedError(
    VeramemError, title="No store yet", exit_code=ExitCode.NOT_INITIALISED, http_status=503
):
    """There is no store at the path yet."""


class WrongKeyError(
    VeramemError, title="Wrong passphrase or key", exit_code=ExitCode.WRONG_KEY, http_status=401
):
    """The passphrase or key does not open the store."""


class MissingKeyError(VeramemError, title="Key not found", exit_code=ExitCode.MISSING_KEY, http_status=401):
    """The store's key cannot be found."""


class LockedError(MissingKeyError, title="Passphrase needed", exit_code=ExitCode.LOCKED):
    """The key is under a passphrase and there is no way to ask for one: no terminal, no
    VERAMEM_PASSPHRASE. Nothing is wrong with the store or its key; the person is simply not asked."""


class NotAStoreError(
    VeramemError, title="Not a VeraMem store", exit_code=ExitCode.NOT_A_STORE, http_status=500
):
    """The file is not a VeraMem store."""


class StoreDamagedError(NotAStoreError, title="Store damaged", http_status=503):
    """The store file (or its WAL) exists but is emptied, truncated or fails its page checks."""


class KeyFileDamagedError(NotAStoreError, title="Key file damaged", http_status=503):
    """``veramem.keys.json`` exists but cannot be read as key information."""


class LedgerBrokenError(VeramemError, title="Ledger does not verify", exit_code=ExitCode.LEDGER_BROKEN):
    """The ledger's hash chain does not verify."""


class NotFoundError(VeramemError, title="Not found", exit_code=ExitCode.NOT_FOUND, http_status=404):
    """What was asked for does not exist."""


class InvalidInputError(
    VeramemError, title="Invalid input", exit_code=ExitCode.INVALID_INPUT, http_status=422
):
    """The input cannot be used as given."""


class RefusedError(VeramemError, title="Refused", exit_code=ExitCode.REFUSED, http_status=409):
    """An operation an invariant forbids (approving a rejected value, raising authority…)."""


class ImmutableError(RefusedError, title="Immutable record"):
    """A change to a record that is never changed."""


class ModelError(VeramemError, title="Model error", exit_code=ExitCode.MODEL_ERROR, http_status=502):
    """A model (embedder or LLM) failed: down, slow, or returned something unusable."""


class StoreBusyError(VeramemError, title="Store busy", exit_code=ExitCode.BUSY, http_status=503):
    """Another process held the store's write lock for longer than the wait."""


class SyncError(VeramemError, title="Sync error", exit_code=ExitCode.SYNC_ERROR):
    """A sync exchange failed."""
