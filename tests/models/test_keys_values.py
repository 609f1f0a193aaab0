"""A value is the name as said: a leading "new" is a change word only in lower case."""

from __future__ import annotations

import pytest
from veramem_desktop.models.llm.rules.keys import attribute


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        ("I live in New York.", ("user", "lives_in", "New York")),
        ("We moved to New Delhi last spring.", ("user", "lives_in", "New Delhi")),
        ("I work at New Balance.", ("user", "works_at", "New Balance")),
    ],
)
def test_a_name_that_begins_with_new_keeps_it(sentence: str, key: tuple[str, str, str]) -> None:
    assert attribute(sentence) == key
