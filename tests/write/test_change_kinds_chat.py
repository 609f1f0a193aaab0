"""Changes said the way people chat (issue 29, deliver 1), through the real write path (rule-based
extractor, real parse pipeline, real embedder, real SQLCipher store): each becomes a new version of the
right attribute of the right person, with validity from the message's time.

Each test is one kind of wording the keys of commit 3f15fba gave no key (or only one of two) for: a clause that gives two
attributes, joined clauses, time spent at a place with no verb, an opening verb with no subject
before a clause that has one, "<someone> and I", a pronoun for a person named before, "I'm on <thing>",
a new thing named aside. The sentences are this file's own, none of them from the bench data.
"""

from __future__ import annotations

from support.versions import current as _current
from support.versions import say as _say
from support.versions import versions as _versions

from veramem_desktop.memory import Memory


def _changed(mem: Memory, subject: str, predicate: str, old: str, new: str, day: str) -> None:
    """Two versions of the key: ``old`` superseded on ``day``, ``new`` current from ``day``."""
    versions = _versions(mem, subject, predicate)
    assert [(v.status, v.value) for v in versions] == [("superseded", old), ("active", new)], versions
    assert versions[1].valid_from.startswith(day)
    assert (versions[0].valid_to or "").startswith(day)


def test_a_role_said_with_its_organisation_is_the_occupation_and_the_employer(rmem: Memory) -> None:
    _say(rmem, "I'm a nurse at Harbourview Clinic, nights mostly.", "2025-01-10T09:00:00Z")
    _say(rmem, "these days I'm a pharmacist at Larkspur Health", "2025-05-03T20:00:00Z")
    _changed(rmem, "user", "works_at", "Harbourview Clinic", "Larkspur Health", "2025-05-03")
    _changed(rmem, "user", "occupation", "nurse", "pharmacist", "2025-05-03")


def test_joined_clauses_each_change_their_own_attribute(rmem: Memory) -> None:
    _say(rmem, "I live in Ghent and work at Brindle Labs.", "2025-01-10T09:00:00Z")
    _say(rmem, "I moved to Lyon and started at Quorra Systems.", "2025-07-14T09:00:00Z")
    _changed(rmem, "user", "lives_in", "Ghent", "Lyon", "2025-07-14")
    _changed(rmem, "user", "works_at", "Brindle Labs", "Quorra Systems", "2025-07-14")


def test_time_spent_at_a_new_organisation_with_no_verb_is_the_new_employer(rmem: Memory) -> None:
    _say(rmem, "I work at Brindle Labs.", "2025-01-10T09:00:00Z")
    _say(rmem, "Two weeks at Saltmarsh Robotics and my head is spinning.", "2025-04-20T18:00:00Z")
    _changed(rmem, "user", "works_at", "Brindle Labs", "Saltmarsh Robotics", "2025-04-20")


def test_time_spent_into_a_tool_names_the_tool_by_its_kind(rmem: Memory) -> None:
    _say(rmem, "I use Vim for everything.", "2025-01-10T09:00:00Z")
    _say(rmem, "a month into Emacs now, the keybindings finally stick", "2025-03-01T09:00:00Z")
    _changed(rmem, "user", "editor", "Vim", "Emacs", "2025-03-01")


def test_a_verb_said_first_without_a_subject_is_the_speakers_even_when_a_later_clause_has_one(
    rmem: Memory,
) -> None:
    _say(rmem, "I bank with Thornbury Bank.", "2025-01-10T09:00:00Z")
    _say(rmem, "Switched everything over to Gullwing Bank, the app is so much better", "2025-02-11T09:00:00Z")
    _changed(rmem, "user", "bank", "Thornbury Bank", "Gullwing Bank", "2025-02-11")


def test_someone_and_i_ending_it_ends_the_partner(rmem: Memory) -> None:
    (partner,) = _say(rmem, "My girlfriend is Ines.", "2025-01-10T09:00:00Z").added
    done = _say(rmem, "Ines and I broke up last week.", "2025-06-02T09:00:00Z")
    assert [r["id"] for r in done.retracted] == [partner["id"]], done
    assert _current(rmem, "user", "relation:partner") == []


def test_a_pronoun_is_the_person_named_before_and_their_change_is_never_the_users(rmem: Memory) -> None:
    _say(rmem, "I live in Norwich.", "2025-01-10T09:00:00Z")
    _say(rmem, "my sister finally left Derby, she's in Kendal now", "2025-03-09T09:00:00Z")
    assert _current(rmem, "user's sister", "lives_in") == ["Kendal"]
    assert _current(rmem, "user", "lives_in") == ["Norwich"]


def test_a_relatives_new_job_keys_their_employer_never_the_users(rmem: Memory) -> None:
    _say(rmem, "I work at Brindle Labs.", "2025-01-10T09:00:00Z")
    _say(rmem, "my cousin Priya took a job at Fennick Aerospace.", "2025-02-02T09:00:00Z")
    assert _current(rmem, "Priya", "works_at") == ["Fennick Aerospace"]
    assert _current(rmem, "user", "works_at") == ["Brindle Labs"]


def test_being_on_a_thing_of_an_attributes_kind_is_its_new_value(rmem: Memory) -> None:
    _say(rmem, "My phone is an iPhone 12.", "2025-01-10T09:00:00Z")
    _say(rmem, "I'm on a Pixel 9 now, the camera is wild", "2025-08-08T09:00:00Z")
    versions = _versions(rmem, "user", "phone")
    assert [v.status for v in versions] == ["superseded", "active"], versions
    assert (versions[1].value or "").startswith("Pixel") and versions[1].valid_from.startswith("2025-08-08")


def test_a_new_thing_named_aside_is_the_new_value(rmem: Memory) -> None:
    _say(rmem, "My dentist is Dr Albers.", "2025-01-10T09:00:00Z")
    _say(rmem, "the new dentist, Dr Moreau, actually explains things", "2025-09-15T09:00:00Z")
    _changed(rmem, "user", "dentist", "Dr Albers", "Dr Moreau", "2025-09-15")


def test_history_plans_and_other_peoples_time_spent_key_nothing_current(rmem: Memory) -> None:
    _say(rmem, "I work at Brindle Labs.", "2025-01-10T09:00:00Z")
    _say(rmem, "last day at Brindle Labs is next Friday", "2025-02-01T09:00:00Z")
    _say(rmem, "my brother spent a week at Kestrel Motors and he hated it", "2025-02-02T09:00:00Z")
    _say(rmem, "should I apply at Hollow Oak Games?", "2025-02-03T09:00:00Z")
    assert _current(rmem, "user", "works_at") == ["Brindle Labs"]


def test_a_named_thing_said_to_be_gone_ends_the_value_of_that_name_whatever_its_attribute(
    rmem: Memory,
) -> None:
    (garage,) = _say(rmem, "My garage is Brinton Motors.", "2025-01-10T09:00:00Z").added
    _say(rmem, "I live in Norwich.", "2025-01-11T09:00:00Z")
    done = _say(rmem, "Brinton closed down, I need a new place for the MOT", "2025-05-02T09:00:00Z")
    assert [r["id"] for r in done.retracted] == [garage["id"]], done
    assert _current(rmem, "user", "lives_in") == ["Norwich"]
    # a name nothing stored has is no ending of anything
    nothing = _say(rmem, "Kelmscott closed down last year", "2025-06-02T09:00:00Z")
    assert nothing.retracted == [] and _current(rmem, "user", "lives_in") == ["Norwich"]


def test_an_emoji_closes_a_clause_so_the_next_one_is_read_with_its_own_subject(rmem: Memory) -> None:
    """Chat ends a thought with an emoji instead of a full stop: what follows it is a statement of its own
    ("new boss is …" is the speaker's), not more of the sentence about the person named before it."""
    _say(rmem, "My boss is Tobias.", "2025-01-10T09:00:00Z")
    _say(rmem, "Tobias left for a rival firm 👋 new boss is Wren Addo, seems nice", "2025-04-02T09:00:00Z")
    _changed(rmem, "user", "relation:boss", "Tobias", "Wren Addo", "2025-04-02")
    _say(rmem, "I'm learning Danish.", "2025-01-10T09:00:00Z")
    _say(rmem, "Dropped Danish 😩 started Portuguese with a tutor instead", "2025-05-06T09:00:00Z")
    assert _current(rmem, "user", "languages_learning") == ["Portuguese"]


def test_a_labelled_line_of_a_document_the_person_pasted_keys_their_attribute(rmem: Memory) -> None:
    """A lease pasted to be checked says who the landlord is now in a labelled line ("Landlord: …"),
    not in a sentence; the line is keyed as a tool's "Home: Porto" is. A label the inventory has no
    attribute for ("Clause 4") keys nothing."""
    _say(rmem, "My landlord is Mr Pryce, he never fixes anything.", "2024-02-01T09:00:00Z")
    _say(
        rmem,
        "can you check this before I sign\nTENANCY AGREEMENT\nLandlord: Ifeanyi Okafor\n"
        "Clause 4: The tenant keeps the garden tidy.",
        "2025-03-10T09:00:00Z",
    )
    _changed(rmem, "user", "relation:landlord", "Pryce", "Ifeanyi Okafor", "2025-03-10")


def test_a_joined_verb_with_no_subject_carries_on_the_nearest_clause_said_with_one(rmem: Memory) -> None:
    """ "Tova got a residency in Tromsø so we move up there in March, found a flat in Kvaløya": the flat
    was found by "we" (the clause right before), never by Tova (the sentence's first subject)."""
    _say(rmem, "I live in Bergen.", "2024-01-10T09:00:00Z")
    _say(
        rmem,
        "Tova got a residency in Tromsø so we move up there in March, found a flat in Kvaløya.",
        "2024-11-02T09:00:00Z",
    )
    assert _current(rmem, "tova", "lives_in") == []
    assert [v.value for v in _versions(rmem, "user", "lives_in")][0] == "Bergen"
    assert len(_versions(rmem, "user", "lives_in")) == 2


def test_a_verb_joined_after_a_reason_carries_on_the_main_clause() -> None:
    from veramem_desktop.models.llm.rules.parse import parse

    said = parse("I quit because my manager was awful, and joined Pellmore Foods.")
    assert [(c.verb, c.subject.text if c.subject else None) for c in said.clauses if c.verb == "join"] == [
        ("join", "I")
    ]


def test_a_pronoun_after_a_request_cut_away_is_the_relative_the_request_named(rmem: Memory) -> None:
    """The request ("could you write a leaving speech for my brother") is no fact and is not stored, yet the
    "he" after it is still the brother: his new employer is his, never the asker's."""
    _say(rmem, "I work at Brindle Labs.", "2025-01-10T09:00:00Z")
    _say(
        rmem,
        "could you write a leaving speech for my brother, he got a job at Ostrava Freight and starts in May",
        "2025-04-02T09:00:00Z",
    )
    assert _current(rmem, "user's brother", "works_at") == ["Ostrava Freight"]
    assert _current(rmem, "user", "works_at") == ["Brindle Labs"]


def test_a_relative_named_in_a_request_or_a_question_is_known_though_the_request_is_no_fact(
    rmem: Memory,
) -> None:
    """What a request asks is not stored, but whom it names by name in passing is so: "my area manager
    Rachel" makes Rachel the asker's boss, and "my nephew Jonah" Jonah their nephew."""
    _say(
        rmem,
        "can u help me write to my area manager Rachel about the rota, we're 2 short",
        "2025-03-01T09:00:00Z",
    )
    _say(rmem, "what should I get my nephew Jonah for his 10th?", "2025-03-02T09:00:00Z")
    assert _current(rmem, "user", "relation:boss") == ["Rachel"]
    assert _current(rmem, "user", "relation:nephew") == ["Jonah"]
    assert not [
        h
        for h in rmem.search("help me write to my area manager", k=10).results
        if "help me" in h.text and h.kind != "episode"
    ]


def test_a_sentence_whose_pronoun_names_a_relative_is_its_own_memory_keyed_to_them(rmem: Memory) -> None:
    """ "She is allergic to peanuts." after "My sister Ana is visiting on Saturday." is a memory of its own in
    full words, keyed to Ana's allergy; the relation the pronoun stands for was said by the sentence before and
    is not restated by it."""
    _say(rmem, "My sister Ana is visiting on Saturday. She is allergic to peanuts.", "2025-03-01T09:00:00Z")
    texts = [h.text for h in rmem.search("is Ana allergic to anything?", k=10).results if h.kind != "episode"]
    assert "User's sister Ana is allergic to peanuts." in texts, texts
    assert _current(rmem, "Ana", "allergic_to") == ["peanuts"]
    assert _current(rmem, "user", "relation:sister") == ["Ana"]
