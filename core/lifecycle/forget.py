"""Forget: erase a memory, an episode or a whole user, and everything built from them.

What goes: every version of the memory; the episodes its evidence stands in; every
memory left without evidence by that; everything derived from erased items
(merges, summaries, experiences, fused items, shared copies — through the
``derivations`` table and, for a user, the HMAC provenance of shared items); their
evidence rows, FTS entries, vectors, entities, links, traces that named them,
per-item secrets, and for a user, grants and rejected values. The ledger keeps one
tombstone per erased id with a commitment under a secret that is then erased, and
still verifies. A user's grants and rejected values get tombstones too (kind
``grant`` with the grant id, kind ``rejection`` with :func:`rejection_target` of the
rejected memory's id), so a synced device can erase the same rows without the
tombstone ever naming the user. ``secure_delete`` and FTS5 secure-delete overwrite what was freed,
and a truncating checkpoint folds the WAL so no old frame keeps a copy.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from veramem_desktop.core.errors import InvalidInputError, NotFoundError
from veramem_desktop.core.lifecycle import redaction, restatements
from veramem_desktop.core.lifecycle.links import bring_back
from veramem_desktop.core.lifecycle.restatements import NO_REACH, Reach
from veramem_desktop.core.lifecycle.turn_repair import neighbours_of, repair_neighbours
from veramem_desktop.core.storage import forget_reach as reach_rows
from veramem_desktop.core.storage import index, ledger
from veramem_desktop.core.storage.forget_reach import closure as _closure
from veramem_desktop.core.storage.forget_reach import ids_of as _ids
from veramem_desktop.core.storage.forget_reach import restorable as _restorable
from veramem_desktop.core.storage.id_sets import marks as _marks
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.trust import admission
from veramem_desktop.core.trust.provenance import provenance_of

#: A rejection tombstone's target: this prefix and the id of the memory that was rejected.
REJECTION_PREFIX = "rejection:"


@dataclass
class ForgetPlan:
    target: str
    kind: str  # "memory" | "episode" | "user"
    memories: list[str] = field(default_factory=list)
    episodes: list[str] = field(default_factory=list)
    derived: list[str] = field(
        default_factory=list
    )  # memories erased because they were built from erased ones
    restored: list[str] = field(
        default_factory=list
    )  # cold memories that come back: what stood for them is erased
    evidence: int = 0
    traces: int = 0
    grants: int = 0
    rejected_values: int = 0
    #: the messages and memories erased because they repeat what is forgotten (core/lifecycle/restatements.py),
    #: each as kind, id, session_id and the start of its text, so the person sees them before confirming
    restatements: list[dict[str, str]] = field(default_factory=list)
    #: how far restatements were looked for: none, session or everywhere
    reach: str = "none"
    #: with ``redact``: each message that is replaced by its kept sentences rather than erased whole, as
    #: {"episode": its id, "kept": the text that stays} (core/lifecycle/redaction.py)
    redactions: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ForgetReport:
    target: str
    kind: str
    erased_memories: int
    erased_episodes: int
    erased_traces: int
    tombstones: list[int]
    #: surviving turns whose context vectors held erased words and were dropped (recompute them)
    stale_context: list[str] = field(default_factory=list)
    #: the new episodes that replace redacted messages (their vectors are made by the caller)
    redacted: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def plan(store: Store, target: str, *, reach: Reach = NO_REACH, redact: bool = False) -> ForgetPlan:
    """Exactly what ``forget(target, reach=reach, redact=redact)`` would erase. ``target``: mem_…, ep_… or
    user:<id>; ``reach``: where what restates it is looked for (none by default: a synced tombstone's
    erasure); ``redact``: a memory's messages lose only the sentences that state it."""
    with store.atomic() as conn:  # a write lock only because the provenance key may be created
        return _plan(conn, target, reach=reach, redact=redact)


def _plan(
    conn: Connection, target: str, keep_cited: bool = False, *, reach: Reach = NO_REACH, redact: bool = False
) -> ForgetPlan:
    memories: set[str] = set()
    episodes: set[str] = set()
    if target.startswith("user:"):
        user = target[5:]
        if not user:
            raise InvalidInputError("Name the user to forget, e.g. user:alice.")
        kind = "user"
        # Every version of a memory of the user's is that memory, whoever wrote the version: the whole
        # chain goes (as forgetting one memory erases all its versions, and as synced devices do).
        memories = _ids(
            conn,
            "SELECT id FROM memory_items WHERE root_id IN "
            "(SELECT root_id FROM memory_items WHERE user_id = ?)",
            (user,),
        )
        episodes = _ids(conn, "SELECT id FROM episodes WHERE user_id = ?", (user,))
        memories |= _ids(
            conn, "SELECT id FROM memory_items WHERE provenance = ?", (provenance_of(conn, user),)
        )
        if (
            not memories
            and not episodes
            and not conn.execute(
                "SELECT 1 FROM traces WHERE user_id = ? UNION SELECT 1 FROM grants WHERE subject = ? OR object = ?",
                (user, user, user),
            ).fetchone()
        ):
            raise NotFoundError(f"Nothing is stored for user {user!r}.")
    elif target.startswith("mem_"):
        kind = "memory"
        row = conn.execute("SELECT root_id FROM memory_items WHERE id = ?", (target,)).fetchone()
        if row is None:
            raise NotFoundError(f"No memory {target} (it may already be forgotten).")
        memories = _ids(conn, "SELECT id FROM memory_items WHERE root_id = ?", (row[0],))
    elif target.startswith("ep_"):
        kind = "episode"
        if conn.execute("SELECT 1 FROM episodes WHERE id = ?", (target,)).fetchone() is None:
            raise NotFoundError(f"No episode {target} (it may already be forgotten).")
        episodes = {target}
    else:
        raise InvalidInputError(f"{target!r} is not a memory id (mem_…), an episode id (ep_…) or user:<id>.")
    memories, episodes, derived = _closure(conn, memories, episodes, keep_cited)
    memories, episodes, derived, found = _restating(
        conn, kind, (memories, episodes, derived), reach, keep_cited
    )
    memories, derived, cuts = _redacting(
        conn, target, kind if redact else "", found, (memories, episodes, derived)
    )
    result = ForgetPlan(
        target, kind, sorted(memories), sorted(episodes), sorted(derived), _restorable(conn, memories)
    )
    result.restatements, result.reach = found.listed, reach.where if kind != "user" else "none"
    result.redactions = [{"episode": c.episode, "kept": c.kept} for c in cuts if c.kept]
    if memories or episodes:
        ids = list(memories) + list(episodes)
        result.evidence = conn.execute(
            f"SELECT count(*) FROM evidence WHERE memory_id IN ({_marks(memories) or 'NULL'}) "
            f"OR episode_id IN ({_marks(episodes) or 'NULL'})",
            [*memories, *episodes],
        ).fetchone()[0]
        result.traces = len(_traces_touching(conn, ids))
    if kind == "user":
        user = target[5:]
        result.traces += conn.execute("SELECT count(*) FROM traces WHERE user_id = ?", (user,)).fetchone()[0]
        result.grants = conn.execute(
            "SELECT count(*) FROM grants WHERE subject = ? OR object = ?", (user, user)
        ).fetchone()[0]
        result.rejected_values = conn.execute(
            "SELECT count(*) FROM rejected_values WHERE user_id = ?", (user,)
        ).fetchone()[0]
    return result


def _restating(
    conn: Connection,
    kind: str,
    erased: tuple[set[str], set[str], set[str]],
    reach: Reach,
    keep_cited: bool,
) -> tuple[set[str], set[str], set[str], restatements.Found]:
    """The erased (memories, episodes, derived) grown by what restates the memories erased for what
    they say, with all that depends on them, and the restatements found. A user forget erases all of
    the user's anyway; items built from others say nothing of their own. For a message, what it says
    is what the memories drawn from it (plain facts, not summaries) say."""
    memories, episodes, derived = erased
    if kind == "user" or reach.where == "none":
        return memories, episodes, derived, restatements.Found()
    sourced = memories - derived
    if kind == "episode":
        sourced = {
            m
            for m in reach_rows.citing(conn, episodes) & memories
            if not reach_rows.drawn_from_messages(conn, m)
        }
    found = restatements.find(conn, sourced, episodes, reach)
    if found.episodes or found.memories:
        memories, episodes, more = _closure(
            conn, memories | found.memories, episodes | found.episodes, keep_cited
        )
        derived |= more - found.memories
    return memories, episodes, derived, found


def _redacting(
    conn: Connection,
    target: str,
    kind: str,
    found: restatements.Found,
    erased: tuple[set[str], set[str], set[str]],
) -> tuple[set[str], set[str], list[redaction.Cut]]:
    """(memories erased, those of them erased for standing on a removed sentence or built from erased
    ones, what each message keeps) for a redacting forget of memory ``target`` (``kind`` "memory"); any
    other forget keeps the full erasure's memories and cuts nothing."""
    memories, episodes, derived = erased
    if kind != "memory":
        return memories, derived, []
    versions = _ids(
        conn,
        "SELECT id FROM memory_items WHERE root_id = (SELECT root_id FROM memory_items WHERE id = ?)",
        (target,),
    )
    sourced = versions | found.memories
    gone, cuts = redaction.plan(conn, versions, sourced, episodes, restatements.phrases_of(conn, sourced))
    return gone, gone - sourced, cuts


def _traces_touching(conn: Connection, ids: list[str]) -> set[str]:
    """Traces (search, answer, write decisions) naming any of ``ids`` in their returned or cited ids.

    Looked up in ``trace_refs`` (kept by triggers on ``traces``, schema migration 5) by its index on
    the id, so the cost follows the traces that name ``ids``, not how many traces the store keeps."""
    if not ids:
        return set()
    return _ids(
        conn,
        "SELECT DISTINCT trace_id FROM trace_refs WHERE ref_id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(set(ids))),),
    )


def forget(
    store: Store,
    target: str,
    *,
    device: str,
    reason: str | None = None,
    keep_cited_episodes: bool = False,
    reach: Reach = NO_REACH,
    redact: bool = False,
) -> ForgetReport:
    """Erase ``target`` and everything its plan names, leave tombstones, fold the WAL.

    ``reach``: where what restates it is looked for and erased with it (core/lifecycle/restatements.py);
    each restatement gets its own tombstone, so a synced device erases the same rows without looking.
    ``redact``: a forgotten memory's messages are replaced by the sentences that do not state it, and
    the memories those sentences hold keep their evidence (core/lifecycle/redaction.py).

    ``reason`` goes into each tombstone (``expired`` for core/lifecycle/expiry.py); ``keep_cited_episodes``
    keeps an episode that a surviving memory still cites (expiry erases one memory, not the
    conversation others were drawn from)."""
    with store.atomic() as conn:
        p = _plan(conn, target, keep_cited_episodes, reach=reach, redact=redact)
        # the redacted messages are written, and the memories that stay moved onto them, before the
        # old messages are erased (and their tombstones written) below
        redacted = redaction.apply(
            conn,
            [redaction.Cut(r["episode"], r["kept"]) for r in p.redactions],
            set(p.memories),
            device=device,
        )
        traces = _traces_touching(conn, p.memories + p.episodes)
        tombstones: list[int] = []
        if p.kind == "user":
            traces |= _erase_user_grants_and_rejections(conn, target[5:], p.memories, device, tombstones)
        for kind, ids in (("memory", p.memories), ("episode", p.episodes)):
            for oid in ids:
                commit = ledger.commit_to(conn, oid, {"forgotten": oid})
                entry = ledger.append(
                    conn,
                    op="forget",
                    target_kind=kind,
                    target_id=oid,
                    commitment_hex=commit,
                    device=device,
                    details={"reason": reason} if reason else None,
                )
                tombstones.append(entry.seq)
        for mid in p.restored:
            bring_back(conn, mid, device=device, reason="what stood for it was forgotten")
        for mid in p.memories:
            _delete_memory(conn, mid)
        touched = neighbours_of(conn, p.episodes)
        admission.mark_episodes(conn, p.episodes, reason)  # expiry keeps none
        for eid in p.episodes:
            _delete_episode(conn, eid)
        stale_context = repair_neighbours(conn, touched)
        if traces:
            conn.execute(f"DELETE FROM traces WHERE id IN ({_marks(traces)})", list(traces))
        # Versions that survive must not point at erased ones.
        if p.memories:
            conn.execute(
                f"UPDATE memory_items SET supersedes = NULL WHERE supersedes IN ({_marks(p.memories)})",
                p.memories,
            )
    for table in ("memory_fts", "episode_fts"):
        with store.atomic() as conn:
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
    store.checkpoint()
    return ForgetReport(
        target, p.kind, len(p.memories), len(p.episodes), len(traces), tombstones, stale_context, redacted
    )


def _erase_user_grants_and_rejections(
    conn: Connection, user: str, memories: list[str], device: str, tombstones: list[int]
) -> set[str]:
    """For a user forget: erase the user's grants and rejections (their tombstones appended to
    ``tombstones``) and return the user's traces."""
    traces = _ids(conn, "SELECT id FROM traces WHERE user_id = ?", (user,))
    for gid in sorted(_ids(conn, "SELECT id FROM grants WHERE subject = ? OR object = ?", (user, user))):
        tombstones.append(erase_grant(conn, gid, device=device))
    # Rejections are found by the memory that was rejected: the user's own rows, and any rejected
    # memory of the user (another device may have recorded the same value under that memory's id).
    rejected = _ids(
        conn,
        "SELECT memory_id FROM rejected_values WHERE user_id = ? AND memory_id IS NOT NULL",
        (user,),
    )
    if memories:
        rejected |= _ids(
            conn,
            f"SELECT id FROM memory_items WHERE trust = 'rejected' AND id IN ({_marks(memories)})",
            memories,
        )
    for mid in sorted(rejected):
        tombstones.append(erase_rejections(conn, mid, device=device))
    conn.execute("DELETE FROM rejected_values WHERE user_id = ?", (user,))
    return traces


def _delete_memory(conn: Connection, mid: str) -> None:
    """Delete a memory row, what hangs on it and its secret (its tombstone is already written)."""
    index.remove_owner(conn, "memory", mid)
    conn.execute("DELETE FROM pending_links WHERE memory_id = ?", (mid,))
    conn.execute("DELETE FROM evidence WHERE memory_id = ?", (mid,))
    conn.execute("DELETE FROM links WHERE src = ? OR dst = ?", (mid, mid))
    conn.execute("DELETE FROM derivations WHERE derived_id = ? OR source_id = ?", (mid, mid))
    conn.execute("DELETE FROM mentions WHERE memory_id = ?", (mid,))
    conn.execute("DELETE FROM withheld WHERE owner_kind = 'memory' AND owner_id = ?", (mid,))
    conn.execute("DELETE FROM memory_items WHERE id = ?", (mid,))
    ledger.erase_secret(conn, mid)


def _delete_episode(conn: Connection, eid: str) -> None:
    """Delete an episode row, what hangs on it and its secret (its tombstone is already written)."""
    index.remove_owner(conn, "episode", eid)
    conn.execute("DELETE FROM evidence WHERE episode_id = ?", (eid,))
    conn.execute("DELETE FROM mentions WHERE episode_id = ?", (eid,))
    conn.execute("DELETE FROM withheld WHERE owner_kind = 'episode' AND owner_id = ?", (eid,))
    conn.execute("DELETE FROM episodes WHERE id = ?", (eid,))
    ledger.erase_secret(conn, eid)


def rejection_target(memory_id: str) -> str:
    """The tombstone target that stands for the rejected values recorded for ``memory_id``."""
    return REJECTION_PREFIX + memory_id


def erase_grant(conn: Connection, grant_id: str, *, device: str) -> int:
    """Delete one grant and leave its tombstone (kind ``grant``); returns the ledger seq.
    Used by a user forget, and on a synced device when that tombstone arrives."""
    return _erase(conn, "grant", grant_id, "DELETE FROM grants WHERE id = ?", (grant_id,), device=device)


def erase_rejections(conn: Connection, memory_id: str, *, device: str) -> int:
    """Delete the rejected values recorded for ``memory_id`` and leave their tombstone (kind
    ``rejection``); returns the ledger seq. Only a user forget erases rejections."""
    return _erase(
        conn,
        "rejection",
        rejection_target(memory_id),
        "DELETE FROM rejected_values WHERE memory_id = ?",
        (memory_id,),
        device=device,
    )


def _erase(
    conn: Connection, kind: str, target: str, delete: str, params: tuple[str, ...], *, device: str
) -> int:
    """Leave the tombstone of ``target`` (kind ``kind``), run ``delete`` and erase the target's secret;
    returns the ledger seq."""
    commit = ledger.commit_to(conn, target, {"forgotten": target})
    entry = ledger.append(
        conn, op="forget", target_kind=kind, target_id=target, commitment_hex=commit, device=device
    )
    conn.execute(delete, params)
    ledger.erase_secret(conn, target)
    return entry.seq
