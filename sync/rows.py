"""Rows as they travel in events, and how they land on the receiving device.

- Immutable parts (an episode, a memory's text, kind, scope, lineage) are inserted
  once with the SAME id (``INSERT OR IGNORE``): applying twice changes nothing.
- Mutable fields (status, trust, valid_to, confidence, metadata, …) resolve by
  hybrid-logical-clock last-writer-wins, field by field. ``sync_rows`` keeps, per
  row, each field's value and the clock of its last change; a local change not yet
  stamped is noticed because the row no longer matches that record (``capture``).
- Outcome counters (uses, successes, failures) are per-device counters: each device
  ships its own share and ``memory_items`` holds their sum, so concurrent feedback
  on two devices adds up instead of one overwriting the other.
- Evidence is a set (union); vectors are shipped so the receiver needs no model.

Everything runs inside the caller's transaction.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from veramem_desktop.core import index, rejections
from veramem_desktop.core.episodes import EPISODE_COLUMNS
from veramem_desktop.core.items import ITEM_COLUMNS
from veramem_desktop.core.store import Connection
from veramem_desktop.core.text import for_index
from veramem_desktop.core.textproc import episode_fts_text, speaker_line

ITEM_FIELDS = [c.strip() for c in ITEM_COLUMNS.split(",")]
EPISODE_FIELDS = [c.strip() for c in EPISODE_COLUMNS.split(",")]
GRANT_FIELDS = ["id", "kind", "subject", "object", "granted_at", "revoked_at"]
EVIDENCE_FIELDS = ["episode_id", "quote", "span_start", "span_end", "score", "role", "created_at"]

#: fields that change after insert, resolved by clock (counters are handled apart)
MEMORY_LWW = ("visibility", "trust", "status", "valid_to", "confidence", "retrieval_strength", "importance",
              "last_used_at", "shareable", "pinned", "metadata", "updated_at")
COUNTERS = ("uses", "successes", "failures")
GRANT_LWW = ("revoked_at",)

Tick = Callable[[], str]
"""Returns a fresh clock value of this device (encoded HLC) each call."""


# --- reading rows ------------------------------------------------------------------------


def memory_row(conn: Connection, memory_id: str) -> dict[str, Any] | None:
    row = conn.execute(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id = ?", (memory_id,)).fetchone()
    return None if row is None else dict(zip(ITEM_FIELDS, row, strict=True))


def episode_row(conn: Connection, episode_id: str) -> dict[str, Any] | None:
    row = conn.execute(f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE id = ?", (episode_id,)).fetchone()
    return None if row is None else dict(zip(EPISODE_FIELDS, row, strict=True))


def grant_row(conn: Connection, grant_id: str) -> dict[str, Any] | None:
    row = conn.execute(f"SELECT {', '.join(GRANT_FIELDS)} FROM grants WHERE id = ?", (grant_id,)).fetchone()
    return None if row is None else dict(zip(GRANT_FIELDS, row, strict=True))


def evidence_rows(conn: Connection, memory_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(f"SELECT {', '.join(EVIDENCE_FIELDS)} FROM evidence WHERE memory_id = ? ORDER BY id",
                        (memory_id,)).fetchall()
    return [dict(zip(EVIDENCE_FIELDS, r, strict=True)) for r in rows]


def vectors_of(conn: Connection, owner_id: str) -> list[list[str]]:
    rows = conn.execute("SELECT owner_kind, model, vector FROM embeddings WHERE owner_id = ? ORDER BY owner_kind, model",
                        (owner_id,)).fetchall()
    return [[r[0], r[1], base64.b64encode(bytes(r[2])).decode("ascii")] for r in rows]


# --- per-field clocks --------------------------------------------------------------------


def _load_state(conn: Connection, row_id: str) -> dict[str, list[Any]]:
    row = conn.execute("SELECT state FROM sync_rows WHERE row_id = ?", (row_id,)).fetchone()
    return {} if row is None else dict(json.loads(row[0]))


def _save_state(conn: Connection, row_id: str, state: dict[str, list[Any]]) -> None:
    conn.execute("INSERT INTO sync_rows(row_id, state) VALUES (?, ?) ON CONFLICT(row_id) DO UPDATE SET "
                 "state = excluded.state", (row_id, json.dumps(state, sort_keys=True)))


def capture(conn: Connection, row_id: str, current: dict[str, Any], fields: tuple[str, ...],
            tick: Tick) -> dict[str, list[Any]]:
    """Stamp local changes: every field whose value differs from the record gets a new clock."""
    state = _load_state(conn, row_id)
    changed = False
    for name in fields:
        value = current[name]
        if name not in state or state[name][0] != value:
            state[name] = [value, tick()]
            changed = True
    if changed:
        _save_state(conn, row_id, state)
    return state


def adopt_state(conn: Connection, row_id: str, remote: dict[str, Any], fields: tuple[str, ...]) -> None:
    """A row just inserted from another device starts with that device's clocks (not fresh local ones,
    which would make its values look newer than later changes made elsewhere)."""
    state = {name: remote[name] for name in fields
             if isinstance(remote.get(name), list) and len(remote[name]) == 2 and isinstance(remote[name][1], str)}
    _save_state(conn, row_id, state)


def merge_fields(conn: Connection, table: str, row_id: str, current: dict[str, Any], remote: dict[str, Any],
                 fields: tuple[str, ...], tick: Tick) -> bool:
    """Last writer wins per field; returns True if a value changed."""
    state = capture(conn, row_id, current, fields, tick)
    updates: dict[str, Any] = {}
    for name in fields:
        pair = remote.get(name)
        if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[1], str):
            continue
        if name not in state or pair[1] > state[name][1]:  # encoded clocks sort like the clocks
            state[name] = pair
            if pair[0] != current[name]:
                updates[name] = pair[0]
    _save_state(conn, row_id, state)
    if updates:
        sets = ", ".join(f"{k} = ?" for k in updates)
        conn.execute(f"UPDATE {table} SET {sets} WHERE id = ?", [*updates.values(), row_id])
    return bool(updates)


def forget_state(conn: Connection, row_id: str) -> None:
    conn.execute("DELETE FROM sync_rows WHERE row_id = ?", (row_id,))
    conn.execute("DELETE FROM sync_counters WHERE memory_id = ?", (row_id,))


# --- per-device counters -----------------------------------------------------------------


def own_counters(conn: Connection, memory_id: str, device: str, current: dict[str, Any], tick: Tick) -> list[Any]:
    """This device's share: the total minus every other device's share (stored, stamped if changed)."""
    others = conn.execute("SELECT coalesce(sum(uses), 0), coalesce(sum(successes), 0), coalesce(sum(failures), 0) "
                          "FROM sync_counters WHERE memory_id = ? AND device_id != ?", (memory_id, device)).fetchone()
    own = [int(current["uses"]) - int(others[0]), float(current["successes"]) - float(others[1]),
           float(current["failures"]) - float(others[2])]
    row = conn.execute("SELECT uses, successes, failures, hlc FROM sync_counters WHERE memory_id = ? AND device_id = ?",
                       (memory_id, device)).fetchone()
    if row is not None and [int(row[0]), float(row[1]), float(row[2])] == own:
        return [*own, row[3]]
    stamp = tick()
    conn.execute("INSERT OR REPLACE INTO sync_counters(memory_id, device_id, uses, successes, failures, hlc) "
                 "VALUES (?,?,?,?,?,?)", (memory_id, device, own[0], own[1], own[2], stamp))
    return [*own, stamp]


def merge_counters(conn: Connection, memory_id: str, me: str, current: dict[str, Any],
                   remote: dict[str, Any], tick: Tick) -> None:
    """Take each remote device's newer share, then store the sum in the memory row."""
    own_counters(conn, memory_id, me, current, tick)
    for device, value in sorted(remote.items()):
        if device == me or not isinstance(value, list) or len(value) != 4:
            continue
        row = conn.execute("SELECT hlc FROM sync_counters WHERE memory_id = ? AND device_id = ?",
                           (memory_id, device)).fetchone()
        if row is None or str(value[3]) > row[0]:
            conn.execute("INSERT OR REPLACE INTO sync_counters(memory_id, device_id, uses, successes, failures, hlc) "
                         "VALUES (?,?,?,?,?,?)", (memory_id, device, int(value[0]), float(value[1]),
                                                  float(value[2]), str(value[3])))
    # Summed in device order so every device adds the same floats in the same order.
    shares = conn.execute("SELECT uses, successes, failures FROM sync_counters WHERE memory_id = ? "
                          "ORDER BY device_id", (memory_id,)).fetchall()
    uses, succ, fail = sum(int(s[0]) for s in shares), 0.0, 0.0
    for s in shares:
        succ += float(s[1])
        fail += float(s[2])
    conn.execute("UPDATE memory_items SET uses = ?, successes = ?, failures = ? WHERE id = ?",
                 (uses, succ, fail, memory_id))


# --- inserting rows ----------------------------------------------------------------------


def insert_episode(conn: Connection, row: dict[str, Any], vectors: list[list[str]]) -> bool:
    """Insert an episode with its search indexes; False if it was already here."""
    if conn.execute("SELECT 1 FROM episodes WHERE id = ?", (row["id"],)).fetchone() is not None:
        return False
    conn.execute(f"INSERT INTO episodes({EPISODE_COLUMNS}) VALUES ({','.join('?' * len(EPISODE_FIELDS))})",
                 [row[f] for f in EPISODE_FIELDS])
    line = for_index(speaker_line(row["source_name"] or row["role"], row["content"]))
    prev_line = None
    if row["session_id"] is not None:
        prev = conn.execute("SELECT role, source_name, content FROM episodes WHERE session_id = ? AND turn_index = ?",
                            (row["session_id"], int(row["turn_index"]) - 1)).fetchone()
        if prev is not None:
            prev_line = for_index(speaker_line(prev[1] or prev[0], prev[2]))
    cur = conn.execute("INSERT INTO fts_rows(owner_kind, owner_id) VALUES ('episode', ?)", (row["id"],))
    conn.execute("INSERT INTO episode_fts(rowid, text) VALUES (?, ?)", (cur.lastrowid, episode_fts_text(line, prev_line)))
    index.store_entities(conn, "episode", row["id"], line)
    _store_vectors(conn, row["id"], vectors)
    rejections.withhold_if_rejected(conn, "episode", [(row["id"], row["user_id"], row["team_id"], row["content"])])
    return True


def insert_memory(conn: Connection, row: dict[str, Any], vectors: list[list[str]]) -> None:
    conn.execute(f"INSERT INTO memory_items({ITEM_COLUMNS}) VALUES ({','.join('?' * len(ITEM_FIELDS))})",
                 [row[f] for f in ITEM_FIELDS])
    cur = conn.execute("INSERT INTO fts_rows(owner_kind, owner_id) VALUES ('memory', ?)", (row["id"],))
    conn.execute("INSERT INTO memory_fts(rowid, text) VALUES (?, ?)", (cur.lastrowid, for_index(row["text"])))
    index.store_entities(conn, "memory", row["id"], row["text"])
    _store_vectors(conn, row["id"], vectors)
    rejections.withhold_if_rejected(conn, "memory", [(row["id"], row["user_id"], row["team_id"], row["text"])])


def add_evidence(conn: Connection, memory_id: str, evidence: list[dict[str, Any]]) -> None:
    """Union: a piece of evidence already here (same episode, quote and span) is not added again."""
    for ev in evidence:
        exists = conn.execute(
            "SELECT 1 FROM evidence WHERE memory_id = ? AND episode_id = ? AND quote = ? AND span_start = ? "
            "AND span_end = ?", (memory_id, ev["episode_id"], ev["quote"], ev["span_start"], ev["span_end"])
        ).fetchone()
        if exists is None:
            conn.execute(f"INSERT INTO evidence(memory_id, {', '.join(EVIDENCE_FIELDS)}) VALUES (?,?,?,?,?,?,?,?)",
                         [memory_id, *(ev[f] for f in EVIDENCE_FIELDS)])


def _store_vectors(conn: Connection, owner_id: str, vectors: list[list[str]]) -> None:
    for kind, model, blob in vectors:
        conn.execute("INSERT OR IGNORE INTO embeddings(owner_kind, owner_id, model, vector) VALUES (?,?,?,?)",
                     (kind, owner_id, model, base64.b64decode(blob)))
