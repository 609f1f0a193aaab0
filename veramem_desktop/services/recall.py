"""What a search query or a question must be before recall runs on it, for every surface alike.

Both are checked before the store is touched (an empty query, an unknown route or a ``k`` out of
range is refused with a typed error) and cut to what the engine reads: at most 10,000 characters,
made storable (``core/storage/text.py``: a lone surrogate becomes U+FFFD, so it encodes as UTF-8).
"""

from __future__ import annotations

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.recall import ROUTES
from veramem_desktop.core.storage.text import storable

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
