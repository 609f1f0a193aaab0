"""Memories kept until a time: ``add --until DATE`` / ``--for 7d``, then erased like a forget.

An add given an expiry marks its episodes (in their metadata, written once with them)
and every memory it adds or updates (``metadata.expires_at``, a ``memory.expiry``
ledger entry). Once the time has passed, the rows are hidden from every read at once by
the visibility rule (core/storage/visibility.py), which also says what is expired: only
what the expiring messages alone support. A memory that a later message with no expiry
states again (its evidence) does not expire, and keeps that evidence; a pinned memory
does not expire either (pinning says "keep this").

:func:`expire` then erases each chain whose every version is expired, with everything
derived from it, through ``forget`` (core/lifecycle/forget.py), keeping the episodes
surviving memories still cite, then each expired episode no surviving memory cites. The
ledger keeps a tombstone per erased id (``forget`` with reason ``expired``).

When it runs: the store keeps the earliest pending expiry in ``meta.expiry_next``;
every search and answer, ``review`` and ``consolidate`` read that one row and sweep
only when it has passed, and ``consolidate`` always sweeps (it also catches expiries
that arrived from a synced device, which do not move this device's ``expiry_next``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.storage import expiry_rows, meta
from veramem_desktop.core.storage.ids import iso, parse_iso
from veramem_desktop.core.storage.items import set_fields
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.text.time_values import parse_time
from veramem_desktop.core.vocabulary import ForgetReason

#: where an expiry is kept, in a memory's and an episode's metadata
EXPIRES_KEY = "expires_at"
#: meta key holding the earliest pending expiry (an ISO time), "" when none
META_NEXT = "expiry_next"

_DURATION = re.compile(r"^\s*(\d{1,5})\s*(m|min|h|d|w)\s*$", re.IGNORECASE)
_UNITS = {
    "m": timedelta(minutes=1),
    "min": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(weeks=1),
}
_DATE_ONLY = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\s*$")


def parse_duration(text: str) -> timedelta:
    """``30m``, ``12h``, ``7d``, ``2w`` as a timedelta."""
    m = _DURATION.match(text or "")
    if not m or int(m[1]) == 0:
        raise InvalidInputError(
            f"Could not read the duration {text!r}: use a number and a unit, e.g. 30m, 12h, 7d or 2w."
        )
    return int(m[1]) * _UNITS[m[2].lower()]


def resolve(until: str | datetime | None, duration: str | None, now: datetime) -> str | None:
    """The expiry time (canonical ISO) for ``until`` (a time, or a date: kept through that whole day)
    or ``duration`` from ``now``; None when neither is given. The time must be in the future."""
    if until is not None and duration is not None:
        raise InvalidInputError("Give an expiry time or a duration, not both.")
    if until is None and duration is None:
        return None
    if duration is not None:
        moment = now + parse_duration(duration)
    elif isinstance(until, datetime):
        moment = until
    else:
        text = str(until)
        moment = parse_time(text)
        if _DATE_ONLY.match(text):
            moment += timedelta(days=1)  # a date means "through that day"
    if moment <= now:
        raise InvalidInputError(f"The expiry {iso(moment)} is not in the future.")
    return iso(moment)


def mark(conn: Connection, memory_ids: list[str], expires_at: str, *, device: str) -> None:
    """Give each memory its expiry (a ledger entry each) and move the store's next expiry forward."""
    for mid in memory_ids:
        set_fields(
            conn,
            mid,
            device=device,
            op="memory.expiry",
            metadata={EXPIRES_KEY: expires_at},
            details={"expires_at": expires_at},
        )
    note(conn, expires_at)


def note(conn: Connection, expires_at: str) -> None:
    """Record that something expires at ``expires_at`` (keeps the earliest)."""
    current = meta.get(conn, META_NEXT)
    if not current or expires_at < current:
        meta.put(conn, META_NEXT, expires_at)


def due(store: Store, now: datetime) -> bool:
    """True when the earliest recorded expiry has passed: one meta row, cheap enough for every search."""
    value = store.get_meta(META_NEXT)
    return bool(value) and str(value) <= iso(now)


def _recompute_next(conn: Connection, now_text: str) -> None:
    meta.put(conn, META_NEXT, expiry_rows.earliest_after(conn, now_text) or "")


def refresh_next(store: Store, now: datetime) -> None:
    with store.atomic() as conn:
        _recompute_next(conn, iso(now))


@dataclass
class ExpiryReport:
    memories: list[str] = field(default_factory=list)  # the expired memories named (each with its versions)
    episodes: list[str] = field(default_factory=list)  # expired episodes erased on their own
    erased_memories: int = 0
    erased_episodes: int = 0
    stale_context: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Every field but ``stale_context``, in field order."""
        return {
            name: getattr(self, name)
            for name in ("memories", "episodes", "erased_memories", "erased_episodes")
        }


def expire(store: Store, now: datetime, *, device: str) -> ExpiryReport:
    """Erase what has expired by ``now`` (see the module docstring); returns what went."""
    now_text = iso(now)
    report = ExpiryReport()
    for _root, mid in expiry_rows.expired_chains(store, now_text):
        if not expiry_rows.memory_exists(store, mid):
            continue  # erased along with an earlier one
        done = forget_mod.forget(
            store, mid, device=device, reason=ForgetReason.EXPIRED, keep_cited_episodes=True
        )
        report.memories.append(mid)
        report.erased_memories += done.erased_memories
        report.erased_episodes += done.erased_episodes
        report.stale_context += done.stale_context
    for eid in expiry_rows.expired_uncited_episodes(store, now_text):
        done = forget_mod.forget(store, eid, device=device, reason=ForgetReason.EXPIRED)
        report.episodes.append(eid)
        report.erased_memories += done.erased_memories
        report.erased_episodes += done.erased_episodes
        report.stale_context += done.stale_context
    refresh_next(store, now)
    return report


def upcoming(
    store: Store, now: datetime, within: timedelta, *, user_id: str | None = None
) -> list[dict[str, Any]]:
    """Active memories that expire before ``now + within`` (soonest first), for ``review``."""
    rows = expiry_rows.active_expiring(store, iso(now + within), user_id)
    return [
        {
            "id": r.id,
            "kind": r.kind,
            "text": r.text,
            "expires_at": r.expires_at,
            "pinned": bool(r.pinned),
            "in": str(parse_iso(r.expires_at) - now).split(".")[0],
        }
        for r in rows
    ]
