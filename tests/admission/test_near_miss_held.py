"""A near miss of a rejected value's skeleton is held: stored, withheld from agents, for a person to decide.

"Berlln" (one letter replaced) after rejecting "Berlin", "Porlamoo" (one added) after "Porlamo", a
swapped pair, and a look-alike character are held; a word further away and an unrelated sentence are
not. Real store, rule-based backend, real model.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.internals import store_of
from veramem_desktop.core.storage.rejections import variants

from veramem_desktop.memory import Memory


def _reject(mem: Memory, text: str, word: str) -> None:
    mem.add(text)
    [claim] = [m for m in mem.memories() if word in m.text]
    mem.review.reject(claim.id, "wrong")


def _withheld(mem: Memory, episode_id: str) -> str | None:
    row = store_of(mem).query_one(
        "SELECT reason FROM withheld WHERE owner_kind = 'episode' AND owner_id = ?", (episode_id,)
    )
    return None if row is None else str(row[0])


@pytest.mark.parametrize(
    ("rejected", "word", "later"),
    [
        ("I live in Berlin.", "Berlin", "I live in Berlln."),
        ("I live in Porlamo.", "Porlamo", "I live in Porlamoo."),
        ("I live in Porlamo.", "Porlamo", "I moved to Prolamo last year."),
        ("I live in Berlin.", "Berlin", "I live in Ber1in now."),
        ("I live in Wolverhampton.", "Wolverhampton", "I live in Wulverhamptn."),  # two edits
        ("I live in New York.", "New York", "I live in New Yrok these days."),  # a value of two words
    ],
)
def test_a_near_miss_of_a_rejected_value_is_held(rmem: Memory, rejected: str, word: str, later: str) -> None:
    _reject(rmem, rejected, word)
    [episode] = rmem.add(later).episodes
    assert _withheld(rmem, episode.id) in ("resembles", "rejected")
    found = rmem.search(later.rstrip(".")).results
    assert all(episode.id not in (h.id, getattr(h, "episode_id", None)) for h in found)
    assert all(later.split()[-1].rstrip(".") not in h.text for h in found)


@pytest.mark.parametrize(
    ("rejected", "word", "later"),
    [
        ("I live in Berlin.", "Berlin", "I caught a marlin on holiday."),  # two edits from a six-letter word
        ("I live in Berlin.", "Berlin", "I live in Lisbon."),
        ("I live in Porlamo.", "Porlamo", "The weather was lovely."),
    ],
)
def test_a_word_further_away_is_not_held(rmem: Memory, rejected: str, word: str, later: str) -> None:
    _reject(rmem, rejected, word)
    [episode] = rmem.add(later).episodes
    assert _withheld(rmem, episode.id) is None


def _levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


@settings(max_examples=300, deadline=None)
@given(st.text("abcdef", min_size=5, max_size=9), st.text("abcdef", min_size=3, max_size=11))
def test_variants_meet_exactly_within_the_edits_allowed(rejected: str, other: str) -> None:
    """The symmetric variant index never calls a word near when it is further than the allowed edits
    (Levenshtein; a swap of neighbours counts one), and finds every word one edit away."""
    allowed = 2 if len(rejected) >= 8 else 1
    stored = variants(rejected, allowed, swaps=True)
    best = min(
        (stored[v] + len(other) - len(v) for v in variants(other, allowed) if v in stored),
        default=None,
    )
    near = best is not None and best <= allowed
    distance = _levenshtein(rejected, other)
    swapped = any(
        rejected[:i] + rejected[i + 1] + rejected[i] + rejected[i + 2 :] == other
        for i in range(len(rejected) - 1)
    )
    if near:
        assert distance <= allowed or swapped
    if distance <= 1:
        assert near


def test_the_memories_of_a_held_message_are_held_with_it(rmem: Memory) -> None:
    _reject(rmem, "I live in Berlin.", "Berlin")
    [episode] = rmem.add("I live in Berlln and I love tea.").episodes
    store = store_of(rmem)
    taken = [
        r[0]
        for r in store.query("SELECT DISTINCT memory_id FROM evidence WHERE episode_id = ?", (episode.id,))
    ]
    assert taken, "the rule-based backend derives from the message"
    held = {
        r[0]
        for r in store.query(
            "SELECT owner_id FROM withheld WHERE owner_kind = 'memory' AND reason = 'resembles'"
        )
    }
    assert set(taken) <= held


def test_a_rejection_recorded_before_near_keys_existed_gets_them(rmem: Memory) -> None:
    from veramem_desktop.core.storage import meta, rejections

    _reject(rmem, "I live in Berlin.", "Berlin")
    store = store_of(rmem)
    with store.atomic() as conn:  # the store as a rejection before this change left it
        secret = bytes.fromhex(meta.get(conn, rejections.KEY_META) or "")
        near = rejections._digest(secret, rejections.NEAR_KEY[1])
        assert conn.execute("DELETE FROM rejected_values WHERE predicate = ?", (near,)).rowcount > 0
        meta.delete(conn, rejections.NEAR_BACKFILLED)
    [episode] = rmem.add("I live in Berlln.").episodes
    assert _withheld(rmem, episode.id) == "resembles"


def test_a_near_miss_stored_before_the_rejection_is_held_when_the_value_is_rejected(rmem: Memory) -> None:
    [early] = rmem.add("My cousin once lived in Porlamoo for a year.", session_id="a").episodes
    assert _withheld(rmem, early.id) is None
    rmem.add("I live in Porlamo.", session_id="c")
    [claim] = [m for m in rmem.memories() if "Porlamo" in m.text and "Porlamoo" not in m.text]
    rmem.review.reject(claim.id, "wrong")
    assert _withheld(rmem, early.id) == "resembles"
    [unrelated] = rmem.add("The weather was lovely in Lisbon.", session_id="b").episodes
    assert _withheld(rmem, unrelated.id) is None
