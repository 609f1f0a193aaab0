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

Every stage is a function over the ``Consolidator`` (core/lifecycle/stage_common.py: the
settings, the store and models, and the helpers the stages share); archive, merge, summarise,
budget and decay are in core/lifecycle/stages.py. This module runs them in order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from veramem_desktop.core.lifecycle import experiences, merge, revise, stages
from veramem_desktop.core.lifecycle.rules import StageCount
from veramem_desktop.core.lifecycle.stage_common import ConsolidateConfig, Consolidator, Progress
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache

__all__ = ["STAGES", "ConsolidateReport", "consolidate"]

STAGES = ("revise", "archive", "merge", "fuse", "summarise", "distil", "budget", "decay")


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
    con = Consolidator(
        store, embedder, llm, vectors, device=device, config=config or ConsolidateConfig(), progress=progress
    )
    moment = now or datetime.now(UTC)
    report = ConsolidateReport(model=con.llm.capabilities.name)
    revise.revise(con, report.stages["revise"], report.notices)
    stages.archive(con, report.stages["archive"], moment)
    stages.merge(con, report.stages["merge"])
    merge.fuse(con, report.stages["fuse"], report.notices, moment)
    stages.summarise(con, report.stages["summarise"], report.notices)
    experiences.distil(con, report.stages["distil"], report.notices)
    stages.budget(con, report.stages["budget"])
    stages.decay(con, report.stages["decay"], moment)
    return report
