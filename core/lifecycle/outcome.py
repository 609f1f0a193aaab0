"""Outcomes: a reward on a trace credits the memories it relied on; trajectories for export.

``feedback(trace, r)`` with ``r`` in [-1, 1]:
- the memories credited are the ones the caller says it used (only ids the trace
  retrieved count), else the ones the answer cited, else everything retrieved; a
  superseded memory passes its credit to the current version of its chain;
- the reward is made relative to the user's running mean reward once one exists
  (``advantage = r - mean``, clipped to [-1, 1]), so a user who always says "good"
  does not inflate everything; each credited memory gets
  ``successes += max(a, 0)``, ``failures += max(-a, 0)``, one more use, and a helpful
  use restores its retrieval strength;
- each credited memory's features and the outcome's sign are kept in the trace, and the
  usage-learned scorer is refitted when enough new outcomes arrived (core/recall/learned.py).
All of it happens in one transaction, with one ledger entry per credited memory
(``memory.outcome``, through ``items.set_fields``) and one ``trace.feedback`` entry.

Who gave the feedback is recorded (``by``: the person, through the CLI or TUI, or an
agent, through MCP, REST or the SDK on an agent's trace; with the trace's agent id) in
the trace, in the ledger entry and, for the person, as a separate tally in each credited
memory's metadata (``person_outcomes``). Usage may lower how easily any memory comes up,
but only feedback from a giver whose authority reaches a memory's may take it out of the
way (:func:`archive_counters`): an agent's word ranks as attested, so it never archives
a person's own (authorized) fact.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from veramem_desktop.core.errors import InvalidInputError, NotFoundError, RefusedError
from veramem_desktop.core.recall import learned
from veramem_desktop.core.storage import item_chains, item_states, items, ledger, traces
from veramem_desktop.core.storage.canonical import canonical_json, sha256_hex
from veramem_desktop.core.storage.ids import iso, now_iso
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.trust import exportable
from veramem_desktop.core.vocabulary import Authority, Status

#: who may give feedback, and the authority their word carries
GIVER_AUTHORITY = {"person": Authority.AUTHORIZED, "agent": Authority.ATTESTED}
#: the metadata key holding the person's own share of a memory's outcome counters
PERSON_OUTCOMES = "person_outcomes"


@dataclass(frozen=True)
class Counters:
    """Outcome counters that may decide whether a memory is archived."""

    uses: int
    successes: float
    failures: float

    @property
    def utility(self) -> float:
        return (self.successes + 1.0) / (self.successes + self.failures + 2.0)


def archive_counters(item: items.MemoryItem) -> Counters:
    """The outcomes whose givers rank at least as high as ``item``'s authority.

    Every giver's word counts for attested and unendorsed memories; for an authorized one
    (a person's own statement) only the person's feedback counts, so an agent's failures
    lower its ranking but never archive it."""
    if items.AUTHORITY_RANK[item.authority] <= items.AUTHORITY_RANK[GIVER_AUTHORITY["agent"]]:
        return Counters(item.uses, item.successes, item.failures)
    return person_share(item)


def person_share(item: items.MemoryItem) -> Counters:
    """The person's own feedback on ``item`` (zero when they gave none)."""
    own = item.metadata.get(PERSON_OUTCOMES)
    if not isinstance(own, dict):
        return Counters(0, 0.0, 0.0)
    try:
        return Counters(
            int(own.get("uses", 0)), float(own.get("successes", 0.0)), float(own.get("failures", 0.0))
        )
    except (TypeError, ValueError):
        return Counters(0, 0.0, 0.0)  # a damaged tally grants nothing


@dataclass
class FeedbackResult:
    trace_id: str
    reward: float
    baseline: float | None
    advantage: float
    basis: str  # "given" | "cited" | "retrieved"
    credited: list[dict[str, Any]] = field(default_factory=list)
    ignored_ids: list[str] = field(default_factory=list)  # given ids the trace never retrieved
    learned: dict[str, Any] = field(default_factory=dict)
    repeated: bool = False  # the same reward was already recorded; nothing changed
    by: str = "agent"  # "person" or "agent": whose word this feedback is

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_reward(reward: object) -> float:
    if isinstance(reward, bool) or not isinstance(reward, (int, float)):
        raise InvalidInputError(f"The reward must be a number between -1 and 1, not {reward!r}.")
    value = float(reward)
    if not math.isfinite(value) or not -1.0 <= value <= 1.0:
        raise InvalidInputError(f"The reward must be between -1 and 1 (got {reward!r}).")
    return value


def baseline(conn: Connection, user_id: str | None, *, excluding: str) -> float | None:
    """The user's mean reward over earlier rewarded traces, or None before the first."""
    count, mean = traces.reward_tally(conn, user_id, excluding=excluding)
    return float(mean) if count > 0 and mean is not None else None


def _head(conn: Connection, item: items.MemoryItem) -> items.MemoryItem:
    """The current version of ``item``'s chain when it was superseded; else the item itself."""
    if item.status != Status.SUPERSEDED:
        return item
    head = item_chains.active_head(conn, item.root_id)
    return head if head is not None else item


def check_giver(by: object) -> str:
    if by not in GIVER_AUTHORITY:
        raise InvalidInputError(f"Feedback is given by the person or an agent, not {by!r}.")
    return str(by)


def feedback(
    store: Store,
    trace_id: str,
    reward: float,
    *,
    device: str,
    cited_ids: Sequence[str] | None = None,
    by: str | None = None,
    now: datetime | None = None,
) -> FeedbackResult:
    """Record ``reward`` for ``trace_id``. ``by`` says whose word it is ("person" or "agent");
    None means an agent's when the trace was made for one, else the person's."""
    r = check_reward(reward)
    if by is not None:
        check_giver(by)
    if not isinstance(trace_id, str) or not trace_id.strip():
        raise InvalidInputError("Give the trace_id a search or answer returned.")
    if cited_ids is not None and (
        isinstance(cited_ids, str) or not all(isinstance(i, str) for i in cited_ids)
    ):
        raise InvalidInputError("cited_ids must be a list of memory ids.")
    moment = now or datetime.now(UTC)
    stamp = iso(moment)
    with store.atomic() as conn:
        row = traces.feedback_target(conn, trace_id)
        if row is None:  # a write decision's record (core/write/decisions.py) takes no reward of its own
            raise NotFoundError(f"No trace {trace_id!r}; use the trace_id a search or answer returned.")
        user_id, returned, cited = (
            row.user_id,
            json.loads(row.returned_ids or "[]"),
            json.loads(row.cited_ids or "[]"),
        )
        meta = json.loads(row.metadata or "{}")
        agent_id = row.agent_id or None
        giver = by if by is not None else ("agent" if agent_id else "person")
        if row.reward is not None:
            if float(row.reward) == r and "feedback" in meta:
                done = meta["feedback"]
                return FeedbackResult(
                    trace_id,
                    r,
                    done.get("baseline"),
                    done.get("advantage", 0.0),
                    done.get("basis", ""),
                    done.get("credited", []),
                    [],
                    {},
                    repeated=True,
                    by=done.get("by", "agent"),
                )
            raise RefusedError(
                f"Trace {trace_id} already has the reward {float(row.reward):g}; a trace is rewarded once."
            )
        ignored: list[str] = []
        if cited_ids is not None:
            ignored = [i for i in cited_ids if i not in set(returned)]
            given = [i for i in dict.fromkeys(cited_ids) if i in set(returned)]
        else:
            given = []
        if given:
            basis, chosen = "given", given
        elif cited:
            basis, chosen = "cited", list(cited)
        else:
            basis, chosen = "retrieved", list(returned)
        base = baseline(conn, user_id, excluding=trace_id)
        advantage = max(-1.0, min(1.0, r - (base or 0.0)))
        credited, outcomes = _credit(conn, chosen, advantage, trace_id, moment, stamp, device, giver)
        meta["feedback"] = {
            "baseline": base,
            "advantage": advantage,
            "basis": basis,
            "by": giver,
            "agent_id": agent_id,
            "credited": credited,
            "outcomes": outcomes,
        }
        new_cited = cited if cited else (given if basis == "given" else [])
        traces.set_feedback(conn, trace_id, r, stamp, json.dumps(new_cited), json.dumps(meta, sort_keys=True))
        ledger.append(
            conn,
            op="trace.feedback",
            target_kind="trace",
            target_id=trace_id,
            # a reward and ids are no content, so a plain hash commits to them
            commitment_hex=sha256_hex(canonical_json({"reward": r, "credited": [c["id"] for c in credited]})),
            device=device,
            details={
                "reward": r,
                "advantage": round(advantage, 6),
                "basis": basis,
                "by": giver,
                **({"agent": agent_id} if agent_id else {}),
                "credited": [c["id"] for c in credited],
            },
        )
        model, samples = learned.record(conn, [o["y"] for o in outcomes])
    info = learned.describe(model)
    info["outcomes"] = samples
    return FeedbackResult(trace_id, r, base, advantage, basis, credited, ignored, info, by=giver)


def _credit(
    conn: Connection,
    ids: Sequence[str],
    advantage: float,
    trace_id: str,
    moment: datetime,
    stamp: str,
    device: str,
    giver: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    credited: list[dict[str, Any]] = []
    outcomes: list[dict[str, Any]] = []
    seen: set[str] = set()
    for mid in ids:
        if not mid.startswith("mem_"):
            continue  # episodes carry no counters
        found = item_states.read(conn, mid)
        if found is None:
            continue  # forgotten since the trace was written
        item = _head(conn, found)
        if item.id in seen:
            continue
        seen.add(item.id)
        feats = learned.features(
            importance=item.importance,
            confidence=item.confidence,
            uses=item.uses,
            last_used_at=item.last_used_at,
            valid_from=item.valid_from,
            now=moment,
        )
        changes: dict[str, Any] = {
            "successes": item.successes + max(advantage, 0.0),
            "failures": item.failures + max(-advantage, 0.0),
            "uses": item.uses + 1,
            "last_used_at": stamp,
        }
        if advantage > 0:
            changes["retrieval_strength"] = 1.0  # a helpful use brings the memory back to mind
        if giver == "person":  # the person's own share, the only one that may archive their facts
            own = person_share(item)
            changes["metadata"] = {
                PERSON_OUTCOMES: {
                    "uses": own.uses + 1,
                    "successes": round(own.successes + max(advantage, 0.0), 6),
                    "failures": round(own.failures + max(-advantage, 0.0), 6),
                }
            }
        updated = items.set_fields(
            conn,
            item.id,
            device=device,
            op="memory.outcome",
            details={"trace": trace_id, "advantage": round(advantage, 6), "by": giver},
            **changes,
        )
        credited.append(
            {"id": item.id, **({"via": mid} if mid != item.id else {}), "utility": round(updated.utility, 4)}
        )
        if advantage != 0.0:
            outcomes.append(
                {"id": item.id, "x": [round(v, 6) for v in feats.as_list()], "y": int(advantage > 0)}
            )
    return credited, outcomes


# ------------------------------------------------------------------ trajectories
def _withheld_trace(store: Store, row: traces.TraceRecord) -> bool:
    """A trace the visibility rule keeps out of an export: it names a memory or message hidden now, or its
    question or answer holds a rejected value (core/trust/exportable.py)."""
    named = [*json.loads(row.returned_ids or "[]"), *json.loads(row.cited_ids or "[]")]
    with store.read() as conn:
        return exportable.blocked(
            conn,
            user_id=row.user_id,
            memory_ids=[i for i in named if str(i).startswith("mem_")],
            episode_ids=[i for i in named if str(i).startswith("ep_")],
            texts=[row.query or "", row.answer or ""],
            now=now_iso(),
        )


def trajectories(store: Store, *, user_id: str | None = None) -> Iterator[dict[str, Any]]:
    """One record per trace, oldest first: what was asked, retrieved, cited, answered, rewarded and written;
    a trace the visibility rule withholds now is left out (:func:`_withheld_trace`)."""
    writes: dict[str, list[dict[str, Any]]] = {}
    for seq, op, target, details in ledger.outcome_entries(store):
        info = json.loads(details or "{}")
        trace = target if op == "trace.feedback" else info.get("trace")
        if trace:
            writes.setdefault(trace, []).append({"seq": seq, "op": op, "target": target, "details": info})
    after = ("", "")
    while True:
        page = traces.trajectory_page(store, user_id, after, 500)
        if not page:
            return
        for r in page:
            if _withheld_trace(store, r):
                continue
            meta = json.loads(r.metadata or "{}")
            yield {
                "trace_id": r.id,
                "kind": r.kind,
                "created_at": r.created_at,
                "user_id": r.user_id,
                "agent_id": r.agent_id,
                "query": r.query,
                "route": r.route,
                "retrieved_ids": json.loads(r.returned_ids or "[]"),
                "cited_ids": json.loads(r.cited_ids or "[]"),
                "answer": r.answer,
                "abstained": None if r.abstained is None else bool(r.abstained),
                "reward": r.reward,
                "rewarded_at": r.rewarded_at,
                "write_operations": list(meta.get("writes", [])) + writes.get(r.id, []),
            }
        after = (page[-1].created_at, page[-1].id)
