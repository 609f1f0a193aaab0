"""Self-organisation of one open store: background linking, budgets and links.

Linking never delays an add: ``add`` queues the new memory ids (``pending_links``, a
table, so the work survives the process) and wakes one background thread that drains
the queue. The thread fails open: an error is logged with the memory id and the
error's class only, and the item stays queued for the next try. ``stop()`` (called by
``Memory.close``) gives the thread a short grace period; whatever is left is drained by
the next add, ``consolidate`` or the sync daemon.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from veramem_desktop.core.lifecycle import budgets as budgets_mod
from veramem_desktop.core.lifecycle import linker as linker_mod
from veramem_desktop.core.lifecycle import links as links_mod
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.trust.actor import Actor

if TYPE_CHECKING:
    from ..config import OrganiseSettings
    from ..sync.service import RunReport

logger = logging.getLogger("veramem.organise")

#: how long ``stop()`` lets the background linker finish before stopping it
CLOSE_GRACE_S = 2.0


class Organiser:
    """Links and budgets of one open store, and the one background linker thread that drains the queue.

    ``make_linker`` builds a :class:`~veramem_desktop.core.lifecycle.linker.Linker` over the store's
    embedder, LLM and shared vector index; it is called when linking starts (in this thread), so the
    background thread never opens anything itself."""

    def __init__(
        self,
        store: Store,
        settings: OrganiseSettings,
        *,
        device: str,
        make_linker: Callable[[], linker_mod.Linker],
    ) -> None:
        self.store = store
        self.settings = settings
        self.device = device
        self.make_linker = make_linker
        self._guard = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop: threading.Event | None = None
        #: set when more was queued while the thread ran: it looks at the queue again before ending
        self._again = False

    # ------------------------------------------------------------ configuration
    def budget_config(self) -> budgets_mod.BudgetConfig:
        o = self.settings
        return budgets_mod.BudgetConfig(
            {
                "user": budgets_mod.Budget(o.user_tokens, o.user_items),
                "agent": budgets_mod.Budget(o.agent_tokens, o.agent_items),
                "tool": budgets_mod.Budget(o.tool_tokens, o.tool_items),
                "document": budgets_mod.Budget(o.document_tokens, o.document_items),
            }
        )

    # ------------------------------------------------------------ links (reading them is services/reading.py's)
    def links_pending(self) -> int:
        """How many memories wait for the linker."""
        return links_mod.pending_count(self.store)

    def drain_links(self, *, limit: int | None = None) -> linker_mod.LinkReport:
        """Link what is queued now, in this thread (used by consolidate and tests)."""
        return self.make_linker().drain(limit=limit, on_error=_log_failure)

    def enqueue(self, memory_ids: Sequence[str]) -> None:
        """Queue memories for linking in a transaction of their own (consolidation's new memories)."""
        with self.store.atomic() as conn:
            links_mod.enqueue(conn, list(memory_ids))

    def queue_links(self, memory_ids: Sequence[str]) -> None:
        """Queue new memories for linking and wake the background linker (never raises)."""
        if not memory_ids or not self.settings.linking:
            return
        try:
            self.enqueue(memory_ids)
        except Exception as exc:  # the add already succeeded; a later drain finds nothing to do
            logger.warning(
                "could not queue %d memories for linking (%s)", len(memory_ids), type(exc).__name__
            )
            return
        self.start_linker()

    # ------------------------------------------------------------ the background linker
    def start_linker(self) -> None:
        """One background thread at a time drains the queue, then checks the budgets."""
        with self._guard:
            thread = self._thread
            if thread is not None and thread.is_alive():
                self._again = True  # more arrived: the running thread looks again
                return
            try:
                linker = self.make_linker()  # built here: the thread never reopens a closed store
            except Exception as exc:
                logger.warning("background linking could not start (%s)", type(exc).__name__)
                return
            stop = threading.Event()
            self._stop = stop
            self._thread = threading.Thread(
                target=self._run_as_system,
                args=(linker, stop, self.budget_config()),
                name="veramem-linker",
                daemon=True,
            )
            self._thread.start()

    def _run_as_system(
        self, linker: linker_mod.Linker, stop: threading.Event, budget: budgets_mod.BudgetConfig
    ) -> None:
        """The background linker's changes are the system's, on the consolidate channel, in the ledger."""
        with self.store.acting.scope(Actor.system("linker", "consolidate"), system=True):
            self._run(linker, stop, budget)

    def _run(
        self, linker: linker_mod.Linker, stop: threading.Event, budget: budgets_mod.BudgetConfig
    ) -> None:
        try:
            while True:
                self._again = False
                linker.drain(stop=stop.is_set, on_error=_log_failure)
                if stop.is_set() or not self._again:
                    break
            if not stop.is_set():
                budgets_mod.enforce(linker.store, device=linker.device, config=budget)
        except Exception as exc:  # fail open: the queue keeps what was not done
            logger.warning("background linking stopped (%s); the rest stays queued", type(exc).__name__)

    def wait_for_links(self, timeout: float = 10.0) -> bool:
        """Wait until the background linker is idle; True when it is."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def stop(self, grace: float = CLOSE_GRACE_S) -> None:
        """Let the linker finish for ``grace`` seconds, then ask it to stop and wait as long again."""
        thread, stop = self._thread, self._stop
        if thread is None or stop is None:
            return
        thread.join(grace)
        stop.set()
        thread.join(grace)
        self._thread = None

    # ------------------------------------------------------------ budgets
    def enforce_budgets(self) -> list[str]:
        """Move what exceeds each source's budget to cold storage now; returns their ids."""
        return budgets_mod.enforce(self.store, device=self.device, config=self.budget_config())

    # ------------------------------------------------------------ the sync daemon drains the queue too
    def after_sync(self, on_run: Callable[[RunReport], None]) -> Callable[[RunReport], None]:
        """``on_run`` for the sync daemon, preceded by linking whatever the applied events queued."""

        def ran(report: RunReport) -> None:
            if self.settings.linking and links_mod.pending(self.store, limit=1):
                self.start_linker()
            on_run(report)

        return ran


def wait_idle(organiser: Organiser | None, timeout: float = 10.0) -> bool:
    """Wait until ``organiser``'s background linker is idle; True when it is (and when there is no
    organiser yet: nothing was linked in the background)."""
    return True if organiser is None else organiser.wait_for_links(timeout)


def _log_failure(memory_id: str, exc: BaseException) -> None:
    logger.warning("linking %s failed (%s); it stays queued", memory_id, type(exc).__name__)
