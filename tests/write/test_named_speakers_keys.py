"""In a conversation of several people, each named speaker's first person is their own: Mel's "I live
in Boston" never supersedes the user's home or Caroline's, and two people saying the same thing are two
memories. The key is the engine's (core/write/derive.keyed_to_speaker), whatever extracted it."""

from __future__ import annotations

from veramem_desktop.memory import Memory


def _say(mem: Memory, content: str, name: str | None = None) -> object:
    return mem.add([{"role": "user", "content": content, **({"name": name} if name else {})}])


def test_the_users_new_home_does_not_supersede_a_named_speakers_home(rmem: Memory) -> None:
    (mel,) = _say(rmem, "I live in Boston.", name="Mel").added  # type: ignore[attr-defined]
    result = _say(rmem, "I live in Austin.")
    assert not result.updated and len(result.added) == 1, result  # type: ignore[attr-defined]
    assert rmem.history(mel["id"])[-1].status == "active"
    first = rmem.search("where does Mel live?").results[0]
    assert "Boston" in first.text and first.state in ("current", "raw")


def test_a_named_speakers_new_home_supersedes_only_their_own(rmem: Memory) -> None:
    (caroline,) = _say(rmem, "I live in Denver.", name="Caroline").added  # type: ignore[attr-defined]
    (mel,) = _say(rmem, "I live in Boston.", name="Mel").added  # type: ignore[attr-defined]
    (updated,) = _say(rmem, "I live in Chicago now.", name="Mel").updated  # type: ignore[attr-defined]
    assert updated["previous"] == mel["id"]
    assert rmem.history(caroline["id"])[-1].status == "active"


def test_two_people_saying_the_same_thing_in_one_add_are_two_memories(rmem: Memory) -> None:
    result = rmem.add(
        [
            {"role": "user", "name": "Caroline", "content": "I moved to Denver last year."},
            {"role": "user", "name": "Mel", "content": "I moved to Denver last year."},
        ]
    )
    texts = sorted(a["text"] for a in result.added)
    assert len(texts) == 2 and texts[0].startswith("Caroline") and texts[1].startswith("Mel"), result
