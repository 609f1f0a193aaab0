"""Self-organisation on the ``Memory`` facade: background linking, budgets, links, hypotheses.

A mixin: ``Memory`` inherits it and provides ``store``, ``engine``, ``embedder``, ``llm``,
``config`` and ``device_id``.

Linking never delays an add: ``add`` queues the new memory ids (``pending_links``, a
table, so the work survives the process) and wakes one background thread that drains
the queue. The thread fails open: an error is logged with the memory id and the
error's class only, and the item stays queued for the next try. ``close()`` gives the
thread a short grace period; whatever is left is drained by the next add,
``consolidate`` or the sync daemon.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from veramem_desktop.core.lifecycle import budgets as budgets_mod
from veramem_desktop.core.lifecycle import linker as linker_mod
from veramem_desktop.core.lifecycle import links as links_mod
from veramem_desktop.core.recall import SearchConfig

from .facade_parts import FacadeParts

if TYPE_CHECKING:
    from .sync.service import RunReport

logger = logging.getLogger("veramem.organise")

#: how long ``close()`` lets the background linker finish before stopping it
CLOSE_GRACE_S = 2.0


class OrganiseMixin(FacadeParts):
    _linker_thread: threading.Thread | None = None
    _linker_stop: threading.Event | None = None

    # ------------------------------------------------------------ configuration
    def _search_config(self) -> SearchConfig:
        s = self.config.search
        base = SearchConfig()
        return SearchConfig(
            k=s.k,
            utility_lambda=s.utility_lambda,
            learned_share=s.learned_share,
            link_decay=s.link_decay,
            weights={**base.weights, "hyde": s.hyde_weight, "memory_ctx": s.context_weight},
        )

    def budget_config(self) -> budgets_mod.BudgetConfig:
        o = self.config.organise
        return budgets_mod.BudgetConfig(
            {
                "user": budgets_mod.Budget(o.user_tokens, o.user_items),
                "agent": budgets_mod.Budget(o.agent_tokens, o.agent_items),
                "tool": budgets_mod.Budget(o.tool_tokens, o.tool_items),
                "document": budgets_mod.Budget(o.document_tokens, o.document_items),
            }
        )

    def _hypothesiser(self) -> Callable[[str], str | None]:
        """The "hyde" channel's source: one hypothetical answer sentence from the model, resolved on
        first use (so building the engine never starts a model); None without a JSON model."""

        def hypothesise(question: str) -> str | None:
            return self.llm.hypothesise(question).value

        return hypothesise

    # ------------------------------------------------------------ links
    def links(self, memory_id: str) -> list[dict[str, Any]]:
        """Every typed edge touching a memory (supports, extends, contrasts, related, prerequisite,
        and the cold-storage edges subsumes and fused), with the other end and the direction."""
        from veramem_desktop.core.storage import items as items_mod

        items_mod.get(self.store, memory_id)  # a clear error for an unknown id
        return links_mod.links_of(self.store, memory_id)

    def links_pending(self) -> int:
        return links_mod.pending_count(self.store)

    def _linker(self) -> linker_mod.Linker:
        engine = self.engine
        return linker_mod.Linker(
            self.store, self.embedder, self.llm, engine.caches["memory"], device=self.device_id
        )

    def drain_links(self, *, limit: int | None = None) -> linker_mod.LinkReport:
        """Link what is queued now, in this thread (used by consolidate and tests)."""
        return self._linker().drain(limit=limit, on_error=_log_failure)

    def _queue_links(self, memory_ids: Sequence[str]) -> None:
        """Queue new memories for linking and wake the background linker (never raises)."""
        if not memory_ids or not self.config.organise.linking:
            return
        try:
            with self.store.atomic() as conn:
                links_mod.enqueue(conn, list(memory_ids))
        except Exception as exc:  # the add already succeeded; a later drain finds nothing to do
            logger.warning(
                "could not queue %d memories for linking (%s)", len(memory_ids), type(exc).__name__
            )
            return
        self._start_linker()

    def _start_linker(self) -> None:
        """One background thread at a time drains the queue, then checks the budgets."""
        guard = self.__dict__.setdefault("_linker_guard_own", threading.Lock())
        with guard:
            thread = self._linker_thread
            if thread is not None and thread.is_alive():
                self.__dict__["_linker_again"] = True  # more arrived: the running thread looks again
                return
            try:
                linker = self._linker()  # built here: the thread never reopens a closed store
            except Exception as exc:
                logger.warning("background linking could not start (%s)", type(exc).__name__)
                return
            stop = threading.Event()
            budget = self.budget_config()
            self._linker_stop = stop
            self._linker_thread = threading.Thread(
                target=self._linker_as_system, args=(linker, stop, budget), name="veramem-linker", daemon=True
            )
            self._linker_thread.start()

    def _linker_as_system(
        self, linker: linker_mod.Linker, stop: threading.Event, budget: budgets_mod.BudgetConfig
    ) -> None:
        """The background linker's changes are the system's, on the consolidate channel, in the ledger."""
        from veramem_desktop.core.trust.actor import Actor

        with self.store.acting.scope(Actor.system("linker", "consolidate"), system=True):
            self._linker_run(linker, stop, budget)

    def _linker_run(
        self, linker: linker_mod.Linker, stop: threading.Event, budget: budgets_mod.BudgetConfig
    ) -> None:
        try:
            while True:
                self.__dict__["_linker_again"] = False
                linker.drain(stop=stop.is_set, on_error=_log_failure)
                if stop.is_set() or not self.__dict__.get("_linker_again"):
                    break
            if not stop.is_set():
                budgets_mod.enforce(linker.store, device=linker.device, config=budget)
        except Exception as exc:  # fail open: the queue keeps what was not done
            logger.warning("background linking stopped (%s); the rest stays queued", type(exc).__name__)

    def wait_for_links(self, timeout: float = 10.0) -> bool:
        """Wait until the background linker is idle; True when it is."""
        thread = self._linker_thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def _stop_linker(self, grace: float = CLOSE_GRACE_S) -> None:
        thread, stop = self._linker_thread, self._linker_stop
        if thread is None or stop is None:
            return
        thread.join(grace)
        stop.set()
        thread.join(grace)
        self._linker_thread = None

    # ------------------------------------------------------------ budgets
    def enforce_budgets(self) -> list[str]:
        """Move what exceeds each source's budget to cold storage now; returns their ids."""
        return budgets_mod.enforce(self.store, device=self.device_id, config=self.budget_config())

    # ------------------------------------------------------------ the sync daemon drains the queue too
    def sync_daemon(
        self,
        stop: threading.Event,
        *,
        scan_s: float = 30.0,
        on_run: Callable[[RunReport], None] = lambda _r: None,
        on_error: Callable[[Exception], None] = lambda _e: None,
    ) -> None:
        self._start_linker()

        def ran(report: RunReport) -> None:
            if self.config.organise.linking and links_mod.pending(self.store, limit=1):
                self._start_linker()
            on_run(report)

        cast(Any, super()).sync_daemon(stop, scan_s=scan_s, on_run=ran, on_error=on_error)


def _log_failure(memory_id: str, exc: BaseException) -> None:
    logger.warning("linking %s failed (%s); it stays queued", memory_id, type(exc).__name__)
