"""The outcome loop on the ``Memory`` facade: feedback, consolidation and trajectory export.

A mixin: ``Memory`` inherits it and provides ``store``, ``engine``, ``embedder``, ``llm``,
and ``device_id``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.lifecycle import consolidate as consolidate_mod
from veramem_desktop.core.lifecycle import consolidator as consolidator_mod
from veramem_desktop.core.lifecycle import linker as linker_mod
from veramem_desktop.core.lifecycle import links as links_mod
from veramem_desktop.core.lifecycle import outcome as outcome_mod
from veramem_desktop.core.transfer import training as training_mod
from veramem_desktop.core.transfer.plaintext import open_private
from veramem_desktop.core.write.times import parse_time

from .facade_parts import FacadeParts

if TYPE_CHECKING:
    from veramem_desktop.core.lifecycle.budgets import BudgetConfig


class OutcomeMixin(FacadeParts):
    if TYPE_CHECKING:

        def drain_links(self, *, limit: int | None = None) -> linker_mod.LinkReport: ...

        def budget_config(self) -> BudgetConfig: ...

    def feedback(
        self, trace_id: str, reward: float, *, cited_ids: Sequence[str] | None = None, by: str | None = None
    ) -> dict[str, Any]:
        """Say how well a search or answer went (reward in [-1, 1]).

        Credits the memories named in ``cited_ids`` (only ids that trace retrieved count),
        else the ones the answer cited, else all it retrieved. Returns what was credited.

        ``by`` is whose word it is: ``"person"`` (the CLI and TUI say so) or ``"agent"``
        (MCP and REST always); left out, it is an agent's when the trace was made for an
        agent (``agent_id``), else the person's. An agent's feedback moves ranking only:
        it never gets a person's own fact archived.
        """
        result = outcome_mod.feedback(
            self.store, trace_id, reward, device=self.device_id, cited_ids=cited_ids, by=by
        )
        return result.to_dict()

    def consolidate(
        self,
        *,
        progress: consolidator_mod.Progress | None = None,
        now: datetime | None = None,
        config: consolidator_mod.ConsolidateConfig | None = None,
    ) -> consolidate_mod.ConsolidateReport:
        """Erase what has expired (core/lifecycle/expiry.py), then consolidate as the system (channel consolidate)."""
        from veramem_desktop.core.trust.actor import Actor

        self.expire(now)  # type: ignore[attr-defined]  # Memory.expire
        with self.store.acting.scope(Actor.system("consolidate", "consolidate"), system=True):
            rederived = self.rederive_pending()  # type: ignore[attr-defined]  # Memory.rederive_pending
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
        primary = self.llm.without_fallback()
        self.drain_links()  # what earlier adds left queued
        self.engine.caches["memory"].refresh(self.store)
        if config is None:
            config = consolidator_mod.ConsolidateConfig(budgets=self.budget_config())
        report = consolidate_mod.consolidate(
            self.store,
            self.embedder,
            primary,
            self.engine.caches["memory"],
            device=self.device_id,
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
            with self.store.atomic() as conn:
                links_mod.enqueue(conn, made)
            self.drain_links()
        return report

    def trajectories(self, *, user_id: str | None = None) -> Iterator[dict[str, Any]]:
        """One record per trace, oldest first (see ``export_trajectories``)."""
        return outcome_mod.trajectories(self.store, user_id=user_id)

    def export_trajectories(
        self, path: str | Path, *, user_id: str | None = None, overwrite: bool = False
    ) -> int:
        """Write every trace as one JSON line: query, route, retrieved and cited ids, answer,
        abstention, reward and the writes it caused. Returns the number of records.

        The file is plaintext (the one kind of file VeraMem writes outside the encrypted
        store, and only when asked); it is created readable by its owner only.
        """
        written = 0
        with open_private(Path(path), overwrite=overwrite) as handle:
            for record in self.trajectories(user_id=user_id):
                handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
                written += 1
        return written

    def training_records(
        self,
        *,
        kinds: Sequence[str] = ("write", "answer"),
        since: str | datetime | None = None,
        user_id: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Write-decision and answer records, oldest first, in the schema of
        ``docs/schema/training-export.schema.json`` (see ``export_training``)."""
        return training_mod.records(
            self.store, kinds=_training_kinds(kinds), since=_since(since), user_id=user_id
        )

    def export_training(
        self,
        path: str | Path,
        *,
        kinds: Sequence[str] = ("write", "answer"),
        since: str | datetime | None = None,
        user_id: str | None = None,
        overwrite: bool = False,
    ) -> dict[str, int]:
        """Write the training records (write decisions with the texts each saw and the rewards that later
        reached its memory; answers with their retrieved texts, citations and reward) as JSON lines.
        Returns how many of each were written and how many were left out because something in them is
        withheld or rejected. The file is PLAINTEXT, created readable by its owner only (mode 0600)."""
        chosen, moment = _training_kinds(kinds), _since(since)
        with open_private(Path(path), overwrite=overwrite) as handle:
            counts = training_mod.write_jsonl(self.store, handle, kinds=chosen, since=moment, user_id=user_id)
        return counts.to_dict()


def _training_kinds(kinds: Sequence[str]) -> tuple[str, ...]:
    if isinstance(kinds, str):
        kinds = [kinds]
    unknown = [k for k in kinds if k not in training_mod.KINDS]
    if unknown or not kinds:
        raise InvalidInputError(
            f"Unknown record kind {unknown[0] if unknown else ''!r}; use {' or '.join(training_mod.KINDS)}."
        )
    return tuple(dict.fromkeys(kinds))


def _since(since: str | datetime | None) -> datetime | None:
    if since is None or isinstance(since, datetime):
        return since
    return parse_time(since)
