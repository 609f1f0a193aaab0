"""A message held as a near miss of a rejected value waits in the review queue until a person decides."""

from __future__ import annotations

from veramem_desktop.memory import Memory


def test_a_memory_held_as_a_near_miss_is_put_to_the_person_in_review(rmem: Memory) -> None:
    rmem.add("I live in Berlin.")
    [claim] = [m for m in rmem.memories() if "Berlin" in m.text]
    rmem.review.reject(claim.id, "wrong")
    rmem.add("I live in Berlln now.")
    queue = rmem.review.queue()
    held = [r for r in queue if "Berlln" in r.item.text]
    assert held, "the held near miss is not in the review queue, so no person can decide on it"
    assert "resembles a rejected value" in held[0].reason
    assert not [
        r for r in queue if r.item.id == claim.id or "Berlin" in r.item.text
    ]  # the rejected one is not
    assert not [h for h in rmem.search("where do I live").results if "Berlln" in h.text]
