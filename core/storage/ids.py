"""Identifiers and timestamps.

Ids are time-ordered (48-bit milliseconds + 80 random bits, Crockford base32, like a
ULID) with a short prefix naming what they identify. Timestamps are ISO 8601 UTC
strings with microseconds and a trailing ``Z``, so string order is time order.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _b32(value: int, length: int) -> str:
    out = []
    for _ in range(length):
        out.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(out))


def new_id(prefix: str, *, now: datetime | None = None, rand: bytes | None = None) -> str:
    """A new id such as ``mem_01J…``; ``now`` and ``rand`` may be given for tests."""
    moment = now or datetime.now(UTC)
    ms = int(moment.timestamp() * 1000) & ((1 << 48) - 1)
    entropy = int.from_bytes(rand if rand is not None else os.urandom(10), "big") & ((1 << 80) - 1)
    return f"{prefix}_{_b32(ms, 10)}{_b32(entropy, 16)}"


def iso(moment: datetime) -> str:
    """Format an aware datetime as the store's canonical UTC string."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    # isoformat, not strftime: %Y does not pad years before 1000 to four digits on every platform.
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def now_iso() -> str:
    # iso() of an aware UTC moment, without its conversion to UTC (about 40% less; sync apply stamps
    # every ledger entry it writes, issue 17)
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def parse_iso(value: str) -> datetime:
    """Parse a string written by :func:`iso` (or any ISO 8601 form) into an aware datetime."""
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
