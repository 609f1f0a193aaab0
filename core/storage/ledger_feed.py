"""The ledger read as a feed, for replication: its head, the entries after a seq, what has an entry.

core/storage/ledger.py appends and reads entries for a person; sync reads it in seq order to
export this device's entries to its other devices, to sign its head, and to know which
episodes already have their own entry here. All inside the caller's transaction or read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import orjson
from veramem_desktop.core.storage.canonical import GENESIS_HASH
from veramem_desktop.core.storage.id_sets import IN_IDS, ids_param
from veramem_desktop.core.storage.ledger import LEDGER_COLUMNS, LedgerRow, row_to_entry
from veramem_desktop.core.storage.store import Connection


def head(conn: Connection) -> tuple[int, str]:
    """(seq, hash) of the last entry; ``(0, GENESIS_HASH)`` for an empty ledger."""
    row = conn.execute("SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
    if row is None:
        return 0, GENESIS_HASH
    seq, digest = row
    return int(seq), str(digest)


def hash_at(conn: Connection, seq: int) -> str | None:
    """The hash of entry ``seq``, if there is one."""
    row = conn.execute("SELECT hash FROM ledger WHERE seq = ?", (seq,)).fetchone()
    return None if row is None else str(row[0])


_LONG_NUMBER = re.compile(r"[0-9]{19}")


def entry_dicts_after(conn: Connection, seq: int, limit: int) -> list[dict[str, Any]]:
    """At most ``limit`` entries after ``seq``, in order, each as its ``to_dict()`` gives it, made straight
    from the row (an export turns every entry into this dict; building the entry first cost as much
    again)."""
    return [
        _feed_dict(r)
        for r in conn.execute(
            f"SELECT {LEDGER_COLUMNS} FROM ledger WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit)
        ).fetchall()
    ]


def _feed_dict(row: Any) -> dict[str, Any]:
    """``row_to_entry(row).to_dict()``: the same keys, in the same order, with the same values; the
    details decoded by orjson (a fifth of json's time). orjson reads JSON text as json does, except that
    it turns an integer past 64 bits into a float and refuses NaN, infinities and lone surrogates: details
    holding a run of 19 digits, and whatever orjson refuses, are read by ``row_to_entry`` itself."""
    r = LedgerRow._make(row)
    text = r.details
    if not isinstance(text, str) or _LONG_NUMBER.search(text):
        return row_to_entry(row).to_dict()
    try:
        details = orjson.loads(text)
    except ValueError:  # orjson's JSONDecodeError
        return row_to_entry(row).to_dict()
    actor = details.get("actor") if isinstance(details, dict) else None
    if not isinstance(actor, dict):
        actor = {}
    return {
        "seq": int(r.seq),
        "ts": r.ts,
        "device": r.device,
        "op": r.op,
        "kind": r.target_kind,
        "target": r.target_id,
        "commit": r.commitment,
        "details": details,
        "prev_hash": r.prev_hash,
        "hash": r.hash,
        "actor": actor.get("id"),
        "actor_kind": actor.get("kind"),
        "channel": actor.get("channel"),
        "relayed": actor.get("relayed"),
    }


def episodes_recorded(conn: Connection, episode_ids: Iterable[str]) -> set[str]:
    """Those of ``episode_ids`` that have an entry here other than a forget (an ``episode.add``)."""
    return {
        str(target_id)
        for (target_id,) in conn.execute(
            f"SELECT DISTINCT target_id FROM ledger WHERE target_id {IN_IDS} AND target_kind = 'episode' "
            "AND op != 'forget'",
            (ids_param(episode_ids),),
        )
    }
