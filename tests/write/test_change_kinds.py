"""A change is recognised however it is said (issue 29): each kind of wording, through the real write
path (rule-based extractor, real embedder, real SQLCipher store), becomes a new version of the right
attribute of the right person, with validity from the message's time.

The sentences are this file's own, none of them from the bench data. Each test fails on the pattern
list the keys had before (models/llm/rules/keys.py): none of these wordings got a key there.
"""

from __future__ import annotations

from support.versions import current as _current
from support.versions import say as _say
from support.versions import versions as _versions

from veramem_desktop.memory import Memory


def test_a_change_said_without_i_becomes_the_new_version(rmem: Memory) -> None:
    _say(rmem, "I work at Brindle Labs.", "2025-01-10T09:00:00Z")
    _say(rmem, "Joined Tidewell Analytics on Monday.", "2025-03-05T18:00:00Z")
    versions = _versions(rmem, "user", "works_at")
    assert [(v.status, v.value) for v in versions] == [
        ("superseded", "Brindle Labs"),
        ("active", "Tidewell Analytics"),
    ]
    assert versions[1].valid_from.startswith("2025-03-05") and (versions[0].valid_to or "").startswith(
        "2025-03-05"
    )


def test_an_ending_said_without_i_retracts_what_it_ends(rmem: Memory) -> None:
    (learning,) = _say(rmem, "I'm learning Portuguese.", "2025-01-10T09:00:00Z").added
    done = _say(rmem, "Gave up on Portuguese last month.", "2025-04-02T09:00:00Z")
    assert [r["id"] for r in done.retracted] == [learning["id"]], done
    assert _current(rmem, "user", "languages_learning") == []


def test_we_is_the_speaker(rmem: Memory) -> None:
    _say(rmem, "I live in Ghent.", "2025-01-10T09:00:00Z")
    _say(rmem, "We've just moved to Utrecht!", "2025-06-01T09:00:00Z")
    assert _current(rmem, "user", "lives_in") == ["Utrecht"]


def test_words_no_pattern_had_still_change_the_attribute(rmem: Memory) -> None:
    _say(rmem, "My boss is Ingrid.", "2025-01-10T09:00:00Z")
    _say(rmem, "The new boss is Oyelaran, and she seems sharp.", "2025-02-10T09:00:00Z")
    assert _current(rmem, "user", "relation:boss") == ["Oyelaran"]

    _say(rmem, "I work at Brindle Labs.", "2025-01-10T09:00:00Z")
    _say(rmem, "Handed in my notice at Brindle Labs today.", "2025-02-11T09:00:00Z")
    assert _current(rmem, "user", "works_at") == []

    _say(rmem, "My grandfather is Albert.", "2025-01-10T09:00:00Z")
    _say(rmem, "My grandfather Albert passed away on Sunday.", "2025-02-12T09:00:00Z")
    assert _current(rmem, "user", "relation:grandfather") == []

    _say(rmem, "Moved in with Tomasz in March.", "2025-03-20T09:00:00Z")
    assert _current(rmem, "user", "lives_with") == ["Tomasz"]


def test_an_implied_change_names_the_new_value_through_the_new_thing(rmem: Memory) -> None:
    _say(rmem, "I live in Ghent.", "2025-01-10T09:00:00Z")
    _say(rmem, "Loving the new apartment, the canals in Delft are lovely.", "2025-05-01T09:00:00Z")
    assert _current(rmem, "user", "lives_in") == ["Delft"]


def test_another_persons_change_is_theirs_never_the_users(rmem: Memory) -> None:
    _say(rmem, "I work at Brindle Labs.", "2025-01-10T09:00:00Z")
    _say(rmem, "My brother took a job at Copperline.", "2025-02-10T09:00:00Z")
    assert _current(rmem, "user", "works_at") == ["Brindle Labs"]
    assert _current(rmem, "user's brother", "works_at") == ["Copperline"]


def test_the_old_value_said_in_the_past_is_history_and_does_not_come_back(rmem: Memory) -> None:
    _say(rmem, "I use Vim.", "2025-01-10T09:00:00Z")
    _say(rmem, "I switched my editor to Helix.", "2025-02-10T09:00:00Z")
    _say(rmem, "Back when I still used Vim, my setup was a mess.", "2025-03-10T09:00:00Z")
    assert _current(rmem, "user", "editor") == ["Helix"]
    first = rmem.search("Which editor do I use?").results[0]
    assert "Helix" in first.text and first.state == "current", first


def test_two_changes_give_three_versions_in_time_order(rmem: Memory) -> None:
    _say(rmem, "I live in Ghent.", "2024-02-01T09:00:00Z")
    _say(rmem, "We moved to Utrecht in the spring.", "2024-05-01T09:00:00Z")
    _say(rmem, "Just relocated to Leiden for the new job.", "2025-01-15T09:00:00Z")
    versions = _versions(rmem, "user", "lives_in")
    assert [(v.status, v.value) for v in versions] == [
        ("superseded", "Ghent"),
        ("superseded", "Utrecht"),
        ("active", "Leiden"),
    ]
    assert [v.valid_from[:10] for v in versions] == ["2024-02-01", "2024-05-01", "2025-01-15"]


def test_a_new_personal_record_replaces_the_old_one(rmem: Memory) -> None:
    _say(rmem, "Set a new 10k record this morning: 46:02.", "2025-01-10T09:00:00Z")
    _say(rmem, "Set a new 10k record today: 44:10!", "2025-04-10T09:00:00Z")
    assert _current(rmem, "user", "personal_best") == ["44:10"]
