"""The linker: it decides the typed edges of each queued memory, and subsumption.

A new memory is queued in ``pending_links`` (core/lifecycle/links.py) by the facade right
after an add; a background worker drains the queue through :class:`Linker`, so an add never
waits for it. For each queued memory the linker

1. stores its context-enriched vector ('memory_ctx': the memory's text between the
   turns before and after its source episode), used by search's ``dense_ctx`` channel;
2. finds its nearest active memories in the same scope (user, team, agent,
   visibility — the key consolidation groups by), above ``min_cosine``;
3. decides each pair: a recorded conflict → ``contrasts``; one stating everything
   the other states and more → subsumption (below); otherwise the model's verdict
   (supports, extends, contrasts, related, prerequisite) when a model is there, else
   one from similarity;
4. writes each link with a ledger entry (``link.add``, ids only).

Subsumption keeps the authority guard: when the new memory says everything an
existing one says and more (and is at least as authoritative), the narrower one
moves to cold storage (status ``archived``) behind a ``subsumes`` link; when the
new one says less, the existing memory is reinforced, gets the new evidence, and
the new one goes cold behind the link. Cold storage only ever keeps the broader memory
at least as authoritative as the narrower one, and evidence is attached only between
equals: otherwise the pair is only linked.

Cold items are never deleted here; ``forget`` brings back those whose general
memory it erased (see core/lifecycle/forget.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.lifecycle.conflicts import in_open_conflict
from veramem_desktop.core.lifecycle.links import (
    MAX_ATTEMPTS,
    add_link,
    dequeue,
    note_failure,
    pending,
    send_cold,
)
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import (
    episode_turns,
    index,
    item_evidence,
    item_scopes,
    item_states,
    items,
    ledger,
    link_rows,
)
from veramem_desktop.core.storage.items import AUTHORITY_RANK, MemoryItem
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.storage.vectors import VectorCache
from veramem_desktop.core.text.link_types import LINK_TYPES
from veramem_desktop.core.text.normalize import skeleton
from veramem_desktop.core.text.terms import content_terms, words
from veramem_desktop.core.text.turns import context_text
from veramem_desktop.core.vocabulary import Kind, Status, Trust
from veramem_desktop.core.write.retraction_forms import person

#: the vector variant holding a memory with its source episode's neighbouring turns
CTX_KIND = "memory_ctx"

_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|no longer|any ?more|stopped|quit)\b"
    r"|n't\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class LinkConfig:
    neighbours: int = 5
    #: below this cosine two memories are not linked at all
    min_cosine: float = 0.5
    #: without a model, a pair at least this alike "supports" (else "related")
    supports_cosine: float = 0.8
    #: subsumption needs the pair at least this alike as well as word containment
    subsume_cosine: float = 0.5
    #: the smaller memory needs this many content words before containment means anything
    subsume_min_terms: int = 2
    reinforce: float = 0.05
    #: a memory that failed this many times stays queued but is no longer tried
    max_attempts: int = MAX_ATTEMPTS


@dataclass
class LinkReport:
    processed: int = 0
    links: list[tuple[str, str, str]] = field(default_factory=list)
    cold: list[str] = field(default_factory=list)  # memories sent to cold storage
    reinforced: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "processed": self.processed,
            "links": [list(t) for t in self.links],
            "cold": list(self.cold),
            "reinforced": list(self.reinforced),
            "failed": list(self.failed),
        }


# ------------------------------------------------------------------ pure rules
def negated(text: str) -> bool:
    return _NEGATION.search(text) is not None


def generality(a: str, b: str, *, min_terms: int = 2) -> str | None:
    """ "subsumes" when ``a`` states every content word of ``b`` and more, "subsumed" for the
    reverse, else None. A difference in negation is a contrast, never subsumption; neither is a
    pair about two people ("User's sister moved to Lisbon." and "User moved to Lisbon."). Whom
    they speak of is not content: "User has a bike." says one thing, "bike", and one shared word
    is too little to send it to cold storage."""
    if negated(a) != negated(b):
        return None
    pa, pb = person(a), person(b)
    if pa is not None and pb is not None and pa != pb:
        return None
    whom = set(words(pa or pb or ""))
    ta, tb = set(content_terms(a)), set(content_terms(b))
    if min(len(ta - whom), len(tb - whom)) < min_terms:
        return None
    if tb < ta:
        return "subsumes"
    if ta < tb:
        return "subsumed"
    return None


def rule_type(cosine: float, *, conflict: bool, supports_cosine: float) -> str:
    """The link a pair gets without a model: a recorded conflict contrasts, close ones support."""
    if conflict:
        return "contrasts"
    return "supports" if cosine >= supports_cosine else "related"


def scope_key(item: MemoryItem) -> tuple[str | None, str | None, str | None, str]:
    return (item.user_id, item.team_id, item.agent_id, item.visibility)


# ------------------------------------------------------------------ the linker
class Linker:
    """Drains ``pending_links``: one memory at a time, each in its own short transaction."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        llm: LLM | None,
        vectors: VectorCache,
        *,
        device: str,
        config: LinkConfig | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.llm = None if llm is None or llm.capabilities.rule_based else llm
        self.vectors = vectors
        self.device = device
        self.config = config or LinkConfig()

    def drain(
        self,
        *,
        limit: int | None = None,
        stop: Callable[[], bool] = lambda: False,
        on_error: Callable[[str, BaseException], None] | None = None,
    ) -> LinkReport:
        """Link queued memories until the queue is empty, ``limit`` is reached or ``stop()``.
        A failure is counted on the item (which stays queued) and reported by id, never raised."""
        report = LinkReport()
        while not stop() and (limit is None or report.processed < limit):
            batch = pending(self.store, limit=20, max_attempts=self.config.max_attempts)
            batch = [m for m in batch if m not in report.failed]
            if not batch:
                break
            for memory_id in batch:
                if stop() or (limit is not None and report.processed >= limit):
                    break
                try:
                    self.link_one(memory_id, report)
                except Exception as exc:  # fail open: the add already succeeded; retry later
                    report.failed.append(memory_id)
                    with self.store.atomic() as conn:
                        note_failure(conn, memory_id, type(exc).__name__)
                    if on_error is not None:
                        on_error(memory_id, exc)
                report.processed += 1
        return report

    def link_one(self, memory_id: str, report: LinkReport) -> None:
        item = item_states.find(self.store, memory_id)
        if item is None or item.status != Status.ACTIVE or item.trust == Trust.REJECTED:
            with self.store.atomic() as conn:
                dequeue(conn, memory_id)
            return
        ctx_vec = self.embedder.embed([memory_context(self.store, item)])[0]
        self.vectors.refresh(self.store)
        vec = self.vectors.vector(item.id)
        if vec is None:
            vec = self.embedder.embed([item.text])[0]
        neighbours = self._neighbours(item, vec)
        verdicts = [(other, cos, self._verdict(item, other, cos)) for other, cos in neighbours]
        with self.store.atomic() as conn:
            index.store_vectors(conn, CTX_KIND, self.embedder.name, [item.id], ctx_vec.reshape(1, -1))
            for other, cos, verdict in verdicts:
                if self._link_pair(conn, item, other, cos, verdict, report):
                    break  # the new memory is cold now: its other neighbours keep their own links
            dequeue(conn, item.id)

    def _link_pair(
        self,
        conn: Connection,
        item: MemoryItem,
        other: MemoryItem,
        cos: float,
        verdict: str,
        report: LinkReport,
    ) -> bool:
        """Link the new memory ``item`` with one neighbour as ``verdict`` says, under the authority guard
        (a subsumed memory goes cold). True when ``item`` itself went cold, so its other neighbours are left."""
        if item_states.count_active(conn, (item.id, other.id)) != 2 or link_rows.pair_linked(
            conn, item.id, other.id
        ):
            return False  # one edge per pair, whichever of the two was linked first
        if verdict == "subsumes" and AUTHORITY_RANK[item.authority] >= AUTHORITY_RANK[other.authority]:
            if send_cold(conn, other.id, device=self.device, reason="subsumed", by=item.id) is not None:
                report.cold.append(other.id)
                self._link(conn, item.id, other.id, "subsumes", cos, report)
                return False
            verdict = "extends"
        if verdict == "subsumed" and AUTHORITY_RANK[item.authority] <= AUTHORITY_RANK[other.authority]:
            if AUTHORITY_RANK[item.authority] == AUTHORITY_RANK[other.authority] and not in_open_conflict(
                conn, item.id
            ):
                self._reinforce(conn, other, item, report)  # never lower-authority evidence on it
            if send_cold(conn, item.id, device=self.device, reason="subsumed", by=other.id) is not None:
                report.cold.append(item.id)
                self._link(conn, other.id, item.id, "subsumes", cos, report)
                return True
            verdict = "supports"
        if verdict in ("subsumes", "subsumed"):  # the authority guard: only a link
            verdict = "extends" if verdict == "subsumes" else "supports"
        if verdict in LINK_TYPES:
            self._link(conn, item.id, other.id, verdict, cos, report)
        return False

    # -------------------------------------------------------------- parts
    def _neighbours(self, item: MemoryItem, vec: Any) -> list[tuple[MemoryItem, float]]:
        cfg = self.config
        scope_ids = item_scopes.scope_peers(self.store, item.id, *scope_key(item))
        if not scope_ids:
            return []
        found = [
            (i, c)
            for i, c in self.vectors.top(vec, self.vectors.positions(scope_ids), cfg.neighbours)
            if c >= cfg.min_cosine
        ]
        rows = items.get_many(self.store, [i for i, _ in found])
        # the scope is checked again on the rows themselves: a link never crosses scopes
        return [(rows[i], c) for i, c in found if i in rows and scope_key(rows[i]) == scope_key(item)]

    def _verdict(self, item: MemoryItem, other: MemoryItem, cos: float) -> str:
        cfg = self.config
        conflict = other.id in item.metadata.get("conflicts_with", []) or item.id in other.metadata.get(
            "conflicts_with", []
        )
        if conflict or _values_differ(item, other):
            return "contrasts"
        # a summary or experience restates its sources: it never sends them (or anything) to cold storage
        if cos >= cfg.subsume_cosine and not {item.kind, other.kind} & {Kind.SUMMARY, Kind.EXPERIENCE}:
            general = generality(item.text, other.text, min_terms=cfg.subsume_min_terms)
            if general is not None:
                return general
        if self.llm is not None:
            try:
                verdict = self.llm.link(other.text, item.text).value.type  # a background job: no one to tell
                return verdict if verdict in LINK_TYPES else "none"
            except ModelError:
                pass  # the rules below decide instead
        return rule_type(cos, conflict=False, supports_cosine=cfg.supports_cosine)

    def _link(
        self, conn: Connection, src: str, dst: str, link_type: str, cos: float, report: LinkReport
    ) -> None:
        if add_link(conn, src, dst, link_type, cos, device=self.device):
            report.links.append((src, dst, link_type))

    def _reinforce(
        self, conn: Connection, target: MemoryItem, narrower: MemoryItem, report: LinkReport
    ) -> None:
        """The broader memory gains the narrower one's evidence and a little confidence."""
        have = item_evidence.evidence_spans(conn, target.id)
        for ev in items.evidence_on(conn, narrower.id):
            if (ev.episode_id, ev.span_start, ev.span_end) in have:
                continue
            items.add_evidence(conn, target.id, ev)
            ledger.append(
                conn,
                op="memory.evidence",
                target_kind="memory",
                target_id=target.id,
                commitment_hex=ledger.commit_to(conn, target.id, ev.to_dict()),
                device=self.device,
                details={"evidence": ev.episode_id, "from": narrower.id},
            )
        items.set_fields(
            conn,
            target.id,
            device=self.device,
            op="memory.reinforce",
            confidence=round(min(1.0, target.confidence + self.config.reinforce), 4),
            details={"by": narrower.id},
        )
        report.reinforced.append(target.id)


def _values_differ(a: MemoryItem, b: MemoryItem) -> bool:
    """The same subject and predicate with different values: a contrast, never a subsumption."""
    if not (a.subject and a.predicate and a.value and b.value):
        return False
    return (a.subject, a.predicate) == (b.subject, b.predicate) and skeleton(a.value) != skeleton(b.value)


def memory_context(store: Store, item: MemoryItem) -> str:
    """The memory's text between the turns before and after its first source episode (what its
    'memory_ctx' vector embeds)."""
    episode_id = item_evidence.first_episode(store, item.id)
    if episode_id is None:
        return item.text
    src = episode_turns.position(store, episode_id)
    if src is None or src.session_id is None:
        return item.text
    turn = int(src.turn_index)
    around = {
        int(t.turn_index): f"{t.source_name or t.role}: {t.content}"
        for t in episode_turns.turns_at(store, src.session_id, (turn - 1, turn + 1))
    }
    return context_text(around.get(turn - 1), item.text, around.get(turn + 1))
