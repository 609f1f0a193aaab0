"""Self-organisation of one open store: background linking, budgets and links, and vectors of
another model made again.

Linking never delays an add: ``add`` queues the new memory ids (``pending_links``, a
table, so the work survives the process) and wakes one background thread that drains
the queue. The thread fails open: an error is logged with the memory id and the
error's class only, and the item stays queued for the next try. ``stop()`` (called by
``Memory.close``) gives the thread a short grace period; whatever is left is drained by
the next add, ``consolidate`` or the sync daemon.

Vectors: a synced device computing otherwise (another compute or model) ships vectors this
device's search does not compare with. A second background thread makes them again with this
store's embedder (core/lifecycle/reembed.py ``catch_up``: small batches, one short transaction
each, resumable, the other model's vectors kept). It starts after a sync exchange that applied
events (the daemon's and ``sync_run``'s), and once per open store with the first add, import or
exchange, which covers an exchange made by a process that closed before it caught up. It has
no grace period: ``stop()`` ends it after the batch in hand, and the next start resumes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from veramem_desktop.core.lifecycle import budgets as budgets_mod
from veramem_desktop.core.lifecycle import linker as linker_mod
from veramem_desktop.core.lifecycle import links as links_mod
from veramem_desktop.core.lifecycle import reembed as reembed_mod
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import index_rows
from veramem_desktop.core.storage.actor import Actor
from veramem_desktop.core.storage.store import Store

if TYPE_CHECKING:
    from ..config import OrganiseSettings
    from ..sync.service import RunReport

logger = logging.getLogger("veramem.organise")

#: how long ``stop()`` lets the background linker finish before stopping it
CLOSE_GRACE_S = 2.0

#: owners whose vectors the background pass makes per transaction (about 0.2 s of the model each)
VECTOR_BATCH = 32


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
        embedder: Callable[[], Embedder] | None = None,
    ) -> None:
        """``embedder`` gives the embedder search uses now (asked again between batches: a reindex in
        this process changes it); without it vectors are not made in the background."""
        self.store = store
        self.settings = settings
        self.device = device
        self.make_linker = make_linker
        self.embedder = embedder
        self._guard = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop: threading.Event | None = None
        #: set when more was queued while the thread ran: it looks at the queue again before ending
        self._again = False
        self._vectors = _VectorPass()

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
        self._look_for_vectors()
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
        """One background thread at a time drains the queue, then checks the budgets (the first start
        also looks once for vectors of another model); none when the ``background`` setting is off."""
        self._look_for_vectors()
        if not self.settings.background:  # the queue waits for consolidate
            return
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
            self._again = False
            thread = threading.Thread(
                target=self._run_as_system,
                args=(linker, stop, self.budget_config()),
                name="veramem-linker",
                daemon=True,
            )
            thread.start()  # started before it is published: a waiter never joins an unstarted thread
            self._thread = thread

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
                linker.drain(stop=stop.is_set, on_error=_log_failure)
                if not stop.is_set():
                    budgets_mod.enforce(linker.store, device=linker.device, config=budget)
                with self._guard:  # a start asked from now on starts a new thread: nothing queued is missed
                    if stop.is_set() or not self._again:
                        self._thread = None
                        return
                    self._again = False
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
        """Stop the vector pass after its batch in hand; let the linker finish for ``grace`` seconds, then
        ask it to stop and wait as long again."""
        self._vectors.stop(grace)
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

    # ------------------------------------------------------------ vectors of another model
    def vectors_behind(self) -> dict[str, int]:
        """Per vector kind, how many owners hold only vectors of a model search does not use."""
        if self.embedder is None:
            return {}
        return reembed_mod.behind(self.store, self.embedder().name)

    def start_vectors(self) -> None:
        """Make the missing vectors of the current model in the background (one pass at a time; never
        raises: the owners stay as they are for the next start)."""
        if self.embedder is None:
            return
        self._vectors.looked = True
        try:
            embedder = self.embedder()  # built here: the thread never reopens a closed store
        except Exception as exc:
            logger.warning("background vectors could not start (%s)", type(exc).__name__)
            return
        self._vectors.start(self.store, embedder, self.embedder)

    def _look_for_vectors(self) -> None:
        """The first add, import or daemon start of an open store looks once for vectors to make."""
        if not self._vectors.looked:
            self.start_vectors()

    def wait_for_vectors(self, timeout: float = 10.0) -> bool:
        """Wait until the background vector pass is idle; True when it is."""
        return self._vectors.wait(timeout)

    def noticed_sync(self, report: RunReport) -> None:
        """After an exchange: link what the applied events queued, and make the vectors they brought
        of another model again (the first exchange of an open store looks even when it applied nothing)."""
        if report.applied_events and self.settings.linking and links_mod.pending(self.store, limit=1):
            self.start_linker()
        if report.applied_events or not self._vectors.looked:
            self.start_vectors()

    # ------------------------------------------------------------ the sync daemon drains the queue too
    def after_sync(self, on_run: Callable[[RunReport], None]) -> Callable[[RunReport], None]:
        """``on_run`` for the sync daemon, preceded by what :meth:`noticed_sync` starts."""

        def ran(report: RunReport) -> None:
            self.noticed_sync(report)
            on_run(report)

        return ran


def wait_idle(organiser: Organiser | None, timeout: float = 10.0) -> bool:
    """Wait until ``organiser``'s background linker is idle; True when it is (and when there is no
    organiser yet: nothing was linked in the background)."""
    return True if organiser is None else organiser.wait_for_links(timeout)


class _VectorPass:
    """The one background thread that makes vectors of the current model for owners that hold only
    another model's (see the module docstring)."""

    def __init__(self) -> None:
        self.guard = threading.Lock()
        self.thread: threading.Thread | None = None
        self.closing = threading.Event()
        #: whether a pass was started since the store was opened
        self.looked = False
        #: set when a start was asked while the thread ran: it looks again before ending
        self.again = False
        #: (model, rowid): a pass for that model ran to its end over the vectors stored up to that rowid,
        #: so the next looks only at those stored later (the first pass of an open store reads them all)
        self.done: tuple[str, int] = ("", 0)

    def start(self, store: Store, embedder: Embedder, current: Callable[[], Embedder]) -> None:
        with self.guard:
            self.looked = True
            if self.thread is not None and self.thread.is_alive():
                self.again = True
                return
            self.closing.clear()
            self.again = False
            thread = threading.Thread(
                target=self._loop, args=(store, embedder, current), name="veramem-vectors", daemon=True
            )
            thread.start()  # published once started (the loop clears it only under this guard)
            self.thread = thread

    def _loop(self, store: Store, embedder: Embedder, current: Callable[[], Embedder]) -> None:
        try:
            while True:
                upto = index_rows.last_vector_rowid(store)
                model, after = self.done
                self.run(store, embedder, current, self.closing, after if model == embedder.name else 0)
                if not self.closing.is_set() and current().name == embedder.name:
                    self.done = (embedder.name, upto)
                with self.guard:  # a start asked from now on starts a new thread
                    if self.closing.is_set() or not self.again:
                        self.thread = None
                        return
                    self.again = False
        except Exception as exc:  # fail open: the owners keep their vectors for the next pass
            logger.warning("background vectors stopped (%s); the rest is made later", type(exc).__name__)

    @staticmethod
    def run(
        store: Store,
        embedder: Embedder,
        current: Callable[[], Embedder],
        closing: threading.Event,
        after: int = 0,
    ) -> reembed_mod.ReembedReport:
        """One catch-up (of the vectors stored after the rowid ``after``); it ends between batches once
        closing, or once search uses another embedder."""
        report = reembed_mod.catch_up(
            store,
            embedder,
            batch=VECTOR_BATCH,
            stop=lambda: closing.is_set() or current().name != embedder.name,
            after=after,
        )
        if report.made:
            logger.info("made %s vectors of %s", sum(report.made.values()), embedder.name)
        return report

    def wait(self, timeout: float) -> bool:
        thread = self.thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def stop(self, grace: float) -> None:
        self.closing.set()
        self.wait(grace)


def _log_failure(memory_id: str, exc: BaseException) -> None:
    logger.warning("linking %s failed (%s); it stays queued", memory_id, type(exc).__name__)
