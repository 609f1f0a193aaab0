"""`export memories` → `import` into an empty store gives the same memories, versions, evidence and links."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from support.internals import store_of
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.lifecycle import links as links_mod

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


def _fresh(home: Path) -> Memory:
    config = Config()
    config.organise.linking = False
    mem, _ = Memory.create(
        home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), config=config
    )
    return mem


def _snapshot(mem: Memory) -> dict[str, Any]:
    store = store_of(mem)
    items = {m.id: m.to_dict() for m in mem.memories(status=None, limit=10_000)}
    evidence = sorted(
        tuple(r)
        for r in store.query(
            "SELECT memory_id, episode_id, quote, span_start, span_end, score, role FROM evidence"
        )
    )
    quoted = sorted({e[1] for e in evidence})
    # the messages a person may read (one holding a rejected value is withheld, and not exported)
    episodes = {i: e.to_dict() for i in quoted if (e := mem.reading.episode(i)) is not None}
    links = sorted(tuple(r) for r in store.query("SELECT src, dst, type, score, created_at FROM links"))
    derived = sorted(tuple(r) for r in store.query("SELECT derived_id, source_id FROM derivations"))
    return {"items": items, "evidence": evidence, "episodes": episodes, "links": links, "derived": derived}


def _without_rejected(mem: Memory, snap: dict[str, Any]) -> dict[str, Any]:
    """``snap`` less what an export leaves out: rejected memories and rows withheld for holding a rejected value
    (with their evidence and links)."""
    held = {tuple(r) for r in store_of(mem).query("SELECT owner_kind, owner_id FROM withheld")}
    gone = {i for i, m in snap["items"].items() if m["trust"] == "rejected" or ("memory", i) in held}
    eps = {i for i in snap["episodes"] if ("episode", i) in held}
    # the listing leaves rejected memories out already; their evidence rows are read raw
    evidence = [e for e in snap["evidence"] if e[0] in snap["items"] and e[0] not in gone and e[1] not in eps]
    return {
        "items": {i: m for i, m in snap["items"].items() if i not in gone},
        "evidence": evidence,
        "episodes": {i: e for i, e in snap["episodes"].items() if i in {v[1] for v in evidence}},
        "links": [link for link in snap["links"] if link[0] not in gone and link[1] not in gone],
        "derived": [d for d in snap["derived"] if d[0] not in gone and d[1] not in gone],
    }


def _approved_is_a_candidate(snap: dict[str, Any], memory_id: str) -> dict[str, Any]:
    """``snap`` as another store holds it after the import: the approved memory is a candidate there."""
    items = {i: ({**m, "trust": "candidate"} if i == memory_id else m) for i, m in snap["items"].items()}
    return {**snap, "items": items}


def _history(mem: Memory) -> None:
    mem.add(
        [
            {"role": "user", "content": "My favourite colour is blue.", "time": "2024-01-01T10:00:00Z"},
            {"role": "assistant", "content": "You mentioned you work as a nurse."},
        ],
        session_id="s1",
    )
    mem.add(
        {"role": "user", "content": "My favourite colour is green now.", "time": "2024-02-01T10:00:00Z"},
        session_id="s1",
    )
    mem.add("I live in Lisbon. I have a dog called Rex.", session_id="s2")
    mem.add("My brother's name is Tom.", session_id="s3")
    first, second = sorted(m.id for m in mem.memories(limit=100))[:2]
    with store_of(mem).atomic() as conn:
        links_mod.add_link(conn, first, second, "supports", 0.81, device=mem.device_id)


def test_export_then_import_into_an_empty_store_gives_the_same_memories_versions_evidence_and_links(
    mem: Memory, tmp_path: Path
) -> None:
    _history(mem)
    approved = next(m for m in mem.memories() if "Lisbon" in m.text)
    mem.review.approve(approved.id)
    rejected = next(m for m in mem.memories() if "Tom" in m.text)
    mem.review.reject(rejected.id, "wrong")
    before = _without_rejected(mem, _snapshot(mem))
    assert rejected.id not in before["items"], "an export never writes a rejected memory"
    assert any(v["version"] > 1 for v in before["items"].values()), "the history should hold an update"
    assert before["links"], "the history should hold links"
    target = tmp_path / "memories.jsonl"
    counts = mem.importer.export_memories(target)
    assert "Tom" not in target.read_text(), "the rejected value's words reached the export"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert counts["versions"] == len(before["items"]) and counts["episodes"] == len(before["episodes"])

    other = _fresh(tmp_path / "other")
    try:
        report = other.import_history(target)
        # trust is never taken from a file (issue 30): the memory approved in the first store is a
        # candidate in the other until a person there approves it, and the import says so
        assert report.bad == 0 and report.notices == [
            f"memory {approved.id}: trust 'verified' from the file kept as 'candidate'"
        ]
        before = _approved_is_a_candidate(before, approved.id)
        after = _snapshot(other)
        assert after == before
        assert other.verify().ok
        old = next(m for m in other.memories(status=None, limit=100) if m.version == 2)
        assert [v.text for v in other.history(old.id)] == [v.text for v in mem.history(old.id)]
        assert other.search("colour", user_id="me").results  # vectors rebuilt from the text
        again = other.import_history(target)
        assert (again.stored, again.already_stored) == (0, report.stored)
        assert _snapshot(other) == before
    finally:
        other.close()


def test_an_imported_quote_that_is_not_in_its_episode_refuses_that_memory(
    mem: Memory, tmp_path: Path
) -> None:
    mem.add("I play the cello. I live in Lisbon.", session_id="s")
    target = tmp_path / "memories.jsonl"
    mem.importer.export_memories(target)
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    forged = next(
        i for i, o in enumerate(lines) if o["type"] == "memory" and "cello" in o["versions"][0]["text"]
    )
    lines[forged]["versions"][0]["evidence"][0]["quote"] = "I play the violin"
    lines[forged]["versions"][0]["evidence"][0]["span_start"] = 0
    target.write_text("".join(json.dumps(o) + "\n" for o in lines))
    other = _fresh(tmp_path / "other")
    try:
        report = other.import_history(target)
        assert [p["position"] for p in report.problems] == [f"line {forged + 1}"]
        assert "not found" in report.problems[0]["reason"]
        assert [m.text for m in other.memories()] == ["User lives in Lisbon."] or all(
            "cello" not in m.text for m in other.memories()
        )
    finally:
        other.close()


def test_an_imported_memory_never_has_more_authority_than_its_evidence(mem: Memory, tmp_path: Path) -> None:
    mem.add({"role": "tool", "content": "The server room door code is 4711.", "name": "wiki"}, session_id="s")
    target = tmp_path / "memories.jsonl"
    mem.importer.export_memories(target)
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    for o in lines:
        if o["type"] == "memory":
            o["versions"][0]["authority"] = "authorized"
    target.write_text("".join(json.dumps(o) + "\n" for o in lines))
    other = _fresh(tmp_path / "other")
    try:
        report = other.import_history(target)
        assert {m.authority for m in other.memories()} == {"unendorsed"}
        assert any("lowered to unendorsed" in n for n in report.notices)
    finally:
        other.close()


def test_markdown_export_is_readable_and_private(mem: Memory, tmp_path: Path) -> None:
    _history(mem)
    target = tmp_path / "memories.md"
    target.write_text("old")
    with pytest.raises(InvalidInputError, match="exists"):
        mem.importer.export_memories(target, format="markdown")
    target.chmod(0o644)
    mem.importer.export_memories(target, format="markdown", overwrite=True)
    text = target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert "PLAINTEXT" in text and "> My favourite colour is green now." in text and "### Versions" in text
    assert "### Links" in text
    with pytest.raises(InvalidInputError, match="Markdown|jsonl"):
        mem.importer.export_memories(tmp_path / "x", format="csv")


def test_an_exported_episode_whose_text_was_changed_is_refused_with_the_memories_quoting_it(
    mem: Memory, tmp_path: Path
) -> None:
    mem.add("I play the cello.", session_id="a")
    mem.add("I live in Lisbon.", session_id="b")
    target = tmp_path / "memories.jsonl"
    mem.importer.export_memories(target)
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    edited = next(i for i, o in enumerate(lines) if o["type"] == "episode" and "cello" in o["content"])
    lines[edited]["content"] = "I play the violin."
    target.write_text("".join(json.dumps(o) + "\n" for o in lines))
    other = _fresh(tmp_path / "other")
    try:
        report = other.import_history(target)
        reasons = [p["reason"] for p in report.problems]
        assert "does not match its sha256" in reasons[0] and "not found" in reasons[1]
        assert [e.content for e in other.episodes(limit=10)] == ["I live in Lisbon."]
        assert all("cello" not in m.text and "violin" not in m.text for m in other.memories())
        assert other.verify().ok
    finally:
        other.close()
