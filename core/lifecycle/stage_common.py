"""The ``Consolidator``: what every consolidation stage works with.

Its settings (``ConsolidateConfig``), the store, the embedder, the model and the memory vector
cache, and the helpers the stages share: the union of sources'
evidence, writing a derived memory with its derivations and index entry, one model call that
never raises, clustering by cosine and a check that sources are still active. The stages
themselves are functions over it (core/lifecycle/stages.py, core/lifecycle/revise.py,
core/lifecycle/merge.py, core/lifecycle/experiences.py), and core/lifecycle/consolidation.py
runs them in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

import numpy as np
from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.lifecycle import decay
from veramem_desktop.core.lifecycle.budgets import BudgetConfig
from veramem_desktop.core.lifecycle.rules import StageCount
from veramem_desktop.core.llm import LLM, Reply
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import derivations, index, item_states, items
from veramem_desktop.core.storage.items import Evidence, MemoryItem
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.storage.vectors import VectorCache
from veramem_desktop.core.vocabulary import Kind

__all__ = ["ConsolidateConfig", "Consolidator", "Progress"]

Progress = Callable[[str, int, int], None]  # (stage, done, total)


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


@dataclass(eq=False)
class Consolidator:
    """What every stage of one consolidation run works with: the store, the models, the shared vectors,
    this device, the thresholds and where progress goes."""

    store: Store
    embedder: Embedder
    llm: LLM
    vectors: VectorCache
    _: KW_ONLY
    device: str
    config: ConsolidateConfig = field(default_factory=ConsolidateConfig)
    progress: Progress | None = None

    # ------------------------------------------------------------ helpers
    def tick(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)

    def evidence_of(self, conn: Connection, sources: Sequence[MemoryItem]) -> list[Evidence]:
        """The union of the sources' evidence, each quote once."""
        seen: set[tuple[str, int, int]] = set()
        out: list[Evidence] = []
        for src in sources:
            for ev in items.evidence_on(conn, src.id):
                key = (ev.episode_id, ev.span_start, ev.span_end)
                if key not in seen:
                    seen.add(key)
                    out.append(ev)
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
            session_id=first.session_id if kind == Kind.SUMMARY else None,
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
        derivations.add(conn, item.id, [s.id for s in sources])
        if vector is None:
            vector = self.embedder.embed([item.text])[0]
        index.index_memory(conn, self.embedder.name, item.id, item.text, vector)
        return item

    def ask(
        self, call: Callable[[], Reply[str]], count: StageCount, notices: list[str], what: str
    ) -> str | None:
        """One model call; a failure or an unusable reply is counted and noted, never raised."""
        try:
            text = call().unwrap(notices)
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
        return item_states.count_active(conn, [m.id for m in members]) == len(members)
