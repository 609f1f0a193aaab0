"""`veramem search` passes its options on as they come (``mem.search(query, **options)``), so each option
must be named as the search's keyword is: the keywords are spelled once, on ``Recall.search``."""

from __future__ import annotations

import inspect

from veramem_desktop.cli.search_cmds import search
from veramem_desktop.services.recall import Recall


def test_the_search_commands_options_are_exactly_the_keywords_of_recall_search() -> None:
    keywords = {
        name for name, p in inspect.signature(Recall.search).parameters.items() if p.kind is p.KEYWORD_ONLY
    }
    options = {p.name for p in search.params} - {"query", "as_json"}
    assert options == keywords
