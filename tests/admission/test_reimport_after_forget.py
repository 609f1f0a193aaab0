"""The admission gate keeps forget: a forgotten episode brought again by any import is refused and said.

Each test imports a source, forgets one of its messages, imports the same source again and asks that
nothing was stored, that the report counts and names the skip, and that the words are nowhere in the
store. A real SQLCipher store with the real embedding model and the rule-based backend.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.internals import store_of
from veramem_desktop.core.lifecycle import forget as forget_mod

from veramem_desktop.memory import Memory

SECRET = "My locker code at the climbing gym is 4471."
OTHER = "We talked about the weather in Porto."
TODAY = datetime.now(UTC).date().isoformat()


def _chatgpt(folder: Path) -> Path:
    turns = [("user", SECRET), ("assistant", "Noted."), ("user", OTHER)]
    mapping: dict[str, dict[str, object]] = {
        "root": {"id": "root", "message": None, "parent": None, "children": []}
    }
    parent = "root"
    for i, (role, text) in enumerate(turns):
        node = f"n{i}"
        mapping[node] = {
            "id": node,
            "parent": parent,
            "children": [],
            "message": {
                "id": f"m{i}",
                "author": {"role": role},
                "create_time": 1_700_000_000 + 60 * i,
                "content": {"content_type": "text", "parts": [text]},
            },
        }
        mapping[parent]["children"].append(node)  # type: ignore[attr-defined]
        parent = node
    conv = {
        "title": "gym",
        "create_time": 1_700_000_000,
        "mapping": mapping,
        "current_node": parent,
        "id": "c1",
    }
    path = folder / "conversations.json"
    path.write_text(json.dumps([conv]))
    return path


def _json_list(folder: Path) -> Path:
    path = folder / "messages.json"
    path.write_text(json.dumps([{"role": "user", "content": SECRET}, {"role": "user", "content": OTHER}]))
    return path


def _markdown(folder: Path) -> Path:
    notes = folder / "notes"
    notes.mkdir()
    (notes / "gym.md").write_text(SECRET + "\n")
    (notes / "weather.md").write_text(OTHER + "\n")
    return notes


def _holding(mem: Memory, words: str) -> int:
    """How many episodes and memories of the store hold ``words`` (any state, read straight from the store)."""
    store = store_of(mem)
    eps = store.query("SELECT count(*) FROM episodes WHERE content LIKE ?", (f"%{words}%",))[0][0]
    mems = store.query("SELECT count(*) FROM memory_items WHERE text LIKE ?", (f"%{words}%",))[0][0]
    return int(eps) + int(mems)


def _forget_secret(mem: Memory) -> None:
    store = store_of(mem)
    [(episode_id,)] = store.query("SELECT id FROM episodes WHERE content LIKE '%locker code%'")
    mem.forget(episode_id)
    assert _holding(mem, "locker code") == 0


@pytest.mark.parametrize(
    "make", [_chatgpt, _json_list, _markdown], ids=["chatgpt", "json-list", "markdown-folder"]
)
def test_reimport_after_forget_stores_nothing_and_says_so(
    rmem: Memory, tmp_path: Path, make: Callable[[Path], Path]
) -> None:
    source = make(tmp_path)
    first = rmem.import_history(source)
    assert first.stored >= 2 and _holding(rmem, "locker code") >= 1
    _forget_secret(rmem)
    again = rmem.import_history(source)
    assert again.stored == 0
    assert again.forgotten == 1
    assert f"1 skipped: you forgot it on {TODAY}" in again.notices
    assert again.to_dict()["forgotten"] == 1
    assert _holding(rmem, "locker code") == 0
    assert not any("locker" in h.text for h in rmem.search("locker code climbing gym").results)


def test_memory_export_made_before_the_forget_brings_nothing_back(rmem: Memory, tmp_path: Path) -> None:
    rmem.add([SECRET, OTHER], session_id="s")
    assert _holding(rmem, "locker code") >= 2  # the message and its memory
    export = tmp_path / "memories.jsonl"
    rmem.importer.export_memories(export)
    _forget_secret(rmem)
    report = rmem.import_history(export)
    assert _holding(rmem, "locker code") == 0
    assert report.forgotten >= 1 and any("you forgot" in n for n in report.notices)


def test_a_memory_export_into_a_store_that_forgot_by_marks_only_is_refused(
    rmem: Memory, tmp_path: Path
) -> None:
    """The same episode under another id (exported from a device that imported the same file) is
    recognised by its marks, not its id."""
    source = _chatgpt(tmp_path)
    rmem.import_history(source)
    export = tmp_path / "memories.jsonl"
    rmem.importer.export_memories(export)
    lines = [json.loads(line) for line in export.read_text().splitlines()]
    renamed = json.dumps(lines).replace("ep_", "ep_X")  # every episode id changed, evidence with it
    _forget_secret(rmem)
    moved = tmp_path / "moved.jsonl"
    moved.write_text("\n".join(json.dumps(o) for o in json.loads(renamed)) + "\n")
    report = rmem.import_history(moved)
    assert _holding(rmem, "locker code") == 0
    assert report.forgotten >= 1


def test_the_same_words_typed_later_are_new_and_stored(rmem: Memory, tmp_path: Path) -> None:
    rmem.import_history(_json_list(tmp_path))
    _forget_secret(rmem)
    result = rmem.add(SECRET)
    assert len(result.episodes) == 1 and result.forgotten == 0
    assert _holding(rmem, "locker code") >= 1


def test_an_add_bringing_the_forgotten_message_back_with_its_time_is_refused(rmem: Memory) -> None:
    stored = rmem.add({"role": "user", "content": SECRET, "time": "2024-03-01T10:00:00Z"}).episodes
    rmem.forget(stored[0].id)
    result = rmem.add([{"role": "user", "content": SECRET, "time": "2024-03-01T10:00:00Z"}, OTHER])
    assert [e.content for e in result.episodes] == [OTHER]
    assert result.forgotten == 1 and result.to_dict()["skipped_forgotten"] == 1
    assert any(n.startswith("1 skipped: you forgot it on ") for n in result.notices)
    assert _holding(rmem, "locker code") == 0


def test_include_forgotten_stores_again_and_the_ledger_says_so(rmem: Memory, tmp_path: Path) -> None:
    source = _chatgpt(tmp_path)
    rmem.import_history(source)
    _forget_secret(rmem)
    report = rmem.import_history(source, include_forgotten=True)
    assert report.stored == 1 and report.forgotten == 0
    store = store_of(rmem)
    [(episode_id,)] = store.query("SELECT id FROM episodes WHERE content LIKE '%locker code%'")
    ops = [e.op for e in rmem.reading.ledger_entries(target_id=episode_id)]
    assert "admission.override" in ops
    assert rmem.verify().ok


def test_expiry_keeps_no_marks_so_the_source_may_bring_it_again(rmem: Memory, tmp_path: Path) -> None:
    """Expiry is a schedule, not a refusal: an expired message's source may bring it again."""
    source = _json_list(tmp_path)
    rmem.import_history(source)
    [(episode_id,)] = store_of(rmem).query("SELECT id FROM episodes WHERE content LIKE '%locker code%'")
    forget_mod.forget(store_of(rmem), episode_id, device="dev_local", reason="expired")  # as the sweep does
    assert _holding(rmem, "locker code") == 0
    assert store_of(rmem).query("SELECT count(*) FROM forget_marks")[0][0] == 0
    assert rmem.import_history(source).stored == 1


def _second_store(home: Path) -> Memory:
    from support.fixtures import PASSPHRASE

    from veramem_desktop.config import Config

    config = Config()
    config.llm.backend = "rule-based"
    mem, _ = Memory.create(home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    return mem


def test_a_memory_export_edited_to_say_verified_and_authorized_comes_in_as_a_candidate_with_its_source(
    rmem: Memory, tmp_path: Path
) -> None:
    rmem.add({"role": "tool", "name": "search", "content": "The city museum opens at 9am on Sundays."})
    [claim] = [m for m in rmem.memories() if "museum" in m.text]
    assert claim.text.startswith("According to tool search") and claim.authority == "unendorsed"
    export = tmp_path / "memories.jsonl"
    rmem.importer.export_memories(export)
    edited = []
    for line in export.read_text().splitlines():
        obj = json.loads(line)
        for version in obj.get("versions", []):
            version["trust"], version["authority"] = "verified", "authorized"
            version["text"] = version["text"].split(": ", 1)[-1]  # into the user's voice
        edited.append(json.dumps(obj))
    export.write_text("\n".join(edited) + "\n")
    other = _second_store(tmp_path / "other")
    try:
        report = other.import_history(export)
        [imported] = [m for m in other.memories() if "museum" in m.text]
        assert imported.id == claim.id
        assert imported.trust == "candidate" and imported.authority == "unendorsed"
        assert imported.text.startswith("According to tool search: ")
        assert any("kept as 'candidate'" in n for n in report.notices)
        assert other.verify().ok
    finally:
        other.close()


def test_a_memory_this_store_approved_keeps_verified_through_its_own_export(
    rmem: Memory, tmp_path: Path
) -> None:
    rmem.add("I live in Lisbon.")
    [fact] = [m for m in rmem.memories() if "Lisbon" in m.text]
    rmem.review.approve(fact.id)
    export = tmp_path / "memories.jsonl"
    rmem.importer.export_memories(export)
    rmem.forget(fact.id)
    report = rmem.import_history(export, include_forgotten=True)
    [back] = [m for m in rmem.memories() if "Lisbon" in m.text]
    assert back.trust == "verified", report.notices


def test_a_memory_export_cannot_bring_a_rejected_value_back_under_new_ids(
    rmem: Memory, tmp_path: Path
) -> None:
    rmem.add("I live in Porlamo.", session_id="s")
    export = tmp_path / "memories.jsonl"
    rmem.importer.export_memories(export)
    [claim] = [m for m in rmem.memories() if "Porlamo" in m.text]
    rmem.review.reject(claim.id, "wrong")
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_text(export.read_text().replace("mem_", "mem_Z").replace("ep_", "ep_Z"))
    report = rmem.import_history(renamed)
    assert any("restates a value you rejected" in n for n in report.notices)
    store = store_of(rmem)
    assert store.query("SELECT count(*) FROM memory_items WHERE id LIKE 'mem_Z%'")[0][0] == 0
    new_eps = [r[0] for r in store.query("SELECT id FROM episodes WHERE id LIKE 'ep_Z%'")]
    held = {r[0] for r in store.query("SELECT owner_id FROM withheld WHERE owner_kind = 'episode'")}
    assert set(new_eps) <= held
    assert not any("Porlamo" in h.text for h in rmem.search("where do I live Porlamo").results)
