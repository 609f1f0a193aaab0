"""Memory export (JSON lines or Markdown) and the import of that JSON back into a store.

The JSON-lines file, one object per line:

1. a header ``{"type": "veramem.memories", "version": 1, "exported_at", "store_id", "ids": "kept"}``;
2. ``{"type": "episode", …}``: every episode a memory quotes, whole, so quotes still verify;
3. ``{"type": "memory", "root_id", "versions": [...]}``: one line per version chain, oldest
   version first, each version with every field of the memory (validity, authority, trust,
   status, counters, metadata), its ``evidence`` (episode id, verbatim quote, span, score,
   role) and ``derived_from`` (the memories a merge, summary or experience was built from);
4. ``{"type": "link", "src", "dst", "type", "score", "created_at"}``: typed edges.

Ids are kept: an import recreates the same memories, versions, evidence and links under
the same ids, so a memory found in an old export, a trace or a note can still be looked up,
and importing a file twice adds nothing the second time (an id already stored is skipped).

What an import trusts from the file and what it checks: every episode's text must match its
sha256; every quote must be found in its episode (a chain with a quote that is not is
refused whole, as in the write path); a memory's authority is never above what the roles
of its evidence give (invariant 3); a rejected memory's value is recorded as rejected
again. Vectors are not exported (they would leak the text's meaning and are rebuilt from
the text). Every row written appends to the ledger in the same transaction.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TextIO

from veramem_desktop.core import limits
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall.query import context_text, episode_fts_text
from veramem_desktop.core.storage import index, items, ledger
from veramem_desktop.core.storage.canonical import text_sha256
from veramem_desktop.core.storage.episodes import (
    EPISODE_COLUMNS,
    Episode,
    EpisodeInput,
    row_to_episode,
    validate,
)
from veramem_desktop.core.storage.items import AUTHORITY_RANK, ROLE_AUTHORITY, Evidence, MemoryItem
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.storage.text import for_index
from veramem_desktop.core.transfer.chats import ARCHIVE_TYPE, Problem, read_archive
from veramem_desktop.core.trust import rejections
from veramem_desktop.core.trust.quotes import locate
from veramem_desktop.core.write.ingest import line_of

VERSION = 1
CHUNK = 256
_ITEM_FIELDS = {f.name for f in fields(MemoryItem)}
_EPISODE_FIELDS = [c.strip() for c in EPISODE_COLUMNS.split(",")]


# ------------------------------------------------------------------ export
def _memory_ids(store: Store, user_id: str | None) -> list[tuple[str, str]]:
    sql = "SELECT id, root_id FROM memory_items"
    params: list[Any] = []
    if user_id is not None:
        sql += " WHERE user_id = ?"
        params.append(user_id)
    return [(r[0], r[1]) for r in store.query(sql + " ORDER BY root_id, version, created_at", params)]


def _chains(store: Store, ids: Sequence[tuple[str, str]]) -> Iterator[list[dict[str, Any]]]:
    """Version chains, each a list of versions (dicts with evidence and derivations), oldest first."""
    chain: list[dict[str, Any]] = []
    root = None
    for lo in range(0, len(ids), CHUNK):
        part = [i for i, _ in ids[lo : lo + CHUNK]]
        rows = items.get_many(store, part)
        marks = ",".join("?" * len(part))
        evidence: dict[str, list[dict[str, Any]]] = {}
        for r in store.query(
            "SELECT memory_id, episode_id, quote, span_start, span_end, score, role FROM evidence "
            f"WHERE memory_id IN ({marks}) ORDER BY id",
            part,
        ):
            evidence.setdefault(r[0], []).append(
                {
                    "episode_id": r[1],
                    "quote": r[2],
                    "span_start": r[3],
                    "span_end": r[4],
                    "score": r[5],
                    "role": r[6],
                }
            )
        derived: dict[str, list[str]] = {}
        for r in store.query(
            f"SELECT derived_id, source_id FROM derivations WHERE derived_id IN ({marks}) ORDER BY source_id",
            part,
        ):
            derived.setdefault(r[0], []).append(r[1])
        for mid, rid in ids[lo : lo + CHUNK]:
            if rid != root and chain:
                yield chain
                chain = []
            root = rid
            data = rows[mid].to_dict()
            data.pop("utility", None)
            chain.append({**data, "evidence": evidence.get(mid, []), "derived_from": derived.get(mid, [])})
    if chain:
        yield chain


def _episodes(store: Store, ids: Sequence[str]) -> Iterator[Episode]:
    for lo in range(0, len(ids), CHUNK):
        part = list(ids[lo : lo + CHUNK])
        marks = ",".join("?" * len(part))
        for r in store.query(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE id IN ({marks}) "
            "ORDER BY session_id, turn_index, event_time",
            part,
        ):
            yield row_to_episode(r)


def open_private(path: Path, *, overwrite: bool) -> TextIO:
    """A plaintext file the person asked for, created readable by its owner only (mode 0600, also
    when an existing file is overwritten); an existing file is kept unless ``overwrite``."""
    if path.is_dir():
        raise InvalidInputError(f"{path} is a folder; give a file name.")
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        raise InvalidInputError(f"{path} exists; choose another name, or overwrite it (--force).") from None
    except OSError as exc:
        raise InvalidInputError(f"Could not write {path}: {exc.strerror}.") from None
    os.fchmod(fd, 0o600)  # an existing file keeps its old mode through O_CREAT
    return os.fdopen(fd, "w", encoding="utf-8")


def export(
    store: Store,
    path: Path,
    *,
    fmt: str,
    user_id: str | None,
    overwrite: bool,
    store_id: str | None,
    now: str | None = None,
) -> dict[str, int]:
    """Write the export; returns counts of memories (chains), versions, episodes and links."""
    from veramem_desktop.core.storage.ids import now_iso

    ids = _memory_ids(store, user_id)
    mem_ids = [i for i, _ in ids]
    episode_ids = sorted(
        {
            r[0]
            for lo in range(0, len(mem_ids), CHUNK)
            for r in store.query(
                f"SELECT DISTINCT episode_id FROM evidence WHERE memory_id IN ({','.join('?' * len(mem_ids[lo : lo + CHUNK]))})",
                mem_ids[lo : lo + CHUNK],
            )
        }
    )
    wanted = set(mem_ids)
    link_rows = [
        r
        for r in store.query("SELECT src, dst, type, score, created_at FROM links ORDER BY src, dst, type")
        if r[0] in wanted and r[1] in wanted
    ]
    counts = {"memories": 0, "versions": 0, "episodes": 0, "links": 0}
    header = {
        "type": ARCHIVE_TYPE,
        "version": VERSION,
        "exported_at": now or now_iso(),
        "store_id": store_id,
        "ids": "kept",
        "plaintext": True,
    }
    with open_private(path, overwrite=overwrite) as out:
        if fmt == "jsonl":
            out.write(_line(header))
            for ep in _episodes(store, episode_ids):
                out.write(_line({"type": "episode", **ep.to_dict()}))
                counts["episodes"] += 1
            for chain in _chains(store, ids):
                out.write(_line({"type": "memory", "root_id": chain[0]["root_id"], "versions": chain}))
                counts["memories"] += 1
                counts["versions"] += len(chain)
            for r in link_rows:
                out.write(
                    _line(
                        {
                            "type": "link",
                            "src": r[0],
                            "dst": r[1],
                            "link_type": r[2],
                            "score": r[3],
                            "created_at": r[4],
                        }
                    )
                )
                counts["links"] += 1
        else:
            episodes = {e.id: e for e in _episodes(store, episode_ids)}
            counts["episodes"] = len(episodes)
            links: dict[str, list[tuple[str, str, str]]] = {}
            for r in link_rows:
                links.setdefault(r[0], []).append(("→", r[2], r[1]))
                links.setdefault(r[1], []).append(("←", r[2], r[0]))
            out.write(
                f"# VeraMem memories\n\nExported {header['exported_at']}. This file is PLAINTEXT: it is not "
                "encrypted.\n"
            )
            for chain in _chains(store, ids):
                out.write(_markdown(chain, episodes, links))
                counts["memories"] += 1
                counts["versions"] += len(chain)
            counts["links"] = len(link_rows)
    return counts


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n"


def _markdown(
    chain: list[dict[str, Any]], episodes: dict[str, Episode], links: dict[str, list[tuple[str, str, str]]]
) -> str:
    last = chain[-1]
    lines = [
        f"\n## {last['text']}\n",
        f"- id `{last['id']}` · {last['kind']} · {last['status']} · authority {last['authority']} · "
        f"trust {last['trust']} · user {last['user_id'] or '-'}",
    ]
    lines.append(
        f"- valid from {last['valid_from']}" + (f" to {last['valid_to']}" if last["valid_to"] else "")
    )
    if len(chain) > 1:
        lines.append("\n### Versions\n")
        for v in chain:
            until = f" to {v['valid_to']}" if v["valid_to"] else ""
            lines.append(
                f"{v['version']}. {v['text']} ({v['status']}; valid from {v['valid_from']}{until}; "
                f"`{v['id']}`)"
            )
    quoted = [(v["version"], e) for v in chain for e in v["evidence"]]
    if quoted:
        lines.append("\n### Evidence\n")
        for version, e in quoted:
            ep = episodes.get(e["episode_id"])
            where = f"{ep.source_name or ep.role}, {ep.event_time}" if ep else e["role"]
            lines.append(f"> {e['quote']}\n\n— {where} (version {version}, episode `{e['episode_id']}`)\n")
    edges = [edge for v in chain for edge in links.get(v["id"], [])]
    if edges:
        lines.append("\n### Links\n")
        lines += [f"- {arrow} {kind} `{other}`" for arrow, kind, other in edges]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ import
@dataclass
class ArchiveResult:
    read: int = 0
    stored: int = 0
    already_stored: int = 0
    memories: int = 0
    versions: int = 0
    episodes: int = 0
    links: int = 0
    problems: list[Problem] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    #: with ``dry_run``, the episodes read so far (id -> (content, role)), for checking quotes
    dry_episodes: dict[str, tuple[str, str]] = field(default_factory=dict)


def import_archive(
    store: Store, embedder: Embedder, path: Path, *, device: str, dry_run: bool = False
) -> ArchiveResult:
    """Read a ``veramem export memories`` JSON-lines file into ``store`` (see the module's docstring)."""
    result = ArchiveResult()
    pending_eps: list[tuple[int, dict[str, Any]]] = []
    pending_mems: list[tuple[int, dict[str, Any]]] = []
    pending_links: list[tuple[int, dict[str, Any]]] = []
    header_seen = False
    for n, obj in read_archive(path):
        if isinstance(obj, Problem):
            result.problems.append(obj)
            continue
        if not header_seen:
            if obj.get("type") != ARCHIVE_TYPE or obj.get("version") != VERSION:
                raise InvalidInputError(f"{path} is not a VeraMem memory export of version {VERSION}.")
            header_seen = True
            continue
        result.read += 1
        kind = obj.get("type")
        target = {"episode": pending_eps, "memory": pending_mems, "link": pending_links}.get(str(kind))
        if target is None:
            result.problems.append(Problem(f"line {n}", f"has the unknown type {kind!r}"))
            continue
        target.append((n, obj))
        if len(pending_eps) >= CHUNK:
            _flush_episodes(store, embedder, pending_eps, result, device, dry_run)
        if len(pending_mems) >= CHUNK:
            _flush_episodes(store, embedder, pending_eps, result, device, dry_run)
            _flush_memories(store, embedder, pending_mems, result, device, dry_run)
    _flush_episodes(store, embedder, pending_eps, result, device, dry_run)
    _flush_memories(store, embedder, pending_mems, result, device, dry_run)
    _flush_links(store, pending_links, result, device, dry_run)
    return result


def _exists(store: Store, table: str, ids: Sequence[str]) -> set[str]:
    if not ids:
        return set()
    return {
        r[0]
        for r in store.query(f"SELECT id FROM {table} WHERE id IN ({','.join('?' * len(ids))})", list(ids))
    }


def _flush_episodes(
    store: Store,
    embedder: Embedder,
    pending: list[tuple[int, dict[str, Any]]],
    result: ArchiveResult,
    device: str,
    dry_run: bool,
) -> None:
    if not pending:
        return
    have = _exists(store, "episodes", [str(o.get("id")) for _, o in pending])
    eps: list[Episode] = []
    for n, obj in pending:
        try:
            ep = Episode(**{k: obj[k] for k in _EPISODE_FIELDS})
        except (KeyError, TypeError):
            result.problems.append(Problem(f"line {n}", "is not a complete episode"))
            continue
        if ep.id in have or any(e.id == ep.id for e in eps):
            result.already_stored += 1
            continue
        try:  # the limits every add is held to
            validate([EpisodeInput(ep.content, ep.role, ep.source_name, ep.event_time, ep.metadata)])
            for name in ("id", "user_id", "agent_id", "team_id", "session_id"):
                limits.check_line(getattr(ep, name), name.replace("_", " "), "it", limit=limits.MAX_ID_CHARS)
        except InvalidInputError as exc:
            result.problems.append(Problem(f"line {n}", f"episode {ep.id}: {exc.message}"))
            continue
        if text_sha256(ep.content) != ep.sha256:
            result.problems.append(
                Problem(f"line {n}", f"episode {ep.id}: its text does not match its sha256")
            )
            continue
        eps.append(ep)
    pending.clear()
    if dry_run or not eps:
        result.dry_episodes.update({e.id: (e.content, e.role) for e in eps} if dry_run else {})
        result.episodes += len(eps)
        result.stored += len(eps)
        return
    lines = [line_of(e.role, e.source_name, e.content) for e in eps]
    vectors = index.embed_texts(embedder, lines + [context_text(None, line, None) for line in lines])
    with store.atomic() as conn:
        for ep in eps:
            conn.execute(
                f"INSERT INTO episodes({EPISODE_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    ep.id,
                    ep.content,
                    ep.sha256,
                    ep.role,
                    ep.source_name,
                    ep.user_id,
                    ep.agent_id,
                    ep.team_id,
                    ep.session_id,
                    int(ep.turn_index),
                    ep.event_time,
                    ep.created_at,
                    json.dumps(ep.metadata or {}, sort_keys=True),
                ),
            )
            cur = conn.execute("INSERT INTO fts_rows(owner_kind, owner_id) VALUES ('episode', ?)", (ep.id,))
            conn.execute(
                "INSERT INTO episode_fts(rowid, text) VALUES (?, ?)",
                (
                    cur.lastrowid,
                    for_index(episode_fts_text(line_of(ep.role, ep.source_name, ep.content), None)),
                ),
            )
            ledger.append(
                conn,
                op="episode.add",
                target_kind="episode",
                target_id=ep.id,
                commitment_hex=ledger.commit_to(conn, ep.id, {"sha256": ep.sha256, "role": ep.role}),
                device=device,
                details={"session": ep.session_id, "imported": True} if ep.session_id else {"imported": True},
            )
            index.store_entities(conn, "episode", ep.id, line_of(ep.role, ep.source_name, ep.content))
        ids = [e.id for e in eps]
        index.store_vectors(conn, "episode", embedder.name, ids, vectors[: len(eps)])
        index.store_vectors(conn, "episode_ctx", embedder.name, ids, vectors[len(eps) :])
    result.episodes += len(eps)
    result.stored += len(eps)


def _version(obj: Any) -> tuple[MemoryItem, list[Evidence], list[str]]:
    data = {k: v for k, v in obj.items() if k in _ITEM_FIELDS}
    item = MemoryItem(**data)
    evidence = [
        Evidence(
            str(e["episode_id"]),
            str(e["quote"]),
            int(e["span_start"]),
            int(e["span_end"]),
            float(e["score"]),
            str(e["role"]),
        )
        for e in obj.get("evidence", [])
    ]
    return item, evidence, [str(s) for s in obj.get("derived_from", [])]


def _flush_memories(
    store: Store,
    embedder: Embedder,
    pending: list[tuple[int, dict[str, Any]]],
    result: ArchiveResult,
    device: str,
    dry_run: bool,
) -> None:
    if not pending:
        return
    chains: list[list[tuple[MemoryItem, list[Evidence], list[str]]]] = []
    for n, obj in pending:
        try:
            chain = [_version(v) for v in obj["versions"]]
        except (KeyError, TypeError, ValueError):
            result.problems.append(
                Problem(f"line {n}", "is not a complete memory (its versions cannot be read)")
            )
            continue
        checked = _check_chain(store, chain, f"line {n}", result)
        if checked is not None:
            chains.append(checked)
    pending.clear()
    have = _exists(store, "memory_items", [item.id for chain in chains for item, _, _ in chain])
    todo = [[v for v in chain if v[0].id not in have] for chain in chains]
    result.already_stored += sum(len(c) for c in chains) - sum(len(c) for c in todo)
    todo = [c for c in todo if c]
    if dry_run or not todo:
        result.memories += len(todo)
        result.versions += sum(len(c) for c in todo)
        result.stored += sum(len(c) for c in todo)
        return
    flat = [v for chain in todo for v in chain]
    vectors = index.embed_texts(embedder, [item.text for item, _, _ in flat])
    with store.atomic() as conn:
        for (item, evidence, derived), vec in zip(flat, vectors, strict=True):
            written = _insert_exact(conn, item, evidence, device)
            index.index_memory(conn, embedder.name, item.id, item.text, vec)
            for source in derived:
                conn.execute(
                    "INSERT OR IGNORE INTO derivations(derived_id, source_id) VALUES (?, ?)",
                    (item.id, source),
                )
            if written.trust == "rejected":
                rejections.record(conn, written)
    result.memories += len(todo)
    result.versions += len(flat)
    result.stored += len(flat)


def _insert_exact(
    conn: Connection, item: MemoryItem, evidence: Sequence[Evidence], device: str
) -> MemoryItem:
    """Insert a memory as exported (``items.insert`` stamps ``updated_at``; it is put back)."""
    written = items.insert(
        conn,
        item,
        evidence,
        device=device,
        op="memory.import",
        details={"imported": True, "status": item.status, "trust": item.trust},
    )
    if item.updated_at:
        conn.execute("UPDATE memory_items SET updated_at = ? WHERE id = ?", (item.updated_at, item.id))
        written = replace(written, updated_at=item.updated_at)
    return written


def _check_chain(
    store: Store, chain: list[tuple[MemoryItem, list[Evidence], list[str]]], where: str, result: ArchiveResult
) -> list[tuple[MemoryItem, list[Evidence], list[str]]] | None:
    """Quotes found in their episodes (spans recomputed) and authority no higher than the evidence gives."""
    out = []
    for item, evidence, derived in chain:
        if (
            not item.id
            or item.kind not in ("fact", "preference", "event", "experience", "summary")
            or item.authority not in AUTHORITY_RANK
        ):
            result.problems.append(
                Problem(where, f"memory {item.id or '?'} has a missing id, kind or authority")
            )
            return None
        found: list[Evidence] = []
        for ev in evidence:
            row = store.query_one(
                "SELECT content, role FROM episodes WHERE id = ?", (ev.episode_id,)
            ) or result.dry_episodes.get(ev.episode_id)
            if row is not None and row[0][ev.span_start : ev.span_end] == ev.quote and ev.quote.strip():
                found.append(replace(ev, role=row[1]))  # the quote stands where the export says
                continue
            match = locate(row[0], ev.quote) if row is not None else None
            if row is None or match is None:
                result.problems.append(
                    Problem(
                        where,
                        f"memory {item.id}: its quote is not found in episode "
                        f"{ev.episode_id}; the chain was not imported",
                    )
                )
                return None
            found.append(
                Evidence(
                    ev.episode_id,
                    row[0][match.start : match.end],
                    match.start,
                    match.end,
                    match.score,
                    row[1],
                )
            )
        ceiling = items.weakest([ROLE_AUTHORITY[e.role] for e in found]) if found else "unendorsed"
        if AUTHORITY_RANK[item.authority] > AUTHORITY_RANK[ceiling]:
            result.notices.append(
                f"memory {item.id}: authority {item.authority} lowered to {ceiling}, what its evidence gives"
            )
            item = replace(item, authority=ceiling)
        out.append((item, found, derived))
    return out


def _flush_links(
    store: Store, pending: list[tuple[int, dict[str, Any]]], result: ArchiveResult, device: str, dry_run: bool
) -> None:
    from veramem_desktop.core.lifecycle.links import add_link

    if not pending:
        return
    if dry_run:
        result.links += len(pending)
        result.stored += len(pending)
        pending.clear()
        return
    ids = {str(o.get(k)) for _, o in pending for k in ("src", "dst")}
    have = _exists(store, "memory_items", sorted(ids))
    with store.atomic() as conn:
        for n, obj in pending:
            src, dst, kind = str(obj.get("src")), str(obj.get("dst")), obj.get("link_type")
            if src not in have or dst not in have or not isinstance(kind, str):
                result.problems.append(Problem(f"line {n}", "is a link between memories that are not stored"))
                continue
            known = conn.execute(
                "SELECT 1 FROM links WHERE src = ? AND dst = ? AND type = ?", (src, dst, kind)
            ).fetchone()
            if known is not None:
                result.already_stored += 1
                continue
            add_link(conn, src, dst, kind, float(obj.get("score") or 0.0), device=device)
            if isinstance(obj.get("created_at"), str):  # kept as exported, like the memories' times
                conn.execute(
                    "UPDATE links SET created_at = ? WHERE src = ? AND dst = ? AND type = ?",
                    (obj["created_at"], src, dst, kind),
                )
            result.links += 1
            result.stored += 1
    pending.clear()
