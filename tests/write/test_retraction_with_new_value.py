"""A retraction and a new value in one sentence lose neither: "I stopped being vegetarian, and I eat fish
these days", "I quit my job at Acme and joined Globex", "I sold the Volvo and bought a Tesla" retract
the old memory and store what holds now as a current memory, quoted exactly from the message; when the
new value is one of the same attribute ("I drive a Volvo" then "… and drive a Tesla now") it is the
old memory's new version. The rule-based extractor cuts such a sentence after the retraction
(models/llm/rules/retraction_clauses.py); a sentence that is no retraction is never cut, so "I stopped
by the shop and bought milk" retracts nothing and keeps its words whole.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.fake_ollama import FakeOllama, FromRequest, JsonContent
from veramem_desktop.core.llm import Message
from veramem_desktop.models.llm.rules.extract import extract

from veramem_desktop.memory import Memory


def _say(mem: Memory, content: str) -> Any:
    return mem.add([{"role": "user", "content": content}])


RETRACTED_AND_NEW = [
    ("I'm vegetarian.", "I stopped being vegetarian, and I eat fish these days.", "What do I eat?", "fish"),
    ("I'm vegetarian.", "I'm no longer vegetarian and eat fish now.", "What do I eat?", "fish"),
    ("I have a Volvo.", "I sold the Volvo and bought a Tesla.", "What car do I have?", "Tesla"),
    ("I play tennis.", "I quit playing tennis and started running.", "What sport do I do?", "running"),
    ("I have a Volvo.", "I sold the Volvo, and now I drive a Tesla.", "What car do I drive?", "Tesla"),
]


@pytest.mark.parametrize(("said", "message", "question", "new"), RETRACTED_AND_NEW)
def test_a_retraction_with_a_new_value_retracts_the_old_and_keeps_the_new_as_current(
    rmem: Memory, said: str, message: str, question: str, new: str
) -> None:
    (old,) = _say(rmem, said).added
    done = _say(rmem, message)
    assert [r["id"] for r in done.retracted] == [old["id"]], done
    assert rmem.get(old["id"]).status == "retracted"
    (kept,) = [m for m in rmem.memories(limit=100) if new in m.text]
    quote = rmem.reading.detail(kept.id).evidence[0].quote
    assert kept.status == "active" and quote in message and new in quote
    hits = rmem.search(question).results
    assert any(h.id == kept.id and h.state == "current" for h in hits), [(h.state, h.text) for h in hits]
    assert all(h.state == "retracted" for h in hits if h.id == old["id"])


def test_a_retraction_with_a_new_value_in_the_same_message_as_the_old_one(rmem: Memory) -> None:
    _say(rmem, "I work at Acme. I quit my job at Acme and joined Globex.")
    states = {m.text: m.status for m in rmem.memories(status=None, limit=100)}
    assert states == {"User works at Acme.": "retracted", "User joined Globex.": "active"}, states


def test_quitting_one_employer_and_joining_another_makes_the_new_one_the_next_version(rmem: Memory) -> None:
    """ "joined Globex" states the same attribute as "I work at Acme" (the employer, by the inventory's
    frames), so Globex is the employer's new version, and Acme its history."""
    (acme,) = _say(rmem, "I work at Acme.").added
    done = _say(rmem, "I quit my job at Acme and joined Globex.")
    (updated,) = done.updated
    assert updated["previous"] == acme["id"], done
    assert [(v.status, v.value) for v in rmem.history(updated["id"])] == [
        ("superseded", "Acme"),
        ("active", "Globex"),
    ]
    first = rmem.search("Where do I work?").results[0]
    assert first.state == "current" and "Globex" in first.text, first


def test_a_new_value_of_the_same_attribute_becomes_the_new_version_of_the_retracted_memory(
    rmem: Memory,
) -> None:
    (volvo,) = _say(rmem, "I drive a Volvo.").added
    done = _say(rmem, "I sold the Volvo and drive a Tesla now.")
    (updated,) = done.updated
    assert updated["previous"] == volvo["id"], done
    assert [(v.status, v.value) for v in rmem.history(updated["id"])] == [
        ("superseded", "Volvo"),
        ("active", "Tesla"),
    ]
    first = rmem.search("What car do I drive?").results[0]
    assert first.state == "current" and "Tesla" in first.text, first


@pytest.mark.parametrize(
    ("said", "message"),
    [
        ("I like the shop on Main Street.", "I stopped by the shop and bought milk."),
        ("I have a bike.", "I sold my old bike and bought a new one."),
    ],
)
def test_a_sentence_that_is_no_retraction_is_not_cut_and_retracts_nothing(
    rmem: Memory, said: str, message: str
) -> None:
    (old,) = _say(rmem, said).added
    done = _say(rmem, message)
    assert not done.retracted and rmem.get(old["id"]).status == "active", done
    assert len(done.added) == 1, done
    (whole,) = [m for m in rmem.memories(limit=100) if m.id != old["id"]]
    assert rmem.reading.detail(whole.id).evidence[0].quote == message


@pytest.mark.parametrize(
    ("message", "parts"),
    [
        (
            "I quit my job at Acme and joined Globex.",
            [
                ("I quit my job at Acme", "User quit User's job at Acme."),
                ("joined Globex.", "User joined Globex."),
            ],
        ),
        (
            "Mel quit her job at Acme and joined Globex.",
            [
                ("Mel quit her job at Acme", "Mel quit her job at Acme."),
                ("joined Globex.", "Mel joined Globex."),
            ],
        ),
        (
            "I stopped smoking and drinking.",
            [("I stopped smoking and drinking.", "User stopped smoking and drinking.")],
        ),
        ("I gave up coffee and sugar.", [("I gave up coffee and sugar.", "User gave up coffee and sugar.")]),
    ],
)
def test_the_part_after_a_retraction_is_quoted_exactly_and_worded_with_the_retractions_subject(
    message: str, parts: list[tuple[str, str]]
) -> None:
    found = extract([Message("m1", "user", message, "2024-06-01T09:00:00Z", None)])
    assert [(c.quote, c.text) for c in found] == parts
    assert all(c.quote in message for c in found)


# --- with a model: the engine keeps what a retracting sentence says beside the retraction -------------


def _extracted(*memories: tuple[str, str]) -> FromRequest:
    """A model's extraction reply: one fact per (quote, text), each citing the one message offered."""

    def build(request: dict[str, Any]) -> JsonContent:
        ids = request["format"]["properties"]["memories"]["items"]["properties"]["message_id"]["enum"]
        return JsonContent(
            {
                "memories": [
                    {"message_id": ids[0], "quote": quote, "text": text, "kind": "fact", "importance": 0.6}
                    | {"subject": None, "predicate": None, "value": None}
                    for quote, text in memories
                ]
            }
        )

    return FromRequest(build)


_ADD = JsonContent({"op": "ADD", "target_id": None, "text": None, "reason": "scripted"})
_SAID = "I quit my job at Acme and joined Globex."


def test_a_models_statement_quoting_a_retracting_sentence_is_kept_and_the_retraction_still_made(
    omem: tuple[Memory, FakeOllama],
) -> None:
    mem, ollama = omem
    ollama.script(_extracted(("I work at Acme.", "User works at Acme.")))
    acme = mem.add("I work at Acme.").added[0]["id"]
    ollama.script(_extracted((_SAID, "User joined Globex.")), _ADD)
    done = mem.add(_SAID)
    assert [r["id"] for r in done.retracted] == [acme], done
    assert [a["text"] for a in done.added] == ["User joined Globex."], done
    assert mem.get(acme).status == "retracted" and ollama.pending == 0


def test_a_model_that_quotes_the_whole_sentence_twice_retracts_once_and_keeps_the_new_value(
    omem: tuple[Memory, FakeOllama],
) -> None:
    mem, ollama = omem
    ollama.script(_extracted(("I work at Acme.", "User works at Acme.")))
    acme = mem.add("I work at Acme.").added[0]["id"]
    ollama.script(
        _extracted((_SAID, "User quit their job at Acme."), (_SAID, "User joined Globex.")), _ADD, _ADD
    )
    done = mem.add(_SAID)
    assert [r["id"] for r in done.retracted] == [acme], done
    assert [a["text"] for a in done.added] == ["User joined Globex."], done


def test_a_clause_of_its_own_after_a_comma_is_a_statement_of_its_own(rmem: Memory) -> None:
    """With no "and" to cut at, the parse finds where the second statement begins: the old employer no
    longer holds, and what starts next is kept in its own words."""
    (old,) = _say(rmem, "I work at Brindle Foods.").added
    done = _say(
        rmem, "I gave notice at Brindle Foods in May, from July I start at Orwell Tech as a data engineer."
    )
    assert rmem.get(old["id"]).status != "active", done
    texts = [m.text for m in rmem.memories(limit=100)]
    assert any(t.startswith("From July") and "Orwell Tech" in t and "Brindle" not in t for t in texts), texts
    assert not any("Brindle" in t for t in texts), texts
