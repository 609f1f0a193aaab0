"""The ``Memory`` facade: one person's store and the services over it, used by the CLI, TUI, MCP, REST and SDK.

It is the composition root and nothing else: it resolves paths and settings, unlocks the store,
builds the embedder, the LLM backend, the one vector index and the search engine, and gives each
service of the store (veramem_desktop/services/) exactly the parts it uses. The services are built
once and kept as typed attributes; every surface calls them there (``mem.recall.search``,
``mem.review.approve``, ``mem.sync.run``), where their full descriptions live:

- built with the facade, checking a request before anything opens: ``recall``, ``adding`` and
  ``curation`` (they ask for the store and the models only when a call needs them), and ``opening``
  (finding, making and opening the store itself);
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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from veramem_desktop.core.lifecycle import linker as linker_mod
from veramem_desktop.core.lifecycle.reembed import ReembedReport
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import SearchEngine
from veramem_desktop.core.storage import index_rows
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.actor import Actor
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorIndex

from .config import Config, Paths, load_config, resolve_paths
from .keys import KeyManager, NewKey, PassphraseSource
from .services.consolidation import Consolidation
from .services.curation import Curation
from .services.device_sync import DeviceSync
from .services.embedding import build_embedder, reembed_store
from .services.grants import Grants
from .services.importer import Importer
from .services.measuring import Measuring, load_embedder
from .services.opening import Opening
from .services.organiser import Organiser
from .services.outcomes import Outcomes
from .services.reading import Reading, caller_for
from .services.recall import Recall
from .services.review import Review
from .services.writes import Adding, Writes

if TYPE_CHECKING:
    from .services.head_start import HeadStart

S = TypeVar("S")
P = ParamSpec("P")
R = TypeVar("R")


class via(Generic[S, P, R]):  # noqa: N801  (it reads as a function in the class body)
    """A shortcut on the facade that is a service's own call: ``search = via("recall", Recall.search)`` makes
    ``mem.search`` exactly ``mem.recall.search`` (the same signature, for type checkers too, and the same
    docstring), so no argument is spelled twice."""

    def __init__(self, service: str, call: Callable[Concatenate[S, P], R]) -> None:
        self.service = service
        self.call = call
        self.__doc__ = call.__doc__

    @overload
    def __get__(self, mem: None, owner: type[Any]) -> via[S, P, R]: ...
    @overload
    def __get__(self, mem: Memory, owner: type[Any]) -> Callable[P, R]: ...
    def __get__(self, mem: Memory | None, owner: type[Any]) -> via[S, P, R] | Callable[P, R]:
        if mem is None:
            return self
        bound: Callable[P, R] = getattr(getattr(mem, self.service), self.call.__name__)
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
        """The add path over the open store, its vectors and models (made on first use)."""
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
                lambda: index_rows.vector_model(store) if store is not None else None,
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
        """The add path over the open store, its vectors and models (the LLM is resolved once episodes are kept)."""
        return Writes(
            opened.store,
            self._embedder_handle,
            lambda: self._backend,
            vectors=self._index().memory,
            device=opened.device,
            organiser=opened.organiser,
            name_casing=self.config.write.name_casing,
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

    # ------------------------------------------------------------ shortcuts: the SDK's most common calls
    # Each IS the service's call (``via``): its signature and description are the service's.
    add = via("adding", Adding.add)
    search = via("recall", Recall.search)
    answer = via("recall", Recall.answer)
    feedback = via("outcomes", Outcomes.feedback)
    get = via("reading", Reading.get)
    memories = via("reading", Reading.memories)
    history = via("reading", Reading.history)
    episodes = via("reading", Reading.episodes)
    verify = via("reading", Reading.verify)
    forget_preview = via("reading", Reading.forget_preview)
    forget = via("curation", Curation.forget)
    import_history = via("importer", Importer.import_history)
    consolidate = via("consolidation", Consolidation.run)
    export_trajectories = via("outcomes", Outcomes.export_trajectories)
    export_training = via("outcomes", Outcomes.export_training)

    def status(self) -> dict[str, Any]:
        """Where the store is, what it holds, and whether its ledger verifies (services/opening.py)."""
        return self.opening.status(lambda: (self._store_handle, self.device_id))
