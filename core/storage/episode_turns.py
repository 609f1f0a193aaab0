"""A session's turns in order: where an episode stands, the turns beside it, the turns before
one, and every episode in session order (what exports and the context window read).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from veramem_desktop.core.storage import access
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.columns import select_list
from veramem_desktop.core.storage.episodes import EPISODE_COLUMNS, Episode, row_to_episode
from veramem_desktop.core.storage.id_sets import chunks
from veramem_desktop.core.storage.store import Connection, Store


class Place(NamedTuple):
    """Where an episode stands: its session (None for none) and its turn index in it."""

    session_id: str | None
    turn_index: int


class TurnAt(NamedTuple):
    """One turn of a session: its index, the speaker's role and name, and its words."""

    turn_index: int
    role: str
    source_name: str | None
    content: str


def position(store: Store, episode_id: str) -> Place | None:
    """Where the episode stands (:class:`Place`), or None when it is not here."""
    found = store.query_one(f"SELECT {select_list(Place._fields)} FROM episodes WHERE id = ?", (episode_id,))
    return None if found is None else Place._make(found)


def turn(conn: Connection, session_id: str, turn_index: int) -> tuple[str, str | None, str] | None:
    """(role, source_name, content) of the turn ``turn_index`` of a session, if one is here (the
    first that SQLite's session index gives when several share the number)."""
    found = conn.execute(
        "SELECT role, source_name, content FROM episodes WHERE session_id = ? AND turn_index = ?",
        (session_id, turn_index),
    ).fetchone()
    return None if found is None else (found[0], found[1], found[2])


def turns_at(store: Store, session_id: str, turn_indexes: tuple[int, int]) -> list[TurnAt]:
    """The session's turns at either of two numbers (:class:`TurnAt`)."""
    rows = store.query(
        f"SELECT {select_list(TurnAt._fields)} FROM episodes WHERE session_id = ? AND turn_index IN (?, ?)",
        (session_id, *turn_indexes),
    )
    return [TurnAt._make(r) for r in rows]


def turn_ids(store: Store, session_id: str, turn_indexes: tuple[int, int]) -> list[str]:
    """The ids of the session's turns at the two given turn indexes."""
    return [
        episode_id
        for (episode_id,) in store.query(
            "SELECT id FROM episodes WHERE session_id = ? AND turn_index IN (?, ?)",
            (session_id, *turn_indexes),
        )
    ]


def adjacent_turns(store: Store, ids: list[str], caller: Caller, now: str) -> dict[str, list[str]]:
    """The adjacent turns (same session, turn index ± 1) of each episode, among those the caller may see."""
    out: dict[str, list[str]] = {}
    for chunk in chunks(ids, 500):
        params: dict[str, Any] = {
            **access.params(caller, now),
            **{f"c{i}": d for i, d in enumerate(chunk)},
        }
        marks = ",".join(f":c{i}" for i in range(len(chunk)))
        rows = store.query(
            "SELECT c.id, e.id FROM episodes c JOIN episodes e ON e.session_id = c.session_id "
            "AND e.turn_index IN (c.turn_index - 1, c.turn_index + 1) "
            f"WHERE c.id IN ({marks}) AND {access.episode_predicate('e')}",
            params,
        )
        for src, dst in rows:
            out.setdefault(src, []).append(dst)
    return out


def turn_beside(store: Store, session_id: str | None, turn_index: int, *, after: bool) -> Episode | None:
    """The session's nearest turn after ``turn_index`` (``after``) or before it, or None."""
    op, order = (">", "ASC") if after else ("<", "DESC")
    found = store.query_one(
        f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE session_id = ? AND turn_index {op} ? "
        f"ORDER BY turn_index {order} LIMIT 1",
        (session_id, turn_index),
    )
    return row_to_episode(found) if found is not None else None


def earlier_turns(
    conn: Connection,
    *,
    session_id: str | None,
    user_id: str | None,
    team_id: str | None,
    before_turn: int,
    moment: str,
    limit: int,
) -> list[Episode]:
    """The session's turns of one user and team before ``before_turn`` and not expired at ``moment``,
    newest first, at most ``limit``."""
    rows = conn.execute(
        f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE session_id = ? AND user_id IS ? AND team_id IS ? "
        "AND turn_index < ? AND coalesce(json_extract(metadata, '$.expires_at') > ?, 1) "
        "ORDER BY turn_index DESC, event_time DESC LIMIT ?",
        (session_id, user_id, team_id, before_turn, moment, limit),
    ).fetchall()
    return [row_to_episode(r) for r in rows]


def in_session_order(store: Store, ids: Sequence[str]) -> list[Episode]:
    """Those of ``ids`` (one ``?`` per id) that are here, by session, turn and time."""
    marks = ",".join("?" * len(ids))
    return [
        row_to_episode(r)
        for r in store.query(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE id IN ({marks}) "
            "ORDER BY session_id, turn_index, event_time",
            list(ids),
        )
    ]


def ids_in_order(store: Store, user_id: str | None) -> list[str]:
    """Ids of every episode (or of ``user_id``'s), by session, turn and time: what a full export writes."""
    where, params = ("", ()) if user_id is None else (" WHERE user_id = ?", (user_id,))
    return [
        episode_id
        for (episode_id,) in store.query(
            f"SELECT id FROM episodes{where} ORDER BY session_id, turn_index, event_time", params
        )
    ]
