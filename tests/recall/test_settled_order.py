"""Hits of equal score come in one order whatever order the store read them in: never by id (ids are
random past their creation time, so two imports of one history would order the same hits apart)."""

from __future__ import annotations

import itertools

from veramem_desktop.core.recall.hits import Hit
from veramem_desktop.core.recall.rank import settled


def _hit(id: str, text: str, time: str | None, kind: str = "fact", score: float = 0.5) -> Hit:
    return Hit(id=id, kind=kind, text=text, score=score, authority="authorized", trust="candidate", time=time)


def test_equal_scores_order_newest_first_then_memory_before_message_then_text_in_any_input_order() -> None:
    hits = [
        _hit("mem_01ZZ", "Moved to Graz.", "2024-03-01T10:00:00+00:00"),
        _hit("mem_01AA", "Works at Pixelhof.", "2024-03-01T10:00:00+00:00"),
        _hit(
            "ep_01BB", "Moved to Graz, working at Pixelhof now.", "2024-03-01T10:00:00+00:00", kind="episode"
        ),
        _hit("mem_01CC", "Lives in Linz.", "2022-01-05T09:00:00+00:00"),
        _hit("mem_01DD", "Undated note.", None),
        _hit("mem_01EE", "Higher score.", "2020-01-01T00:00:00+00:00", score=0.9),
    ]
    orders = {tuple(h.id for h in settled(list(p))) for p in itertools.permutations(hits)}
    assert orders == {("mem_01EE", "mem_01ZZ", "mem_01AA", "ep_01BB", "mem_01CC", "mem_01DD")}
