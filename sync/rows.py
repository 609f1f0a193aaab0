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

This module holds the merge rules as plain functions over values, and sync's own record of
each row: ``sync_rows`` (per-field clocks) and ``sync_counters`` (per-device counter shares),
the only tables it holds SQL for. The rows themselves are read and written by the engine's
repositories (core/storage/item_rows.py, episode_rows.py, grants.py, landing.py);
sync/batch_rows.py lands a whole batch. Everything runs inside the caller's transaction.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any

import orjson
from veramem_desktop.core.storage.store import Connection

#: fields that change after insert, resolved by clock (counters are handled apart)
MEMORY_LWW = (
    "visibility",
    "trust",
    "status",
    "valid_to",
    "confidence",
    "retrieval_strength",
    "importance",
    "last_used_at",
    "shareable",
    "pinned",
    "metadata",
    "updated_at",
)
COUNTERS = ("uses", "successes", "failures")
GRANT_LWW = ("revoked_at",)

Tick = Callable[[], str]
"""Returns a fresh clock value of this device (encoded HLC) each call."""


# --- per-field clocks --------------------------------------------------------------------


def load_state(conn: Connection, row_id: str) -> dict[str, list[Any]]:
    row = conn.execute("SELECT state FROM sync_rows WHERE row_id = ?", (row_id,)).fetchone()
    return {} if row is None else dict(json.loads(row[0]))


def dump_state(state: dict[str, list[Any]]) -> str:
    """A row's clocks as ``sync_rows`` keeps them: JSON that :func:`load_state` reads back as ``state``.

    orjson writes it (about a tenth of the time of json, on every memory a batch lands) unless a
    value is a float that is not finite, which orjson would write as null; json writes those (as
    ``NaN`` or ``Infinity``, which json reads back), and whatever else orjson refuses."""
    for pair in state.values():  # each a [value, clock] pair whose value is not a float that is not finite
        if (
            not isinstance(pair, list)
            or not pair
            or (isinstance(pair[0], float) and not math.isfinite(pair[0]))
        ):
            break
    else:  # (a loop, not all() over a generator of calls: once per memory a batch lands)
        try:
            return orjson.dumps(state, option=orjson.OPT_SORT_KEYS).decode("utf-8")
        except TypeError:  # orjson's JSONEncodeError: a value it does not write
            pass
    return _STATE_JSON.encode(state)


_STATE_JSON = json.JSONEncoder(sort_keys=True)  # as json.dumps(state, sort_keys=True), built once


def save_state(conn: Connection, row_id: str, state: dict[str, list[Any]]) -> None:
    conn.execute(_SAVE_STATE_SQL, (row_id, dump_state(state)))


def save_states(conn: Connection, states: dict[str, dict[str, list[Any]]]) -> None:
    """Write many rows' clocks in one statement."""
    conn.executemany(_SAVE_STATE_SQL, [(row_id, dump_state(state)) for row_id, state in states.items()])


_SAVE_STATE_SQL = (
    "INSERT INTO sync_rows(row_id, state) VALUES (?, ?) ON CONFLICT(row_id) DO UPDATE SET "
    "state = excluded.state"
)


def stamp_changes(
    state: dict[str, list[Any]], current: dict[str, Any], fields: tuple[str, ...], tick: Tick
) -> bool:
    """Give every field whose value differs from ``state`` a new clock (in place); True if any did."""
    changed = False
    for name in fields:
        value = current[name]
        if name not in state or state[name][0] != value:
            state[name] = [value, tick()]
            changed = True
    return changed


def capture(
    conn: Connection, row_id: str, current: dict[str, Any], fields: tuple[str, ...], tick: Tick
) -> dict[str, list[Any]]:
    """Stamp local changes: every field whose value differs from the record gets a new clock."""
    state = load_state(conn, row_id)
    if stamp_changes(state, current, fields, tick):
        save_state(conn, row_id, state)
    return state


def adopted(remote: dict[str, Any], fields: tuple[str, ...]) -> dict[str, list[Any]]:
    """A row just inserted from another device starts with that device's clocks (not fresh local ones,
    which would make its values look newer than later changes made elsewhere)."""
    adopted: dict[str, list[Any]] = {}
    for name in fields:
        pair = remote.get(name)
        if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], str):  # [value, clock]
            adopted[name] = pair
    return adopted


def take_newer(
    state: dict[str, list[Any]], current: dict[str, Any], remote: dict[str, Any], fields: tuple[str, ...]
) -> tuple[dict[str, Any], bool]:
    """Last writer wins per field: take each remote pair with a later clock into ``state`` (in place).
    Returns the values that change the row, and whether ``state`` changed."""
    updates: dict[str, Any] = {}
    taken = False
    for name in fields:
        pair = remote.get(name)
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], str)):  # [value, clock]
            continue
        if name not in state or pair[1] > state[name][1]:  # encoded clocks sort like the clocks
            if state.get(name) != pair:
                taken = True
            state[name] = pair
            if pair[0] != current[name]:
                updates[name] = pair[0]
    return updates, taken


def forget_state(conn: Connection, row_id: str) -> None:
    conn.execute("DELETE FROM sync_rows WHERE row_id = ?", (row_id,))
    conn.execute("DELETE FROM sync_counters WHERE memory_id = ?", (row_id,))


# --- per-device counters -----------------------------------------------------------------


def own_counters(
    conn: Connection, memory_id: str, device: str, current: dict[str, Any], tick: Tick
) -> list[Any]:
    """This device's share: the total minus every other device's share (stored, stamped if changed)."""
    shares = load_shares(conn, memory_id)
    own = own_share(current, [v for d, v in shares.items() if d != device])
    share = shares.get(device)
    if share is not None:
        uses, successes, failures, clock = share
        if [int(uses), float(successes), float(failures)] == own:
            return [*own, clock]
    stamp = tick()
    conn.execute(_SAVE_SHARE_SQL, (memory_id, device, own[0], own[1], own[2], stamp))
    return [*own, stamp]


def load_shares(conn: Connection, memory_id: str) -> dict[str, list[Any]]:
    """Every device's share of a memory's counters: device -> [uses, successes, failures, clock]."""
    return {
        str(device): [uses, successes, failures, hlc]
        for device, uses, successes, failures, hlc in conn.execute(
            "SELECT device_id, uses, successes, failures, hlc FROM sync_counters WHERE memory_id = ?",
            (memory_id,),
        )
    }


def save_shares(conn: Connection, shares: Sequence[Sequence[Any]]) -> None:
    """Write many shares, each (memory id, device id, uses, successes, failures, clock), in one statement."""
    conn.executemany(_SAVE_SHARE_SQL, shares)


_SAVE_SHARE_SQL = (
    "INSERT OR REPLACE INTO sync_counters(memory_id, device_id, uses, successes, failures, hlc) "
    "VALUES (?,?,?,?,?,?)"
)


def own_share(current: dict[str, Any], others: list[list[Any]]) -> list[Any]:
    """This device's share of ``current``'s counters: the total minus the ``others``' shares
    ([uses, successes, failures, …] each; float parts summed exactly, as SQLite's sum() does)."""
    return [
        int(current["uses"]) - sum(int(o[0]) for o in others),
        float(current["successes"]) - math.fsum(float(o[1]) for o in others),
        float(current["failures"]) - math.fsum(float(o[2]) for o in others),
    ]


def total_of(shares: dict[str, list[Any]]) -> tuple[int, float, float]:
    """The counters a memory row holds: the sum of every device's share, added in device order so
    every device adds the same floats in the same order."""
    uses, succ, fail = 0, 0.0, 0.0
    for device in sorted(shares):
        share = shares[device]
        uses += int(share[0])
        succ += float(share[1])
        fail += float(share[2])
    return uses, succ, fail
