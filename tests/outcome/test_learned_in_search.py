"""The usage-learned score inside search ranking.

Not collected yet (no ``test_`` prefix): rename it to ``test_learned_in_search.py`` once
``SearchEngine._hydrate`` calls ``learned.blend`` (see the outcome report).
"""

from __future__ import annotations

from support.internals import engine_of, store_of
from veramem_desktop.core.recall import learned
from veramem_desktop.core.recall.learned import LearnedModel
from veramem_desktop.core.storage import items

from veramem_desktop.memory import Memory

#: a model that has learned that important memories help and unimportant ones do not
IMPORTANCE_MODEL = LearnedModel((12.0, 0.0, 0.0, 0.0), -6.0, 50, 25, "2024-06-01T00:00:00Z")


def _ranked(mem: Memory) -> list[str]:
    result = mem.search("which tea do I like", route="facts")
    return [h.id for h in result.results if h.kind != "episode"]


def test_the_learned_score_moves_ranking_only_once_a_model_is_stored(mem: Memory) -> None:
    mem.add(["I like green tea.", "I like black tea."])
    static = _ranked(mem)
    top, second = static[0], static[1]
    with store_of(mem).atomic() as conn:
        items.set_fields(conn, top, device="dev_test", op="memory.importance", importance=0.0)
        items.set_fields(conn, second, device="dev_test", op="memory.importance", importance=1.0)
    assert _ranked(mem) == static  # importance alone is not in the static prior
    store_of(mem).set_meta(learned.META_KEY, IMPORTANCE_MODEL.to_json())
    assert _ranked(mem)[:2] == [second, top]
    with store_of(mem).atomic() as conn:
        conn.execute("DELETE FROM meta WHERE key = ?", (learned.META_KEY,))
    assert _ranked(mem) == static


def test_a_share_of_zero_keeps_the_static_ranking(mem: Memory) -> None:
    mem.add(["I like green tea.", "I like black tea."])
    static = _ranked(mem)
    with store_of(mem).atomic() as conn:
        items.set_fields(conn, static[0], device="dev_test", op="memory.importance", importance=0.0)
        items.set_fields(conn, static[1], device="dev_test", op="memory.importance", importance=1.0)
    store_of(mem).set_meta(learned.META_KEY, IMPORTANCE_MODEL.to_json())
    engine_of(mem).config.learned_share = 0.0  # type: ignore[attr-defined]
    assert _ranked(mem) == static
