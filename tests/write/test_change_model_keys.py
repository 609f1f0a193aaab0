"""A model keys a statement from the same inventory as the rules (issue 29, deliver 7).

The extraction prompt lists the inventory's attributes and the reply schema allows only their names
(or a relation or preference of a topic), so a memory a model keyed and one the rule-based extractor
keyed meet on one key: an update found by either reaches the other. Against a real HTTP server on
loopback speaking the Ollama API, with scripted replies, and the real store and embedder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_ollama import FakeOllama, FromRequest, HttpStatus, JsonContent, running_fake_ollama
from support.fixtures import PASSPHRASE
from veramem_desktop.core import attributes

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with running_fake_ollama() as server:
        yield server


@pytest.fixture
def omem(isolated_home: Path, ollama: FakeOllama) -> Iterator[Memory]:
    config = Config()
    config.llm.backend = "ollama"
    config.llm.host = ollama.url
    config.llm.timeout_s = 2.0
    config.llm.retries = 0
    mem, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    yield mem
    mem.close()


def _extraction(
    quote: str, text: str, key: tuple[str, str, str | None], *, ends: bool = False
) -> FromRequest:
    """An extraction reply citing the one message the request offered."""

    def build(request: dict[str, Any]) -> JsonContent:
        ids = request["format"]["properties"]["memories"]["items"]["properties"]["message_id"]["enum"]
        subject, predicate, value = key
        memory = {
            "message_id": ids[0],
            "quote": quote,
            "text": text,
            "kind": "fact",
            "subject": subject,
            "predicate": predicate,
            "value": value,
            "ends": ends,
            "importance": 0.6,
        }
        return JsonContent({"memories": [memory]})

    return FromRequest(build)


def _add(mem: Memory, content: str, time: str) -> Any:
    return mem.add([{"role": "user", "content": content, "time": time}])


def _current(mem: Memory, predicate: str) -> list[str | None]:
    return [m.value for m in mem.memories(limit=200) if (m.subject, m.predicate) == ("user", predicate)]


def test_the_extraction_request_offers_the_inventory_as_the_predicates(
    omem: Memory, ollama: FakeOllama
) -> None:
    ollama.script(_extraction("I live in Ghent.", "User lives in Ghent.", ("user", "lives_in", "Ghent")))
    _add(omem, "I live in Ghent.", "2025-01-10T09:00:00Z")
    request = ollama.chat_requests[0].body
    system = request["messages"][0]["content"]
    item = request["format"]["properties"]["memories"]["items"]
    choices = item["properties"]["predicate"]["anyOf"]
    assert choices[0]["enum"] == [a.name for a in attributes.ATTRIBUTES]
    assert {"type": "null"} in choices and "relation" in choices[1]["pattern"]
    assert item["properties"]["ends"] == {"type": "boolean"}
    for attribute in attributes.ATTRIBUTES:
        assert f"  {attribute.name}" in system and attribute.description in system


def test_a_models_key_and_the_rules_key_meet_so_a_change_said_later_updates_it(
    omem: Memory, ollama: FakeOllama
) -> None:
    """The model keys "I work at Lumen Health" as works_at; the model is then down and the rule-based
    extractor reads "Joined Fietsbank last week." from its frames: the same key, so a new version."""
    ollama.script(
        _extraction(
            "I work at Lumen Health.", "User works at Lumen Health.", ("user", "works_at", "Lumen Health")
        )
    )
    _add(omem, "I work at Lumen Health.", "2025-01-10T09:00:00Z")
    ollama.script(*[HttpStatus(500)] * 4)
    done = _add(omem, "Joined Fietsbank last week.", "2025-03-05T09:00:00Z")
    assert done.updated, done
    assert _current(omem, "works_at") == ["Fietsbank"]


def test_a_models_other_name_for_an_attribute_is_stored_under_the_inventorys_name(
    omem: Memory, ollama: FakeOllama
) -> None:
    ollama.script(
        _extraction("My wife is Ines.", "User's wife is Ines.", ("user", "relation:wife", "Ines")),
    )
    _add(omem, "My wife is Ines.", "2025-01-10T09:00:00Z")
    assert _current(omem, "relation:partner") == ["Ines"]


def test_a_models_ending_statement_retracts_the_value_it_ends(omem: Memory, ollama: FakeOllama) -> None:
    ollama.script(
        _extraction(
            "I train at Boulderhal Noord.",
            "User trains at Boulderhal Noord.",
            ("user", "gym", "Boulderhal Noord"),
        )
    )
    (gym,) = _add(omem, "I train at Boulderhal Noord.", "2025-01-10T09:00:00Z").added
    ollama.script(
        _extraction(
            "Cancelled my Boulderhal Noord membership.",
            "User cancelled the Boulderhal Noord membership.",
            ("user", "gym", "Boulderhal Noord"),
            ends=True,
        ),
        # the model's reconciliation reads it as something new; the key says it ends the gym
        JsonContent({"op": "ADD", "target_id": None, "text": None, "reason": "scripted"}),
    )
    done = _add(omem, "Cancelled my Boulderhal Noord membership.", "2025-04-01T09:00:00Z")
    assert [r["id"] for r in done.retracted] == [gym["id"]], done
    assert _current(omem, "gym") == []


def test_a_statement_with_no_attribute_named_is_keyed_by_its_meaning_only_when_it_is_near_one(
    omem: Memory, ollama: FakeOllama
) -> None:
    """A subject and a value with no predicate (the rule path gives these for a verb no frame has): the
    write path keys it to the attribute whose description its vector is nearest, when near enough, and
    leaves an event of no attribute unkeyed."""
    ollama.script(
        _extraction(
            "I volunteer at the Eastgate Community Kitchen.",
            "User volunteers at the Eastgate Community Kitchen.",
            ("user", None, "Eastgate Community Kitchen"),
        )
    )
    (kitchen,) = _add(omem, "I volunteer at the Eastgate Community Kitchen.", "2025-01-10T09:00:00Z").added
    stored = omem.get(kitchen["id"])
    assert (stored.subject, stored.predicate, stored.value) == (
        "user",
        "volunteering",
        "Eastgate Community Kitchen",
    )
    ollama.script(
        _extraction(
            "Had lunch with Corinne at Lula's.",
            "User had lunch with Corinne at Lula's.",
            ("user", None, "Corinne"),
        )
    )
    (lunch,) = _add(omem, "Had lunch with Corinne at Lula's.", "2025-01-11T09:00:00Z").added
    stored = omem.get(lunch["id"])
    assert (stored.subject, stored.predicate, stored.value) == (None, None, None)
