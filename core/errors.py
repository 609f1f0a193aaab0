"""Typed errors raised by the engine and translated only at each boundary.

Every error has a short ``title`` and a ``message`` that says what went wrong and
what to do. The CLI maps ``exit_code`` to its process exit status, the TUI shows a
notification, MCP returns an error result and REST an HTTP status.
"""

from __future__ import annotations

from enum import IntEnum


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
    """Base of every error a user may see."""

    title = "VeraMem error"
    exit_code = ExitCode.FAILURE
    http_status = 500

    def __init__(self, message: str, *, title: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if title is not None:
            self.title = title

    def __str__(self) -> str:
        return self.message


class NotInitialisedError(VeramemError):
    title = "No store yet"
    exit_code = ExitCode.NOT_INITIALISED
    http_status = 503


class WrongKeyError(VeramemError):
    title = "Wrong passphrase or key"
    exit_code = ExitCode.WRONG_KEY
    http_status = 401


class MissingKeyError(VeramemError):
    title = "Key not found"
    exit_code = ExitCode.MISSING_KEY
    http_status = 401


class LockedError(MissingKeyError):
    """The key is under a passphrase and there is no way to ask for one: no terminal, no
    VERAMEM_PASSPHRASE. Nothing is wrong with the store or its key; the person is simply not asked."""

    title = "Passphrase needed"
    exit_code = ExitCode.LOCKED


class NotAStoreError(VeramemError):
    title = "Not a VeraMem store"
    exit_code = ExitCode.NOT_A_STORE
    http_status = 500


class StoreDamagedError(NotAStoreError):
    """The store file (or its WAL) exists but is emptied, truncated or fails its page checks."""

    title = "Store damaged"
    http_status = 503


class KeyFileDamagedError(NotAStoreError):
    """``veramem.keys.json`` exists but cannot be read as key information."""

    title = "Key file damaged"
    http_status = 503


class LedgerBrokenError(VeramemError):
    title = "Ledger does not verify"
    exit_code = ExitCode.LEDGER_BROKEN


class NotFoundError(VeramemError):
    title = "Not found"
    exit_code = ExitCode.NOT_FOUND
    http_status = 404


class InvalidInputError(VeramemError):
    title = "Invalid input"
    exit_code = ExitCode.INVALID_INPUT
    http_status = 422


class RefusedError(VeramemError):
    """An operation an invariant forbids (approving a rejected value, raising authority…)."""

    title = "Refused"
    exit_code = ExitCode.REFUSED
    http_status = 409


class ImmutableError(RefusedError):
    title = "Immutable record"


class ModelError(VeramemError):
    """A model (embedder or LLM) failed: down, slow, or returned something unusable."""

    title = "Model error"
    exit_code = ExitCode.MODEL_ERROR
    http_status = 502


class StoreBusyError(VeramemError):
    title = "Store busy"
    exit_code = ExitCode.BUSY
    http_status = 503


class SyncError(VeramemError):
    title = "Sync error"
    exit_code = ExitCode.SYNC_ERROR
