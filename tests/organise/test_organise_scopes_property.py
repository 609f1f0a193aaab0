"""Links and fusion never cross scopes, whatever mix of users and teams holds similar memories."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from organise_support import link_all, open_store, put
from support.fake_embedder import HashEmbedder
from veramem_desktop.core.lifecycle.consolidation import consolidate
from veramem_desktop.core.lifecycle.stage_common import ConsolidateConfig
from veramem_desktop.core.storage.items import get_many
from veramem_desktop.core.storage.vectors import VectorCache
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

E = HashEmbedder()
#: distinct facts in nearly the same words (alike to the embedder, different to the summariser)
WHAT = [
    "heavy rain",
    "fresh snowfall",
    "a broken boot",
    "a lost map",
    "wild ibex",
    "a glacier view",
    "thick fog",
    "a cheese picnic",
    "a steep ridge",
    "a rescue drill",
    "sunburn",
    "a hut dinner",
    "a lake swim",
    "marmots",
    "a cable car",
    "blisters",
    "a storm",
    "an avalanche warning",
]
SCOPES = st.tuples(st.sampled_from(["ann", "bob", "cy"]), st.sampled_from([None, "red", "blue"]))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(SCOPES, min_size=6, max_size=18))
def test_links_and_fusion_stay_inside_one_scope(scopes: list[tuple[str, str | None]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(Path(folder))
        try:
            for day, (user, team) in enumerate(scopes, start=1):
                # nearly the same words in every scope: only the scope keeps them apart
                put(
                    store,
                    E,
                    f"The hiking trip in the Alps on day {day} brought {WHAT[day - 1]}.",
                    user=user,
                    team=team,
                    visibility="team" if team else "private",
                )
            link_all(store, E)
            cache = VectorCache("memory", E.name, E.dim)
            report = consolidate(
                store,
                E,
                RuleBasedLLM(),
                cache,
                device="dev_test",
                config=ConsolidateConfig(fuse_min_items=3, fuse_max_items=8),
            )
            rows = store.query("SELECT src, dst, type FROM links")
            ids = {i for r in rows for i in r[:2]}
            found = get_many(store, list(ids))
            scope = {i: (m.user_id, m.team_id, m.agent_id, m.visibility) for i, m in found.items()}
            counts: dict[tuple[str, str | None], int] = {}
            for s in scopes:
                counts[s] = counts.get(s, 0) + 1
            assert bool(rows) == any(n >= 2 for n in counts.values()), (
                "similar memories of one scope are linked"
            )
            for src, dst, _ in rows:
                assert scope[src] == scope[dst]
            for fused_id in report.stages["fuse"].ids:
                sources = [
                    r[0]
                    for r in store.query(
                        "SELECT source_id FROM derivations WHERE derived_id = ?", (fused_id,)
                    )
                ]
                members = get_many(store, [fused_id, *sources])
                assert len({(m.user_id, m.team_id, m.agent_id, m.visibility) for m in members.values()}) == 1
            # every scope holding three or more of them was fused, once
            assert len(report.stages["fuse"].ids) == sum(1 for n in counts.values() if n >= 3)
        finally:
            store.close()
