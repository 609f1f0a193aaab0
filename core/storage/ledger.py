"""The hash-chained ledger of every change.

Each entry holds ids and a keyed commitment, never content:
``hash = sha256(prev_hash || canonical_json(entry))``. Entries are appended in the
same transaction as the change they record. The commitment is an HMAC under a
per-item secret (``item_secrets``) that is erased with the item, so after a
``forget`` nobody can confirm a guess of what was erased, yet the chain verifies.

core/storage/ledger_verify.py recomputes the chain and compares the stored rows with it.

Each entry also names who acted and through which surface (``details["actor"]``, see
core/storage/actor.py): inside what the hash covers, so an edited actor breaks the chain.
Entries from before actors were recorded have none and verify as they always did.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from veramem_desktop.core.storage import meta
from veramem_desktop.core.storage.actor import Actor, describe
from veramem_desktop.core.storage.canonical import (
    GENESIS_HASH,
    Encoder,
    canonical_json,
    chain_hash,
    commitment,
    details_text,
)
from veramem_desktop.core.storage.columns import select_list
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Connection, Store


@dataclass(frozen=True)
class LedgerEntry:
    seq: int
    ts: str
    device: str
    op: str
    target_kind: str
    target_id: str
    commitment: str
    details: dict[str, Any]
    prev_hash: str
    hash: str

    def body(self) -> dict[str, Any]:
        """The part of the entry its hash covers."""
        return {
            "seq": self.seq,
            "ts": self.ts,
            "device": self.device,
            "op": self.op,
            "kind": self.target_kind,
            "target": self.target_id,
            "commit": self.commitment,
            "details": self.details,
        }

    @property
    def actor(self) -> dict[str, Any] | None:
        """Who acted and through which surface, as recorded (None in entries older than actors)."""
        found = self.details.get("actor")
        return found if isinstance(found, dict) else None

    @property
    def actor_text(self) -> str:
        return describe(self.actor)

    def to_dict(self) -> dict[str, Any]:
        actor = self.actor or {}
        return {
            **self.body(),
            "prev_hash": self.prev_hash,
            "hash": self.hash,
            "actor": actor.get("id"),
            "actor_kind": actor.get("kind"),
            "channel": actor.get("channel"),
            "relayed": actor.get("relayed"),
        }


class LedgerRow(NamedTuple):
    """A ledger row as stored (``details`` as its JSON text)."""

    seq: int
    ts: str
    device: str
    op: str
    target_kind: str
    target_id: str
    commitment: str
    details: str
    prev_hash: str
    hash: str


#: the ledger's columns, in :class:`LedgerRow`'s order
LEDGER_COLUMNS = select_list(LedgerRow._fields)


def item_secret(conn: Connection, item_id: str) -> bytes:
    """The per-item secret for ``item_id``, created on first use."""
    row = conn.execute("SELECT secret FROM item_secrets WHERE item_id = ?", (item_id,)).fetchone()
    if row is not None:
        return bytes(row[0])
    secret = os.urandom(32)
    conn.execute("INSERT INTO item_secrets(item_id, secret) VALUES (?, ?)", (item_id, secret))
    return secret


def commit_to(conn: Connection, item_id: str, content: Any) -> str:
    return commitment(item_secret(conn, item_id), content)


def erase_secret(conn: Connection, item_id: str) -> None:
    conn.execute("DELETE FROM item_secrets WHERE item_id = ?", (item_id,))


def append(
    conn: Connection,
    *,
    op: str,
    target_kind: str,
    target_id: str,
    commitment_hex: str,
    device: str,
    details: dict[str, Any] | None = None,
    ts: str | None = None,
    actor: Actor | None = None,
    speaker_role: str | None = None,
) -> LedgerEntry:
    """Append one entry. Call inside the write transaction of the change it records.

    The entry names ``actor``, else whoever acts on the connection (core/storage/actor.py); details that
    already hold an actor (an entry replicated from another device) keep theirs. ``speaker_role``
    is the role of a message being stored, so a user message an agent wrote is marked as relayed.
    """
    details = dict(details or {})
    if "actor" not in details:
        acting = getattr(conn, "acting", None)
        who = actor if actor is not None else (acting.current() if acting is not None else None)
        if who is not None:
            details["actor"] = who.record(speaker_role=speaker_role)
    last = conn.execute("SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
    seq, prev = (1, GENESIS_HASH) if last is None else (int(last[0]) + 1, str(last[1]))
    entry = LedgerEntry(
        seq=seq,
        ts=ts or now_iso(),
        device=device,
        op=op,
        target_kind=target_kind,
        target_id=target_id,
        commitment=commitment_hex,
        details=details,
        prev_hash=prev,
        hash="",
    )
    digest = chain_hash(prev, entry.body())
    conn.execute(
        "INSERT INTO ledger(seq, ts, device, op, target_kind, target_id, commitment, details, prev_hash, hash)"
        " VALUES (?,?,?,?,?,?,?,?,?,?)",
        (
            seq,
            entry.ts,
            device,
            op,
            target_kind,
            target_id,
            commitment_hex,
            json.dumps(entry.details, sort_keys=True),
            prev,
            digest,
        ),
    )
    meta.put(conn, "ledger_head", f"{seq}:{digest}")
    return LedgerEntry(**{**entry.__dict__, "hash": digest})


#: new item secrets an Appender draws from os.urandom in one call
SECRETS_PER_DRAW = 128


class Appender:
    """Appends a run of entries inside one write transaction, for bulk work (sync apply).

    The chain is the one :func:`append` writes, entry for entry: the head is read once, the
    entries are kept here and inserted with one ``executemany`` by :meth:`flush`, and
    ``meta.ledger_head`` is written once per flush. Per-item secrets are read for many
    items at once (:meth:`prefetch_secrets`) and new ones are inserted at flush too.

    Flush before anything else in the transaction reads or appends to the ledger, and
    before the transaction commits; the caller owns that (nothing flushes on its own).
    ``encode`` writes the canonical JSON that commitments and chain hashes cover: canonical_json's
    bytes, by the caller's faster way if it has one for the values it appends.
    """

    def __init__(self, conn: Connection, *, encode: Encoder = canonical_json) -> None:
        self.conn = conn
        self._encode = encode
        last = conn.execute("SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
        self.seq, self.head = (0, GENESIS_HASH) if last is None else (int(last[0]), str(last[1]))
        self._rows: list[LedgerRow] = []
        self._secrets: dict[str, bytes] = {}
        self._absent: set[str] = set()  # read and found without a secret
        self._new_secrets: list[tuple[str, bytes]] = []
        self._random, self._drawn = (
            b"",
            0,
        )  # random bytes for new secrets, and how many are used (_fresh_secret)

    def prefetch_secrets(self, item_ids: Iterable[str]) -> None:
        """Read the secrets of many items at once (those without one get theirs on first use)."""
        wanted = sorted({i for i in item_ids if i not in self._secrets})
        self._absent.update(wanted)
        for chunk in range(0, len(wanted), 500):
            part = wanted[chunk : chunk + 500]
            for item_id, secret in self.conn.execute(
                f"SELECT item_id, secret FROM item_secrets WHERE item_id IN ({','.join('?' * len(part))})",
                part,
            ):
                self._secrets[str(item_id)] = bytes(secret)
                self._absent.discard(str(item_id))

    def secret(self, item_id: str) -> bytes:
        """The item's secret, created on first use (inserted at :meth:`flush`)."""
        found = self._secrets.get(item_id)
        if found is None:
            row = (
                None
                if item_id in self._absent
                else self.conn.execute(
                    "SELECT secret FROM item_secrets WHERE item_id = ?", (item_id,)
                ).fetchone()
            )
            if row is not None:
                found = bytes(row[0])
            else:
                found = self._fresh_secret()
                self._new_secrets.append((item_id, found))
            self._secrets[item_id] = found
        return found

    def _fresh_secret(self) -> bytes:
        """32 bytes from the OS's random source, drawn SECRETS_PER_DRAW secrets at a time (one
        system call for many new items instead of one each; every slice is as random as its own draw)."""
        if self._drawn >= len(self._random):
            self._random, self._drawn = os.urandom(32 * SECRETS_PER_DRAW), 0
        self._drawn += 32
        return self._random[self._drawn - 32 : self._drawn]

    def commit_to(self, item_id: str, content: Any) -> str:
        return commitment(self.secret(item_id), content, self._encode)

    def append(
        self,
        *,
        op: str,
        target_kind: str,
        target_id: str,
        commitment_hex: str,
        device: str,
        details: dict[str, Any] | None = None,
        ts: str | None = None,
    ) -> LedgerEntry:
        """As :func:`append` (the actor rules included), kept until :meth:`flush`."""
        prev = self.head
        kept = self.add(
            op=op,
            target_kind=target_kind,
            target_id=target_id,
            commitment_hex=commitment_hex,
            device=device,
            details=details,
            ts=ts,
        )
        row = self._rows[-1]
        return LedgerEntry(
            seq=row.seq,
            ts=row.ts,
            device=device,
            op=op,
            target_kind=target_kind,
            target_id=target_id,
            commitment=commitment_hex,
            details=kept,
            prev_hash=prev,
            hash=row.hash,
        )

    def add(
        self,
        *,
        op: str,
        target_kind: str,
        target_id: str,
        commitment_hex: str,
        device: str,
        details: dict[str, Any] | None = None,
        ts: str | None = None,
    ) -> dict[str, Any]:
        """:meth:`append` without building the entry it returns, for callers that append thousands and
        do not read them (sync apply); returns the details as kept (with the actor)."""
        details = dict(details or {})
        if "actor" not in details:
            acting = getattr(self.conn, "acting", None)
            who = acting.current() if acting is not None else None
            if who is not None:
                details["actor"] = who.record()
        seq, ts = self.seq + 1, ts or now_iso()
        digest = chain_hash(
            self.head,
            {
                "seq": seq,
                "ts": ts,
                "device": device,
                "op": op,
                "kind": target_kind,
                "target": target_id,
                "commit": commitment_hex,
                "details": details,
            },
            self._encode,
        )
        self._rows.append(
            LedgerRow(
                seq=seq,
                ts=ts,
                device=device,
                op=op,
                target_kind=target_kind,
                target_id=target_id,
                commitment=commitment_hex,
                details=details_text(details),
                prev_hash=self.head,
                hash=digest,
            )
        )
        self.seq, self.head = seq, digest
        return details

    def flush(self) -> None:
        if self._new_secrets:
            self.conn.executemany(
                "INSERT INTO item_secrets(item_id, secret) VALUES (?, ?)", self._new_secrets
            )
            self._new_secrets.clear()
        if not self._rows:
            return
        self.conn.executemany(
            "INSERT INTO ledger(seq, ts, device, op, target_kind, target_id, commitment, details, prev_hash, hash)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            self._rows,
        )
        self._rows.clear()
        meta.put(self.conn, "ledger_head", f"{self.seq}:{self.head}")


# --------------------------------------------------------------- reading entries


def row_to_entry(row: Sequence[Any], details: Any = None) -> LedgerEntry:
    """The entry a row of ``SELECT {LEDGER_COLUMNS}`` holds; ``details`` when the caller has already
    decoded them (core/storage/ledger_feed.py)."""
    r = LedgerRow._make(row)
    if details is None:
        try:
            details = json.loads(r.details)
        except (TypeError, ValueError):
            details = {"__unparseable__": str(r.details)}
    return LedgerEntry(**{**r._asdict(), "seq": int(r.seq), "details": details})


def entries(store: Store, *, target_id: str | None = None, limit: int | None = None) -> list[LedgerEntry]:
    sql = f"SELECT {LEDGER_COLUMNS} FROM ledger"
    params: list[Any] = []
    if target_id is not None:
        sql += " WHERE target_id = ? OR details LIKE ?"
        params += [target_id, f'%"{target_id}"%']
    sql += " ORDER BY seq"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [row_to_entry(r) for r in store.query(sql, params)]


def outcome_entries(store: Store) -> list[tuple[int, str, str | None, str | None]]:
    """``(seq, op, target id, details as JSON)`` of every outcome entry (``memory.outcome``,
    ``trace.feedback``), in ledger order: what feedback wrote, for the trajectories export."""
    return [
        (seq, op, target_id, details)
        for seq, op, target_id, details in store.query(
            "SELECT seq, op, target_id, details FROM ledger WHERE op IN ('memory.outcome', 'trace.feedback') "
            "ORDER BY seq"
        )
    ]
