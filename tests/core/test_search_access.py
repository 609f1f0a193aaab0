"""Nobody ever sees what they may not: property tests over users, teams, grants and revocations."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.fake_embedder import HashEmbedder
from support.internals import embedder_of, store_of
from veramem_desktop.core.recall import ROUTES, SearchEngine
from veramem_desktop.core.storage import grants, index, items
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.items import MemoryItem

from veramem_desktop.memory import Memory

USERS = ["alice", "bob", "carol"]
TEAMS = ["red", "blue"]
AGENTS = ["a1", "a2"]
WORD = "zebracode"


@dataclass(frozen=True)
class Spec:
    user: str
    visibility: str
    kind: str
    team: str | None
    agent: str | None
    status: str


item_specs = st.builds(
    Spec,
    user=st.sampled_from(USERS),
    visibility=st.sampled_from(["private", "team", "public"]),
    kind=st.sampled_from(["fact", "preference", "event", "summary", "experience"]),
    team=st.one_of(st.none(), st.sampled_from(TEAMS)),
    agent=st.one_of(st.none(), st.sampled_from(AGENTS)),
    status=st.sampled_from(["active", "active", "archived", "retracted", "superseded"]),
)
grant_ops = st.lists(
    st.tuples(
        st.sampled_from(["team_member", "user_agent", "agent_resource"]),
        st.integers(0, 2),
        st.integers(0, 1),
        st.booleans(),  # revoke afterwards
    ),
    max_size=6,
)


def _oracle(
    spec: Spec,
    caller: Caller,
    live: set[tuple[str, str, str]],
    configured_ua: set[str],
    configured_ar: set[str],
    include_archived: bool,
    configured_ua_pairs: frozenset[tuple[str, str]] = frozenset(),
) -> bool:
    """An independent statement of the visibility rule, in Python."""
    ok_status = spec.status == "active" or (include_archived and spec.status == "archived")
    if not ok_status:
        return False
    own = spec.user == caller.user_id and (spec.visibility == "private" or spec.kind == "preference")
    public = spec.kind != "preference" and spec.visibility == "public"
    team = (
        spec.kind != "preference"
        and spec.visibility == "team"
        and spec.team is not None
        and (("team_member", caller.user_id, spec.team) in live)
    )
    if not (own or public or team):
        return False
    if caller.agent_id is None:
        return True
    # an agent acts for a user who granted it; with no grant, only in an open store: neither the user nor
    # the agent is named by any user_agent grant (revoked ones included)
    granted_agents = {a for u, a in configured_ua_pairs}
    if ("user_agent", caller.user_id, caller.agent_id) not in live and (
        caller.user_id in configured_ua or caller.agent_id in granted_agents
    ):
        return False
    if caller.agent_id in configured_ar and not (
        spec.agent is None
        or spec.agent == caller.agent_id
        or ("agent_resource", caller.agent_id, spec.agent) in live
    ):
        return False
    return True


@pytest.fixture
def engine_mem(mem: Memory) -> Memory:
    return mem


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    specs=st.lists(item_specs, min_size=1, max_size=12),
    ops=grant_ops,
    caller_user=st.sampled_from(USERS),
    caller_agent=st.one_of(st.none(), st.sampled_from(AGENTS)),
    include_archived=st.booleans(),
)
def test_no_channel_and_no_route_returns_an_item_the_caller_may_not_see(
    engine_mem: Memory,
    specs: list[Spec],
    ops: list[tuple[str, int, int, bool]],
    caller_user: str,
    caller_agent: str | None,
    include_archived: bool,
) -> None:
    mem = engine_mem
    store = store_of(mem)
    with store.atomic() as conn:
        for table in ("memory_items", "grants", "embeddings", "entities", "fts_rows"):
            conn.execute(f"DELETE FROM {table}")
        conn.execute("DELETE FROM memory_fts")
    emb = HashEmbedder()
    by_id: dict[str, Spec] = {}
    live: set[tuple[str, str, str]] = set()
    configured_ua: set[str] = set()
    configured_ar: set[str] = set()
    ua_pairs: set[tuple[str, str]] = set()
    with store.atomic() as conn:
        for n, spec in enumerate(specs):
            text = f"{WORD} item {n} Zeta"
            item = items.insert(
                conn,
                MemoryItem(
                    id="",
                    kind=spec.kind,
                    text=text,
                    authority="authorized",
                    user_id=spec.user,
                    team_id=spec.team,
                    agent_id=spec.agent,
                    visibility=spec.visibility,
                    status=spec.status,
                ),
                [],
                device="d",
            )
            index.index_memory(conn, emb.name, item.id, text, emb.embed([text])[0])
            by_id[item.id] = Spec(spec.user, item.visibility, spec.kind, spec.team, spec.agent, spec.status)
        for kind, i, j, revoke in ops:
            subject, obj = {
                "team_member": (USERS[i], TEAMS[j]),
                "user_agent": (USERS[i], AGENTS[j]),
                "agent_resource": (AGENTS[j % 2], AGENTS[(j + 1) % 2]),
            }[kind]
            grants.grant(conn, kind, subject, obj, device="d", at="2000-01-01T00:00:00.000000Z")
            (
                configured_ua
                if kind == "user_agent"
                else configured_ar
                if kind == "agent_resource"
                else set()
            ).add(subject)
            if kind == "user_agent":
                ua_pairs.add((subject, obj))
            live.add((kind, subject, obj))
            if revoke:
                grants.revoke(conn, kind, subject, obj, device="d")
                live.discard((kind, subject, obj))
    caller = Caller(caller_user, caller_agent)
    engine = SearchEngine(store, emb)
    visible = {
        i
        for i, s in by_id.items()
        if _oracle(s, caller, live, configured_ua, configured_ar, include_archived, frozenset(ua_pairs))
    }
    now = datetime.now(UTC)
    for route in ROUTES:
        for channel in ("dense", "bm25", "entity"):
            _, scores, _ = engine.rank(
                f"{WORD} Zeta",
                caller,
                route=route,
                include_archived=include_archived,
                now=now,
                channels=(channel,),
                n=100,
            )
            leaked = {i for i in scores if i.startswith("mem_")} - visible
            assert not leaked, f"{channel}/{route} leaked {[by_id[i] for i in leaked]}"
        result = engine.search(
            f"{WORD} Zeta", caller, route=route, include_archived=include_archived, k=100, write_trace=False
        )
        got = {h.id for h in result.results + result.shared}
        assert got <= visible
    # and everything visible is reachable through BM25 with a broad route
    _, scores, _ = engine.rank(
        f"{WORD} Zeta",
        caller,
        route="dual",
        include_archived=include_archived,
        now=now,
        channels=("bm25",),
        n=100,
    )
    visible_dual = {i for i in visible if by_id[i].kind != "never"}
    assert {i for i in scores if i.startswith("mem_")} == visible_dual


def test_revoking_team_membership_hides_team_items_retroactively(mem: Memory) -> None:
    emb = embedder_of(mem)
    with store_of(mem).atomic() as conn:
        item = items.insert(
            conn,
            MemoryItem(
                id="",
                kind="fact",
                text="the launch code word is heliotrope",
                authority="authorized",
                user_id="bob",
                team_id="red",
                visibility="team",
            ),
            [],
            device="d",
        )
        index.index_memory(conn, emb.name, item.id, item.text, emb.embed([item.text])[0])
    mem.grants.grant("team_member", "alice", "red")
    assert [h.id for h in mem.search("heliotrope", user_id="alice").shared] == [item.id]
    mem.grants.revoke("team_member", "alice", "red")
    result = mem.search("heliotrope", user_id="alice", k=100)
    assert item.id not in {h.id for h in result.results + result.shared}


def test_episodes_are_private_to_their_user(mem: Memory) -> None:
    mem.add("my passport number is in the blue drawer", user_id="alice", session_id="s")
    assert mem.search("passport drawer", user_id="alice", route="raw").results
    assert not mem.search("passport drawer", user_id="bob", route="raw").results


def test_a_preference_marked_public_stays_private(mem: Memory) -> None:
    with store_of(mem).atomic() as conn:
        item = items.insert(
            conn,
            MemoryItem(
                id="",
                kind="preference",
                text="prefers aisle seats",
                authority="authorized",
                user_id="alice",
                visibility="public",
            ),
            [],
            device="d",
        )
    assert item.visibility == "private"
    assert not mem.search("aisle seats", user_id="bob", k=50).shared
