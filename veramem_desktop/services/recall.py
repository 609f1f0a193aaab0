"""Recall over one open store: search, answer, and engines for measuring recall; and what a search query
or a question must be before recall runs on it, for every surface alike.

Both are checked before the store is touched (an empty query, an unknown route or a ``k`` out of
range is refused with a typed error) and cut to what the engine reads: at most 10,000 characters,
made storable (``core/storage/text.py``: a lone surrogate becomes U+FFFD, so it encodes as UTF-8).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import ROUTES, SearchConfig, SearchEngine, SearchResult
from veramem_desktop.core.recall.answer import Answerer, AnswerResult
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.text import storable

from ..config import IdentitySettings
from .reading import caller_for

#: characters of a query or question that recall reads
MAX_QUERY_CHARS = 10_000


def checked_query(query: str, route: str | None, k: int | None) -> str:
    """``query`` as search takes it, or InvalidInputError saying what is wrong with the request."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("The search query is empty.")
    if route is not None and route not in ROUTES:
        raise InvalidInputError(f"Unknown route {route!r}; use one of {', '.join(ROUTES)}.")
    if k is not None and not 1 <= k <= 1000:
        raise InvalidInputError("k must be between 1 and 1000.")
    return storable(query[:MAX_QUERY_CHARS])[0]


def checked_question(question: str) -> str:
    """``question`` as the answer path takes it, or InvalidInputError when it is empty."""
    if not isinstance(question, str) or not question.strip():
        raise InvalidInputError("The question is empty.")
    return storable(question[:MAX_QUERY_CHARS])[0]


@dataclass(eq=False)
class Recall:
    """Search and answer over one store's engine (the one ``engine`` gives: the store's [search] settings and
    the shared vector index). Every part is asked for only once the request passed its checks, and what has
    expired is erased first (``expire_if_due``), so recall never shows it."""

    identity: IdentitySettings
    _: KW_ONLY
    store: Callable[[], Store]
    embedder: Callable[[], Embedder]
    engine: Callable[[], SearchEngine]
    llm: Callable[[], LLM]
    expire_if_due: Callable[[], object]

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
        return self.engine().search(
            query,
            caller_for(self.identity, user_id, agent_id, include_rejected=include_rejected),
            k=k,
            route=route,
            include_archived=include_archived,
        )

    def answer(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None, k: int = 10
    ) -> AnswerResult:
        """Answer from memory only, citing what it relied on, or abstain."""
        question = checked_question(question)
        self.expire_if_due()
        return Answerer(self.engine(), self.llm()).answer(
            question, caller_for(self.identity, user_id, agent_id), k=k
        )

    def search_engine(self, config: SearchConfig | None = None) -> SearchEngine:
        """A new recall engine over this store, for measuring recall (``veramem bench``: ranking without
        traces, channel by channel, recipe against recipe). Without ``config`` it ranks as `search` does
        (the store's [search] settings, the shared vector index, the model's hypotheses); with one, by
        those settings with vector caches of its own and no model (set its ``hypothesise`` to give it one).
        Surfaces recall through `search` and `answer`."""
        if config is not None:
            return SearchEngine(self.store(), self.embedder(), config)
        own = self.engine()
        engine = SearchEngine(self.store(), self.embedder(), copy.deepcopy(own.config), own.vectors)
        engine.hypothesise = own.hypothesise
        return engine
