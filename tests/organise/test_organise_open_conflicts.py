"""A memory in an open conflict stays in view until a person settles it: consolidation never
subsumes, fuses, merges, archives or budgets it away (issue 18, part 6 c)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from consolidation_support import one, open_memory, rate
from organise_support import DEVICE, link_all, open_store, put, status
from support.fake_embedder import HashEmbedder
from veramem_desktop.core.lifecycle.consolidation import consolidate
from veramem_desktop.core.lifecycle.stage_common import ConsolidateConfig
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

from veramem_desktop.memory import Memory

E = HashEmbedder()


def _conflict(mem: Memory) -> tuple[str, str]:
    """The user's fact and the assistant's contradicting claim, in one session with two more facts."""
    porto = one(mem, "I live in Porto.", session_id="s1")
    madrid = one(mem, "You live in Madrid.", role="assistant", session_id="s1")
    one(mem, "I have a cat named Tom.", session_id="s1")
    one(mem, "I work as a nurse.", session_id="s1")
    assert mem.get(madrid).metadata["conflicts_with"] == [porto]
    return porto, madrid


def _queued(mem: Memory) -> set[str]:
    return {r.item.id for r in mem.review.queue() if r.conflicts_with}


@pytest.fixture
def mem(isolated_home: Path) -> Iterator[Memory]:
    m = open_memory(isolated_home, linking=True)
    yield m
    m.close()


def test_a_session_summary_leaves_a_claim_in_open_conflict_active_and_in_the_review_queue(
    mem: Memory,
) -> None:
    porto, madrid = _conflict(mem)
    report = mem.consolidate()
    [summary] = report.stages["summarise"].ids
    assert mem.organiser.wait_for_links()
    assert mem.get(madrid).status == "active" and mem.get(porto).status == "active"
    assert _queued(mem) == {porto, madrid}
    assert not [x for x in mem.reading.links(summary) if x["type"] in ("subsumes", "fused")]
    assert not mem.curation.may_act_on(mem.get(porto))  # the conflict is still open for the action gate too


def test_a_claim_in_open_conflict_is_not_archived_for_low_utility_until_a_person_rejects_one_side(
    mem: Memory,
) -> None:
    porto, madrid = _conflict(mem)
    rate(mem, "where do I live", [madrid], reward=-1.0)
    later = datetime.now(UTC) + timedelta(days=90)  # unhelpful and idle: archived, were it not in conflict
    archive = mem.consolidate(now=later).stages["archive"]
    assert archive.found == 1 and archive.skipped == {"open_conflict": 1} and archive.ids == []
    assert mem.get(madrid).status == "active" and madrid in _queued(mem)
    mem.review.reject(porto)  # a person settles it (here: the assistant was right)
    assert mem.consolidate(now=later).stages["archive"].ids == [madrid]  # now an ordinary memory again


def test_a_budget_never_moves_a_claim_in_open_conflict(isolated_home: Path) -> None:
    mem = open_memory(isolated_home, agent_items=0)
    try:
        porto, madrid = _conflict(mem)
        other = one(mem, "You said you like green tea.", role="assistant", session_id="s2")
        moved = mem.consolidate().stages["budget"].ids
        assert other in moved and madrid not in moved
        assert mem.get(madrid).status == "active" and mem.organiser.enforce_budgets() == []
    finally:
        mem.close()


# ------------------------------------------------------------------ the engine's own guards
@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path / "s")
    yield s
    s.close()


def test_a_broader_memory_does_not_send_a_claim_in_open_conflict_to_cold_storage(store: Store) -> None:
    user = put(store, E, "Ann lives in Porto.")
    claim = put(
        store, E, "Ann plays tennis on Sundays.", role="assistant", metadata={"conflicts_with": [user.id]}
    )
    link_all(store, E)
    put(store, E, "Ann plays tennis on Sundays with Tom at the club.", role="assistant")
    report = link_all(store, E)
    assert status(store, claim.id) == "active" and claim.id not in report.cold
    # without the conflict the same pair is a subsumption (the guard is what kept it)
    narrow = put(store, E, "Ann swims on Mondays.", role="assistant")
    link_all(store, E)
    put(store, E, "Ann swims on Mondays at the lake with Tom.", role="assistant")
    assert narrow.id in link_all(store, E).cold


def test_fusion_leaves_a_cluster_with_a_claim_in_open_conflict_as_it_is(store: Store) -> None:
    days = ["heavy rain", "fresh snowfall", "a broken boot", "a lost map", "wild ibex"]
    user = put(store, E, "Ann lives in Porto.")
    members = [
        put(
            store,
            E,
            f"The hiking trip in the Alps on day {i} brought {w}.",
            **({"metadata": {"conflicts_with": [user.id]}} if i == 3 else {}),
        ).id
        for i, w in enumerate(days, 1)
    ]
    cfg = ConsolidateConfig()
    report = consolidate(
        store, E, RuleBasedLLM(), VectorCache("memory", E.name, E.dim), device=DEVICE, config=cfg
    )
    fuse = report.stages["fuse"]
    assert fuse.found == 1 and fuse.skipped == {"open_conflict": 1} and fuse.ids == []
    assert [status(store, m) for m in members] == ["active"] * 5


def test_a_near_duplicate_in_open_conflict_is_not_merged_away(store: Store) -> None:
    first = put(store, E, "Ann lives in Porto.")
    second = put(store, E, "Ann lives in Porto.", session="s2")
    claim = put(store, E, "Ann lives in Madrid.", role="assistant", metadata={"conflicts_with": [first.id]})
    report = consolidate(store, E, RuleBasedLLM(), VectorCache("memory", E.name, E.dim), device=DEVICE)
    merge = report.stages["merge"]
    assert merge.found == 1 and merge.skipped == {"open_conflict": 1} and merge.ids == []
    assert status(store, first.id) == status(store, second.id) == status(store, claim.id) == "active"
