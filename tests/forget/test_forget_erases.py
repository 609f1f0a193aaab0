"""Forget leaves nothing recoverable: checked on every decrypted page and WAL frame."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.internals import embedder_of, store_of
from veramem_desktop.core.errors import NotFoundError
from veramem_desktop.core.storage import index, items
from veramem_desktop.core.storage.items import Evidence, MemoryItem
from veramem_desktop.core.trust.provenance import provenance_of

from veramem_desktop.keys import KeyManager
from veramem_desktop.memory import Memory
from veramem_desktop.pages import plaintext_of_store


def _raw_key(mem: Memory) -> bytes:
    return KeyManager(mem.paths.keyinfo).load()


def _plaintext(mem: Memory) -> bytes:
    return plaintext_of_store(mem.store_path, _raw_key(mem)).lower()


def test_forgetting_a_memory_an_episode_and_a_user_leaves_no_byte_behind(mem: Memory) -> None:
    m1 = mem.add([{"content": "My locker code is qxzalphalocker and I keep it secret."}], session_id="a")
    ep_only = mem.add([{"content": "The spare key is under qxzbetastone near the door."}], session_id="b")
    mem.add([{"content": "Bob's bank pin is qxzgammapin, do not share."}], user_id="bob", session_id="c")
    keep = mem.add([{"content": "I like green tea in the morning."}], session_id="d")
    # search for them first, so traces hold the queries too
    assert mem.search("qxzalphalocker locker code").results
    assert mem.search("qxzgammapin", user_id="bob").results
    before = _plaintext(mem)
    assert b"qxzalpha" in before and b"qxzbeta" in before and b"qxzgamma" in before

    mem.forget(m1.added[0]["id"])
    mem.forget(ep_only.episodes[0].id)
    mem.forget("user:bob")

    after = _plaintext(mem)
    for marker in (b"qxzalpha", b"qxzbeta", b"qxzgamma"):
        assert marker not in after, f"{marker!r} survives in a decrypted page or WAL frame"
    assert b"green tea" in after  # the rest is intact
    assert mem.verify().ok
    for query, user in (("qxzalphalocker", None), ("qxzbetastone", None), ("qxzgammapin", "bob")):
        result = mem.search(query, user_id=user, route="dual", k=100)
        assert not [h for h in result.results if "qxz" in h.text.lower()]
    with pytest.raises(NotFoundError):
        mem.history(m1.added[0]["id"])
    assert mem.get(keep.added[0]["id"]).status == "active"
    ops = [e.op for e in mem.reading.ledger_entries()]
    assert ops.count("forget") >= 4


def test_tombstones_hold_only_ids_and_commitments(mem: Memory) -> None:
    added = mem.add("My passport number is qxzdeltapass.").added[0]["id"]
    mem.forget(added)
    tombs = [e for e in mem.reading.ledger_entries() if e.op == "forget"]
    assert {t.target_id for t in tombs} >= {added}
    for t in tombs:
        # besides ids and the commitment, only who forgot it (ids and a channel, no content)
        assert set(t.details) <= {"actor"} and len(t.commitment) == 64
        assert t.actor == {"kind": "user", "id": "me", "channel": "sdk"}
    # the secret behind the commitments is gone
    assert store_of(mem).query_one("SELECT 1 FROM item_secrets WHERE item_id = ?", (added,)) is None


def test_preview_lists_exactly_what_goes(mem: Memory) -> None:
    r = mem.add("I live in Lisbon. I am allergic to peanuts.", session_id="s")
    target = r.added[0]["id"]
    plan = mem.forget_preview(target)
    assert plan.episodes == [r.episodes[0].id]
    assert set(plan.memories) == {a["id"] for a in r.added}  # the other fact stood only on that message
    assert set(plan.derived) == {a["id"] for a in r.added} - {target}
    report = mem.forget(target)
    assert report.erased_memories == len(plan.memories) and report.erased_episodes == 1


def _derived(
    mem: Memory,
    kind: str,
    text: str,
    sources: list[str],
    evidence: list[Evidence],
    user: str = "me",
    **extra: object,
) -> MemoryItem:
    with store_of(mem).atomic() as conn:
        item = items.insert(
            conn,
            MemoryItem(id="", kind=kind, text=text, authority="authorized", user_id=user, **extra),
            evidence,
            device="d",
        )  # type: ignore[arg-type]
        index.index_memory(conn, embedder_of(mem).name, item.id, text, embedder_of(mem).embed([text])[0])
        for src in sources:
            conn.execute("INSERT INTO derivations(derived_id, source_id) VALUES (?, ?)", (item.id, src))
    return item


def test_summaries_and_experiences_built_from_an_episode_go_with_it(mem: Memory) -> None:
    r = mem.add(
        ["I booked the Kyoto ryokan for April.", "The ryokan needs a deposit by March."], session_id="trip"
    )
    facts = [a["id"] for a in r.added]
    ev = [Evidence(e.id, e.content[:10], 0, 10, 1.0, "user") for e in r.episodes]
    summary = _derived(mem, "summary", "Trip planning: ryokan booked, deposit due.", facts, ev)
    experience = _derived(
        mem, "experience", "## Booking a ryokan\nProcedure: pay the deposit early.", [summary.id], []
    )
    mem.forget(r.episodes[0].id)
    remaining = {m.id for m in mem.memories(status=None, limit=100)}
    assert summary.id not in remaining and experience.id not in remaining


def test_a_users_shared_contributions_go_with_the_user(mem: Memory) -> None:
    with store_of(mem).atomic() as conn:
        prov = provenance_of(conn, "carol")
    shared = _derived(
        mem,
        "experience",
        "Tip: renew passports six months early.",
        [],
        [],
        user="pool",
        visibility="public",
        provenance=prov,
        source="shared",
    )
    assert "carol" not in prov
    mem.add("I renewed my passport in May.", user_id="carol")
    report = mem.forget("user:carol")
    assert report.erased_memories >= 2
    with pytest.raises(NotFoundError):
        mem.get(shared.id)


def test_traces_that_returned_a_forgotten_item_are_dropped(mem: Memory) -> None:
    item = mem.add("My bike lock combination is 4-4-1-9.").added[0]["id"]
    trace = mem.search("bike lock combination").trace_id
    other = mem.search("bike lock combination", user_id="bob").trace_id  # bob cannot see it
    mem.forget(item)
    ids = {r[0] for r in store_of(mem).query("SELECT id FROM traces")}
    assert trace not in ids and other in ids
    for (returned,) in store_of(mem).query("SELECT returned_ids FROM traces"):
        assert item not in json.loads(returned)


@pytest.mark.slow
def test_forgetting_a_user_with_ten_thousand_items_completes(mem: Memory, isolated_home: Path) -> None:
    emb = embedder_of(mem)
    texts = [f"bulk fact number {i} about topic {i % 97}" for i in range(10_000)]
    vectors = emb.embed(texts)
    with store_of(mem).atomic() as conn:
        for text, vector in zip(texts, vectors, strict=True):
            item = items.insert(
                conn,
                MemoryItem(id="", kind="fact", text=text, authority="authorized", user_id="bulk"),
                [],
                device="d",
            )
            index.index_memory(conn, emb.name, item.id, text, vector)
    report = mem.forget("user:bulk")
    assert report.erased_memories == 10_000
    assert store_of(mem).query_one("SELECT count(*) FROM memory_items WHERE user_id = 'bulk'")[0] == 0
    assert mem.verify().ok


def test_forgetting_a_middle_turn_leaves_nothing_in_its_neighbours(mem: Memory) -> None:
    mem.add(
        [
            {"role": "user", "name": "Ana", "content": "Good morning."},
            {"role": "user", "name": "Rui", "content": "The alarm code is qxzepsilonalarm."},
            {"role": "user", "name": "Ana", "content": "Thanks, noted."},
        ],
        session_id="chat",
    )
    middle = [e for e in mem.episodes(session_id="chat", newest_first=False)][1]
    mem.forget(middle.id)
    assert b"qxzepsilon" not in _plaintext(mem)
    assert not [h for h in mem.search("qxzepsilonalarm", route="raw").results if "qxz" in h.text]
