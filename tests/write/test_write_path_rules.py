"""The same write-path behaviours with no LLM at all: the rule-based backend and the real embedder."""

from __future__ import annotations

from veramem_desktop.memory import Memory


def _msg(
    content: str, role: str = "user", time: str = "2024-05-08T10:00:00Z", name: str | None = None
) -> dict:
    return {"role": role, "content": content, "time": time, **({"name": name} if name else {})}


def test_quotes_are_exact_and_evidence_points_at_them(rmem: Memory) -> None:
    result = rmem.add([_msg("Hello! I am allergic to peanuts. What should I cook tonight?")])
    (added,) = result.added
    detail = rmem.reading.detail(added["id"])
    ev = detail.evidence[0]
    assert ev.quote == "I am allergic to peanuts."
    assert ev.episode.content[ev.span_start : ev.span_end] == ev.quote and ev.score == 1.0


def test_a_tool_claim_is_unendorsed_and_attributed(rmem: Memory) -> None:
    result = rmem.add([_msg("Flight LX123 departs at 10:40 from gate B7.", role="tool", name="flights")])
    item = rmem.get(result.added[0]["id"])
    assert item.authority == "unendorsed" and item.text.startswith("According to tool flights: ")


def test_a_document_claim_is_unendorsed_and_attributed_to_the_file(rmem: Memory) -> None:
    doc = "The office moved to 12 Harbour Street in 2023.\n\nThe wifi network is called Gull."
    result = rmem.adding.add_document(doc, name="notes.md")
    assert {e.role for e in result.episodes} == {"document"}
    texts = [rmem.get(a["id"]).text for a in result.added]
    assert texts and all(t.startswith("According to document notes.md: ") for t in texts)


def test_an_update_keeps_history_and_as_of_returns_the_old_value(rmem: Memory) -> None:
    first = rmem.add([_msg("I live in Lisbon.", time="2024-01-01T09:00:00Z")]).added[0]["id"]
    result = rmem.add([_msg("I live in Porto.", time="2024-06-01T09:00:00Z")])
    assert result.updated and result.updated[0]["previous"] == first
    chain = rmem.history(result.updated[0]["id"])
    assert [v.status for v in chain] == ["superseded", "active"]
    # Validity is in the messages' time, not the wall clock: imported history answers as-of questions right.
    assert "Lisbon" in rmem.history(first, as_of="2024-03-01")[0].text
    assert "Porto" in rmem.history(first, as_of="2024-09-01")[0].text
    assert chain[0].valid_to == chain[1].valid_from and chain[1].valid_from.startswith("2024-06-01T09:00:00")
    ids = [h.id for h in rmem.search("where does the user live?").results]
    assert chain[1].id in ids and first not in ids


def test_a_repeated_statement_is_noop_plus_evidence(rmem: Memory) -> None:
    first = rmem.add([_msg("I am allergic to peanuts.")]).added[0]["id"]
    again = rmem.add([_msg("I am allergic to peanuts.", time="2024-06-01T09:00:00Z")])
    assert not again.added and again.unchanged[0]["id"] == first
    assert len(rmem.reading.detail(first).evidence) == 2


def test_a_negation_retracts_and_delete_plus_add_becomes_update(rmem: Memory) -> None:
    first = rmem.add([_msg("I live in Lisbon.")]).added[0]["id"]
    result = rmem.add([_msg("I no longer live in Lisbon. I live in Porto.", time="2024-06-01T09:00:00Z")])
    assert not result.retracted, result
    assert result.updated and result.updated[0]["previous"] == first
    gone = rmem.add([_msg("I no longer live in Porto.", time="2024-07-01T09:00:00Z")])
    assert gone.retracted and rmem.get(gone.retracted[0]["id"]).status == "retracted"


def test_an_assistant_claim_cannot_overwrite_the_users_fact(rmem: Memory) -> None:
    first = rmem.add([_msg("I live in Lisbon.")]).added[0]["id"]
    result = rmem.add([_msg("You live in Berlin.", role="assistant")])
    assert rmem.get(first).status == "active" and "Lisbon" in rmem.get(first).text
    assert not result.updated
    claim = rmem.get(result.added[0]["id"])
    assert claim.authority == "attested" and claim.text.startswith("According to the assistant: ")
    assert first in claim.metadata.get("conflicts_with", [])
    assert claim.text == "According to the assistant: User lives in Berlin."
    assert (claim.subject, claim.predicate, claim.value) == ("user", "lives_in", "Berlin")


def test_a_claim_contradicting_the_user_in_the_same_add_is_recorded_as_a_conflict(rmem: Memory) -> None:
    result = rmem.add(
        [
            _msg("My favourite editor is Vim."),
            _msg("Your favourite editor is Emacs.", role="assistant", time="2024-05-08T13:57:00Z"),
        ]
    )
    assert len(result.added) == 2 and not result.updated
    said = next(rmem.get(a["id"]) for a in result.added if "Vim" in a["text"])
    claim = next(rmem.get(a["id"]) for a in result.added if "Emacs" in a["text"])
    assert claim.authority == "attested" and said.authority == "authorized" and said.status == "active"
    assert claim.metadata["conflicts_with"] == [said.id] and said.metadata["conflicts_with"] == [claim.id]
    assert (
        "contradicts the authorized memory" in next(a for a in result.added if a["id"] == claim.id)["reason"]
    )
    assert {r.item.id for r in rmem.review.queue() if r.conflicts_with} == {said.id, claim.id}
    # Values that may sit side by side, or the same value, are no conflict.
    both = rmem.add(
        [_msg("I like tea."), _msg("You like coffee.", role="assistant", time="2024-05-08T13:58:00Z")]
    )
    assert all(not rmem.get(a["id"]).metadata.get("conflicts_with") for a in both.added)
    # nor is one value said less fully by the other ("the Pixel" beside "a Pixel 9")
    fuller = rmem.add(
        [
            _msg("Switched to a Pixel 9 finally."),
            _msg("Your phone is the Pixel.", role="assistant", time="2024-05-08T13:59:00Z"),
        ]
    )
    keyed = [rmem.get(a["id"]) for a in fuller.added]
    assert any(i.predicate == "phone" and i.value == "Pixel 9" for i in keyed), [
        (i.predicate, i.value) for i in keyed
    ]
    assert all(not i.metadata.get("conflicts_with") for i in keyed), [(i.text, i.value) for i in keyed]
    assert rmem.verify().ok


def test_a_claim_echoing_the_persons_value_less_fully_in_a_later_add_is_no_rival(rmem: Memory) -> None:
    said = rmem.add([_msg("I switched to a Pixel 9.")])
    mine = rmem.get(said.added[0]["id"])
    assert (mine.predicate, mine.value) == ("phone", "Pixel 9")
    echo = rmem.add([_msg("Your phone is the Pixel.", role="assistant", time="2024-05-08T14:05:00Z")])
    assert not echo.added and not echo.updated, (echo.added, echo.updated)
    assert not rmem.get(mine.id).metadata.get("conflicts_with")
    assert rmem.verify().ok


def test_once_a_person_rejects_one_side_the_other_no_longer_waits_for_review(rmem: Memory) -> None:
    result = rmem.add(
        [
            _msg("My favourite editor is Vim."),
            _msg("Your favourite editor is Emacs.", role="assistant", time="2024-05-08T13:57:00Z"),
        ]
    )
    said = next(a["id"] for a in result.added if "Vim" in a["text"])
    claim = next(a["id"] for a in result.added if "Emacs" in a["text"])
    assert {r.item.id for r in rmem.review.queue()} >= {said, claim}
    assert rmem.reading.detail(said).state == "in_conflict" and rmem.reading.detail(said).conflicts == [claim]
    rmem.review.reject(claim, "I use Vim")
    assert said not in {r.item.id for r in rmem.review.queue()}  # the conflict is settled
    assert (
        rmem.reading.states([rmem.get(said)]) == {said: "current"}
        and rmem.reading.detail(said).state == "current"
    )
    # the session counts the messages a person is shown, and says how many the rejection withholds
    assert sum(s["withheld"] for s in rmem.reading.sessions()) == 1
    assert sum(s["episodes"] for s in rmem.reading.sessions()) == len(rmem.episodes(limit=100))
    assert rmem.search("favourite editor").results[0].state == "current"


def test_small_talk_is_kept_as_an_episode_but_never_becomes_a_memory(rmem: Memory) -> None:
    result = rmem.add([_msg("Haha, that's awesome! Much fun with the whole gang! Thanks so much!")])
    assert len(result.episodes) == 1 and not result.added and not result.updated


def test_relative_dates_resolve_against_the_message_time_not_today(rmem: Memory) -> None:
    result = rmem.add([_msg("Yesterday I went hiking with Ana.", time="2024-05-08T10:00:00Z")])
    assert "2024-05-07" in result.added[0]["text"]


def test_huge_and_odd_messages_are_stored_and_bounded(rmem: Memory) -> None:
    big = "I like tea. " * 900_000  # about 10 MB
    result = rmem.add([_msg(big), _msg("nul\x00byte and I like coffee.")])
    assert len(result.episodes) == 2 and len(rmem.reading.episode(result.episodes[0].id).content) == len(big)
    assert rmem.verify().ok
