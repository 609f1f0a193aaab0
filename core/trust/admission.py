"""The admission gate: what every write of content passes before it is stored.

Every path that brings messages or memories into the store asks here: ``add``
(services/writes.py), each import format (services/importer.py), the import of a memory export
(core/transfer/archive_admission.py), sync apply (sync/batch_rows.py, sync/replica.py) and a restore
(core/curation/reapply.py). The gate checks:

- **Forget marks.** Forgetting an episode keeps content-free marks of it (:func:`mark_forgotten`):
  HMAC-SHA256 digests, under the store's admission keys (core/storage/forget_marks.py), of what makes
  it *the same episode*: its import key (the source's own ids: an export's conversation and message),
  and its role, words and time together. An episode bringing either again is refused
  (:func:`screen`), whatever path or device brings it: a re-import, a memory export made before the
  forget, a device that imported the same file. A person typing the same words later is a new
  episode (a new time, no import key) and is stored. Marks travel with the forget's tombstone, under
  the key the synced devices share. Expiry erases without marks: the source may bring the message
  again (expiry is a schedule, not a refusal).
- **Rejected values, and near misses of them.** What holds a rejected value is withheld as it lands,
  and a text one or two edits away from a rejected value's skeleton is held for a person to decide:
  every path that stores a text calls core/storage/rejections.withhold_if_rejected (near misses:
  core/storage/near_misses.py), and a memory taken from a held message is held with it.
- **Authority and trust** are never taken from a file (:func:`file_trust`, :func:`attributed_text`).
- **Expiry.** An item whose expiry time has passed is not admitted as live (:func:`expired`).

The override (``include_forgotten``) is a person's act only, and it is ledgered by the caller's path
(:func:`ledger_override`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from veramem_desktop.core.errors import RefusedError
from veramem_desktop.core.storage import access, forget_marks, ledger, meta
from veramem_desktop.core.storage.actor import Actor
from veramem_desktop.core.storage.episodes import EpisodeInput
from veramem_desktop.core.storage.ids import iso, now_iso, parse_iso
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.text.normalize import normalise, skeleton
from veramem_desktop.core.vocabulary import ForgetReason, Trust

#: the metadata key an imported message keeps its import key under (services/importer.py)
IMPORT_KEY = "import_key"
#: trust and authority an imported memory may keep from its file: none above a candidate's
FILE_TRUST = Trust.CANDIDATE


@dataclass(frozen=True)
class Incoming:
    """What identifies one message at the gate (an episode to store, from any path)."""

    role: str
    content: str
    user_id: str | None
    event_time: str | None = None  # None: the message is new now (a typed add), so no time identifies it
    import_key: str | None = None


@dataclass
class Screened:
    """The gate's answer for a list of messages: which to store, and which were forgotten (and when)."""

    admitted: list[int] = field(default_factory=list)
    forgotten: dict[int, str] = field(default_factory=dict)  # index -> when it was forgotten (ISO)
    overridden: list[int] = field(default_factory=list)

    def notice(self) -> str | None:
        """One line for the result: how many were skipped and when they were forgotten."""
        return forgotten_notice(list(self.forgotten.values()))


def forgotten_notice(dates: Sequence[str]) -> str | None:
    """ "2 skipped: you forgot them on 2026-12-04" (the days, earliest first), or None for none."""
    if not dates:
        return None
    days = sorted({d[:10] for d in dates})
    them = "it" if len(dates) == 1 else "them"
    return f"{len(dates)} skipped: you forgot {them} on {', '.join(days)}"


def _parts(item: Incoming) -> list[str]:
    """The texts a message is known by: its import key, and its role, words and time together (the
    words as written, folded, and as their confusable skeleton: look-alike letters and accents fall away)."""
    who = item.user_id or ""
    parts = []
    if item.import_key:
        parts.append(f"import\x1f{who}\x1f{item.import_key}")
    if item.event_time:
        when = _canonical_time(item.event_time)
        if when is not None:
            parts.append(f"turn\x1f{who}\x1f{item.role}\x1f{when}\x1f{normalise(item.content)}")
            # the same words in look-alike letters or with accents added are the same message
            parts.append(f"shape\x1f{who}\x1f{item.role}\x1f{when}\x1f{skeleton(item.content)}")
    return parts


def _canonical_time(value: str) -> str | None:
    """A stored time to the second, in UTC (stored times and a file's may differ in their fraction)."""
    try:
        when: datetime = parse_iso(value)
    except (ValueError, TypeError, OverflowError):
        return None
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _digests(keys: Mapping[str, bytes], item: Incoming) -> list[tuple[str, str]]:
    return [
        (key_id, hmac.new(secret, part.encode("utf-8"), hashlib.sha256).hexdigest())
        for part in _parts(item)
        for key_id, secret in sorted(keys.items())
    ]


def incoming_of_row(row: Mapping[str, Any]) -> Incoming:
    """The gate's view of a stored episode row (a dict of core/storage/episode_rows.EPISODE_FIELDS),
    as a memory export, a sync payload or a backup carries it."""
    meta = row.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta or "{}")
        except ValueError:
            meta = {}
    key = meta.get(IMPORT_KEY) if isinstance(meta, dict) else None
    return Incoming(
        role=str(row.get("role") or ""),
        content=str(row.get("content") or ""),
        user_id=row.get("user_id"),
        event_time=row.get("event_time"),
        import_key=key if isinstance(key, str) else None,
    )


def incoming_of_input(item: EpisodeInput, user_id: str | None) -> Incoming:
    """The gate's view of a message an add or an import is about to store."""
    when = item.time
    key = item.metadata.get(IMPORT_KEY) if isinstance(item.metadata, dict) else None
    return Incoming(
        role=item.role,
        content=item.content,
        user_id=user_id,
        event_time=iso(when) if isinstance(when, datetime) else (when or None),
        import_key=key if isinstance(key, str) else None,
    )


def require_writer(conn: Connection, user_id: str | None, actor: Actor | None) -> None:
    """RefusedError when an agent writes for a user who has not granted it. The grant half of the read
    rule (core/storage/access.py): an agent that may read nothing of a user writes nothing for them either,
    since a write compares the new words with the user's memories (its result would name them) and may
    supersede them. The person and system jobs are not agents."""
    if actor is None or actor.kind != "agent":
        return
    if not access.may_act_for(conn, access.Caller(user_id or "", actor.id), now_iso()):
        raise RefusedError(f"Agent {actor.id!r} has no grant from {user_id!r}, so it may not write for them.")


def screen(conn: Connection, items: Sequence[Incoming], *, include_forgotten: bool = False) -> Screened:
    """Which of ``items`` may be stored: those that are no forgotten episode come back. Reads only (a
    store that never forgot anything answers from one query).

    ``include_forgotten`` (a person's deliberate act, never an agent's) admits them all and lists those
    it let through in ``overridden``, for the caller to ledger (:func:`ledger_override`)."""
    out = Screened()
    if not items or not forget_marks.any_marks(conn):
        out.admitted = list(range(len(items)))
        return out
    keys = forget_marks.keys(conn)
    per_item = [_digests(keys, item) for item in items]
    marked = forget_marks.found(conn, [d for ds in per_item for d in ds])
    for i, digests in enumerate(per_item):
        hits = [marked[d] for d in digests if d in marked]
        if not hits:
            out.admitted.append(i)
        elif include_forgotten:
            out.admitted.append(i)
            out.overridden.append(i)
        else:
            out.forgotten[i] = min(hits)
    return out


def identities(conn: Connection, ids: Sequence[str] | None = None) -> list[tuple[str, Incoming]]:
    """(id, what identifies it) of the stored episodes ``ids`` (None: every episode)."""
    return [
        (
            r.id,
            incoming_of_row(
                {
                    "role": r.role,
                    "content": r.content,
                    "user_id": r.user_id,
                    "event_time": r.event_time,
                    "metadata": r.metadata,
                }
            ),
        )
        for r in forget_marks.episode_identities(conn, ids)
    ]


def mark_episodes(conn: Connection, episode_ids: Sequence[str], reason: str | None = None) -> None:
    """Keep the marks of stored episodes a forget is about to erase (inside its transaction), so the
    gate refuses the same episode when any path or device brings it again. Expiry (``reason``
    ``expired``) keeps none: it is a schedule, not a refusal, and the source may bring the message again."""
    if episode_ids and reason != ForgetReason.EXPIRED:
        mark_forgotten(conn, identities(conn, episode_ids), when=now_iso())


def mark_forgotten(conn: Connection, episodes: Iterable[tuple[str, Incoming]], *, when: str) -> None:
    """Keep the marks of episodes about to be erased by a forget (inside its transaction): each
    (episode id, what identifies it), under every admission key the store holds."""
    forget_marks.ensure_local(conn)
    _ensure_shared_key(conn)
    keys = forget_marks.keys(conn)
    for episode_id, item in episodes:
        forget_marks.add(conn, episode_id, [(k, d, when) for k, d in _digests(keys, item)])


def _ensure_shared_key(conn: Connection) -> None:
    """Make the store's shared key at its first forget, with a ledger entry (``admission.key``) that sync
    carries, sealed, to the other devices of the account (sync/replica.py), so a mark made here is
    recognised there. A device with no sync keeps it to itself."""
    if forget_marks.shared_key(conn) is not None:
        return
    key_id = forget_marks.new_shared_key(conn)
    ledger.append(
        conn,
        op=KEY_OP,
        target_kind="admission",
        target_id=key_id,
        commitment_hex=ledger.commit_to(conn, key_id, {"admission_key": key_id}),
        device=meta.get(conn, "device_id") or "dev_local",  # as Memory.device_id names this device
    )


#: the ledger op of a new shared admission key
KEY_OP = "admission.key"


def shared_key_payload(conn: Connection, key_id: str) -> list[str] | None:
    """[key id, secret in hex] of a shared key, as a sync event carries it (sealed), or None."""
    for kid, secret in forget_marks.all_keys(conn):
        if kid == key_id and kid.startswith(forget_marks.SHARED_PREFIX):
            return [kid, secret.hex()]
    return None


def receive_shared_key(conn: Connection, value: object) -> bool:
    """Keep a shared key another device sent ([key id, secret hex]); True when it is new here."""
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        return False
    key_id, secret = value
    if not key_id.startswith(forget_marks.SHARED_PREFIX) or len(key_id) > 64 or len(secret) != 64:
        return False
    try:
        raw = bytes.fromhex(secret)
    except ValueError:
        return False
    return forget_marks.add_key(conn, key_id, raw)


def shared_marks(conn: Connection, target_id: str) -> list[forget_marks.Mark]:
    """The marks of a forgotten id that another device can read: those under a shared key."""
    return [m for m in forget_marks.of_target(conn, target_id) if m[0] != forget_marks.LOCAL_KEY]


def receive_marks(conn: Connection, target_id: str, marks: object) -> int:
    """Keep the marks a synced tombstone carries (a list of [key id, digest, date]); what is not of that
    shape is passed over (an older device's tombstone carries none). Returns how many were read."""
    if not isinstance(marks, list):
        return 0
    good = [
        (str(m[0]), str(m[1]), str(m[2]))
        for m in marks[:64]
        if isinstance(m, list)
        and len(m) == 3
        and all(isinstance(x, str) and 0 < len(x) <= 128 for x in m)
        and m[0] != forget_marks.LOCAL_KEY
    ]
    forget_marks.add(conn, target_id, good)
    return len(good)


def overridden(conn: Connection, episode_id: str) -> bool:
    """Whether a person let this episode in although it had been forgotten (:func:`ledger_override`)."""
    return forget_marks.has_op(conn, episode_id, OVERRIDE_OP)


#: the ledger op of a person letting a forgotten episode in again
OVERRIDE_OP = "admission.override"


def ledger_override(conn: Connection, episode_ids: Sequence[str], *, device: str) -> None:
    """Record that a person let forgotten episodes back in (one entry per episode, ids only), under a
    secret of the entry's own (``override:<episode id>``) so the episode's content commitment stays its
    last."""
    for episode_id in episode_ids:
        ledger.append(
            conn,
            op=OVERRIDE_OP,
            target_kind="admission",  # not "episode": the episode's own entry commits to its content
            target_id=episode_id,
            commitment_hex=ledger.commit_to(conn, f"override:{episode_id}", {"override": episode_id}),
            device=device,
            details={"reason": "include_forgotten"},
        )


# --- ids forgotten, expiry, and what a file may not say about a memory ------------------------------


def tombstoned(conn: Connection, ids: Sequence[str]) -> dict[str, str]:
    """Of ``ids``, those this store's ledger holds a forget tombstone for, each with its date: an export
    or a backup made before the forget brings them back under the same id."""
    if not ids:
        return {}
    return forget_marks.forgotten_at(conn, ids)


def expired(metadata: object, now: str) -> bool:
    """Whether an item's expiry time (``expires_at`` in its metadata, core/lifecycle/expiry.py) has passed:
    such an item is not admitted as live (the visibility rule hides it from then on, and the sweep
    erases it)."""
    if not isinstance(metadata, dict):
        return False
    until = metadata.get(EXPIRES_KEY)
    return isinstance(until, str) and bool(until) and until <= now


#: the metadata key of an item's expiry time (core/lifecycle/expiry.py, which imports forget and so this)
EXPIRES_KEY = "expires_at"


def file_trust(conn: Connection, memory_id: str, trust: str) -> str:
    """The trust an imported memory keeps: ``rejected`` as the file says (a rejection only lowers),
    ``verified`` only when this store's own ledger records a person approving that memory, else
    ``candidate``. Trust is never taken from a file."""
    if trust in (FILE_TRUST, Trust.REJECTED):
        return trust
    if trust == Trust.VERIFIED and forget_marks.has_op(conn, memory_id, "memory.approve"):
        return trust
    return FILE_TRUST


def attributed_text(text: str, role: str, name: str | None) -> str:
    """A lower-authority memory's wording names its source ("According to tool search: …"), whatever
    the file wrote: a tool's claim edited into the user's voice gets its source back."""
    if role in ("user", "system"):
        return text
    who = {"assistant": "the assistant", "tool": "tool", "document": "document"}.get(role, "a shared source")
    if name and role in ("assistant", "tool", "document"):
        who = f"{who} {name}"
    return text if text.lower().startswith("according to") else f"According to {who}: {text}"
