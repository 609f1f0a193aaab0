"""A statement that something stopped being true retracts the same person's memory of it, whatever
its wording: "I sold the Volvo" after "I have a Volvo", "I quit playing tennis", "I gave up coffee",
"I'm no longer vegetarian", "I don't like jazz anymore". Recall then labels the old memory
retracted, puts the retracting message first, and the answer does not state the old value as
current. What only looks like a retraction retracts nothing: "I stopped by the bakery", a sale with a
replacement ("… and bought a new one"), another person's sentence ("Mel no longer works at Acme"),
a question or a hypothetical. The reading is the engine's (core/write/retraction_forms.py), run on every
candidate whatever model extracted it; the same person's rule also holds for a model's own DELETE.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.fake_ollama import FakeOllama, FromRequest, JsonContent
from veramem_desktop.core.write import retraction_forms

from veramem_desktop.bench.truth_section import holds
from veramem_desktop.memory import Memory


def _say(mem: Memory, content: str, name: str | None = None) -> object:
    return mem.add([{"role": "user", "content": content, **({"name": name} if name else {})}])


def _only_added(mem: Memory, content: str, name: str | None = None) -> str:
    (added,) = _say(mem, content, name).added  # type: ignore[attr-defined]
    return str(added["id"])


RETRACTED = [
    ("I have a Volvo.", "I sold the Volvo.", "What car do I have?", "Volvo"),
    ("I own a Volvo.", "I sold my Volvo last week.", "What car do I have?", "Volvo"),
    ("I have a piano.", "I gave away the piano.", "Do I have a piano?", "piano"),
    ("I have a canoe.", "I got rid of my canoe.", "Do I have a canoe?", "canoe"),
    ("I play tennis.", "I quit playing tennis.", "What sport do I play?", "tennis"),
    ("I work at Acme.", "I quit my job at Acme.", "Where do I work?", "Acme"),
    ("I drink coffee every morning.", "I gave up coffee.", "Do I drink coffee?", "coffee"),
    ("I use Notion for notes.", "I stopped using Notion.", "What do I use for notes?", "Notion"),
    ("I like jazz.", "I don't like jazz anymore.", "What music do I like?", "jazz"),
    ("I'm vegetarian.", "I'm no longer vegetarian.", "What is my diet?", "vegetarian"),
    ("I'm vegetarian.", "I'm not vegetarian anymore.", "What is my diet?", "vegetarian"),
]


@pytest.mark.parametrize(("said", "retraction", "question", "value"), RETRACTED)
def test_a_retraction_in_other_words_retracts_the_memory_and_recall_says_so(
    rmem: Memory, said: str, retraction: str, question: str, value: str
) -> None:
    old = _only_added(rmem, said)
    done = _say(rmem, retraction)
    assert [r["id"] for r in done.retracted] == [old], done  # type: ignore[attr-defined]
    (version,) = rmem.history(old)
    assert version.status == "retracted"
    hits = rmem.search(question).results
    stale = [h for h in hits if h.id == old]
    assert hits[0].id != old and hits[0].text != said, [(h.state, h.text) for h in hits]
    assert all(h.state == "retracted" and h.retracted_by for h in stale)
    answer = rmem.answer(question).text  # what holds now: the retracting message's words, or nothing
    assert answer.startswith("You said") and "no longer holds" in answer or value not in answer, answer


KEPT = [
    ("I like the bakery on Main Street.", "I stopped by the bakery on Main Street."),
    ("I have a bike.", "I sold my old bike and bought a new one."),
    ("I play tennis.", "I gave up my seat on the bus to play tennis."),
    ("I work at Acme.", "Mel no longer works at Acme."),
    ("I live in Porto.", "My sister no longer lives in Porto."),
    ("I use Vim.", "Should I stop using Vim?"),
    ("I have a Volvo.", "If I sold the Volvo, I would buy a bike."),
    ("I use Vim.", "If I stopped using Vim, I would miss it."),
]


@pytest.mark.parametrize(("said", "other"), KEPT)
def test_what_only_looks_like_a_retraction_retracts_nothing(rmem: Memory, said: str, other: str) -> None:
    old = _only_added(rmem, said)
    done = _say(rmem, other)
    assert not done.retracted, done  # type: ignore[attr-defined]
    assert rmem.history(old)[-1].status == "active"


def test_another_persons_retraction_retracts_their_memory_not_the_users(rmem: Memory) -> None:
    mine = _only_added(rmem, "I work at Acme.")
    mels = _only_added(rmem, "Mel works at Acme.")
    done = _say(rmem, "Mel no longer works there.")
    assert [r["id"] for r in done.retracted] == [mels], done  # type: ignore[attr-defined]
    assert rmem.history(mine)[-1].status == "active"
    first = rmem.search("Where do I work?").results[0]
    assert holds(first.text, "Acme") and first.state == "current" and first.id == mine


def test_a_named_speakers_sale_retracts_only_their_own_possession(rmem: Memory) -> None:
    mine = _only_added(rmem, "I have a Volvo.")
    mels = _only_added(rmem, "I have a Volvo.", name="Mel")
    done = _say(rmem, "I sold the Volvo.", name="Mel")
    assert [r["id"] for r in done.retracted] == [mels], done  # type: ignore[attr-defined]
    assert rmem.history(mine)[-1].status == "active"


@pytest.mark.parametrize(
    ("quote", "verb", "thing"),
    [
        ("I sold the Volvo.", "have", "the Volvo"),
        ("Actually, I've stopped using Notion for my notes.", "use", "Notion for my notes"),
        ("I'm not living in Porto any more", "live", "in Porto"),
        ("Anna is no longer my partner.", "be", "my partner"),
        ("I don't drink coffee anymore.", "drink", "coffee"),
        ("I gave up coffee last month.", None, "coffee"),
        ("My diet is no longer vegan. I eat fish now.", "be", "vegan"),
        ("I don't eat meat anymore, and I follow keto these days.", "eat", "meat"),
        ("As of March, I no longer work at Acme.", "work", "at Acme"),
    ],
)
def test_the_reader_finds_the_verb_that_stopped_and_its_object(
    quote: str, verb: str | None, thing: str
) -> None:
    found = retraction_forms.read(quote)
    assert found is not None and (found.verb, found.thing) == (verb, thing)


@pytest.mark.parametrize(
    "quote",
    [
        "I stopped by the shop.",
        "Should I stop using Vim?",
        "If I sold the car, I would buy a bike.",
        "I would no longer need a car if I moved.",
        "I don't like jazz.",
        "I never drink coffee.",
        "Not anymore.",
    ],
)
def test_the_reader_reads_no_retraction_where_there_is_none(quote: str) -> None:
    assert retraction_forms.read(quote) is None


# --- with a model: the reading and the same-person rule are the engine's ------------------------------


def _extracted(quote: str, text: str) -> FromRequest:
    """A model's extraction reply: one fact citing the one message offered, with no key."""

    def build(request: dict[str, Any]) -> JsonContent:
        ids = request["format"]["properties"]["memories"]["items"]["properties"]["message_id"]["enum"]
        memory = {"message_id": ids[0], "quote": quote, "text": text, "kind": "fact", "importance": 0.6}
        return JsonContent({"memories": [{**memory, "subject": None, "predicate": None, "value": None}]})

    return FromRequest(build)


def _decided(op: str, target: str | None) -> JsonContent:
    return JsonContent({"op": op, "target_id": target, "text": None, "reason": "scripted"})


def test_a_sale_a_model_called_new_is_retracted_by_the_engine(omem: tuple[Memory, FakeOllama]) -> None:
    mem, ollama = omem
    ollama.script(_extracted("I have a Volvo.", "User has a Volvo."))
    volvo = mem.add("I have a Volvo.").added[0]["id"]
    ollama.script(_extracted("I sold the Volvo.", "User sold the Volvo."), _decided("ADD", None))
    result = mem.add("I sold the Volvo.")
    assert [r["id"] for r in result.retracted] == [volvo] and not result.added, result
    assert mem.get(volvo).status == "retracted" and ollama.pending == 0


def test_a_models_delete_of_another_persons_memory_is_kept_as_new(omem: tuple[Memory, FakeOllama]) -> None:
    mem, ollama = omem
    ollama.script(_extracted("I work at Acme.", "User works at Acme."))
    acme = mem.add("I work at Acme.").added[0]["id"]
    said = "Mel no longer works at Acme."
    ollama.script(_extracted(said, said), _decided("DELETE", acme))
    result = mem.add(said)
    assert not result.retracted and len(result.added) == 1, result
    assert mem.get(acme).status == "active"
