"""The asked attribute's statements (core/recall/asked.py): when a first-person question asks one of the
person's attributes, the newest of the person's own statements of it leads, however it was said, and the
older ones read ``probably_superseded``; someone else's news, history, requests and an assistant's lines
never lead. The write path's keys are removed (the model here records no change), so recall alone is
seen. Real SQLCipher store, the real ONNX embedder; every sentence is written for these tests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from support.keyless_model import keyless_memory
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import asked, questions, statements
from veramem_desktop.core.recall.hits import Hit

from veramem_desktop.memory import Memory


@pytest.fixture
def keyless(isolated_home: Path, real_embedder: Embedder) -> Iterator[Memory]:
    mem = keyless_memory(isolated_home, real_embedder)
    yield mem
    mem.close()


def said(mem: Memory, text: str, day: str, role: str = "user") -> str | None:
    """Add one message at ``day`` (noon UTC); the id of the memory made from it (None: nothing was)."""
    done = mem.add([{"role": role, "content": text, "time": f"{day}T12:00:00+00:00"}])
    made = done.added + done.updated
    return str(made[0]["id"]) if made else None


def _memories(hits: list, word: str) -> list:  # type: ignore[type-arg]
    return [h for h in hits if word in h.text and h.kind != "episode"]


def test_a_change_said_with_no_frame_but_the_attributes_noun_leads_and_the_old_value_is_past(
    keyless: Memory,
) -> None:
    said(keyless, "I work at Fenwick Dairy, mostly on the night shift.", "2023-03-02")
    new = said(
        keyless, "Third week of the new job at Marlowe Robotics and I still forget names.", "2024-09-12"
    )
    hits = keyless.search("Where do I work these days?", k=10).results
    assert hits[0].id == new and hits[0].state == "current"
    old = _memories(hits, "Fenwick")
    assert old and all(h.state == "probably_superseded" and h.superseded_by == new for h in old)
    answer = keyless.answer("Where do I work these days?")
    assert not answer.abstained
    assert "Marlowe Robotics" in answer.text
    assert "Fenwick" not in answer.text or answer.text.index("Marlowe") < answer.text.index("Fenwick")


def test_someone_elses_news_never_replaces_the_persons_own_value(keyless: Memory) -> None:
    own = said(keyless, "I work at Fenwick Dairy.", "2023-03-02")
    said(keyless, "My sister just started at Pellucid Audio, she's thrilled.", "2024-09-12")
    hits = keyless.search("Where do I work?", k=10).results
    assert next(h for h in hits if h.id == own).state == "current"
    assert all(h.state != "probably_superseded" for h in hits)


def test_the_old_value_told_as_history_or_asked_about_never_leads(keyless: Memory) -> None:
    own = said(keyless, "I bank with Orrery Savings.", "2023-05-10")
    said(keyless, "My old account at Tamber Mutual had better interest, honestly.", "2024-01-20")
    said(keyless, "Can you compare Lodestar Bank with what I have?", "2024-02-03")
    hits = keyless.search("Which bank am I with?", k=10).results
    assert hits[0].id == own and hits[0].state == "current"


def test_an_assistants_line_never_leads_the_persons_own_words(keyless: Memory) -> None:
    own = said(keyless, "My phone is a Nokia XR21, it survives anything.", "2023-05-10")
    said(keyless, "The Harlow Nine would suit you better than the Nokia.", "2024-02-03", role="assistant")
    hits = keyless.search("What phone do I have?", k=10).results
    assert hits[0].id == own


def test_the_answer_speaks_when_the_top_hit_states_the_asked_attribute_in_other_words(
    keyless: Memory,
) -> None:
    # no word of the question ("vehicle", "drive") is in the statement: the asked attribute answers
    said(keyless, "Picked up a secondhand Mazda CX-5 on Saturday, a bit scratched.", "2024-04-06")
    answer = keyless.answer("What vehicle do I drive now?")
    assert not answer.abstained
    assert "Mazda CX-5" in answer.text


def test_three_statements_give_the_newest_first_and_both_older_ones_replaced(keyless: Memory) -> None:
    said(keyless, "I'm on the Ledger team, the slow one.", "2022-11-01")
    said(keyless, "Moved over to the Atlas team after the reorg.", "2023-10-01")
    newest = said(keyless, "Third reorg this year, the Beacon team took me in.", "2024-10-01")
    hits = keyless.search("Which team am I on?", k=10).results
    assert hits[0].id == newest
    for word in ("Ledger", "Atlas"):
        assert all(h.state == "probably_superseded" for h in _memories(hits, word))


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("Mum finally sold the house in Deal.", True),
        ("User's brother took a job at Ostara Freight.", True),
        ("Kenji's new place is tiny.", True),
        ("He moved to Leeds in the spring.", True),
        ("Week two at Corran Bio, the coffee is bad.", False),
        ("We got the keys to the Harrogate flat.", False),
        ("My new flat in Bristol has a balcony.", False),
        ("It's Tellanova now, the old lot kept dropping calls.", False),  # the thing spoken of, as it is now
        ("It was her birthday on Sunday.", True),
    ],
)
def test_who_a_statement_opens_with(text: str, other: bool) -> None:
    assert statements.about_someone_else(text) is other


def test_a_named_persons_newest_statement_leads_for_a_question_about_them(keyless: Memory) -> None:
    said(keyless, "My cousin Ilse teaches chemistry at Dunmore Grammar.", "2023-01-09")
    said(keyless, "I work at Fenwick Dairy.", "2023-06-01")
    new = said(keyless, "Ilse got hired by Quillfeather Labs, no more marking!", "2024-11-02")
    hits = keyless.search("Where does Ilse work now?", k=10).results
    assert hits[0].id == new
    assert all(h.state == "probably_superseded" for h in _memories(hits, "Dunmore"))
    # the asker's own job is no statement of hers
    assert all(h.state == "current" for h in _memories(hits, "Fenwick"))


@pytest.mark.parametrize(
    ("question", "person"),
    [
        ("Where does my brother Tomás work?", {"brother", "tomás"}),
        ("Where does my mum live now?", {"mum"}),
        ("What is Gerald's cat called?", {"gerald"}),
        ("Where was Zoë in May 2025?", {"zoë"}),
        ("Who is my partner now?", set()),
        ("Which area of Lisbon do we live in?", set()),
        ("Who is my GP?", set()),
        # contracted, and typed all in lower case: a word the lexicon does not know, asked about, is a name
        ("who's my partner now?", set()),
        ("which school does oyelaran teach at now?", {"oyelaran"}),
        ("what's brannagh's job these days", {"brannagh"}),
        ("where do i live now?", set()),
        ("what phone am i using rn", set()),
        # "is" typed without its apostrophe: the relation itself is asked
        ("whos my manager these days", set()),
    ],
)
def test_whom_a_question_asks_about(question: str, person: set[str]) -> None:
    assert questions.person_asked(question) == frozenset(person)


def test_a_thing_the_inventory_has_no_attribute_for_is_grouped_by_the_questions_noun(keyless: Memory) -> None:
    said(keyless, "The allotment committee chair is Brenda Sowerby, very strict.", "2023-04-01")
    said(keyless, "I work at Fenwick Dairy.", "2023-06-01")
    new = said(keyless, "New allotment chair since the vote: Omar Haddad, thank goodness.", "2024-05-20")
    hits = keyless.search("Who is the chair of my allotment?", k=10).results
    assert hits[0].id == new
    assert all(h.state == "probably_superseded" for h in _memories(hits, "Sowerby"))
    assert all(h.state == "current" for h in _memories(hits, "Fenwick"))


@pytest.mark.parametrize(
    ("question", "nouns"),
    [
        ("Who is my landlord?", {"landlord"}),
        ("Who is my mortgage with?", {"mortgage"}),
        ("Where do I keep my passport?", {"passport"}),
        # a word the lexicon does not know is a noun where one is owned
        ("who's our childminder now?", {"childminder"}),
        # a phrase saying when or for what asks nothing beside another noun ...
        ("which plumber did we use at the end of 2019?", {"plumber"}),
        ("what gloves do I box in at the leisure centre?", {"glove"}),
        # ... and is what is asked when nothing else is
        ("what am I taking for my hay fever?", {"hay", "fever"}),
    ],
)
def test_the_nouns_a_question_asks_about(question: str, nouns: set[str]) -> None:
    assert questions.asked_nouns(question) == frozenset(nouns)


def test_where_a_person_works_is_answered_by_the_employer_though_one_message_gave_the_role_too(
    rmem: Memory,
) -> None:
    # one message keys two attributes (employer and role); the question asks where: the employer answers
    rmem.add(
        [
            {
                "role": "user",
                "content": "I work at Harbin Outfitters as a data engineer.",
                "time": "2023-02-01T09:00:00Z",
            }
        ]
    )
    rmem.add(
        [
            {
                "role": "user",
                "content": "I started at Oakmere Foods as a product designer.",
                "time": "2024-03-04T09:00:00Z",
            }
        ]
    )
    answer = rmem.answer("Where do I work?")
    assert not answer.abstained
    assert "Oakmere Foods" in answer.text
    assert "Harbin" not in answer.text or answer.text.index("Oakmere") < answer.text.index("Harbin")
    assert not answer.text.startswith("Your profession")


def test_a_multi_valued_thing_asked_now_puts_the_newest_statement_first_and_replaces_nothing(
    keyless: Memory,
) -> None:
    said(keyless, "Signed up for Portuguese evening classes with Ines.", "2023-09-01")
    new = said(keyless, "Portuguese is paused, Japanese from this week.", "2025-02-10")
    hits = keyless.search("Which language am I learning now?", k=10).results
    assert hits[0].id == new
    assert all(h.state != "probably_superseded" for h in hits)


@pytest.mark.parametrize(
    ("text", "other"),
    [("German's on hold for now.", False), ("Priya's new job is in Leeds.", True)],
)
def test_a_value_before_a_contraction_is_no_person(text: str, other: bool) -> None:
    assert statements.about_someone_else(text) is other


def test_a_change_told_against_the_old_value_leads_and_is_answered_with_the_new_value_alone(
    rmem: Memory,
) -> None:
    """No frame reads "jumped over to", and the line is far from the question; it names the keyed old
    value beside a new name, so it is a statement of the attribute, and the answer says the new value
    plainly (the sentence word for word would name the old one as if current)."""
    from veramem_desktop.bench.truth_natural_section import stale_as_current

    said(rmem, "I train at Ironclad Gym, five mornings a week.", "2023-02-11")
    new = said(rmem, "Ironclad doubled the fees so I jumped over to Pulsefit last month.", "2024-06-03")
    assert rmem.search("Which gym do I go to?", k=10).results[0].id == new
    answer = rmem.answer("Which gym do I go to?")
    assert not answer.abstained and "Pulsefit" in answer.text
    assert not stale_as_current(answer.text, ["Ironclad"]), answer.text


def test_a_statement_naming_only_an_old_value_never_leads(keyless: Memory) -> None:
    """The newest line about the car names only the car said before (here it says it was sold): it tells
    of the old value, so the change before it still leads, and the old car's statement is history."""
    said(keyless, "My car is a Renault Zoe, tiny but fine.", "2023-02-11")
    new = said(keyless, "Picked up a Tesla Model 3 on Saturday, the car is a dream.", "2024-05-01")
    said(keyless, "Sold the Zoe to a neighbour, that car had done ninety thousand miles.", "2024-05-09")
    hits = keyless.search("What car do I drive?", k=10).results
    assert hits[0].id == new, [h.text for h in hits[:3]]
    old = [h for h in _memories(hits, "Renault Zoe") if h.state == "current"]
    assert not old, [h.text for h in old]


def test_a_later_line_naming_no_value_never_leads_the_change_it_speaks_of(rmem: Memory) -> None:
    """ "The new flat …" speaks of the home and names none: the statement naming the new town leads."""
    said(rmem, "I live in Harwick, near the ring road.", "2023-02-11")
    moved = said(rmem, "Got the keys to our place in Dunmere today!", "2024-03-11")
    said(rmem, "The new flat has the worst radiators, honestly.", "2025-04-11")
    hits = rmem.search("Where do I live?", k=10).results
    assert hits[0].id == moved, [(h.text, h.state) for h in hits[:3]]


def test_a_message_ending_the_old_value_and_naming_the_new_one_leads(rmem: Memory) -> None:
    """One sentence says the old job stopped, the next names the new place in words no frame has: the
    message names the ended value beside a new name, so it is a statement of the attribute, and it
    leads; the ending alone states no value that holds."""
    said(rmem, "Quarrow Print is grinding me down, 60 hour weeks.", "2023-02-11")
    said(
        rmem,
        "It's been two weeks since I walked out of Quarrow for good. The new place, Lindqvist & Moe, is calmer.",
        "2024-03-11",
    )
    hits = rmem.search("Where do I work?", k=10).results
    assert "Lindqvist & Moe" in hits[0].text, [(h.text, h.state) for h in hits[:3]]


@pytest.mark.parametrize(
    ("text", "stopped"),
    [
        ("Walked out of Quarrow for good. The new place, Lindqvist & Moe, is calmer.", {"quarrow"}),
        ("I quit Brantwood Gym last month.", {"brantwood"}),
        ("I quit Brantwood Gym and joined Corvel Fitness.", set()),
        ("Lindqvist & Moe is calmer.", set()),
    ],
)
def test_the_values_a_message_says_stopped(text: str, stopped: set[str]) -> None:
    found = statements.ended(text)
    assert stopped <= found, found
    assert not found & {"corvel", "fitness", "lindqvist", "moe"}, found  # a value said to hold never stopped


def test_an_it_before_the_speaker_is_no_one_else() -> None:
    assert not statements.about_someone_else("It's been a month since I left Quarrow.")
    assert statements.about_someone_else("It's her third year at Quarrow, she loves it.")


@pytest.mark.parametrize(
    ("text", "stopped"),
    [
        ("Our hamster Pip passed away last night.", {"pip"}),  # the name the ending is said of
        ("Copperline closed down, so I moved my membership to Vantage Fitness.", {"copperline"}),
        ("Dropped tennis, it was hurting my elbow.", {"tennis"}),  # a value of the ending's attribute
        ("Imogen's old Saffron died in March.", {"saffron"}),  # not the owner
        ("Gave up on Danish, too many silent letters.", {"danish"}),
        ("We adopted a greyhound called Pilot.", set()),
        ("Left the keys with Marguerite.", set()),  # an ending of many uses needs its attribute said
        ("Signed with Marrowby Ltd, goodbye night shifts.", {"night", "shifts"}),  # a farewell
        # dropped whatever it was, its name typed in lower case: unknown to the lexicon, or an inventory value
        ("ditched brackenfit for the pool at the leisure centre", {"brackenfit"}),
        ("Ditched nano for zed, way faster.", {"nano"}),
        ("switched from tellanova to a sim-only deal", {"tellanova"}),
        ("ditched the car at the station lol", set()),  # a common noun is no name
        # a thing given up or cancelled, whatever it was
        ("Cancelled the Courier after thirty years, the price is daylight robbery.", {"courier"}),
        ("Finally gave up Duolingo, the owl can shout all it likes.", {"duolingo"}),
        # an ending of many uses said of a name: whatever the name was, it ended
        ("Also left Harrowgate Harriers, the Tuesday sessions were brutal.", {"harrowgate", "harriers"}),
        ("left the Bellcourt in March, still miss the canteen", {"bellcourt"}),
        ("Left Mum's at six, the traffic was awful.", set()),  # a word for family is no name
        ("left work early to beat the rain", set()),
        ("Left Tomasz a voicemail about Friday.", set()),  # whom it was left for
        ("she's leaving brightvale after 6 yrs", {"brightvale"}),  # a name typed in lower case
        # a word of grammar the lexicon of nouns and verbs lacks is never a name typed in lower case
        ("Our Kestrel Fibre drops every evening around 8.", set()),
        ("dropped five kilos since march", set()),
    ],
)
def test_a_clause_saying_an_ending_names_the_value_that_stopped(text: str, stopped: set[str]) -> None:
    assert statements.ended(text) == frozenset(stopped)


def test_a_pet_that_died_is_replaced_by_the_newest_pet_though_pets_sit_side_by_side(rmem: Memory) -> None:
    """Pets are multi-valued: a new one replaces nothing by itself. The death said in between ends the old
    one, so its statement is history and the newest statement holding leads, in search and in the answer."""
    from veramem_desktop.bench.truth_natural_section import stale_as_current

    said(rmem, "Our rabbit Clover adores dandelion leaves.", "2023-04-02")
    said(rmem, "Clover died on Sunday, the house is so quiet.", "2024-02-12")
    new = said(rmem, "We adopted a greyhound called Pilot from the rescue centre.", "2024-06-20")
    hits = rmem.search("What pets do we have now?", k=10).results
    assert "Pilot" in hits[0].text, [h.text for h in hits[:3]]
    old = _memories(hits, "dandelion")
    assert old and all(h.state == "probably_superseded" and h.superseded_by == new for h in old)
    answer = rmem.answer("What pets do we have now?")
    assert not answer.abstained and "Pilot" in answer.text
    assert not stale_as_current(answer.text, ["Clover"]), answer.text


def test_two_pets_alive_side_by_side_replace_nothing(rmem: Memory) -> None:
    said(rmem, "Our rabbit Clover adores dandelion leaves.", "2023-04-02")
    said(rmem, "We adopted a greyhound called Pilot from the rescue centre.", "2024-06-20")
    hits = rmem.search("What pets do we have now?", k=10).results
    assert all(h.state != "probably_superseded" for h in hits)


def test_someone_elses_thing_ended_and_a_pronoun_giving_the_new_one_leads(rmem: Memory) -> None:
    """The new cat is said with "She", in the message that names Imogen: the pronoun speaks of her, and
    the old cat, said to have died, is history."""
    from veramem_desktop.bench.truth_natural_section import stale_as_current

    said(rmem, "My neighbour Imogen has a tabby called Saffron who visits our garden.", "2023-05-14")
    said(rmem, "Imogen's old Saffron died in March. She's adopted a kitten named Pickle.", "2024-09-03")
    hits = rmem.search("What is Imogen's cat called?", k=10).results
    assert "Pickle" in hits[0].text, [h.text for h in hits[:3]]
    old = _memories(hits, "visits our garden")
    assert old and all(h.state == "probably_superseded" for h in old)
    answer = rmem.answer("What is Imogen's cat called?")
    assert not answer.abstained and "Pickle" in answer.text
    assert not stale_as_current(answer.text, ["Saffron"]), answer.text


def test_an_activity_someone_dropped_is_history_beside_the_new_one(rmem: Memory) -> None:
    from veramem_desktop.bench.truth_natural_section import stale_as_current

    said(rmem, "Remind me that Oskar's fencing club meets on Thursdays at the Wexley Hall.", "2023-10-01")
    said(rmem, "Oskar dropped fencing, he's doing karate at the Hollow Dojo on Mondays now.", "2024-03-05")
    answer = rmem.answer("What activity does Oskar do now?")
    assert not answer.abstained and "karate" in answer.text
    assert not stale_as_current(answer.text, ["fencing"]), answer.text


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        (
            "Copperline shut down, so I moved my membership to Vantage Fitness.",
            "I moved my membership to Vantage Fitness.",
        ),
        ("Pip passed away, we adopted a kitten named Quince.", "We adopted a kitten named Quince."),
        ("Oskar dropped fencing, he's doing karate now.", "Oskar dropped fencing, he's doing karate now."),
        ("Pip passed away.", "Pip passed away."),
        (
            "Signed with Marrowby Ltd as a buyer, goodbye night shifts.",
            "Signed with Marrowby Ltd as a buyer.",
        ),
    ],
)
def test_a_clause_telling_the_old_thing_ended_is_left_to_the_history(sentence: str, said: str) -> None:
    assert statements.without_told_ends(sentence) == said


def test_a_place_that_closed_is_said_as_past_and_the_new_one_as_current(rmem: Memory) -> None:
    from veramem_desktop.bench.truth_natural_section import stale_as_current

    said(rmem, "The gym I go to is Copperline Fitness on Dock Street.", "2023-03-04")
    new = said(rmem, "Copperline shut down, so I moved my membership to Vantage Fitness.", "2024-08-19")
    hits = rmem.search("Which gym do I go to?", k=10).results
    assert "Vantage" in hits[0].text, [h.text for h in hits[:3]]
    assert all(h.state == "probably_superseded" for h in _memories(hits, "Dock Street"))
    answer = rmem.answer("Which gym do I go to?")
    assert not answer.abstained and "Vantage Fitness" in answer.text
    assert not stale_as_current(answer.text, ["Copperline"]), answer.text
    assert new is not None


def test_the_speakers_own_clause_gives_no_value_of_the_person_asked_about(rmem: Memory) -> None:
    """ "I'm back in Kettering" beside Anselm's town is the speaker's home, not Anselm's: the statement naming
    his town leads, and the answer never gives the speaker's town as his."""
    from veramem_desktop.bench.truth_natural_section import stale_as_current

    said(rmem, "My cousin Anselm bought a house in Bergen.", "2023-02-01")
    said(rmem, "Anselm stays in Bergen for good; I'm back in Kettering with the kids.", "2024-05-11")
    hits = rmem.search("Where does Anselm live?", k=10).results
    # the newest statement of his home leads, read as his (its other clause is the speaker's, never his value)
    assert "Bergen" in hits[0].text and "Kettering" not in (hits[0].value or ""), [h.text for h in hits[:3]]
    answer = rmem.answer("Where does Anselm live?")
    assert not answer.abstained and "Bergen" in answer.text
    assert not stale_as_current(answer.text, ["Kettering"]), answer.text


def _hit(text: str, day: str, authority: str = "authorized") -> Hit:
    return Hit(
        id=text[:12],
        kind="fact",
        text=text,
        score=1.0,
        authority=authority,
        trust="raw",
        time=f"{day}T12:00:00+00:00",
    )


def test_a_line_telling_history_comes_after_the_present_for_a_question_about_now() -> None:
    past = _hit("I used to drink three energy drinks a day, wild times.", "2024-06-01")
    now = _hit("These days I mostly drink rooibos in the afternoons.", "2024-03-01")
    assert asked.settle([past, now], "What do I drink in the afternoons?") == [now, past]
    # a question about the past asks for history: the order stays
    assert asked.settle([past, now], "What did I drink before?") == [past, now]
    assert asked.settle([past, now], "What was I drinking in May 2024?") == [past, now]
    # someone else's line is not the person's history to move
    claim = _hit("You used to drink three energy drinks a day.", "2024-06-01", authority="attested")
    assert asked.settle([claim, now], "What do I drink in the afternoons?") == [claim, now]


def test_a_line_telling_only_an_end_or_history_comes_after_the_present_for_a_question_about_now() -> None:
    now = _hit("These days I mostly drink rooibos in the afternoons.", "2024-03-01")
    for line in (
        "Ditched the Zingo cans, never again.",  # an ending, naming nothing that holds
        "No Zingo anymore, my dentist was horrified.",  # history with no word for now
        "When the Zingo cans were in the fridge I never slept.",  # opening on what held when it was so
    ):
        told = _hit(line, "2024-06-01")
        assert asked.settle([told, now], "What do I drink in the afternoons?") == [now, told], line
    # an end said beside what holds now is no history only
    instead = _hit("Ditched the Zingo cans, Rooibos Gold now.", "2024-06-01")
    assert asked.settle([instead, now], "What do I drink in the afternoons?")[0] is instead
    # a "when" clause said after what the line states is no history ("moved when the lease was up")
    assert not statements.told_past("Switched to Rooibos Gold when the shop was out of Zingo.")


def test_the_persons_history_never_ranks_first_for_a_question_about_now(rmem: Memory) -> None:
    said(rmem, "These days I mostly drink rooibos in the afternoons.", "2024-03-01")
    said(rmem, "I used to drink three energy drinks a day, wild times.", "2024-06-01")
    hits = rmem.search("What do I drink in the afternoons?", k=10).results
    first_past = next(i for i, h in enumerate(hits) if "used to" in h.text)
    first_now = next(i for i, h in enumerate(hits) if "rooibos" in h.text)
    assert first_now < first_past, [h.text for h in hits[:3]]


@pytest.mark.parametrize(
    ("noun", "role"),
    [
        ("parents", "relation:parents"),
        ("folks", "relation:parents"),
        ("sisters", "relation:sister"),
        ("is", None),
    ],
)
def test_a_relation_is_named_in_the_plural_too(noun: str, role: str | None) -> None:
    from veramem_desktop.core import attributes

    assert attributes.relation_of_any_number(noun) == role


def test_the_parents_home_is_theirs_and_the_persons_own_move_never_replaces_it(rmem: Memory) -> None:
    assert statements.about_someone_else("My parents retired to a little place in Aldeburgh.")
    theirs = said(rmem, "My parents retired to a little place in Aldeburgh.", "2023-04-18")
    said(rmem, "We finally got a flat in Hexham, about an hour's drive from my parents.", "2024-09-02")
    hits = rmem.search("Where do my parents live?", k=10).results
    assert "Aldeburgh" in hits[0].text, [h.text for h in hits[:3]]
    assert all(h.state == "current" for h in hits if h.id == theirs)


def test_what_is_my_job_is_answered_by_the_new_role_and_the_farewell_to_the_old_one_is_past(
    rmem: Memory,
) -> None:
    """ "job" names the employer and the role alike; the sentence giving the new role bids the old job
    farewell, which the answer leaves to the history."""
    from veramem_desktop.bench.truth_natural_section import stale_as_current

    assert questions.asked("What is my job?") == frozenset({"works_at", "occupation"})
    said(rmem, "I pick orders in a warehouse, nights mostly.", "2023-01-09")
    said(rmem, "Accepted an offer as a lab technician at Quarrowby Labs, goodbye warehouse.", "2024-10-21")
    answer = rmem.answer("What is my job?")
    assert not answer.abstained and "lab technician" in answer.text
    assert not stale_as_current(answer.text, ["warehouse"]), answer.text


@pytest.mark.parametrize(
    ("text", "attached"),
    [
        ("Walking from the new place to Ferris Wharf takes ten minutes.", set()),
        ("The new flat in Dunmurry is freezing.", {"dunmurry"}),
        ("Our Portadown flat has mould again.", {"portadown"}),
        ("I moved to Lisburn in May.", None),  # a frame says it: its value is where the frame puts it
        ("Ferris Wharf is lovely in the evening.", None),  # no noun of the attribute
    ],
)
def test_a_statement_said_by_the_attributes_noun_names_only_what_is_attached_to_it(
    text: str, attached: set[str] | None
) -> None:
    found = statements.attached_values(text, "lives_in")
    assert found == (frozenset(attached) if attached is not None else None)


def test_a_later_line_about_the_new_place_naming_a_landmark_never_replaces_the_town(keyless: Memory) -> None:
    said(keyless, "I live in Ardglass, by the harbour.", "2022-05-02")
    town = said(keyless, "The new flat in Dunmurry has a huge window!", "2024-03-09")
    said(keyless, "Walking from the new place to Ferris Wharf takes ten minutes.", "2024-07-21")
    hits = keyless.search("Which town do I live in now?", k=10).results
    assert hits[0].id == town, [h.text for h in hits[:3]]
    assert all(h.state == "probably_superseded" for h in _memories(hits, "Ardglass"))


def _close(text: str, authority: str, closeness: float) -> Hit:
    h = _hit(text, "2024-01-01", authority=authority)
    h.closeness = closeness
    return h


def test_a_claim_never_comes_before_the_persons_own_closer_statement() -> None:
    claim = _close("Refereeing keeps you fit.", "attested", 0.5)
    own = _close("I referee the under-12s at Dockside Rovers on Sundays.", "authorized", 0.6)
    assert asked._own_before_closer_claims([claim, own], "What do I do at Dockside Rovers?") == [own, claim]
    # the person's own statements keep their order: the claim moves down, nothing else moves up
    newer = _close("These days I mostly referee.", "authorized", 0.3)
    assert asked._own_before_closer_claims([claim, newer, own], "What do I do at Dockside Rovers?") == [
        newer,
        own,
        claim,
    ]
    # a claim closer than every own statement stays where it is
    far = _close("I referee the under-12s at Dockside Rovers on Sundays.", "authorized", 0.4)
    assert asked._own_before_closer_claims([claim, far], "What do I do at Dockside Rovers?") == [claim, far]


def test_a_statement_opening_on_a_denial_of_the_old_value_never_leads(rmem: Memory) -> None:
    """ "Not missing Larkspur Row one bit" names the old street after the move: it is history, the newest
    statement that holds leads, on search as on the answer."""
    said(
        rmem,
        "can you draft a note to our landlord Mr Pellow? the damp at 9 Larkspur Row is back again",
        "2021-03-02",
    )
    said(
        rmem, "WE GOT THE KEYS to the new place on Quenby Street!!! the letting agent is lovely", "2021-09-20"
    )
    said(
        rmem,
        "ideas for a rainy saturday with a toddler? the library from Quenby Street is like 3 mins which is "
        "great. not missing Pellow and that damp at Larkspur Row one bit lol. anyway, cheap ones please",
        "2022-06-11",
    )
    hits = rmem.search("What street do we live on now?", k=10).results
    assert "Quenby" in hits[0].text, [(h.text, h.state) for h in hits[:4]]


def test_a_noun_inside_a_longer_noun_of_the_inventory_asks_the_longer_ones_attribute() -> None:
    """ "coffee place" is a café, not the home a "place" is; "car insurance" is no car."""
    from veramem_desktop.core.recall.statements import noun_spans

    assert questions.asked("What's my go-to coffee place now?") == frozenset({"cafe"})
    assert {name for _, name in noun_spans(["our", "car", "insurance", "went", "up"])} == {"insurance"}


@pytest.mark.parametrize("opener", ["Ok", "Tbh", "Btw", "Yeah", "Lol"])
def test_a_chat_particle_opening_a_statement_is_no_other_person(opener: str) -> None:
    from veramem_desktop.core.recall.statements import read

    found = read(f"{opener} switched to Thistledown Bank last week.")
    assert found is not None and not found.other, found


def test_asked_about_someone_they_know_a_claim_never_comes_before_the_persons_own_closer_statement() -> None:
    """ "what's oriel's job now?": the person's own line about Oriel outranks an assistant's line that is
    less close, as for a question about themselves."""
    claim = _close("According to the assistant: A flask of soup helps on night shifts.", "attested", 0.1)
    own = _close("Oriel got promoted to charge nurse!!!", "authorized", 0.7)
    assert asked._own_before_closer_claims([claim, own], "what's oriel's job now?") == [own, claim]
    # a question about no one keeps the order relevance gave
    assert asked._own_before_closer_claims([claim, own], "what helps on night shifts?") == [claim, own]


def test_a_word_said_as_a_noun_of_one_attribute_asks_that_one_not_the_one_it_is_a_value_of() -> None:
    """ "dentist" is an occupation one may have and the noun of the dentist one sees: "who's my dentist?"
    asks the latter, never the asker's occupation; "am I still a dentist?" names no noun and asks the
    former."""
    assert questions.asked("who's our dentist these days?") == frozenset({"dentist"})
    assert questions.asked("which doctor do I see now?") == frozenset({"doctor"})
    assert "occupation" in questions.asked("am I still working as a dentist?")


def test_a_frame_whose_subject_is_a_noun_phrase_states_nothing_of_the_speaker() -> None:
    """ "the office moved to Docklands" is the office's move, not the speaker's new home; "we moved" and a
    bare "moved to" (said without a subject) are the speaker's."""
    from veramem_desktop.core.recall.statements import read

    office = read("since the office moved to Docklands in May it's the bus now")
    assert office is not None and office.other
    for own in ("We finally moved to Tarnow!", "moved to Tarnow last spring", "I moved to Tarnow."):
        found = read(own)
        assert found is not None and not found.other and "tarnow" in found.values, own


def test_a_sentence_opening_on_a_denial_is_history_unless_a_later_clause_says_what_holds_now() -> None:
    from veramem_desktop.core.recall.statements import tells_history

    assert not tells_history("Not Hawthorn, gave up on them ages ago — Millbrook Dental now, so much nicer.")
    assert not tells_history("Never going back to Nano, Micro is my editor these days.")
    assert tells_history("Not missing Linden Row and that damp flat one bit.")
    assert tells_history("Not Hawthorn, they closed.")


def test_a_name_beside_no_figure_never_leads_a_personal_best(keyless: Memory) -> None:
    """A personal best is a figure: a later line naming only a club ("the Wendover Striders") states none,
    so it never leads the newest line that gives the time."""
    said(keyless, "First 10k race done in 58:40, legs are jelly.", "2022-04-03")
    best = said(keyless, "Ran 10k in 51:12 at the Brockley road race, a new best!!", "2023-06-18")
    said(
        keyless,
        "Club 10k next week, been with the Wendover Striders a year now, still nervous.",
        "2023-09-02",
    )
    hits = keyless.search("what's my 10k personal best?", k=10).results
    assert hits[0].id == best
    assert "51:12" in keyless.answer("what's my 10k personal best?").text


def test_an_and_between_two_names_joins_one_phrase_never_two_clauses() -> None:
    said = "We stayed with Imogen and Rafe for the weekend, the new flat has a view"
    assert statements.clauses(said) == [
        "We stayed with Imogen and Rafe for the weekend",
        "the new flat has a view",
    ]
    # the answer's clause dropping keeps the pair whole: dropping "Rafe for the weekend" would lose a value
    kept = statements.without_clauses(said, lambda clause: clause.startswith("Rafe"))
    assert kept == said[:1].upper() + said[1:]
    assert statements.clauses("I live in Tartu and work at Veskimets") == [
        "I live in Tartu",
        "work at Veskimets",
    ]


def test_a_value_of_a_multi_valued_attribute_typed_in_lower_case_answers_what_is_learnt_now(
    rmem: Memory,
) -> None:
    """ "which language …" asks a multi-valued attribute: a newer statement naming one of its values however
    typed ("korean") is a statement of it, leads, and answers; no frame or key is needed."""
    said(rmem, "Started learning Portuguese for the trip, obrigada!", "2023-03-01")
    said(rmem, "Eight months of korean now, finally reading webtoons.", "2024-01-08")
    hits = rmem.search("what language am i learning these days", k=10).results
    assert "korean" in hits[0].text, [h.text for h in hits[:3]]
    answer = rmem.answer("what language am i learning these days")
    assert not answer.abstained and "korean" in answer.text.lower(), answer.text


def test_a_statement_keyed_to_the_questions_noun_leads_and_replaces_an_older_one_saying_the_noun() -> None:
    """ "what's our favourite restaurant these days?": the write path keyed the newer statement to
    "favourite" (no attribute of the inventory); it leads although it opens with another name ("Osteria
    Lupo shut …"), and the older one saying the noun (keyed to the husband it names) is its past."""
    old = _hit(
        "On our anniversary with User's husband we always go to Osteria Lupo, our favourite place.",
        "2021-10-15",
    )
    old.subject = "relation:partner"
    new = _hit(
        "Lupo is closed since summer so sad :( now our favourite is Kintsugi Noodles on Mill Lane.",
        "2023-02-10",
    )
    new.subject, new.value = "favourite", "Kintsugi Noodles"
    settled = asked.settle([old, new], "what's our favourite restaurant these days?")
    assert settled[0] is new and old.state == "probably_superseded" and old.superseded_by == new.id


def test_a_face_drawn_with_a_bracket_is_no_bracket_to_close() -> None:
    said = statements.without_told_ends(
        "Lupo closed down last summer so sad :( now we go to Kintsugi Noodles."
    )
    assert said == "Sad :( now we go to Kintsugi Noodles.", said


def test_the_newest_statement_of_an_owned_noun_answers_though_it_shares_no_word_with_the_question(
    rmem: Memory,
) -> None:
    """ "who's our childminder now?": the newer statement never says "childminder" ("switched to Ottilie"),
    yet it is the asked thing's statement, leads, and answers: the words the older one shared cover it."""
    said(rmem, "Our childminder Marisol does Fridays.", "2022-09-05")
    said(rmem, "Marisol has retired, we've switched to Ottilie from next week.", "2023-11-13")
    from veramem_desktop.bench.truth_natural_section import stale_as_current

    answer = rmem.answer("who's our childminder now?")
    assert not answer.abstained and "Ottilie" in answer.text, answer.text
    assert not stale_as_current(answer.text, ["Marisol"]), answer.text
    # what it replaced is the one the newer line says stopped, never a weekday ("before that, Fridays")
    assert "before that, Marisol" in answer.text, answer.text


def test_of_one_days_statements_the_one_naming_a_value_the_inventory_gives_the_attribute_leads() -> None:
    """ "what car do we drive now?": the same day said "part-exed the saxo for a Kia Ceed" and "the car
    insurance moved to Churchill"; the make is a car, the insurer's name may be anything: the first leads."""
    old = _hit("The Saxo's got a roof box so space is fine.", "2022-03-17")
    old.subject = "car"
    car = _hit("Part-exed the saxo for a Kia Ceed in the week of 2023-03-13!!", "2023-03-21")
    insurer = _hit(
        "Also insurance moved to Churchill since Admiral wanted £900 for the new car, mad.", "2023-03-21"
    )
    old.closeness, car.closeness, insurer.closeness = 0.24, 0.43, 0.30
    settled = asked.settle([old, insurer, car], "what car do we drive now?")
    assert settled[0] is car, [h.text for h in settled]


@pytest.mark.parametrize(
    ("question", "attributes"),
    [
        # the noun of a phrase saying where or for what is no attribute asked, nor a value of one
        ("which energy supplier have we got at home?", {"energy_supplier"}),
        ("who's the manager on my team at work?", {"relation:boss"}),
        ("what gym do I go to near work?", {"gym"}),
        # unless nothing else is asked
        ("what does Ingrid do for work these days?", {"works_at", "occupation"}),
    ],
)
def test_a_prepositional_phrase_asks_only_when_nothing_else_does(question: str, attributes: set[str]) -> None:
    assert questions.asked(question) == frozenset(attributes)


def test_a_word_owned_in_a_question_is_a_noun_not_a_frames_verb() -> None:
    """ "my rent" is the rent, not renting from a landlord; "who do I rent from?" still asks the landlord."""
    assert questions.asked("When is my rent due?") == frozenset()
    assert questions.asked("who do I rent from?") == frozenset({"relation:landlord"})


@pytest.mark.parametrize(
    "text",
    [
        "Moved Grandad into a care home in Ely last month.",
        "We moved Tobiah to a childminder two streets away.",
        "moved the kids to Oakfield Primary",
        # a thing the verb moves, after a determiner, goes there: the speaker's home does not
        "We moved our savings over to Halden Building Society last spring.",
        "Moved the whole team over to Linear in May.",
        "moved my pension to Aviva, the fees were daft",
    ],
)
def test_a_verb_moving_a_person_reads_as_no_move_of_the_speakers_home(text: str) -> None:
    """Recall reads what the write path keys: a person or a thing the verb moves is what goes there; the
    speaker's own move ("Moved house to Ely", "We moved to Leeds") still reads as their home."""
    assert statements.read(text) is None or "lives_in" not in statements.read(text).attributes  # type: ignore[union-attr]
    assert statements.read("Moved house to Ely.").attributes == ("lives_in",)  # type: ignore[union-attr]
    assert statements.read("We moved to Leeds.").attributes == ("lives_in",)  # type: ignore[union-attr]
    assert statements.read("Finally moved over to Dundee in May.").attributes == ("lives_in",)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "attached"),
    [
        ("Tamsin Okoye is now my line manager, at least until they hire.", {"tamsin", "okoye"}),
        ("My old mentor Rhys is the new boss.", {"rhys"}),
        ("Rhys is a friend of the new boss.", set()),  # a friend *of* the boss: not said to be the boss
        ("The new boss is great.", set()),
    ],
)
def test_a_name_said_to_be_the_attributes_noun_is_its_value(text: str, attached: set[str]) -> None:
    assert statements.attached_values(text, "relation:boss") == frozenset(attached)


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("Adopted a rescue cat from the Cats Protection, she's called Mabel.", "pets"),
        ("The Car Club van is booked for Friday.", "car"),
    ],
)
def test_a_noun_inside_a_name_of_capitalised_words_is_no_noun_of_the_attribute(
    text: str, attribute: str
) -> None:
    assert not statements.attached_values(text, attribute)


@pytest.mark.parametrize(
    "line",
    ["Renewal date: 3 March 2024.", "Statement date: 2023-01-14", "Move date: 1 June"],
)
def test_the_label_of_a_labelled_line_says_no_verb(line: str) -> None:
    """ "date" is also a verb of the partner ("dating Jo"), "move" one of the home: in a document's labelled
    line it names a field, so the line states neither."""
    assert statements.read(line) is None
    assert statements.read("I started dating Jo Marsh last spring.") is not None


def test_a_question_asking_where_asks_no_attribute_whose_values_are_people() -> None:
    """'where does my mum live now?' asks her home, never whom she lives with; 'who' still may."""
    assert questions.asked("where does my mum live now?") == frozenset({"lives_in"})
    assert "lives_with" in questions.asked("who do I live with now?")


def test_a_word_of_no_content_after_a_relation_in_a_lower_case_question_is_no_one() -> None:
    """'who was our landlord at the end of 2021': typed in lower case, a word the lexicon lacks may be a
    name, but 'at' after the relation names no one: the question asks of the asker's landlord."""
    assert questions.person_asked("who was our landlord at the end of 2021") == frozenset()
    assert questions.person_asked("where does my brother dario work") == frozenset({"brother", "dario"})


@pytest.mark.parametrize(
    ("question", "not_asked", "asked_too"),
    [
        # "who" asks a person or an organisation: never a role, a city or a status
        ("who is the sous chef at my restaurant now?", "occupation", None),
        ("who do I work for these days?", "occupation", "works_at"),
        ("who shares the house with me now?", "lives_in", None),
        ("who is Tomasz married to?", "relationship_status", "relation:partner"),
        # "how" asks the way a thing is done: a frame's value said "by" ("commute by"), never the employer
        ("how do I get to work now?", "works_at", None),
        ("how was I commuting in 2023?", "works_at", "commute"),
    ],
)
def test_the_question_word_asks_an_attribute_of_its_kind(
    question: str, not_asked: str, asked_too: str | None
) -> None:
    read = questions.asked(question)
    assert not_asked not in read
    assert asked_too is None or asked_too in read


def test_a_question_asking_who_takes_a_line_about_the_person_holding_the_role(keyless: Memory) -> None:
    """'who's my sous chef?' names a role the inventory has no attribute for: a line about the person who
    holds it now ("Odile (sous chef) wants …") speaks of someone else, yet it names whom the question asks,
    and it is newer than the line that named the one before."""
    said(keyless, "The new sous chef is a quiet guy called Benedek Farkas, great with sauces.", "2022-02-07")
    new = said(
        keyless,
        "Odile (sous chef since the reshuffle) wants me to rewrite the dessert card by Friday.",
        "2023-10-19",
    )
    hits = keyless.search("who's my sous chef", k=10).results
    assert hits[0].id == new
    old = _memories(hits, "Benedek")
    assert old and all(h.state == "probably_superseded" for h in old)


def test_a_thing_described_under_its_noun_never_replaces_the_attributes_value(rmem: Memory) -> None:
    """ "My broadband is dreadful" is keyed under the noun "broadband", a description of the thing: it is
    no value of the internet provider, so the provider said before stays current and leads."""
    said(rmem, "I switched my broadband to Zephyrnet.", "2024-01-02")
    said(rmem, "My broadband is dreadful this week.", "2024-03-02")
    hits = rmem.search("who is my internet provider?").results
    first = next(h for h in hits if h.kind != "episode")
    assert "Zephyrnet" in first.text and first.state == "current"
    assert "dreadful" not in rmem.answer("who is my internet provider?").text.split("(")[0]


@pytest.mark.parametrize("typed", ["Shes", "She's", "She’s"])
def test_a_line_telling_the_asked_persons_change_by_a_pronoun_leads_though_few_words_match(
    typed: str,
) -> None:
    """'Shes moving down to Bristol …' speaks of the person its message names ("Ottilie got the job!!!"),
    however the pronoun is typed, and reads as her home by its frame: it states what is asked, so it
    leads the older line though its words are far from the question's (below the closeness a line
    stating nothing by its words needs)."""
    old = replace(_hit("Ottilie has a flat in Carlisle with two nurses.", "2022-04-02"), closeness=0.5)
    news = replace(_hit("Ottilie got the job!!!", "2023-03-03"), closeness=0.6, session_id="s1")
    moving = replace(
        _hit(f"{typed} moving down to Bristol in may, starting at the museum.", "2023-03-03"),
        closeness=0.12,
        session_id="s1",
    )
    ordered = asked.settle([old, news, moving], "what city does ottilie live in now")
    assert ordered[0] is moving, [h.text for h in ordered]


def test_a_contraction_typed_without_its_apostrophe_is_read_unless_that_spelling_is_another_word() -> None:
    forms = statements.typed_bare(frozenset({"she's", "we'll", "i'm", "we're"}))
    assert {"shes", "im"} <= forms
    assert not {"well", "were"} & forms  # words of their own


def test_the_answer_reads_the_pool_in_searchs_order() -> None:
    """The answer's context starts from search's order (its truth and time ordering already applied), not
    a fresh sort by relevance score: search and answer show the same item first."""
    from veramem_desktop.core.recall.answer import _context

    older = replace(_hit("Picnic on saturday, the tablets barely touch the pollen.", "2022-05-14"), score=2.0)
    newer = replace(_hit("Switched tablets for the pollen, these ones work.", "2023-07-08"), score=1.0)
    pool = {h.id: h for h in (newer, older)}  # search put the newer first, though it scored lower
    assert [h.id for h in _context(pool, "what do I take for the pollen now?")] == [newer.id, older.id]


@pytest.mark.parametrize(
    ("noun", "verb", "attribute"),
    [
        ("Booked a drive to Whitstable for the bank holiday.", "I drive a Skoda Octavia these days.", "car"),
        ("Her big move to Dundee went fine in the end.", "We moved to Dundee in the end.", "lives_in"),
    ],
)
def test_a_frame_verb_said_as_a_noun_after_a_determiner_states_nothing(
    noun: str, verb: str, attribute: str
) -> None:
    read = statements.read(noun)
    assert read is None or attribute not in read.attributes
    said = statements.read(verb)
    assert said is not None and attribute in said.attributes


def test_a_known_word_opening_a_later_sentence_or_written_in_capitals_for_stress_is_no_value() -> None:
    line = "Sounds perfect. Cheers for that, the Kettering one is NOT happening. Grateful as ever."
    assert statements.values(line, "") == {"kettering"}
    # a name keeps its capital wherever it stands: unknown to the lexicon, a run of capitals, an initialism
    kept = "Done. Halvorsen Dental booked. WILLOW BANK SURGERY too, and the GP at the NHS one."
    assert {"halvorsen", "dental", "willow", "bank", "surgery", "nhs", "gp"} <= statements.values(kept, "")


def test_a_single_letter_after_a_figure_is_a_unit_not_a_value() -> None:
    assert statements.values("Year two now, 200L chemistry at the poly.", "") == {"200"}


@pytest.mark.parametrize(
    ("question", "person"),
    [
        # a capital inside a question is a name's though the lexicon knows the word
        ("which swimming club does Rob go to now?", {"rob"}),
        ("what school is Hope at these days?", {"hope"}),
        # a name joined to the asker by "and" asks of the household: the asker's own
        ("where do Priyanka and I live now?", set()),
        ("where do me and Oyelaran rent these days?", set()),
    ],
)
def test_whom_a_question_names_by_a_capital(question: str, person: set[str]) -> None:
    assert questions.person_asked(question) == person


def test_an_owned_adjective_with_no_noun_after_it_is_what_the_question_asks() -> None:
    assert questions.asked_nouns("who's our gas with these days") == {"gas"}
    assert questions.asked_phrase("who is our electric with at the moment?") == "electric"
    assert "new" not in questions.asked_nouns("what is my new bike")


def test_a_named_persons_line_saying_history_and_now_states_what_holds_now() -> None:
    old = _hit("Rob started at Kingsmead swimming club, Mondays.", "2021-05-01")
    new = _hit("Kingsmead couldn't fit Rob in anymore so he's at Tidewell now, Saturdays.", "2022-11-01")
    for h in (old, new):
        h.closeness = 0.5
    assert asked.settle([old, new], "which swimming club does Rob go to now?")[0] is new


@pytest.mark.parametrize(
    ("line", "attribute", "value"),
    [
        (
            "Signed with Kestrel Talent, my new manager will be Ottoline from March.",
            "relation:boss",
            "ottoline",
        ),
        ("Our landlord has been Wojciech since the sale.", "relation:landlord", "wojciech"),
        ("The new flat is now in Stockbridge, ten minutes from work.", "lives_in", "stockbridge"),
    ],
)
def test_a_name_said_to_be_the_noun_through_a_verb_group_of_be_is_its_value(
    line: str, attribute: str, value: str
) -> None:
    assert value in (statements.attached_values(line, attribute) or set())


def test_a_closed_class_word_opening_a_line_is_no_name() -> None:
    # the lexicon knows open-class words only: a conjunction it lacks is still a word, not a name
    for word in ("If", "Although", "Unless", "Whether"):
        assert not statements.a_name(word), word
    assert statements.a_name("Oyelaran")


def test_a_labelled_line_of_another_field_is_no_statement_of_the_asked_attribute() -> None:
    said = _hit("Switched the broadband to Zephyrnet, way faster.", "2023-03-01")
    label = _hit("Account reference: ZK-5521 Quillon.", "2023-05-01")
    provider = _hit("Provider: Brightwave Fibre.", "2023-05-01")
    for h in (said, label, provider):
        h.closeness = 0.5
    question = "who is my internet provider now?"
    assert asked.settle([label, said], question)[0] is said
    # a label saying a word of the attribute's own gives it
    assert asked.settle([said, provider], question)[0] is provider


def test_a_description_said_of_the_attributes_own_noun_never_replaces_its_value(rmem: Memory) -> None:
    """ "My dentist is lovely" describes the dentist: keyed under the noun, never under the attribute's own
    name, it is no new version of who the dentist is."""
    said(rmem, "My dentist is Dr Szymanska at Larkfield.", "2024-01-02")
    said(rmem, "My dentist is lovely, no pain at all.", "2024-03-02")
    answer = rmem.answer("who is my dentist?").text
    assert "Szymanska" in answer and "lovely" not in answer


def test_a_parent_moved_by_others_and_said_as_she_leads_where_they_live(rmem: Memory) -> None:
    """ "Update on gran. She's been moved to …": the pronoun is the parent named without "my", and a
    passive move says where she went; the new home leads, and the old one is no current answer."""
    from veramem_desktop.bench.truth_natural_section import stale_as_current

    said(rmem, "My gran lives in Kettering, in the sheltered flats by the park.", "2023-05-02")
    said(rmem, "Update on gran. She's been moved to Elmfield Nursing Home after her fall.", "2024-09-14")
    hits = rmem.search("Where is my gran living now?", k=10).results
    assert "Elmfield" in hits[0].text, [(h.text, h.state) for h in hits[:3]]
    answer = rmem.answer("Where is my gran living now?")
    assert "Elmfield" in answer.text and not stale_as_current(answer.text, ["Kettering"]), answer.text


@pytest.mark.parametrize(
    ("old", "new", "question", "value", "stale"),
    [
        (  # childcare: a new attribute of the inventory, its value named beside its noun
            "Our nanny is Beatriz, she has the twins three days a week.",
            "The new nanny, Oksana, is brilliant with the twins.",
            "who does our childcare now?",
            "Oksana",
            "Beatriz",
        ),
        (  # the app videos are edited in: no text editor
            "I edit my videos in iMovie on the old MacBook.",
            "I edit in DaVinci Resolve now, iMovie was too basic.",
            "what do I edit my videos in these days?",
            "DaVinci",
            "iMovie",
        ),
    ],
)
def test_childcare_and_the_editing_app_are_attributes_whose_newest_value_leads(
    rmem: Memory, old: str, new: str, question: str, value: str, stale: str
) -> None:
    from veramem_desktop.bench.truth_natural_section import stale_as_current

    said(rmem, old, "2023-02-11")
    said(rmem, new, "2024-06-03")
    hits = rmem.search(question, k=10).results
    assert value in hits[0].text, [(h.text, h.state) for h in hits[:3]]
    answer = rmem.answer(question)
    assert value in answer.text and not stale_as_current(answer.text, [stale]), answer.text


def test_a_make_of_bicycle_gives_the_bike_away_as_a_make_of_car_gives_the_car(rmem: Memory) -> None:
    """The inventory's values of the bike are its makes: a later line naming one, through no frame, states
    the bike, and leads."""
    said(rmem, "My bike is a Raleigh Pioneer, heavy but solid.", "2022-04-02")
    said(rmem, "Wheeling the Pashley out of the shed every morning now, so much comfier.", "2024-03-18")
    hits = rmem.search("what bike do I ride now?", k=10).results
    assert "Pashley" in hits[0].text, [(h.text, h.state) for h in hits[:3]]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Honestly Grandpa (Walter) is still in his bungalow in Kilkee.", {"walter", "kilkee"}),
        ("ok Sis i don quit o, moving to Abuja", {"abuja"}),
    ],
)
def test_a_word_for_a_relative_said_as_a_name_or_to_address_someone_is_no_value(
    text: str, names: set[str]
) -> None:
    from veramem_desktop.core.recall import statements

    assert statements.values(text, "") == names


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("can ye draft a note to Moorside Physio to push my appointment back", True),
        ("Could we do a meal plan for the week, nothing with mushrooms", True),
        ("pls make this email sound less angry", True),
        # a modal opening a statement, with no one asked after it
        ("Can't wait to leave Moorside Physio, the new place is Tarn Clinic.", False),
        ("Could be worse, Tarn Clinic sorted my knee in two sessions.", False),
    ],
)
def test_a_modal_before_whoever_is_asked_opens_a_request_that_states_nothing(text: str, asks: bool) -> None:
    from veramem_desktop.core.recall.statements import is_request

    assert is_request(text) is asks


@pytest.mark.parametrize(
    ("text", "past"),
    [
        ("Back in the Harrowgate Harriers days I had never run a 10k.", True),  # an era named by its thing
        ("In those days we lived above the chip shop.", True),
        ("Quarrow was fine back in the day but Lindqvist pays better.", False),  # said against what holds
        ("These days I run with the Bellcourt lot.", False),
    ],
)
def test_a_line_naming_an_era_tells_the_past(text: str, past: bool) -> None:
    assert statements.told_past(text) is past


def test_a_message_ending_the_keyed_value_tells_a_change_though_its_new_line_names_no_frame() -> None:
    """The write path keyed the old car; a later message says it is traded in and, in another line, names
    what replaces it in words no frame has: the message is one telling of a change, so its new line leads
    and the keyed old value is past."""
    old = replace(
        _hit("I drive a 2016 Vauxhall Astra, insured with Harbourline.", "2021-05-02"), subject="car"
    )
    old.value = "Vauxhall Astra"
    ending = replace(_hit("Trading in the Astra for something bigger.", "2023-02-11"), session_id="s2")
    new = replace(
        _hit(
            "Picking up a 2022 Kia Sportage on the 3rd from Elmhurst Kia, the waitlist came through.",
            "2023-02-11",
        ),
        session_id="s2",
        subject="car",  # read as the car by its meaning, with no value keyed
    )
    ordered = asked.settle([old, new, ending], "what car do I drive now?")
    assert ordered[0] is new, [(h.text, h.state) for h in ordered]


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("which phone company am I with now?", "phone company"),  # neither the phone nor the employer
        ("who's our insurance company now?", "insurance company"),
    ],
)
def test_a_thing_before_the_word_company_is_one_thing_asked_by_its_meaning(question: str, noun: str) -> None:
    assert questions.asked(question) == frozenset()
    assert questions.asked_nouns(question) == frozenset({noun})
    assert questions.asked_phrase(question) == noun
    # a compound the inventory names is asked by its words, and so is one whose head names what is asked
    assert questions.asked("what energy company are we with?") == frozenset({"energy_supplier"})
    assert "mobile_provider" in questions.asked("which mobile network am I on atm")


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        # the head of the compound is what is asked: a network, not the phone it serves
        ("which mobile network is my sim on these days?", {"mobile_provider"}),
        ("what's my phone provider called?", {"mobile_provider"}),
        # a club of books is a club (no single value), not the book being read
        ("what book club do I go to on wednesdays?", set()),
        ("which running club am I with?", set()),
        # nouns of one attribute side by side, and a noun before a noun of none, still ask it
        ("what's my home address now?", {"lives_in"}),
        ("what book am I reading at the minute?", {"reading"}),
    ],
)
def test_a_noun_before_a_noun_of_another_attribute_only_says_which_kind(
    question: str, asks: set[str]
) -> None:
    assert questions.asked(question) == frozenset(asks)


def test_a_thing_before_company_is_read_as_the_attribute_its_meaning_is_nearest(
    real_embedder: Embedder,
) -> None:
    from veramem_desktop.core.recall import meaning

    for question, meant in (("who's our insurance company now?", "insurance"),):
        vector = real_embedder.embed([question])[0]
        assert meaning.meant(question, vector, real_embedder) == frozenset({meant}), question


def _near(text: str, day: str, closeness: float, authority: str = "authorized") -> Hit:
    return replace(_hit(text, day, authority), id=f"{day}:{text[:10]}", closeness=closeness)


def test_for_a_question_no_attribute_names_a_newer_line_saying_now_leads_the_older_ones_close_to_it() -> None:
    """Asked of something the inventory has no name for, the person's own newer line telling what holds
    now goes before an older line as close to the question; nothing else moves."""
    old = _near("I bake sourdough every Sunday with the kids.", "2024-01-10", 0.62)
    aside = _near("The kids want pancakes for breakfast.", "2024-02-01", 0.31)
    new = _near("Switched to focaccia now, the sourdough starter died.", "2024-05-02", 0.55)
    question = "What bread do I bake on Sundays?"
    assert asked.settle([old, aside, new], question) == [new, aside, old]
    # asked of a time, or of history, the order stays
    assert asked.settle([old, aside, new], "What bread did I bake in January 2024?") == [old, aside, new]
    assert asked.settle([old, aside, new], "What bread did I bake before?") == [old, aside, new]
    # a line far from the question, or one only asking, or someone else's, does not lead
    far = replace(new, closeness=0.2)
    assert asked.settle([old, aside, far], question) == [old, aside, far]
    asking = _near("What should I bake now, any ideas?", "2024-05-02", 0.6)
    assert asked.settle([old, asking], question) == [old, asking]
    claim = _near("You bake focaccia now.", "2024-05-02", 0.6, authority="attested")
    assert asked.settle([old, claim], question) == [old, claim]


def test_a_question_of_the_pets_vet_asks_the_vet_never_the_persons_job() -> None:
    assert questions.asked("Which vet are we registered with now?") == frozenset({"vet"})


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("Switched to Scottish Power in the spring.", "energy_supplier"),
        ("Signed up with Virgin Media last year.", "internet_provider"),
    ],
)
def test_a_value_of_several_words_names_its_attribute(text: str, attribute: str) -> None:
    found = statements.read(text)
    assert found is not None and attribute in found.attributes


@pytest.mark.parametrize("question", ["where do I stay now?", "where are we staying these days?"])
def test_where_one_stays_asks_the_home(question: str) -> None:
    assert "lives_in" in questions.asked(question)
