"""The import of a memory export (core/transfer/memory_export.py) back into a store.

Ids are kept: an import recreates the same memories, versions, evidence and links under
the same ids, so a memory found in an old export, a trace or a note can still be looked up,
and importing a file twice adds nothing the second time (an id already stored is skipped).

What an import trusts from the file and what it checks: every episode's text must match its
sha256; every quote must be found in its episode (a chain with a quote that is not is
refused whole, as in the write path); a memory's authority is never above what the roles
of its evidence give (invariant 3); a rejected memory's value is recorded as rejected
again. Every row written appends to the ledger in the same transaction.

Every row passes the admission gate (core/trust/admission.py): an episode or memory this store
forgot (its id tombstoned, or the episode's marks) is skipped and counted, and so is a memory whose
evidence was; trust is never taken from the file (a memory is a candidate unless this store's
ledger records a person approving it), and a lower-authority memory keeps its source's wording; a
memory restating a rejected value is not imported, and an episode holding one (or a near miss of
one) is withheld as it lands; an item whose expiry has passed is not imported.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import (
    derivations,
    episode_contents,
    episode_rows,
    index,
    index_rows,
    item_rows,
    item_states,
    items,
    limits,
    link_rows,
    rejections,
)
from veramem_desktop.core.storage.canonical import text_sha256
from veramem_desktop.core.storage.episode_contents import Said
from veramem_desktop.core.storage.episodes import EPISODE_COLUMNS, Episode, EpisodeInput, validate
from veramem_desktop.core.storage.items import AUTHORITY_RANK, ROLE_AUTHORITY, Evidence, MemoryItem
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.storage.text import for_index
from veramem_desktop.core.text.turns import context_text, episode_fts_text
from veramem_desktop.core.transfer.archive_admission import (
    ArchiveResult,
    admitted_chain,
    admitted_episodes,
    forgotten_chain,
    values,
)
from veramem_desktop.core.transfer.bounded import MAX_RECORD_BYTES
from veramem_desktop.core.transfer.chats import ARCHIVE_TYPE
from veramem_desktop.core.transfer.memory_export import CHUNK, VERSION
from veramem_desktop.core.transfer.message_lists import bounded_lines
from veramem_desktop.core.transfer.opening import open_regular
from veramem_desktop.core.transfer.records import Problem
from veramem_desktop.core.trust import admission
from veramem_desktop.core.trust.quotes import locate
from veramem_desktop.core.vocabulary import Authority, Kind, Trust
from veramem_desktop.core.write.ingest import ledger_added, line_of

_ITEM_FIELDS = {f.name for f in fields(MemoryItem)}
_EPISODE_FIELDS = [c.strip() for c in EPISODE_COLUMNS.split(",")]
#: records of one type read but not stored yet, each with its line number
Pending = list[tuple[int, dict[str, Any]]]


def import_archive(
    store: Store,
    embedder: Embedder,
    path: Path,
    *,
    device: str,
    dry_run: bool = False,
    include_forgotten: bool = False,
) -> ArchiveResult:
    """Read a ``veramem export memories`` JSON-lines file into ``store`` (see the module's docstring).
    ``include_forgotten`` (a person's act) lets forgotten episodes in again; the ledger records it."""
    result = ArchiveResult(include_forgotten=include_forgotten)
    pending_eps: Pending = []
    pending_mems: Pending = []
    pending_links: Pending = []
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


def read_archive(path: Path) -> Iterator[tuple[int, dict[str, Any] | Problem]]:
    """The lines of a ``veramem export memories`` file as (line number, object or Problem): a regular
    file only, each line read within a bound (core/transfer/opening.py, message_lists.bounded_lines)."""
    with open_regular(path) as f:
        for n, line in bounded_lines(f, MAX_RECORD_BYTES):
            if line is None:
                yield (
                    n,
                    Problem(
                        f"line {n}", f"is longer than {MAX_RECORD_BYTES // (1024 * 1024)} MB; it was skipped"
                    ),
                )
                continue
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                yield n, Problem(f"line {n}", "is not valid JSON")
                continue
            yield n, obj if isinstance(obj, dict) else Problem(f"line {n}", "is not a JSON object")


def _flush_episodes(
    store: Store, embedder: Embedder, pending: Pending, result: ArchiveResult, device: str, dry_run: bool
) -> None:
    if not pending:
        return
    have = episode_contents.existing_ids(store, [str(o.get("id")) for _, o in pending])
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
    eps, overridden = admitted_episodes(store, eps, result)
    if dry_run or not eps:
        result.dry_episodes.update(
            {e.id: Said(content=e.content, role=e.role) for e in eps} if dry_run else {}
        )
        result.episodes += len(eps)
        result.stored += len(eps)
        return
    lines = [line_of(e.role, e.source_name, e.content) for e in eps]
    vectors = index.embed_texts(embedder, lines + [context_text(None, line, None) for line in lines])
    with store.atomic() as conn:
        for ep in eps:
            episode_rows.insert_rows(conn, [values(ep)])
            index_rows.add_fts(
                conn,
                "episode",
                ep.id,
                for_index(episode_fts_text(line_of(ep.role, ep.source_name, ep.content), None)),
            )
            ledger_added(
                conn,
                ep,
                device=device,
                details={"session": ep.session_id, "imported": True} if ep.session_id else {"imported": True},
            )
            index.store_entities(conn, "episode", ep.id, line_of(ep.role, ep.source_name, ep.content))
        ids = [e.id for e in eps]
        rejections.withhold_if_rejected(
            conn, "episode", [(e.id, e.user_id, e.team_id, e.content) for e in eps]
        )
        admission.ledger_override(conn, overridden, device=device)
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
    store: Store, embedder: Embedder, pending: Pending, result: ArchiveResult, device: str, dry_run: bool
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
        if forgotten_chain(store, chain, result):
            continue
        checked = _check_chain(store, chain, f"line {n}", result)
        if checked is not None:
            checked = admitted_chain(store, checked, f"line {n}", result)
        if checked is not None:
            chains.append(checked)
    pending.clear()
    have = item_states.existing_ids(store, [item.id for chain in chains for item, _, _ in chain])
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
            derivations.add(conn, item.id, derived)
            if written.trust == Trust.REJECTED:
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
        item_rows.set_row_fields(conn, item.id, {"updated_at": item.updated_at})
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
            or item.kind not in (Kind.FACT, Kind.PREFERENCE, Kind.EVENT, Kind.EXPERIENCE, Kind.SUMMARY)
            or item.authority not in AUTHORITY_RANK
        ):
            result.problems.append(
                Problem(where, f"memory {item.id or '?'} has a missing id, kind or authority")
            )
            return None
        found: list[Evidence] = []
        for ev in evidence:
            said = episode_contents.content_and_role(store, ev.episode_id) or result.dry_episodes.get(
                ev.episode_id
            )
            if (
                said is not None
                and said.content[ev.span_start : ev.span_end] == ev.quote
                and ev.quote.strip()
            ):
                found.append(replace(ev, role=said.role))  # the quote stands where the export says
                continue
            match = locate(said.content, ev.quote) if said is not None else None
            if said is None or match is None:
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
                    said.content[match.start : match.end],
                    match.start,
                    match.end,
                    match.score,
                    said.role,
                )
            )
        ceiling = items.weakest([ROLE_AUTHORITY[e.role] for e in found]) if found else Authority.UNENDORSED
        if AUTHORITY_RANK[item.authority] > AUTHORITY_RANK[ceiling]:
            result.notices.append(
                f"memory {item.id}: authority {item.authority} lowered to {ceiling}, what its evidence gives"
            )
            item = replace(item, authority=ceiling)
        out.append((item, found, derived))
    return out


def _flush_links(store: Store, pending: Pending, result: ArchiveResult, device: str, dry_run: bool) -> None:
    from veramem_desktop.core.lifecycle.links import add_link, keep_created_at

    if not pending:
        return
    if dry_run:
        result.links += len(pending)
        result.stored += len(pending)
        pending.clear()
        return
    ids = {str(o.get(k)) for _, o in pending for k in ("src", "dst")}
    have = item_states.existing_ids(store, sorted(ids))
    with store.atomic() as conn:
        for n, obj in pending:
            src, dst, kind = str(obj.get("src")), str(obj.get("dst")), obj.get("link_type")
            if src not in have or dst not in have or not isinstance(kind, str):
                result.problems.append(Problem(f"line {n}", "is a link between memories that are not stored"))
                continue
            if link_rows.has_edge(conn, src, dst, kind):
                result.already_stored += 1
                continue
            add_link(conn, src, dst, kind, float(obj.get("score") or 0.0), device=device)
            if isinstance(obj.get("created_at"), str):  # kept as exported, like the memories' times
                keep_created_at(conn, src, dst, kind, obj["created_at"])
            result.links += 1
            result.stored += 1
    pending.clear()
