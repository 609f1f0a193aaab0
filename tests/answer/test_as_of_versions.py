"""A question naming a time is answered with the version that held then, even when relevance found only
what holds now: the answer path adds the messages that stated the memory's other versions (a replaced
memory is never a search hit; its message is)."""

from __future__ import annotations

from veramem_desktop.memory import Memory


def _said(mem: Memory, text: str, day: str) -> None:
    mem.add([{"role": "user", "content": text, "time": f"{day}T12:00:00+00:00"}])


def test_the_version_valid_then_answers_though_relevance_found_only_the_current_one(mem: Memory) -> None:
    _said(mem, "My dentist is Dr Okafor.", "2021-04-02")
    _said(mem, "My dentist is Dr Lindqvist now.", "2024-08-19")
    versions = mem.history(mem.search("dentist", k=1).results[0].id)
    assert len(versions) == 2  # the write path recorded the change
    said = mem.answer("Who was my dentist in May 2023?", k=1)
    assert not said.abstained and "versions" in said.ladder
    assert said.text.index("Okafor") < (
        said.text.index("Lindqvist") if "Lindqvist" in said.text else len(said.text)
    )
    assert mem.answer("Who is my dentist?", k=1).text.startswith("Your dentist is Dr Lindqvist")
