"""Forget one memory, keep the rest of its message: redaction removes the sentences that state it,
replaces the message with a new one (new id, new hash, the old one tombstoned, the ledger linking
both), keeps every other memory of the message with a quote that still verifies, and leaves no
byte of the removed sentence in the store file or its WAL."""

from __future__ import annotations

import json
from pathlib import Path

from support.fixtures import init_store, run_cli
from support.internals import store_of
from veramem_desktop.core.trust.quotes import locate

from veramem_desktop.keys import KeyManager
from veramem_desktop.memory import Memory
from veramem_desktop.pages import plaintext_of_store

DEMO = "Ana is visiting on Saturday. She is allergic to qxzpeanuts. I bought a new qxzkettle."


def _plaintext(mem: Memory) -> bytes:
    return plaintext_of_store(mem.store_path, KeyManager(mem.paths.keyinfo).load()).lower()


def _evidence(mem: Memory, memory_id: str) -> list[tuple[str, str, int, int]]:
    return [
        (r[0], r[1], int(r[2]), int(r[3]))
        for r in store_of(mem).query(
            "SELECT episode_id, quote, span_start, span_end FROM evidence WHERE memory_id = ?", (memory_id,)
        )
    ]


def _three(mem: Memory) -> tuple[str, list[str], str]:
    added = mem.add(DEMO, session_id="kitchen")
    ids = {a["text"]: a["id"] for a in added.added}
    ana = next(i for t, i in ids.items() if "visiting" in t)
    return ana, [i for i in ids.values() if i != ana], added.episodes[0].id


def test_redacting_a_memory_keeps_its_siblings_with_quotes_that_verify(mem: Memory) -> None:
    ana, siblings, old_ep = _three(mem)
    assert len(siblings) == 2
    full = mem.forget_preview(ana)
    assert set(siblings) <= set(full.memories)  # the full erasure takes the siblings too
    plan = mem.forget_preview(ana, redact=True)
    assert plan.memories == [ana] and plan.episodes == [old_ep]
    assert plan.redactions == [
        {"episode": old_ep, "kept": "She is allergic to qxzpeanuts. I bought a new qxzkettle."}
    ]
    report = mem.forget(ana, redact=True)
    assert len(report.redacted) == 1 and report.erased_memories == 1
    new_ep = report.redacted[0]
    episode = mem.reading.episode(new_ep)
    assert episode is not None and "Saturday" not in episode.content and mem.reading.episode(old_ep) is None
    for sibling in siblings:
        assert mem.get(sibling).status == "active"
        for episode_id, quote, start, end in _evidence(mem, sibling):
            assert episode_id == new_ep
            assert episode.content[start:end] == quote and locate(episode.content, quote) is not None
    assert mem.verify().ok
    assert run_cli("verify").returncode == 0  # the CLI, from another process
    # the removed sentence is unrecoverable: not in any decrypted page or WAL frame
    raw = _plaintext(mem)
    assert b"saturday" not in raw and b"qxzpeanuts" in raw and b"qxzkettle" in raw
    assert not [
        h for h in mem.search("Ana visiting Saturday", route="dual", k=50).results if "Saturday" in h.text
    ]
    assert [h for h in mem.search("qxzpeanuts", route="dual", k=10).results]


def test_the_ledger_links_the_new_message_to_the_one_it_replaces(mem: Memory) -> None:
    ana, siblings, old_ep = _three(mem)
    new_ep = mem.forget(ana, redact=True).redacted[0]
    entries = mem.reading.ledger_entries()
    added = [e for e in entries if e.op == "episode.add" and e.target_id == new_ep]
    assert len(added) == 1 and added[0].details.get("redacts") == old_ep
    assert [e for e in entries if e.op == "forget" and e.target_id == old_ep]
    moved = [e for e in entries if e.op == "memory.evidence" and e.details.get("redacts") == old_ep]
    assert {e.target_id for e in moved} == set(siblings)
    old_hash = store_of(mem).query_one("SELECT sha256 FROM episodes WHERE id = ?", (new_ep,))[0]
    assert old_hash and len(old_hash) == 64


def test_a_sibling_whose_quote_held_the_forgotten_sentence_goes_too(mem: Memory) -> None:
    added = mem.add("My sister Ana lives in Porto. I like tea.", session_id="s")
    ids = {a["text"]: a["id"] for a in added.added}
    porto = next(i for t, i in ids.items() if "Porto" in t)
    store = store_of(mem)
    # a second memory quoting across both sentences (as a model may quote)
    with store.atomic() as conn:
        from veramem_desktop.core.storage import items
        from veramem_desktop.core.storage.items import Evidence, MemoryItem

        text = "My sister Ana lives in Porto. I like tea."
        both = items.insert(
            conn,
            MemoryItem(
                id="",
                kind="fact",
                text="Ana lives in Porto and the user likes tea.",
                authority="authorized",
                user_id="me",
            ),
            [Evidence(added.episodes[0].id, text, 0, len(text), 1.0, "user")],
            device="test",
        ).id
    # (reach none: with the default it would go as a restatement, since its text says Porto)
    plan = mem.forget_preview(porto, redact=True, reach="none")
    assert both in plan.memories and both in plan.derived
    assert plan.redactions and plan.redactions[0]["kept"] == "I like tea."
    tea = next(i for t, i in ids.items() if "tea" in t)
    assert tea not in plan.memories
    mem.forget(porto, redact=True, reach="none")
    assert mem.get(tea).status == "active" and mem.verify().ok


def test_a_message_that_states_only_the_memory_is_erased_whole(mem: Memory) -> None:
    added = mem.add("My locker code is qxzlocker.", session_id="s")
    plan = mem.forget_preview(added.added[0]["id"], redact=True)
    assert plan.redactions == [] and plan.episodes == [added.episodes[0].id]
    report = mem.forget(added.added[0]["id"], redact=True)
    assert report.redacted == [] and report.erased_episodes == 1
    assert b"qxzlocker" not in _plaintext(mem)


def test_the_full_erasure_stays_the_default(mem: Memory) -> None:
    ana, siblings, old_ep = _three(mem)
    report = mem.forget(ana)
    assert report.redacted == [] and report.erased_memories == 3
    assert b"qxzpeanuts" not in _plaintext(mem)


def test_the_cli_redacts_with_a_flag_and_shows_what_stays(isolated_home: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("config", "set", "llm.backend", "rule-based").returncode == 0
    added = json.loads(run_cli("add", DEMO, "--session", "kitchen", "--json").stdout)
    ana = next(a["id"] for a in added["added"] if "visiting" in a["text"])
    shown = run_cli("forget", ana)
    assert "--redact" in shown.stdout  # the full erasure says what redaction would keep
    preview = run_cli("forget", ana, "--redact")
    assert "is replaced by what stays of it: She is allergic to qxzpeanuts." in preview.stdout
    done = run_cli("forget", ana, "--redact", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["report"]["redacted"]
    assert "qxzpeanuts" in run_cli("search", "qxzpeanuts", "--json").stdout
    assert run_cli("verify").returncode == 0
