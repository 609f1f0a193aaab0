"""What episodes say, and who said it when: their words, speakers and times, the rows search
ranks, and why one is withheld. A function given a caller puts the access predicate
(core/storage/access.py) in its own statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from veramem_desktop.core.storage import access
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.columns import select_list
from veramem_desktop.core.storage.id_sets import chunks
from veramem_desktop.core.storage.store import Connection, Store

#: most ids bound in one statement
_CHUNK = 500


def _ids_where(store: Store, ids: Sequence[str], pred: str, params: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        names = {f"id{n}": value for n, value in enumerate(chunk)}
        marks = ",".join(f":{name}" for name in names)
        rows = store.query(
            f"SELECT e.id FROM episodes e WHERE e.id IN ({marks}) AND {pred}", {**params, **names}
        )
        found |= {episode_id for (episode_id,) in rows}
    return found


def existing_ids(store: Store, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` that are episodes here."""
    return _ids_where(store, ids, "1", {})


def visible_ids(store: Store, ids: Sequence[str], caller: Caller, now: str) -> set[str]:
    """Those of ``ids`` that are episodes ``caller`` may see at ``now``."""
    return _ids_where(store, ids, access.episode_predicate("e"), access.params(caller, now))


def visible_episode_ids(store: Store, caller: Caller, now: str) -> list[str]:
    """The ids of every episode the caller may see."""
    sql = f"SELECT e.id FROM episodes e WHERE {access.episode_predicate('e')}"
    return [r[0] for r in store.query(sql, access.params(caller, now))]


class Said(NamedTuple):
    """An episode's words and its speaker's role."""

    content: str
    role: str


class Told(NamedTuple):
    """An episode's words and when they were said."""

    content: str
    event_time: str


class TimedTurn(NamedTuple):
    """An episode's id, when it was said, and its words."""

    id: str
    event_time: str
    content: str


def content_and_role(store: Store, episode_id: str) -> Said | None:
    """The episode's words and role, or None when it is not here."""
    row = store.query_one(f"SELECT {select_list(Said._fields)} FROM episodes WHERE id = ?", (episode_id,))
    return None if row is None else Said._make(row)


def content_and_time(store: Store, episode_id: str, caller: Caller, now: str) -> Told | None:
    """The words and time of one episode the caller may see, or None."""
    row = store.query_one(
        f"SELECT {select_list(Told._fields, 'e')} FROM episodes e WHERE e.id = :id AND {access.episode_predicate('e')}",
        {**access.params(caller, now), "id": episode_id},
    )
    return None if row is None else Told._make(row)


def briefs(conn: Connection, ids: Sequence[str]) -> list[tuple[str, str, str | None, str, str]]:
    """``(id, role, source_name, event_time, content)`` of those of ``ids`` (one ``?`` per id) that are here."""
    rows = conn.execute(
        f"SELECT id, role, source_name, event_time, content FROM episodes WHERE id IN "
        f"({','.join('?' * len(ids))})",
        list(ids),
    ).fetchall()
    return [
        (episode_id, role, source_name, event_time, content)
        for episode_id, role, source_name, event_time, content in rows
    ]


def episode_texts(store: Store, ids: list[str], caller: Caller, now: str) -> dict[str, str]:
    """The words of the given episodes (not empty) that the caller may see."""
    params: dict[str, Any] = {**access.params(caller, now), **{f"c{i}": d for i, d in enumerate(ids)}}
    marks = ",".join(f":c{i}" for i in range(len(ids)))
    sql = (
        f"SELECT e.id, e.content FROM episodes e WHERE e.id IN ({marks}) AND {access.episode_predicate('e')}"
    )
    return {episode_id: str(content) for episode_id, content in store.query(sql, params)}


def ids_times_contents(store: Store, ids: list[str], caller: Caller, now: str) -> list[TimedTurn]:
    """The given episodes that the caller may see (:class:`TimedTurn`)."""
    found: list[TimedTurn] = []
    for chunk in chunks(ids, 500):
        params: dict[str, Any] = {
            **access.params(caller, now),
            **{f"c{i}": d for i, d in enumerate(chunk)},
        }
        marks = ",".join(f":c{i}" for i in range(len(chunk)))
        rows = store.query(
            f"SELECT {select_list(TimedTurn._fields, 'e')} FROM episodes e WHERE e.id IN ({marks}) "
            f"AND {access.episode_predicate('e')}",
            params,
        )
        found.extend(TimedTurn._make(r) for r in rows)
    return found


def speaker_names(store: Store, caller: Caller, now: str) -> list[Any]:
    """The distinct speaker names (as stored, none missing) among the caller's visible episodes."""
    rows = store.query(
        "SELECT DISTINCT e.source_name FROM episodes e WHERE e.source_name IS NOT NULL "
        f"AND {access.episode_predicate('e')}",
        access.params(caller, now),
    )
    return [source_name for (source_name,) in rows]


def speakers_of(store: Store, ids: list[str]) -> dict[str, str | None]:
    """The speaker of each of the given episodes."""
    out: dict[str, str | None] = {}
    for chunk in chunks(ids, 500):
        marks = ",".join("?" * len(chunk))
        for episode_id, source_name in store.query(
            f"SELECT id, source_name FROM episodes WHERE id IN ({marks})", chunk
        ):
            out[episode_id] = source_name
    return out


def latest_event_time(store: Store, caller: Caller, now: str) -> str | None:
    """The latest event time among the caller's visible episodes, or None."""
    row = store.query_one(
        f"SELECT max(e.event_time) FROM episodes e WHERE {access.episode_predicate('e')}",
        access.params(caller, now),
    )
    return str(row[0]) if row and row[0] else None


class EpisodeHitRow(NamedTuple):
    """What ranking (core/recall/rank.py) reads of an episode."""

    id: str
    content: str
    role: str
    event_time: str | None
    user_id: str | None
    session_id: str | None
    source_name: str | None


def hit_rows(store: Store, ids: list[str]) -> list[EpisodeHitRow]:
    """The ranking rows of the given episodes (:class:`EpisodeHitRow`)."""
    found: list[EpisodeHitRow] = []
    for chunk in chunks(ids, 500):
        rows = store.query(
            f"SELECT {select_list(EpisodeHitRow._fields)} FROM episodes WHERE id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        found.extend(EpisodeHitRow._make(r) for r in rows)
    return found


def visible_hit_row(store: Store, episode_id: str, caller: Caller, now: str) -> EpisodeHitRow | None:
    """The ranking row of one episode the caller may see, or None."""
    row = store.query_one(
        f"SELECT {select_list(EpisodeHitRow._fields, 'e')} FROM episodes e "
        f"WHERE e.id = :id AND {access.episode_predicate('e')}",
        {**access.params(caller, now), "id": episode_id},
    )
    return None if row is None else EpisodeHitRow._make(row)


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


def import_keys(store: Store, session_id: str, user_id: str | None) -> set[str]:
    """The import keys of the messages already stored in one session of one user (an import skips those;
    no access predicate: the person's own import)."""
    rows = store.query(
        "SELECT json_extract(metadata, '$.import_key') FROM episodes WHERE session_id = ? AND "
        "user_id IS ? AND json_extract(metadata, '$.import_key') IS NOT NULL",
        (session_id, user_id),
    )
    return {r[0] for r in rows}
