"""Landing one batch of events: sync's own state of the rows it touches, and the engine rows through core.

Applying event by event read the same rows again and again (a memory row five times,
a tombstone lookup per id, the ledger head per entry). :class:`BatchRows` reads what a
batch names up front, one query per table, and then answers from memory, updating its
copies as the batch writes:

- the engine's rows (episodes, memories, evidence, derivations and their indexes) through
  core/storage/landing.Landing, which writes them through the repositories that own them;
- the ledger entries this device writes for what changed, through core/storage/ledger.Appender
  (the same hash chain, one entry per change, item secrets read for the whole batch);
- grants through core/storage/grants.py;
- sync's own tables, which this module holds the SQL of: ``sync_tombstones`` (what was forgotten),
  ``sync_rows`` (per-field clocks) and ``sync_counters`` (per-device counter shares).

Clocks, counter shares and ledger entries are written at :meth:`finish`, one ``executemany`` per
table. An id the prefetch did not name is read with a query when asked for, so a missed id
costs time, never a wrong answer. The merge rules are those of sync/rows.py; this module only
decides when to read and write.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

from veramem_desktop.core.lifecycle.forget import rejection_target
from veramem_desktop.core.storage import forget_marks, grants, ledger
from veramem_desktop.core.storage.canonical import commitment
from veramem_desktop.core.storage.id_sets import IN_IDS, ids_param
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.landing import Landing, Vector
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.trust import admission
from veramem_desktop.sync import rows
from veramem_desktop.sync.canonical_fast import canonical_plain


class BatchRows:
    """The rows one batch reads and writes, inside the caller's transaction; call :meth:`finish` before
    the transaction commits (also when it stops early but commits what was applied)."""

    def __init__(self, conn: Connection, events: Sequence[Any], *, device: str = "", me: str = "") -> None:
        self.conn = conn
        #: this device's ledger name and sync id (the admission gate's refusals are recorded under them)
        self.device = device
        self.me = me
        self._marks: bool | None = None  # whether anything was ever forgotten here (read once)
        #: when this batch is applied: the time of every ledger entry and tombstone it writes (one
        #: transaction, committed at once; reading the clock per entry cost about 2% of an apply)
        self.now = now_iso()
        self.ledger = ledger.Appender(conn, encode=canonical_plain)  # values of the batch and of rows
        self.rows = Landing(conn)
        self._tombstones: set[str] = set()
        self._tomb_known: set[str] = set()
        self._states: dict[str, dict[str, list[Any]]] = {}
        self._shares: dict[str, dict[str, list[Any]]] = {}
        self._dirty_states: set[str] = set()
        self._dirty_shares: set[tuple[str, str]] = set()
        self._prefetch(_Named.of(events))

    # ------------------------------------------------------------------ reading
    def _prefetch(self, named: _Named) -> None:
        q = self.conn.execute
        every = named.memories | named.episodes | named.others
        self._tomb_known |= every
        self._tombstones |= {
            target_id
            for (target_id,) in q(
                f"SELECT target_id FROM sync_tombstones WHERE target_id {IN_IDS}", (ids_param(every),)
            )
        }
        if named.memories:
            mids = ids_param(named.memories)
            self._states = {m: {} for m in named.memories}
            self._shares = {m: {} for m in named.memories}
            for row_id, state in q(f"SELECT row_id, state FROM sync_rows WHERE row_id {IN_IDS}", (mids,)):
                self._states[row_id] = dict(json.loads(state))
            for mid, device, *share in q(
                f"SELECT memory_id, device_id, uses, successes, failures, hlc FROM sync_counters WHERE memory_id {IN_IDS}",
                (mids,),
            ):
                self._shares[mid][device] = share
        self.rows.prefetch(named.memories, named.episodes)
        self.ledger.prefetch_secrets(named.memories | named.episodes | named.others)

    def tombstoned(self, ids: Iterable[str | None]) -> set[str]:
        wanted = {i for i in ids if i}
        unknown = wanted - self._tomb_known
        if unknown:
            self._tombstones |= {
                target_id
                for (target_id,) in self.conn.execute(
                    f"SELECT target_id FROM sync_tombstones WHERE target_id {IN_IDS}", (ids_param(unknown),)
                )
            }
            self._tomb_known |= unknown
        return wanted & self._tombstones

    def memory(self, memory_id: str) -> dict[str, Any] | None:
        """The memory row as it is now in this transaction (a dict in column order; do not change it)."""
        return self.rows.memory(memory_id)

    def episode(self, episode_id: str) -> tuple[str, str] | None:
        """(sha256, role) of the episode if it is here."""
        return self.rows.episode(episode_id)

    def episode_in_ledger(self, episode_id: str) -> bool:
        return self.rows.episode_in_ledger(episode_id)

    def _state(self, row_id: str) -> dict[str, list[Any]]:
        if row_id not in self._states:
            self._states[row_id] = rows.load_state(self.conn, row_id)
        return self._states[row_id]

    def _shares_of(self, memory_id: str) -> dict[str, list[Any]]:
        if memory_id not in self._shares:
            self._shares[memory_id] = rows.load_shares(self.conn, memory_id)
        return self._shares[memory_id]

    # ------------------------------------------------------------------ tombstones
    def add_tombstone(self, target: str, kind: str, origin: str, stamp: str, created_at: str) -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO sync_tombstones(target_id, kind, origin, hlc, created_at) VALUES (?,?,?,?,?)",
            (target, kind, origin, stamp, created_at),
        )
        self._tombstones.add(target)
        self._tomb_known.add(target)

    def refuse_if_forgotten(self, row: dict[str, Any], stamp: str) -> bool:
        """The admission gate for an episode another device sends: True (and the episode tombstoned here,
        with a forget entry that travels back) when it is one forgotten here under another id, e.g. a
        device that imported the same file again (core/trust/admission.py). Its commitment is made under
        a secret that is never kept, as a forget's is."""
        if self._marks is None:
            self._marks = forget_marks.any_marks(self.conn)
        if not self._marks or row["id"] in self._tombstones:
            return row["id"] in self._tombstones
        if self.rows.episode(row["id"]) is not None:
            return False  # already here: this device's own gate let it in (a person's override among them)
        if not admission.screen(self.conn, [admission.incoming_of_row(row)]).forgotten:
            return False
        target = str(row["id"])
        self.add_tombstone(target, "episode", self.me, stamp, self.now)
        self.ledger.add(
            op="forget",
            target_kind="episode",
            target_id=target,
            commitment_hex=commitment(os.urandom(32), {"forgotten": target}, canonical_plain),
            device=self.device,
            details={"reason": "forgotten here; refused on arrival"},
            ts=self.now,
        )
        return True

    def note_override(self, episode_id: str, origin: str) -> None:
        """Record here that a person let this episode in again on another device, so this device's own
        events carry it with ``override`` too (the ledger entry is this device's, naming the origin)."""
        self.ledger.add(
            op=admission.OVERRIDE_OP,
            target_kind="admission",
            target_id=episode_id,
            commitment_hex=commitment(os.urandom(32), {"override": episode_id}, canonical_plain),
            device=self.device,
            details={"origin": origin, "reason": "include_forgotten"},
            ts=self.now,
        )

    def marks_received(self) -> None:
        """Marks arrived with a tombstone: the next episode is screened against them."""
        self._marks = None

    def forget_state(self, row_id: str) -> None:
        """Drop the clocks and counter shares of a tombstoned row (written and pending alike)."""
        rows.forget_state(self.conn, row_id)
        self._states[row_id] = {}
        self._shares[row_id] = {}
        self._dirty_states.discard(row_id)
        self._dirty_shares = {k for k in self._dirty_shares if k[0] != row_id}

    # ------------------------------------------------------------------ engine rows
    def insert_episode(self, row: dict[str, Any], vectors: list[list[str]]) -> bool:
        """Insert an episode with its search indexes; False if it was already here (its vectors unread)."""
        if self.rows.episode(row["id"]) is not None:
            return False
        return self.rows.insert_episode(row, _vectors(vectors))

    def insert_memory(self, row: dict[str, Any], vectors: list[list[str]]) -> dict[str, Any]:
        """Insert a memory with its search indexes; returns the row as stored."""
        return self.rows.insert_memory(row, _vectors(vectors))

    def record_rejection(self, item: MemoryItem) -> None:
        self.rows.record_rejection(item)

    def add_evidence(self, memory_id: str, evidence: list[dict[str, Any]]) -> int:
        return self.rows.add_evidence(memory_id, evidence)

    def add_derivations(self, memory_id: str, sources: list[str]) -> None:
        self.rows.add_derivations(memory_id, sources)

    def grant(self, grant_id: str) -> dict[str, Any] | None:
        return grants.row(self.conn, grant_id)

    def insert_grant(self, row: dict[str, Any]) -> dict[str, Any]:
        """Insert a grant made elsewhere (same id); returns it as stored."""
        grants.insert_row(self.conn, row)
        stored = grants.row(self.conn, row["id"])
        assert stored is not None
        return stored

    # ------------------------------------------------------------------ clocks and counters
    def adopt_state(self, row_id: str, remote: dict[str, Any], fields: tuple[str, ...]) -> None:
        self._states[row_id] = rows.adopted(remote, fields)
        self._dirty_states.add(row_id)

    def merge_fields(
        self,
        kind: str,
        row_id: str,
        current: dict[str, Any],
        remote: dict[str, Any],
        fields: tuple[str, ...],
        tick: rows.Tick,
    ) -> bool:
        """Last writer wins per field (local changes stamped first) on a ``memory`` or ``grant`` row;
        returns True if a value changed."""
        state = self._state(row_id)
        stamped = rows.stamp_changes(state, current, fields, tick)
        updates, taken = rows.take_newer(state, current, remote, fields)
        if stamped or taken:
            self._dirty_states.add(row_id)
        if updates and kind == "memory":
            self.rows.update_memory(row_id, updates)
        elif updates:
            grants.set_row_fields(self.conn, row_id, updates)
        return bool(updates)

    def merge_counters(
        self, memory_id: str, me: str, current: dict[str, Any], remote: dict[str, Any], tick: rows.Tick
    ) -> None:
        """Stamp this device's share if it changed, take each remote device's newer share, then store
        the sum in the memory row."""
        shares = self._shares_of(memory_id)
        own = rows.own_share(current, [v for d, v in shares.items() if d != me])
        mine = shares.get(me)
        if mine is None or [int(mine[0]), float(mine[1]), float(mine[2])] != own:
            shares[me] = [*own, tick()]
            self._dirty_shares.add((memory_id, me))
        for device, value in sorted(remote.items()):
            if device == me or not isinstance(value, list) or len(value) != 4:
                continue
            known = shares.get(device)
            if known is None or str(value[3]) > known[3]:
                shares[device] = [int(value[0]), float(value[1]), float(value[2]), str(value[3])]
                self._dirty_shares.add((memory_id, device))
        total = rows.total_of(shares)
        row = self.memory(memory_id)
        assert row is not None
        if total != (row["uses"], row["successes"], row["failures"]):
            self.rows.update_memory(memory_id, dict(zip(rows.COUNTERS, total, strict=True)))

    # ------------------------------------------------------------------ ledger
    def record(
        self, *, op: str, kind: str, target: str, content: Any, device: str, details: dict[str, Any]
    ) -> None:
        """One ledger entry for a change this batch made (written at :meth:`finish`)."""
        self.ledger.add(
            op=op,
            target_kind=kind,
            target_id=target,
            commitment_hex=self.ledger.commit_to(target, content),
            device=device,
            details=details,
            ts=self.now,
        )
        if kind == "episode" and op != "forget":
            self.rows.noted_in_ledger(target)

    def finish(self) -> None:
        """Write everything kept: rows, clocks, counter shares, item secrets, ledger entries."""
        self.rows.flush()
        if self._dirty_states:
            rows.save_states(
                self.conn, {row_id: self._states[row_id] for row_id in sorted(self._dirty_states)}
            )
            self._dirty_states.clear()
        if self._dirty_shares:
            rows.save_shares(
                self.conn,
                [(mid, device, *self._shares[mid][device]) for mid, device in sorted(self._dirty_shares)],
            )
            self._dirty_shares.clear()
        self.ledger.flush()


def _vectors(shipped: list[list[str]]) -> list[Vector]:
    """Vectors as they travel ([vector kind, model, base64]) as the engine stores them."""
    return [(kind, model, base64.b64decode(blob)) for kind, model, blob in shipped]


class _Named:
    """The ids a batch's events name, read defensively: a malformed payload names nothing here and is
    refused where it is applied."""

    def __init__(self) -> None:
        self.memories: set[str] = set()
        self.episodes: set[str] = set()
        self.others: set[str] = set()  # ids only looked up as tombstones or secrets

    @classmethod
    def of(cls, events: Sequence[Any]) -> _Named:
        named = cls()
        for event in events:
            payload = event.get("payload") if isinstance(event, dict) else None
            if not isinstance(payload, dict):
                continue
            entry = payload.get("entry")
            if isinstance(entry, dict):
                named._add(named.others, entry.get("target"))
            data = payload.get("data")
            if isinstance(data, dict):
                named._data(data)
        return named

    def _data(self, data: dict[str, Any]) -> None:
        memory, episode, grant = data.get("memory"), data.get("episode"), data.get("grant")
        others: list[Any] = list(_list(data.get("derived_from")))
        if isinstance(memory, dict):
            mid = memory.get("id")
            self._add(self.memories, mid)
            if isinstance(mid, str):
                self.others.add(rejection_target(mid))
            others += (memory.get("root_id"), memory.get("supersedes"))
        if isinstance(episode, dict):
            self._add(self.episodes, episode.get("id"))
        if isinstance(grant, dict):
            others.append(grant.get("id"))
        others += [ev.get("episode_id") for ev in _list(data.get("evidence")) if isinstance(ev, dict)]
        self.others.update(v for v in others if isinstance(v, str) and v)
        for ep in _list(data.get("episodes")):
            if isinstance(ep, dict) and isinstance(ep.get("episode"), dict):
                self._add(self.episodes, ep["episode"].get("id"))

    @staticmethod
    def _add(into: set[str], value: Any) -> None:
        if isinstance(value, str) and value:
            into.add(value)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
