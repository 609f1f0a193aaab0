"""Memory items and their evidence: create, version, retract, read, history.

The other reads of memories are beside this module, one concept each: ``item_states`` (status,
trust, pins, the standing set and the review queue), ``item_chains`` (version chains and what was
made from what), ``item_scopes`` (memories of one scope or key), ``item_evidence`` (what memories
cite) and ``item_search`` (the rows search ranks); ``item_rows`` reads and writes rows as they are,
for sync and import.

Every change here appends to the ledger in the caller's transaction. Updates are
new versions (``supersedes``); the old row becomes ``superseded`` with ``valid_to``.
Retraction changes status only. Only ``forget`` (core/lifecycle/forget.py) erases.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from veramem_desktop.core.errors import NotFoundError
from veramem_desktop.core.storage import derivations, index_rows, ledger, rejections, visibility
from veramem_desktop.core.storage.ids import new_id, now_iso
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.storage.text import for_index
from veramem_desktop.core.vocabulary import Authority, Kind, Status, Trust

AUTHORITY_RANK: dict[str, int] = {Authority.UNENDORSED: 0, Authority.ATTESTED: 1, Authority.AUTHORIZED: 2}
ROLE_AUTHORITY: dict[str, Authority] = {
    "user": Authority.AUTHORIZED,
    "system": Authority.AUTHORIZED,
    "assistant": Authority.ATTESTED,
    "tool": Authority.UNENDORSED,
    "document": Authority.UNENDORSED,
    "shared": Authority.UNENDORSED,
}


def weakest(authorities: Sequence[str]) -> str:
    """The lowest authority among ``authorities`` (a merge never raises authority)."""
    return min(authorities, key=lambda a: AUTHORITY_RANK[a]) if authorities else Authority.UNENDORSED


@dataclass(frozen=True)
class Evidence:
    episode_id: str
    quote: str
    span_start: int
    span_end: int
    score: float
    role: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class MemoryItem:
    id: str
    kind: str
    text: str
    authority: str
    user_id: str | None = None
    agent_id: str | None = None
    team_id: str | None = None
    session_id: str | None = None
    visibility: str = "private"
    trust: str = Trust.CANDIDATE
    status: str = Status.ACTIVE
    subject: str | None = None
    predicate: str | None = None
    value: str | None = None
    valid_from: str = ""
    valid_to: str | None = None
    created_at: str = ""
    updated_at: str = ""
    supersedes: str | None = None
    root_id: str = ""
    version: int = 1
    confidence: float = 0.7
    retrieval_strength: float = 1.0
    importance: float = 0.5
    uses: int = 0
    successes: float = 0.0
    failures: float = 0.0
    last_used_at: str | None = None
    shareable: bool = False
    pinned: bool = False
    source: str = "user"
    provenance: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def utility(self) -> float:
        """Laplace-smoothed success rate: 0.5 with no outcomes."""
        return (self.successes + 1.0) / (self.successes + self.failures + 2.0)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["utility"] = round(self.utility, 4)
        return data


ITEM_COLUMNS = (
    "id, kind, text, authority, user_id, agent_id, team_id, session_id, visibility, trust, status, subject, "
    "predicate, value, valid_from, valid_to, created_at, updated_at, supersedes, root_id, version, confidence, "
    "retrieval_strength, importance, uses, successes, failures, last_used_at, shareable, pinned, source, "
    "provenance, metadata"
)
_FIELDS = [c.strip() for c in ITEM_COLUMNS.split(",")]


def row_to_item(row: Sequence[Any]) -> MemoryItem:
    data = dict(zip(_FIELDS, row, strict=True))
    data["metadata"] = json.loads(data["metadata"] or "{}")
    data["shareable"] = bool(data["shareable"])
    data["pinned"] = bool(data["pinned"])
    return MemoryItem(**data)


def _item_params(item: MemoryItem) -> list[Any]:
    return [_stored(name, getattr(item, name)) for name in _FIELDS]


def _stored(name: str, value: Any) -> Any:
    """A field's value as its column holds it: metadata as JSON text, flags as integers."""
    if name == "metadata":
        return json.dumps(value, sort_keys=True)
    return int(value) if isinstance(value, bool) else value


#: the fields a memory's ledger commitment covers (content_of, content_of_row)
_COMMITTED = ("text", "kind", "authority", "status", "trust", "value")


def content_of(item: MemoryItem) -> dict[str, Any]:
    """What a memory's ledger commitment covers."""
    return {name: getattr(item, name) for name in _COMMITTED}


def content_of_row(row: dict[str, Any]) -> dict[str, Any]:
    """:func:`content_of` of a memory row (column name -> value), without building the item."""
    return {name: row[name] for name in _COMMITTED}


def insert(
    conn: Connection,
    item: MemoryItem,
    evidence: Sequence[Evidence],
    *,
    device: str,
    op: str = "memory.add",
    details: dict[str, Any] | None = None,
) -> MemoryItem:
    """Insert a new item (or version) with its evidence, FTS row and ledger entry."""
    now = now_iso()
    item = replace(
        item,
        id=item.id or new_id("mem"),
        created_at=item.created_at or now,
        updated_at=now,
        valid_from=item.valid_from or now,
    )
    if not item.root_id:
        item = replace(item, root_id=item.id)
    if item.kind == Kind.PREFERENCE and item.visibility != "private":
        item = replace(item, visibility="private")  # preferences are always private
    marks = ",".join("?" * len(_FIELDS))
    conn.execute(f"INSERT INTO memory_items({ITEM_COLUMNS}) VALUES ({marks})", _item_params(item))
    for ev in evidence:
        add_evidence(conn, item.id, ev, now=now)
    index_rows.add_fts(conn, "memory", item.id, for_index(item.text))
    ledger.append(
        conn,
        op=op,
        target_kind="memory",
        target_id=item.id,
        commitment_hex=ledger.commit_to(conn, item.id, content_of(item)),
        device=device,
        details={
            **({"supersedes": item.supersedes} if item.supersedes else {}),
            "evidence": sorted({e.episode_id for e in evidence}),
            **(details or {}),
        },
    )
    # Whatever writes a memory (a merge, a summary, a shared copy) cannot carry a rejected value into recall.
    rejections.withhold_if_rejected(conn, "memory", [(item.id, item.user_id, item.team_id, item.text)])
    return item


def add_evidence(conn: Connection, memory_id: str, ev: Evidence, *, now: str | None = None) -> None:
    conn.execute(
        "INSERT INTO evidence(memory_id, episode_id, quote, span_start, span_end, score, role, created_at)"
        " VALUES (?,?,?,?,?,?,?,?)",
        (memory_id, ev.episode_id, ev.quote, ev.span_start, ev.span_end, ev.score, ev.role, now or now_iso()),
    )


def set_fields(
    conn: Connection,
    item_id: str,
    *,
    device: str,
    op: str,
    details: dict[str, Any] | None = None,
    **changes: Any,
) -> MemoryItem:
    """Change mutable fields (status, trust, confidence, counters…) and record it in the ledger."""
    row = conn.execute(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id = ?", (item_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"No memory {item_id}.")
    item = row_to_item(row)
    changes["updated_at"] = now_iso()
    if "metadata" in changes:
        changes["metadata"] = {**item.metadata, **changes["metadata"]}
    updated = replace(item, **changes)
    sets = ", ".join(f"{k} = ?" for k in changes)
    params = [_stored(k, v) for k, v in changes.items()]
    conn.execute(f"UPDATE memory_items SET {sets} WHERE id = ?", [*params, item_id])
    ledger.append(
        conn,
        op=op,
        target_kind="memory",
        target_id=item_id,
        commitment_hex=ledger.commit_to(conn, item_id, content_of(updated)),
        device=device,
        details={
            **{k: v for k, v in changes.items() if k in ("status", "trust", "valid_to", "visibility")},
            **(details or {}),
        },
    )
    return updated


def new_version(
    conn: Connection,
    old: MemoryItem,
    new: MemoryItem,
    evidence: Sequence[Evidence],
    *,
    device: str,
    reason: str = "",
) -> MemoryItem:
    """Write ``new`` as the next version of ``old``; ``old`` becomes superseded.

    The change happens at ``new.valid_from`` (the time of the message that caused it, so imported history
    answers ``as of`` questions right), never before ``old`` began; the wall clock only when it has none."""
    at = max(new.valid_from or now_iso(), old.valid_from)
    set_fields(conn, old.id, device=device, op="memory.supersede", status=Status.SUPERSEDED, valid_to=at)
    version = replace(
        new,
        id="",
        supersedes=old.id,
        root_id=old.root_id,
        version=old.version + 1,
        valid_from=at,
        created_at="",
        uses=old.uses,
        successes=old.successes,
        failures=old.failures,
        pinned=old.pinned,
        shareable=old.shareable,
    )
    return insert(
        conn,
        version,
        evidence,
        device=device,
        op="memory.update",
        details={"reason": reason} if reason else None,
    )


def get(store: Store, item_id: str) -> MemoryItem:
    row = store.query_one(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id = ?", (item_id,))
    if row is None:
        raise NotFoundError(
            f"No memory {item_id}. It may have been forgotten; `veramem search` lists what exists."
        )
    return row_to_item(row)


def get_many(store: Store, ids: Sequence[str]) -> dict[str, MemoryItem]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {
        r[0]: row_to_item(r)
        for r in store.query(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id IN ({marks})", list(ids))
    }


def evidence_for(store: Store, memory_id: str) -> list[Evidence]:
    return _evidence(store.query(_EVIDENCE_OF, (memory_id,)))


def evidence_on(conn: Connection, memory_id: str) -> list[Evidence]:
    """The memory's evidence in the order it was added, as the caller's transaction sees it."""
    return _evidence(conn.execute(_EVIDENCE_OF, (memory_id,)).fetchall())


_EVIDENCE_OF = "SELECT episode_id, quote, span_start, span_end, score, role FROM evidence WHERE memory_id = ? ORDER BY id"


def _evidence(rows: Sequence[Any]) -> list[Evidence]:
    return [
        Evidence(episode_id, quote, int(start), int(end), float(score), role)
        for episode_id, quote, start, end, score, role in rows
    ]


def history(store: Store, item_id: str) -> list[MemoryItem]:
    """Every version of the memory ``item_id`` belongs to, oldest first."""
    root = get(store, item_id).root_id
    rows = store.query(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE root_id = ? ORDER BY version, created_at", (root,)
    )
    return [row_to_item(r) for r in rows]


def as_of(store: Store, item_id: str, moment: str) -> MemoryItem | None:
    """The version of ``item_id``'s chain that was valid at ``moment`` (ISO string)."""
    for item in reversed(history(store, item_id)):
        if item.valid_from <= moment and (item.valid_to is None or item.valid_to > moment):
            return item
    return None


def list_items(
    store: Store,
    *,
    user_id: str | None = None,
    kind: str | None = None,
    status: str | None = Status.ACTIVE,
    authority: str | None = None,
    trust: str | None = None,
    agent_id: str | None = None,
    limit: int = 50,
    offset: int = 0,
    now: str | None = None,
) -> list[MemoryItem]:
    """Memory rows filtered by the given fields (None means any), newest first, as the visibility rule
    shows them (core/storage/visibility.py: a listing is a read like any other): expired ones never, and
    rejected or withheld ones only when the listing asks for ``trust="rejected"`` (a person asking)."""
    asked = {"user_id": user_id, "kind": kind, "status": status, "authority": authority, "trust": trust}
    asked = {column: value for column, value in {**asked, "agent_id": agent_id}.items() if value is not None}
    where = [visibility.memory_shown("memory_items"), *(f"{column} = :{column}" for column in asked)]
    params = {**asked, "now": now or now_iso(), "limit": limit, "offset": offset}
    params["show_rejected"] = int(trust == Trust.REJECTED)
    sql = f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE " + " AND ".join(where)
    sql += " ORDER BY created_at DESC LIMIT :limit OFFSET :offset"
    return [row_to_item(r) for r in store.query(sql, params)]


def merge(
    conn: Connection, sources: Sequence[MemoryItem], text: str, *, device: str, reason: str
) -> MemoryItem:
    """One memory standing for several: evidence is the union, authority the weakest of it.

    The sources become superseded by the merged item and are recorded as its derivations,
    so forgetting any source's evidence reaches the merged item too.
    """
    if len(sources) < 2:
        raise ValueError("a merge needs at least two memories")
    evidence: list[Evidence] = []
    for src in sources:
        evidence += _evidence(conn.execute(_EVIDENCE_OF, (src.id,)).fetchall())
    authority = weakest(
        [ROLE_AUTHORITY.get(e.role, Authority.UNENDORSED) for e in evidence] + [s.authority for s in sources]
    )
    first = sources[0]
    merged = replace(
        first,
        id="",
        text=text,
        authority=authority,
        created_at="",
        valid_from=min(s.valid_from for s in sources),
        supersedes=None,
        root_id="",
        version=1,
        confidence=min(s.confidence for s in sources),
        uses=sum(s.uses for s in sources),
        successes=sum(s.successes for s in sources),
        failures=sum(s.failures for s in sources),
        metadata={**first.metadata, "merged_from": [s.id for s in sources]},
    )
    item = insert(
        conn,
        merged,
        evidence,
        device=device,
        op="memory.merge",
        details={"sources": [s.id for s in sources], "reason": reason},
    )
    now = now_iso()
    for src in sources:
        set_fields(
            conn,
            src.id,
            device=device,
            op="memory.supersede",
            status=Status.SUPERSEDED,
            valid_to=now,
            details={"merged_into": item.id},
        )
    derivations.add(conn, item.id, [s.id for s in sources])
    return item
