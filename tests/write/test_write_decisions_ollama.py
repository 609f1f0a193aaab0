"""Write decisions record what the model proposed and the guard that changed it (issue 18, part 7),
against a real HTTP server on 127.0.0.1 speaking the Ollama API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from support.fake_ollama import FakeOllama, FromRequest, JsonContent

from veramem_desktop.memory import Memory

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "docs" / "schema" / "training-export.schema.json").read_text(
        encoding="utf-8"
    )
)


def extraction(quote: str, text: str, key: tuple[str, str, str]) -> FromRequest:
    def build(request: dict[str, Any]) -> JsonContent:
        ids = request["format"]["properties"]["memories"]["items"]["properties"]["message_id"]["enum"]
        subject, predicate, value = key
        return JsonContent(
            {
                "memories": [
                    {
                        "message_id": ids[0],
                        "quote": quote,
                        "text": text,
                        "kind": "fact",
                        "subject": subject,
                        "predicate": predicate,
                        "value": value,
                        "importance": 0.6,
                    }
                ]
            }
        )

    return FromRequest(build)


def reconcile(op: str, target: str | None, text: str | None = None) -> JsonContent:
    return JsonContent({"op": op, "target_id": target, "text": text, "reason": "scripted"})


LISBON = ("I live in Lisbon.", "User lives in Lisbon.", ("user", "lives_in", "Lisbon"))


def records(mem: Memory) -> list[dict[str, Any]]:
    out = list(mem.outcomes.training_records(kinds=["write"]))
    for record in out:
        Draft202012Validator(SCHEMA).validate(record)
    return out


def test_a_model_add_turned_into_noop_by_the_duplicate_guard_is_recorded_with_that_guard(
    omem: tuple[Memory, FakeOllama],
) -> None:
    mem, ollama = omem
    ollama.script(extraction(*LISBON), extraction(*LISBON), reconcile("ADD", None))
    first = mem.add("I live in Lisbon.").added[0]
    mem.add("I live in Lisbon.")
    record = records(mem)[-1]
    assert record["proposed"]["op"] == "ADD" and record["proposed"]["reason"] == "scripted"
    assert (
        record["operation"] == "NOOP" and record["guard"] == "duplicate" and record["outcome"] == "unchanged"
    )
    assert record["memory"]["id"] == first["id"]
    assert [n["text"] for n in record["neighbours"]] == ["User lives in Lisbon."]


def test_an_assistant_update_of_the_users_fact_is_recorded_as_stopped_by_the_authority_guard(
    omem: tuple[Memory, FakeOllama],
) -> None:
    mem, ollama = omem
    ollama.script(extraction(*LISBON))
    lisbon = mem.add("I live in Lisbon.").added[0]["id"]
    ollama.script(
        extraction("You live in Berlin.", "User lives in Berlin.", ("user", "lives_in", "Berlin")),
        reconcile("UPDATE", lisbon, "User lives in Berlin."),
    )
    result = mem.add([{"role": "assistant", "content": "You live in Berlin."}])
    record = records(mem)[-1]
    assert record["proposed"] == {
        "op": "UPDATE",
        "target_id": lisbon,
        "text": "User lives in Berlin.",
        "reason": "scripted",
    }
    assert record["guard"] == "authority" and record["outcome"] == "added"
    assert record["memory"]["id"] == result.added[0]["id"] and record["memory"]["authority"] == "attested"
    assert (
        record["messages"][0]["role"] == "assistant"
        and record["messages"][0]["text"] == "You live in Berlin."
    )
    assert record["candidate"]["authority"] == "attested"
