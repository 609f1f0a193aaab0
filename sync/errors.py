"""Typed refusals raised by the sync building blocks.

Each refusal carries a machine-readable ``reason`` (a :class:`RejectReason` or
:class:`PairingFailure`) so the sync daemon can count and report them, and a message
that says what went wrong and what to do. ``retryable`` marks refusals that are
normal while a file-sync engine is still copying (a partial file, a gap in a
device's batches): the caller should try again later rather than raise an alarm.
"""

from __future__ import annotations

from enum import StrEnum

from veramem_desktop.core.errors import SyncError


class RejectReason(StrEnum):
    """Why a batch file or a key grant was refused."""

    BAD_MAGIC = "bad_magic"
    BAD_VERSION = "bad_version"
    TRUNCATED = "truncated"
    MALFORMED = "malformed"
    TOO_LARGE = "too_large"
    UNKNOWN_EPOCH = "unknown_epoch"
    MAC_FAILURE = "mac_failure"
    UNKNOWN_DEVICE = "unknown_device"
    REMOVED_DEVICE = "removed_device"
    BAD_SIGNATURE = "bad_signature"
    REPLAY = "replay"
    GAP = "gap"
    WRONG_SENDER = "wrong_sender"
    MISPLACED = "misplaced"
    WRONG_RECIPIENT = "wrong_recipient"


# Refusals that a file-sync engine produces on its own while it is still copying.
_RETRYABLE = frozenset({RejectReason.TRUNCATED, RejectReason.GAP})


class SyncRejected(SyncError):
    """A file in the sync folder was refused; nothing from it was used."""

    title = "Sync file refused"

    def __init__(self, reason: RejectReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason

    @property
    def reason_code(self) -> str:
        return self.reason.value

    @property
    def retryable(self) -> bool:
        return self.reason in _RETRYABLE


class PairingFailure(StrEnum):
    """Why pairing a new device stopped."""

    MALFORMED = "malformed"
    EXPIRED = "expired"
    BAD_CODE_FORMAT = "bad_code_format"
    NO_REQUEST = "no_request"
    DUPLICATE_REQUEST = "duplicate_request"
    BAD_SIGNATURE = "bad_signature"
    ALREADY_PAIRED = "already_paired"
    REMOVED_DEVICE = "removed_device"
    WRONG_REQUEST = "wrong_request"
    # The code typed on the approving device was wrong, or a message was altered
    # in the folder: the two cannot be told apart, and either way no key leaks.
    CONFIRMATION_FAILED = "confirmation_failed"


class PairingFailed(SyncError):
    """Pairing stopped; no key was handed over."""

    title = "Pairing failed"

    def __init__(self, reason: PairingFailure, message: str) -> None:
        super().__init__(message)
        self.reason = reason

    @property
    def reason_code(self) -> str:
        return self.reason.value
