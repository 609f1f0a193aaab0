"""Landing rows made on another device: episodes, memories, evidence and derivations, with their indexes.

Sync decides what to apply (sync/replica.py, with the merge rules of sync/rows.py); a
:class:`Landing` writes it, inside the caller's transaction, through the repositories that own
each table (:mod:`.episode_rows`, :mod:`.item_rows`, :mod:`.derivations`, :mod:`.index_rows`,
core/storage/rejections.py). Rows keep their ids, so landing a row twice changes nothing.

It is built for whole batches: the rows a batch names are read up front (:meth:`prefetch`, one
query per table) and answered from memory after that, kept current as the batch writes. What
other code reads back inside the same transaction (core/storage/rejections.py reads rows and
evidence when a rejection arrives) is written first (:meth:`flush`); the rest waits and is
written table by table, one ``executemany`` each. An id the prefetch did not name is read with
a query when asked for, so a missed id costs time, never a wrong answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import Any

from veramem_desktop.core.storage import (
    derivations,
    episode_rows,
    episode_turns,
    index_rows,
    item_rows,
    ledger_feed,
    rejection_rows,
    rejections,
)
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.storage.text import for_index
from veramem_desktop.core.text.terms import entities
from veramem_desktop.core.text.turns import episode_fts_text, speaker_line

Vector = tuple[str, str, bytes]
"""(vector kind, model, blob) of one stored vector, as index_rows.vectors_of gives them."""


class Landing:
    """The rows one batch lands, inside the caller's transaction; :meth:`flush` before the transaction
    commits and before anything else reads the tables written."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._memories: dict[str, dict[str, Any] | None] = {}
        self._episodes: dict[str, tuple[str, str] | None] = {}
        self._in_ledger: dict[str, bool] = {}  # episode id -> has an entry other than a forget here
        self._evidence: dict[str, set[tuple[Any, ...]]] = {}
        self._rejected_scopes: dict[str, bool] = {}
        self._pending = _Pending()
        #: episodes of a session not written yet: (session, turn) -> [(event time, role, source, content)]
        self._pending_turns: dict[tuple[str, int], list[tuple[Any, ...]]] = {}
        self._fts_rowid: int | None = None
        #: memory rows whose INSERT is waiting: id -> its values (changed in place by later updates)
        self._waiting_memories: dict[str, list[Any]] = {}

    # ------------------------------------------------------------------ reading
    def prefetch(self, memory_ids: Iterable[str], episode_ids: Iterable[str]) -> None:
        """Read what the batch names: memory rows and their evidence, episodes and their ledger entries."""
        memory_ids, episode_ids = set(memory_ids), set(episode_ids)
        if memory_ids:
            self._memories.update(dict.fromkeys(memory_ids))
            self._memories.update(item_rows.rows_by_id(self.conn, memory_ids))
            found = [m for m in memory_ids if self._memories[m] is not None]
            known = item_rows.evidence_keys(self.conn, found) if found else {}
            self._evidence.update({m: known.get(m, set()) for m in memory_ids})
        if episode_ids:
            self._episodes.update(dict.fromkeys(episode_ids))
            self._episodes.update(episode_rows.digests(self.conn, episode_ids))
            recorded = ledger_feed.episodes_recorded(self.conn, episode_ids)
            self._in_ledger.update({e: e in recorded for e in episode_ids})

    def memory(self, memory_id: str) -> dict[str, Any] | None:
        """The memory row as it is now in this transaction (a dict in column order; do not change it)."""
        if memory_id not in self._memories:
            self._memories[memory_id] = item_rows.row(self.conn, memory_id)
        return self._memories[memory_id]

    def episode(self, episode_id: str) -> tuple[str, str] | None:
        """(sha256, role) of the episode if it is here."""
        if episode_id not in self._episodes:
            self._episodes[episode_id] = episode_rows.digest(self.conn, episode_id)
        return self._episodes[episode_id]

    def episode_in_ledger(self, episode_id: str) -> bool:
        """Whether the episode has a ledger entry here (other than a forget)."""
        if episode_id not in self._in_ledger:
            self._in_ledger[episode_id] = bool(ledger_feed.episodes_recorded(self.conn, [episode_id]))
        return self._in_ledger[episode_id]

    def noted_in_ledger(self, episode_id: str) -> None:
        """The episode has just been given a ledger entry (written with the caller's entries)."""
        self._in_ledger[episode_id] = True

    def _evidence_of(self, memory_id: str) -> set[tuple[Any, ...]]:
        if memory_id not in self._evidence:
            self._evidence[memory_id] = item_rows.evidence_keys_of(self.conn, memory_id)
        return self._evidence[memory_id]

    # ------------------------------------------------------------------ episodes
    def insert_episode(self, row: dict[str, Any], vectors: Sequence[Vector]) -> bool:
        """Insert an episode with its search indexes (kept for :meth:`flush`); False if it was already here."""
        if self.episode(row["id"]) is not None:
            return False
        values = [row[f] for f in episode_rows.EPISODE_FIELDS]
        line = for_index(speaker_line(row["source_name"] or row["role"], row["content"]))
        prev_line = self._prev_line(row)
        self._pending.add(episode_rows.insert_rows, values)
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
        session, turn = row["session_id"], int(row["turn_index"]) - 1
        waiting = self._pending_turns.get((session, turn), [])
        prev = episode_turns.turn(self.conn, session, turn)
        if waiting and prev is not None:  # both written and waiting ones match: let SQLite choose among all
            self.flush()
            prev = episode_turns.turn(self.conn, session, turn)
        elif waiting:  # the order of the index SQLite searches (episodes_session: event time, then rowid)
            first = min(enumerate(waiting), key=lambda t: (t[1][0], t[0]))[1]
            prev = first[1:]
        return None if prev is None else for_index(speaker_line(prev[1] or prev[0], prev[2]))

    # ------------------------------------------------------------------ memories
    def insert_memory(self, row: dict[str, Any], vectors: Sequence[Vector]) -> dict[str, Any]:
        """Insert a memory with its search indexes (kept for :meth:`flush`); returns the row as stored."""
        values = [row[f] for f in item_rows.ITEM_FIELDS]
        self._pending.add(item_rows.insert_rows, values)
        self._waiting_memories[row["id"]] = values
        stored = item_rows.as_stored(dict(zip(item_rows.ITEM_FIELDS, values, strict=True)))
        if stored is None:
            self.flush()
            stored = item_rows.row(self.conn, row["id"])
            assert stored is not None
        self._memories[row["id"]] = stored
        self._evidence[row["id"]] = set()
        self._index("memory", row["id"], for_index(row["text"]), row["text"], vectors)
        self._withhold_if_rejected("memory", row["id"], row["user_id"], row["team_id"], row["text"])
        return stored

    def update_memory(self, memory_id: str, updates: dict[str, Any]) -> None:
        """Change a memory row: in the INSERT still waiting to be written, else with an UPDATE; the copy
        kept here follows."""
        waiting = self._waiting_memories.get(memory_id)
        if waiting is not None:
            for name, value in updates.items():
                waiting[_ITEM_INDEX[name]] = value
        else:
            item_rows.set_row_fields(self.conn, memory_id, updates)
        known, changed = self._memories.get(memory_id), item_rows.as_stored(updates)
        if known is not None and changed is not None:
            self._memories[memory_id] = {**known, **changed}
        else:
            self.flush()
            self._memories[memory_id] = item_rows.row(self.conn, memory_id)

    def add_evidence(self, memory_id: str, evidence: list[dict[str, Any]]) -> int:
        """Union: a piece of evidence already here (same episode, quote and span) is not added again.
        Returns how many were added."""
        have = self._evidence_of(memory_id)
        added = 0
        for ev in evidence:
            key = _EVIDENCE_KEY(ev)
            if key not in have:
                have.add(key)
                self._pending.add(item_rows.insert_evidence, [memory_id, *_EVIDENCE_VALUES(ev)])
                added += 1
        self._hold_with_source(memory_id, [ev["episode_id"] for ev in evidence])
        return added

    def _hold_with_source(self, memory_id: str, episode_ids: list[str]) -> None:
        """A memory taken from a message held for resembling a rejected value is held with it (as
        core/storage/rejections.withhold_if_rejected does where evidence is written at once)."""
        row = self._memories.get(memory_id)
        if row is None or not episode_ids:
            return
        scope = rejections.scope_of(row["user_id"], row["team_id"])
        if scope not in self._rejected_scopes:
            self._rejected_scopes[scope] = rejection_rows.scope_has_values(self.conn, scope)
        if self._rejected_scopes[scope] and any(
            rejection_rows.is_withheld(self.conn, "episode", e) == "resembles" for e in episode_ids
        ):
            rejection_rows.withhold(self.conn, "memory", memory_id, "resembles", None)

    def add_derivations(self, memory_id: str, sources: list[str]) -> None:
        for source in sources:
            self._pending.add(derivations.add_pairs, (memory_id, source))

    def record_rejection(self, item: MemoryItem) -> None:
        """core/storage/rejections.record, after writing what it reads (rows, evidence); later rows of the
        batch in the item's scope are then checked against it."""
        self.flush()
        rejections.record(self.conn, item)
        self._rejected_scopes[rejections.scope_of(item.user_id, item.team_id)] = True

    # ------------------------------------------------------------------ indexes
    def _index(
        self, kind: str, owner_id: str, fts_text: str, entity_text: str, vectors: Sequence[Vector]
    ) -> None:
        """FTS, entity and vector rows of a new episode or memory. FTS rowids are given here, as SQLite
        would give them (the largest so far plus one; the write lock is held)."""
        if self._fts_rowid is None:
            self._fts_rowid = index_rows.last_fts_rowid(self.conn)
        self._fts_rowid += 1
        self._pending.add(index_rows.insert_fts_owners, (self._fts_rowid, kind, owner_id))
        self._pending.add(_FTS_TEXTS[kind], (self._fts_rowid, fts_text))
        for entity in sorted(entities(entity_text)):
            self._pending.add(index_rows.insert_entities, (kind, owner_id, entity))
        for vkind, model, blob in vectors:
            self._pending.add(index_rows.insert_vectors, (vkind, owner_id, model, blob))

    def _withhold_if_rejected(
        self, kind: str, owner_id: str, user_id: str | None, team_id: str | None, text: str
    ) -> None:
        """core/storage/rejections.withhold_if_rejected, skipped for a scope that holds no rejected value
        (it would find nothing there); whether a scope holds one is read once per batch."""
        scope = rejections.scope_of(user_id, team_id)
        if scope not in self._rejected_scopes:
            self._rejected_scopes[scope] = rejection_rows.scope_has_values(self.conn, scope)
        if self._rejected_scopes[scope]:
            rejections.withhold_if_rejected(self.conn, kind, [(owner_id, user_id, team_id, text)])

    # ------------------------------------------------------------------ writing
    def flush(self) -> None:
        """Write the rows kept so far, table by table (before anything reads those tables back)."""
        self._pending.write(self.conn)
        self._pending_turns.clear()
        self._waiting_memories.clear()


Writer = Callable[[Connection, Sequence[Sequence[Any]]], None]


def _episode_fts(conn: Connection, values: Sequence[Sequence[Any]]) -> None:
    index_rows.insert_fts_texts(conn, "episode", values)


def _memory_fts(conn: Connection, values: Sequence[Sequence[Any]]) -> None:
    index_rows.insert_fts_texts(conn, "memory", values)


_FTS_TEXTS: dict[str, Writer] = {"episode": _episode_fts, "memory": _memory_fts}
#: the order tables are written in: rows before what refers to them (evidence names a memory and an episode)
_ORDER: tuple[Writer, ...] = (
    episode_rows.insert_rows,
    item_rows.insert_rows,
    item_rows.insert_evidence,
    derivations.add_pairs,
    index_rows.insert_fts_owners,
    _episode_fts,
    _memory_fts,
    index_rows.insert_entities,
    index_rows.insert_vectors,
)


class _Pending:
    """Rows waiting to be written, per writer, in the order they were made."""

    def __init__(self) -> None:
        self._rows: dict[Writer, list[Sequence[Any]]] = {writer: [] for writer in _ORDER}

    def add(self, writer: Writer, values: Sequence[Any]) -> None:
        self._rows[writer].append(values)

    def write(self, conn: Connection) -> None:
        for writer in _ORDER:
            waiting = self._rows[writer]
            if waiting:
                writer(conn, waiting)
                waiting.clear()


_ITEM_INDEX = {name: i for i, name in enumerate(item_rows.ITEM_FIELDS)}
_EVIDENCE_KEY = itemgetter(*item_rows.EVIDENCE_KEY)  # a tuple of the key's values
_EVIDENCE_VALUES = itemgetter(*item_rows.EVIDENCE_FIELDS)
