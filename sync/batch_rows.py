"""Landing one batch of events: the rows it touches, read in a few set queries, then kept current.

Applying event by event read the same rows again and again (a memory row five times,
a tombstone lookup per id, the ledger head per entry). :class:`BatchRows` reads what a
batch names up front, one query per table (tombstones, memories, episodes, per-field
clocks, counter shares, evidence keys, item secrets, episodes already in the ledger),
and then answers from memory, updating its copies as the batch writes.

What other code reads back inside the same transaction is written at once: episodes,
memories, evidence, derivations, FTS, entity and vector rows (core/rejections reads them
when a rejection arrives). What only this batch reads is written at :meth:`finish`, one
``executemany`` per table: per-field clocks (``sync_rows``), counter shares
(``sync_counters``), new item secrets and the ledger entries (core/ledger.Appender, the
same hash chain, one entry per change). An id the prefetch did not name is read with a
query when asked for, so a missed id costs time, never a wrong answer.

The merge rules are those of sync/rows.py; this module only decides when to read and write.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Sequence
from typing import Any

from veramem_desktop.core.lifecycle.forget import rejection_target
from veramem_desktop.core.recall.query import entities, episode_fts_text, speaker_line
from veramem_desktop.core.storage import ledger
from veramem_desktop.core.storage.episodes import EPISODE_COLUMNS
from veramem_desktop.core.storage.items import ITEM_COLUMNS, MemoryItem
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.storage.text import for_index
from veramem_desktop.core.trust import rejections
from veramem_desktop.sync import rows

_IN = "IN (SELECT value FROM json_each(?))"  # one bound JSON array instead of one variable per id


def _ids(values: Iterable[str]) -> str:
    return json.dumps(sorted(set(values)))


class BatchRows:
    """The rows one batch reads and writes, inside the caller's transaction; call :meth:`finish` before
    the transaction commits (also when it stops early but commits what was applied)."""

    def __init__(self, conn: Connection, events: Sequence[Any]) -> None:
        self.conn = conn
        self.ledger = ledger.Appender(conn)
        self._tombstones: set[str] = set()
        self._tomb_known: set[str] = set()
        self._memories: dict[str, dict[str, Any] | None] = {}
        self._episodes: dict[str, tuple[str, str] | None] = {}
        self._in_ledger: dict[str, bool] = {}  # episode id -> has an entry other than a forget here
        self._states: dict[str, dict[str, list[Any]]] = {}
        self._shares: dict[str, dict[str, list[Any]]] = {}
        self._evidence: dict[str, set[tuple[Any, ...]]] = {}
        self._rejected_scopes: dict[str, bool] = {}
        self._dirty_states: set[str] = set()
        self._dirty_shares: set[tuple[str, str]] = set()
        self._pending = _Pending()
        #: episodes of a session not written yet: (session, turn) -> [(event time, role, source, content)]
        self._pending_turns: dict[tuple[str, int], list[tuple[Any, ...]]] = {}
        self._fts_rowid: int | None = None
        #: memory rows whose INSERT is waiting: id -> its parameters (changed in place by later updates)
        self._waiting_memories: dict[str, list[Any]] = {}
        self._prefetch(_Named.of(events))

    # ------------------------------------------------------------------ reading
    def _prefetch(self, named: _Named) -> None:
        q = self.conn.execute
        every = named.memories | named.episodes | named.others
        self._tomb_known |= every
        self._tombstones |= {
            r[0] for r in q(f"SELECT target_id FROM sync_tombstones WHERE target_id {_IN}", (_ids(every),))
        }
        if named.memories:
            mids = _ids(named.memories)
            self._memories = dict.fromkeys(named.memories)
            for r in q(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id {_IN}", (mids,)):
                self._memories[r[0]] = dict(zip(rows.ITEM_FIELDS, r, strict=True))
            self._states = {m: {} for m in named.memories}
            self._shares = {m: {} for m in named.memories}
            for row_id, state in q(f"SELECT row_id, state FROM sync_rows WHERE row_id {_IN}", (mids,)):
                self._states[row_id] = dict(json.loads(state))
            for mid, device, *share in q(
                "SELECT memory_id, device_id, uses, successes, failures, hlc FROM "
                f"sync_counters WHERE memory_id {_IN}",
                (mids,),
            ):
                self._shares[mid][device] = share
            self._evidence = {m: set() for m in named.memories}
            found = [m for m, row in self._memories.items() if row is not None]
            if found:
                for mid, *key in q(
                    "SELECT memory_id, episode_id, quote, span_start, span_end FROM evidence "
                    f"WHERE memory_id {_IN}",
                    (_ids(found),),
                ):
                    self._evidence[mid].add(tuple(key))
        if named.episodes:
            eids = _ids(named.episodes)
            self._episodes = dict.fromkeys(named.episodes)
            for eid, digest, role in q(f"SELECT id, sha256, role FROM episodes WHERE id {_IN}", (eids,)):
                self._episodes[eid] = (digest, role)
            self._in_ledger = dict.fromkeys(named.episodes, False)
            for (eid,) in q(
                f"SELECT DISTINCT target_id FROM ledger WHERE target_id {_IN} AND target_kind = 'episode' "
                "AND op != 'forget'",
                (eids,),
            ):
                self._in_ledger[eid] = True
        self.ledger.prefetch_secrets(named.memories | named.episodes | named.others)

    def tombstoned(self, ids: Iterable[str | None]) -> set[str]:
        wanted = {i for i in ids if i}
        unknown = wanted - self._tomb_known
        if unknown:
            self._tombstones |= {
                r[0]
                for r in self.conn.execute(
                    f"SELECT target_id FROM sync_tombstones WHERE target_id {_IN}", (_ids(unknown),)
                )
            }
            self._tomb_known |= unknown
        return wanted & self._tombstones

    def memory(self, memory_id: str) -> dict[str, Any] | None:
        """The memory row as it is now in this transaction (a dict in column order; do not change it)."""
        if memory_id not in self._memories:
            self._memories[memory_id] = rows.memory_row(self.conn, memory_id)
        return self._memories[memory_id]

    def episode(self, episode_id: str) -> tuple[str, str] | None:
        """(sha256, role) of the episode if it is here."""
        if episode_id not in self._episodes:
            row = self.conn.execute(
                "SELECT sha256, role FROM episodes WHERE id = ?", (episode_id,)
            ).fetchone()
            self._episodes[episode_id] = None if row is None else (str(row[0]), str(row[1]))
        return self._episodes[episode_id]

    def episode_in_ledger(self, episode_id: str) -> bool:
        if episode_id not in self._in_ledger:
            self._in_ledger[episode_id] = (
                self.conn.execute(
                    "SELECT 1 FROM ledger WHERE target_id = ? AND target_kind = 'episode' AND op != 'forget' LIMIT 1",
                    (episode_id,),
                ).fetchone()
                is not None
            )
        return self._in_ledger[episode_id]

    def _state(self, row_id: str) -> dict[str, list[Any]]:
        if row_id not in self._states:
            self._states[row_id] = rows.load_state(self.conn, row_id)
        return self._states[row_id]

    def _shares_of(self, memory_id: str) -> dict[str, list[Any]]:
        if memory_id not in self._shares:
            self._shares[memory_id] = {
                str(r[0]): list(r[1:])
                for r in self.conn.execute(
                    "SELECT device_id, uses, successes, failures, hlc FROM sync_counters WHERE memory_id = ?",
                    (memory_id,),
                )
            }
        return self._shares[memory_id]

    def _evidence_of(self, memory_id: str) -> set[tuple[Any, ...]]:
        if memory_id not in self._evidence:
            self._evidence[memory_id] = {
                tuple(r)
                for r in self.conn.execute(
                    "SELECT episode_id, quote, span_start, span_end FROM evidence WHERE memory_id = ?",
                    (memory_id,),
                )
            }
        return self._evidence[memory_id]

    # ------------------------------------------------------------------ tombstones
    def add_tombstone(self, target: str, kind: str, origin: str, stamp: str, created_at: str) -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO sync_tombstones(target_id, kind, origin, hlc, created_at) "
            "VALUES (?,?,?,?,?)",
            (target, kind, origin, stamp, created_at),
        )
        self._tombstones.add(target)
        self._tomb_known.add(target)

    def forget_state(self, row_id: str) -> None:
        """Drop the clocks and counter shares of a tombstoned row (written and pending alike)."""
        rows.forget_state(self.conn, row_id)
        self._states[row_id] = {}
        self._shares[row_id] = {}
        self._dirty_states.discard(row_id)
        self._dirty_shares = {k for k in self._dirty_shares if k[0] != row_id}

    # ------------------------------------------------------------------ inserting rows
    def insert_episode(self, row: dict[str, Any], vectors: list[list[str]]) -> bool:
        """Insert an episode with its search indexes (kept for :meth:`flush`); False if it was already here."""
        if self.episode(row["id"]) is not None:
            return False
        params = [row[f] for f in rows.EPISODE_FIELDS]
        line = for_index(speaker_line(row["source_name"] or row["role"], row["content"]))
        prev_line = self._prev_line(row)
        self._pending.add(_EPISODES, params)
        if isinstance(row["sha256"], str) and isinstance(row["role"], str):
            self._episodes[row["id"]] = (row["sha256"], row["role"])
        else:  # stored with the column's affinity: let SQLite say what it kept
            self.flush()
            self._episodes.pop(row["id"])
        if row["session_id"] is not None:
            self._pending_turns.setdefault((row["session_id"], int(row["turn_index"])), []).append(
                (str(row["event_time"]), row["role"], row["source_name"], row["content"])
            )
        self._index("episode", row["id"], episode_fts_text(line, prev_line), line, vectors)
        self._withhold_if_rejected("episode", row["id"], row["user_id"], row["team_id"], row["content"])
        return True

    def _prev_line(self, row: dict[str, Any]) -> str | None:
        """The index line of the previous turn of ``row``'s session, as the first row of
        ``WHERE session_id = ? AND turn_index = ?`` would give it if every pending episode were written."""
        if row["session_id"] is None:
            return None
        key = (row["session_id"], int(row["turn_index"]) - 1)
        waiting = self._pending_turns.get(key, [])
        prev = self.conn.execute(
            "SELECT role, source_name, content FROM episodes WHERE session_id = ? AND turn_index = ?", key
        ).fetchone()
        if waiting and prev is not None:  # both written and waiting ones match: let SQLite choose among all
            self.flush()
            prev = self.conn.execute(
                "SELECT role, source_name, content FROM episodes WHERE session_id = ? AND turn_index = ?", key
            ).fetchone()
        elif waiting:  # the order of the index SQLite searches (episodes_session: event time, then rowid)
            first = min(enumerate(waiting), key=lambda t: (t[1][0], t[0]))[1]
            prev = first[1:]
        return None if prev is None else for_index(speaker_line(prev[1] or prev[0], prev[2]))

    def insert_memory(self, row: dict[str, Any], vectors: list[list[str]]) -> dict[str, Any]:
        """Insert a memory with its search indexes (kept for :meth:`flush`); returns the row as stored."""
        values = [row[f] for f in rows.ITEM_FIELDS]
        self._pending.add(_MEMORIES, values)
        self._waiting_memories[row["id"]] = values
        stored = _as_stored(dict(zip(rows.ITEM_FIELDS, values, strict=True)))
        if stored is None:
            self.flush()
            stored = rows.memory_row(self.conn, row["id"])
            assert stored is not None
        self._memories[row["id"]] = stored
        self._evidence[row["id"]] = set()
        self._index("memory", row["id"], for_index(row["text"]), row["text"], vectors)
        self._withhold_if_rejected("memory", row["id"], row["user_id"], row["team_id"], row["text"])
        return stored

    def _index(
        self, kind: str, owner_id: str, fts_text: str, entity_text: str, vectors: list[list[str]]
    ) -> None:
        """FTS, entity and vector rows of a new episode or memory. FTS rowids are given here, as SQLite
        would give them (the largest so far plus one; the write lock is held)."""
        if self._fts_rowid is None:
            self._fts_rowid = int(
                self.conn.execute("SELECT coalesce(max(rowid), 0) FROM fts_rows").fetchone()[0]
            )
        self._fts_rowid += 1
        self._pending.add(_FTS_ROWS, (self._fts_rowid, kind, owner_id))
        self._pending.add(_EPISODE_FTS if kind == "episode" else _MEMORY_FTS, (self._fts_rowid, fts_text))
        for entity in sorted(entities(entity_text)):
            self._pending.add(_ENTITIES, (kind, owner_id, entity))
        for vkind, model, blob in vectors:
            self._pending.add(_VECTORS, (vkind, owner_id, model, base64.b64decode(blob)))

    def _withhold_if_rejected(
        self, kind: str, owner_id: str, user_id: str | None, team_id: str | None, text: str
    ) -> None:
        """core/rejections.withhold_if_rejected, skipped for a scope that holds no rejected value
        (it would find nothing there); whether a scope holds one is read once per batch."""
        scope = rejections.scope_of(user_id, team_id)
        if scope not in self._rejected_scopes:
            self._rejected_scopes[scope] = (
                self.conn.execute(
                    "SELECT 1 FROM rejected_values WHERE scope = ? LIMIT 1", (scope,)
                ).fetchone()
                is not None
            )
        if self._rejected_scopes[scope]:
            rejections.withhold_if_rejected(self.conn, kind, [(owner_id, user_id, team_id, text)])

    def record_rejection(self, item: MemoryItem) -> None:
        """core/rejections.record, after writing what it reads (rows, evidence); later rows of the batch
        in the item's scope are then checked against it."""
        self.flush()
        rejections.record(self.conn, item)
        self._rejected_scopes[rejections.scope_of(item.user_id, item.team_id)] = True

    def add_evidence(self, memory_id: str, evidence: list[dict[str, Any]]) -> int:
        """Union: a piece of evidence already here (same episode, quote and span) is not added again.
        Returns how many were added."""
        have = self._evidence_of(memory_id)
        new = []
        for ev in evidence:
            key = (ev["episode_id"], ev["quote"], ev["span_start"], ev["span_end"])
            if key not in have:
                have.add(key)
                new.append([memory_id, *(ev[f] for f in rows.EVIDENCE_FIELDS)])
        for params in new:
            self._pending.add(_EVIDENCE, params)
        return len(new)

    def add_derivations(self, memory_id: str, sources: list[str]) -> None:
        for source in sources:
            self._pending.add(_DERIVATIONS, (memory_id, source))

    # ------------------------------------------------------------------ clocks and counters
    def adopt_state(self, row_id: str, remote: dict[str, Any], fields: tuple[str, ...]) -> None:
        self._states[row_id] = rows.adopted(remote, fields)
        self._dirty_states.add(row_id)

    def merge_fields(
        self,
        table: str,
        row_id: str,
        current: dict[str, Any],
        remote: dict[str, Any],
        fields: tuple[str, ...],
        tick: rows.Tick,
    ) -> bool:
        """Last writer wins per field (local changes stamped first); returns True if a value changed."""
        state = self._state(row_id)
        stamped = rows.stamp_changes(state, current, fields, tick)
        updates, taken = rows.take_newer(state, current, remote, fields)
        if stamped or taken:
            self._dirty_states.add(row_id)
        if updates and table == "memory_items":
            self._update_memory(row_id, updates)
        elif updates:
            self.conn.execute(
                f"UPDATE {table} SET {', '.join(f'{k} = ?' for k in updates)} WHERE id = ?",
                [*updates.values(), row_id],
            )
        return bool(updates)

    def _update_memory(self, memory_id: str, updates: dict[str, Any]) -> None:
        """Change a memory row: in the INSERT still waiting to be written, else with an UPDATE; the copy
        kept here follows."""
        waiting = self._waiting_memories.get(memory_id)
        if waiting is not None:
            for name, value in updates.items():
                waiting[_ITEM_INDEX[name]] = value
        else:
            self.conn.execute(
                f"UPDATE memory_items SET {', '.join(f'{k} = ?' for k in updates)} WHERE id = ?",
                [*updates.values(), memory_id],
            )
        known, changed = self._memories.get(memory_id), _as_stored(updates)
        if known is not None and changed is not None:
            self._memories[memory_id] = {**known, **changed}
        else:
            self.flush()
            self._memories[memory_id] = rows.memory_row(self.conn, memory_id)

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
            self._update_memory(memory_id, dict(zip(rows.COUNTERS, total, strict=True)))

    # ------------------------------------------------------------------ ledger
    def record(
        self, *, op: str, kind: str, target: str, content: Any, device: str, details: dict[str, Any]
    ) -> None:
        """One ledger entry for a change this batch made (written at :meth:`finish`)."""
        self.ledger.append(
            op=op,
            target_kind=kind,
            target_id=target,
            commitment_hex=self.ledger.commit_to(target, content),
            device=device,
            details=details,
        )
        if kind == "episode" and op != "forget":
            self._in_ledger[target] = True

    def flush(self) -> None:
        """Write the rows kept so far, table by table (before anything reads those tables back)."""
        self._pending.write(self.conn)
        self._pending_turns.clear()
        self._waiting_memories.clear()

    def finish(self) -> None:
        """Write everything kept: rows, clocks, counter shares, item secrets, ledger entries."""
        self.flush()
        if self._dirty_states:
            self.conn.executemany(
                rows.SAVE_STATE_SQL,
                [(row_id, rows.dump_state(self._states[row_id])) for row_id in sorted(self._dirty_states)],
            )
            self._dirty_states.clear()
        if self._dirty_shares:
            self.conn.executemany(
                rows.SAVE_SHARE_SQL,
                [(mid, device, *self._shares[mid][device]) for mid, device in sorted(self._dirty_shares)],
            )
            self._dirty_shares.clear()
        self.ledger.flush()


_EPISODES = f"INSERT INTO episodes({EPISODE_COLUMNS}) VALUES ({','.join('?' * len(rows.EPISODE_FIELDS))})"
_MEMORIES = f"INSERT INTO memory_items({ITEM_COLUMNS}) VALUES ({','.join('?' * len(rows.ITEM_FIELDS))})"
_EVIDENCE = f"INSERT INTO evidence(memory_id, {', '.join(rows.EVIDENCE_FIELDS)}) VALUES (?,?,?,?,?,?,?,?)"
_DERIVATIONS = "INSERT OR IGNORE INTO derivations(derived_id, source_id) VALUES (?, ?)"
_FTS_ROWS = "INSERT INTO fts_rows(rowid, owner_kind, owner_id) VALUES (?, ?, ?)"
_EPISODE_FTS = "INSERT INTO episode_fts(rowid, text) VALUES (?, ?)"
_MEMORY_FTS = "INSERT INTO memory_fts(rowid, text) VALUES (?, ?)"
_ENTITIES = "INSERT OR IGNORE INTO entities(owner_kind, owner_id, entity) VALUES (?,?,?)"
_VECTORS = "INSERT OR IGNORE INTO embeddings(owner_kind, owner_id, model, vector) VALUES (?,?,?,?)"
#: the order tables are written in: rows before what refers to them (evidence names a memory and an episode)
_ORDER = (
    _EPISODES,
    _MEMORIES,
    _EVIDENCE,
    _DERIVATIONS,
    _FTS_ROWS,
    _EPISODE_FTS,
    _MEMORY_FTS,
    _ENTITIES,
    _VECTORS,
)


class _Pending:
    """Rows waiting to be written, per INSERT statement, in the order they were made."""

    def __init__(self) -> None:
        self._rows: dict[str, list[Sequence[Any]]] = {sql: [] for sql in _ORDER}

    def add(self, sql: str, params: Sequence[Any]) -> None:
        self._rows[sql].append(params)

    def write(self, conn: Connection) -> None:
        for sql in _ORDER:
            waiting = self._rows[sql]
            if waiting:
                conn.executemany(sql, waiting)
                waiting.clear()


_ITEM_INDEX = {name: i for i, name in enumerate(rows.ITEM_FIELDS)}
#: memory_items columns by type affinity (the rest are TEXT)
_REAL = frozenset({"confidence", "retrieval_strength", "importance", "successes", "failures"})
_INTEGER = frozenset({"version", "uses", "shareable", "pinned"})


def _as_stored(values: dict[str, Any]) -> dict[str, Any] | None:
    """Memory column values as SQLite keeps them (an int in a REAL column comes back a float, a bool
    in an INTEGER column an int), or None for a value of another type (then the row is read back).
    Rows are not read back with ``RETURNING``: that opens a statement journal, and FTS5 flushes its
    pending index at every one (a segment per row instead of one per transaction)."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        if value is None or (isinstance(value, str) and name not in _REAL and name not in _INTEGER):
            out[name] = value
        elif name in _REAL and isinstance(value, int | float):
            out[name] = float(value)
        elif name in _INTEGER and isinstance(value, int):
            out[name] = int(value)
        else:
            return None
    return out


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
        if isinstance(memory, dict):
            mid = memory.get("id")
            self._add(self.memories, mid)
            if isinstance(mid, str):
                self.others.add(rejection_target(mid))
            self._add(self.others, memory.get("root_id"))
            self._add(self.others, memory.get("supersedes"))
        if isinstance(episode, dict):
            self._add(self.episodes, episode.get("id"))
        if isinstance(grant, dict):
            self._add(self.others, grant.get("id"))
        for source in _list(data.get("derived_from")):
            self._add(self.others, source)
        for ev in _list(data.get("evidence")):
            if isinstance(ev, dict):
                self._add(self.others, ev.get("episode_id"))
        for ep in _list(data.get("episodes")):
            if isinstance(ep, dict) and isinstance(ep.get("episode"), dict):
                self._add(self.episodes, ep["episode"].get("id"))

    @staticmethod
    def _add(into: set[str], value: Any) -> None:
        if isinstance(value, str) and value:
            into.add(value)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
