"""What people say becomes memories with the right subject (issue 18, part 1), through the SDK with the
rule-based backend and the real embedder: world facts, plans, preferences with reasons, relationships,
third-person claims about the user, a document's first person, and notices for what is skipped."""

from __future__ import annotations

import pytest
from veramem_desktop.core.write.results import AddResult

from veramem_desktop.memory import Memory


def _msg(
    content: str, role: str = "user", name: str | None = None, time: str = "2024-05-08T10:00:00Z"
) -> dict:
    return {"role": role, "content": content, "time": time, **({"name": name} if name else {})}


def _texts(mem: Memory, result: AddResult) -> list[str]:
    return [mem.get(a["id"]).text for a in result.added]


def test_a_documents_first_person_is_its_authors_never_its_file_names(rmem: Memory) -> None:
    result = rmem.adding.add_document("I live in Porto.", name="notes.md")
    (item,) = [rmem.get(a["id"]) for a in result.added]
    assert item.text == "According to document notes.md: The document's author lives in Porto."
    assert "Notes.md" not in item.text and item.subject is None  # not a key of the user's either


def test_a_documents_byline_names_its_author(rmem: Memory) -> None:
    result = rmem.adding.add_document(
        "Author: Ana Lopez\n\nI moved to Lyon in 2021.", name="about.md", user_id="u2"
    )
    assert "According to document about.md: Ana Lopez moved to Lyon in 2021." in _texts(rmem, result)


@pytest.mark.parametrize(
    "fact", ["Tomatoes need six hours of sun.", "Owls hunt at night.", "Copper conducts heat well."]
)
def test_a_general_fact_about_the_world_becomes_a_memory(rmem: Memory, fact: str) -> None:
    result = rmem.add([_msg(fact)])
    assert _texts(rmem, result) == [fact] and rmem.get(result.added[0]["id"]).subject is None


@pytest.mark.parametrize("role", ["tool", "assistant"])
def test_a_third_person_claim_about_the_user_has_the_user_as_subject_and_its_conflict_is_recorded(
    rmem: Memory, role: str
) -> None:
    said = rmem.add([_msg("I live in Porto.")]).added[0]["id"]
    result = rmem.add([_msg("The user lives in Madrid.", role=role, name="crm" if role == "tool" else None)])
    claim = rmem.get(result.added[0]["id"])
    assert (claim.subject, claim.predicate, claim.value) == ("user", "lives_in", "Madrid")
    assert claim.text.endswith(": User lives in Madrid.") and said in claim.metadata["conflicts_with"]
    assert rmem.get(said).status == "active" and "Porto" in rmem.get(said).text


def test_what_gives_no_memory_is_reported_in_the_notices_with_the_reason(rmem: Memory) -> None:
    result = rmem.add([_msg("Hi there! How are you doing? I'm planning to visit Japan next spring.")])
    assert _texts(rmem, result) == ["User is planning to visit Japan next spring."]
    (notice,) = [n for n in result.notices if "gave no memory" in n]
    assert '"How are you doing?" (a question)' in notice and '"Hi there!"' in notice
    quiet = rmem.add([_msg("I work at Tessera.", time="2024-05-09T10:00:00Z")])
    assert not [n for n in quiet.notices if "gave no memory" in n]


def test_a_preference_keeps_its_reason_and_its_key(rmem: Memory) -> None:
    result = rmem.add([_msg("I prefer trains to planes because I can work on the way.")])
    item = rmem.get(result.added[0]["id"])
    assert item.text == "User prefers trains to planes because User can work on the way."
    assert (item.subject, item.predicate, item.value) == ("user", "preference:plan/train", "trains")


@pytest.mark.parametrize(
    ("content", "role"),
    [
        ("Ana is my sister.", "user"),
        ("I have a sister named Ana.", "user"),
        ("The user's sister is Ana.", "tool"),
        ("Ana is your sister.", "assistant"),
    ],
)
def test_a_relationship_however_worded_gets_the_users_relation_key(
    rmem: Memory, content: str, role: str
) -> None:
    item = rmem.get(
        rmem.add([_msg(content, role=role, name="crm" if role == "tool" else None)]).added[0]["id"]
    )
    assert (item.subject, item.predicate, item.value) == ("user", "relation:sister", "Ana")


def test_a_reply_is_remembered_with_the_question_it_answers(rmem: Memory) -> None:
    result = rmem.add(
        [_msg("Where do you usually work?", role="assistant"), _msg("Mostly from home, which I love.")]
    )
    assert _texts(rmem, result) == [
        "Mostly from home, which User loves. (in reply to Assistant: Where do you usually work?)"
    ]


def test_a_named_speakers_statement_names_them_when_its_words_do_not(rmem: Memory) -> None:
    result = rmem.add([_msg("The kids were scared but we explained everything.", name="Melanie")])
    assert _texts(rmem, result) == ["Melanie said: The kids were scared but we explained everything."]


def test_a_tools_labelled_line_is_kept_worded_about_the_user_and_its_conflict_recorded(rmem: Memory) -> None:
    said = rmem.add([_msg("I live in Porto.")]).added[0]["id"]
    result = rmem.add([_msg("Home: Madrid", role="tool", name="crm")])
    claim = rmem.get(result.added[0]["id"])
    assert claim.text == "According to tool crm: User's home: Madrid."
    assert (claim.subject, claim.predicate, claim.value) == ("user", "lives_in", "Madrid")
    assert said in claim.metadata["conflicts_with"]
