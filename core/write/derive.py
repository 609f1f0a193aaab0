"""The write path after the episodes are stored: extract → verify quotes → authority →
dates → rejected values → reconcile with same-scope neighbours → guards → versions.

One extraction call per batch. Authority always comes from the role of the
message a quote was found in, never from a model. Every change is in the ledger.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.llm import (
    LLM,
    Candidate,
    Decision,
    Message,
    Neighbour,
    context_budget,
    multi_valued,
)
from veramem_desktop.core.protocols import Embedder, Vectors
from veramem_desktop.core.recall import SearchEngine
from veramem_desktop.core.storage import index, items, ledger
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.ids import parse_iso
from veramem_desktop.core.storage.items import AUTHORITY_RANK, ROLE_AUTHORITY, Evidence, MemoryItem
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.trust import rejections
from veramem_desktop.core.trust.quotes import locate
from veramem_desktop.core.write import context as write_context
from veramem_desktop.core.write import decisions

#: Most candidates derived from one add; the rest of a huge message stays searchable as an episode.
MAX_CANDIDATES = 200
NEIGHBOURS = 5
NOOP_COSINE = 0.95
UPDATE_COSINE = 0.75
#: a candidate this close to a rejected memory of its scope (and not about another subject) is a
#: paraphrase of the rejected value: stored, held out of recall, and put to a person in review
RESEMBLES_COSINE = 0.9
CONFIDENCE = {"authorized": 0.9, "attested": 0.7, "unendorsed": 0.5}
SOURCE_BY_ROLE = {
    "user": "user",
    "system": "user",
    "assistant": "agent",
    "tool": "tool",
    "document": "document",
    "shared": "shared",
}


@dataclass
class WriteOutcome:
    added: list[dict[str, Any]] = field(default_factory=list)
    updated: list[dict[str, Any]] = field(default_factory=list)
    retracted: list[dict[str, Any]] = field(default_factory=list)
    unchanged: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


@dataclass
class _Planned:
    candidate: Candidate
    episode: Episode
    evidence: Evidence
    authority: str
    text: str
    vector: Vectors
    neighbours: list[tuple[MemoryItem, float]]
    decision: Decision
    folded: bool = False  # a DELETE absorbed by an UPDATE of the same memory in this batch
    resembles: str | None = None  # the rejected memory this candidate paraphrases


def attributed(text: str, role: str, name: str | None) -> str:
    """Source-attributed wording for lower-authority claims."""
    if role in ("user", "system"):
        return text
    who = {"assistant": "the assistant", "tool": "tool", "document": "document", "shared": "a shared source"}[
        role
    ]
    if name and role != "shared":
        who = f"{who} {name}"
    prefix = f"According to {who}: "
    return text if text.lower().startswith("according to") else prefix + text


def to_messages(episodes: Sequence[Episode]) -> list[Message]:
    return [Message(e.id, e.role, e.content, e.event_time, e.source_name) for e in episodes]


class Writer:
    def __init__(
        self, engine: SearchEngine, embedder: Embedder, llm: LLM, *, device: str, resolve_dates: Any = None
    ) -> None:
        self.engine = engine
        self.store = engine.store
        self.embedder = embedder
        self.llm = llm
        self.device = device
        self.resolve_dates = resolve_dates
        self._scoped: dict[tuple[Any, ...], Any] = {}

    # ------------------------------------------------------------ plan
    def derive(  # noqa: C901
        self,
        episodes: Sequence[Episode],
        *,
        context: Sequence[Episode] = (),
        candidates: Sequence[Candidate] | None = None,
    ) -> WriteOutcome:
        """Derive memories from ``episodes``. ``candidates``: already extracted from them (the bulk
        import extracts in calls of its own); no extraction call is made then."""
        out = WriteOutcome()
        if not episodes:
            return out
        self._scoped = {}  # per-scope reads shared by this derive's candidates
        if candidates is None:
            if (
                not context
            ):  # the session's earlier turns, so the model can resolve references (reference only)
                context = write_context.preceding_turns(self.store, episodes, context_budget(self.llm))
            try:
                candidates = self.llm.extract(to_messages(episodes), to_messages(context))
            except ModelError as exc:
                out.notices.append(
                    f"extraction failed ({exc.message}); the episodes are stored and searchable"
                )
                return out
        candidates = list(candidates)
        if len(candidates) > MAX_CANDIDATES:
            out.notices.append(
                f"only the first {MAX_CANDIDATES} of {len(candidates)} candidate memories were derived; "
                "every episode is stored whole and searchable"
            )
            candidates = candidates[:MAX_CANDIDATES]
        by_id = {e.id: e for e in episodes}
        checked: list[tuple[Candidate, Episode, Evidence, str, str]] = []
        for cand in candidates:
            ep = by_id.get(cand.message_id)
            if ep is None:
                out.rejected.append(
                    {
                        "text": cand.text,
                        "quote": cand.quote,
                        "reason": f"cites message {cand.message_id!r}, which is not part of this add",
                    }
                )
                continue
            match = locate(ep.content, cand.quote)
            if match is None:
                out.rejected.append(
                    {
                        "text": cand.text,
                        "quote": cand.quote,
                        "episode_id": ep.id,
                        "reason": "its quote was not found in the message it cites",
                    }
                )
                continue
            authority = ROLE_AUTHORITY[ep.role]
            text = cand.text.strip() or ep.content[match.start : match.end]
            if self.resolve_dates is not None:
                text = self.resolve_dates(text, parse_iso(ep.event_time))
            text = attributed(text, ep.role, ep.source_name)
            evidence = Evidence(
                ep.id, ep.content[match.start : match.end], match.start, match.end, match.score, ep.role
            )
            checked.append((cand, ep, evidence, authority, text))
        if not checked:
            return out
        vectors = self.embedder.embed([t for *_, t in checked])
        planned: list[_Planned] = []
        for (cand, ep, evidence, authority, text), vec in zip(checked, vectors, strict=True):
            with self.store.read() as conn:
                if self._rejections_in_scope(ep) and rejections.is_rejected(
                    conn,
                    user_id=ep.user_id,
                    team_id=ep.team_id,
                    subject=cand.subject,
                    predicate=cand.predicate,
                    value=cand.value,
                    text=text,
                ):
                    out.rejected.append(
                        {
                            "text": text,
                            "episode_id": ep.id,
                            "reason": "this value was rejected before for the same subject; it cannot return",
                        }
                    )
                    continue
            resembles = self._resembles_rejected(ep, cand, vec)
            neighbours = self._neighbours(ep, cand, vec)
            offered = [
                Neighbour(m.id, m.text, cos, m.authority, m.kind, m.subject, m.predicate, m.value)
                for m, cos in neighbours
            ]
            try:
                # With nothing similar in scope there is nothing to reconcile: no model call.
                decision = (
                    self.llm.reconcile(replace(cand, text=text), offered)
                    if offered
                    else Decision("ADD", reason="nothing stored says this")
                )
            except ModelError as exc:
                out.notices.append(f"reconciliation failed ({exc.message}); kept as a new memory")
                decision = Decision("ADD", reason="reconciliation failed")
            if decision.op != "ADD" and decision.target_id not in {m.id for m, _ in neighbours}:
                decision = Decision(
                    "ADD", reason=f"the model named {decision.target_id!r}, which was not offered"
                )
            final = text
            if decision.text and decision.text.strip():
                # The model may reword; attribution and date resolution are ours to apply, never its.
                final = decision.text.strip()
                if self.resolve_dates is not None:
                    final = self.resolve_dates(final, parse_iso(ep.event_time))
                final = attributed(final, ep.role, ep.source_name)
            planned.append(
                _Planned(cand, ep, evidence, authority, final, vec, neighbours, decision, resembles=resembles)
            )
        recorder = decisions.Recorder(
            planned, episodes, context
        )  # keeps what was proposed, before the guards
        self._pair_delete_add(planned)
        for plan in planned:
            self._guard_duplicate(plan)
        self._apply(planned, out, recorder)
        return out

    def _resembles_rejected(self, ep: Episode, cand: Candidate, vec: Vectors) -> str | None:
        """The rejected memory of the same scope that ``cand`` paraphrases (close in meaning, and not
        about a different subject), or None."""
        rows = self._once(
            ("rejected memories", ep.user_id, ep.team_id),
            lambda: self.store.query(
                "SELECT id, subject, predicate FROM memory_items WHERE trust = 'rejected' AND user_id IS ? AND team_id IS ?",
                (ep.user_id, ep.team_id),
            ),
        )
        if not rows:
            return None
        cache = self.engine.caches["memory"]
        cache.refresh(self.store)
        for mid, subject, predicate in rows:
            if cand.subject and subject and (cand.subject, cand.predicate) != (subject, predicate):
                continue
            other = cache.vector(mid)
            if other is not None and float(other @ vec) > RESEMBLES_COSINE:
                return str(mid)
        return None

    def _neighbours(self, ep: Episode, cand: Candidate, vec: Vectors) -> list[tuple[MemoryItem, float]]:
        """Top-k active memories in the same scope (same user and team) only, plus same-key memories."""
        cache = self.engine.caches["memory"]
        allowed = self._once(("scope", ep.user_id, ep.team_id), lambda: self._scope_positions(ep))
        found = dict(cache.top(vec, allowed, NEIGHBOURS)) if allowed.size else {}
        if cand.subject and cand.predicate:
            for (mid,) in self.store.query(
                "SELECT id FROM memory_items WHERE status = 'active' AND trust != 'rejected' AND user_id IS ? "
                "AND team_id IS ? AND subject = ? AND predicate = ?",
                (ep.user_id, ep.team_id, cand.subject, cand.predicate),
            ):
                if mid not in found:
                    other = cache.vector(mid)
                    found[mid] = float(other @ vec) if other is not None else 0.0
        rows = items.get_many(self.store, list(found))
        return sorted(((rows[i], c) for i, c in found.items() if i in rows), key=lambda p: -p[1])

    def _once(self, key: tuple[Any, ...], load: Callable[[], Any]) -> Any:
        """``load()``, read once per derive: nothing is written while its candidates are planned."""
        if key not in self._scoped:
            self._scoped[key] = load()
        return self._scoped[key]

    def _rejections_in_scope(self, ep: Episode) -> bool:
        """Whether anything was ever rejected in the episode's scope (else no candidate can restate it)."""
        scope = rejections.scope_of(ep.user_id, ep.team_id)
        return bool(
            self._once(
                ("rejections", scope),
                lambda: self.store.query("SELECT 1 FROM rejected_values WHERE scope = ? LIMIT 1", (scope,)),
            )
        )

    def _scope_positions(self, ep: Episode) -> Any:
        """The memory cache's positions of the active memories of the episode's scope (user and team)."""
        scope_ids = [
            r[0]
            for r in self.store.query(
                "SELECT id FROM memory_items WHERE status = 'active' AND trust != 'rejected' AND kind != 'summary' "
                "AND user_id IS ? AND team_id IS ?",
                (ep.user_id, ep.team_id),
            )
        ]
        cache = self.engine.caches["memory"]
        cache.refresh(self.store)
        return cache.positions(scope_ids)

    # ------------------------------------------------------------ guards
    def _pair_delete_add(self, planned: list[_Planned]) -> None:
        """Batch guards: a DELETE of m with an ADD of f (cos(m, f) > 0.75) is an UPDATE of m to f;
        a DELETE of m beside an UPDATE of m in the same batch is folded into that update."""
        updated = {p.decision.target_id for p in planned if p.decision.op == "UPDATE"}
        deletes = []
        for p in planned:
            if p.decision.op == "DELETE" and p.decision.target_id in updated:
                p.folded = True
            elif p.decision.op == "DELETE":
                deletes.append(p)
        for add in [p for p in planned if p.decision.op == "ADD"]:
            for dele in deletes:
                target = dele.decision.target_id
                cos = next((c for m, c in add.neighbours if m.id == target), None)
                if target and cos is not None and cos > UPDATE_COSINE:
                    add.decision = Decision(
                        "UPDATE", target, add.text, f"DELETE+ADD with cosine {cos:.2f} > 0.75"
                    )
                    dele.folded = True
                    deletes.remove(dele)
                    break

    @staticmethod
    def _batch_conflicts(planned: list[_Planned]) -> list[tuple[_Planned, _Planned]]:
        """Batch guard: two new memories of one add that give one scope's single-valued attribute
        two values from sources of different authority ("I use Vim" from the user, "your editor is
        Emacs" from the assistant, sent together) conflict just as if the first had been stored
        before: (lower, higher) pairs, for the conflict to be recorded on both."""

        def key(p: _Planned) -> tuple[object, ...] | None:
            c = p.candidate
            if (
                p.decision.op != "ADD"
                or p.folded
                or c.kind == "event"
                or not (c.subject and c.predicate and c.value)
                or multi_valued(c.predicate)
            ):
                return None
            return (
                p.episode.user_id,
                p.episode.team_id,
                c.subject.casefold().strip(),
                c.predicate.casefold().strip(),
            )

        pairs = []
        keyed = [(k, p) for p in planned if (k := key(p)) is not None]
        for i, (ka, a) in enumerate(keyed):
            for kb, b in keyed[i + 1 :]:
                ra, rb = AUTHORITY_RANK[a.authority], AUTHORITY_RANK[b.authority]
                if ka != kb or ra == rb or _norm(a.candidate.value or "") == _norm(b.candidate.value or ""):
                    continue
                pairs.append((a, b) if ra < rb else (b, a))
        return pairs

    def _guard_duplicate(self, plan: _Planned) -> None:
        """Cosine > 0.95 with an existing memory means NOOP plus the new evidence (unless it changes a value)."""
        if not plan.neighbours or plan.decision.op not in ("ADD", "UPDATE"):
            return
        best, cos = plan.neighbours[0]
        same_value = plan.decision.op == "ADD" or _norm(best.text) == _norm(plan.text)
        if cos > NOOP_COSINE and same_value:
            plan.decision = Decision(
                "NOOP", best.id, None, f"cosine {cos:.2f} > 0.95 with an existing memory"
            )

    # ------------------------------------------------------------ apply
    def _apply(  # noqa: C901
        self, planned: list[_Planned], out: WriteOutcome, recorder: decisions.Recorder | None = None
    ) -> None:
        emb_name = self.embedder.name
        conflicts = self._batch_conflicts(planned)
        fresh: dict[int, MemoryItem] = {}
        with self.store.atomic() as conn:
            for plan in recorder.follow(planned, out) if recorder is not None else planned:
                if plan.folded:
                    out.unchanged.append(
                        {
                            "text": plan.text,
                            "episode_id": plan.episode.id,
                            "reason": "its retraction is part of an update in the same message",
                        }
                    )
                    continue
                op, target_id = plan.decision.op, plan.decision.target_id
                target = next((m for m, _ in plan.neighbours if m.id == target_id), None)
                if (
                    op in ("UPDATE", "DELETE")
                    and target is not None
                    and AUTHORITY_RANK[plan.authority] < AUTHORITY_RANK[target.authority]
                ):
                    item = self._add(conn, plan, emb_name, conflicts_with=target.id)
                    self._mark_conflict(conn, target, item.id)
                    out.added.append(
                        _summary(
                            item,
                            f"kept separately: a {plan.authority} claim cannot "
                            f"{op.lower()} the {target.authority} memory {target.id}; "
                            "conflict recorded on both",
                        )
                    )
                    continue
                if plan.resembles is not None:
                    item = self._add(conn, plan, emb_name, resembles=plan.resembles)
                    out.added.append(
                        _summary(
                            item,
                            f"held for review: it resembles the rejected memory "
                            f"{plan.resembles}, so no agent recalls it until you decide",
                        )
                    )
                    continue
                if op == "ADD" or target is None:
                    same = _same_in_batch(plan, planned, fresh)
                    if same is not None:  # said again in this add (the assistant's echo): one memory
                        if AUTHORITY_RANK[plan.authority] >= AUTHORITY_RANK[same.authority]:
                            items.add_evidence(conn, same.id, plan.evidence)
                        else:
                            _mention(conn, plan.episode.id, same.id)
                        out.unchanged.append(_summary(same, "said again in the same add"))
                        continue
                    item = fresh[id(plan)] = self._add(conn, plan, emb_name)
                    out.added.append(_summary(item, plan.decision.reason or "new"))
                elif op == "UPDATE":
                    current = items.row_to_item(
                        conn.execute(
                            f"SELECT {items.ITEM_COLUMNS} FROM memory_items WHERE id = ?", (target.id,)
                        ).fetchone()
                    )
                    if current.status != "active":
                        item = self._add(conn, plan, emb_name)
                        out.added.append(_summary(item, "its target changed in this batch; kept as new"))
                        continue
                    new = self._item(plan)
                    item = items.new_version(
                        conn, current, new, [plan.evidence], device=self.device, reason=plan.decision.reason
                    )
                    index.index_memory(conn, emb_name, item.id, item.text, plan.vector)
                    out.updated.append(
                        {**_summary(item, plan.decision.reason or "updated"), "previous": target.id}
                    )
                    self._retire_restatements(conn, current, item, plan, out)
                elif op == "DELETE":
                    item = items.set_fields(
                        conn,
                        target.id,
                        device=self.device,
                        op="memory.retract",
                        status="retracted",
                        valid_to=plan.episode.event_time,
                        metadata={"retracted_by": plan.episode.id},
                        details={"evidence": plan.episode.id},
                    )
                    out.retracted.append(_summary(item, plan.decision.reason or "retracted"))
                else:  # NOOP
                    if AUTHORITY_RANK[plan.authority] >= AUTHORITY_RANK[target.authority]:
                        items.add_evidence(conn, target.id, plan.evidence)
                        ledger.append(
                            conn,
                            op="memory.evidence",
                            target_kind="memory",
                            target_id=target.id,
                            commitment_hex=ledger.commit_to(conn, target.id, plan.evidence.to_dict()),
                            device=self.device,
                            details={"evidence": plan.episode.id},
                        )
                        out.unchanged.append(
                            _summary(target, (plan.decision.reason or "already known") + "; evidence added")
                        )
                    else:
                        _mention(conn, plan.episode.id, target.id)  # an echo: recalled with what it repeats
                        out.unchanged.append(_summary(target, "already known from a higher-authority source"))
            for low, high in conflicts:
                if id(low) in fresh and id(high) in fresh:
                    lower, higher = fresh[id(low)], fresh[id(high)]
                    self._mark_conflict(conn, higher, lower.id)
                    self._mark_conflict(conn, lower, higher.id)
                    for entry in out.added:
                        if entry["id"] == lower.id:
                            entry["reason"] = (
                                f"kept separately: it contradicts the {higher.authority} memory "
                                f"{higher.id} added with it; conflict recorded on both"
                            )
            if recorder is not None:  # the decisions, for the training export (core/write/decisions.py)
                recorder.write(conn)

    def _retire_restatements(
        self, conn: Connection, old: MemoryItem, new: MemoryItem, plan: _Planned, out: WriteOutcome
    ) -> None:
        """Other current memories of no higher authority that state the value just replaced (an echo
        kept apart, a tool's copy) are history too: superseded at the same moment, pointing at ``new``."""
        c = plan.candidate
        if not (c.subject and c.predicate and old.value) or multi_valued(c.predicate):
            return
        rows = conn.execute(
            f"SELECT {items.ITEM_COLUMNS} FROM memory_items WHERE status = 'active' AND trust != 'rejected' "
            "AND user_id IS ? AND team_id IS ? AND lower(subject) = lower(?) AND lower(predicate) = lower(?) "
            "AND id != ?",
            (old.user_id, old.team_id, c.subject, c.predicate, new.id),
        ).fetchall()
        for row in rows:
            other = items.row_to_item(row)
            if AUTHORITY_RANK[other.authority] > AUTHORITY_RANK[plan.authority] or _norm(
                other.value or ""
            ) != _norm(old.value):
                continue
            items.set_fields(
                conn,
                other.id,
                device=self.device,
                op="memory.supersede",
                status="superseded",
                valid_to=new.valid_from,
                metadata={"superseded_by": new.id},
                details={"superseded_by": new.id},
            )
            out.retracted.append(_summary(other, f"it restated {old.value!r}, which {new.id} replaced"))

    def _item(self, plan: _Planned) -> MemoryItem:
        ep, cand = plan.episode, plan.candidate
        return MemoryItem(
            id="",
            kind=cand.kind,
            text=plan.text,
            authority=plan.authority,
            user_id=ep.user_id,
            agent_id=ep.agent_id,
            team_id=ep.team_id,
            session_id=ep.session_id,
            subject=cand.subject,
            predicate=cand.predicate,
            value=cand.value,
            valid_from=ep.event_time,
            confidence=CONFIDENCE[plan.authority],
            importance=min(max(cand.importance, 0.0), 1.0),
            source=SOURCE_BY_ROLE.get(ep.role, "user"),
            metadata={"source_name": ep.source_name} if ep.source_name else {},
        )

    def _add(
        self,
        conn: Connection,
        plan: _Planned,
        emb_name: str,
        conflicts_with: str | None = None,
        resembles: str | None = None,
    ) -> MemoryItem:
        new = self._item(plan)
        if conflicts_with:
            new = replace(
                new,
                metadata={**new.metadata, "conflicts_with": [conflicts_with]},
                confidence=max(0.1, new.confidence - 0.1),
            )
        if resembles:
            new = replace(new, metadata={**new.metadata, "resembles_rejected": resembles})
        details = {
            **({"conflicts_with": conflicts_with} if conflicts_with else {}),
            **({"resembles_rejected": resembles} if resembles else {}),
        }
        item = items.insert(conn, new, [plan.evidence], device=self.device, details=details or None)
        if resembles:
            rejections.withhold(conn, "memory", item.id, "resembles", resembles)
        index.index_memory(conn, emb_name, item.id, item.text, plan.vector)
        return item

    def _mark_conflict(self, conn: Connection, target: MemoryItem, other_id: str) -> None:
        current = items.row_to_item(
            conn.execute(
                f"SELECT {items.ITEM_COLUMNS} FROM memory_items WHERE id = ?", (target.id,)
            ).fetchone()
        )
        conflicts = sorted({*current.metadata.get("conflicts_with", []), other_id})
        items.set_fields(
            conn,
            target.id,
            device=self.device,
            op="memory.conflict",
            metadata={"conflicts_with": conflicts},
            confidence=max(0.1, current.confidence - 0.1),
            details={"conflicts_with": other_id},
        )


def _same_in_batch(
    plan: _Planned, planned: list[_Planned], fresh: dict[int, MemoryItem]
) -> MemoryItem | None:
    """A memory added earlier in this batch that states the same value of the same attribute."""
    c = plan.candidate
    if not (c.subject and c.predicate and c.value):
        return None
    for other in planned:
        item = fresh.get(id(other))
        o = other.candidate
        if (
            item is not None
            and other.episode.user_id == plan.episode.user_id
            and (o.subject or "").casefold() == c.subject.casefold()
            and (o.predicate or "").casefold() == c.predicate.casefold()
            and _norm(o.value or "") == _norm(c.value)
        ):
            return item
    return None


def _mention(conn: Connection, episode_id: str, memory_id: str) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO mentions(episode_id, memory_id) VALUES (?, ?)", (episode_id, memory_id)
    )


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def _summary(item: MemoryItem, reason: str) -> dict[str, Any]:
    return {
        "id": item.id,
        "text": item.text,
        "kind": item.kind,
        "authority": item.authority,
        "reason": reason,
    }
