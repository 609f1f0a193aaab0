"""The hash-chained ledger of every change.

Each entry holds ids and a keyed commitment, never content:
``hash = sha256(prev_hash || canonical_json(entry))``. Entries are appended in the
same transaction as the change they record. The commitment is an HMAC under a
per-item secret (``item_secrets``) that is erased with the item, so after a
``forget`` nobody can confirm a guess of what was erased, yet the chain verifies.

:func:`verify` binds the state to the chain as well: every memory row's content
(``items.content_of``) must match the commitment of its last ledger entry that commits
to content (recomputed under its secret), and every episode's content must match its
``sha256`` and the commitment of its ``episode.add`` entry. So an edit of a row with the
store's key, made without VeraMem, is named. A key holder who also rewrites the chain
from that entry on passes here; paired devices catch that, since each keeps the others'
signed ledger heads (sync/heads.py).

Each entry also names who acted and through which surface (``details["actor"]``, see
core/trust/actor.py): inside what the hash covers, so an edited actor breaks the chain.
Entries from before actors were recorded have none and verify as they always did.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from veramem_desktop.core.storage.canonical import GENESIS_HASH, chain_hash, commitment, text_sha256
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.trust.actor import Actor, describe


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


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    checked: int
    total: int
    first_bad_seq: int | None = None
    problem: str | None = None
    rows_checked: int = 0  # memories and episodes compared with their ledger entries
    bad_row: str | None = None  # the first row whose content does not match its ledger entry
    with_actor: int = 0  # entries checked that name who acted (older entries name none)
    bad_actor: str | None = None  # who the first bad entry says acted (as written, perhaps forged)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "checked": self.checked,
            "total": self.total,
            "first_bad_seq": self.first_bad_seq,
            "problem": self.problem,
            "rows_checked": self.rows_checked,
            "bad_row": self.bad_row,
            "with_actor": self.with_actor,
            "bad_actor": self.bad_actor,
        }


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

    The entry names ``actor``, else whoever acts on the connection (core/trust/actor.py); details that
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
    conn.execute(
        "INSERT INTO meta(key, value) VALUES ('ledger_head', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (f"{seq}:{digest}",),
    )
    return LedgerEntry(**{**entry.__dict__, "hash": digest})


#: how details are stored (``json.dumps(details, sort_keys=True)``), one encoder for every entry
_DETAILS_JSON = json.JSONEncoder(sort_keys=True)


class Appender:
    """Appends a run of entries inside one write transaction, for bulk work (sync apply).

    The chain is the one :func:`append` writes, entry for entry: the head is read once, the
    entries are kept here and inserted with one ``executemany`` by :meth:`flush`, and
    ``meta.ledger_head`` is written once per flush. Per-item secrets are read for many
    items at once (:meth:`prefetch_secrets`) and new ones are inserted at flush too.

    Flush before anything else in the transaction reads or appends to the ledger, and
    before the transaction commits; the caller owns that (nothing flushes on its own).
    """

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        last = conn.execute("SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
        self.seq, self.head = (0, GENESIS_HASH) if last is None else (int(last[0]), str(last[1]))
        self._rows: list[tuple[Any, ...]] = []
        self._secrets: dict[str, bytes] = {}
        self._absent: set[str] = set()  # read and found without a secret
        self._new_secrets: list[tuple[str, bytes]] = []

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
                found = os.urandom(32)
                self._new_secrets.append((item_id, found))
            self._secrets[item_id] = found
        return found

    def commit_to(self, item_id: str, content: Any) -> str:
        return commitment(self.secret(item_id), content)

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
        )
        entry = LedgerEntry(
            seq=seq,
            ts=ts,
            device=device,
            op=op,
            target_kind=target_kind,
            target_id=target_id,
            commitment=commitment_hex,
            details=details,
            prev_hash=self.head,
            hash=digest,
        )
        self._rows.append(
            (
                seq,
                ts,
                device,
                op,
                target_kind,
                target_id,
                commitment_hex,
                _DETAILS_JSON.encode(details),
                self.head,
                digest,
            )
        )
        self.seq, self.head = seq, digest
        return entry

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
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES ('ledger_head', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (f"{self.seq}:{self.head}",),
        )


def _row_to_entry(row: Any) -> LedgerEntry:
    try:
        details = json.loads(row[7])
    except (TypeError, ValueError):
        details = {"__unparseable__": str(row[7])}
    return LedgerEntry(
        seq=int(row[0]),
        ts=row[1],
        device=row[2],
        op=row[3],
        target_kind=row[4],
        target_id=row[5],
        commitment=row[6],
        details=details,
        prev_hash=row[8],
        hash=row[9],
    )


_COLUMNS = "seq, ts, device, op, target_kind, target_id, commitment, details, prev_hash, hash"


def entries(store: Store, *, target_id: str | None = None, limit: int | None = None) -> list[LedgerEntry]:
    sql = f"SELECT {_COLUMNS} FROM ledger"
    params: list[Any] = []
    if target_id is not None:
        sql += " WHERE target_id = ? OR details LIKE ?"
        params += [target_id, f'%"{target_id}"%']
    sql += " ORDER BY seq"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [_row_to_entry(r) for r in store.query(sql, params)]


def _iter_rows(store: Store, batch: int = 2000) -> Iterator[LedgerEntry]:
    after = -1
    while True:
        rows = store.query(
            f"SELECT {_COLUMNS} FROM ledger WHERE seq > ? ORDER BY seq LIMIT ?", (after, batch)
        )
        if not rows:
            return
        for row in rows:
            yield _row_to_entry(row)
        after = int(rows[-1][0])


def verify(store: Store, progress: Callable[[int, int], None] | None = None) -> VerifyReport:
    """Recompute the chain, then compare every memory and episode with its last ledger entry;
    report the first entry (or row) that does not fit."""
    report = verify_chain(store, progress)
    if not report.ok:
        return report
    rows, bad = verify_state(store)
    if bad is not None:
        return VerifyReport(
            False, report.checked, report.total, bad.seq, bad.problem, rows, bad.row, report.with_actor
        )
    return VerifyReport(True, report.checked, report.total, rows_checked=rows, with_actor=report.with_actor)


def verify_chain(store: Store, progress: Callable[[int, int], None] | None = None) -> VerifyReport:
    """Recompute the chain; report the first entry that does not fit."""
    total = int(store.query_one("SELECT count(*) FROM ledger")[0])
    prev = GENESIS_HASH
    expected_seq = 1
    checked = with_actor = 0
    for entry in _iter_rows(store):
        who = entry.actor_text or None
        if entry.seq != expected_seq:
            return VerifyReport(
                False,
                checked,
                total,
                entry.seq,
                f"entry {expected_seq} is missing (found {entry.seq} next): an entry was deleted",
                with_actor=with_actor,
            )
        if entry.prev_hash != prev:
            return VerifyReport(
                False,
                checked,
                total,
                entry.seq,
                f"entry {entry.seq} does not follow entry {entry.seq - 1} (entries removed, reordered or replaced)",
                with_actor=with_actor,
                bad_actor=who,
            )
        if chain_hash(prev, entry.body()) != entry.hash:
            return VerifyReport(
                False,
                checked,
                total,
                entry.seq,
                f"entry {entry.seq} was altered after it was written",
                with_actor=with_actor,
                bad_actor=who,
            )
        with_actor += who is not None
        prev = entry.hash
        expected_seq += 1
        checked += 1
        if progress is not None and checked % 500 == 0:
            progress(checked, total)
    if progress is not None:
        progress(checked, total)
    head = store.get_meta("ledger_head")
    if head:
        head_seq, _, head_hash = head.partition(":")
        if int(head_seq) > checked:
            return VerifyReport(
                False,
                checked,
                total,
                checked + 1,
                f"the ledger ends at entry {checked} but entry {head_seq} was written: entries were cut off the end",
                with_actor=with_actor,
            )
    return VerifyReport(True, checked, total, with_actor=with_actor)


# --------------------------------------------------------------- state against the chain
#: memory entries whose commitment covers something else than the memory's content (an
#: evidence quote) where they are written; the same op applied from another device
#: (``origin`` in its details, see sync/replica.py) commits to the content
_NOT_CONTENT_OPS = ("memory.evidence",)
_STATE_PAGE = 2000


@dataclass(frozen=True)
class BadRow:
    row: str
    seq: int | None
    problem: str


def _last_content_entry(alias: str, kind: str) -> str:
    """SQL for the seq of the last ledger entry of row ``alias.id`` that commits to its content."""
    skip = ",".join(f"'{op}'" for op in _NOT_CONTENT_OPS)
    return (
        f"(SELECT max(seq) FROM ledger WHERE target_id = {alias}.id AND target_kind = '{kind}' AND op != 'forget' "
        f"AND (op NOT IN ({skip}) OR instr(details, '\"origin\":') > 0))"
    )


def verify_state(store: Store) -> tuple[int, BadRow | None]:  # noqa: C901
    """(rows checked, the first bad row or None): memories by id, then episodes by id, a page at a time."""
    from veramem_desktop.core.storage.items import MemoryItem, content_of  # items imports this module

    checked = 0
    after = ""
    while True:
        page = store.query(
            f"SELECT m.id, m.kind, m.text, m.authority, m.status, m.trust, m.value, s.secret, l.seq, l.commitment "
            f"FROM memory_items m LEFT JOIN item_secrets s ON s.item_id = m.id "
            f"LEFT JOIN ledger l ON l.seq = {_last_content_entry('m', 'memory')} "
            f"WHERE m.id > ? ORDER BY m.id LIMIT ?",
            (after, _STATE_PAGE),
        )
        for mid, kind, text, authority, status, trust, value, secret, seq, commit in page:
            checked += 1
            if seq is None:
                return checked, BadRow(
                    mid, None, f"memory {mid} has no ledger entry: it was written outside VeraMem"
                )
            item = MemoryItem(
                id=mid, kind=kind, text=text, authority=authority, status=status, trust=trust, value=value
            )
            if secret is None or commitment(bytes(secret), content_of(item)) != commit:
                return checked, BadRow(
                    mid,
                    int(seq),
                    f"memory {mid} does not match its last ledger entry {seq}: "
                    "its text, kind, authority, status, trust or value was changed outside VeraMem",
                )
        if len(page) < _STATE_PAGE:
            break
        after = page[-1][0]
    after = ""
    while True:
        page = store.query(
            f"SELECT e.id, e.content, e.sha256, e.role, s.secret, l.seq, l.commitment "
            f"FROM episodes e LEFT JOIN item_secrets s ON s.item_id = e.id "
            f"LEFT JOIN ledger l ON l.seq = {_last_content_entry('e', 'episode')} "
            f"WHERE e.id > ? ORDER BY e.id LIMIT ?",
            (after, _STATE_PAGE),
        )
        for eid, content, digest, role, secret, seq, commit in page:
            checked += 1
            if seq is None:
                return checked, BadRow(
                    eid, None, f"episode {eid} has no ledger entry: it was written outside VeraMem"
                )
            if text_sha256(content) != digest:
                return checked, BadRow(
                    eid,
                    int(seq),
                    f"episode {eid} does not match its sha256: its content was changed outside VeraMem",
                )
            if secret is None or commitment(bytes(secret), {"sha256": digest, "role": role}) != commit:
                return checked, BadRow(
                    eid,
                    int(seq),
                    f"episode {eid} does not match its ledger entry {seq}: its "
                    "hash or role was changed outside VeraMem",
                )
        if len(page) < _STATE_PAGE:
            break
        after = page[-1][0]
    return checked, None


# --------------------------------------------------------------- incremental check (status)
#: meta key of the last entry a chain check reached: "seq:hash"
CHECKPOINT_META = "ledger_verified"


def verify_from_checkpoint(store: Store) -> VerifyReport:  # noqa: C901
    """Check the chain from the last verified entry on, and move the checkpoint forward.

    Cheap enough for every ``status``: the checkpointed entry must still carry the hash
    it had, then only the entries after it are recomputed. It does not re-read what was
    verified before; ``verify`` (the full check) does. ``checked`` is the number of
    entries the chain now covers (those verified earlier and those recomputed now).
    """
    total = int(store.query_one("SELECT count(*) FROM ledger")[0])
    text = store.get_meta(CHECKPOINT_META) or ""
    seq_text, _, start_hash = text.partition(":")
    start_seq = int(seq_text) if seq_text.isdigit() else 0
    prev = GENESIS_HASH
    if start_seq:
        row = store.query_one("SELECT hash FROM ledger WHERE seq = ?", (start_seq,))
        if row is None or str(row[0]) != start_hash:
            return VerifyReport(
                False,
                0,
                total,
                start_seq,
                f"entry {start_seq}, verified earlier, was changed or removed since",
            )
        prev = start_hash
    expected_seq = start_seq + 1
    after, batch = start_seq, 2000
    while True:
        rows = store.query(
            f"SELECT {_COLUMNS} FROM ledger WHERE seq > ? ORDER BY seq LIMIT ?", (after, batch)
        )
        for row in rows:
            entry = _row_to_entry(row)
            if entry.seq != expected_seq:
                return VerifyReport(
                    False,
                    expected_seq - 1,
                    total,
                    entry.seq,
                    f"entry {expected_seq} is missing (found {entry.seq} next): an entry was deleted",
                )
            if entry.prev_hash != prev or chain_hash(prev, entry.body()) != entry.hash:
                return VerifyReport(
                    False,
                    expected_seq - 1,
                    total,
                    entry.seq,
                    f"entry {entry.seq} was altered, removed or reordered after it was written",
                )
            prev, expected_seq = entry.hash, expected_seq + 1
        if len(rows) < batch:
            break
        after = int(rows[-1][0])
    last = expected_seq - 1
    if total != last:
        return VerifyReport(
            False, last, total, None, f"the ledger holds {total} entries but its chain numbers {last}"
        )
    head = store.get_meta("ledger_head")
    if head and int(head.partition(":")[0] or 0) > last:
        return VerifyReport(
            False,
            last,
            total,
            last + 1,
            f"the ledger ends at entry {last} but entry {head.partition(':')[0]} was written: "
            "entries were cut off the end",
        )
    if last > start_seq:
        store.set_meta(CHECKPOINT_META, f"{last}:{prev}")
    return VerifyReport(True, last, total)
