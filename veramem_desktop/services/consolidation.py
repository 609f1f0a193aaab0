"""Consolidation of one open store, the idle-time job of the outcome loop: erase what has expired
(core/lifecycle/expiry.py), derive again what an add could not, link what is queued, then the engine's
stages (core/lifecycle/consolidation.py), then link what they made."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from datetime import datetime

from veramem_desktop.core.lifecycle import consolidation as consolidate_mod
from veramem_desktop.core.lifecycle import stage_common as consolidator_mod
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage.actor import Actor
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache

from .organiser import Organiser
from .writes import Writes


@dataclass(eq=False)
class Consolidation:
    """Consolidates one store with its embedder, its LLM and the memories' vectors (the ones search and the
    write path share); ``expire`` erases what has expired first, the organiser links, the write path
    derives again. The LLM is asked for once what has expired is erased."""

    store: Store
    embedder: Embedder
    llm: Callable[[], LLM]
    vectors: VectorCache
    _: KW_ONLY
    device: str
    organiser: Organiser
    writes: Writes
    expire: Callable[[datetime | None], object]

    def run(
        self,
        *,
        progress: consolidator_mod.Progress | None = None,
        now: datetime | None = None,
        config: consolidator_mod.ConsolidateConfig | None = None,
    ) -> consolidate_mod.ConsolidateReport:
        """Erase what has expired, then consolidate as the system (channel consolidate), after deriving again
        what earlier adds could not."""
        self.expire(now)
        with self.store.acting.scope(Actor.system("consolidate", "consolidate"), system=True):
            rederived = self.writes.rederive_pending()
            report = self._consolidate(progress=progress, now=now, config=config)
        if rederived["tried"]:
            report.notices.append(
                f"derived again from {rederived['tried']} message(s) an earlier add could not "
                f"derive from: {rederived['derived']} memory(ies); {rederived['still_pending']} "
                "still waiting"
            )
        return report

    def _consolidate(
        self,
        *,
        progress: consolidator_mod.Progress | None,
        now: datetime | None,
        config: consolidator_mod.ConsolidateConfig | None,
    ) -> consolidate_mod.ConsolidateReport:
        """Link what is queued, archive, merge near-duplicates, fuse clusters, summarise sessions,
        distil experiences, keep each source within its budget, decay strength; link what was made.

        The model is asked directly (not through its rule-based fallback), so a model failure
        leaves that cluster for the next run and is counted as such in the report.
        """
        primary = self.llm().without_fallback()
        self.organiser.drain_links()  # what earlier adds left queued
        self.vectors.refresh(self.store)
        if config is None:
            config = consolidator_mod.ConsolidateConfig(budgets=self.organiser.budget_config())
        report = consolidate_mod.consolidate(
            self.store,
            self.embedder,
            primary,
            self.vectors,
            device=self.device,
            config=config,
            progress=progress,
            now=now,
        )
        made = [
            i
            for stage in ("revise", "merge", "fuse", "summarise", "distil")
            for i in report.stages[stage].ids
        ]
        if made:  # the new memories are linked now: consolidation is the idle-time job
            self.organiser.enqueue(made)
            self.organiser.drain_links()
        return report
