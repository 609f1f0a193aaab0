"""A bare correction naming a person corrects the speaker's newest memory whose value is a name, as one
naming a place does: after "My partner is Anna.", "Sorry, I meant Maria." or "I meant Maria, not Anna"
makes "User's partner is Maria." the current version and Anna its superseded earlier one, in two adds
or in one. A value the speaker gave of a relation ("User's partner …") is the speaker's own to
correct; another speaker's is never touched (core/write/correction_targets.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from veramem_desktop.core.llm import Candidate, Message, Reply
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

from veramem_desktop.memory import Memory


def _say(mem: Memory, content: str, name: str | None = None) -> Any:
    return mem.add([{"role": "user", "content": content, **({"name": name} if name else {})}])


def _partner_is_maria_after_anna(mem: Memory) -> None:
    (current,) = [m for m in mem.memories(limit=100) if "partner" in m.text]
    assert (current.text, current.value) == ("User's partner is Maria.", "Maria")
    (old, new) = mem.history(current.id)
    assert (old.status, old.value, new.status) == ("superseded", "Anna", "active")
    assert new.metadata["corrects"] == {"id": old.id, "wrong": "Anna"}
    hits = mem.search("Who is my partner?").results
    assert hits[0].state == "current" and "Maria" in hits[0].text, [(h.state, h.text) for h in hits]
    assert all(h.state != "current" for h in hits if h.id == old.id)
    assert "Anna" not in mem.answer("Who is my partner?").text.split("(")[0]


@pytest.mark.parametrize("fix", ["Sorry, I meant Maria.", "I meant Maria, not Anna."])
def test_a_correction_naming_a_person_corrects_the_partners_name_in_a_later_add(
    rmem: Memory, fix: str
) -> None:
    _say(rmem, "My partner is Anna.")
    done = _say(rmem, fix)
    assert not done.added and len(done.updated) == 1, done
    _partner_is_maria_after_anna(rmem)


@pytest.mark.parametrize("fix", ["Sorry, I meant Maria.", "I meant Maria, not Anna."])
def test_a_correction_naming_a_person_corrects_the_partners_name_in_the_same_add(
    rmem: Memory, fix: str
) -> None:
    _say(rmem, f"My partner is Anna. {fix}")
    _partner_is_maria_after_anna(rmem)


def test_i_meant_a_name_skips_a_newer_memory_whose_value_is_no_name(rmem: Memory) -> None:
    _say(rmem, "My partner is Anna.")
    _say(rmem, "I like tea.")
    _say(rmem, "Sorry, I meant Maria.")
    _partner_is_maria_after_anna(rmem)
    assert [m.text for m in rmem.memories(limit=100) if "tea" in m.text] == ["User likes tea."]


def test_a_users_bare_correction_never_corrects_another_speakers_partner(rmem: Memory) -> None:
    (mels,) = _say(rmem, "My partner is Anna.", name="Mel").added
    done = _say(rmem, "Sorry, I meant Maria.")
    assert not done.updated and rmem.get(mels["id"]).status == "active", done


def test_a_bare_correction_prefers_the_speakers_own_value_to_a_relations(rmem: Memory) -> None:
    (mine,) = _say(rmem, "I moved to Lisbon.").added
    (sisters,) = _say(rmem, "My sister loves Lisbon.").added
    (updated,) = _say(rmem, "Not Lisbon — Porto.").updated
    assert updated["previous"] == mine["id"] and updated["text"] == "User moved to Porto."
    assert rmem.get(sisters["id"]).status == "active"


@pytest.mark.parametrize(
    "adds",
    [
        ["My partner is Anna. I moved to Lisbon."],
        ["My partner is Anna. I moved to Lisbon. Sorry, I meant Maria."],
    ],
)
def test_i_meant_a_name_after_two_names_said_together_corrects_neither(rmem: Memory, adds: list[str]) -> None:
    """Which of Anna and Lisbon "Maria" replaces, the words do not say: a guess would write "User moved to
    Maria."; both stay as they were, and the words "I meant Maria" stay findable in the message."""
    for content in adds:
        _say(rmem, content)
    done = _say(rmem, "Sorry, I meant Maria.") if len(adds) == 1 else None
    assert done is None or (
        not done.updated and not done.added and "which stored memory" in done.notices[0]
    ), done
    texts = {m.text for m in rmem.memories(limit=100) if m.status == "active"}
    assert {"User's partner is Anna.", "User moved to Lisbon."} <= texts
    assert not any("Maria" in t for t in texts), texts  # no "User moved to Maria.", no "User meant Maria."
    assert any("I meant Maria" in h.text for h in rmem.search("Maria").results)
    assert all(len(rmem.history(m.id)) == 1 for m in rmem.memories(limit=100) if m.status == "active")


class ResolvingModel(RuleBasedLLM):
    """Rule-based, except that it reads "I meant Maria" in context, as a model would: "User's partner is
    Maria." (with no key)."""

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> Reply[list[Candidate]]:
        said = [m for m in messages if "I meant Maria" in m.content]
        if not said:
            return super().extract(messages, context)
        return Reply([Candidate(said[0].id, "Sorry, I meant Maria.", "User's partner is Maria.")])


def test_a_models_reading_of_a_bare_correction_that_says_more_is_kept(isolated_home: Path) -> None:
    mem, _ = Memory.create(
        isolated_home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), llm=ResolvingModel()
    )
    with mem:
        _say(mem, "My partner is Anna. I moved to Lisbon.")
        done = _say(mem, "Sorry, I meant Maria.")
        assert [a["text"] for a in done.added] + [u["text"] for u in done.updated] == [
            "User's partner is Maria."
        ]
