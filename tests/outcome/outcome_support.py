"""Helpers for the outcome-loop tests: memories placed in exact scopes, a scripted LLM, snapshots."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.llm import (
    DEFAULT_CONTEXT_TOKENS,
    LLM,
    AnswerDraft,
    Candidate,
    Capabilities,
    ContextItem,
    Decision,
    LinkVerdict,
    Message,
    Neighbour,
    Reply,
)
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import index, items
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
from veramem_desktop.core.storage.items import ROLE_AUTHORITY, Evidence, MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.write.ingest import store_episodes

DEVICE = "dev_test"


def open_store(folder: Path) -> Store:
    """A new store with a random raw key (no passphrase stretching, so it is fast)."""
    return Store.open(folder / "store.db", os.urandom(32), create=True)


def put(
    store: Store,
    embedder: Embedder,
    text: str,
    *,
    user: str = "ann",
    team: str | None = None,
    visibility: str = "private",
    agent: str | None = None,
    session: str | None = "s1",
    kind: str = "fact",
    role: str = "user",
    **fields: Any,
) -> MemoryItem:
    """Store ``text`` as an episode and a memory citing all of it, in exactly the scope given."""
    [ep] = store_episodes(
        store,
        embedder,
        [EpisodeInput(content=text, role=role)],
        Scope(user_id=user, agent_id=agent, team_id=team, session_id=session),
        device=DEVICE,
    )
    item = MemoryItem(
        id="",
        kind=kind,
        text=text,
        authority=ROLE_AUTHORITY[role],
        user_id=user,
        agent_id=agent,
        team_id=team,
        session_id=session,
        visibility=visibility,
        valid_from=ep.event_time,
        **fields,
    )
    with store.atomic() as conn:
        item = items.insert(conn, item, [Evidence(ep.id, text, 0, len(text), 1.0, role)], device=DEVICE)
        index.index_memory(conn, embedder.name, item.id, item.text, embedder.embed([text])[0])
    return item


def snapshot(store: Store, ignore: Sequence[str] = ("updated_at",)) -> dict[str, dict[str, Any]]:
    """Every memory row as a dict, without the named columns."""
    out = {}
    for row in store.query(f"SELECT {items.ITEM_COLUMNS} FROM memory_items"):
        data = items.row_to_item(row).to_dict()
        out[data["id"]] = {k: v for k, v in data.items() if k not in ignore}
    return out


def derived_sources(store: Store) -> dict[str, list[str]]:
    rows = store.query("SELECT derived_id, source_id FROM derivations ORDER BY derived_id, source_id")
    out: dict[str, list[str]] = {}
    for derived, source in rows:
        out.setdefault(derived, []).append(source)
    return out


class ScriptedLLM:
    """The ``LLM`` protocol with scripted summaries and abstractions.

    A text containing ``FAIL`` makes the call raise ``ModelError`` (a model that is down or
    returned unparseable output); ``JUNK`` makes it return a blank reply. Anything else is
    answered with a short deterministic text. Every call is recorded.
    """

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities("scripted", batch_extraction=True, context_tokens=DEFAULT_CONTEXT_TOKENS)

    def without_fallback(self) -> LLM:
        return self

    def _reply(self, task: str, text: str) -> Reply[str]:
        self.calls.append((task, text))
        if "FAIL" in text:
            raise ModelError(f"scripted failure of {task}")
        if "JUNK" in text:
            return Reply("   ")
        return Reply(f"{task}: {text[:80]}")

    def summarise(self, texts: Sequence[str]) -> Reply[str]:
        return self._reply("summarise", " | ".join(texts))

    def abstract_experience(self, text: str) -> Reply[str]:
        return self._reply("abstract", text)

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> Reply[list[Candidate]]:
        raise ModelError("not scripted")

    def reconcile(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Reply[Decision]:
        raise ModelError("not scripted")

    def answer(self, question: str, items: Sequence[ContextItem], fenced_context: str) -> Reply[AnswerDraft]:
        raise ModelError("not scripted")

    def link(self, a: str, b: str) -> Reply[LinkVerdict]:
        raise ModelError("not scripted")

    def hypothesise(self, question: str) -> Reply[str | None]:
        return Reply(None)
