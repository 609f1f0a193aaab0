"""An answer never says a memory in cold storage "no longer holds": the linker archives what a broader
memory covers ("User has a bike." under "User sold User's old bike and bought a new one."), which
nothing contradicted."""

from __future__ import annotations

from typing import Any


def test_an_item_archived_under_a_broader_memory_is_not_called_false(rmem: Any) -> None:
    rmem.add("I have a bike.")
    rmem.add("I sold my old bike and bought a new one.")
    assert rmem.wait_for_links(30)
    hits = rmem.search("do I have a bike?").results
    archived = [h for h in hits if h.state == "archived"]
    assert archived, [
        (h.text, h.state) for h in hits
    ]  # the linker put the narrower statement in cold storage
    answer = rmem.answer("do I have a bike?")
    assert "no longer holds" not in answer.text, answer.text
    assert "bought a new one" in answer.text
