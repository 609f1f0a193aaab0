"""The rule-based keys of chat wordings (issue 29, deliver 1): several keys from one statement, and none
of the speaker's from another person's statement, history, a plan, a question, a request, a stay or an
event. Sentences are this file's own, none from the bench data."""

from __future__ import annotations

import pytest
from veramem_desktop.models.llm.rules.keys import read_all, topic_of
from veramem_desktop.models.llm.rules.parse import parse


@pytest.mark.parametrize(
    ("sentence", "keys"),
    [
        (
            "I'm a physiotherapist at Kelso Sports Clinic",
            {("user", "occupation", "physiotherapist"), ("user", "works_at", "Kelso Sports Clinic")},
        ),
        (
            "I live in Tartu and work at Veskimets",
            {("user", "lives_in", "Tartu"), ("user", "works_at", "Veskimets")},
        ),
        (
            "my cousin Mirela moved to Cluj for a teaching job.",
            {("user", "relation:cousin", "Mirela"), ("Mirela", "lives_in", "Cluj")},
        ),
        (
            "Rosa landed a job as an accountant at Pelham Bank!",
            {("Rosa", "works_at", "Pelham Bank"), ("Rosa", "occupation", "accountant")},
        ),
        (  # the small model labels the employer a place: a role is held at an organisation all the same
            "I start at Brenmoor as Lead Designer next month.",
            {("user", "occupation", "Lead Designer"), ("user", "works_at", "Brenmoor")},
        ),
    ],
)
def test_one_statement_gives_every_attribute_it_states(
    sentence: str, keys: set[tuple[str, str, str]]
) -> None:
    assert {k.key for k in read_all(sentence)} == keys


@pytest.mark.parametrize(
    "sentence",
    [
        "my brother took a job at Quantrel Systems",
        "my sister moved to Tallinn last spring",
        "when I still lived in Porto the rent was cheap",
        "I used to work at Brightwave",
        "back when I had the Fiat I never drove on motorways",
        "should I move to Lisbon?",
        "I might join Corvid Labs next year",
        "we are thinking of moving to Bath",
        "can you help me write to Harlow Bank?",
        "I had lunch at Nandos with the team",
        "booked a table at Dishoom for Friday",
        "two weeks in Lisbon was amazing",
        "three days at the Hilton for the conference",
        "first day at Fennick tomorrow",
        "I was in Madrid for work last week",
        "I'm in Berlin for the weekend",
        "she's at Google now",
        "we stayed in a cottage in Cornwall",
        "I found a bug in Firefox",
        "my old flat in Leeds had mould",
        "- find a bigger place outside Hull",
        "Italian food now, every night",
        "my friend Sol got engaged to Amara!",
        # a person moved by the speaker goes somewhere; the speaker does not
        "We decided to move Tobiah to a childminder, Gwen Alder, two streets away.",
        "Moved Grandad into a care home in Ely last month.",
        "we moved the kids to Oakfield Primary",
    ],
)
def test_no_current_value_of_the_speakers_from_others_history_plans_questions_or_stays(sentence: str) -> None:
    found = [
        k
        for k in read_all(sentence)
        if k.subject == "user" and not (k.predicate or "").startswith("relation:")
    ]
    assert found == [], found


def test_a_sentence_without_a_subject_goes_on_about_the_person_before() -> None:
    before = "my parents sold their place in Norwich."
    assert topic_of(before) is not None
    assert read_all("bought a cottage in Cromer, right by the sea", topic=topic_of(before)) == []
    named = "my brother Luca got fired."
    keys = {
        k.key for k in read_all("Joined a startup called Fenwick Labs a week later.", topic=topic_of(named))
    }
    assert keys == {("Luca", "works_at", "Fenwick Labs")}


def test_a_pronoun_is_the_person_named_before() -> None:
    keys = {k.key for k in read_all("she's in a flat in Kendal now", person="user's sister")}
    assert keys == {("user's sister", "lives_in", "Kendal")}


def test_an_assistants_premise_about_the_user_is_no_statement_of_theirs() -> None:
    from veramem_desktop.models.llm.rules.keys import addressed

    assert addressed("Since you ride a Brompton, the train is easy.") is None
    assert addressed("Because you work at Quantrel, you get the discount.") is None
    found = addressed("You ride a Brompton now.")
    assert found is not None and found.key == ("user", "bike", "Brompton")


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        ("I'm at Marrowby Logistics until the end of May", ("user", "works_at", "Marrowby Logistics")),
        ("I'm at Tillbury University now", ("user", "school", "Tillbury University")),
    ],
)
def test_being_at_an_organisation_is_where_the_speaker_works_or_studies(
    sentence: str, key: tuple[str, str, str]
) -> None:
    assert [k.key for k in read_all(sentence)] == [key]


@pytest.mark.parametrize(
    "sentence", ["I'm at Pizza Palace with the team", "I'm at Marrowby Logistics for a meeting this week"]
)
def test_a_visit_to_an_organisation_is_no_workplace(sentence: str) -> None:
    assert read_all(sentence) == []


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        ("Maren's birthday is March 14, don't let me forget", ("Maren", "birthday", "March 14")),
        ("Jonas's new job is at Hexwell", ("Jonas", "works_at", "Hexwell")),
        ("My birthday is June 9", ("user", "birthday", "June 9")),
    ],
)
def test_a_named_persons_attribute_is_theirs_and_a_date_is_whole(
    sentence: str, key: tuple[str, str, str]
) -> None:
    assert [k.key for k in read_all(sentence)] == [key]


@pytest.mark.parametrize(
    ("sentence", "keys"),
    [
        # quick lower-case chat: "i", "im", a town the pipeline reads as a verb
        ("i moved to dundee in april", [("user", "lives_in", "dundee", False)]),
        ("im pescatarian now", [("user", "diet", "pescatarian", False)]),
        # a particle read as a preposition with no object
        ("dropped out of college", [("user", "school", None, True)]),
        # a verb that ends values of several attributes, said of a name no attribute claims
        ("Left Quorrel after four years.", [("user", None, "Quorrel", True)]),
        # the attribute named by its noun alone
        ("switched banks to Fenwick Savings", [("user", "bank", "Fenwick Savings", False)]),
        # a name parsed as the head with its kind before it
        ("my cat Biscotti died", [("user", "pet", "Biscotti", True)]),
        # a participle heading the sentence, its subject dropped, tells a change done (not a to-do)
        ("signed up at the Corran climbing gym last week", [("user", "gym", "Corran climbing gym", False)]),
    ],
)
def test_sloppy_chat_and_misread_phrases_still_key(sentence: str, keys: list[tuple[object, ...]]) -> None:
    assert [(*k.key, k.ends) for k in read_all(sentence)] == keys


def test_someone_new_named_aside_is_the_partner_even_when_the_name_is_mislabelled() -> None:
    keys = [k.key for k in read_all("been seeing someone new since the summer, Anselm.")]
    assert keys == [("user", "relation:partner", "Anselm")]
    assert read_all("I'm seeing someone") == []


def test_a_word_that_describes_a_thing_is_no_value_of_its_attribute() -> None:
    assert read_all("the new office at Marrowby is right by the canal") == []
    assert [k.key for k in read_all("my job is boring")] == [
        ("user", "described:job", "boring")
    ]  # not the employer


def test_a_thing_named_where_it_is_and_described_keys_the_name_not_the_description() -> None:
    # the description is no value; the name said with the thing is ("the new physio at Kelvin Clinic …")
    assert [k.key for k in read_all("new dentist at Harbourview Dental is grand, no pain")] == [
        ("user", "dentist", "Harbourview Dental")
    ]
    assert [k.key for k in read_all("my job at Quillon Labs is dull")] == [
        ("user", "works_at", "Quillon Labs")
    ]
    # a description alone is kept under the thing's noun, never as the attribute's value
    assert [k.key for k in read_all("my dentist is lovely")] == [("user", "described:dentist", "lovely")]


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        # a passive of a verb that takes its subject somewhere says where the subject went
        (
            "Grandad was moved to Birchwood Lodge on Friday.",
            ("user's grandfather", "lives_in", "Birchwood Lodge"),
        ),
        ("I got relocated to Dundee by the bank.", ("user", "lives_in", "Dundee")),
        # a home's name ending in a noun of the home is a home, though "home" alone is also "work from home"
        ("My nan moved into Ashgrove Care Home.", ("user's grandmother", "lives_in", "Ashgrove Care Home")),
        # a relative "at" an organisation whose name says what it is
        ("My daughter is at Kingsmead Academy now.", ("user's daughter", "school", "Kingsmead Academy")),
        ("Daniel is at Westgate College now.", ("Daniel", "school", "Westgate College")),
    ],
)
def test_a_passive_move_and_a_relative_at_a_named_school_key_their_place(
    sentence: str, key: tuple[str, str, str]
) -> None:
    assert key in {k.key for k in read_all(sentence)}


@pytest.mark.parametrize(
    "sentence",
    ["I was moved to tears by the film.", "My dad is at Morrisons.", "The sofa was moved to the attic."],
)
def test_a_feeling_a_visit_or_a_thing_moved_keys_no_place(sentence: str) -> None:
    assert not [k for k in read_all(sentence) if k.predicate in ("lives_in", "works_at", "school")]


def test_an_ordinal_before_a_noun_is_no_name_of_it() -> None:
    """Typed in lower case, "first" opening a sentence is tagged a proper noun: it is a figure all the same."""
    assert not [k for k in read_all("first electric car ever!") if (k.value or "").lower() == "first"]


def test_a_thing_named_beside_its_noun_and_described_keys_the_name() -> None:
    assert ("user", "gym", "Crux Climbing") in {
        k.key for k in read_all("the new gym, Crux Climbing, is mint")
    }


@pytest.mark.parametrize(
    "sentence",
    [
        "Our minister Rev Okonjo is leaving after 12 years at St Columba's.",
        "my supervisor Dana says two years at Harlow Labs is plenty",
    ],
)
def test_time_someone_named_spent_somewhere_is_no_workplace_of_the_speakers(sentence: str) -> None:
    assert not [k for k in read_all(sentence) if k.subject == "user" and k.predicate == "works_at"]


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        # any verb with "over" to a value that gives its attribute away is a switch
        ("We've jumped over to Ecotricity, the fix was cheaper.", ("user", "energy_supplier", "Ecotricity")),
        ("Finally went over to Revolut for everything.", ("user", "bank", "Revolut")),
        # the inventory's values: chains of pharmacies, suppliers of energy
        ("We switched to Superdrug for Dad's repeat prescriptions.", ("user", "pharmacy", "Superdrug")),
    ],
)
def test_a_verb_with_over_to_a_value_is_a_switch(sentence: str, key: tuple[str, str, str]) -> None:
    assert key in {k.key for k in read_all(sentence)}


@pytest.mark.parametrize(
    ("sentence", "keys"),
    [
        # a name with "for" or "of" in it is one name, its closing noun saying what it is
        ("Joined the Heart for Harmony choir last week.", {("user", "clubs", "Heart for Harmony choir")}),
        (
            "We've both joined the Friends of Lowther Park group.",
            {("user", "clubs", "Friends of Lowther Park group")},
        ),
        # words after "for" that are no name stay out of it
        ("Joined Brightlane for the pension scheme.", {("user", "works_at", "Brightlane")}),
    ],
)
def test_a_name_split_at_its_of_or_for_is_read_whole(sentence: str, keys: set[tuple[str, str, str]]) -> None:
    assert {k.key for k in read_all(sentence)} == keys


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        # a person named in the subject is the relation the complement names, never the speaker's job
        (
            "my skip Dana Whitfield is now my direct manager, for now anyway.",
            ("user", "relation:boss", "Dana Whitfield"),
        ),
        (
            "Our old lodger Piet is now our landlord, funny how it goes.",
            ("user", "relation:landlord", "Piet"),
        ),
    ],
)
def test_someone_named_who_is_now_my_relation_is_that_relation(
    sentence: str, key: tuple[str, str, str]
) -> None:
    keys = {k.key for k in read_all(sentence)}
    assert key in keys
    assert not any(k[1] == "occupation" for k in keys), keys


@pytest.mark.parametrize(
    "sentence", ["Mentored 2 interns over the summer.", "We hired a cleaner last month."]
)
def test_a_job_named_as_what_a_deed_was_done_to_is_people_not_the_speakers_job(sentence: str) -> None:
    assert not any(k.key[1] == "occupation" for k in read_all(sentence))


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        # a role the inventory has no attribute for, called new, with the person holding it named beside it
        (
            "The new churchwarden, Mrs Ada Pennock, rang about the rota.",
            ("user", "churchwarden", "Mrs Ada Pennock"),
        ),
        ("My new physio, Aled Price, says no running for a month.", ("user", "physio", "Aled Price")),
    ],
)
def test_a_new_role_with_a_person_named_beside_it_is_the_speakers_now(
    sentence: str, key: tuple[str, str, str]
) -> None:
    assert key in {k.key for k in read_all(sentence)}


@pytest.mark.parametrize(
    ("sentence", "noun"),
    [
        (
            "Listening to the new Taylor Swift album on repeat.",
            "album",
        ),  # a name before the noun says its kind
        ("The new office in Bramley is huge.", "office"),  # a place, not a person holding a role
        ("The old churchwarden, Mr Pennock, has retired.", "churchwarden"),  # not said new
        ("Met a new friend, Tom Ellery, at the pub.", "friend"),  # a relation: people have many
    ],
)
def test_a_name_beside_a_new_noun_is_no_role_holder_unless_a_person_after_it(
    sentence: str, noun: str
) -> None:
    keys = {k.key for k in read_all(sentence)}
    assert not any(k[1] == noun for k in keys), keys


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        # deeds listed after a comma go on from the clause that opened the sentence without a subject: both
        # are the speaker's (which attribute a club or a firm joined is, the name alone does not say)
        (
            "Also left Harrowgate Harriers, joined Bellcourt Athletic, they train on a thursday.",
            "Bellcourt Athletic",
        ),
        # a model's number after a product's name is part of its name
        ("Picked up a pixel 9 on Friday, the old screen finally gave up.", "pixel 9"),
        (
            "picked up an iphone 15 yesterday, the old one died",
            "iphone 15",
        ),  # hung on the verb by the pipeline
        ("upgraded to windows 11 at last", "windows 11"),
    ],
)
def test_a_listed_deed_and_a_models_number_are_read(sentence: str, said: str) -> None:
    assert ("user", said) in {(k.key[0], k.key[2]) for k in read_all(sentence) if not k.ends}


def test_a_new_role_said_to_be_someone_called_a_name_is_the_speakers_now() -> None:
    keys = {k.key for k in read_all("New sous chef is a lad called Dev Okonkwo from Leeds.")}
    assert ("user", "sous chef", "Dev Okonkwo") in keys, keys
    # a role the inventory has is keyed as it was
    assert ("user", "relation:boss", "Anita") in {
        k.key for k in read_all("The new manager is a woman called Anita.")
    }


def test_a_deed_said_without_i_that_the_pipeline_misread_is_the_speakers() -> None:
    # the small pipeline reads a sentence-opening "Ditched" as an adjective and finds no clause at all
    clauses = parse("Ditched emacs over the summer, on Helix now.").clauses
    assert [(c.verb, c.subject and c.subject.head, c.implied_subject) for c in clauses][:1] == [
        ("ditch", "i", True)
    ]
    # a word read as a verb only because "I" was set before it is no deed
    assert not [c for c in parse("paracetamol now, but only at night").clauses if c.implied_subject]


@pytest.mark.parametrize(
    ("sentence", "keys"),
    [
        ("Ditched emacs over the summer, on Helix now.", {("user", "editor", "emacs", True)}),
        ("I dumped Netflix in March", {("user", "streaming_service", "Netflix", True)}),
        (
            "I swapped the violin for the cello",
            {("user", "instrument", "violin", True), ("user", "instrument", "cello", False)},
        ),
        (
            "ditched vscode for neovim last month",
            {("user", "editor", "vscode", True), ("user", "editor", "neovim", False)},
        ),
        (  # the pipeline cuts "Apple TV+" after "Apple": the value is read whole
            "Ok switched from Disney+ to Apple TV+ in January",
            {
                ("user", "streaming_service", "Disney+", True),
                ("user", "streaming_service", "Apple TV+", False),
            },
        ),
    ],
)
def test_a_thing_dropped_ends_and_what_it_was_dropped_for_is_current(
    sentence: str, keys: set[tuple[str, str, str, bool]]
) -> None:
    assert {(*k.key, k.ends) for k in read_all(sentence)} == keys


def test_a_thing_dropped_for_something_of_another_kind_gives_no_new_value() -> None:
    assert {(*k.key, k.ends) for k in read_all("I ditched Octopus for the cheaper deal")} == {
        ("user", "energy_supplier", "Octopus", True)
    }


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        ("at Ashgrove Dental now", ("user", "dentist", "Ashgrove Dental")),
        ("with Kestrel Pharmacy now", ("user", "pharmacy", "Kestrel Pharmacy")),
        ("on Harbourline Broadband now", ("user", "internet_provider", "Harbourline Broadband")),
    ],
)
def test_a_name_said_to_hold_now_gives_its_attribute_by_the_noun_it_ends_in(
    sentence: str, key: tuple[str, str, str]
) -> None:
    assert key in {k.key for k in read_all(sentence)}


@pytest.mark.parametrize("sentence", ["on Kestrel Mobile now", "Greenway Cars now, they were quick"])
def test_a_name_ending_in_a_thing_bought_is_a_company_not_that_thing(sentence: str) -> None:
    assert not [k for k in read_all(sentence) if k.predicate in ("phone", "car")]


def test_a_name_opening_a_sentence_is_no_verb_of_the_speakers() -> None:
    # "Harbour" capitalised reads as a name; "I" set before it must not make it a verb ("I harbour …")
    assert not [c for c in parse("Harbour Lane Dental now").clauses if c.implied_subject]


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        ("Signed up at Castlegate Leisure Centre last month", ("user", "gym", "Castlegate Leisure Centre")),
        ("joined Ferrow Sports Centre in May", ("user", "gym", "Ferrow Sports Centre")),
        ("with Brookfield Vets now", ("user", "vet", "Brookfield Vets")),
    ],
)
def test_a_name_ending_in_a_noun_of_two_words_or_a_pets_practice_gives_its_attribute(
    sentence: str, key: tuple[str, str, str]
) -> None:
    assert key in {k.key for k in read_all(sentence)}


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        # a service kept or chosen, named by a value of the inventory
        ("We're with Octopus now", ("user", "energy_supplier", "Octopus")),
        ("I'm with Starling these days", ("user", "bank", "Starling")),
        # a name the inventory does not know, in a sentence naming the service by a noun of its own
        ("We went with Lindenhall for the car insurance in the end", ("user", "insurance", "Lindenhall")),
        (
            "Contents insurance letter came, we've been with Marrowfield Mutual 9 years",
            ("user", "insurance", "Marrowfield Mutual"),
        ),
        (
            "stayed with Quillby for the broadband, they matched the offer",
            ("user", "internet_provider", "Quillby"),
        ),
    ],
)
def test_a_service_kept_or_chosen_is_the_speakers_provider(sentence: str, key: tuple[str, str, str]) -> None:
    assert key in {k.key for k in read_all(sentence)}


@pytest.mark.parametrize(
    "sentence",
    [
        "I went with my gut on that one",  # no name
        "I'm with Tomasz at the cinema",  # a person, and no service named
        "my cousin Ines moved to Tromsø for a nursing job",  # a home, though a noun of work is said
        "Hana left Pinecrest and opened a studio of her own",  # another person's deed
    ],
)
def test_a_verb_of_many_uses_keys_no_service_the_sentence_does_not_name(sentence: str) -> None:
    services = {"insurance", "bank", "internet_provider", "energy_supplier", "works_at", "gym", "hairdresser"}
    assert not [k for k in read_all(sentence) if k.subject == "user" and k.predicate in services]


@pytest.mark.parametrize(
    ("sentence", "taken", "ended"),
    [
        (
            "finally moved to plusnet, 3 years of talktalk dropping out was enough",
            ("user", "internet_provider", "plusnet"),
            ("user", "internet_provider", "talktalk"),
        ),
        (
            "We're on Ovo now, scottish power kept estimating the bills",
            ("user", "energy_supplier", "Ovo"),
            ("user", "energy_supplier", "scottish power"),
        ),
        (
            "bought a Pixel 8 last week, the iphone 11 battery was dying",
            ("user", "phone", "Pixel 8"),
            ("user", "phone", "iphone"),
        ),
    ],
)
def test_another_value_of_the_attribute_said_beside_the_new_one_is_what_it_replaced(
    sentence: str, taken: tuple[str, str, str], ended: tuple[str, str, str]
) -> None:
    found = {(*k.key, k.ends) for k in read_all(sentence)}
    assert (*taken, False) in found
    assert (*ended, True) in found


@pytest.mark.parametrize(
    "sentence",
    [
        "I drive a 2016 Honda Jazz",  # a make said with its model is one value
        "my sister is with Ovo and loves it",  # another person's value
        "Got a Pixel 8 for my birthday",  # no other value
    ],
)
def test_a_value_said_once_or_by_another_ends_nothing(sentence: str) -> None:
    assert not [k for k in read_all(sentence) if k.subject == "user" and k.ends]


def test_words_after_a_value_of_the_inventory_are_no_part_of_it() -> None:
    assert ("user", "internet_provider", "plusnet") in {
        k.key for k in read_all("switched to plusnet lol 500mb for less")
    }


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        ("We stay in Kiambu now, closer to the school", ("user", "lives_in", "Kiambu")),
        ("I stay in Marikina with my tita", ("user", "lives_in", "Marikina")),
    ],
)
def test_where_a_person_stays_with_no_time_bounding_it_is_their_home(
    sentence: str, key: tuple[str, str, str]
) -> None:
    assert key in {k.key for k in read_all(sentence)}


@pytest.mark.parametrize(
    "sentence",
    ["I'm staying in Valletta this week for the conference", "we stayed in Bruges for three nights"],
)
def test_a_stay_bounded_by_a_time_is_a_visit_not_a_home(sentence: str) -> None:
    assert not [k for k in read_all(sentence) if k.predicate == "lives_in"]
