"""Recall's reads of episodes (written by core/storage/episodes.py and episode_rows.py).

Each read that returns rows a caller could be shown carries the access predicate
(core/storage/access.py) in its own SQL, never as a post-filter (invariant 6):

- the ids a caller may see, the words of given turns, their speakers and neighbouring turns,
  the latest event time, the times and words of given turns (the channels, core/recall/);
- the ranking rows of given turns (core/recall/rank.py), a turn, its session position and the
  turns beside it (the answer ladder, core/recall/answer.py);
- the withheld reason of given episodes (the truth stage, core/recall/truth.py).

The reads by id that take no caller serve ids already ranked for one.
"""

from __future__ import annotations

from typing import Any

from veramem_desktop.core.storage import access
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.id_sets import chunks
from veramem_desktop.core.storage.store import Store


# ------------------------------------------------------------ for a caller (the access predicate in the SQL)
def visible_episode_ids(store: Store, caller: Caller, now: str) -> list[str]:
    """The ids of every episode the caller may see."""
    sql = f"SELECT e.id FROM episodes e WHERE {access.episode_predicate('e')}"
    return [r[0] for r in store.query(sql, access.params(caller, now))]


def episode_texts(store: Store, ids: list[str], caller: Caller, now: str) -> dict[str, str]:
    """The words of the given episodes (not empty) that the caller may see."""
    params: dict[str, Any] = {**access.params(caller, now), **{f"c{i}": d for i, d in enumerate(ids)}}
    marks = ",".join(f":c{i}" for i in range(len(ids)))
    sql = (
        f"SELECT e.id, e.content FROM episodes e WHERE e.id IN ({marks}) AND {access.episode_predicate('e')}"
    )
    return {r[0]: str(r[1]) for r in store.query(sql, params)}


def speaker_names(store: Store, caller: Caller, now: str) -> list[Any]:
    """The distinct speaker names (as stored, none missing) among the caller's visible episodes."""
    rows = store.query(
        "SELECT DISTINCT e.source_name FROM episodes e WHERE e.source_name IS NOT NULL "
        f"AND {access.episode_predicate('e')}",
        access.params(caller, now),
    )
    return [r[0] for r in rows]


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


def latest_event_time(store: Store, caller: Caller, now: str) -> str | None:
    """The latest event time among the caller's visible episodes, or None."""
    row = store.query_one(
        f"SELECT max(e.event_time) FROM episodes e WHERE {access.episode_predicate('e')}",
        access.params(caller, now),
    )
    return str(row[0]) if row and row[0] else None


def content_and_time(store: Store, episode_id: str, caller: Caller, now: str) -> Any:
    """The row (content, event time) of one episode the caller may see, or None."""
    return store.query_one(
        f"SELECT e.content, e.event_time FROM episodes e WHERE e.id = :id AND {access.episode_predicate('e')}",
        {**access.params(caller, now), "id": episode_id},
    )


def ids_times_contents(store: Store, ids: list[str], caller: Caller, now: str) -> list[Any]:
    """The rows (id, event time, content) of the given episodes that the caller may see."""
    found: list[Any] = []
    for chunk in chunks(ids, 500):
        params: dict[str, Any] = {
            **access.params(caller, now),
            **{f"c{i}": d for i, d in enumerate(chunk)},
        }
        marks = ",".join(f":c{i}" for i in range(len(chunk)))
        found.extend(
            store.query(
                f"SELECT e.id, e.event_time, e.content FROM episodes e WHERE e.id IN ({marks}) "
                f"AND {access.episode_predicate('e')}",
                params,
            )
        )
    return found


def visible_hit_row(store: Store, episode_id: str, caller: Caller, now: str) -> Any:
    """The row (id, content, role, event time, user, session, source name) of one episode the caller
    may see, or None."""
    return store.query_one(
        f"SELECT e.id, e.content, e.role, e.event_time, e.user_id, e.session_id, e.source_name FROM episodes e "
        f"WHERE e.id = :id AND {access.episode_predicate('e')}",
        {**access.params(caller, now), "id": episode_id},
    )


# ------------------------------------------------------------ by id (ids already ranked for a caller)
def speakers_of(store: Store, ids: list[str]) -> dict[str, str | None]:
    """The speaker of each of the given episodes."""
    out: dict[str, str | None] = {}
    for chunk in chunks(ids, 500):
        marks = ",".join("?" * len(chunk))
        for r in store.query(f"SELECT id, source_name FROM episodes WHERE id IN ({marks})", chunk):
            out[r[0]] = r[1]
    return out


def hit_rows(store: Store, ids: list[str]) -> list[Any]:
    """The rows (id, content, role, event time, user, session, source name) of the given episodes."""
    found: list[Any] = []
    for chunk in chunks(ids, 500):
        found.extend(
            store.query(
                "SELECT id, content, role, event_time, user_id, session_id, source_name FROM episodes "
                f"WHERE id IN ({','.join('?' * len(chunk))})",
                chunk,
            )
        )
    return found


def session_place(store: Store, episode_id: str) -> Any:
    """The row (session, turn index) of one episode, or None."""
    return store.query_one("SELECT session_id, turn_index FROM episodes WHERE id = ?", (episode_id,))


def turn_ids(store: Store, session_id: str, turn_indexes: tuple[int, int]) -> list[str]:
    """The ids of the session's turns at the two given turn indexes."""
    return [
        r[0]
        for r in store.query(
            "SELECT id FROM episodes WHERE session_id = ? AND turn_index IN (?, ?)",
            (session_id, *turn_indexes),
        )
    ]


def withheld_reasons(store: Store, episode_ids: list[str]) -> dict[str, str]:
    """Why each of the given episodes is withheld (rejected, resembles), for those that are."""
    out: dict[str, str] = {}
    for chunk in chunks(episode_ids, 500):
        for eid, reason in store.query(
            f"SELECT owner_id, reason FROM withheld WHERE owner_kind = 'episode' "
            f"AND owner_id IN ({','.join('?' * len(chunk))})",
            chunk,
        ):
            out[eid] = reason
    return out
