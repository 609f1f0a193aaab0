"""The ``Memory`` facade: the one service API used by the CLI, TUI, MCP, REST and SDK.

It is the composition root: it resolves paths and settings, unlocks the store,
builds the embedder, the LLM backend, the one vector index and the search engine, and
gives each service of the open store (veramem_desktop/services/: writes, import, the
organiser with its background linker, consolidation, outcomes, sync) exactly the parts it
uses. Every surface calls these methods and nothing below them.

    from veramem_desktop import Memory
    with Memory() as mem:
        mem.add("I moved to Lisbon in March.", user_id="me")
        print(mem.search("where do I live?", user_id="me").results[0].text)
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veramem_desktop.core import limits
from veramem_desktop.core.lifecycle import consolidate as consolidate_mod
from veramem_desktop.core.lifecycle import consolidator as consolidator_mod
from veramem_desktop.core.lifecycle import expiry as expiry_mod
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.lifecycle import linker as linker_mod
from veramem_desktop.core.lifecycle.sharing import ShareReport
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import SearchConfig, SearchEngine, SearchResult
from veramem_desktop.core.recall.answer import Answerer, AnswerResult
from veramem_desktop.core.storage import episodes as episodes_mod
from veramem_desktop.core.storage import grants as grants_mod
from veramem_desktop.core.storage import items as items_mod
from veramem_desktop.core.storage import ledger, ledger_verify, stats
from veramem_desktop.core.storage.episodes import Episode, EpisodeInput, Scope
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorIndex
from veramem_desktop.core.transfer.import_report import ImportReport
from veramem_desktop.core.trust import detail as detail_mod
from veramem_desktop.core.trust import reads
from veramem_desktop.core.trust import review as review_mod
from veramem_desktop.core.trust.access import Caller
from veramem_desktop.core.trust.actor import Actor
from veramem_desktop.core.trust.detail import MemoryDetail
from veramem_desktop.core.write.results import AddResult
from veramem_desktop.core.write.times import parse_time

from .config import Config, Paths, load_config, resolve_paths
from .keys import KeyManager, NewKey, PassphraseSource
from .services.consolidation import Consolidation
from .services.curation import Curation, check_share_target
from .services.device_sync import DeviceSync
from .services.importer import Importer, ImportProgress
from .services.opening import Opening
from .services.organiser import Organiser
from .services.outcomes import Outcomes
from .services.recall import checked_query, checked_question
from .services.writes import MessageLike, Writes, document_inputs, scope_for, to_inputs

if TYPE_CHECKING:
    from veramem_desktop.core.lifecycle.budgets import BudgetConfig
    from veramem_desktop.core.transfer.records import Record

    from .sync.service import RunReport, SyncService


class Memory:
    """One person's memory store. Thread-safe; open it once per process."""

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        passphrase: str | None = None,
        passphrase_source: PassphraseSource | None = None,
        config: Config | None = None,
        embedder: Any = None,
        llm: Any = None,
        channel: str = "sdk",
    ) -> None:
        """``channel``: the surface using this facade (cli, tui, mcp, rest, sdk); the ledger records it."""
        self.paths: Paths = resolve_paths(home)
        self.channel = channel
        Actor.user("user", channel)  # an unknown channel is refused here, not at the first write
        self.config: Config = config if config is not None else load_config(self.paths)
        self._passphrase = passphrase
        self._keys = KeyManager(self.paths.keyinfo, passphrase_source)
        self._opening = Opening(self.paths, self.config, self._keys)
        self._store: Store | None = None
        self._open_lock = threading.Lock()
        self._embedder = embedder
        self._llm = llm
        self._engine: SearchEngine | None = None
        #: the one cache of stored vectors, shared by search, the write path, the linker and consolidation
        self._vectors: VectorIndex | None = None
        self._organiser: Organiser | None = None
        self._sync: DeviceSync | None = None
        self._curated: Curation | None = None

    # ------------------------------------------------------------ lifecycle
    @property
    def store_path(self) -> Path:
        return self._opening.store_path

    def exists(self) -> bool:
        """True when a store was made here: its file, its key information or the settings say so.

        Such a store is opened or refused (damaged, emptied, missing file), never replaced
        by a new empty one; only ``veramem init --force`` starts again.
        """
        return bool(self._opening.evidence())

    @classmethod
    def create(
        cls,
        home: str | Path | None = None,
        *,
        passphrase: str | None = None,
        use_keyring: bool | None = None,
        config: Config | None = None,
        force: bool = False,
        **kwargs: Any,
    ) -> tuple[Memory, NewKey]:
        """Make a new store; returns it open, with the recovery code to show once.

        Where a store was made before, nothing is changed unless ``force``: then its files
        are kept aside (renamed ``….replaced-<time>``) and a new empty store is made.
        """
        mem = cls(home, passphrase=passphrase, config=config, **kwargs)
        store, new_key = mem._opening.create(passphrase=passphrase, use_keyring=use_keyring, force=force)
        mem._store = store
        store.acting.default = mem._actor()
        return mem, new_key

    @property
    def _store_handle(self) -> Store:
        """The open store, opened (its key loaded) on first use. Not part of the facade: the services
        are given it here, surfaces go through the facade's calls."""
        with self._open_lock:
            if self._store is None:
                self._store = self._opening.open(self._passphrase)
                self._store.acting.default = self._actor()
            return self._store

    def _actor(self, user_id: str | None = None) -> Actor:
        """Who acts by default through this facade: the person (the config's user), on this channel."""
        return Actor.user(user_id or self.config.identity.user_id or "user", self.channel)

    def acting_as(self, actor: Actor) -> Any:
        """A block in which this thread's changes are recorded as ``actor``'s (an agent surface uses it)."""
        return self._store_handle.acting.scope(actor)

    def unlock_with_recovery_code(self, code: str, *, new_passphrase: str | None = None) -> None:
        key = self._opening.recover(code, new_passphrase=new_passphrase)
        with self._open_lock:
            if self._store is None:
                self._store = self._opening.open_with(key)
                self._store.acting.default = self._actor()

    def close(self) -> None:
        organiser = self._organiser
        if organiser is not None:
            organiser.stop()  # a short grace period; what is left stays queued for the next process
        with self._open_lock:
            self._engine = None
            self._vectors = None
            self._organiser = None
            if self._store is not None:
                self._store.close()
                self._store = None

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def device_id(self) -> str:
        return self._store_handle.get_meta("device_id") or "dev_local"

    def _scope(
        self, user_id: str | None, agent_id: str | None, team_id: str | None, session_id: str | None
    ) -> Scope:
        return scope_for(self.config.identity, user_id, agent_id, team_id, session_id)

    # ------------------------------------------------------------ write
    def add(
        self,
        messages: MessageLike | Sequence[MessageLike],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        team_id: str | None = None,
        session_id: str | None = None,
        role: str = "user",
        name: str | None = None,
        until: str | datetime | None = None,
        expires_in: str | None = None,
    ) -> AddResult:
        """Store messages as episodes, then derive memories from them.

        ``until`` (a time, or a date: kept through that day) or ``expires_in`` ("7d", "12h", "2w"): the
        messages and what is derived from them are erased like a forget once that time passes."""
        inputs = to_inputs(messages, role=role, name=name)
        notices = episodes_mod.validate(inputs)
        limits.check_scope(user_id=user_id, agent_id=agent_id, team_id=team_id, session_id=session_id)
        scope = self._scope(user_id, agent_id, team_id, session_id)
        expires_at = expiry_mod.resolve(until, expires_in, datetime.now(UTC))
        with self._store_handle.acting.scope(self._actor(scope.user_id)):
            result = self._writes().add(inputs, scope, notices, expires_at)
        return result

    @property
    def _backend(self) -> LLM:
        """The LLM backend, built from the settings on first use (finding a model server can take a while).
        Not part of the facade: surfaces reach the model through its calls (add, answer, consolidate)."""
        with self._open_lock:
            if self._llm is None:
                from .setup import make_llm

                self._llm = make_llm(self.config)
            return self._llm

    @property
    def llm_name(self) -> str:
        return self._backend.capabilities.name

    def add_document(
        self,
        text: str,
        *,
        name: str,
        user_id: str | None = None,
        agent_id: str | None = None,
        team_id: str | None = None,
        session_id: str | None = None,
        until: str | datetime | None = None,
        expires_in: str | None = None,
    ) -> AddResult:
        """Split a document into chunks, each an episode with role ``document`` named after the file."""
        return self.add(
            document_inputs(text, name),
            user_id=user_id,
            agent_id=agent_id,
            team_id=team_id,
            session_id=session_id or f"doc:{name}",
            until=until,
            expires_in=expires_in,
        )

    # ------------------------------------------------------------ models
    @property
    def _embedder_handle(self) -> Embedder:
        """The embedding model, built from the settings on first use. Not part of the facade: surfaces reach
        it through the facade's calls (`embedder_name`, `load_embedder`)."""
        with self._open_lock:
            if self._embedder is None:
                from .models.embedder import OnnxEmbedder, default_embedder

                cfg = self.config.embedder
                if cfg.model_path:
                    self._embedder = OnnxEmbedder(
                        cfg.model_path, cfg.tokenizer_path or None, expected_sha256=cfg.sha256 or None
                    )
                else:
                    self._embedder = default_embedder()
            return self._embedder

    @property
    def embedder_name(self) -> str:
        return str(self._embedder_handle.name)

    @property
    def _engine_handle(self) -> SearchEngine:
        """The search engine of `search` and `answer`, built with the one vector index on first use. Not
        part of the facade (a measurement gets an engine of its own from `search_engine`)."""
        with self._open_lock:
            engine = self._engine
        if engine is None:
            store, embedder = self._store_handle, self._embedder_handle
            search = copy.deepcopy(self.config.search)  # a recipe set on the engine leaves the settings alone
            vectors = VectorIndex(embedder.name, embedder.dim, exact_up_to=search.dense_exact_up_to)
            engine = SearchEngine(store, embedder, search, vectors)
            engine.hypothesise = self._hypothesise
            with self._open_lock:
                if self._engine is None:
                    self._engine, self._vectors = engine, vectors
        return self._engine  # type: ignore[return-value]

    def _index(self) -> VectorIndex:
        """The open store's vector index (built with the engine, which searches with it)."""
        return self._engine_handle.vectors

    def _hypothesise(self, question: str) -> str | None:
        """The "hyde" channel's source: one hypothetical answer sentence from the model, resolved on
        first use (so building the engine never starts a model); None without a JSON model."""
        return self._backend.hypothesise(question).value

    def caller(
        self, user_id: str | None = None, agent_id: str | None = None, *, include_rejected: bool = False
    ) -> Caller:
        """Who is asking. ``include_rejected`` is a person's request to see rejected material too; an agent
        never gets it (core/trust/access.py ignores it whenever an agent id is set)."""
        ident = self.config.identity
        return Caller(
            user_id or ident.user_id,
            agent_id if agent_id is not None else (ident.agent_id or None),
            include_rejected,
        )

    # ------------------------------------------------------------ services of the open store
    def _organising(self) -> Organiser:
        """The open store's organiser (links, budgets, the background linker), made on first use."""
        store, device = self._store_handle, self.device_id
        with self._open_lock:
            if self._organiser is None or self._organiser.store is not store:  # reopened since
                self._organiser = Organiser(
                    store, self.config.organise, device=device, make_linker=self._make_linker
                )
            return self._organiser

    def _make_linker(self) -> linker_mod.Linker:
        return linker_mod.Linker(
            self._store_handle,
            self._embedder_handle,
            self._backend,
            self._index().memory,
            device=self.device_id,
        )

    def _writes(self) -> Writes:
        """The add path over the open store's engine and models (the LLM is resolved once episodes are kept)."""
        return Writes(
            self._store_handle,
            self._engine_handle,
            self._embedder_handle,
            lambda: self._backend,
            vectors=self._index().memory,
            device=self.device_id,
            organiser=self._organising(),
        )

    def _importer(self) -> Importer:
        return Importer(
            self._store_handle,
            embedder=lambda: self._embedder_handle,
            writer=lambda: self._writes().writer(),
            identity=self.config.identity,
            linking=self.config.organise.linking,
            device=self.device_id,
            organiser=self._organising(),
        )

    def _curation(self) -> Curation:
        """Pins, expiry, erasure and sharing of the open store (made on first use, and again once the store
        is reopened); the embedder, engine and LLM are resolved when a call needs them."""
        store, curation = self._store_handle, self._curated
        if curation is None or curation.store is not store:
            curation = self._curated = Curation(
                store,
                device=self.device_id,
                channel=self.channel,
                embedder=lambda: self._embedder_handle,
                engine=lambda: self._engine_handle,
                llm=lambda: self._backend,
            )
        return curation

    def _outcomes(self) -> Outcomes:
        return Outcomes(self._store_handle, device=self.device_id)

    def _device_sync(self) -> DeviceSync:
        store, device = self._store_handle, self.device_id
        with self._open_lock:
            if self._sync is None:
                self._sync = DeviceSync(store, device=device)
            elif self._sync.store is not store:  # reopened since
                self._sync = self._sync.reopened(store, device=device)
            return self._sync

    # ------------------------------------------------------------ import and export
    def import_history(
        self,
        path: str | Path,
        *,
        format: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        team_id: str | None = None,
        session_id: str | None = None,
        since: str | datetime | None = None,
        dry_run: bool = False,
        batch_size: int | None = None,
        progress: ImportProgress | None = None,
        on_record: Callable[[Record], None] | None = None,
    ) -> ImportReport:
        """Import chat history (ChatGPT or Claude export, message lists, documents) or a memory export.

        ``since`` keeps only messages at or after that time; ``dry_run`` stores nothing and
        calls ``on_record`` with each message that would be stored. Messages already stored
        by an earlier import are skipped. Unreadable records are listed in the report with
        their position and skipped. ``batch_size`` (messages per transaction) defaults to
        128 with the rule-based backend and 16 with a model.
        """
        return self._importer().import_history(
            path,
            format=format,
            user_id=user_id,
            agent_id=agent_id,
            team_id=team_id,
            session_id=session_id,
            since=since,
            dry_run=dry_run,
            batch_size=batch_size,
            progress=progress,
            on_record=on_record,
        )

    def export_memories(
        self, path: str | Path, *, format: str = "jsonl", user_id: str | None = None, overwrite: bool = False
    ) -> dict[str, int]:
        """Write every memory with its versions, validity, evidence (and the episodes quoted),
        authority, trust and links, as JSON lines or Markdown. PLAINTEXT, created with mode 0600."""
        return self._importer().export_memories(path, format=format, user_id=user_id, overwrite=overwrite)

    # ------------------------------------------------------------ links and budgets
    def links(self, memory_id: str) -> list[dict[str, Any]]:
        """Every typed edge touching a memory (supports, extends, contrasts, related, prerequisite,
        and the cold-storage edges subsumes and fused), with the other end and the direction."""
        return self._organising().links(memory_id)

    def links_pending(self) -> int:
        return self._organising().links_pending()

    def drain_links(self, *, limit: int | None = None) -> linker_mod.LinkReport:
        """Link what is queued now, in this thread (used by consolidate and tests)."""
        return self._organising().drain_links(limit=limit)

    def wait_for_links(self, timeout: float = 10.0) -> bool:
        """Wait until the background linker is idle; True when it is."""
        organiser = self._organiser
        return True if organiser is None else organiser.wait_for_links(timeout)

    def budget_config(self) -> BudgetConfig:
        return self._organising().budget_config()

    def enforce_budgets(self) -> list[str]:
        """Move what exceeds each source's budget to cold storage now; returns their ids."""
        return self._organising().enforce_budgets()

    # ------------------------------------------------------------ outcome loop
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
        return self._outcomes().feedback(trace_id, reward, cited_ids=cited_ids, by=by)

    def consolidate(
        self,
        *,
        progress: consolidator_mod.Progress | None = None,
        now: datetime | None = None,
        config: consolidator_mod.ConsolidateConfig | None = None,
    ) -> consolidate_mod.ConsolidateReport:
        """Erase what has expired (core/lifecycle/expiry.py), then consolidate as the system (channel consolidate)."""
        self.expire(now)
        writes = self._writes()
        consolidation = Consolidation(
            self._store_handle,
            self._embedder_handle,
            self._backend,
            self._index().memory,
            device=self.device_id,
            organiser=writes.organiser,
            writes=writes,
        )
        return consolidation.run(progress=progress, now=now, config=config)

    def rederive_pending(self) -> dict[str, Any]:
        """Derive memories from the episodes an earlier add stored but could not derive from (run by
        ``consolidate``); those that fail again stay queued. Returns what was tried and derived."""
        return self._writes().rederive_pending()

    def trajectories(self, *, user_id: str | None = None) -> Iterator[dict[str, Any]]:
        """One record per trace, oldest first (see ``export_trajectories``)."""
        return self._outcomes().trajectories(user_id=user_id)

    def export_trajectories(
        self, path: str | Path, *, user_id: str | None = None, overwrite: bool = False
    ) -> int:
        """Write every trace as one JSON line (PLAINTEXT, created readable by its owner only); returns the
        number of records."""
        return self._outcomes().export_trajectories(path, user_id=user_id, overwrite=overwrite)

    def training_records(
        self,
        *,
        kinds: Sequence[str] = ("write", "answer"),
        since: str | datetime | None = None,
        user_id: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Write-decision and answer records, oldest first, in the schema of
        ``docs/schema/training-export.schema.json`` (see ``export_training``)."""
        return self._outcomes().training_records(kinds=kinds, since=since, user_id=user_id)

    def export_training(
        self,
        path: str | Path,
        *,
        kinds: Sequence[str] = ("write", "answer"),
        since: str | datetime | None = None,
        user_id: str | None = None,
        overwrite: bool = False,
    ) -> dict[str, int]:
        """Write the training records as JSON lines (PLAINTEXT, mode 0600); returns how many of each were
        written and how many were left out because something in them is withheld or rejected."""
        return self._outcomes().export_training(
            path, kinds=kinds, since=since, user_id=user_id, overwrite=overwrite
        )

    # ------------------------------------------------------------ sync
    @property
    def sync(self) -> SyncService:
        return self._device_sync().service

    def sync_init(self, folder: str | Path, name: str = "") -> dict[str, Any]:
        """Make this the first device of a sync account using ``folder`` (a folder a file-sync engine replicates)."""
        return self._device_sync().init(folder, name)

    def sync_join_start(self, folder: str | Path, name: str = "") -> str:
        """Ask to join through ``folder``; returns the one-time code to type on a trusted device."""
        return self._device_sync().join_start(folder, name)

    def sync_pairing_code(self) -> str | None:
        """The code of the join started by ``sync_join_start`` and not finished yet, if any."""
        return self._device_sync().pairing_code()

    def sync_join_finish(
        self, *, timeout_s: float = 600.0, stop: Callable[[], bool] = lambda: False
    ) -> dict[str, Any]:
        """Wait for the approval of the join started by ``sync_join_start``, then exchange once."""
        return self._device_sync().join_finish(timeout_s=timeout_s, stop=stop)

    def sync_approve(self, code: str, *, wait_s: float = 30.0) -> dict[str, Any]:
        """Approve the new device showing ``code`` (a human act: CLI or TUI only)."""
        return self.sync.approve(code, wait_s=wait_s)

    def sync_devices(self) -> list[dict[str, Any]]:
        return self.sync.devices()

    def sync_remove(self, device_id: str) -> dict[str, Any]:
        """Remove a device and rotate the sync key so it cannot read anything written after."""
        return self.sync.remove(device_id)

    def sync_run(self) -> RunReport:
        """Exchange once with the sync folder."""
        return self.sync.run()

    def sync_daemon(
        self,
        stop: threading.Event,
        *,
        scan_s: float = 30.0,
        on_run: Callable[[RunReport], None] = lambda _r: None,
        on_error: Callable[[Exception], None] = lambda _e: None,
    ) -> None:
        """Exchange whenever files arrive and every ``scan_s`` seconds until ``stop`` is set (blocks); the
        linker drains what earlier adds and applied events queued."""
        organiser = self._organising()
        organiser.start_linker()
        self._device_sync().daemon(
            stop, scan_s=scan_s, on_run=organiser.after_sync(on_run), on_error=on_error
        )

    def sync_status(self) -> dict[str, Any]:
        """Devices, last exchange, pending events, refused and waiting files with reasons, broken chains."""
        return self.sync.status()

    def sync_state_hash(self) -> str:
        """A hash of the replicated state; equal on devices that have exchanged everything."""
        from .sync.replica import state_hash

        return state_hash(self._store_handle)

    # ------------------------------------------------------------ search
    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        k: int | None = None,
        route: str | None = None,
        include_archived: bool = False,
        include_rejected: bool = False,
    ) -> SearchResult:
        """Hybrid search (no LLM call). Writes a trace; its id is in the result for `feedback`.
        ``include_rejected`` (a person only, never an agent) shows rejected material too, labelled."""
        query = checked_query(query, route, k)
        self.expire_if_due()
        return self._engine_handle.search(
            query,
            self.caller(user_id, agent_id, include_rejected=include_rejected),
            k=k,
            route=route,
            include_archived=include_archived,
        )

    # ------------------------------------------------------------ memories
    def get(self, memory_id: str, *, caller: Caller | None = None) -> MemoryItem:
        """The memory ``memory_id``, as ``caller`` (the person by default) may read it."""
        return reads.get(self._store_handle, self._reader(caller), memory_id)

    def memories(
        self,
        *,
        user_id: str | None = None,
        kind: str | None = None,
        status: str | None = "active",
        authority: str | None = None,
        trust: str | None = None,
        agent_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[MemoryItem]:
        """Memory items, newest first, filtered by any of the given fields (None means any)."""
        return items_mod.list_items(
            self._store_handle,
            user_id=user_id,
            kind=kind,
            status=status,
            authority=authority,
            trust=trust,
            agent_id=agent_id,
            limit=limit,
            offset=offset,
        )

    def history(
        self,
        memory_id: str,
        *,
        as_of: str | datetime | None = None,
        include_rejected: bool = False,
        caller: Caller | None = None,
    ) -> list[MemoryItem]:
        """Every version of a memory, oldest first; with ``as_of``, the one version valid then (or none).
        Rejected versions, and versions holding a rejected value, only with ``include_rejected`` (a person
        only). ``caller``: who reads (the person by default; an agent surface passes its own)."""
        reader = self._reader(caller, include_rejected)
        if as_of is None:
            return reads.history(self._store_handle, reader, memory_id)
        moment = iso(as_of) if isinstance(as_of, datetime) else iso(parse_time(as_of))
        return reads.as_of(self._store_handle, reader, memory_id, moment)

    def detail(
        self, memory_id: str, *, include_rejected: bool = True, caller: Caller | None = None
    ) -> MemoryDetail:
        """A memory with its evidence inside the source episodes, its versions, ledger entries and links.
        Without ``include_rejected``, a rejected memory is not found, and rejected versions and evidence
        holding a rejected value are left out. ``caller``: who reads (the person by default); evidence in
        messages an agent caller may not see is left out and counted in ``evidence_withheld``."""
        return detail_mod.detail(self._store_handle, self._reader(caller, include_rejected), memory_id)

    # ------------------------------------------------------------ answer
    def answer(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None, k: int = 10
    ) -> AnswerResult:
        """Answer from memory only, citing what it relied on, or abstain."""
        question = checked_question(question)
        self.expire_if_due()
        return Answerer(self._engine_handle, self._backend).answer(
            question, self.caller(user_id, agent_id), k=k
        )

    # ------------------------------------------------------------ review (a person's act only)
    def review_queue(self, *, user_id: str | None = None) -> list[review_mod.ReviewItem]:
        return review_mod.queue(self._store_handle, user_id=user_id)

    def approve(self, memory_id: str) -> MemoryItem:
        """Mark a memory verified. For people only: never exposed to agents (MCP/REST)."""
        return review_mod.approve(self._store_handle, memory_id, device=self.device_id)

    def reject(self, memory_id: str, reason: str = "") -> review_mod.Rejection:
        """Reject a memory: it, the memories saying the same and the messages holding its value are hidden
        from every recall, its value can never return, and an earlier version it replaced is current again."""
        return review_mod.reject(self._store_handle, memory_id, device=self.device_id, reason=reason)

    # ------------------------------------------------------------ sharing
    def share_experiences(
        self,
        *,
        user_id: str | None = None,
        visibility: str = "public",
        team_id: str | None = None,
        tau: float = 0.5,
        team_policy: bool = False,
        only: list[str] | None = None,
    ) -> ShareReport:
        """Share eligible experiences and world facts, abstracted and gated, as unendorsed pool items."""
        check_share_target(visibility, team_id)
        return self._curation().share(
            self.caller(user_id).user_id,
            visibility=visibility,
            team_id=team_id,
            tau=tau,
            team_policy=team_policy,
            only=only,
        )

    def mark_shareable(self, memory_id: str, shareable: bool = True) -> MemoryItem:
        """The owner's consent to share one memory (a person's act)."""
        return self._curation().mark_shareable(memory_id, shareable)

    def may_act_on(self, item: MemoryItem) -> bool:
        """Whether an agent may act on ``item``: the one action gate (core/trust/action_gate.py), with its open
        conflicts read from the store (a partner that is active and not rejected keeps the conflict open)."""
        return self._curation().may_act_on(item)

    # ------------------------------------------------------------ pins and expiry
    def pin(self, memory_id: str) -> MemoryItem:
        """Keep a memory: consolidation never archives, fuses or moves it, and it does not expire."""
        return self._curation().set_pinned(memory_id, True)

    def unpin(self, memory_id: str) -> MemoryItem:
        """Let consolidation (and an expiry set on it) treat the memory like any other again."""
        return self._curation().set_pinned(memory_id, False)

    def expire_if_due(self, now: datetime | None = None) -> expiry_mod.ExpiryReport | None:
        """Erase what has expired when the earliest recorded expiry has passed (one meta read otherwise)."""
        return self._curation().expire_if_due(now)

    def expire(self, now: datetime | None = None) -> expiry_mod.ExpiryReport:
        """Erase every memory and message whose time has passed, like a forget, as the system."""
        return self._curation().expire(now)

    def expiring(
        self,
        within: timedelta = timedelta(days=7),
        *,
        user_id: str | None = None,
        now: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """Active memories that expire within ``within``, soonest first."""
        return expiry_mod.upcoming(self._store_handle, now or datetime.now(UTC), within, user_id=user_id)

    # ------------------------------------------------------------ forget
    def forget_preview(self, target: str, *, caller: Caller | None = None) -> forget_mod.ForgetPlan:
        """Exactly what `forget(target)` would erase (versions, evidence, episodes, derived items)."""
        return reads.forget_plan(self._store_handle, self._reader(caller), target)

    def forget(self, target: str, *, caller: Caller | None = None) -> forget_mod.ForgetReport:
        """Erase a memory (every version), an episode, or `user:<id>`, and all that was built from them.
        ``caller``: who erases (the person by default, who may erase anything; an agent only what it owns)."""
        return self._curation().forget(self._reader(caller), target)

    # ------------------------------------------------------------ grants
    def grant(self, kind: str, subject: str, object: str) -> grants_mod.Grant:
        """Add an access edge: user_agent (user → agent), agent_resource (agent → agent/resource), team_member (user → team)."""
        with self._store_handle.atomic() as conn:
            return grants_mod.grant(conn, kind, subject, object, device=self.device_id)

    def revoke(self, kind: str, subject: str, object: str) -> int:
        """End an access edge now; items it exposed are hidden at once, retroactively."""
        with self._store_handle.atomic() as conn:
            return grants_mod.revoke(conn, kind, subject, object, device=self.device_id)

    def grants(self, *, include_revoked: bool = False) -> list[grants_mod.Grant]:
        return grants_mod.list_grants(self._store_handle, include_revoked=include_revoked)

    # ------------------------------------------------------------ read
    def episodes(
        self,
        *,
        user_id: str | None = None,
        session_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
        newest_first: bool = True,
        include_rejected: bool = False,
    ) -> list[Episode]:
        """Episodes; those holding a rejected value only with ``include_rejected`` (a person asking)."""
        return episodes_mod.list_episodes(
            self._store_handle,
            user_id=user_id,
            session_id=session_id,
            limit=limit,
            offset=offset,
            newest_first=newest_first,
            include_rejected=include_rejected,
        )

    def episode(self, episode_id: str) -> Episode | None:
        return episodes_mod.get(self._store_handle, episode_id)

    def sessions(self, *, user_id: str | None = None) -> list[dict[str, Any]]:
        return episodes_mod.sessions(self._store_handle, user_id=user_id)

    def verify(self, progress: Callable[[int, int], None] | None = None) -> ledger_verify.VerifyReport:
        return ledger_verify.verify(self._store_handle, progress)

    def ledger_entries(
        self, *, target_id: str | None = None, limit: int | None = None
    ) -> list[ledger.LedgerEntry]:
        return ledger.entries(self._store_handle, target_id=target_id, limit=limit)

    def status(self) -> dict[str, Any]:
        """Where the store is, what it holds, and whether its ledger verifies."""
        if not self.exists():
            return {"store": str(self.store_path), "exists": False}
        return self._opening.status(self._store_handle, self.device_id)

    # ------------------------------------------------------------ callers
    def _reader(self, caller: Caller | None, include_rejected: bool = False) -> Caller:
        """Who reads or erases by id: ``caller``, or the person (the config's user) at their own store; with
        ``include_rejected``, a person asking to see rejected material too (an agent never does)."""
        if caller is None:
            return Caller.person(self.config.identity.user_id or "user", include_rejected=include_rejected)
        return replace(caller, include_rejected=include_rejected)

    def episodes_seen_by(
        self, caller: Caller, *, session_id: str | None = None, limit: int = 50, offset: int = 0
    ) -> list[Episode]:
        """The caller's user's messages, newest first, that ``caller`` may see (an agent surface's listing)."""
        return reads.episodes(self._store_handle, caller, session_id=session_id, limit=limit, offset=offset)

    def require_trace(self, trace_id: str, *, caller: Caller) -> None:
        """NotFoundError unless ``trace_id`` is a search or answer made for ``caller`` (before crediting it)."""
        reads.require_trace(self._store_handle, caller, trace_id)

    def ledger_length(self) -> int:
        """How many entries the ledger holds (what `verify` will check)."""
        return stats.ledger_length(self._store_handle)

    # ------------------------------------------------------------ checks and measurement (doctor, bench)
    def unlock(self) -> None:
        """Open the store now, loading its key, so a missing or wrong key fails here (a server calls it
        before it starts serving) rather than at the first request."""
        self._store_handle  # noqa: B018  (opening is the point)

    def integrity_problems(self, limit: int = 20) -> list[str]:
        """Every page of the store file checked (``PRAGMA cipher_integrity_check``): the problems found (at
        most ``limit``), none when the file is whole."""
        return self._store_handle.integrity_problems(limit)

    def load_embedder(self) -> tuple[str, int]:
        """Load the embedding model now (a bundled model's sha256 is verified before use); its name and
        dimensions."""
        embedder = self._embedder_handle
        load = getattr(embedder, "load", None)  # the ONNX model loads lazily; a test double may not
        if load is not None:
            load()
        return str(embedder.name), int(embedder.dim)

    def create_beside(self, home: str | Path, **kwargs: Any) -> tuple[Memory, NewKey]:
        """``Memory.create`` at ``home`` with this facade's embedding model, loaded once for both: how
        throwaway stores are made next to an open one (the doctor's probes)."""
        return type(self).create(home, embedder=self._embedder_handle, **kwargs)

    def memory_count(self) -> int:
        """How many memory rows the store holds, every status and version included."""
        return stats.memory_count(self._store_handle)

    def add_prepared(
        self,
        texts: Sequence[str],
        *,
        user_id: str,
        vectors: Sequence[Any] | None = None,
        with_messages: bool = True,
    ) -> list[str]:
        """Store ``texts`` in one transaction as authorized facts of ``user_id`` (source ``bench``), with no
        model and no reconciliation: each quotes a message of its own, stored with it, as its evidence (none
        without ``with_messages``), and is indexed with its vector from ``vectors`` (without one, only words
        find it). For measurements that need a large store quickly (``veramem bench``); no surface offers it.
        Returns the new ids in order."""
        from veramem_desktop.core.storage import index
        from veramem_desktop.core.storage.items import Evidence

        device, model = self.device_id, self._embedder_handle.name if vectors is not None else ""
        ids: list[str] = []
        with self._store_handle.atomic() as conn:
            for i, text in enumerate(texts):
                evidence: list[Evidence] = []
                if with_messages:
                    scope = Scope(user_id=user_id)
                    episode = episodes_mod.insert(conn, [EpisodeInput(content=text)], scope, device=device)[0]
                    evidence = [Evidence(episode.id, text, 0, len(text), 1.0, "user")]
                item = MemoryItem(
                    id="", kind="fact", text=text, authority="authorized", user_id=user_id, source="bench"
                )
                item = items_mod.insert(conn, item, evidence, device=device)
                if vectors is not None:
                    index.index_memory(conn, model, item.id, text, vectors[i])
                ids.append(item.id)
        return ids

    @contextmanager
    def counting_statements(self) -> Iterator[Callable[[], int]]:
        """Count the SQL statements this facade's connection runs inside the block (each row of an
        executemany counts; SQLite's own comment lines do not); yields a function giving the count so far.
        For measurements (``veramem bench``)."""
        seen = [0]

        def count(sql: str) -> None:
            if not sql.startswith("--"):
                seen[0] += 1

        conn = self._store_handle.conn
        conn.set_trace_callback(count)
        try:
            yield lambda: seen[0]
        finally:
            conn.set_trace_callback(None)

    def search_engine(self, config: SearchConfig | None = None) -> SearchEngine:
        """A new recall engine over this store, for measuring recall (``veramem bench``: ranking without
        traces, channel by channel, recipe against recipe). Without ``config`` it ranks as `search` does
        (the store's [search] settings, this facade's vector index, the model's hypotheses); with one, by
        those settings with vector caches of its own and no model (set its ``hypothesise`` to give it one).
        Surfaces recall through `search` and `answer`."""
        if config is not None:
            return SearchEngine(self._store_handle, self._embedder_handle, config)
        own = self._engine_handle
        engine = SearchEngine(
            self._store_handle, self._embedder_handle, copy.deepcopy(own.config), own.vectors
        )
        engine.hypothesise = own.hypothesise
        return engine
