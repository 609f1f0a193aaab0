"""The add path of one open store: messages stored as episodes, then memories derived from them.

The episodes are committed (and their vectors computed) before derivation, in a transaction of
their own: a write transaction holds the store's lock, and readers in this process (the REST and
MCP servers, the TUI) must never wait for the embedding model or an LLM. An add whose derivation
fails keeps its episodes and queues them (ids only, one row each in ``pending_derivations``) for
``consolidate`` to derive again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, replace
from datetime import UTC, datetime
from typing import Any, TypeAlias

from veramem_desktop.core.errors import InvalidInputError, VeramemError
from veramem_desktop.core.lifecycle import expiry as expiry_mod
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import episodes as episodes_mod
from veramem_desktop.core.storage import limits, pending_rows
from veramem_desktop.core.storage.actor import Actor
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache
from veramem_desktop.core.text.explicit_dates import document_time
from veramem_desktop.core.trust import admission
from veramem_desktop.core.write.casing import HistoryCasing
from veramem_desktop.core.write.chunking import chunk_document
from veramem_desktop.core.write.derive import Writer
from veramem_desktop.core.write.ingest import store_episodes
from veramem_desktop.core.write.results import AddResult

from ..config import IdentitySettings
from .organiser import Organiser

MessageLike: TypeAlias = str | EpisodeInput | dict[str, Any]

logger = logging.getLogger("veramem")


def to_inputs(
    messages: MessageLike | Sequence[MessageLike], *, role: str = "user", name: str | None = None
) -> list[EpisodeInput]:
    """Accept a string, a message dict, an EpisodeInput, or a list of them.

    Values are passed on as given: :func:`episodes.validate` checks every field against
    the limits in ``core/storage/limits.py`` (types included), so nothing is coerced here.
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


def document_inputs(text: str, name: str) -> list[EpisodeInput]:
    """A document's chunks, each a message with role ``document`` named after the file (InvalidInputError
    when it has no text)."""
    chunks = chunk_document(text)
    if not chunks:
        raise InvalidInputError(f"{name} has no text to add.")
    dated = document_time(text, None)  # the date the document gives itself, else the time of the add
    return [EpisodeInput(content=c, role="document", name=name, time=dated) for c in chunks]


def scope_for(
    identity: IdentitySettings,
    user_id: str | None,
    agent_id: str | None,
    team_id: str | None,
    session_id: str | None,
) -> Scope:
    """Where messages go: the ids given, else the settings' identity (an agent or team left empty is none)."""
    return Scope(
        user_id=user_id if user_id is not None else identity.user_id,
        agent_id=agent_id if agent_id is not None else (identity.agent_id or None),
        team_id=team_id if team_id is not None else (identity.team_id or None),
        session_id=session_id,
    )


@dataclass(eq=False)
class Writes:
    """Adds to one open store. ``llm`` is asked for the backend only once the episodes are stored (finding
    a model server may fail; the messages are kept all the same)."""

    store: Store
    embedder: Embedder
    llm: Callable[[], LLM]
    _: KW_ONLY
    vectors: VectorCache
    device: str
    organiser: Organiser
    name_casing: bool = True

    def __post_init__(self) -> None:
        #: how the person's history spells names, learnt once and kept up to date across writes
        self.casing = HistoryCasing(self.store, enabled=self.name_casing)

    def writer(self) -> Writer:
        """The engine's write path over this store, the memories' shared vectors, the embedder and the LLM."""
        return Writer(
            self.store, self.vectors, self.embedder, self.llm(), device=self.device, casing=self.casing
        )

    def add(
        self, inputs: list[EpisodeInput], scope: Scope, notices: list[str], expires_at: str | None
    ) -> AddResult:
        """Store ``inputs`` (validated already) in ``scope``, then derive; ``notices`` are the validation's."""
        if expires_at is not None:
            inputs = [replace(i, metadata={**i.metadata, expiry_mod.EXPIRES_KEY: expires_at}) for i in inputs]
        inputs, forgotten = self.admit(inputs, scope, notices)
        if not inputs:
            return AddResult(notices=notices, forgotten=forgotten)
        stored = store_episodes(self.store, self.embedder, inputs, scope, device=self.device)
        writer = self.writer()
        try:
            outcome = writer.derive(stored)
        except Exception as exc:  # the episodes are committed: say what happened rather than lose the result
            if not isinstance(exc, VeramemError):
                logger.error("deriving memories failed: %s", type(exc).__name__)
            reason = exc.message if isinstance(exc, VeramemError) else f"unexpected {type(exc).__name__}"
            self.defer_derivation([e.id for e in stored])
            notices.append(
                f"no memories were derived ({reason}); the {len(stored)} episode(s) are stored and "
                "searchable as raw messages, and are derived again at the next `veramem consolidate`"
            )
            if expires_at is not None:
                with self.store.atomic() as conn:
                    expiry_mod.note(conn, expires_at)
            return AddResult(episodes=stored, notices=notices, forgotten=forgotten)
        notices += outcome.notices  # the model's own notices come with each call's reply
        if expires_at is not None:
            with self.store.atomic() as conn:
                # new memories only: an update is a new version of a memory kept without an expiry, and
                # erasing it would erase that memory's whole history
                expiry_mod.mark(conn, [d["id"] for d in outcome.added], expires_at, device=self.device)
                expiry_mod.note(conn, expires_at)  # the episodes expire even when nothing was derived
            if outcome.updated:
                notices.append(
                    f"{len(outcome.updated)} updated memory(ies) keep no expiry: each is a new version "
                    "of a memory that had none (forget it to erase it sooner)"
                )
        self.organiser.queue_links([d["id"] for d in outcome.added + outcome.updated])  # in the background
        return replace(outcome, episodes=stored, notices=notices, forgotten=forgotten)

    def admit(
        self, inputs: list[EpisodeInput], scope: Scope, notices: list[str]
    ) -> tuple[list[EpisodeInput], int]:
        """The inputs the admission gate lets in (core/trust/admission.py): an agent writing for a user who
        has not granted it is refused; a forgotten episode brought again (its import key, or its role, words
        and time) is left out and said in ``notices``."""
        with self.store.read() as conn:
            admission.require_writer(conn, scope.user_id, self.store.acting.current())
            screened = admission.screen(conn, [admission.incoming_of_input(i, scope.user_id) for i in inputs])
        notice = screened.notice()
        if notice is None:
            return inputs, 0
        notices.append(notice)
        return [inputs[i] for i in screened.admitted], len(screened.forgotten)

    def defer_derivation(self, episode_ids: Sequence[str]) -> None:
        """Queue episodes whose derivation failed (ids only), for :meth:`rederive_pending`: one row per
        episode inserted in one transaction, never a list read and written back, so adds running at once
        in other processes keep theirs."""
        try:
            with self.store.atomic() as conn:
                pending_rows.queue(conn, episode_ids)
        except Exception as exc:  # the add has already told the caller the episodes are stored
            logger.warning("could not queue episodes for derivation (%s)", type(exc).__name__)

    def rederive_pending(self) -> dict[str, Any]:
        """Derive memories from the episodes an earlier add stored but could not derive from (run by
        ``consolidate``); those that fail again stay queued, and only the rows of the episodes finished
        (derived, or forgotten meanwhile) are deleted, so ids queued meanwhile stay. Returns what was tried
        and derived."""
        pending = pending_rows.queued(self.store)
        if not pending:
            return {"tried": 0, "derived": 0, "still_pending": 0}
        found = episodes_mod.get_many(self.store, pending)
        episodes = [found[i] for i in pending if i in found]
        with self.store.atomic() as conn:
            pending_rows.clear(conn, [i for i in pending if i not in found])  # forgotten ones are gone
        writer = self.writer()
        left = 0
        derived = 0
        for episode in episodes:
            try:
                outcome = writer.derive([episode])
            except Exception as exc:
                logger.warning("deriving %s failed again (%s)", episode.id, type(exc).__name__)
                left += 1
                continue
            with self.store.atomic() as conn:
                pending_rows.clear(conn, [episode.id])
            derived += len(outcome.added) + len(outcome.updated)
            self.organiser.queue_links([d["id"] for d in outcome.added + outcome.updated])
        return {"tried": len(episodes), "derived": derived, "still_pending": left}


class Adding:
    """``Memory.add`` and ``add_document``: the messages, where they go and their expiry are checked before
    anything opens (``writes`` builds the add path over the open store); the add is recorded as made by
    ``actor(user_id)``, the person the messages are for."""

    def __init__(
        self,
        identity: IdentitySettings,
        *,
        actor: Callable[[str | None], Actor],
        writes: Callable[[], Writes],
    ) -> None:
        self.identity = identity
        self.actor = actor
        self.writes = writes

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
        scope = scope_for(self.identity, user_id, agent_id, team_id, session_id)
        expires_at = expiry_mod.resolve(until, expires_in, datetime.now(UTC))
        writes = self.writes()
        with writes.store.acting.scope(self.actor(scope.user_id)):
            return writes.add(inputs, scope, notices, expires_at)

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
        """Split a document into chunks, each an episode with role ``document`` named after the file (in a
        session of its own, ``doc:<name>``, unless one is given)."""
        return self.add(
            document_inputs(text, name),
            user_id=user_id,
            agent_id=agent_id,
            team_id=team_id,
            session_id=session_id or f"doc:{name}",
            until=until,
            expires_in=expires_in,
        )
