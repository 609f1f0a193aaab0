"""A memory in cold storage under a broader one is neither called false nor put first: the linker archives
what a broader memory covers ("User walks the dog on Sundays." under "User walks the dog on Sundays with Tom
in the park."), which nothing contradicted; the broader, current memory ranks and answers first. (Tennis,
an attribute of the inventory, is kept as one value with both messages as evidence instead.)"""

from __future__ import annotations

from typing import Any


def test_an_item_archived_under_a_broader_memory_is_not_called_false(rmem: Any) -> None:
    rmem.add("I walk the dog on Sundays.")
    rmem.add("I walk the dog on Sundays with Tom in the park.")
    assert rmem.organiser.wait_for_links(30)
    hits = rmem.search("do I walk the dog on Sundays?").results
    archived = [h for h in hits if h.state == "archived"]
    assert archived, [
        (h.text, h.state) for h in hits
    ]  # the linker put the narrower statement in cold storage
    assert hits[0].state == "current" and "with Tom" in hits[0].text, [(h.text, h.state) for h in hits]
    answer = rmem.answer("do I walk the dog on Sundays?")
    assert "no longer holds" not in answer.text and "before that" not in answer.text, answer.text
    assert "with Tom in the park" in answer.text
