"""Episodes: immutable, hashed raw evidence, stored before anything is derived."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.storage import index_rows, ledger, limits, rejections, visibility
from veramem_desktop.core.storage.canonical import text_sha256
from veramem_desktop.core.storage.ids import iso, new_id, now_iso, parse_iso
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.storage.text import for_index, storable

ROLES = ("user", "assistant", "system", "tool", "document", "shared")


@dataclass(frozen=True)
class EpisodeInput:
    content: str
    role: str = "user"
    name: str | None = None
    time: str | datetime | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Episode:
    id: str
    content: str
    sha256: str
    role: str
    source_name: str | None
    user_id: str | None
    agent_id: str | None
    team_id: str | None
    session_id: str | None
    turn_index: int
    event_time: str
    created_at: str
    metadata: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Scope:
    """Who an add belongs to."""

    user_id: str | None = None
    agent_id: str | None = None
    team_id: str | None = None
    session_id: str | None = None


EPISODE_COLUMNS = (
    "id, content, sha256, role, source_name, user_id, agent_id, team_id, session_id, turn_index, "
    "event_time, created_at, metadata"
)


def as_row(episode: Episode) -> tuple[Any, ...]:
    """An episode as the values of its row, in the order of EPISODE_COLUMNS."""
    return (
        episode.id,
        episode.content,
        episode.sha256,
        episode.role,
        episode.source_name,
        episode.user_id,
        episode.agent_id,
        episode.team_id,
        episode.session_id,
        episode.turn_index,
        episode.event_time,
        episode.created_at,
        json.dumps(episode.metadata, sort_keys=True),
    )


#: the names of EPISODE_COLUMNS, which are also the names of :class:`Episode`'s fields
_FIELDS = [c.strip() for c in EPISODE_COLUMNS.split(",")]


def row_to_episode(row: Sequence[Any]) -> Episode:
    """The episode a row of ``SELECT {EPISODE_COLUMNS}`` holds, each value taken by its column's name."""
    data = dict(zip(_FIELDS, row, strict=True))
    data["turn_index"] = int(data["turn_index"])
    data["metadata"] = json.loads(data["metadata"] or "{}")
    return Episode(**data)


def _event_time(value: str | datetime | None, default: str, parse: Any) -> str:
    if value is None or value == "":
        return default
    if isinstance(value, datetime):
        return iso(value)
    try:
        return iso(parse(str(value)))
    except (ValueError, TypeError, OverflowError):
        raise InvalidInputError(
            f"Could not read the time {str(value)[:60]!r}. Use ISO 8601, e.g. 2024-05-08T13:56:00Z."
        ) from None


def validate(inputs: Sequence[EpisodeInput]) -> list[str]:
    """Check inputs against :mod:`.limits` before anything is written; returns notices about
    repaired text (unpaired surrogates in content become U+FFFD)."""
    limits.check_count(len(inputs))
    notices = []
    for i, item in enumerate(inputs):
        where = f"Message {i + 1}"
        if not isinstance(item, EpisodeInput):
            raise InvalidInputError(f'{where} must be text or an object with "role" and "content".')
        limits.check_content(item.content, where)
        limits.check_role(item.role, where, ROLES)
        limits.check_line(item.name, "name", where, limit=limits.MAX_NAME_CHARS)
        limits.check_time(item.time, where)
        limits.check_metadata(item.metadata, where)
        _, replaced = storable(item.content)
        if replaced:
            notices.append(
                f"message {i + 1}: {replaced} character(s) that were not valid Unicode were replaced by U+FFFD"
            )
    return notices


def insert(
    conn: Connection,
    inputs: Sequence[EpisodeInput],
    scope: Scope,
    *,
    device: str,
    parse_time: Any = parse_iso,
    fts_texts: Sequence[str] | None = None,
) -> list[Episode]:
    """Store episodes (inside the caller's transaction): hash, insert, index text, ledger.

    ``fts_texts`` (one per input) is what the full-text index gets instead of
    :func:`index_text`, e.g. the turn with the previous turn of its session.
    """
    if fts_texts is not None and len(fts_texts) != len(inputs):
        raise ValueError(f"fts_texts has {len(fts_texts)} texts for {len(inputs)} episodes")
    now = now_iso()
    start = 0
    if scope.session_id is not None:
        row = conn.execute(
            "SELECT coalesce(max(turn_index) + 1, 0) FROM episodes WHERE session_id = ?", (scope.session_id,)
        ).fetchone()
        start = int(row[0])
    stored: list[Episode] = []
    for i, item in enumerate(inputs):
        content, _ = storable(item.content)
        episode = Episode(
            id=new_id("ep"),
            content=content,
            sha256=text_sha256(content),
            role=item.role,
            source_name=item.name,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            team_id=scope.team_id,
            session_id=scope.session_id,
            turn_index=start + i,
            event_time=_event_time(item.time, now, parse_time),
            created_at=now,
            metadata=dict(item.metadata),
        )
        conn.execute(
            f"INSERT INTO episodes({EPISODE_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", as_row(episode)
        )
        index_rows.add_fts(
            conn,
            "episode",
            episode.id,
            index_text(episode) if fts_texts is None else for_index(storable(fts_texts[i])[0]),
        )
        ledger.append(
            conn,
            op="episode.add",
            target_kind="episode",
            target_id=episode.id,
            commitment_hex=ledger.commit_to(
                conn, episode.id, {"sha256": episode.sha256, "role": episode.role}
            ),
            device=device,
            details={"session": episode.session_id} if episode.session_id else {},
            speaker_role=episode.role,  # a user message an agent wrote is recorded as relayed by it
        )
        stored.append(episode)
    # A message that restates a rejected value is stored (episodes are the record) but never recalled.
    rejections.withhold_if_rejected(
        conn, "episode", [(e.id, e.user_id, e.team_id, e.content) for e in stored]
    )
    return stored


def index_text(episode: Episode) -> str:
    """What the full-text index sees of an episode: the speaker's name and the words."""
    speaker = episode.source_name or episode.role
    return for_index(f"{speaker}: {episode.content}")


def get(store: Store, episode_id: str) -> Episode | None:
    row = store.query_one(f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE id = ?", (episode_id,))
    return None if row is None else row_to_episode(row)


def get_many(store: Store, ids: Sequence[str]) -> dict[str, Episode]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = store.query(f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE id IN ({marks})", list(ids))
    return {e.id: e for e in map(row_to_episode, rows)}


def list_episodes(
    store: Store,
    *,
    user_id: str | None = None,
    session_id: str | None = None,
    limit: int = 50,
    offset: int = 0,
    newest_first: bool = True,
    include_rejected: bool = False,
    now: str | None = None,
) -> list[Episode]:
    """Episodes, newest first, that the visibility rule (core/storage/visibility.py) shows at ``now``: those
    holding a rejected value only when ``include_rejected`` (a person asking), expired ones never."""
    where = [visibility.episode_shown("episodes")]
    params: dict[str, Any] = {"now": now or now_iso(), "show_rejected": int(include_rejected)}
    if user_id is not None:
        where.append("user_id = :user")
        params["user"] = user_id
    if session_id is not None:
        where.append("session_id = :session")
        params["session"] = session_id
    sql = f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE " + " AND ".join(where)
    order = "DESC" if newest_first else "ASC"
    sql += f" ORDER BY event_time {order}, turn_index {order}, rowid {order} LIMIT :limit OFFSET :offset"
    return [row_to_episode(r) for r in store.query(sql, {**params, "limit": limit, "offset": offset})]


def sessions(store: Store, *, user_id: str | None = None) -> list[dict[str, Any]]:
    """Each session, latest first: ``episodes`` counts the messages :func:`list_episodes` shows, ``withheld``
    those it leaves out (holding a rejected value, or held for review); expired ones are not counted at all
    (the visibility rule, core/storage/visibility.py)."""
    sql = (
        "SELECT session_id, count(*), min(event_time), max(event_time), count(w.owner_id) FROM episodes "
        "LEFT JOIN (SELECT DISTINCT owner_id FROM withheld WHERE owner_kind = 'episode') w "
        f"ON w.owner_id = episodes.id WHERE NOT {visibility.episode_expired('episodes')}"
    )
    params: dict[str, Any] = {"now": now_iso()}
    if user_id is not None:
        sql += " AND user_id = :user"
        params["user"] = user_id
    sql += " GROUP BY session_id ORDER BY max(event_time) DESC"
    return [
        {
            "session_id": session_id,
            "episodes": int(total) - int(withheld),
            "withheld": int(withheld),
            "first": first,
            "last": last,
        }
        for session_id, total, first, last, withheld in store.query(sql, params)
    ]


def extent(store: Store, user_id: str | None, after: int = 0) -> tuple[int, int, int]:
    """How many episodes ``user_id`` has, the newest one's row number, and how many were stored after row
    ``after``: a reader that cached something of them knows from these whether any was added or erased
    since."""
    row = store.query_one(
        "SELECT count(*), coalesce(max(rowid), 0), count(*) FILTER (WHERE rowid > ?) FROM episodes "
        "WHERE user_id IS ?",
        (after, user_id),
    )
    return (int(row[0]), int(row[1]), int(row[2])) if row is not None else (0, 0, 0)


def texts_after(store: Store, user_id: str | None, after: int, *, limit: int) -> list[tuple[int, str]]:
    """The row number and words of ``user_id``'s episodes stored after row ``after`` that the visibility
    rule shows (no rejected value, not expired), the newest ``limit`` of them, oldest first."""
    rows = store.query(
        "SELECT rowid, content FROM episodes WHERE user_id IS :user AND rowid > :after AND "
        f"{visibility.episode_shown('episodes')} ORDER BY rowid DESC LIMIT :limit",
        {"user": user_id, "after": after, "limit": limit, "now": now_iso(), "show_rejected": 0},
    )
    return [(int(r[0]), str(r[1])) for r in reversed(rows)]
