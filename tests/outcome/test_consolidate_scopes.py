"""Merged, summarised and distilled memories never cross a scope (user, team, agent, visibility)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from outcome_support import DEVICE, derived_sources, open_store, put
from support.fake_embedder import HashEmbedder
from veramem_desktop.core.lifecycle.consolidation import consolidate
from veramem_desktop.core.lifecycle.rules import scope_of
from veramem_desktop.core.storage import items
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

TEXTS = ["Ann likes green tea.", "The office moved to Delft.", "The team meets on Mondays at nine."]


def _run(store: Store, embedder: HashEmbedder) -> None:
    report = consolidate(
        store, embedder, RuleBasedLLM(), VectorCache("memory", embedder.name, embedder.dim), device=DEVICE
    )
    assert report.reconciles, report.to_dict()


def _assert_no_derived_item_crosses_a_scope(store: Store) -> int:
    derived = derived_sources(store)
    for derived_id, source_ids in derived.items():
        made = items.get(store, derived_id)
        sources = items.get_many(store, source_ids)
        for src in sources.values():
            assert scope_of(src) == scope_of(made), (made.kind, scope_of(made), scope_of(src))
        if made.metadata.get("merged_from"):
            assert {s.kind for s in sources.values()} == {made.kind}
            assert {s.authority for s in sources.values()} == {made.authority}
        own = {e.episode_id for e in items.evidence_for(store, derived_id)}
        theirs = {e.episode_id for s in source_ids for e in items.evidence_for(store, s)}
        assert own == theirs  # evidence is exactly the union of the sources', so forget reaches it
    return len(derived)


def test_identical_memories_merge_within_a_scope_but_never_across_users_teams_agents_or_visibility(
    tmp_path: Path,
) -> None:
    store = open_store(tmp_path)
    embedder = HashEmbedder()
    text = TEXTS[0]
    same = [put(store, embedder, text, session=f"s{i}") for i in range(2)]
    others = [
        put(store, embedder, text, user="bob"),
        put(store, embedder, text, team="t1", visibility="team"),
        put(store, embedder, text, agent="a1"),
        put(store, embedder, text, role="assistant"),  # same scope, lower authority
    ]
    _run(store, embedder)
    merged = [
        d for d, srcs in derived_sources(store).items() if items.get(store, d).metadata.get("merged_from")
    ]
    assert len(merged) == 1
    assert derived_sources(store)[merged[0]] == sorted(m.id for m in same)
    assert all(items.get(store, m.id).status == "superseded" for m in same)
    assert all(items.get(store, m.id).status == "active" for m in others)
    _assert_no_derived_item_crosses_a_scope(store)
    store.close()


def test_a_session_shared_by_two_scopes_gets_one_summary_per_scope(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    embedder = HashEmbedder()
    for i in range(3):
        put(store, embedder, f"Ann note {i}: the kiln reached {900 + i} degrees.")
        put(store, embedder, f"Team note {i}: order {i + 2} bags of clay.", team="t1", visibility="team")
    _run(store, embedder)
    summaries = [items.get(store, d) for d in derived_sources(store)]
    assert sorted(s.visibility for s in summaries if s.kind == "summary") == ["private", "team"]
    _assert_no_derived_item_crosses_a_scope(store)
    store.close()


def test_an_experience_uses_only_the_askers_memories_one_per_scope(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    embedder = HashEmbedder()
    mine = put(store, embedder, "Ann flies from Lisbon.")
    team = put(store, embedder, "The team books flights through Acme Travel.", team="t1", visibility="team")
    bobs = put(store, embedder, "Bob prefers aisle seats.", user="bob", team="t1", visibility="team")
    with store.atomic() as conn:
        conn.execute(
            "INSERT INTO traces(id, kind, created_at, user_id, query, route, returned_ids, cited_ids, reward,"
            " rewarded_at) VALUES ('tr_1', 'answer', ?, 'ann', 'how do I book a flight?', 'facts', ?, ?, 1.0, ?)",
            (
                now_iso(),
                json.dumps([mine.id, team.id, bobs.id]),
                json.dumps([mine.id, team.id, bobs.id]),
                now_iso(),
            ),
        )
    _run(store, embedder)
    experiences = {
        d: s for d, s in derived_sources(store).items() if items.get(store, d).kind == "experience"
    }
    assert sorted(experiences.values()) == sorted([[mine.id], [team.id]])
    assert all(bobs.id not in s for s in derived_sources(store).values())
    _assert_no_derived_item_crosses_a_scope(store)
    store.close()


_scope = st.sampled_from(
    [
        ("ann", None, None, "private"),
        ("ann", "t1", None, "team"),
        ("ann", None, "a1", "private"),
        ("bob", None, None, "private"),
        ("bob", "t1", None, "team"),
    ]
)
_memory = st.tuples(
    st.sampled_from(TEXTS), _scope, st.sampled_from(["s1", "s2"]), st.sampled_from(["user", "tool"])
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_memory, min_size=2, max_size=10), st.lists(st.integers(0, 9), max_size=4))
def test_no_derived_memory_ever_crosses_a_scope(
    memories: list[tuple[str, tuple[str | None, ...], str, str]], cited: list[int]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(Path(folder))
        embedder = HashEmbedder()
        made = [
            put(
                store,
                embedder,
                text,
                user=str(user),
                team=team,
                agent=agent,
                visibility=str(vis),
                session=session,
                role=role,
            )
            for text, (user, team, agent, vis), session, role in memories
        ]
        used = [made[i % len(made)].id for i in cited]
        with store.atomic() as conn:
            conn.execute(
                "INSERT INTO traces(id, kind, created_at, user_id, query, route, returned_ids, cited_ids,"
                " reward, rewarded_at) VALUES ('tr_h', 'answer', ?, 'ann', 'q?', 'facts', ?, ?, 0.9, ?)",
                (now_iso(), json.dumps(used), json.dumps(used), now_iso()),
            )
        _run(store, embedder)
        _run(store, embedder)  # a second pass works on the results of the first
        _assert_no_derived_item_crosses_a_scope(store)
        store.close()
