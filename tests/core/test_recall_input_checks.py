"""A search, a question or a document that cannot be used is refused with a typed error before the
store is opened or a model loaded (a home with no store gets the input's error, not "no store")."""

from __future__ import annotations

from pathlib import Path

import pytest
from veramem_desktop.core.errors import InvalidInputError, NotInitialisedError

from veramem_desktop.memory import Memory


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": "   "}, "The search query is empty."),
        ({"query": "where do I live?", "route": "sideways"}, "Unknown route 'sideways'"),
        ({"query": "where do I live?", "k": 0}, "k must be between 1 and 1000."),
        ({"query": "where do I live?", "k": 1001}, "k must be between 1 and 1000."),
    ],
)
def test_an_unusable_search_is_refused_before_the_store_is_opened(
    tmp_path: Path, kwargs: dict[str, object], message: str
) -> None:
    mem = Memory(tmp_path)
    query = kwargs.pop("query")
    with pytest.raises(InvalidInputError) as refused:
        mem.search(query, **kwargs)  # type: ignore[arg-type]
    assert refused.value.message.startswith(message)


def test_an_empty_question_is_refused_before_the_store_is_opened(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="The question is empty."):
        Memory(tmp_path).answer(" \n")


def test_a_document_without_text_is_refused_naming_it_before_the_store_is_opened(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="notes.md has no text to add."):
        Memory(tmp_path).adding.add_document("  \n\n ", name="notes.md")


def test_a_usable_search_in_a_home_without_a_store_says_there_is_none(tmp_path: Path) -> None:
    with pytest.raises(NotInitialisedError):
        Memory(tmp_path).search("where do I live?")
