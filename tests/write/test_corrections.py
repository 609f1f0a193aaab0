"""A correction ("X, not Y", "Not Y — X", "I meant X", "… not Y anymore, S") makes a new version of the
current memory of the same subject that holds the wrong value Y: the old one is superseded (versions,
not overwrites, each change in the ledger) and recall shows the corrected value as current. The rule
is the engine's (core/write/correction_targets.py): the same with the rule-based backend and with a model."""

from __future__ import annotations

from typing import Any

from support.fake_ollama import FakeOllama, FromRequest, JsonContent
from veramem_desktop.core.write.correction_forms import read

from veramem_desktop.memory import Memory


def _say(mem: Memory, content: str, time: str, name: str | None = None, role: str = "user") -> object:
    return mem.add([{"role": role, "content": content, "time": time, **({"name": name} if name else {})}])


def _lisbon(mem: Memory) -> str:
    result = _say(mem, "I moved to Lisbon in March 2024.", "2024-05-08T10:00:00Z")
    (added,) = result.added  # type: ignore[attr-defined]
    return str(added["id"])


def test_a_correction_supersedes_the_memory_holding_the_wrong_value(rmem: Memory) -> None:
    lisbon = _lisbon(rmem)
    result = _say(rmem, "Actually I moved to Porto, not Lisbon.", "2024-06-01T09:00:00Z")
    assert not result.added, result  # type: ignore[attr-defined]
    (updated,) = result.updated  # type: ignore[attr-defined]
    assert updated["previous"] == lisbon
    chain = rmem.history(updated["id"])
    assert [(v.status, v.text) for v in chain] == [
        ("superseded", "User moved to Lisbon in March 2024."),
        ("active", "User moved to Porto."),  # the statement, without its "not Lisbon" tail
    ]
    assert chain[0].valid_to == chain[1].valid_from and chain[1].valid_from.startswith("2024-06-01T09:00:00")
    assert chain[1].metadata["corrects"] == {"id": lisbon, "wrong": "Lisbon"}  # a mistake, not a former state
    assert {"memory.supersede", "memory.update"} <= {e.op for e in rmem.reading.ledger_entries()}
    assert rmem.verify().ok


def test_after_a_correction_the_first_hit_is_current_and_says_porto(rmem: Memory) -> None:
    lisbon = _lisbon(rmem)
    _say(rmem, "Actually I moved to Porto, not Lisbon.", "2024-06-01T09:00:00Z")
    hits = rmem.search("where did I move?").results
    assert hits[0].state == "current" and "Porto" in hits[0].text and "Lisbon" not in hits[0].text
    assert lisbon not in {h.id for h in hits if h.state == "current"}
    raw = [h for h in hits if h.kind == "episode" and h.text == "I moved to Lisbon in March 2024."]
    assert raw and raw[0].state != "current"  # the truth stage labels the corrected message


def test_a_bare_correction_keeps_what_it_does_not_change(rmem: Memory) -> None:
    lisbon = _lisbon(rmem)
    result = _say(rmem, "Not Lisbon — Porto.", "2024-06-01T09:00:00Z")
    (updated,) = result.updated  # type: ignore[attr-defined]
    assert updated["previous"] == lisbon and updated["text"] == "User moved to Porto in March 2024."
    assert rmem.get(lisbon).status == "superseded"
    assert rmem.get(updated["id"]).value == "Porto"
    (record,) = [r for r in rmem.outcomes.training_records(kinds=("write",)) if r["operation"] == "UPDATE"]
    assert record["guard"] == "correction"  # the training export says which rule decided


def test_i_meant_corrects_the_speakers_last_value(rmem: Memory) -> None:
    lisbon = _lisbon(rmem)
    result = _say(rmem, "Sorry, I meant Porto.", "2024-05-08T10:01:00Z")
    (updated,) = result.updated  # type: ignore[attr-defined]
    assert updated["previous"] == lisbon and updated["text"] == "User moved to Porto in March 2024."


def test_a_retraction_followed_by_the_new_value_is_a_new_version_not_a_loss(rmem: Memory) -> None:
    lisbon = _lisbon(rmem)
    result = _say(rmem, "I don't live in Lisbon anymore, I live in Porto", "2024-06-01T09:00:00Z")
    assert not result.retracted, result  # type: ignore[attr-defined]
    (updated,) = result.updated  # type: ignore[attr-defined]
    assert updated["previous"] == lisbon and updated["text"] == "User lives in Porto."
    assert rmem.get(lisbon).status == "superseded"


def test_a_third_persons_correction_is_keyed_by_that_person(rmem: Memory) -> None:
    caroline = _say(rmem, "I moved to Denver in 2022.", "2024-05-08T10:00:00Z", name="Caroline")
    mel = _say(rmem, "I visited Denver in 2021.", "2024-05-08T10:05:00Z", name="Mel")
    result = _say(rmem, "Caroline moved to Boston, not Denver", "2024-06-01T09:00:00Z")
    (updated,) = result.updated  # type: ignore[attr-defined]
    assert updated["previous"] == caroline.added[0]["id"]  # type: ignore[attr-defined]
    assert updated["text"] == "Caroline moved to Boston."
    assert rmem.get(mel.added[0]["id"]).status == "active"  # type: ignore[attr-defined]


def test_a_sentence_that_merely_contains_not_changes_nothing(rmem: Memory) -> None:
    lisbon = _lisbon(rmem)
    tired = _say(rmem, "I was not tired at all after the run.", "2024-05-08T10:01:00Z").added[0]["id"]  # type: ignore[attr-defined]
    assert read("I do not like jazz, not at all") is None
    result = _say(rmem, "I do not like jazz, not at all", "2024-06-01T09:00:00Z")
    assert not result.updated and not result.retracted, result  # type: ignore[attr-defined]
    assert rmem.get(lisbon).status == "active" and rmem.get(tired).status == "active"


def test_a_correction_naming_a_value_no_memory_holds_changes_nothing(rmem: Memory) -> None:
    lisbon = _lisbon(rmem)
    result = _say(rmem, "Actually I moved to Porto, not Madrid.", "2024-06-01T09:00:00Z")
    assert not result.updated and not result.retracted, result  # type: ignore[attr-defined]
    assert [a["text"] for a in result.added] == ["User moved to Porto, not Madrid."]  # type: ignore[attr-defined]
    assert rmem.get(lisbon).status == "active"
    assert rmem.verify().ok


def test_an_assistants_correction_cannot_supersede_the_users_memory(rmem: Memory) -> None:
    lisbon = _lisbon(rmem)
    result = _say(rmem, "Actually, you moved to Porto, not Lisbon.", "2024-06-01T09:00:00Z", role="assistant")
    assert not result.updated, result  # type: ignore[attr-defined]
    assert rmem.get(lisbon).status == "active"
    (kept,) = result.added  # type: ignore[attr-defined]
    assert kept["reason"].startswith("kept separately") and rmem.get(lisbon).metadata["conflicts_with"]


def _extracted(quote: str, text: str, kind: str, key: tuple[str, str, str]) -> FromRequest:
    """A model's extraction reply: one memory citing the one message offered."""

    def build(request: dict[str, Any]) -> JsonContent:
        ids = request["format"]["properties"]["memories"]["items"]["properties"]["message_id"]["enum"]
        subject, predicate, value = key
        memory = {"message_id": ids[0], "quote": quote, "text": text, "kind": kind, "importance": 0.6}
        return JsonContent(
            {"memories": [{**memory, "subject": subject, "predicate": predicate, "value": value}]}
        )

    return FromRequest(build)


def test_a_models_correction_is_versioned_by_the_engine_without_asking_the_model(
    omem: tuple[Memory, FakeOllama],
) -> None:
    mem, ollama = omem
    said = "I moved to Lisbon in March 2024."
    ollama.script(
        _extracted(said, "User moved to Lisbon in March 2024.", "event", ("user", "lives_in", "Lisbon"))
    )
    lisbon = mem.add([{"role": "user", "content": said, "time": "2024-05-08T10:00:00Z"}]).added[0]["id"]
    fix = "Actually I moved to Porto, not Lisbon."
    # the model keeps the tail and calls it a new fact; no reconciliation reply is scripted
    ollama.script(_extracted(fix, "User moved to Porto, not Lisbon.", "fact", ("user", "lives_in", "Porto")))
    result = mem.add([{"role": "user", "content": fix, "time": "2024-06-01T09:00:00Z"}])
    (updated,) = result.updated
    assert updated["previous"] == lisbon and updated["text"] == "User moved to Porto."
    assert mem.get(lisbon).status == "superseded" and ollama.pending == 0
    assert len(ollama.chat_requests) == 2  # two extractions: the decision was the engine's
    assert mem.verify().ok


def test_a_contrast_that_restates_nothing_of_the_memory_holding_y_changes_nothing(rmem: Memory) -> None:
    london = _say(rmem, "I love London.", "2024-05-08T10:00:00Z").added[0]["id"]  # type: ignore[attr-defined]
    result = _say(rmem, "This summer I went to Paris, not London.", "2024-06-01T09:00:00Z")
    assert not result.updated and not result.retracted, result  # type: ignore[attr-defined]
    assert rmem.get(london).status == "active"


def test_a_correction_cannot_bring_back_a_rejected_value(rmem: Memory) -> None:
    lisbon = _lisbon(rmem)
    porto = _say(rmem, "I live in Porto.", "2024-05-09T10:00:00Z").added[0]["id"]  # type: ignore[attr-defined]
    rmem.review.reject(porto, "wrong city")
    result = _say(rmem, "Not Lisbon — Porto.", "2024-06-01T09:00:00Z")
    assert not result.updated and [r["reason"] for r in result.rejected] == [  # type: ignore[attr-defined]
        "this value was rejected before for the same subject; it cannot return"
    ]
    assert rmem.get(lisbon).status == "active"


def test_what_holds_now_is_a_change_that_leaves_a_dated_event_as_history(rmem: Memory) -> None:
    lisbon = _lisbon(rmem)
    _say(rmem, "Correction: I live in Porto now, not Lisbon.", "2024-10-02T20:30:00Z")
    assert rmem.get(lisbon).status == "active"  # the move in March happened: no mistake, no new version
    assert not any(v.metadata.get("corrects") for v in rmem.history(lisbon))


def test_a_value_that_stopped_holding_is_a_former_value_not_a_mistake(rmem: Memory) -> None:
    lisbon = _lisbon(rmem)
    (updated,) = _say(rmem, "I don't live in Lisbon anymore, I live in Porto", "2024-06-01T09:00:00Z").updated  # type: ignore[attr-defined]
    assert updated["previous"] == lisbon
    assert "corrects" not in rmem.get(updated["id"]).metadata  # the answer may say "before that, Lisbon"
