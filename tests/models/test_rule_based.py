"""The rule-based backend: valid values with no model at all."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from veramem_desktop.core.llm import LLM, Candidate, Capabilities, ContextItem, Message, Neighbour
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

MAY_8 = "2024-05-08T13:56:00+00:00"


@pytest.fixture
def llm() -> RuleBasedLLM:
    return RuleBasedLLM()


def msg(
    content: str, *, id: str = "m1", role: str = "user", time: str = MAY_8, name: str | None = None
) -> Message:
    return Message(id=id, role=role, content=content, time=time, name=name)


def one(llm: RuleBasedLLM, content: str, **kwargs: str) -> Candidate:
    found = llm.extract([msg(content, **kwargs)]).value
    assert len(found) == 1, found
    return found[0]


def test_it_implements_the_llm_protocol_and_says_it_is_rule_based(llm: RuleBasedLLM) -> None:
    assert isinstance(llm, LLM)
    assert llm.capabilities == Capabilities(
        "rule-based", rule_based=True, batch_extraction=False, context_tokens=0
    )
    assert llm.without_fallback() is llm and llm.hypothesise("Where does the user live?").value is None


# --- extract ----------------------------------------------------------------------------------


def test_each_quote_is_an_exact_substring_of_its_message(llm: RuleBasedLLM) -> None:
    messages = [
        msg(
            "Hey Mel! I went to a support group yesterday and it was so powerful.   My name is Ana Lopez.",
            id="a",
        ),
        msg("Wow, cool!\nI’m allergic to peanuts… I live in Berlin (near Dr. Weber's clinic).", id="b"),
    ]
    found = llm.extract(messages).value
    by_id = {m.id: m.content for m in messages}
    assert len(found) == 4
    for candidate in found:
        assert candidate.quote in by_id[candidate.message_id]


# no deadline: the first example of a process loads the English parse pipeline (about two seconds)
@settings(deadline=None)
@given(st.lists(st.text(min_size=1, max_size=60), min_size=1, max_size=5))
def test_quotes_are_exact_substrings_whatever_the_text(parts: list[str]) -> None:
    content = " ".join(parts)
    for candidate in RuleBasedLLM().extract([msg(content)]).value:
        assert candidate.quote in content
        assert candidate.message_id == "m1"


@pytest.mark.parametrize(
    "content",
    [
        "How are you doing these days?",
        "Hey Caroline!",
        "Thanks so much!",
        "Wow, that's so cool!",
        "Good morning!",
        "Yes.",
        "You did great!",
    ],
)
def test_questions_greetings_fillers_and_fragments_give_nothing(llm: RuleBasedLLM, content: str) -> None:
    assert llm.extract([msg(content)]).value == []


@pytest.mark.parametrize(
    "content",
    [
        "Much fun with the whole gang!",
        "Haha, that's awesome!",
        "That sounds great.",
        "Wow, nice!",
        "Keep it up, Jon!",
        "Thanks for the compliment, I really appreciate it!",
        "That photo is so cute!",
        "I can imagine how that felt.",
        "Hey Mel, great to chat with you again!",
        "Talk to you soon!",
    ],
)
def test_reactions_exclamations_and_sign_offs_give_nothing(llm: RuleBasedLLM, content: str) -> None:
    assert llm.extract([msg(content)]).value == []


@pytest.mark.parametrize(
    ("content", "role"),
    [
        ("Flight LX123 departs at 10:40 from gate B7.", "tool"),
        ("Thanks, I moved to Lisbon last week!", "user"),
        ("Great news, I got the job at the bakery!", "user"),
        ("Here's a photo of my horse painting.", "user"),
        ("I want to adopt a child someday.", "user"),
        ("The food at Luigi's was great!", "user"),
        ("I'm a nurse.", "user"),
    ],
)
def test_statements_wrapped_in_small_talk_are_kept(llm: RuleBasedLLM, content: str, role: str) -> None:
    assert [c.quote for c in llm.extract([msg(content, role=role)]).value] == [content]


def test_assistant_offers_of_help_give_nothing_but_its_statements_are_kept(llm: RuleBasedLLM) -> None:
    found = llm.extract(
        [msg("Sure, I can help with that! Your flight to Rome is booked for tomorrow.", role="assistant")]
    ).value
    assert [c.text for c in found] == ["User's flight to Rome is booked for 2024-05-09."]


def test_context_messages_are_never_a_source(llm: RuleBasedLLM) -> None:
    found = llm.extract([msg("I live in Lisbon.")], context=[msg("I work at Google.", id="old")]).value
    assert [c.message_id for c in found] == ["m1"]


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        ("I really love hiking in the Alps.", "preference"),
        ("I prefer window seats over aisle seats.", "preference"),
        ("I don't like sushi.", "preference"),
        ("My favourite colour is blue.", "preference"),
        ("I'd rather take the train.", "preference"),
        ("I went to a concert yesterday.", "event"),
        ("We visited Rome last week.", "event"),
        ("I'm flying to Rome next Friday.", "event"),
        ("I live in Berlin.", "fact"),
        ("My sister is a nurse.", "fact"),
    ],
)
def test_kind_follows_the_wording(llm: RuleBasedLLM, content: str, kind: str) -> None:
    assert one(llm, content).kind == kind


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("My name is Ana Lopez.", ("user", "name", "Ana Lopez")),
        ("I live in Berlin now.", ("user", "lives_in", "Berlin")),
        ("Yeah, I moved to Lisbon two weeks ago.", ("user", "lives_in", "Lisbon")),
        ("I work at ACME Corp since 2020.", ("user", "works_at", "ACME Corp")),
        ("I'm allergic to peanuts.", ("user", "allergic_to", "peanuts")),
        ("I prefer window seats.", ("user", "preference:seat", "window seats")),
        ("My favourite colour is blue.", ("user", "preference:colour", "blue")),
        ("I love to paint.", ("user", "likes", "paint")),
        ("I don't like sushi anymore.", ("user", "dislikes", "sushi")),
        ("I'm 34 years old.", ("user", "age", "34")),
        ("I work for a small startup.", ("user", "works_at", "small startup")),
        ("I'm a nurse.", ("user", "occupation", "nurse")),
        ("I'm a software engineer at Google.", ("user", "occupation", "software engineer")),
        ("I have a dog named Rex.", ("user", "pet", "Rex")),
        ("I’ve got a cat called Tom.", ("user", "pet", "Tom")),
        ("My dog's name is Rex.", ("user", "pet", "Rex")),
        ("My sister's name is Ana.", ("user", "relation:sister", "Ana")),
        ("My mum Maria lives in Porto.", ("user", "relation:mother", "Maria")),
        ("We went to my daughter Sara's party.", ("user", "relation:daughter", "Sara")),
        # another person's attribute is keyed to that person, never to the user
        ("My sister is a nurse.", ("user's sister", "occupation", "nurse")),
    ],
)
def test_simple_statements_get_a_subject_predicate_and_value(
    llm: RuleBasedLLM, content: str, key: tuple[str, str, str]
) -> None:
    found = llm.extract([msg(content)]).value
    c = found[0]  # the main key; a further attribute the statement gives has a candidate of its own
    assert (c.subject, c.predicate, c.value) == key
    assert all(o.quote == c.quote and (o.subject, o.predicate) != (c.subject, c.predicate) for o in found[1:])


@pytest.mark.parametrize(
    ("content", "also"),
    [
        ("I'm a software engineer at Google.", ("user", "works_at", "Google")),
        ("My mum Maria lives in Porto.", ("Maria", "lives_in", "Porto")),
    ],
)
def test_a_statement_of_two_attributes_gives_a_candidate_for_each(
    llm: RuleBasedLLM, content: str, also: tuple[str, str, str]
) -> None:
    found = llm.extract([msg(content)]).value
    assert len(found) == 2
    assert (found[1].subject, found[1].predicate, found[1].value) == also
    assert found[1].quote == content and found[1].text != found[0].text


@pytest.mark.parametrize(
    "content",
    [
        "The transgender stories were so inspiring.",
        "I'm a big fan of jazz and go to gigs.",
        "I have a dog named after my grandfather.",
        "I love how my garden brings people together.",
        "Showing my art is important to me.",
    ],
)
def test_a_statement_without_a_simple_shape_has_no_key(llm: RuleBasedLLM, content: str) -> None:
    c = one(llm, content)
    assert (c.subject, c.predicate, c.value) == (None, None, None)


@pytest.mark.parametrize(
    ("content", "role", "text", "key"),
    [
        ("You live in Berlin.", "assistant", "User lives in Berlin.", ("user", "lives_in", "Berlin")),
        (
            "You're allergic to shellfish.",
            "assistant",
            "User is allergic to shellfish.",
            ("user", "allergic_to", "shellfish"),
        ),
        (
            "Your favourite colour is green.",
            "assistant",
            "User's favourite colour is green.",
            ("user", "preference:colour", "green"),
        ),
        ("You work at Acme.", "tool", "User works at Acme.", ("user", "works_at", "Acme")),
        (
            "I think you live in Berlin now.",
            "assistant",
            "Assistant thinks User lives in Berlin now.",
            ("user", "lives_in", "Berlin"),
        ),
        ("I live in Berlin.", "assistant", "Assistant lives in Berlin.", (None, None, None)),
    ],
)
def test_second_person_said_to_the_user_is_about_the_user(
    llm: RuleBasedLLM, content: str, role: str, text: str, key: tuple[str | None, str | None, str | None]
) -> None:
    c = one(llm, content, role=role)
    assert c.quote == content and c.text == text and (c.subject, c.predicate, c.value) == key


def test_a_system_prompts_you_is_the_assistant_not_the_user(llm: RuleBasedLLM) -> None:
    c = one(llm, "You are a travel planner for small groups.", role="system")
    assert c.text == "You are a travel planner for small groups." and c.subject is None


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ("I love my job.", "User loves User's job."),
        ("I'm allergic to peanuts.", "User is allergic to peanuts."),
        ("I don't eat meat.", "User doesn't eat meat."),
        ("I have two cats and I watch them daily.", "User has two cats and User watches them daily."),
        ("Oh, I really enjoy long walks.", "User really enjoys long walks."),
        ("I need a new laptop.", "User needs a new laptop."),
    ],
)
def test_the_memory_text_is_in_the_third_person(llm: RuleBasedLLM, content: str, text: str) -> None:
    assert one(llm, content).text == text


@pytest.mark.parametrize(
    ("content", "role", "text"),
    [
        ("Correction: I live in Porto now, not Lisbon.", "user", "User lives in Porto now, not Lisbon."),
        ("FYI - my flight lands at 9.", "user", "User's flight lands at 9."),
        ("Thanks, I have updated that: you live in Porto.", "assistant", "User lives in Porto."),
        ("Got it. I've noted that: your sister is Ana.", "assistant", "User's sister is Ana."),
        ("Noted: vegetarian recipes only from now on.", "assistant", "Vegetarian recipes only from now on."),
        ("Note-taking apps are my favourite tools.", "user", "Note-taking apps are User's favourite tools."),
        ("Update-free weeks are rare for me.", "user", "Update-free weeks are rare for User."),
    ],
)
def test_labels_and_acknowledgements_are_not_part_of_the_memory(
    llm: RuleBasedLLM, content: str, role: str, text: str
) -> None:
    found = llm.extract([msg(content, role=role)]).value
    assert found[-1].text == text
    assert all(c.quote in content for c in found)  # the quote is still exactly what was said


@pytest.mark.parametrize(
    ("content", "text"),
    [
        (
            "My sister Ana is visiting on Saturday. She is allergic to peanuts.",
            "User's sister Ana is allergic to peanuts.",
        ),
        ("I met my friend Jo on Monday. Her dog is called Rex.", "User's friend Jo's dog is called Rex."),
        (
            "My brother Tom and my sister Ana came. She is allergic to peanuts.",
            "User's sister Ana is allergic to peanuts.",
        ),
        ("My dad retired. He is 70 now.", "User's dad is 70 now."),
        # a parent named as the speaker's own without "my", and "she's" said short
        ("Quick news about gran. She's been poorly all week.", "Gran's been poorly all week."),
        # Nothing to stand for, or nothing that fits: left as said.
        ("My sister is a nurse. He is allergic to cats.", "He is allergic to cats."),
        ("My sister Ana and my aunt Rosa came. She is allergic to peanuts.", "She is allergic to peanuts."),
        ("We went to Lisbon. She is allergic to peanuts.", "She is allergic to peanuts."),
        ("Saw Priya's mum at the market. She's been poorly all week.", "She's been poorly all week."),
    ],
)
def test_a_leading_she_or_he_names_the_one_relative_just_mentioned(
    llm: RuleBasedLLM, content: str, text: str
) -> None:
    # the sentence's own memory comes first of those quoting it; the key it states (now the relative's,
    # "Ana's allergy: peanuts") may follow it
    last = [c for c in llm.extract([msg(content)]).value if c.quote[:2] in ("Sh", "He")][0]
    assert last.text == text
    assert last.quote == content[content.rindex(last.quote) :]


@pytest.mark.parametrize(
    ("content", "texts"),
    [
        (
            "I moved to Lisbon in March and I work as a data engineer at Tessera.",
            ["User moved to Lisbon in March 2024.", "User works as a data engineer at Tessera."],
        ),
        ("I like tea, but my wife likes coffee.", ["User likes tea.", "User's wife likes coffee."]),
        ("I live in Porto; my office is in Braga.", ["User lives in Porto.", "User's office is in Braga."]),
        # One statement, or a second part that points back: kept whole.
        (
            "My sister Ana and my aunt Rosa came to Porto.",
            ["User's sister Ana and User's aunt Rosa came to Porto."],
        ),
        ("I have two cats and I watch them daily.", ["User has two cats and User watches them daily."]),
        ("Ana and I went to Paris.", ["Ana and User went to Paris."]),
    ],
)
def test_two_statements_in_one_sentence_become_two_memories(
    llm: RuleBasedLLM, content: str, texts: list[str]
) -> None:
    found = llm.extract([msg(content, time="2024-10-02T20:30:00Z")]).value
    assert [c.text for c in found] == texts
    for c in found:
        assert c.quote in content  # each part quoted exactly as said
    keys = {(c.predicate, c.value) for c in found}
    if "Tessera" in content:  # each part keeps its own key: a later move no longer takes the job with it
        assert keys == {("lives_in", "Lisbon"), ("occupation", "data engineer")}


def test_a_named_speaker_is_named_in_the_memory(llm: RuleBasedLLM) -> None:
    c = one(llm, "I went to a LGBTQ support group yesterday.", name="Caroline", time="1:56 pm on 8 May, 2023")
    assert c.text == "Caroline went to a LGBTQ support group on 2023-05-07."


def test_relative_dates_resolve_against_the_message_time_not_today(llm: RuleBasedLLM) -> None:
    old = one(llm, "I went to the dentist yesterday.", time="2019-03-02T10:00:00+00:00")
    assert old.text == "User went to the dentist on 2019-03-01."
    assert old.quote == "I went to the dentist yesterday."


def test_two_messages_resolve_the_same_words_against_their_own_times(llm: RuleBasedLLM) -> None:
    found = llm.extract(
        [
            msg("I ran a marathon last week.", id="a", time="2023-01-10T09:00:00Z"),
            msg("I ran a marathon last week.", id="b", time="2024-06-20T09:00:00Z"),
        ]
    ).value
    assert [c.text for c in found] == [
        "User ran a marathon in the week of 2023-01-02.",
        "User ran a marathon in the week of 2024-06-10.",
    ]


def test_explicit_dates_in_the_text_become_iso(llm: RuleBasedLLM) -> None:
    assert one(llm, "We met on May 8th, 2023 in Paris.").text == "We met on 2023-05-08 in Paris."


def test_a_message_with_an_unreadable_time_keeps_its_relative_words(llm: RuleBasedLLM) -> None:
    assert (
        one(llm, "I went to the dentist yesterday.", time="sometime").text
        == "User went to the dentist yesterday."
    )


def test_health_and_identity_matter_more_than_small_talk(llm: RuleBasedLLM) -> None:
    allergy = one(llm, "I'm allergic to peanuts.").importance
    passing = one(llm, "The weather was grey and cold.").importance
    assert 0.0 <= passing < allergy <= 1.0


# --- reconcile --------------------------------------------------------------------------------


def cand(
    text: str, key: tuple[str | None, str | None, str | None] = (None, None, None), quote: str = ""
) -> Candidate:
    return Candidate("m1", quote or text, text, "fact", key[0], key[1], key[2])


def nb(
    id: str, text: str, cosine: float, key: tuple[str | None, str | None, str | None] = (None, None, None)
) -> Neighbour:
    return Neighbour(id, text, cosine, "authorized", "fact", key[0], key[1], key[2])


def test_a_new_value_for_the_same_subject_and_predicate_updates_that_memory(llm: RuleBasedLLM) -> None:
    decision = llm.reconcile(
        cand("User lives in Lisbon.", ("user", "lives_in", "Lisbon")),
        [
            nb("x", "User likes Berlin.", 0.8),
            nb("old", "User lives in Berlin.", 0.7, ("user", "lives_in", "Berlin")),
        ],
    ).value
    assert (decision.op, decision.target_id, decision.text) == ("UPDATE", "old", "User lives in Lisbon.")


def test_a_dated_event_is_history_and_a_new_state_is_added_beside_it(llm: RuleBasedLLM) -> None:
    moved = Neighbour(
        "moved",
        "User moved to Lisbon in March 2024.",
        0.7,
        "authorized",
        "event",
        "user",
        "lives_in",
        "Lisbon",
    )
    decision = llm.reconcile(cand("User lives in Porto now.", ("user", "lives_in", "Porto")), [moved]).value
    assert decision.op == "ADD"


def test_a_second_value_of_a_multi_valued_predicate_is_added(llm: RuleBasedLLM) -> None:
    decision = llm.reconcile(
        cand("User is allergic to shellfish.", ("user", "allergic_to", "shellfish")),
        [nb("p", "User is allergic to peanuts.", 0.8, ("user", "allergic_to", "peanuts"))],
    ).value
    assert decision.op == "ADD" and decision.target_id is None


def test_a_second_pet_or_sibling_is_added_but_a_new_mother_replaces(llm: RuleBasedLLM) -> None:
    pet = llm.reconcile(
        cand("User has a cat named Tom.", ("user", "pet", "Tom")),
        [nb("rex", "User has a dog named Rex.", 0.7, ("user", "pet", "Rex"))],
    ).value
    sister = llm.reconcile(
        cand("User's sister is Eva.", ("user", "relation:sister", "Eva")),
        [nb("ana", "User's sister is Ana.", 0.7, ("user", "relation:sister", "Ana"))],
    ).value
    mother = llm.reconcile(
        cand("User's mother is Eva.", ("user", "relation:mother", "Eva")),
        [nb("ana", "User's mother is Ana.", 0.7, ("user", "relation:mother", "Ana"))],
    ).value
    assert (pet.op, sister.op, (mother.op, mother.target_id)) == ("ADD", "ADD", ("UPDATE", "ana"))


def test_disliking_what_was_liked_updates_it(llm: RuleBasedLLM) -> None:
    decision = llm.reconcile(
        cand("User hates sushi.", ("user", "dislikes", "sushi")),
        [nb("s", "User loves sushi.", 0.7, ("user", "likes", "sushi"))],
    ).value
    assert (decision.op, decision.target_id) == ("UPDATE", "s")


@pytest.mark.parametrize(
    "quote",
    ["I no longer live in Berlin.", "I don't live in Berlin anymore.", "I'm not living in Berlin any more."],
)
def test_a_negation_of_a_neighbour_deletes_it(llm: RuleBasedLLM, quote: str) -> None:
    decision = llm.reconcile(
        cand("User no longer lives in Berlin.", quote=quote),
        [nb("cat", "User has a cat.", 0.3), nb("berlin", "User lives in Berlin.", 0.7)],
    ).value
    assert (decision.op, decision.target_id) == ("DELETE", "berlin")


def test_a_negation_with_nothing_to_negate_is_added(llm: RuleBasedLLM) -> None:
    decision = llm.reconcile(cand("User no longer eats meat."), [nb("cat", "User has a cat.", 0.2)]).value
    assert decision.op == "ADD"


def test_a_near_identical_neighbour_means_noop(llm: RuleBasedLLM) -> None:
    decision = llm.reconcile(
        cand("User has a cat named Tom."),
        [nb("a", "User has a dog.", 0.6), nb("b", "User has a cat named Tom", 0.97)],
    ).value
    assert (decision.op, decision.target_id) == ("NOOP", "b")


def test_the_same_attribute_and_value_means_noop_even_worded_differently(llm: RuleBasedLLM) -> None:
    decision = llm.reconcile(
        cand("User is based in Berlin.", ("user", "lives_in", "Berlin")),
        [nb("b", "User lives in Berlin.", 0.8, ("user", "lives_in", "berlin"))],
    ).value
    assert (decision.op, decision.target_id) == ("NOOP", "b")


def test_something_new_is_added(llm: RuleBasedLLM) -> None:
    decision = llm.reconcile(cand("User plays the cello."), [nb("a", "User lives in Berlin.", 0.4)]).value
    assert (decision.op, decision.target_id) == ("ADD", None)


# --- answer -----------------------------------------------------------------------------------

ITEMS = [
    ContextItem("m-berlin", "User lives in Berlin.", "fact", "authorized"),
    ContextItem("m-peanut", "User is allergic to peanuts.", "fact", "authorized"),
    ContextItem("m-cello", "User plays the cello every Sunday.", "fact", "authorized"),
]


def test_an_extractive_answer_cites_the_supporting_items_and_quotes_them(llm: RuleBasedLLM) -> None:
    draft = llm.answer("Which foods is the user allergic to?", ITEMS, "<fenced>").value
    assert draft.cited_ids == ("m-peanut",)
    assert draft.text == "You are allergic to peanuts."  # the user's memory, said to them
    assert not draft.abstained and draft.sufficient


def test_words_meet_through_simple_stemming(llm: RuleBasedLLM) -> None:
    draft = llm.answer("Where does the user live?", ITEMS, "").value
    assert draft.cited_ids == ("m-berlin",)


@given(st.text(max_size=80))
def test_an_answer_cites_only_ids_of_the_given_items(question: str) -> None:
    draft = RuleBasedLLM().answer(question, ITEMS, "").value
    assert set(draft.cited_ids) <= {i.id for i in ITEMS}
    assert draft.abstained == (draft.cited_ids == ())


def test_it_abstains_when_no_item_shares_a_key_word(llm: RuleBasedLLM) -> None:
    draft = llm.answer("What is the user's favourite film?", ITEMS, "").value
    assert draft.abstained and not draft.sufficient and draft.cited_ids == ()


def test_it_abstains_with_no_items(llm: RuleBasedLLM) -> None:
    assert llm.answer("Where does the user live?", [], "").value.abstained


def test_an_answer_covering_few_of_the_key_words_is_marked_insufficient(llm: RuleBasedLLM) -> None:
    draft = llm.answer(
        "Which orchestra conducted by Karajan did the user play cello in during 1985?", ITEMS, ""
    ).value
    assert draft.cited_ids == ("m-cello",) and not draft.sufficient


def test_among_equally_matching_items_what_the_user_said_comes_first(llm: RuleBasedLLM) -> None:
    items = [
        ContextItem(
            "m-claim", "According to the assistant: User's editor is Emacs.", "fact", "attested", None
        ),
        ContextItem("m-said", "User uses Vim for everything.", "fact", "authorized", None),
    ]
    draft = llm.answer("Which editor does the user use?", items, "").value
    # the user's own statement answers alone: the claim beside it would read as a second current editor
    assert draft.cited_ids == ("m-said",)
    assert draft.text.startswith("You use Vim")
    assert "Emacs" not in draft.text


def test_from_a_long_item_the_answer_takes_its_best_sentence(llm: RuleBasedLLM) -> None:
    items = [
        ContextItem(
            "ep",
            "We talked for hours. I adopted a greyhound called Pixel. It rained.",
            "episode",
            "authorized",
        )
    ]
    assert (
        llm.answer("What is the name of the greyhound?", items, "").value.text
        == "I adopted a greyhound called Pixel."
    )


# --- summarise, abstract, link ----------------------------------------------------------------


def test_a_summary_keeps_time_order_and_every_distinct_fact_once(llm: RuleBasedLLM) -> None:
    summary = llm.summarise(
        [
            "User moved to Berlin in 2020.",
            "User lives in Berlin.",
            "User moved to Berlin in 2020",
            "User got a cat.",
        ]
    ).value
    assert summary == "User moved to Berlin in 2020. User lives in Berlin. User got a cat."


def test_a_summary_prefers_the_fuller_of_two_overlapping_statements(llm: RuleBasedLLM) -> None:
    assert (
        llm.summarise(["User has a cat.", "User has a cat named Tom."]).value == "User has a cat named Tom."
    )


def test_a_summary_is_bounded(llm: RuleBasedLLM) -> None:
    texts = [f"Fact number {i} is about topic {i * 7}." for i in range(200)]
    summary = RuleBasedLLM(summary_chars=300).summarise(texts).value
    assert len(summary) <= 300 + len(" (+200 more)")
    assert summary.startswith("Fact number 0 ") and re.search(r"\(\+\d+ more\)$", summary)


def test_an_abstracted_experience_follows_the_slot_template_and_hides_user_values(llm: RuleBasedLLM) -> None:
    text = (
        "Booked a flight for Ana Lopez from Berlin to Lisbon on May 3, 2024 at 9:30 am for $420. "
        "Sent the receipt to ana@example.com and saved https://air.example/b/XY12. "
        "Make sure the passport name matches."
    )
    out = llm.abstract_experience(text).value
    lines = out.split("\n")
    assert lines[0].startswith("## ")
    assert [line.split(":")[0] for line in lines[1:]] == ["Applies when", "Inputs", "Procedure", "Caution"]
    for value in (
        "Ana Lopez",
        "Berlin",
        "Lisbon",
        "May 3",
        "2024",
        "9:30",
        "420",
        "ana@example.com",
        "air.example",
    ):
        assert value not in out
    assert "{slot_1}" in out and "(e-mail address)" in lines[2] and "(URL)" in lines[2]
    assert lines[4] == "Caution: Make sure the passport name matches."


def test_the_same_value_always_gets_the_same_slot(llm: RuleBasedLLM) -> None:
    out = llm.abstract_experience("Called Bob Marley first. Then Bob Marley called back.").value
    assert "Called {slot_1} first" in out and "Then {slot_1} called back" in out
    assert "{slot_2}" not in out


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        ("User lives in Berlin.", "User lives in Berlin since 2020.", "supports"),
        ("User eats meat.", "User no longer eats meat.", "contrasts"),
        ("User lives in Berlin.", "User lives in Paris.", "contrasts"),
        ("User plays the cello.", "User practises the cello with a teacher every week.", "related"),
        ("User plays the cello.", "The invoice from the garage arrived.", "none"),
    ],
)
def test_links_follow_shared_words_and_negation(llm: RuleBasedLLM, a: str, b: str, kind: str) -> None:
    assert llm.link(a, b).value.type == kind


def test_every_task_is_deterministic(llm: RuleBasedLLM) -> None:
    messages = [msg("I moved to Lisbon two weeks ago. I love fado.")]
    assert llm.extract(messages).value == RuleBasedLLM().extract(messages).value
    assert llm.answer("Where?", ITEMS, "").value == RuleBasedLLM().answer("Where?", ITEMS, "").value


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        ("My home is in Kelmar.", ("user", "lives_in", "Kelmar")),
        ("My new address is Kelmar.", ("user", "lives_in", "Kelmar")),
        ("I'm employed at Kelmar.", ("user", "works_at", "Kelmar")),
        ("My employer is Kelmar.", ("user", "works_at", "Kelmar")),
        ("I started working at Kelmar.", ("user", "works_at", "Kelmar")),
        ("I am married to Kelmar.", ("user", "relation:partner", "Kelmar")),
        ("I drive a Kelmar.", ("user", "car", "Kelmar")),
        ("I am a vegetarian now.", ("user", "diet", "vegetarian")),
        ("My home is lovely.", ("user", "described:home", "lovely")),  # about the home, not where it is
    ],
)
def test_one_attribute_said_in_other_words_gets_one_key(sentence: str, key: tuple[str, str, str]) -> None:
    """Updates and conflicts are found by key: "my employer is X" must meet "I work at Y"."""
    from veramem_desktop.models.llm.rules.keys import attribute

    assert attribute(sentence) == key


@pytest.mark.parametrize(
    "sentence", ["The user lives in Madrid.", "The user's home is in Madrid.", "User lives in Madrid."]
)
def test_a_third_person_statement_about_the_user_gets_the_users_key(sentence: str) -> None:
    from veramem_desktop.models.llm.rules.keys import attribute_about_user

    assert attribute_about_user(sentence) == ("user", "lives_in", "Madrid")


@pytest.mark.parametrize(
    "sentence",
    [
        "I switched my editor to Helix.",
        "I changed my editor to Helix.",
        "I now use Helix as my editor.",
        "My editor changed to Helix.",
    ],
)
def test_a_change_worded_as_a_change_gets_the_attributes_key(sentence: str) -> None:
    from veramem_desktop.models.llm.rules.keys import attribute

    assert attribute(sentence) == ("user", "editor", "Helix")


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("Home: Madrid.", ("user", "lives_in", "Madrid")),
        ("User location: Madrid", ("user", "lives_in", "Madrid")),
        ("user.city = Madrid", ("user", "lives_in", "Madrid")),
        ("Employer: Acme", ("user", "works_at", "Acme")),
        ("Status: active", (None, None, None)),
    ],
)
def test_a_tools_labelled_line_about_a_known_attribute_gets_its_key(
    line: str, key: tuple[object, ...]
) -> None:
    from veramem_desktop.models.llm.rules.keys import attribute_about_user

    assert attribute_about_user(line) == key
