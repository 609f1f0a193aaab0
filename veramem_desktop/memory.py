"""The ``Memory`` facade: the one service API used by the CLI, TUI, MCP, REST and SDK.

It is the composition root: it resolves paths and settings, unlocks the store,
builds the embedder and the LLM backend, and passes them to the engine. Every
surface calls these methods and nothing below them.

    from veramem_desktop import Memory
    with Memory() as mem:
        mem.add("I moved to Lisbon in March.", user_id="me")
        print(mem.search("where do I live?", user_id="me").results[0].text)
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeAlias

from veramem_desktop.core import limits
from veramem_desktop.core.errors import (
    InvalidInputError,
    NotInitialisedError,
    StoreDamagedError,
    VeramemError,
    WrongKeyError,
)
from veramem_desktop.core.lifecycle import expiry as expiry_mod
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.lifecycle.sharing import Sharer, ShareReport, may_act_on
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import ROUTES, SearchEngine, SearchResult
from veramem_desktop.core.recall.answer import Answerer, AnswerResult
from veramem_desktop.core.storage import episodes as episodes_mod
from veramem_desktop.core.storage import grants as grants_mod
from veramem_desktop.core.storage import items as items_mod
from veramem_desktop.core.storage import ledger, ledger_verify, lookups, stats
from veramem_desktop.core.storage.episodes import Episode, EpisodeInput, Scope
from veramem_desktop.core.storage.ids import iso, new_id
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Store, file_problem
from veramem_desktop.core.storage.text import storable
from veramem_desktop.core.trust import reads
from veramem_desktop.core.trust import review as review_mod
from veramem_desktop.core.trust.access import Caller
from veramem_desktop.core.trust.actor import Actor
from veramem_desktop.core.write.dates import resolve_relative_dates
from veramem_desktop.core.write.derive import Writer
from veramem_desktop.core.write.ingest import recompute_context, store_episodes
from veramem_desktop.core.write.times import parse_time

from .config import Config, Paths, load_config, resolve_paths, save_config
from .facade_import import ImportMixin
from .facade_organise import OrganiseMixin
from .facade_outcome import OutcomeMixin
from .facade_sync import SyncMixin
from .keys import KeyManager, NewKey, PassphraseSource

#: meta key: episodes whose derivation failed, to be derived again by consolidate (ids only)
PENDING_DERIVATION = "pending_derivation"

MessageLike: TypeAlias = str | EpisodeInput | dict[str, Any]


@dataclass
class AddResult:
    """What an add stored and derived, each with its reason."""

    episodes: list[Episode] = field(default_factory=list)
    added: list[dict[str, Any]] = field(default_factory=list)
    updated: list[dict[str, Any]] = field(default_factory=list)
    retracted: list[dict[str, Any]] = field(default_factory=list)
    unchanged: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "episodes": [
                {
                    "id": e.id,
                    "role": e.role,
                    "session_id": e.session_id,
                    "event_time": e.event_time,
                    "sha256": e.sha256,
                }
                for e in self.episodes
            ],
            "added": self.added,
            "updated": self.updated,
            "retracted": self.retracted,
            "unchanged": self.unchanged,
            "rejected": self.rejected,
            "notices": self.notices,
        }


def to_inputs(
    messages: MessageLike | Sequence[MessageLike], *, role: str = "user", name: str | None = None
) -> list[EpisodeInput]:
    """Accept a string, a message dict, an EpisodeInput, or a list of them.

    Values are passed on as given: :func:`episodes.validate` checks every field against
    the limits in ``core/limits.py`` (types included), so nothing is coerced here.
    """
    if isinstance(messages, (str, dict, EpisodeInput)):
        items: Sequence[Any] = [messages]
    elif isinstance(messages, (list, tuple)):
        items = messages
    else:
        raise InvalidInputError("Messages must be text, a message object, or a list of them.")
    limits.check_count(len(items))
    out: list[EpisodeInput] = []
    for i, item in enumerate(items):
        if isinstance(item, EpisodeInput):
            out.append(item)
        elif isinstance(item, str):
            out.append(EpisodeInput(content=item, role=role, name=name))
        elif isinstance(item, dict):
            if "content" not in item:
                raise InvalidInputError(f'Message {i + 1} has no "content".')
            out.append(
                EpisodeInput(
                    content=item["content"],
                    role=item.get("role", role),
                    name=item.get("name", name),
                    time=item.get("time"),
                    metadata=limits.check_metadata(item.get("metadata"), f"Message {i + 1}"),
                )
            )
        else:
            raise InvalidInputError(f'Message {i + 1} must be text or an object with "role" and "content".')
    return out


@dataclass
class EvidenceView:
    episode: Episode
    quote: str
    span_start: int
    span_end: int
    score: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "episode": self.episode.to_dict(),
            "quote": self.quote,
            "span_start": self.span_start,
            "span_end": self.span_end,
            "score": self.score,
        }


@dataclass
class MemoryDetail:
    item: MemoryItem
    evidence: list[EvidenceView]
    versions: list[MemoryItem]
    ledger: list[ledger.LedgerEntry]
    links: list[dict[str, Any]]
    conflicts: list[str]
    #: pieces of evidence left out because they stand in messages the caller may not see (None: the person)
    evidence_withheld: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "item": self.item.to_dict(),
            "evidence": [e.to_dict() for e in self.evidence],
            "versions": [v.to_dict() for v in self.versions],
            "ledger": [e.to_dict() for e in self.ledger],
            "links": self.links,
            "conflicts": self.conflicts,
            **({} if self.evidence_withheld is None else {"evidence_withheld": self.evidence_withheld}),
        }


class Memory(OrganiseMixin, OutcomeMixin, SyncMixin, ImportMixin):
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
        self._store: Store | None = None
        self._open_lock = threading.Lock()
        self._embedder = embedder
        self._llm = llm
        self._engine: SearchEngine | None = None

    # ------------------------------------------------------------ lifecycle
    @property
    def store_path(self) -> Path:
        return Path(self.config.store_path) if self.config.store_path else self.paths.store

    def exists(self) -> bool:
        """True when a store was made here: its file, its key information or the settings say so.

        Such a store is opened or refused (damaged, emptied, missing file), never replaced
        by a new empty one; only ``veramem init --force`` starts again.
        """
        return bool(self._evidence())

    def _evidence(self) -> list[str]:
        """What says a store was made here (file names and settings), empty for a fresh home."""
        found = [str(p) for p in (self.store_path, self.paths.keyinfo) if p.exists()]
        if self.config.llm.detected:  # recorded by `veramem init` only
            found.append(f"the settings ({self.paths.config_file}), written by `veramem init`")
        if self.config.sync_folder:
            found.append(f"the sync set-up ({self.config.sync_folder})")
        return found

    def _missing_part(self) -> str:
        """Why a store that was made here cannot be opened as files stand, or "" when both files are there."""
        if self.store_path.exists() and self.paths.keyinfo.exists():
            return ""
        if self.paths.keyinfo.exists():
            return f"its file {self.store_path} is missing, though its key information {self.paths.keyinfo} is there"
        if self.store_path.exists():
            return (
                f"its key information {self.paths.keyinfo} is missing (`veramem unlock --recovery-code` "
                "writes it again)"
            )
        said = " and ".join(e for e in self._evidence())
        return (
            f"its file {self.store_path} and its key information are missing, though {said} say so "
            "(is the folder on a drive that is not mounted?)"
        )

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
        evidence = mem._evidence()
        if evidence and not force:
            missing = mem._missing_part()
            problem = file_problem(mem.store_path) if not missing else ""
            if not missing and not problem:
                raise InvalidInputError(f"A store already exists at {mem.store_path}. Nothing was changed.")
            raise StoreDamagedError(
                f"A store was made here before, but {missing or f'{mem.store_path} is damaged ({problem})'}. "
                "Nothing was changed. Restore it from a backup (`veramem restore PATH`) or a synced device, or run "
                "`veramem init --force` "
                "to start a new empty store (the old files are kept aside)."
            )
        mem.paths.ensure()
        if force:
            mem._keep_aside()
        new_key = mem._keys.create(passphrase=passphrase, use_keyring=use_keyring)
        store = Store.open(mem.store_path, new_key.key, create=True)
        store.set_meta("device_id", new_id("dev"))
        store.set_meta("store_id", mem._keys.describe()["store_id"])
        mem._store = store
        store.acting.default = mem._actor()
        save_config(mem.paths, mem.config)
        return mem, new_key

    def _keep_aside(self) -> list[Path]:
        """Rename the store's files (and its WAL) to ``<name>.replaced-<UTC time>``; returns the new names."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        moved = []
        wal, shm = (self.store_path.with_name(self.store_path.name + s) for s in ("-wal", "-shm"))
        for path in (self.store_path, wal, shm, self.paths.keyinfo):
            if path.exists():
                target = path.with_name(f"{path.name}.replaced-{stamp}")
                path.rename(target)
                moved.append(target)
        return moved

    @property
    def store(self) -> Store:
        with self._open_lock:
            if self._store is None:
                if not self.exists():
                    raise NotInitialisedError(
                        f"There is no VeraMem store at {self.store_path}. Run `veramem init` to create one."
                    )
                missing = self._missing_part()
                if missing:
                    raise StoreDamagedError(
                        f"A store was made here, but {missing}. Nothing was changed. Restore it from a backup "
                        "(`veramem restore PATH`) or a "
                        "synced device, or run `veramem init --force` to start a new empty store."
                    )
                key = self._keys.load(passphrase=self._passphrase)
                try:
                    self._store = Store.open(self.store_path, key)
                except WrongKeyError:
                    # The key was confirmed against the key information, so the file is at fault.
                    raise StoreDamagedError(
                        f"{self.store_path} is not a VeraMem store or is damaged: the key is right but the file "
                        "does not decrypt. Nothing was changed. Restore it from a backup (`veramem restore PATH`) "
                        "or a synced device."
                    ) from None
                self._store.acting.default = self._actor()
            return self._store

    def _actor(self, user_id: str | None = None) -> Actor:
        """Who acts by default through this facade: the person (the config's user), on this channel."""
        return Actor.user(user_id or self.config.identity.user_id or "user", self.channel)

    def acting_as(self, actor: Actor) -> Any:
        """A block in which this thread's changes are recorded as ``actor``'s (an agent surface uses it)."""
        return self.store.acting.scope(actor)

    def unlock_with_recovery_code(self, code: str, *, new_passphrase: str | None = None) -> None:
        def open_store(key: bytes) -> str:  # confirms the code when the key information is damaged
            store = Store.open(self.store_path, key)
            try:
                return store.get_meta("store_id") or str(uuid.uuid4())
            finally:
                store.close()

        key = self._keys.recover(code, new_passphrase=new_passphrase, open_store=open_store)
        with self._open_lock:
            if self._store is None:
                self._store = Store.open(self.store_path, key)
                self._store.acting.default = self._actor()

    def close(self) -> None:
        self._stop_linker()  # a short grace period; what is left stays queued for the next process
        with self._open_lock:
            self._engine = None
            if self._store is not None:
                self._store.close()
                self._store = None

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def device_id(self) -> str:
        return self.store.get_meta("device_id") or "dev_local"

    def _scope(
        self, user_id: str | None, agent_id: str | None, team_id: str | None, session_id: str | None
    ) -> Scope:
        ident = self.config.identity
        return Scope(
            user_id=user_id if user_id is not None else ident.user_id,
            agent_id=agent_id if agent_id is not None else (ident.agent_id or None),
            team_id=team_id if team_id is not None else (ident.team_id or None),
            session_id=session_id,
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
        """Store messages as episodes, then derive memories from them.

        ``until`` (a time, or a date: kept through that day) or ``expires_in`` ("7d", "12h", "2w"): the
        messages and what is derived from them are erased like a forget once that time passes."""
        inputs = to_inputs(messages, role=role, name=name)
        notices = episodes_mod.validate(inputs)
        limits.check_scope(user_id=user_id, agent_id=agent_id, team_id=team_id, session_id=session_id)
        scope = self._scope(user_id, agent_id, team_id, session_id)
        expires_at = expiry_mod.resolve(until, expires_in, datetime.now(UTC))
        with self.store.acting.scope(self._actor(scope.user_id)):
            result = self._add(inputs, scope, notices, expires_at)
        return result

    def _add(
        self, inputs: list[EpisodeInput], scope: Scope, notices: list[str], expires_at: str | None
    ) -> AddResult:
        # The episodes are committed (and their vectors computed) before derivation, in a transaction of
        # their own: a write transaction holds the store's lock, and readers in this process (the REST and
        # MCP servers, the TUI) must never wait for the embedding model or an LLM.
        return self._add_in(inputs, scope, notices, expires_at)

    def _add_in(
        self, inputs: list[EpisodeInput], scope: Scope, notices: list[str], expires_at: str | None
    ) -> AddResult:
        if expires_at is not None:
            inputs = [replace(i, metadata={**i.metadata, expiry_mod.EXPIRES_KEY: expires_at}) for i in inputs]
        stored = store_episodes(self.store, self.embedder, inputs, scope, device=self.device_id)
        llm = self.llm
        writer = Writer(
            self.engine, self.embedder, llm, device=self.device_id, resolve_dates=resolve_relative_dates
        )
        try:
            outcome = writer.derive(stored)
        except Exception as exc:  # the episodes are committed: say what happened rather than lose the result
            if not isinstance(exc, VeramemError):
                logging.getLogger("veramem").error("deriving memories failed: %s", type(exc).__name__)
            reason = exc.message if isinstance(exc, VeramemError) else f"unexpected {type(exc).__name__}"
            self._defer_derivation([e.id for e in stored])
            notices.append(
                f"no memories were derived ({reason}); the {len(stored)} episode(s) are stored and "
                "searchable as raw messages, and are derived again at the next `veramem consolidate`"
            )
            if expires_at is not None:
                with self.store.atomic() as conn:
                    expiry_mod.note(conn, expires_at)
            return AddResult(episodes=stored, notices=notices)
        notices += outcome.notices  # the model's own notices come with each call's reply
        if expires_at is not None:
            with self.store.atomic() as conn:
                # new memories only: an update is a new version of a memory kept without an expiry, and
                # erasing it would erase that memory's whole history
                expiry_mod.mark(conn, [d["id"] for d in outcome.added], expires_at, device=self.device_id)
                expiry_mod.note(conn, expires_at)  # the episodes expire even when nothing was derived
            if outcome.updated:
                notices.append(
                    f"{len(outcome.updated)} updated memory(ies) keep no expiry: each is a new version "
                    "of a memory that had none (forget it to erase it sooner)"
                )
        self._queue_links([d["id"] for d in outcome.added + outcome.updated])  # linked in the background
        return AddResult(
            episodes=stored,
            added=outcome.added,
            updated=outcome.updated,
            retracted=outcome.retracted,
            unchanged=outcome.unchanged,
            rejected=outcome.rejected,
            notices=notices,
        )

    def _defer_derivation(self, episode_ids: Sequence[str]) -> None:
        """Remember episodes whose derivation failed (ids only), for :meth:`rederive_pending`."""
        try:
            pending = json.loads(self.store.get_meta(PENDING_DERIVATION) or "[]")
            self.store.set_meta(PENDING_DERIVATION, json.dumps(sorted({*pending, *episode_ids})))
        except Exception as exc:  # the add has already told the caller the episodes are stored
            logging.getLogger("veramem").warning(
                "could not queue episodes for derivation (%s)", type(exc).__name__
            )

    def rederive_pending(self) -> dict[str, Any]:
        """Derive memories from the episodes an earlier add stored but could not derive from (run by
        ``consolidate``); those that fail again stay queued. Returns what was tried and derived."""
        pending = json.loads(self.store.get_meta(PENDING_DERIVATION) or "[]")
        if not pending:
            return {"tried": 0, "derived": 0, "still_pending": 0}
        found = episodes_mod.get_many(self.store, pending)
        episodes = [found[i] for i in pending if i in found]  # forgotten ones are simply gone
        writer = Writer(
            self.engine, self.embedder, self.llm, device=self.device_id, resolve_dates=resolve_relative_dates
        )
        left: list[str] = []
        derived = 0
        for episode in episodes:
            try:
                outcome = writer.derive([episode])
            except Exception as exc:
                logging.getLogger("veramem").warning(
                    "deriving %s failed again (%s)", episode.id, type(exc).__name__
                )
                left.append(episode.id)
                continue
            derived += len(outcome.added) + len(outcome.updated)
            self._queue_links([d["id"] for d in outcome.added + outcome.updated])
        self.store.set_meta(PENDING_DERIVATION, json.dumps(left))
        return {"tried": len(episodes), "derived": derived, "still_pending": len(left)}

    @property
    def llm(self) -> LLM:
        with self._open_lock:
            if self._llm is None:
                from .setup import make_llm

                self._llm = make_llm(self.config)
            return self._llm

    @property
    def llm_name(self) -> str:
        return self.llm.capabilities.name

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
        from veramem_desktop.core.write.chunking import chunk_document

        chunks = chunk_document(text)
        if not chunks:
            raise InvalidInputError(f"{name} has no text to add.")
        return self.add(
            [EpisodeInput(content=c, role="document", name=name) for c in chunks],
            user_id=user_id,
            agent_id=agent_id,
            team_id=team_id,
            session_id=session_id or f"doc:{name}",
            until=until,
            expires_in=expires_in,
        )

    # ------------------------------------------------------------ models
    @property
    def embedder(self) -> Embedder:
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
        return str(self.embedder.name)

    @property
    def engine(self) -> SearchEngine:
        with self._open_lock:
            engine = self._engine
        if engine is None:
            engine = SearchEngine(self.store, self.embedder, self._search_config())
            engine.hypothesise = self._hypothesiser()
            with self._open_lock:
                self._engine = self._engine or engine
        return self._engine  # type: ignore[return-value]

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
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("The search query is empty.")
        if route is not None and route not in ROUTES:
            raise InvalidInputError(f"Unknown route {route!r}; use one of {', '.join(ROUTES)}.")
        if k is not None and not 1 <= k <= 1000:
            raise InvalidInputError("k must be between 1 and 1000.")
        query, _ = storable(query[:10_000])
        self.expire_if_due()
        return self.engine.search(
            query,
            self.caller(user_id, agent_id, include_rejected=include_rejected),
            k=k,
            route=route,
            include_archived=include_archived,
        )

    # ------------------------------------------------------------ memories
    def get(self, memory_id: str, *, caller: Caller | None = None) -> MemoryItem:
        """The memory ``memory_id``, as ``caller`` (the person by default) may read it."""
        return reads.get(self.store, self._reader(caller), memory_id)

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
            self.store,
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
            return reads.history(self.store, reader, memory_id)
        moment = iso(as_of) if isinstance(as_of, datetime) else iso(parse_time(as_of))
        return reads.as_of(self.store, reader, memory_id, moment)

    def detail(
        self, memory_id: str, *, include_rejected: bool = True, caller: Caller | None = None
    ) -> MemoryDetail:
        """A memory with its evidence inside the source episodes, its versions, ledger entries and links.
        Without ``include_rejected``, a rejected memory is not found, and rejected versions and evidence
        holding a rejected value are left out. ``caller``: who reads (the person by default); evidence in
        messages an agent caller may not see is left out and counted in ``evidence_withheld``."""
        reader = self._reader(caller, include_rejected)
        item = reads.get_shown(self.store, reader, memory_id)
        versions = reads.history(self.store, reader, memory_id)
        evidence, withheld = reads.evidence(self.store, reader, memory_id)
        eps = episodes_mod.get_many(self.store, [e.episode_id for e in evidence])
        views = [
            EvidenceView(eps[e.episode_id], e.quote, e.span_start, e.span_end, e.score)
            for e in evidence
            if e.episode_id in eps
        ]
        entries: list[ledger.LedgerEntry] = []
        for version in versions:
            entries += ledger.entries(self.store, target_id=version.id)
        entries = sorted({e.seq: e for e in entries}.values(), key=lambda e: e.seq)
        links = self.links(memory_id)
        return MemoryDetail(
            item,
            views,
            versions,
            entries,
            links,
            list(item.metadata.get("conflicts_with", [])),
            None if reader.keyholder else withheld,
        )

    # ------------------------------------------------------------ answer
    def answer(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None, k: int = 10
    ) -> AnswerResult:
        """Answer from memory only, citing what it relied on, or abstain."""
        if not isinstance(question, str) or not question.strip():
            raise InvalidInputError("The question is empty.")
        question, _ = storable(question[:10_000])
        self.expire_if_due()
        return Answerer(self.engine, self.llm).answer(question, self.caller(user_id, agent_id), k=k)

    # ------------------------------------------------------------ review (a person's act only)
    def review_queue(self, *, user_id: str | None = None) -> list[review_mod.ReviewItem]:
        return review_mod.queue(self.store, user_id=user_id)

    def approve(self, memory_id: str) -> MemoryItem:
        """Mark a memory verified. For people only: never exposed to agents (MCP/REST)."""
        return review_mod.approve(self.store, memory_id, device=self.device_id)

    def reject(self, memory_id: str, reason: str = "") -> review_mod.Rejection:
        """Reject a memory: it, the memories saying the same and the messages holding its value are hidden
        from every recall, its value can never return, and an earlier version it replaced is current again."""
        return review_mod.reject(self.store, memory_id, device=self.device_id, reason=reason)

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
        if visibility not in ("team", "public"):
            raise InvalidInputError("Shared items are visible to a team or to everyone: use team or public.")
        if visibility == "team" and not team_id:
            raise InvalidInputError("Sharing with a team needs the team id.")
        llm = self.llm
        return Sharer(self.engine, self.embedder, llm, device=self.device_id).share(
            self.caller(user_id).user_id,
            visibility=visibility,
            team_id=team_id,
            tau=tau,
            team_policy=team_policy,
            only=only,
        )

    def mark_shareable(self, memory_id: str, shareable: bool = True) -> MemoryItem:
        """The owner's consent to share one memory (a person's act)."""
        with self.store.atomic() as conn:
            return items_mod.set_fields(
                conn, memory_id, device=self.device_id, op="memory.consent", shareable=shareable
            )

    def may_act_on(self, item: MemoryItem) -> bool:
        """Whether an agent may act on ``item``: the one action gate (core/trust/action_gate.py), with its open
        conflicts read from the store (a partner that is active and not rejected keeps the conflict open)."""
        partners = [c for c in item.metadata.get("conflicts_with", []) if isinstance(c, str)]
        return may_act_on(item, open_conflict=lookups.any_current(self.store, partners))

    # ------------------------------------------------------------ pins and expiry
    def pin(self, memory_id: str) -> MemoryItem:
        """Keep a memory: consolidation never archives, fuses or moves it, and it does not expire."""
        return self._set_pinned(memory_id, True)

    def unpin(self, memory_id: str) -> MemoryItem:
        """Let consolidation (and an expiry set on it) treat the memory like any other again."""
        return self._set_pinned(memory_id, False)

    def _set_pinned(self, memory_id: str, pinned: bool) -> MemoryItem:
        item = items_mod.get(self.store, memory_id)
        if item.pinned == pinned:
            return item
        with self.store.atomic() as conn:
            updated = items_mod.set_fields(
                conn,
                memory_id,
                device=self.device_id,
                op="memory.pin" if pinned else "memory.unpin",
                pinned=pinned,
            )
        expiry_mod.refresh_next(self.store, datetime.now(UTC))
        return updated

    def expire_if_due(self, now: datetime | None = None) -> expiry_mod.ExpiryReport | None:
        """Erase what has expired when the earliest recorded expiry has passed (one meta read otherwise)."""
        moment = now or datetime.now(UTC)
        if not expiry_mod.due(self.store, moment):
            return None
        return self.expire(moment)

    def expire(self, now: datetime | None = None) -> expiry_mod.ExpiryReport:
        """Erase every memory and message whose time has passed, like a forget, as the system."""
        with self.store.acting.scope(Actor.system("expiry", self.channel), system=True):
            report = expiry_mod.expire(self.store, now or datetime.now(UTC), device=self.device_id)
        if report.stale_context:
            recompute_context(self.store, self.embedder, sorted(set(report.stale_context)))
        return report

    def expiring(
        self,
        within: timedelta = timedelta(days=7),
        *,
        user_id: str | None = None,
        now: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """Active memories that expire within ``within``, soonest first."""
        return expiry_mod.upcoming(self.store, now or datetime.now(UTC), within, user_id=user_id)

    # ------------------------------------------------------------ forget
    def forget_preview(self, target: str, *, caller: Caller | None = None) -> forget_mod.ForgetPlan:
        """Exactly what `forget(target)` would erase (versions, evidence, episodes, derived items)."""
        return reads.forget_plan(self.store, self._reader(caller), target)

    def forget(self, target: str, *, caller: Caller | None = None) -> forget_mod.ForgetReport:
        """Erase a memory (every version), an episode, or `user:<id>`, and all that was built from them.
        ``caller``: who erases (the person by default, who may erase anything; an agent only what it owns)."""
        report = reads.forget(self.store, self._reader(caller), target, device=self.device_id)
        # The neighbours' context vectors held the erased words; rebuild them from what remains.
        recompute_context(self.store, self.embedder, report.stale_context)
        return report

    # ------------------------------------------------------------ grants
    def grant(self, kind: str, subject: str, object: str) -> grants_mod.Grant:
        """Add an access edge: user_agent (user → agent), agent_resource (agent → agent/resource), team_member (user → team)."""
        with self.store.atomic() as conn:
            return grants_mod.grant(conn, kind, subject, object, device=self.device_id)

    def revoke(self, kind: str, subject: str, object: str) -> int:
        """End an access edge now; items it exposed are hidden at once, retroactively."""
        with self.store.atomic() as conn:
            return grants_mod.revoke(conn, kind, subject, object, device=self.device_id)

    def grants(self, *, include_revoked: bool = False) -> list[grants_mod.Grant]:
        return grants_mod.list_grants(self.store, include_revoked=include_revoked)

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
            self.store,
            user_id=user_id,
            session_id=session_id,
            limit=limit,
            offset=offset,
            newest_first=newest_first,
            include_rejected=include_rejected,
        )

    def episode(self, episode_id: str) -> Episode | None:
        return episodes_mod.get(self.store, episode_id)

    def sessions(self, *, user_id: str | None = None) -> list[dict[str, Any]]:
        return episodes_mod.sessions(self.store, user_id=user_id)

    def verify(self, progress: Callable[[int, int], None] | None = None) -> ledger_verify.VerifyReport:
        return ledger_verify.verify(self.store, progress)

    def ledger_entries(
        self, *, target_id: str | None = None, limit: int | None = None
    ) -> list[ledger.LedgerEntry]:
        return ledger.entries(self.store, target_id=target_id, limit=limit)

    def status(self) -> dict[str, Any]:
        """Where the store is, what it holds, and whether its ledger verifies."""
        info: dict[str, Any] = {"store": str(self.store_path), "exists": self.exists()}
        if not info["exists"]:
            return info
        store = self.store
        counts = stats.status_counts(store)
        report = ledger_verify.verify_from_checkpoint(store)  # incremental; `verify` re-checks everything
        info.update(
            {
                "key": self._keys.describe()["mode"],
                "schema_version": store.schema_version(),
                "size_bytes": os.path.getsize(self.store_path),
                "counts": counts,
                "ledger": report.to_dict(),
                "device_id": self.device_id,
            }
        )
        return info

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
        return reads.episodes(self.store, caller, session_id=session_id, limit=limit, offset=offset)

    def require_trace(self, trace_id: str, *, caller: Caller) -> None:
        """NotFoundError unless ``trace_id`` is a search or answer made for ``caller`` (before crediting it)."""
        reads.require_trace(self.store, caller, trace_id)

    def ledger_length(self) -> int:
        """How many entries the ledger holds (what `verify` will check)."""
        return stats.ledger_length(self.store)
