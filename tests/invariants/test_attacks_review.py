"""Attacks from the review of issue 30 that once got through, each held by the mechanism it went around.

A real SQLCipher store, the real embedder, the rule-based backend (the ``rmem`` fixture).
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.internals import store_of
from veramem_desktop.core.errors import NotFoundError

from veramem_desktop.memory import Memory

SECRET = "I moved to Valparaiso in March 2023."
WHEN = "2023-03-05T10:00:00Z"


def _holding(mem: Memory, words: str) -> int:
    store = store_of(mem)
    eps = store.query("SELECT count(*) FROM episodes WHERE content LIKE ?", (f"%{words}%",))[0][0]
    mems = store.query("SELECT count(*) FROM memory_items WHERE text LIKE ?", (f"%{words}%",))[0][0]
    return int(eps) + int(mems)


@pytest.mark.parametrize(
    "variant",
    [
        "I moved to V\u0430lparaiso in March 2023.",  # a Cyrillic a
        "I moved to Valparai\u0301so in March 2023.",  # an accent added
        "I moved to Valpara\u00edso in March 2023.",  # the accented letter itself
    ],
    ids=["cyrillic", "combining-accent", "precomposed-accent"],
)
def test_a_forgotten_message_in_look_alike_letters_at_its_time_is_refused(
    rmem: Memory, tmp_path: Path, variant: str
) -> None:
    """The same message, re-imported from a file edited to spell it with look-alike letters (and so
    under a new import key), is the same message: the gate's marks compare the confusable skeleton."""
    first = tmp_path / "first.jsonl"
    first.write_text(json.dumps({"role": "user", "content": SECRET, "time": WHEN}) + "\n")
    rmem.import_history(first)
    [(episode_id,)] = store_of(rmem).query("SELECT id FROM episodes")
    rmem.forget(episode_id)
    edited = tmp_path / "edited.jsonl"
    edited.write_text(json.dumps({"role": "user", "content": variant, "time": WHEN}) + "\n")
    report = rmem.import_history(edited)
    assert report.stored == 0 and report.forgotten == 1
    assert store_of(rmem).query("SELECT count(*) FROM episodes")[0][0] == 0


def test_a_pin_after_the_expiry_brings_nothing_back(rmem: Memory) -> None:
    """Before the sweep runs, an expired memory still has its row; pinning it then revived it (a pinned
    memory never expires) and printed its text. It is not found, as after the sweep."""
    until = (datetime.now(UTC) + timedelta(seconds=1)).isoformat()
    added = rmem.add("My temporary door code is Qdoorcode for the flat.", session_id="x", until=until)
    memory = added.added[0]["id"]
    time.sleep(max(0.0, (datetime.fromisoformat(until) - datetime.now(UTC)).total_seconds()) + 0.1)
    assert store_of(rmem).query_one("SELECT count(*) FROM memory_items WHERE id = ?", (memory,)) == (1,)

    with pytest.raises(NotFoundError):
        rmem.curation.set_pinned(memory, True)
    assert not any("Qdoorcode" in h.text for h in rmem.search("door code", route="dual").results)
    assert _holding(rmem, "Qdoorcode") == 0  # the search's sweep erased it: the pin kept nothing


def _agent_sees(mem: Memory, words: str) -> bool:
    agent = mem.caller(agent_id="cursor")
    hits = mem.search(words, route="dual", agent_id="cursor", k=50).results
    shown = [e.content for e in mem.reading.episodes_seen_by(agent, limit=100)]
    return any("rlin" in h.text.replace(" ", "").replace("-", "") for h in hits) or any(
        "rlin" in s.replace(" ", "").replace("-", "") for s in shown
    )


@pytest.mark.parametrize(
    "text",
    [
        "I live in Be rlin now.",
        "I live in B e r l i n now.",
        "I live in B-e-r-l-i-n now.",
        "I live in Ber lln now.",
    ],
    ids=["split", "letter-spaced", "hyphenated", "split-and-misspelt"],
)
@pytest.mark.parametrize("when", ["after", "before"])
def test_a_rejected_value_written_apart_is_held(rmem: Memory, text: str, when: str) -> None:
    """'Berlin' rejected, then written with its letters apart: no word of the text is near 'berlin', so
    neither the exact keys nor the near keys saw it, and agents read it. Glued back, the run is the value
    (or a near miss of it): held, whether the text comes after the rejection or was there before it."""
    if when == "before":
        rmem.add(text, session_id="t")
    stated = rmem.add("I live in Berlin.", session_id="s")
    rmem.review.reject((stated.added or stated.updated)[0]["id"], "wrong")
    if when == "after":
        rmem.add(text, session_id="t")
    assert not _agent_sees(rmem, "where do I live")
    assert not _agent_sees(rmem, text)


def test_words_that_only_glue_into_something_else_are_not_held(rmem: Memory) -> None:
    claim = rmem.add("I live in Berlin.", session_id="s").added[0]
    rmem.review.reject(claim["id"], "wrong")
    added = rmem.add("I bought a new bike in March.", session_id="t")
    assert not store_of(rmem).query("SELECT 1 FROM withheld WHERE owner_id = ?", (added.episodes[0].id,))


@pytest.mark.parametrize("echo", ["Noted: L i s b o n since March.", "Noted: Lis bon since March."])
def test_forget_reaches_a_restatement_written_apart(rmem: Memory, echo: str) -> None:
    """The assistant's echo of a forgotten memory, its value's letters written apart, stayed (with the
    memory drawn from it) while the plain echo went: the restatement search reads split runs too."""
    added = rmem.add(
        [{"role": "user", "content": "I moved to Lisbon in March."}, {"role": "assistant", "content": echo}],
        session_id="s",
    )
    [mine] = [a["id"] for a in added.added if a["text"].startswith("User") and "Lisbon" in a["text"]]
    plan = rmem.forget_preview(mine)
    assert plan.restatements  # listed before the person confirms
    rmem.forget(mine)
    assert [e.content for e in rmem.episodes(limit=50)] == []
    assert [m.text for m in rmem.memories(status=None, limit=50)] == []
