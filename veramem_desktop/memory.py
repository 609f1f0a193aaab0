"""The ``Memory`` facade: one person's store and the services over it, used by the CLI, TUI, MCP, REST and SDK.

It is the composition root and nothing else: it resolves paths and settings, unlocks the store,
builds the embedder, the LLM backend, the one vector index and the search engine, and gives each
service of the store (veramem_desktop/services/) exactly the parts it uses. The services are built
once and kept as typed attributes; every surface calls them there (``mem.recall.search``,
``mem.review.approve``, ``mem.sync.run``), where their full descriptions live:

- built with the facade, checking a request before anything opens: ``recall``, ``adding`` and
  ``curation`` (they ask for the store and the models only when a call needs them);
- built when the store opens: ``reading``, ``review``, ``grants``, ``outcomes``, ``measuring``
  and ``organiser``;
- built on first use, once per open store: ``writes``, ``importer`` and ``consolidation`` (they
  hold the embedding model, which takes a while to load) and ``sync`` (the sync package loads then).

A few of the SDK's most common calls are kept as shortcuts on the facade itself (``mem.add``,
``mem.search``, ``mem.answer``, ``mem.forget`` …): each IS the service's call (``via``), so its
signature and description are written once, on the service (``tests/test_thin_facade.py``).

    from veramem_desktop import Memory
    with Memory() as mem:
        mem.add("I moved to Lisbon in March.", user_id="me")
        print(mem.search("where do I live?", user_id="me").results[0].text)
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar, overload

from veramem_desktop.core.lifecycle import consolidate as consolidate_mod
from veramem_desktop.core.lifecycle import consolidator as consolidator_mod
from veramem_desktop.core.lifecycle import expiry as expiry_mod
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.lifecycle import linker as linker_mod
from veramem_desktop.core.lifecycle.reembed import ReembedReport
from veramem_desktop.core.lifecycle.sharing import ShareReport
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import SearchConfig, SearchEngine, SearchResult
from veramem_desktop.core.recall.answer import AnswerResult
from veramem_desktop.core.storage import grants as grants_mod
from veramem_desktop.core.storage import ledger, ledger_verify, lookups
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorIndex
from veramem_desktop.core.transfer.import_report import ImportReport
from veramem_desktop.core.trust import review as review_mod
from veramem_desktop.core.trust.access import Caller
from veramem_desktop.core.trust.actor import Actor
from veramem_desktop.core.trust.detail import MemoryDetail
from veramem_desktop.core.write.results import AddResult

from .config import Config, Paths, load_config, resolve_paths
from .keys import KeyManager, NewKey, PassphraseSource
from .services.consolidation import Consolidation
from .services.curation import Curation
from .services.device_sync import DeviceSync
from .services.embedding import build_embedder, reembed_store
from .services.grants import Grants
from .services.importer import Importer, ImportProgress
from .services.measuring import Measuring, load_embedder
from .services.opening import Opening
from .services.organiser import Organiser, wait_idle
from .services.outcomes import Outcomes
from .services.reading import Reading, caller_for
from .services.recall import Recall
from .services.review import Review
from .services.writes import Adding, MessageLike, Writes

if TYPE_CHECKING:
    from veramem_desktop.core.lifecycle.budgets import BudgetConfig
    from veramem_desktop.core.transfer.records import Record

    from .services.head_start import HeadStart
    from .sync.service import RunReport

P = ParamSpec("P")
R = TypeVar("R")


class via(Generic[P, R]):  # noqa: N801  (used like a function in the class body)
    """A shortcut on the facade that is a service's own call: ``search = via("recall", Recall.search)``
    makes ``mem.search`` exactly ``mem.recall.search`` (the same signature, for type checkers too, and the
    same docstring), so no argument is spelled twice."""

    def __init__(self, service: str, call: Callable[..., R]) -> None:
        self.service = service
        self.call = call
        self.__doc__ = call.__doc__

    @overload
    def __get__(self, mem: None, owner: type[Any]) -> via[P, R]: ...
    @overload
    def __get__(self, mem: Memory, owner: type[Any]) -> Callable[..., R]: ...
    def __get__(self, mem: Memory | None, owner: type[Any]) -> via[P, R] | Callable[..., R]:
        if mem is None:
            return self
        bound: Callable[..., R] = getattr(getattr(mem, self.service), self.call.__name__)
        return bound


@dataclass
class _OpenStore:
    """The services of one open store, made when it opens; those left None are made on first use."""

    store: Store
    device: str
    reading: Reading
    review: Review
    grants: Grants
    outcomes: Outcomes
    measuring: Measuring
    organiser: Organiser
    #: these hold the embedding model (made again after a re-embedding), the sync package loads with ``sync``
    writes: Writes | None = None
    importer: Importer | None = None
    consolidation: Consolidation | None = None
    sync: DeviceSync | None = None


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
        head_start: HeadStart | None = None,
    ) -> None:
        """``channel``: the surface using this facade (cli, tui, mcp, rest, sdk); the ledger records it.
        ``head_start``: the key and the likely model, loading since before this was made (services/head_start.py)."""
        self.paths: Paths = resolve_paths(home)
        self.channel = channel
        Actor.user("user", channel)  # an unknown channel is refused here, not at the first write
        self.config: Config = config if config is not None else load_config(self.paths)
        self._passphrase = passphrase
        self._keys = KeyManager(self.paths.keyinfo, passphrase_source)
        #: finding, making and opening the store of this home, and its status
        self.opening = Opening(self.paths, self.config, self._keys, head_start)
        self._head_start = head_start
        self._store: Store | None = None
        self._open: _OpenStore | None = None
        self._open_lock = threading.Lock()
        self._embedder = embedder
        self._llm = llm
        self._engine: SearchEngine | None = None
        #: the one cache of stored vectors, shared by search, the write path, the linker and consolidation
        self._vectors: VectorIndex | None = None
        #: the last open store's sync, so a join started before a reopen can be finished after it
        self._last_sync: DeviceSync | None = None
        # The services that check a request before anything opens: each asks for the store and the
        # models only when a call needs them.
        #: search, answer and engines for measuring recall
        self.recall = Recall(
            self.config.identity,
            store=lambda: self._store_handle,
            embedder=lambda: self._embedder_handle,
            engine=lambda: self._engine_handle,
            llm=lambda: self._backend,
            expire_if_due=lambda: self.curation.expire_if_due(),
        )
        #: the add path's front: messages, where they go and their expiry are checked before the store opens
        self.adding = Adding(self.config.identity, actor=self._actor, writes=lambda: self.writes)
        #: pins, expiry, erasure, consent to share, sharing and the action gate
        self.curation = Curation(
            lambda: self._store_handle,
            identity=self.config.identity,
            device=lambda: self.device_id,
            channel=self.channel,
            embedder=lambda: self._embedder_handle,
            engine=lambda: self._engine_handle,
            llm=lambda: self._backend,
        )

    # ------------------------------------------------------------ the services of the open store
    @property
    def reading(self) -> Reading:
        """Reads by id as a caller may, listings, the ledger and its verification."""
        return self._opened().reading

    @property
    def review(self) -> Review:
        """The review queue, approval and rejection (a person's acts)."""
        return self._opened().review

    @property
    def grants(self) -> Grants:
        """Access grants between users, agents, teams and resources (a person's acts)."""
        return self._opened().grants

    @property
    def outcomes(self) -> Outcomes:
        """Feedback on searches and answers, and the trajectory and training exports."""
        return self._opened().outcomes

    @property
    def measuring(self) -> Measuring:
        """What the doctor and the benchmarks ask: the page check, statement counts, stores filled fast."""
        return self._opened().measuring

    @property
    def organiser(self) -> Organiser:
        """Links, budgets and the background linker and vector pass of the open store."""
        return self._opened().organiser

    @property
    def writes(self) -> Writes:
        """The add path over the open store's engine and models (made on first use)."""
        return self._made("writes", self._make_writes)

    @property
    def importer(self) -> Importer:
        """Chat history and memory exports in and out, in batches (made on first use)."""
        return self._made("importer", self._make_importer)

    @property
    def consolidation(self) -> Consolidation:
        """The idle-time upkeep of the outcome loop (made on first use)."""
        return self._made("consolidation", self._make_consolidation)

    @property
    def sync(self) -> DeviceSync:
        """Sync between the person's devices and pairing (made on first use: the sync package loads then)."""
        return self._made("sync", self._make_sync)

    # ------------------------------------------------------------ lifecycle (wiring)
    @property
    def store_path(self) -> Path:
        """Where the store file is (or would be made)."""
        return self.opening.store_path

    def exists(self) -> bool:
        """True when a store was made here (services/opening.py: such a store is opened or refused, never replaced)."""
        return bool(self.opening.evidence())

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
        store, new_key = mem.opening.create(passphrase=passphrase, use_keyring=use_keyring, force=force)
        with mem._open_lock:
            mem._attach(store)
        return mem, new_key

    @property
    def _store_handle(self) -> Store:
        """The open store, opened (its key loaded) on first use. Not part of the facade: the services
        are given it here, surfaces go through the services."""
        return self._opened().store

    def _opened(self) -> _OpenStore:
        """The open store and its services, opening it (its key loaded) on first use."""
        with self._open_lock:
            if self._open is None:
                self._attach(self.opening.open(self._passphrase))
            assert self._open is not None
            return self._open

    def _attach(self, store: Store) -> None:
        """Keep ``store`` as the open store and make its services (the open lock is held)."""
        self._store = store
        store.acting.default = self._actor()
        device = store.get_meta("device_id") or "dev_local"
        self._open = _OpenStore(
            store,
            device,
            reading=Reading(store, self.config.identity),
            review=Review(store, device=device),
            grants=Grants(store, device=device),
            outcomes=Outcomes(store, device=device),
            measuring=Measuring(store, device=device, embedder=lambda: self._embedder_handle),
            organiser=Organiser(
                store,
                self.config.organise,
                device=device,
                make_linker=self._make_linker,
                embedder=lambda: self._embedder_handle,
            ),
        )

    def _made(self, name: str, make: Callable[[_OpenStore], Any]) -> Any:
        """The open store's service ``name``, made by ``make`` on first use (outside the open lock: making
        one may open the models, which take the lock themselves), kept once made."""
        opened = self._opened()
        made = getattr(opened, name)
        if made is None:
            built = make(opened)
            with self._open_lock:
                made = getattr(opened, name)
                if made is None:
                    setattr(opened, name, built)
                    made = built
        return made

    def _actor(self, user_id: str | None = None) -> Actor:
        """Who acts by default through this facade: the person (the config's user), on this channel."""
        return Actor.user(user_id or self.config.identity.user_id or "user", self.channel)

    def acting_as(self, actor: Actor) -> Any:
        """A block in which this thread's changes are recorded as ``actor``'s (an agent surface uses it)."""
        return self._store_handle.acting.scope(actor)

    def caller(
        self, user_id: str | None = None, agent_id: str | None = None, *, include_rejected: bool = False
    ) -> Caller:
        """Who is asking (services/reading.py); ``include_rejected`` is a person's request only."""
        return caller_for(self.config.identity, user_id, agent_id, include_rejected=include_rejected)

    def unlock_with_recovery_code(self, code: str, *, new_passphrase: str | None = None) -> None:
        """Open the store with its recovery code (optionally setting a new passphrase)."""
        key = self.opening.recover(code, new_passphrase=new_passphrase)
        with self._open_lock:
            if self._open is None:
                self._attach(self.opening.open_with(key))

    def unlock(self) -> None:
        """Open the store now, loading its key, so a missing or wrong key fails here, not at a first request."""
        self._opened()

    def close(self) -> None:
        """Stop the background linker (after a short grace period; what is left stays queued) and close."""
        opened = self._open
        if opened is not None:
            opened.organiser.stop()  # a short grace period; what is left stays queued for the next process
        with self._open_lock:
            self._engine = None
            self._vectors = None
            if opened is not None and opened.sync is not None:
                self._last_sync = opened.sync
            self._open = None
            if self._store is not None:
                self._store.close()
                self._store = None

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def device_id(self) -> str:
        """This device's id in the ledger and in sync."""
        return self._opened().device

    # ------------------------------------------------------------ models and the engine (wiring)
    @property
    def _backend(self) -> LLM:
        """The LLM backend, built from the settings on first use (finding a model server can take a while).
        Not part of the facade: surfaces reach the model through the services (add, answer, consolidate)."""
        with self._open_lock:
            if self._llm is None:
                from .setup import make_llm

                self._llm = make_llm(self.config)
            return self._llm

    @property
    def llm_name(self) -> str:
        """The LLM backend's name."""
        return self._backend.capabilities.name

    @property
    def _embedder_handle(self) -> Embedder:
        """The embedding model, built from the settings on first use. Not part of the facade: surfaces reach
        it through `embedder_name` and `load_embedder`."""
        if self._embedder is None:
            # The choice reads the model of the store's vectors, and never opens the store for it (the
            # doctor asks before opening a damaged one): one made before the store is open is not kept.
            store = self._store
            built = build_embedder(
                self.config.embedder,
                lambda: lookups.vector_model(store) if store is not None else None,
                self._head_start if store is not None else None,
            )
            if store is None:
                return built
            with self._open_lock:
                if self._embedder is None:
                    self._embedder = built
        return self._embedder

    @property
    def embedder_name(self) -> str:
        """The embedding model's name (the store is opened first: its vectors decide the compute)."""
        return str(self._store_embedder().name)

    def _store_embedder(self) -> Embedder:
        """The embedder chosen with the store open, so it matches the store's vectors."""
        self._opened()
        return self._embedder_handle

    def load_embedder(self) -> tuple[str, int]:
        """Load the embedding model now (services/measuring.py); its name and dimensions."""
        return load_embedder(self._embedder_handle)

    def create_beside(self, home: str | Path, **kwargs: Any) -> tuple[Memory, NewKey]:
        """``Memory.create`` at ``home`` sharing this facade's embedding model (the doctor's throwaway stores)."""
        return type(self).create(home, embedder=self._embedder_handle, **kwargs)

    def reembed(
        self, compute: str | None = None, progress: Callable[[str, int], None] | None = None
    ) -> ReembedReport:
        """Make every vector again with the configured model computing as ``compute`` (int8 by default)."""
        return reembed_store(
            self._store_handle, self.config.embedder, compute, self._adopt_embedder, progress
        )

    def _adopt_embedder(self, embedder: Embedder) -> None:
        """Search and writes use ``embedder`` from now on (after a re-embedding); caches of the old
        model's vectors, and the services holding the old model, are dropped (made again on first use)."""
        with self._open_lock:
            self._embedder, self._engine, self._vectors = embedder, None, None
            if self._open is not None:
                self._open.writes = self._open.importer = self._open.consolidation = None

    @property
    def _engine_handle(self) -> SearchEngine:
        """The search engine of `search` and `answer`, built with the one vector index on first use. Not
        part of the facade (a measurement gets an engine of its own from `recall.search_engine`)."""
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

    # ------------------------------------------------------------ the services made on first use
    def _make_writes(self, opened: _OpenStore) -> Writes:
        """The add path over the open store's engine and models (the LLM is resolved once episodes are kept)."""
        return Writes(
            opened.store,
            self._engine_handle,
            self._embedder_handle,
            lambda: self._backend,
            vectors=self._index().memory,
            device=opened.device,
            organiser=opened.organiser,
        )

    def _make_importer(self, opened: _OpenStore) -> Importer:
        return Importer(
            opened.store,
            embedder=lambda: self._embedder_handle,
            writer=lambda: self.writes.writer(),
            identity=self.config.identity,
            linking=self.config.organise.linking,
            device=opened.device,
            organiser=opened.organiser,
        )

    def _make_consolidation(self, opened: _OpenStore) -> Consolidation:
        return Consolidation(
            opened.store,
            self._embedder_handle,
            lambda: self._backend,
            self._index().memory,
            device=opened.device,
            organiser=opened.organiser,
            writes=self.writes,
            expire=self.curation.expire,
        )

    def _make_sync(self, opened: _OpenStore) -> DeviceSync:
        last = self._last_sync
        if last is None:
            return DeviceSync(opened.store, device=opened.device, organiser=opened.organiser)
        return last.reopened(opened.store, device=opened.device, organiser=opened.organiser)

    def _make_linker(self) -> linker_mod.Linker:
        return linker_mod.Linker(
            self._store_handle,
            self._embedder_handle,
            self._backend,
            self._index().memory,
            device=self.device_id,
        )

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
        """Store messages as episodes, then derive memories from them (services/writes.py)."""
        return self.adding.add(
            messages,
            user_id=user_id,
            agent_id=agent_id,
            team_id=team_id,
            session_id=session_id,
            role=role,
            name=name,
            until=until,
            expires_in=expires_in,
        )

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
        return self.adding.add_document(
            text,
            name=name,
            user_id=user_id,
            agent_id=agent_id,
            team_id=team_id,
            session_id=session_id,
            until=until,
            expires_in=expires_in,
        )

    def rederive_pending(self) -> dict[str, Any]:
        """Derive memories from the episodes an earlier add stored but could not derive from."""
        return self.writes.rederive_pending()

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
        include_forgotten: bool = False,
    ) -> ImportReport:
        """Import chat history or a memory export (forgotten episodes skipped unless ``include_forgotten``)."""
        return self.importer.import_history(
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
            include_forgotten=include_forgotten,
        )

    def export_memories(
        self, path: str | Path, *, format: str = "jsonl", user_id: str | None = None, overwrite: bool = False
    ) -> dict[str, int]:
        """Write every memory in full, with only the messages it quotes (PLAINTEXT, mode 0600)."""
        return self.importer.export_memories(path, format=format, user_id=user_id, overwrite=overwrite)

    def export_all(
        self, path: str | Path, *, user_id: str | None = None, overwrite: bool = False
    ) -> dict[str, int]:
        """Write every message and memory as one re-importable JSON-lines file (PLAINTEXT, mode 0600)."""
        return self.importer.export_all(path, user_id=user_id, overwrite=overwrite)

    # ------------------------------------------------------------ recall
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
        """Hybrid search (no LLM call); writes a trace for `feedback` (services/recall.py)."""
        return self.recall.search(
            query,
            user_id=user_id,
            agent_id=agent_id,
            k=k,
            route=route,
            include_archived=include_archived,
            include_rejected=include_rejected,
        )

    def answer(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None, k: int = 10
    ) -> AnswerResult:
        """Answer from memory only, citing what it relied on, or abstain."""
        return self.recall.answer(question, user_id=user_id, agent_id=agent_id, k=k)

    def search_engine(self, config: SearchConfig | None = None) -> SearchEngine:
        """A new recall engine over this store, for measuring recall (``veramem bench``)."""
        return self.recall.search_engine(config)

    # ------------------------------------------------------------ reads (services/reading.py)
    def get(self, memory_id: str, *, caller: Caller | None = None) -> MemoryItem:
        """The memory ``memory_id``, as ``caller`` (the person by default) may read it."""
        return self.reading.get(memory_id, caller=caller)

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
        return self.reading.memories(
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
        """Every version of a memory, oldest first; with ``as_of``, the one version valid then (or none)."""
        return self.reading.history(memory_id, as_of=as_of, include_rejected=include_rejected, caller=caller)

    def detail(
        self, memory_id: str, *, include_rejected: bool = False, caller: Caller | None = None
    ) -> MemoryDetail:
        """A memory with its evidence, versions, ledger entries and links; a rejected one only if asked."""
        return self.reading.detail(memory_id, include_rejected=include_rejected, caller=caller)

    def links(self, memory_id: str, *, caller: Caller | None = None) -> list[dict[str, Any]]:
        """Every typed edge touching a memory, with the other end and the direction, as ``caller`` may see."""
        return self.reading.links(memory_id, caller=caller)

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
        return self.reading.episodes(
            user_id=user_id,
            session_id=session_id,
            limit=limit,
            offset=offset,
            newest_first=newest_first,
            include_rejected=include_rejected,
        )

    def episode(self, episode_id: str, *, caller: Caller | None = None) -> Episode | None:
        """The message ``episode_id``, or None when there is none that ``caller`` (the person by default) may see."""
        return self.reading.episode(episode_id, caller=caller)

    def episodes_seen_by(
        self, caller: Caller, *, session_id: str | None = None, limit: int = 50, offset: int = 0
    ) -> list[Episode]:
        """The caller's user's messages, newest first, that ``caller`` may see (an agent surface's listing)."""
        return self.reading.episodes_seen_by(caller, session_id=session_id, limit=limit, offset=offset)

    def sessions(self, *, user_id: str | None = None) -> list[dict[str, Any]]:
        """The sessions of ``user_id`` (everyone's without one), latest first."""
        return self.reading.sessions(user_id=user_id)

    def require_trace(self, trace_id: str, *, caller: Caller) -> None:
        """NotFoundError unless ``trace_id`` is a search or answer made for ``caller`` (before crediting it)."""
        return self.reading.require_trace(trace_id, caller=caller)

    def ledger_entries(
        self, *, target_id: str | None = None, limit: int | None = None, caller: Caller | None = None
    ) -> list[ledger.LedgerEntry]:
        """Ledger entries in order (about ``target_id`` when given), as ``caller`` (the person by default) may read."""
        return self.reading.ledger_entries(target_id=target_id, limit=limit, caller=caller)

    def ledger_length(self) -> int:
        """How many entries the ledger holds (what `verify` will check)."""
        return self.reading.ledger_length()

    def memory_count(self) -> int:
        """How many memory rows the store holds, every status and version included."""
        return self.reading.memory_count()

    def verify(self, progress: Callable[[int, int], None] | None = None) -> ledger_verify.VerifyReport:
        """Recompute the whole hash-chained ledger; the report names the first bad entry, if any."""
        return self.reading.verify(progress)

    def status(self) -> dict[str, Any]:
        """Where the store is, what it holds, and whether its ledger verifies (services/opening.py)."""
        return self.opening.status(lambda: (self._store_handle, self.device_id))

    # ------------------------------------------------------------ review and grants (a person's acts only)
    def review_queue(self, *, user_id: str | None = None) -> list[review_mod.ReviewItem]:
        """Active candidates that need a person: conflicts first, then lower-authority claims."""
        return self.review.queue(user_id=user_id)

    def approve(self, memory_id: str) -> MemoryItem:
        """Mark a memory verified. For people only: never exposed to agents (MCP/REST)."""
        return self.review.approve(memory_id)

    def reject(self, memory_id: str, reason: str = "") -> review_mod.Rejection:
        """Reject a memory: it and its value are hidden from every recall and can never return."""
        return self.review.reject(memory_id, reason)

    def grant(self, kind: str, subject: str, object: str) -> grants_mod.Grant:
        """Add an access edge: user_agent (user → agent), agent_resource (agent → agent/resource), team_member (user → team)."""
        return self.grants.grant(kind, subject, object)

    def revoke(self, kind: str, subject: str, object: str) -> int:
        """End an access edge now; items it exposed are hidden at once, retroactively."""
        return self.grants.revoke(kind, subject, object)

    # ------------------------------------------------------------ sharing, pins, expiry, forget (services/curation.py)
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
        return self.curation.share(
            user_id=user_id,
            visibility=visibility,
            team_id=team_id,
            tau=tau,
            team_policy=team_policy,
            only=only,
        )

    def mark_shareable(self, memory_id: str, shareable: bool = True) -> MemoryItem:
        """The owner's consent to share one memory (a person's act)."""
        return self.curation.mark_shareable(memory_id, shareable)

    def may_act_on(self, item: MemoryItem) -> bool:
        """Whether an agent may act on ``item``: the one action gate (core/trust/action_gate.py)."""
        return self.curation.may_act_on(item)

    def states(self, items: Sequence[MemoryItem]) -> dict[str, str]:
        """Each listed memory's state by id, as search labels it: current, in_conflict, superseded …"""
        return self.reading.states(items)

    def pin(self, memory_id: str) -> MemoryItem:
        """Keep a memory: consolidation never archives, fuses or moves it, and it does not expire."""
        return self.curation.set_pinned(memory_id, True)

    def unpin(self, memory_id: str) -> MemoryItem:
        """Let consolidation (and an expiry set on it) treat the memory like any other again."""
        return self.curation.set_pinned(memory_id, False)

    def expire_if_due(self, now: datetime | None = None) -> expiry_mod.ExpiryReport | None:
        """Erase what has expired when the earliest recorded expiry has passed (one meta read otherwise)."""
        return self.curation.expire_if_due(now)

    def expire(self, now: datetime | None = None) -> expiry_mod.ExpiryReport:
        """Erase every memory and message whose time has passed, like a forget, as the system."""
        return self.curation.expire(now)

    def expiring(
        self,
        within: timedelta = timedelta(days=7),
        *,
        user_id: str | None = None,
        now: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """Active memories that expire within ``within``, soonest first."""
        return self.curation.expiring(within, user_id=user_id, now=now)

    def forget_preview(
        self, target: str, *, caller: Caller | None = None, reach: str = "session", redact: bool = False
    ) -> forget_mod.ForgetPlan:
        """Exactly what `forget(target, reach=reach, redact=redact)` would erase and keep (services/reading.py)."""
        return self.reading.forget_preview(target, caller=caller, reach=reach, redact=redact)

    def forget(
        self, target: str, *, caller: Caller | None = None, reach: str = "session", redact: bool = False
    ) -> forget_mod.ForgetReport:
        """Erase a target and what restates it (``reach``: session, everywhere, none); ``redact`` keeps the rest."""
        return self.curation.forget(target, caller=caller, reach=reach, redact=redact)

    # ------------------------------------------------------------ links and budgets (services/organiser.py)
    def links_pending(self) -> int:
        """How many memories wait for the linker."""
        return self.organiser.links_pending()

    def drain_links(self, *, limit: int | None = None) -> linker_mod.LinkReport:
        """Link what is queued now, in this thread (used by consolidate and tests)."""
        return self.organiser.drain_links(limit=limit)

    def wait_for_links(self, timeout: float = 10.0) -> bool:
        """Wait until the background linker is idle; True when it is."""
        return wait_idle(None if self._open is None else self._open.organiser, timeout)

    def vectors_behind(self) -> dict[str, int]:
        """Per vector kind, how many owners hold only vectors of another model (made again in the background)."""
        return self.organiser.vectors_behind()

    def wait_for_vectors(self, timeout: float = 10.0) -> bool:
        """Wait until the background pass making vectors of another model again is idle; True when it is."""
        return self.organiser.wait_for_vectors(timeout)

    def budget_config(self) -> BudgetConfig:
        """Each source's budget, from the [organise] settings."""
        return self.organiser.budget_config()

    def enforce_budgets(self) -> list[str]:
        """Move what exceeds each source's budget to cold storage now; returns their ids."""
        return self.organiser.enforce_budgets()

    # ------------------------------------------------------------ outcome loop
    def feedback(
        self, trace_id: str, reward: float, *, cited_ids: Sequence[str] | None = None, by: str | None = None
    ) -> dict[str, Any]:
        """Say how well a search or answer went (reward in [-1, 1]); see services/outcomes.py."""
        return self.outcomes.feedback(trace_id, reward, cited_ids=cited_ids, by=by)

    def consolidate(
        self,
        *,
        progress: consolidator_mod.Progress | None = None,
        now: datetime | None = None,
        config: consolidator_mod.ConsolidateConfig | None = None,
    ) -> consolidate_mod.ConsolidateReport:
        """Erase what has expired, then consolidate as the system (services/consolidation.py)."""
        return self.consolidation.run(progress=progress, now=now, config=config)

    def trajectories(self, *, user_id: str | None = None) -> Iterator[dict[str, Any]]:
        """One record per trace, oldest first (see ``export_trajectories``)."""
        return self.outcomes.trajectories(user_id=user_id)

    def export_trajectories(
        self, path: str | Path, *, user_id: str | None = None, overwrite: bool = False
    ) -> int:
        """Write every trace as one JSON line (PLAINTEXT, mode 0600); returns the number of records."""
        return self.outcomes.export_trajectories(path, user_id=user_id, overwrite=overwrite)

    def training_records(
        self,
        *,
        kinds: Sequence[str] = ("write", "answer"),
        since: str | datetime | None = None,
        user_id: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Write-decision and answer records, oldest first (see ``export_training``)."""
        return self.outcomes.training_records(kinds=kinds, since=since, user_id=user_id)

    def export_training(
        self,
        path: str | Path,
        *,
        kinds: Sequence[str] = ("write", "answer"),
        since: str | datetime | None = None,
        user_id: str | None = None,
        overwrite: bool = False,
    ) -> dict[str, int]:
        """Write the training records as JSON lines (PLAINTEXT, mode 0600); returns the counts."""
        return self.outcomes.export_training(
            path, kinds=kinds, since=since, user_id=user_id, overwrite=overwrite
        )

    # ------------------------------------------------------------ sync (services/device_sync.py)
    def sync_init(self, folder: str | Path, name: str = "") -> dict[str, Any]:
        """Make this the first device of a sync account using ``folder`` (a folder a file-sync engine replicates)."""
        return self.sync.init(folder, name)

    def sync_join_start(self, folder: str | Path, name: str = "") -> str:
        """Ask to join through ``folder``; returns the one-time code to type on a trusted device."""
        return self.sync.join_start(folder, name)

    def sync_pairing_code(self) -> str | None:
        """The code of the join started by ``sync_join_start`` and not finished yet, if any."""
        return self.sync.pairing_code()

    def sync_join_finish(
        self, *, timeout_s: float = 600.0, stop: Callable[[], bool] = lambda: False
    ) -> dict[str, Any]:
        """Wait for the approval of the join started by ``sync_join_start``, then exchange once."""
        return self.sync.join_finish(timeout_s=timeout_s, stop=stop)

    def sync_approve(self, code: str, *, wait_s: float = 30.0) -> dict[str, Any]:
        """Approve the new device showing ``code`` (a human act: CLI or TUI only)."""
        return self.sync.approve(code, wait_s=wait_s)

    def sync_devices(self) -> list[dict[str, Any]]:
        """The devices of the sync account."""
        return self.sync.devices()

    def sync_remove(self, device_id: str) -> dict[str, Any]:
        """Remove a device and rotate the sync key so it cannot read anything written after."""
        return self.sync.remove(device_id)

    def sync_run(self) -> RunReport:
        """Exchange once with the sync folder (what it applied is linked and embedded in the background)."""
        return self.sync.run()

    def sync_daemon(
        self,
        stop: threading.Event,
        *,
        scan_s: float = 30.0,
        on_run: Callable[[RunReport], None] = lambda _r: None,
        on_error: Callable[[Exception], None] = lambda _e: None,
    ) -> None:
        """Exchange whenever files arrive and every ``scan_s`` seconds until ``stop`` is set (blocks)."""
        return self.sync.daemon(stop, scan_s=scan_s, on_run=on_run, on_error=on_error)

    def sync_status(self) -> dict[str, Any]:
        """Devices, last exchange, pending events, refused and waiting files with reasons, broken chains."""
        return self.sync.status()

    def sync_state_hash(self) -> str:
        """A hash of the replicated state; equal on devices that have exchanged everything."""
        return self.sync.state_hash()

    # ------------------------------------------------------------ checks and measurement (doctor, bench)
    def integrity_problems(self, limit: int = 20) -> list[str]:
        """Every page of the store file checked: the problems found (at most ``limit``)."""
        return self.measuring.integrity_problems(limit)

    def vector_models(self) -> dict[str, int]:
        """How many search vectors each embedding model holds (more than one: `veramem reindex`)."""
        return self.measuring.vector_models()

    def add_prepared(
        self,
        texts: Sequence[str],
        *,
        user_id: str,
        vectors: Sequence[Any] | None = None,
        with_messages: bool = True,
    ) -> list[str]:
        """Store ``texts`` at once as facts with no model, for the benchmarks (services/measuring.py)."""
        return self.measuring.add_prepared(
            texts, user_id=user_id, vectors=vectors, with_messages=with_messages
        )

    def counting_statements(self) -> AbstractContextManager[Callable[[], int]]:
        """A block counting the SQL statements this facade's connection runs (``veramem bench``)."""
        return self.measuring.counting_statements()
