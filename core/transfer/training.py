"""Training records: write decisions and answers, in the schema of
``docs/schema/training-export.schema.json``.

Two kinds of record, the shapes used to fine-tune a memory manager and an answer
agent with outcome rewards (GRPO, as in Memory-R1):

- ``write``: the new messages (and earlier turns given as context), the candidate
  memory, the neighbours offered with their texts, the operation proposed and the one
  applied, the guard that changed it, the resulting memory, and every later reward
  that reached that memory through feedback on a search or answer.
- ``answer``: the question, the items retrieved with their texts, the ids cited, the
  answer, and its reward.

Nothing withheld, rejected, expired or forgotten is written: forgotten rows and the records that
named them are gone (core/lifecycle/forget.py), and a record is left out when any memory or
episode it holds is hidden by the visibility rule now (withheld, rejected or expired), or when
any of its texts holds a value a person rejected in that scope (core/trust/exportable.py). How
many were left out is reported.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from veramem_desktop.core.storage import episode_contents, item_states, traces
from veramem_desktop.core.storage.ids import iso, now_iso
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.trust import exportable
from veramem_desktop.core.write import decisions

SCHEMA = "veramem.training/1"
KINDS = ("write", "answer")
PAGE = 500


@dataclass
class ExportCounts:
    write: int = 0
    answer: int = 0
    #: records left out because something in them is withheld or rejected now
    withheld: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"write": self.write, "answer": self.answer, "withheld": self.withheld}


def records(
    store: Store,
    *,
    kinds: tuple[str, ...] = KINDS,
    since: datetime | None = None,
    user_id: str | None = None,
    counts: ExportCounts | None = None,
) -> Iterator[dict[str, Any]]:
    """Training records, oldest first. ``since``: only those made at or after it."""
    wanted = [k for k in kinds if k in KINDS]
    counts = counts if counts is not None else ExportCounts()
    if not wanted:
        return
    trace_kinds = [decisions.KIND if k == "write" else "answer" for k in wanted]
    rewards = _rewards_by_memory(store) if "write" in wanted else {}
    start = iso(since) if since is not None else None
    after = ("", "")
    while True:
        page = traces.page_of_kinds(store, trace_kinds, user_id=user_id, since=start, after=after, limit=PAGE)
        if not page:
            return
        with store.read() as conn:
            built = [
                (_write(conn, r, rewards) if r.kind == decisions.KIND else _answer(conn, r)) for r in page
            ]
        for record in built:
            if record is None:
                counts.withheld += 1
                continue
            if record["kind"] == "write":
                counts.write += 1
            else:
                counts.answer += 1
            yield record
        after = (page[-1].created_at, page[-1].id)


def _rewards_by_memory(store: Store) -> dict[str, list[dict[str, Any]]]:
    """Every rewarded trace's reward, listed under each memory it credited (and the version it came through)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for tid, reward, at, meta in traces.rewarded(store):
        info = json.loads(meta or "{}").get("feedback", {})
        for credited in info.get("credited", []):
            entry = {
                "trace_id": tid,
                "reward": float(reward),
                "advantage": info.get("advantage"),
                "by": info.get("by"),
                "rewarded_at": at,
            }
            for mid in {credited.get("id"), credited.get("via")} - {None}:
                out.setdefault(str(mid), []).append(entry)
    return out


def _write(
    conn: Connection, row: traces.TraceRecord, rewards: dict[str, list[dict[str, Any]]]
) -> dict[str, Any] | None:
    d = json.loads(row.metadata or "{}").get("decision")
    if not isinstance(d, dict):
        return None
    episodes = _episodes(conn, [*d["messages"], *d["context"]])
    memory_ids = [n["id"] for n in d["neighbours"]] + ([d["memory"]["id"]] if d.get("memory") else [])
    messages = [episodes[i] for i in d["messages"] if i in episodes]
    context = [episodes[i] for i in d["context"] if i in episodes]
    texts = (
        [m["text"] for m in messages + context]
        + [d["candidate"]["text"], d["candidate"]["quote"]]
        + [n["text"] for n in d["neighbours"]]
        + [t for t in (d["proposed"].get("text"), (d.get("memory") or {}).get("text")) if t]
    )
    if exportable.blocked(
        conn,
        user_id=row.user_id,
        team_id=d.get("team_id"),
        memory_ids=memory_ids,
        episode_ids=list(episodes),
        texts=texts,
        now=now_iso(),
    ):
        return None
    memory = d.get("memory")
    return {
        "schema": SCHEMA,
        "kind": "write",
        "id": row.id,
        "created_at": row.created_at,
        "user_id": row.user_id,
        "agent_id": row.agent_id,
        "session_id": d.get("session_id"),
        "messages": messages,
        "context": context,
        "candidate": d["candidate"],
        "neighbours": d["neighbours"],
        "proposed": d["proposed"],
        "operation": d["operation"],
        "target_id": d["target_id"],
        "guard": d["guard"],
        "reason": d["reason"],
        "outcome": d["outcome"],
        "memory": memory,
        "retired": d.get("retired", []),
        "rewards": list(rewards.get(memory["id"], [])) if memory else [],
    }


def _answer(conn: Connection, row: traces.TraceRecord) -> dict[str, Any] | None:
    ids = json.loads(row.returned_ids or "[]")
    cited = json.loads(row.cited_ids or "[]")
    mem_ids = [i for i in ids if i.startswith("mem_")]
    ep_ids = [i for i in ids if i.startswith("ep_")]
    found: dict[str, dict[str, Any]] = {}
    for i in range(0, len(mem_ids), PAGE):
        chunk = mem_ids[i : i + PAGE]
        for mid, kind, text, authority, status in item_states.briefs(conn, chunk):
            found[mid] = {"id": mid, "kind": kind, "text": text, "authority": authority, "status": status}
    for eid, ep in _episodes(conn, ep_ids).items():
        found[eid] = {
            "id": eid,
            "kind": "episode",
            "text": ep["text"],
            "authority": None,
            "status": "raw",
            "role": ep["role"],
        }
    retrieved = [found[i] for i in ids if i in found]
    texts = [row.query, row.answer or ""] + [r["text"] for r in retrieved]
    if exportable.blocked(
        conn, user_id=row.user_id, memory_ids=mem_ids, episode_ids=ep_ids, texts=texts, now=now_iso()
    ):
        return None
    feedback = json.loads(row.metadata or "{}").get("feedback", {})
    return {
        "schema": SCHEMA,
        "kind": "answer",
        "id": row.id,
        "created_at": row.created_at,
        "user_id": row.user_id,
        "agent_id": row.agent_id,
        "question": row.query,
        "route": row.route,
        "retrieved": retrieved,
        "cited_ids": [c for c in cited if c in found],
        "answer": row.answer,
        "abstained": None if row.abstained is None else bool(row.abstained),
        "reward": row.reward,
        "advantage": feedback.get("advantage"),
        "rewarded_at": row.rewarded_at,
    }


def _episodes(conn: Connection, ids: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    unique = list(dict.fromkeys(ids))
    for i in range(0, len(unique), PAGE):
        chunk = unique[i : i + PAGE]
        for eid, role, name, time, content in episode_contents.briefs(conn, chunk):
            out[eid] = {"id": eid, "role": role, "name": name, "time": time, "text": content}
    return out


def write_jsonl(store: Store, handle: Any, **options: Any) -> ExportCounts:
    """Write :func:`records` to ``handle`` as JSON lines; returns the counts."""
    counts = ExportCounts()
    for record in records(store, counts=counts, **options):
        handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
    return counts
