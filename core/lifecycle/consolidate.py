"""Consolidation: the slow upkeep that keeps a memory store useful.

Eight stages, in this order, each counting what it found, what it wrote, what it
reinforced and what it skipped (by reason), so ``found == written + reinforced +
sum(skipped)`` holds for every stage and a run where nothing needed doing reads
differently from one where the model failed:

0. revise — a summary or experience one of whose sources was superseded, retracted,
   rejected or forgotten since it was written is written again from what stands now, or
   retired (status ``retracted``, out of every search) when too little is left or the
   model fails (core/lifecycle/revise.py).
1. archive — memories with utility < 0.3 after at least 3 uses, and memories with
   utility below 0.5 that have not been useful for ``idle_days``. Pinned memories are
   never archived. Only the feedback of givers whose authority reaches the memory's
   counts (core/lifecycle/outcome.py ``archive_counters``): a person's own fact is archived on the
   person's word, never on an agent's (skipped as ``feedback_below_authority``).
   Archiving is a status change (searchable with include_archived).
2. merge — near-duplicates (cosine ≥ ``duplicate_cosine``) of the same kind, scope
   (user, team, agent, visibility) and authority, whose values do not disagree, become
   one memory through ``items.merge`` (union of evidence, derivations recorded).
3. fuse — clusters of ``fuse_min_items`` or more closely related memories of one scope and
   kind learned in the last ``fuse_days`` become one fused memory that keeps their time
   order and every name and number; the sources go to cold storage behind ``fused``
   links (core/lifecycle/merge.py).
4. summarise — a session's memories in one scope become a ``summary`` memory: the
   model's summary, evidence = union of the sources' evidence, derivations to every
   source (so forgetting any evidence reaches the summary). A session that gained a memory
   gets a new version of its summary.
5. distil — a trace rewarded ≥ ``experience_reward`` becomes an ``experience`` per scope of
   the memories it used, or reinforces the one that already answers the same question
   (core/lifecycle/experiences.py): the model abstracts the question and what helped into a reusable
   procedure, which is checked before it is stored (core/lifecycle/abstraction.py).
6. budget — per person and source, what exceeds its token or item budget goes to cold
   storage, keeping the best importance ÷ √tokens (core/lifecycle/budgets.py); pinned items stay.
7. decay — retrieval strength follows core/lifecycle/decay.py; nothing else changes.

Memories in an open conflict (core/lifecycle/conflicts.py) are never archived, merged, fused or
moved by a budget until a person settles the conflict (skipped as ``open_conflict``).

Model calls happen outside transactions; each write is its own short transaction.
Nothing here crosses scopes: every group is keyed by (user, team, agent, visibility).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

import numpy as np
from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.lifecycle import budgets, decay, experiences, outcome, revise
from veramem_desktop.core.lifecycle import merge as memory_fusion
from veramem_desktop.core.lifecycle.budgets import BudgetConfig
from veramem_desktop.core.lifecycle.conflicts import open_conflicts
from veramem_desktop.core.lifecycle.rules import (
    ScopeKey,
    StageCount,
    conflict_inside,
    scope_of,
    values_disagree,
)
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import index, items
from veramem_desktop.core.storage.items import ITEM_COLUMNS, Evidence, MemoryItem
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.storage.vectors import VectorCache

__all__ = [
    "STAGES",
    "ConsolidateConfig",
    "ConsolidateReport",
    "Consolidator",
    "ScopeKey",
    "StageCount",
    "consolidate",
    "scope_of",
]

Progress = Callable[[str, int, int], None]  # (stage, done, total)
STAGES = ("revise", "archive", "merge", "fuse", "summarise", "distil", "budget", "decay")
BASE_KINDS = ("fact", "preference", "event")


@dataclass(frozen=True)
class ConsolidateConfig:
    archive_max_utility: float = 0.3
    archive_min_uses: int = 3
    idle_days: float = 60.0
    idle_max_utility: float = 0.5
    duplicate_cosine: float = 0.93
    min_session_items: int = 3
    max_session_items: int = 60
    summary_max_chars: int = 4000
    experience_reward: float = 0.8
    experience_max_items: int = 10
    #: a new experience's text at least this alike an existing one's (same scope) reinforces it instead
    experience_cosine: float = 0.95
    decay: decay.DecayConfig = field(default_factory=decay.DecayConfig)
    decay_min_change: float = 0.01
    batch: int = 200
    #: fusion: clusters of at least this many memories, this alike, learned within ``fuse_days``
    fuse_min_items: int = 5
    fuse_max_items: int = 20
    fuse_cosine: float = 0.6
    fuse_days: float = 7.0
    budgets: BudgetConfig = field(default_factory=BudgetConfig)


@dataclass
class ConsolidateReport:
    stages: dict[str, StageCount] = field(default_factory=lambda: {s: StageCount() for s in STAGES})
    notices: list[str] = field(default_factory=list)
    model: str = ""

    @property
    def reconciles(self) -> bool:
        return all(s.reconciles for s in self.stages.values())

    @property
    def model_failures(self) -> int:
        return sum(
            s.skipped.get("model_failed", 0) + s.skipped.get("model_junk", 0) for s in self.stages.values()
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "stages": {k: v.to_dict() for k, v in self.stages.items()},
            "reconciles": self.reconciles,
            "model": self.model,
            "model_failures": self.model_failures,
            "notices": list(self.notices),
        }


class Consolidator:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        llm: LLM,
        vectors: VectorCache,
        *,
        device: str,
        config: ConsolidateConfig | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.llm = llm
        self.vectors = vectors
        self.device = device
        self.config = config or ConsolidateConfig()
        self.progress = progress

    def run(self, now: datetime | None = None) -> ConsolidateReport:
        moment = now or datetime.now(UTC)
        report = ConsolidateReport(model=str(self.llm.name))
        revise.revise(self, report.stages["revise"], report.notices)
        self._archive(report.stages["archive"], moment)
        self._merge(report.stages["merge"])
        memory_fusion.fuse(self, report.stages["fuse"], report.notices, moment)
        self._summarise(report.stages["summarise"], report.notices)
        experiences.distil(self, report.stages["distil"], report.notices)
        self._budget(report.stages["budget"])
        self._decay(report.stages["decay"], moment)
        return report

    # ------------------------------------------------------------ helpers
    def tick(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)

    def active(
        self, where: str = "", params: Sequence[Any] = (), *, statuses: str = "('active')"
    ) -> list[MemoryItem]:
        sql = f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE status IN {statuses} AND trust != 'rejected'"
        if where:
            sql += f" AND {where}"
        return [items.row_to_item(r) for r in self.store.query(sql + " ORDER BY valid_from, id", params)]

    def evidence_of(self, conn: Connection, sources: Sequence[MemoryItem]) -> list[Evidence]:
        """The union of the sources' evidence, each quote once."""
        seen: set[tuple[str, int, int]] = set()
        out: list[Evidence] = []
        for src in sources:
            for r in conn.execute(
                "SELECT episode_id, quote, span_start, span_end, score, role FROM evidence "
                "WHERE memory_id = ? ORDER BY id",
                (src.id,),
            ).fetchall():
                key = (r[0], int(r[2]), int(r[3]))
                if key not in seen:
                    seen.add(key)
                    out.append(Evidence(r[0], r[1], int(r[2]), int(r[3]), float(r[4]), r[5]))
        return out

    def write_derived(
        self,
        conn: Connection,
        sources: Sequence[MemoryItem],
        kind: str,
        text: str,
        metadata: dict[str, Any],
        previous: MemoryItem | None,
        op_reason: str,
        *,
        vector: Any = None,
    ) -> MemoryItem:
        """Insert a summary or experience built from ``sources`` (all in one scope), indexed and with derivations."""
        evidence = self.evidence_of(conn, sources)
        authority = items.weakest([s.authority for s in sources])
        first = sources[0]
        new = MemoryItem(
            id="",
            kind=kind,
            text=text,
            authority=authority,
            user_id=first.user_id,
            agent_id=first.agent_id,
            team_id=first.team_id,
            session_id=first.session_id if kind == "summary" else None,
            visibility=first.visibility,
            valid_from=min(s.valid_from for s in sources),
            confidence=min(s.confidence for s in sources),
            importance=max(s.importance for s in sources),
            source="derived",
            metadata=metadata,
        )
        if previous is not None:
            item = items.new_version(conn, previous, new, evidence, device=self.device, reason=op_reason)
        else:
            item = items.insert(
                conn,
                new,
                evidence,
                device=self.device,
                op=f"memory.{kind}",
                details={"sources": [s.id for s in sources], "reason": op_reason},
            )
        conn.executemany(
            "INSERT OR IGNORE INTO derivations(derived_id, source_id) VALUES (?, ?)",
            [(item.id, s.id) for s in sources],
        )
        if vector is None:
            vector = self.embedder.embed([item.text])[0]
        index.index_memory(conn, self.embedder.name, item.id, item.text, vector)
        return item

    def ask(self, call: Callable[[], str], count: StageCount, notices: list[str], what: str) -> str | None:
        """One model call; a failure or an unusable reply is counted and noted, never raised."""
        try:
            text = call()
        except ModelError as exc:
            count.skip("model_failed")
            notices.append(f"{what}: the model failed ({exc.message}); left for the next run")
            return None
        text = text.strip() if isinstance(text, str) else ""
        if not text or len(text) > self.config.summary_max_chars:
            count.skip("model_junk")
            notices.append(
                f"{what}: the model's reply was {'empty' if not text else 'too long'}; left for the next run"
            )
            return None
        return text

    # ------------------------------------------------------------ 1. archive
    def _archive(self, count: StageCount, now: datetime) -> None:
        cfg = self.config
        found: list[tuple[MemoryItem, str | None]] = []
        with self.store.read() as conn:
            held = open_conflicts(conn)
        for item in self.active():
            reason = _archive_reason(item, item.uses, item.utility, cfg, now)
            if reason is None:
                continue
            # Only feedback from givers whose authority reaches the memory's may archive it: an
            # agent's failures lower a person's fact in the ranking, never take it out of the way.
            heard = outcome.archive_counters(item)
            found.append((item, _archive_reason(item, heard.uses, heard.utility, cfg, now)))
        count.found = len(found)
        for start in range(0, len(found), cfg.batch):
            with self.store.atomic() as conn:
                for item, reason in found[start : start + cfg.batch]:
                    if item.pinned:
                        count.skip("pinned")
                        continue
                    if item.id in held:  # a person has a conflict to settle: it stays in view
                        count.skip("open_conflict")
                        continue
                    if reason is None:
                        count.skip("feedback_below_authority")
                        continue
                    heard = outcome.archive_counters(item)
                    items.set_fields(
                        conn,
                        item.id,
                        device=self.device,
                        op="memory.archive",
                        status="archived",
                        details={"reason": reason, "utility": round(heard.utility, 4)},
                    )
                    count.wrote(item.id)
            self.tick("archive", min(start + cfg.batch, len(found)), len(found))

    # ------------------------------------------------------------ 2. merge
    def _merge(self, count: StageCount) -> None:
        cfg = self.config
        marks = ",".join("?" * len(BASE_KINDS))
        groups: dict[tuple[Any, ...], list[MemoryItem]] = {}
        for item in self.active(f"kind IN ({marks}) AND pinned = 0", BASE_KINDS):
            groups.setdefault((*scope_of(item), item.kind, item.authority), []).append(item)
        self.vectors.refresh(self.store)
        clusters: list[list[MemoryItem]] = []
        for members in groups.values():
            if len(members) > 1:
                clusters += self.clusters(members)
        with self.store.read() as conn:
            held = open_conflicts(conn)
        count.found = len(clusters)
        for n, cluster in enumerate(clusters, start=1):
            if values_disagree(cluster) or conflict_inside(cluster):
                count.skip("conflicting_values")
            elif any(m.id in held for m in cluster):
                count.skip("open_conflict")
            else:
                # the newest wording stands for the cluster; all share one authority and scope
                rep = max(cluster, key=lambda m: (m.valid_from, m.id))
                ordered = [rep, *[m for m in cluster if m.id != rep.id]]
                with self.store.atomic() as conn:
                    if not self.still_active(conn, ordered):
                        count.skip("changed_meanwhile")
                    else:
                        merged = items.merge(
                            conn,
                            ordered,
                            rep.text,
                            device=self.device,
                            reason=f"near-duplicates (cosine ≥ {cfg.duplicate_cosine})",
                        )
                        vec = self.vectors.vector(rep.id)
                        if vec is None:
                            vec = self.embedder.embed([rep.text])[0]
                        index.index_memory(conn, self.embedder.name, merged.id, merged.text, vec)
                        count.wrote(merged.id)
            self.tick("merge", n, len(clusters))

    def clusters(self, members: list[MemoryItem], threshold: float | None = None) -> list[list[MemoryItem]]:
        """Connected groups of members whose vectors are at least ``threshold`` (default
        ``duplicate_cosine``) alike."""
        cosine = self.config.duplicate_cosine if threshold is None else threshold
        have = [(m, self.vectors.vector(m.id)) for m in members]
        pairs = [(m, v) for m, v in have if v is not None]
        if len(pairs) < 2:
            return []
        matrix = np.stack([v for _, v in pairs]).astype(np.float32)
        parent = list(range(len(pairs)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        block = 512  # bounded memory: compare a block of rows with the rest at a time
        for start in range(0, len(pairs), block):
            sims = matrix[start : start + block] @ matrix.T
            rows, cols = np.nonzero(sims >= cosine)
            for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
                a, b = start + i, j
                if a < b:
                    parent[find(a)] = find(b)
        out: dict[int, list[MemoryItem]] = {}
        for i, (m, _) in enumerate(pairs):
            out.setdefault(find(i), []).append(m)
        return [c for c in out.values() if len(c) > 1]

    @staticmethod
    def still_active(conn: Connection, members: Sequence[MemoryItem]) -> bool:
        marks = ",".join("?" * len(members))
        row = conn.execute(
            f"SELECT count(*) FROM memory_items WHERE status = 'active' AND id IN ({marks})",
            [m.id for m in members],
        ).fetchone()
        return int(row[0]) == len(members)

    # ------------------------------------------------------------ 3. summarise
    def _summarise(self, count: StageCount, notices: list[str]) -> None:
        cfg = self.config
        marks = ",".join("?" * len(BASE_KINDS))
        sessions: dict[tuple[Any, ...], list[MemoryItem]] = {}
        for item in self.active(f"kind IN ({marks}) AND session_id IS NOT NULL", BASE_KINDS):
            sessions.setdefault((item.session_id, *scope_of(item)), []).append(item)
        existing: dict[tuple[Any, ...], MemoryItem] = {}
        # an archived summary still stands for its sources: it is not written again
        for s in self.active(
            "kind = 'summary' AND session_id IS NOT NULL", statuses="('archived', 'active')"
        ):
            key = (s.session_id, *scope_of(s))
            if key not in existing or s.status == "active":
                existing[key] = s
        keys = sorted(sessions, key=lambda k: tuple("" if v is None else str(v) for v in k))
        count.found = len(keys)
        for n, key in enumerate(keys, start=1):
            sources = sessions[key][-cfg.max_session_items :]
            previous = existing.get(key)
            source_ids = sorted(s.id for s in sources)
            if len(sources) < cfg.min_session_items:
                count.skip("too_small")
            elif previous is not None and set(source_ids) <= set(previous.metadata.get("sources", [])):
                # it covers every memory the session holds now (the revise stage, which ran first, has
                # already dealt with any of its sources that changed): nothing to write
                count.skip("up_to_date")
            else:
                texts = [s.text for s in sources]
                text = self.ask(
                    partial(self.llm.summarise, texts), count, notices, f"session {key[0]} summary"
                )
                if text is not None:
                    if items.weakest([s.authority for s in sources]) != "authorized":
                        text = f"According to this session's sources: {text}"
                    with self.store.atomic() as conn:
                        if not self.still_active(conn, sources):
                            count.skip("changed_meanwhile")
                        else:
                            item = self.write_derived(
                                conn,
                                sources,
                                "summary",
                                text,
                                {"sources": source_ids, "session": key[0]},
                                previous,
                                "session summary",
                            )
                            count.wrote(item.id)
            self.tick("summarise", n, len(keys))

    # ------------------------------------------------------------ 6. budget
    def _budget(self, count: StageCount) -> None:
        """Per person and source, what exceeds its budget goes to cold storage (core/lifecycle/budgets.py)."""
        wanted = self.config.budgets.budgets
        if not budgets.over_budget(self.store, wanted):
            return
        with self.store.read() as conn:
            held = open_conflicts(conn)
        planned = budgets.plan(budgets.candidates(self.store, wanted), wanted, held)
        count.found = len(planned)
        for start in range(0, len(planned), self.config.batch):
            with self.store.atomic() as conn:
                for item in planned[start : start + self.config.batch]:
                    if budgets.move(conn, item, device=self.device):
                        count.wrote(item.id)
                    else:
                        count.skip("changed_meanwhile")
            self.tick("budget", min(start + self.config.batch, len(planned)), len(planned))

    # ------------------------------------------------------------ 7. decay
    def _decay(self, count: StageCount, now: datetime) -> None:
        cfg = self.config
        plan: list[tuple[MemoryItem, float | None]] = []
        for item in self.active():
            if item.pinned:
                plan.append((item, None))
                continue
            idle = decay.idle_days(item.last_used_at, item.created_at, now)
            plan.append((item, decay.strength(idle, item.importance, item.trust == "verified", cfg.decay)))
        count.found = len(plan)
        for start in range(0, len(plan), cfg.batch):
            with self.store.atomic() as conn:
                for item, target in plan[start : start + cfg.batch]:
                    if target is None:
                        count.skip("pinned")
                    elif abs(target - item.retrieval_strength) < cfg.decay_min_change:
                        count.skip("unchanged")
                    else:
                        items.set_fields(
                            conn,
                            item.id,
                            device=self.device,
                            op="memory.decay",
                            retrieval_strength=round(target, 4),
                            details={"retrieval_strength": round(target, 4)},
                        )
                        count.wrote(item.id)
            self.tick("decay", min(start + cfg.batch, len(plan)), len(plan))


def _archive_reason(
    item: MemoryItem, uses: int, utility: float, cfg: ConsolidateConfig, now: datetime
) -> str | None:
    """Why counters of ``uses`` and ``utility`` would archive ``item`` (None: they would not)."""
    if uses >= cfg.archive_min_uses and utility < cfg.archive_max_utility:
        return "low_utility"
    if (
        utility < cfg.idle_max_utility
        and decay.idle_days(item.last_used_at, item.created_at, now) >= cfg.idle_days
    ):
        return "idle_low_utility"
    return None


def consolidate(
    store: Store,
    embedder: Embedder,
    llm: LLM,
    vectors: VectorCache,
    *,
    device: str,
    config: ConsolidateConfig | None = None,
    progress: Progress | None = None,
    now: datetime | None = None,
) -> ConsolidateReport:
    """Run every stage once; see the module docstring."""
    return Consolidator(store, embedder, llm, vectors, device=device, config=config, progress=progress).run(
        now
    )
