"""The rule answer says what holds now, once, from the newest statement; what it replaced only as past;
never an assistant's line or a reply's note as the user's fact; and, asked about a time, the version that
held then. Items are built as recall hands them over (state, group, time), with sentences of their own."""

from __future__ import annotations

from dataclasses import replace

import pytest
from veramem_desktop.core.llm import ContextItem
from veramem_desktop.models.llm.rules.answer import answer


def _item(
    id: str,
    text: str,
    *,
    time: str,
    state: str = "current",
    group: str | None = "g1",
    kind: str = "fact",
    authority: str = "authorized",
    superseded_by: str | None = None,
    source: str | None = None,
    subject: str | None = None,
    value: str | None = None,
) -> ContextItem:
    return ContextItem(
        id,
        text,
        kind,
        authority,
        time,
        state,
        superseded_by,
        group=group,
        source=source,
        subject=subject,
        value=value,
    )


def _coach_history() -> list[ContextItem]:
    """A climbing coach: first at one gym, then (unkeyed, no shared word) at another."""
    return [
        _item(
            "m-old",
            "User coaches at Boulderhaus Nord.",
            time="2022-02-10T09:00:00+00:00",
            state="probably_superseded",
            superseded_by="m-new",
        ),
        _item(
            "m-new", "Started running the kids' sessions at Kletterwerk.", time="2024-09-03T09:00:00+00:00"
        ),
    ]


def test_the_current_value_is_said_once_from_the_newest_statement_and_the_old_one_only_as_past() -> None:
    items = list(reversed(_coach_history()))
    draft = answer("Where does the user coach?", items)
    assert not draft.abstained
    assert draft.text.index("Kletterwerk") < draft.text.index("before that, Boulderhaus Nord")
    assert draft.text.count("Kletterwerk") == 1
    assert "m-new" in draft.cited_ids


def test_a_subject_member_sharing_no_word_with_the_question_still_answers_it() -> None:
    """The newest statement of the asked attribute answers although only the older one shares a word."""
    draft = answer("Where does the user coach?", _coach_history())
    assert draft.cited_ids[0] == "m-new" and not draft.abstained


def test_an_assistants_line_is_attributed_never_said_as_the_users_fact() -> None:
    items = [
        _item(
            "m-claim",
            "User keeps bees on the allotment.",
            time="2024-03-01T10:00:00+00:00",
            authority="attested",
            source="assistant",
            group=None,
        )
    ]
    draft = answer("Does the user keep bees?", items)
    assert draft.text.startswith("the assistant said:")
    assert not draft.text.startswith("You keep")


def test_a_replys_note_of_the_question_is_neither_matched_nor_said() -> None:
    items = [
        _item(
            "m-reply",
            "Sure, sounds good. (in reply to assistant: Should I book the ferry to Texel for Friday?)",
            time="2024-03-01T10:00:00+00:00",
            group=None,
        )
    ]
    draft = answer("When is the ferry to Texel?", items)
    assert draft.abstained and "Texel" not in draft.text


def test_a_negative_memory_is_said_with_the_right_agreement() -> None:
    items = [_item("m-neg", "User doesn't drink coffee after noon.", time="2024-01-01T08:00:00+00:00")]
    assert answer("Does the user drink coffee?", items).text == "You don't drink coffee after noon."


def _homes() -> list[ContextItem]:
    return [
        _item("m-now", "User lives in Utrecht.", time="2024-07-15T12:00:00+00:00"),
        _item(
            "m-was",
            "User lives in Leuven.",
            time="2020-01-20T12:00:00+00:00",
            state="superseded",
            superseded_by="m-now",
        ),
    ]


def test_a_question_naming_a_month_is_answered_with_the_version_valid_then() -> None:
    draft = answer("Where did the user live in March 2024?", _homes())
    assert draft.text.startswith("You lived in Leuven") and "Utrecht" not in draft.text.split("(")[0]
    assert draft.cited_ids[0] == "m-was" and not draft.abstained


def test_a_question_naming_a_change_is_answered_with_the_version_before_it() -> None:
    draft = answer("Where did I live before I moved?", _homes())
    assert draft.text.startswith("You lived in Leuven")


def test_a_later_line_naming_the_new_value_again_is_no_change_of_its_own() -> None:
    """ "Our kitchen in Utrecht is tiny" after the move says Utrecht again: the change is the move, so the
    version before it is Leuven, never the move itself."""
    items = [
        _item("m-again", "User's kitchen in Utrecht is tiny.", time="2024-10-02T12:00:00+00:00"),
        *_homes(),
    ]
    items = [replace(i, subject="lives_in") for i in items]
    draft = answer("Where did I live before the move to Utrecht?", items)
    assert draft.text.startswith("You lived in Leuven"), draft.text


def test_a_plan_naming_no_day_holds_once_a_later_line_says_it_is_done() -> None:
    """ "Moving to Riga!!" said in March names no day: in May the person still lived in Tallinn, as far as
    anything said tells; "five months in Riga now" in December says the move was done."""
    items = [
        _item(
            "m-now", "Five months in Riga now and the old town is gorgeous.", time="2022-12-01T12:00:00+00:00"
        ),
        _item(
            "m-plan",
            "Ok it's decided, moving to Riga!!",
            time="2022-03-01T12:00:00+00:00",
            state="probably_superseded",
            superseded_by="m-now",
        ),
        _item(
            "m-was",
            "User lives in Tallinn.",
            time="2021-01-10T12:00:00+00:00",
            state="probably_superseded",
            superseded_by="m-now",
        ),
    ]
    items = [replace(i, subject="lives_in") for i in items]
    draft = answer("Where did I live in May 2022?", items)
    assert draft.text.startswith("You lived in Tallinn"), draft.text


def test_a_question_naming_a_time_after_the_change_gets_the_current_version() -> None:
    draft = answer("Where did the user live in August 2024?", _homes())
    assert draft.text.startswith("You live in Utrecht")
    assert answer("Where does the user live?", _homes()).text.startswith(
        "You live in Utrecht (since 2024-07-15;"
    )


def test_an_item_stating_the_asked_attribute_answers_a_question_in_other_words() -> None:
    items = [
        ContextItem(
            "m-job",
            "Signed the contract with Veldhuis & Co on Friday.",
            "fact",
            "authorized",
            subject="works_at",
        )
    ]
    draft = answer("Who is my employer?", items)
    assert not draft.abstained and "Veldhuis" in draft.text


def test_a_relative_time_is_counted_from_the_askers_day_not_the_last_message() -> None:
    from datetime import date

    from veramem_desktop.models.llm.rules.answer_time import asked_when

    items = _homes()  # the latest message is from July 2024
    when = asked_when("Where did I live last summer?", items, today=date(2026, 3, 2))
    assert when is not None and when.end == "2025-09-01"
    assert asked_when("Where did I live last summer?", items, today=date(2024, 8, 1)).end == "2023-09-01"


def test_another_persons_attribute_is_never_answered_with_what_the_asker_says_of_themselves() -> None:
    """Asked where a brother works, the asker's own employer is no answer, however well it matches; the
    brother's statements count, those naming him by the name the history gives the relation too."""
    items = [
        _item("m-own", "User's employer: Kestrel Mutual.", time="2023-05-05T09:00:00+00:00", group="g-own"),
        _item(
            "m-own2", "I'm an underwriter at Kestrel Mutual.", time="2023-05-05T09:01:00+00:00", group=None
        ),
        _item(
            "m-bro",
            "User's brother Pavel codes for Ashgrove Freight.",
            time="2022-05-05T09:00:00+00:00",
            group=None,
        ),
        _item("m-new", "Pavel got hired at Corrin Labs!", time="2024-01-17T09:00:00+00:00", group=None),
    ]
    items[0] = ContextItem(
        "m-own", items[0].text, "fact", "authorized", items[0].time, group="g-own", subject="works_at"
    )
    draft = answer("Where does my brother work now?", items)
    assert "Kestrel" not in draft.text, draft.text
    assert not {"m-own", "m-own2"} & set(draft.cited_ids)


def test_a_question_naming_an_attribute_is_answered_by_one_subject() -> None:
    """Two unrelated statements both matching the question's words: only the best is said, never a
    second one beside it that would read as another current value."""
    items = [
        _item("m-a", "Tova's new partner Ines is a climber.", time="2023-12-03T09:00:00+00:00", group=None),
        _item(
            "m-b",
            "Tova brought Ruth, her partner, to the barbecue.",
            time="2021-08-07T09:00:00+00:00",
            group=None,
        ),
    ]
    draft = answer("Who is Tova's partner now?", items)
    assert "Ines" in draft.text and "Ruth" not in draft.text, draft.text


def test_a_clause_denying_something_is_no_part_of_what_holds() -> None:
    items = [
        _item(
            "m-new",
            "User's editor is Helix since October, hasn't opened Kakoune once, it is so fast.",
            time="2024-03-19T09:00:00+00:00",
            group=None,
        )
    ]
    draft = answer("Which editor do I use?", items)
    assert "Helix" in draft.text and "Kakoune" not in draft.text, draft.text


def test_a_denial_after_the_value_it_follows_says_that_value_holds_and_denies_the_other() -> None:
    """A denial reaches only what follows it ("it's Odile now not Bram"): the answer says Odile, never Bram."""
    items = [
        ContextItem(
            "m-boss",
            "Bram's long gone lol, it's Odile now not Bram.",
            "fact",
            "authorized",
            "2024-02-27T09:00:00+00:00",
            subject="relation:boss",
        )
    ]
    draft = answer("Who's my manager now?", items)
    assert not draft.abstained and "Odile" in draft.text and "Bram" not in draft.text, draft.text


def test_asked_about_a_time_no_version_knows_the_asker_s_words_said_by_then_answer() -> None:
    """No statement shares a word with the question and none is keyed: what the asker said by the end of
    the asked time, the most relevant first, answers, as past with the day it was said; never what they
    said after."""
    items = [
        _item(
            "m-new",
            "The GP swapped User onto Veltrazine in August 2022.",
            time="2022-10-14T09:00:00+00:00",
            group=None,
        ),
        _item(
            "m-old",
            "User is on Moraxil 50mg, eight months now.",
            time="2022-02-09T09:00:00+00:00",
            group=None,
        ),
    ]
    draft = answer("What antidepressant was I taking in spring 2022?", items)
    assert not draft.abstained and draft.cited_ids == ("m-old",), draft
    assert "Moraxil" in draft.text and "Veltrazine" not in draft.text and "2022-02-09" in draft.text


def test_asked_about_a_time_a_line_naming_the_attribute_s_value_answers_before_one_naming_another_thing() -> (
    None
):
    """Two lines said by the asked time name something; the one naming a value another line states as the
    asked attribute's (the provider a later switch names) answers, though recall placed the other first."""
    items = [
        _item(
            "m-laptop",
            "The laptop is an old Lenbook from 2017, will try the cable tomorrow.",
            time="2022-05-10T14:12:00+00:00",
            group=None,
        ),
        _item(
            "m-then",
            "Calls keep freezing every afternoon, we have Northwave on the 100mb package.",
            time="2022-05-10T14:05:00+00:00",
            group=None,
        ),
        _item(
            "m-switch",
            "Finally switched broadband to Kestrel after 2 years of Northwave lagging.",
            time="2023-02-18T10:38:00+00:00",
            group=None,
        ),
    ]
    draft = answer("which broadband provider did we have in autumn 2022?", items)
    assert not draft.abstained and draft.cited_ids[:1] == ("m-then",), draft
    assert "Northwave" in draft.text and "Lenbook" not in draft.text


def test_a_clause_naming_only_what_earlier_days_named_is_left_out_beside_one_naming_something_new() -> None:
    """No ending verb the inventory knows: the clause naming the old gym is history because an earlier
    day's statement named it, and another clause names the new one."""
    items = [
        _item(
            "m-new",
            "Swapped out of corebarn in March, the Tallow Street Lido has a 50m pool so I go there daily.",
            time="2024-05-20T09:00:00+00:00",
            group=None,
        ),
        _item(
            "m-old", "Signed up at Corebarn near the office.", time="2023-01-09T09:00:00+00:00", group=None
        ),
    ]
    draft = answer("Which pool do I go to these days?", items)
    assert "Tallow Street Lido" in draft.text and "corebarn" not in draft.text.lower(), draft.text


def test_a_reason_given_with_a_change_is_its_own_clause() -> None:
    from veramem_desktop.core.recall.statements import clauses

    said = clauses("Moved my number to Wrenly bc quillnet kept dropping calls on the bus.")
    assert said == ["Moved my number to Wrenly", "bc quillnet kept dropping calls on the bus."]


def test_asked_about_a_time_the_latest_matching_statement_said_by_then_answers_keyed_or_not() -> None:
    """The subject's keyed versions skip a statement the write path did not key; what the asker said last
    before the asked time, matching the question, is what held then."""
    items = [
        ContextItem(
            "m-new",
            "User's squat PB is 150kg now.",
            "fact",
            "authorized",
            "2023-02-10T09:00:00+00:00",
            group="g1",
            subject="personal_best",
        ),
        ContextItem(
            "m-old",
            "New squat PB on Friday: 110kg!",
            "fact",
            "authorized",
            "2022-01-15T09:00:00+00:00",
            "probably_superseded",
            "m-new",
            group="g1",
            subject="personal_best",
        ),
        _item(
            "m-mid",
            "Squat went well, hit 130kg in the week of 2022-06-13.",
            time="2022-06-22T09:00:00+00:00",
            group=None,
        ),
    ]
    draft = answer("What was my best squat in late summer 2022?", items)
    assert not draft.abstained and draft.cited_ids[0] == "m-mid", draft
    assert draft.text.index("130kg") < min(draft.text.find(v) % 10_000 for v in ("110kg", "150kg"))


def test_asked_about_someone_their_unkeyed_change_states_what_is_asked() -> None:
    """Recall reads an unkeyed line about another person ("Pavel landed a job at Corrin Labs") as stating
    their employer, so it answers "where does my brother work?" over an older line that only shares the
    word "brother"."""
    items = [
        ContextItem(
            "m-old",
            "User's brother Pavel (he codes at Ashgrove Freight) says recruiters only want numbers.",
            "fact",
            "authorized",
            "2022-05-05T09:00:00+00:00",
            subject="relation:brother",
        ),
        _item("m-new", "Pavel landed a job at Corrin Labs!!!", time="2023-01-17T09:00:00+00:00", group=None),
    ]
    draft = answer("Where does my brother work now?", items)
    assert "Corrin Labs" in draft.text and "Ashgrove" not in draft.text, draft.text


def test_a_clause_naming_an_earlier_value_written_in_lower_case_is_history_too() -> None:
    """ "emacs" is never capitalised in the history, but the inventory knows it as an editor: the clause
    that ditches it is left out of what holds."""
    items = [
        _item(
            "m-new",
            "ditched emacs over the summer, on Helix now with a tiny config.",
            time="2024-08-21T09:00:00+00:00",
            group=None,
        ),
        _item("m-old", "my emacs init file is 3000 lines lol", time="2023-01-09T09:00:00+00:00", group=None),
    ]
    items[0] = ContextItem(
        "m-new", items[0].text, "fact", "authorized", items[0].time, group=None, subject="editor"
    )
    draft = answer("what text editor am i using now?", items)
    assert "Helix" in draft.text and "emacs" not in draft.text.lower().split("before that")[0], draft.text


def test_a_clause_dropped_inside_brackets_leaves_them_closed() -> None:
    """ "no more retail" is history and is left out of what holds; the bracket it closed is closed still."""
    items = [
        _item(
            "m-new",
            "Tamsin landed a job at Orrin Compounding (a small lab, no more retail!!).",
            time="2024-06-15T09:00:00+00:00",
            group=None,
        )
    ]
    draft = answer("where does Tamsin work now?", items)
    said = draft.text
    assert "Orrin Compounding" in said and said.count("(") == said.count(")"), said


def test_a_replaced_value_written_in_capitals_keeps_them_after_before_that() -> None:
    from veramem_desktop.models.llm.rules.answer import _lower_first

    assert _lower_first("KESTREL HOUSE CHOIR, spring term") == "KESTREL HOUSE CHOIR, spring term"
    assert _lower_first("Moved to Leith") == "moved to Leith"
    assert _lower_first("I lived in Leith") == "I lived in Leith"


def test_words_for_now_say_when_never_what_so_the_answer_is_enough() -> None:
    """'these days', 'at the moment', 'currently': a question's words for now are no part of what it asks
    about, so a statement naming every other asked word answers it in full instead of abstaining."""
    items = [
        _item("m-fav", "Our favourite is the little place by the canal.", time="2023-02-10T09:00:00+00:00")
    ]
    for question in (
        "which restaurant is our favourite these days?",
        "which restaurant is our favourite at the moment?",
        "which restaurant is currently our favourite?",
    ):
        draft = answer(question, items)
        assert not draft.abstained and draft.sufficient, question
        assert draft.cited_ids == ("m-fav",)


def test_a_change_typed_in_lower_case_is_said_by_its_new_value_alone() -> None:
    """'ditched emacs for helix': both are editors the inventory knows, however they are typed; the answer
    says the new one plainly and the old one only as past, never the sentence naming both as now."""
    old = ContextItem(
        "m-old",
        "Using emacs at work, it's fine.",
        "fact",
        "authorized",
        "2022-01-10T09:00:00+00:00",
        "probably_superseded",
        "m-new",
        group="g1",
        subject="editor",
    )
    new = ContextItem(
        "m-new",
        "Ditched emacs for helix, my mate kept going on about it.",
        "fact",
        "authorized",
        "2023-05-02T09:00:00+00:00",
        group="g1",
        subject="editor",
    )
    draft = answer("which editor do I use?", [new, old])
    assert draft.text.startswith("Your editor is helix")
    assert "before that, emacs" in draft.text and draft.text.count("emacs") == 1


def test_asked_about_a_time_a_value_a_later_statement_says_stopped_held_then() -> None:
    """'ditched Brackenfit in April 2024', said after the asked summer: Brackenfit held until then, so it
    answers 'which gym was I using in summer 2023?' before an older line that recall found less close; a
    subject that swapped someone onto something is no value that stopped."""
    items = [
        _item(
            "m-ditched",
            "Ditched Brackenfit in April 2024, the pool at Lowmoor is worth the trip.",
            time="2024-05-20T09:00:00+00:00",
            group=None,
        ),
        _item(
            "m-old",
            "Leg day at Pulsewell again, cannot feel my knees.",
            time="2022-02-14T09:00:00+00:00",
            group=None,
        ),
    ]
    draft = answer("which gym was I using in summer 2023?", items)
    assert draft.text.startswith("Brackenfit, until 2024-05-20") and draft.cited_ids == ("m-ditched",)
    swapped = [
        _item(
            "m-gp", "The GP swapped me onto sertraline in May.", time="2024-05-20T09:00:00+00:00", group=None
        )
    ]
    assert not answer("which GP was I seeing in summer 2023?", swapped).text.startswith("GP, until")


@pytest.mark.parametrize(
    ("said", "day", "question", "held"),
    [
        # a name told later as history
        (
            "Back when I was with Corvane Bank the app was awful.",
            "2024-03-02",
            "which bank was I with in summer 2022?",
            "Corvane Bank",
        ),
        # the clause telling what held before names it alone
        (
            "Alto in Harbour Voices since March 2023, before that the Wrenfield Singers.",
            "2024-02-10",
            "which choir was I singing in in spring 2022?",
            "Wrenfield Singers",
        ),
    ],
)
def test_asked_about_a_time_what_a_later_line_tells_as_before_held_then(
    said: str, day: str, question: str, held: str
) -> None:
    draft = answer(question, [_item("m-told", said, time=f"{day}T09:00:00+00:00", group=None)])
    assert draft.text.startswith(f"{held}, until {day}")


def test_a_statement_ending_one_value_and_naming_the_next_is_said_by_the_next_alone() -> None:
    """No older statement is at hand: the value the sentence says stopped ('ditched brackenfit', typed in
    lower case) is still an old one, and a figure ('a 25m pool') is no gym, so the gym is said plainly, and
    the one it replaced as past."""
    head = ContextItem(
        "m-gym",
        "Ditched brackenfit in March, the Lowmoor Leisure Centre has a 25m pool so going there 3x a week.",
        "fact",
        "authorized",
        "2024-05-20T09:00:00+00:00",
        group="g1",
        subject="gym",
    )
    said = answer("what gym am i going to these days?", [head]).text
    assert said == "Your gym is Lowmoor Leisure Centre (since 2024-05-20; before that, brackenfit)."


def test_asked_about_a_time_after_one_value_stopped_and_another_began_the_same_day_the_new_one_held() -> None:
    """ "Quit FlexiGym" and "Signed up to Harbour Climbing instead" said the same day: asked about the summer
    after, the answer is the climbing wall, never the gym that stopped."""
    items = [
        _item("m1", "Just joined FlexiGym on the high street.", time="2021-09-14T18:20:00+00:00"),
        _item("m3", "Signed up to Harbour Climbing instead, it's cheaper.", time="2022-03-02T20:05:00+00:00"),
        _item("m2", "Quit FlexiGym on 2022-03-02.", time="2022-03-02T20:05:00+00:00"),
        _item("m4", "Harbour Climbing membership went up to 49.", time="2023-01-20T12:40:00+00:00"),
    ]
    draft = answer("which gym was I going to in summer 2022?", [replace(i, subject="gym") for i in items])
    assert "Harbour Climbing" in draft.text and "FlexiGym" not in draft.text.split("(")[0], draft.text


def test_asked_about_a_time_of_one_days_statements_the_one_naming_a_value_of_the_attribute_held() -> None:
    """Two statements keyed to the car the same day, one naming a make of car ("a 2012 Mazda Demio") and one
    naming none (someone else drove): asked about the year after, the make is what was driven."""
    day, old = "2021-05-03T10:00:00+00:00", "probably_superseded"
    items = [
        _item("m-now", "Swapped the Demio for a Toyota Aygo last week.", time="2024-07-09T10:00:00+00:00"),
        _item(
            "m-old", "Driving the old Saab 900 into the ground.", time="2019-02-01T10:00:00+00:00", state=old
        ),
        _item("m-new", "Picked up a 2012 Mazda Demio, red, from the auction.", time=day, state=old),
        _item("m-lift", "My cousin has been driving me to the shops in the meantime.", time=day, state=old),
    ]
    draft = answer("what was I driving in spring 2022?", [replace(i, subject="car") for i in items])
    assert "Mazda" in draft.text.split("(")[0] and draft.cited_ids[0] == "m-new", draft.text


def test_a_word_asked_as_for_with_wise_is_what_is_asked() -> None:
    """ "job wise" asks about the job: "wise" is no word the answer must cover, so the line about what
    Tomasz does now answers rather than abstaining as half the question unsaid."""
    items = [
        _item("m1", "Tomasz is retraining as a paramedic, starts in March.", time="2024-05-01T10:00:00+00:00")
    ]
    draft = answer("what's tomasz doing now job wise?", items)
    assert draft.sufficient and not draft.abstained and "paramedic" in draft.text
    assert draft.sufficient == answer("what's tomasz doing now money-wise?", items).sufficient


@pytest.mark.parametrize(
    ("new", "old", "question", "said", "before"),
    [
        # the old car typed in lower case is still the one an older line named ("The Fabia's boot …", after
        # its article and without its "'s"), and of the names left the one naming a make the inventory knows
        # is the car (not the capitalised verb opening the sentence)
        (
            "Part-swapped the fabia for a Hyundai Kona EV at the weekend!!",
            "The Fabia's boot is tiny but the dog fits.",
            "what car do we drive now?",
            "Your car is Hyundai Kona EV",
            "before that, Fabia",
        ),
        # "Hyundai" alone (the garage's) is part of the new car's name, not a second value beside it
        (
            "Traded in the Fabia at the Hyundai garage in Tralee for a 221 Hyundai Kona, 12k km.",
            "Vehicle: 2016 Skoda Fabia 1.0, 161-KY-4410.",
            "what car have I now?",
            "Your car is Hyundai Kona",
            "before that, Skoda Fabia",
        ),
    ],
)
def test_a_swap_is_said_by_the_new_value_alone_in_full(
    new: str, old: str, question: str, said: str, before: str
) -> None:
    """A line swapping the old car for a new one is said plainly: the new car by its full name, the old one
    only as what came before."""
    now = ContextItem(
        "m-new", new, "fact", "authorized", "2023-03-21T10:00:00+00:00", group="g1", subject="car"
    )
    earlier = replace(
        now, id="m-old", text=old, time="2022-05-02T10:00:00+00:00", state="probably_superseded"
    )
    draft = answer(question, [now, earlier])
    assert draft.text.startswith(said), draft.text
    assert before in draft.text and draft.text.count("abia") == 1, draft.text


@pytest.mark.parametrize(
    ("new", "old", "subject", "question", "said"),
    [
        # the new employer is a place named with what it is, in lower case: said in full, not its name alone
        (
            "User handed User's notice in at Sainsburys and User is starting at Dennistoun bakery on the 1st.",
            "User works at Sainsburys on the tills.",
            "works_at",
            "where do I work now?",
            "Your employer is Dennistoun bakery (",
        ),
        # the person's own words as typed: "I'm" is the speaker, never a second name beside the new one
        (
            "I handed my notice in at Sainsburys and I'm starting at Dennistoun bakery on the 1st.",
            "I work at Sainsburys on the tills.",
            "works_at",
            "where do I work now?",
            "Your employer is Dennistoun bakery (",
        ),
        # a name before a noun of the attribute itself says which one: the home is in Harrogate
        (
            "Left Whitby for good, my Harrogate flat has a view of the Stray.",
            "We live in Whitby.",
            "lives_in",
            "where do I live now?",
            "Your home is Harrogate (",
        ),
    ],
)
def test_a_new_value_is_said_by_its_whole_name(
    new: str, old: str, subject: str, question: str, said: str
) -> None:
    """The value a changed line states is said as its phrase names it ("Dennistoun bakery"), and the old
    one only as what came before."""
    now = ContextItem(
        "m-new", new, "fact", "authorized", "2023-03-21T10:00:00+00:00", group="g1", subject=subject
    )
    earlier = replace(
        now, id="m-old", text=old, time="2022-05-02T10:00:00+00:00", state="probably_superseded"
    )
    draft = answer(question, [now, earlier])
    assert draft.text.startswith(said), draft.text
    old_name = "Sainsburys" if subject == "works_at" else "Whitby"
    assert draft.text.count(old_name) == 1 and f"before that, {old_name}" in draft.text, draft.text


def test_a_close_line_only_saying_a_value_stopped_is_never_said_as_what_holds() -> None:
    """Recall's first item shares no word with the question and only says the Courier was cancelled: it tells
    what no longer holds, so it does not answer "what newspaper do I read now?" as if it did."""
    cancelled = replace(
        _item(
            "m1",
            "Cancelled the Courier after thirty years, the price is scandalous.",
            time="2022-06-01T09:00:00+00:00",
        ),
        closeness=0.6,
    )
    draft = answer("what newspaper do I read now?", [cancelled])
    assert draft.abstained or "Courier" not in draft.text, draft.text


def test_someone_elses_attribute_named_by_the_question_is_said_by_its_value_and_the_old_one_as_past() -> None:
    """ "what instrument does Maxi play now?": nothing keyed the line, but the question names one attribute
    and the line names a value of it typed in lower case; the name of whom it is about is no value, and the
    instrument the sentence says was swapped is said as past, never as current."""
    from veramem_desktop.bench.truth_natural_section import stale_as_current

    item = _item(
        "m1",
        "Maxi's swapped flute for clarinet this term, his teacher Mrs Oduya reckons it suits him.",
        time="2024-05-01T10:00:00+00:00",
    )
    draft = answer("what instrument does Maxi play now?", [item])
    assert draft.text == "Maxi's instrument is clarinet (since 2024-05-01; before that, flute).", draft.text
    assert draft.sufficient and not stale_as_current(draft.text, ["flute"])


def test_a_value_said_plainly_is_labelled_as_the_attribute_it_is_a_value_of_when_that_is_asked() -> None:
    """Recall read the line as the phone; its value, Voxi, is a mobile network the inventory knows, and the
    network is what is asked: "Your carrier is Voxi", never "Your phone is Voxi"."""
    now = ContextItem(
        "m1",
        "Switched us both to Voxi from O2, it is half the price.",
        "fact",
        "authorized",
        "2023-04-04T10:00:00+00:00",
        group="g1",
        subject="phone",
    )
    old = replace(
        now,
        id="m0",
        text="O2 keeps dropping calls in the kitchen.",
        time="2022-01-01T10:00:00+00:00",
        state="probably_superseded",
    )
    assert answer("who is my mobile provider now?", [now, old]).text == (
        "Your carrier is Voxi (since 2023-04-04; before that, O2)."
    )


def test_an_assistants_claim_keeps_who_made_it_when_its_old_names_are_dropped() -> None:
    """The claim names a medicine an earlier claim named: its clauses of old names may go, but "According to
    the assistant:" is no clause of history; the answer never says the assistant's line as the user's."""
    claim = ContextItem(
        "m1",
        "According to the assistant: Packing list: boots, map and compass, and User's loratadine for the hay fever.",
        "fact",
        "attested",
        "2023-06-04T10:00:00+00:00",
        group="g1",
    )
    earlier = replace(
        claim,
        id="m0",
        text="According to the assistant: Try loratadine.",
        time="2023-04-04T10:00:00+00:00",
        group="g2",
    )
    said = answer("what am i taking for hay fever now?", [claim, earlier]).text
    assert said.startswith("According to the assistant:"), said


@pytest.mark.parametrize(
    ("now", "before", "unsaid"),
    [
        # the old line is the user's memory: the value said as past is "Hexham", never "User's Hexham"
        (
            "The new flat in Alnwick has a balcony and User is unreasonably excited about it.",
            "User's Hexham place is damp again.",
            "User",
        ),
        # a word the lexicon knows written loud is no name (an acronym such as "NHS" is still one)
        (
            "We finally moved to Alnwick, the removal van was late.",
            "The Hexham place is NOT warm in winter.",
            "NOT",
        ),
    ],
)
def test_the_old_value_named_as_past_is_the_name_alone(now: str, before: str, unsaid: str) -> None:
    """The home said as past is Hexham alone: not with who said the line, nor a word written in capitals
    for emphasis."""
    new = ContextItem(
        "m2", now, "fact", "authorized", "2024-03-08T10:00:00+00:00", group="g1", subject="lives_in"
    )
    old = replace(new, id="m1", text=before, time="2023-01-08T10:00:00+00:00", state="probably_superseded")
    said = answer("where do I live now?", [new, old]).text
    assert "before that, Hexham)" in said and unsaid not in said, said


def _said_over_time(subject: str, *lines: tuple[str, str]) -> list[ContextItem]:
    """One subject's statements of the person's own, newest first: (day, text) pairs, the first current, the
    last (the oldest) probably superseded, those between current too (a later line saying the value again)."""
    items = [
        ContextItem(
            f"m{len(lines) - i}",
            text,
            "fact",
            "authorized",
            f"{day}T10:00:00+00:00",
            group="g1",
            subject=subject,
        )
        for i, (day, text) in enumerate(lines)
    ]
    return [*items[:-1], replace(items[-1], state="probably_superseded")]


def test_a_place_said_beside_the_value_is_never_said_as_it() -> None:
    """An energy supplier is no place: "Bramley" in "a terrace in Bramley" is where the house is, so the
    plain answer names no place as the supplier (it says the line as it is)."""
    items = _said_over_time(
        "energy_supplier",
        (
            "2024-03-02",
            "Been with ember energy a year now, is a 5kw battery worth it for a terrace in Bramley.",
        ),
        ("2022-10-01", "Solwick Power want 210 a month for the house now."),
    )
    text = answer("who's my energy supplier now?", items).text
    assert "energy supplier is Bramley" not in text, text
    assert "ember energy" in text, text


def test_a_figure_keeps_the_unit_written_against_it() -> None:
    """A figure written with its unit ("120kg") is said with it, as the line writes it: the old best too."""
    items = _said_over_time(
        "personal_best",
        ("2024-06-02", "New PB on the squat today, 142kg for a single!!"),
        ("2023-01-10", "Squat max is 120kg, want 140 by summer."),
    )
    text = answer("what's my best squat now?", items).text
    assert "142kg" in text and "before that, 120kg" in text, text


def test_a_name_opening_a_sentence_as_an_owner_is_a_name_though_the_lexicon_knows_the_word() -> None:
    """ "Golf's a dream, the Fabia never felt like that": "Golf" is a dictionary word, but said owning
    something at the start of a sentence it is a name, the new car, said plainly beside the old one."""
    items = _said_over_time(
        "car",
        ("2024-06-02", "Golf's a dream on the motorway, the Fabia never felt like that."),
        ("2023-01-10", "Driving a Skoda Fabia hatchback, 2016."),
    )
    text = answer("what car have I got now?", items).text
    assert text.startswith("Your car is Golf"), text


def test_of_two_names_a_later_line_says_the_one_named_last_is_the_value() -> None:
    """After "traded the Fabia in for a Golf", "Golf's a dream, the Fabia never felt like that" names both
    cars, both said before: the Golf came last, so it is the car, said plainly, and the Fabia as past."""
    items = _said_over_time(
        "car",
        ("2024-06-20", "Golf's a dream on the motorway, the Fabia never felt like that."),
        ("2024-06-02", "Traded the Fabia in for a VW Golf at the garage in Naas."),
        ("2023-01-10", "Vehicle: 2016 Skoda Fabia 1.0 TSI, 161-D-1234."),
    )
    text = answer("what car have I got now?", items).text
    assert text.startswith("Your car is Golf"), text
    # what it replaced is the Fabia, by the inventory's makes, not the line naming the Golf, nor "TSI"
    assert text.endswith("before that, Skoda Fabia)."), text


def test_a_question_not_in_the_askers_first_person_is_never_answered_as_theirs() -> None:
    """ "where's Oma living now?" asks someone whom the inventory has no relation word for: recall may read
    the lines as the home, yet the answer never says "your home"; it says the line as it is."""
    items = _said_over_time(
        "lives_in",
        ("2024-02-14", "Oma's settled in Larkhill House, the staff are lovely."),
        ("2021-05-03", "Oma lives on her own in Tramore still."),
    )
    draft = answer("where's Oma living now?", items)
    assert not draft.abstained and "Larkhill House" in draft.text
    assert not draft.text.startswith("Your"), draft.text
    assert answer("where am I living now?", items).text.startswith("Your home is Larkhill House")


def test_a_value_said_beside_one_it_denies_in_lower_case_and_a_road_is_said_plainly() -> None:
    """ "… now go to Alder Pharmacy on Ash Road not superdrug anymore": the road is where the value is (the
    parse labels it a facility), and "superdrug", however typed, is said only as not holding, so the answer
    names the one value."""
    item = ContextItem(
        "m1",
        "Prescriptions now go to Alder Pharmacy on Ash Road not superdrug anymore, every 28 days.",
        "fact",
        "authorized",
        "2024-06-02T10:00:00+00:00",
        group="g1",
        subject="pharmacy",
    )
    draft = answer("which pharmacy do I use now?", [item])
    assert draft.text.startswith("Your pharmacy is Alder Pharmacy."), draft.text
    assert "superdrug" not in draft.text.casefold()


def test_a_clause_telling_a_past_state_beside_one_of_now_is_left_out_of_the_current_answer() -> None:
    """'X was fine back then but y has been solid': the parse reads a copula in the simple past, so the
    old value's clause is history beside a clause of now, whatever words say 'back then'; the answer
    names the old value only as past."""
    old = _item(
        "m-old",
        "Salary goes into Halifax.",
        time="2019-04-02T09:00:00+00:00",
        state="probably_superseded",
        superseded_by="m-new",
    )
    new = _item(
        "m-new",
        "Halifax was alright when I was a student tbh but chase has been great for 18 months.",
        time="2024-02-11T09:00:00+00:00",
    )
    draft = answer("which bank does my salary go into?", [new, old])
    first = draft.text.split("(")[0]
    assert "chase" in first.casefold() and "Halifax" not in first, draft.text


def test_a_change_or_a_state_of_now_said_in_the_past_tense_stays_in_the_answer() -> None:
    from veramem_desktop.models.llm.rules.answer import without_past_states

    # a past event is the change itself; a past state with nothing of now beside it is all there is
    for text in ("Switched to Lebara, 8 quid a month.", "I was at Orrin for 3 years, loved it."):
        assert without_past_states(text) == text
    assert without_past_states("We had Plusnet for ages, now on Zen.").casefold() == "now on zen."


def test_asked_about_a_time_before_the_first_version_the_value_it_says_it_replaced_held_then() -> None:
    """The only version of the home began after the asked month, and its own line says what it left: that
    held then (a document line said by then names no home and is no answer)."""
    letter = _item(
        "m-doc", "Letter came on 2023-02-11: water bill.", time="2023-02-11T09:00:00+00:00", group="g2"
    )
    moved = _item(
        "m-new",
        "We moved out of Alder Close in July 2023, new place is 9 Kestrel Way.",
        time="2023-08-27T09:00:00+00:00",
        kind="event",
        group="g1",
        subject="lives_in",
        value="9 Kestrel Way",
    )
    draft = answer("where did we live in april 2023?", [letter, moved])
    assert draft.text.startswith("Alder Close"), draft.text
    assert "Kestrel" not in draft.text.split("(")[0]


def test_a_question_reading_one_attribute_is_answered_by_it_before_one_a_noun_of_it_names() -> None:
    """'what's my job title?' reads the occupation; 'job' also names the employer, which the inventory lists
    first: the occupation's statement answers."""
    role = _item(
        "m-role",
        "I start at Brenmoor as Lead Designer.",
        time="2024-10-03T09:00:00+00:00",
        group="g1",
        subject="occupation",
        value="Lead Designer",
    )
    employer = _item(
        "m-org",
        "User's employer: Brenmoor.",
        time="2024-10-03T09:00:00+00:00",
        group="g2",
        subject="works_at",
        value="Brenmoor",
    )
    assert "Lead Designer" in answer("what's my job title now?", [role, employer]).text


def test_a_name_attached_to_the_attributes_noun_is_the_value_said_though_said_before() -> None:
    """'3 months into the Brenmoor job …, they ask for a SCHUFA': the employer is the name on 'job', said
    before or not; the other name is no employer."""
    old = _item(
        "m-old",
        "I start at Brenmoor as Lead Designer.",
        time="2024-10-03T09:00:00+00:00",
        group="g1",
        subject="works_at",
        value="Brenmoor",
    )
    new = _item(
        "m-new",
        "3 months into the Brenmoor job and still in a sublet, is it normal they ask for a SCHUFA.",
        time="2025-02-11T09:00:00+00:00",
        group="g1",
        subject="works_at",
    )
    draft = answer("where do i work now?", [new, old])
    assert draft.text.startswith("Your employer is Brenmoor"), draft.text
    assert "SCHUFA" not in draft.text


def test_a_subjects_statement_recall_put_first_leads_it_though_another_shares_more_words() -> None:
    """Of one subject (recall's group), the statement search shows first leads the answer: the older one
    saying the question's noun ("nursery") shares more of its words, but is not what holds."""
    new = _item(
        "m-new",
        "Ilse is moving to Sunflower Club in Hove from the 3rd of May.",
        time="2024-04-02T09:00:00+00:00",
    )
    old = _item(
        "m-old",
        "Ilse starts at Tiny Steps nursery on monday, 3 days a week.",
        time="2023-01-09T09:00:00+00:00",
    )
    draft = answer("what nursery does Ilse go to?", [new, old])
    assert draft.text.startswith("Ilse is moving to Sunflower Club"), draft.text


def test_someone_elses_keyed_value_is_said_plainly_beside_an_old_one_in_its_sentence() -> None:
    """Asked about someone, a statement the write path keyed with their value, naming their old one too
    ("… after passing probation at Brevanta"), is said by the keyed value: the old name is no current one."""
    line = _item(
        "m-1",
        "Ines got poached by WTBK lmao, like 3 months after passing probation at Brevanta.",
        time="2023-11-05T09:00:00+00:00",
        group="g1",
        subject="works_at",
        value="WTBK",
    )
    draft = answer("where does Ines work now?", [line])
    assert draft.text.startswith("Ines's employer is WTBK"), draft.text
    assert "Brevanta" not in draft.text


def test_asked_about_a_time_before_anything_known_the_answer_abstains_and_says_when_knowledge_begins() -> (
    None
):
    """The only statement of the subject began after the asked time and says nothing of what it replaced:
    it is never said as what held then."""
    only = _item(
        "m-1",
        "Switched to Lumenet fibre, 22 quid a month.",
        time="2022-03-21T09:00:00+00:00",
        group="g1",
        subject="internet_provider",
        value="Lumenet",
    )
    draft = answer("who was my broadband provider in december 2021?", [only])
    assert draft.abstained and "Lumenet" not in draft.text
    assert "2022-03-21" in draft.text


def test_asked_about_a_time_a_line_naming_no_value_of_the_attribute_is_never_said_as_what_held() -> None:
    """The most relevant lines said by then are a document's dated label and a payment's figures: neither
    names an energy supplier (dates and sums are no value of one), so the line that names one, lower down
    and in lower case, says what held then."""
    items = [
        _item(
            "m-label", "Bill period: 2021-11-02 to 2021-12-01", time="2021-12-03T09:00:00+00:00", group=None
        ),
        _item(
            "m-paid", "Paid 84 by direct debit on 2021-12-01.", time="2021-12-03T09:05:00+00:00", group=None
        ),
        _item(
            "m-then",
            "we went over to quorvane for the gas and electric last winter",
            time="2021-03-14T09:00:00+00:00",
            group=None,
        ),
    ]
    draft = answer("which energy supplier were we with in December 2021?", items)
    assert not draft.abstained and draft.cited_ids[:1] == ("m-then",), draft
    assert "quorvane" in draft.text.lower() and "2021-11-02" not in draft.text, draft.text


def test_the_askers_own_statement_recall_put_first_answers_before_a_claim_sharing_more_words() -> None:
    """Recall put the asker's own line first; an assistant's packing list shares the question's words
    ("hay fever") and names the old tablets. The asker's line answers, and the claim is not said beside it
    as a second current value."""
    items = [
        _item(
            "m-own",
            "Fexofenadine now!",
            time="2023-07-08T15:45:00+00:00",
            group="g-own",
            subject="medication",
            value="fexofenadine",
        ),
        _item(
            "m-claim",
            "According to the assistant: Essentials: boots, waterproofs, map, and User's loratadine for the hay fever.",
            time="2023-07-08T15:42:00+00:00",
            group="g-claim",
            authority="attested",
        ),
    ]
    items = [replace(i, closeness=0.4) for i in items]
    draft = answer("what am i taking for hay fever now?", items)
    assert not draft.abstained and draft.cited_ids == ("m-own",), draft
    assert "Fexofenadine" in draft.text and "loratadine" not in draft.text, draft.text


@pytest.mark.parametrize(("closeness", "answers"), [(0.24, True), (0.12, False)])
def test_recalls_first_own_statement_answers_in_other_words_down_to_recalls_own_floor(
    closeness: float, answers: bool
) -> None:
    """No word of "what evening class am I taking these days?" is in the line recall put first; near the
    floor at which recall takes a statement of the asked thing (core/recall/asked.py) it answers, far
    below it the answer abstains rather than say an unrelated line."""
    items = [
        _item(
            "m-own",
            "Level 2 at the Quarry Lane Improv school has a showcase friday and I'm terrified.",
            time="2022-06-08T20:00:00+00:00",
            group=None,
        )
    ]
    items = [replace(i, closeness=closeness) for i in items]
    draft = answer("what evening class am I taking these days?", items)
    assert draft.abstained is not answers, draft
    assert not answers or "Quarry Lane" in draft.text


@pytest.mark.parametrize(
    ("text", "time", "question", "name", "held"),
    [
        (  # a start said for later: what held then is what it replaced
            "User starts at Brightwater Academy in September 2023.",
            "2023-05-20T09:00:00+00:00",
            "Where was I working in June 2023?",
            "Brightwater",
            False,
        ),
        (  # a deadline said for later: the value held before it
            "User's dissertation at Kestrel University is due in July 2023.",
            "2023-03-01T09:00:00+00:00",
            "Where was I studying in May 2023?",
            "Kestrel",
            True,
        ),
    ],
)
def test_a_start_said_for_later_is_never_what_held_before_it_though_a_deadline_is(
    text: str, time: str, question: str, name: str, held: bool
) -> None:
    """Nothing had begun by the asked time: a statement said by then naming a later day answers when that day
    is a deadline or an end, never when it is the start of the value."""
    draft = answer(question, [_item("m1", text, time=time, group=None)])
    if held:
        assert not draft.abstained and name in draft.text, draft
    else:
        assert name not in draft.text, draft


def test_a_question_of_the_askers_present_is_answered_from_one_days_statement_not_beside_older_days() -> None:
    """No attribute of the inventory is named, but the asker asks what holds for them now: statements of
    other days sharing the question's words are not said beside the one recall put first (the older
    one would read as a second, current value), and the memory still counts as holding the answer."""
    items = [
        _item(
            "m-new", "Switched to rooibos after dinner, no more espresso.", time="2024-04-02T20:00:00+00:00"
        ),
        _item(
            "m-old",
            "User has a double espresso after dinner most nights.",
            time="2023-01-15T20:00:00+00:00",
            group="g2",
        ),
        _item(
            "m-older", "An espresso after dinner keeps User up.", time="2022-06-01T20:00:00+00:00", group="g3"
        ),
    ]
    draft = answer("what do I have after dinner instead of espresso?", items)
    assert not draft.abstained and draft.sufficient
    assert "rooibos" in draft.text
    assert "double espresso" not in draft.text and "keeps" not in draft.text
    assert draft.cited_ids == ("m-new",)


@pytest.mark.parametrize(
    ("question", "line", "old", "new"),
    [
        (
            "which news app is on my tablet now?",
            "Nope, cancelled the Guardian app in 2023, it's the FT on my tablet now.",
            "Guardian",
            "FT",
        ),
        (
            "where am I logging my runs these days?",
            "Ditched Strava ages ago, logging my runs on Runalyze these days.",
            "Strava",
            "Runalyze",
        ),
    ],
)
def test_a_clause_telling_only_that_the_speaker_stopped_something_is_said_as_history_not_beside_the_value(
    question: str, line: str, old: str, new: str
) -> None:
    """A line saying the speaker stopped an old value beside what holds: the answer quotes what holds, and
    the old value, said in a clause of its own, would read as current: it is left out."""
    draft = answer(question, [_item("e-new", line, time="2024-05-02T08:00:00+00:00", kind="episode")])
    assert new in draft.text
    assert old not in draft.text


def test_the_replaced_value_is_named_by_the_names_of_its_kind_not_every_name_of_the_old_line() -> None:
    """The old line names a place, a person and a shop: "before that" names the place, the kind a home is."""
    items = [
        _item(
            "m-new",
            "We finally moved to Leiden last month!",
            time="2024-05-02T08:00:00+00:00",
            subject="lives_in",
        ),
        _item(
            "m-old",
            "User lives in Utrecht with Pieter, above the Albert Heijn on Voorstraat.",
            time="2022-01-02T08:00:00+00:00",
            state="probably_superseded",
            superseded_by="m-new",
            subject="lives_in",
        ),
    ]
    text = answer("where do I live now?", items).text
    assert "Leiden" in text
    assert text.endswith("before that, Utrecht).")


def test_a_claim_is_never_said_beside_the_askers_own_statement_of_what_holds_of_someone_else() -> None:
    """Asked what holds now of someone else, the asker's own statement answers: the assistant's line of the
    same day naming the old carer is not said beside it, where it would read as a second current value."""
    items = [
        _item(
            "e-own",
            "Imke started doing the school runs for the twins this week.",
            time="2023-02-06T08:00:00+00:00",
            kind="episode",
        ),
        _item(
            "e-claim",
            "According to the assistant: A thank-you note to Gerda for doing the school runs for the twins.",
            time="2023-02-06T08:01:00+00:00",
            kind="episode",
            authority="attested",
            source="assistant",
            group="g2",
        ),
    ]
    draft = answer("who does the school runs for the twins now?", items)
    assert "Imke" in draft.text
    assert "Gerda" not in draft.text
    assert draft.cited_ids == ("e-own",)


def test_a_clause_whose_verb_is_denied_denies_the_value_it_opens_on() -> None:
    """ "Brackenfield couldn't take the dog any more so she's at Hollins Kennels now": the kennels that could
    not cope are history, not said beside the value now; "it's Priya now not Tom" still says Priya holds."""
    items = [
        _item(
            "e-new",
            "Brackenfield couldn't take the dog any more so she's at Hollins Kennels now, weekdays only.",
            time="2023-06-02T09:00:00+00:00",
            kind="episode",
        ),
    ]
    text = answer("which kennels is the dog at these days?", items).text
    assert "Hollins Kennels" in text
    assert "Brackenfield" not in text


def test_a_past_state_of_a_value_the_history_names_elsewhere_is_not_said_beside_what_holds() -> None:
    """ "quillpad was clunky" names in lower case what an earlier line wrote as "Quillpad Pro": a past state
    of a named thing, left out beside the clause saying what holds now."""
    items = [
        _item(
            "e-new",
            "Writing everything in inkwell now honestly, quillpad was clunky for drafts.",
            time="2024-03-02T09:00:00+00:00",
            kind="episode",
        ),
        _item(
            "e-old",
            "Bought a licence for Quillpad Pro today.",
            time="2022-01-10T09:00:00+00:00",
            kind="episode",
            group="g2",
        ),
    ]
    text = answer("what do I write my drafts in these days?", items).text
    assert "inkwell" in text
    assert "quillpad" not in text.casefold().split("before that")[0]


def test_a_question_asking_no_attribute_by_its_words_is_answered_by_any_version_said_by_then() -> None:
    """ "what club was Rhys in last spring?" asks nothing the inventory names: every statement of the subject
    is a version, the keyed and the unkeyed alike, and the one said by then answers."""
    items = [
        _item(
            "e-new",
            "Rhys left Fairholme Harriers, he's with Ashdown Striders now.",
            time="2023-11-08T09:00:00+00:00",
            kind="episode",
        ),
        _item(
            "e-old",
            "Rhys joined Fairholme Harriers on 2021-05-11, Tuesday nights.",
            time="2021-05-11T09:00:00+00:00",
            kind="episode",
            subject="works_at",
        ),
    ]
    text = answer("which running club was Rhys with in spring 2022?", items).text
    assert "Fairholme Harriers" in text
    assert "Ashdown" not in text.split("(")[0]


def test_a_later_line_saying_a_value_is_not_used_any_more_gives_that_value_as_what_held_before() -> None:
    """ "now goes to Fernlea Pharmacy, not wellcare anymore" says wellcare stopped on the day it was said: asked
    what held a year before, the answer names wellcare until then, never the pharmacy that holds now."""
    items = [
        _item(
            "e-new",
            "repeat prescription now goes to Fernlea Pharmacy on Mill Lane not wellcare anymore, every 28 days.",
            time="2023-05-03T09:00:00+00:00",
            kind="episode",
        ),
    ]
    text = answer("which pharmacy was I using in summer 2022?", items).text
    assert text.startswith("wellcare, until 2023-05-03"), text


def test_a_request_is_never_a_dated_statement_of_what_held() -> None:
    """ "can ye write a note to Holmfield Dental to move my check up" asks something and states nothing: of
    the asker's own dated lines, the ones that may say what held at an asked time, it is none."""
    from veramem_desktop.models.llm.rules.answer import _own_dated

    request = _item(
        "e-req",
        "can ye write a note to Holmfield Dental to move my check up on the 15th, I'm on a late shift that week.",
        time="2019-10-07T09:00:00+00:00",
        kind="episode",
    )
    said = _item(
        "e-old",
        "tooth is killing me, my dentist is Dr Ferrier on Byres Road, no appointment till December.",
        time="2019-09-02T09:00:00+00:00",
        kind="episode",
        group="g2",
    )
    assert _own_dated([request, said], [request, said]) == [said]


def test_a_message_whose_memory_here_says_another_thing_still_gives_its_own_value_then() -> None:
    """A message keyed with an editor ("moved over to kdenlive … cheat sheet of shortcuts pls") whose only
    memory among the items is the request's ("Cheat sheet of shortcuts pls") is not said by that memory: it
    is the version that held in March 2022, not the newer line."""
    items = [
        _item(
            "e-new",
            "Editing everything on vidmix now, kdenlive was overkill for shorts.",
            time="2023-04-11T09:00:00+00:00",
            kind="episode",
            subject="editing_app",
            value="vidmix",
        ),
        replace(
            _item(
                "e-old",
                "ok finally fully moved over to kdenlive, learning curve is real. cheat sheet of shortcuts pls",
                time="2021-07-19T09:00:00+00:00",
                kind="episode",
                subject="editing_app",
                value="kdenlive",
                state="probably_superseded",
            ),
            derived=("m-req",),
        ),
        _item("m-req", "Cheat sheet of shortcuts pls.", time="2021-07-19T09:00:01+00:00"),
    ]
    text = answer("what editing software was i using in march 2022", items).text
    assert "kdenlive" in text.split("(")[0], text
    assert "vidmix" not in text, text


def _now_beside_history(old: str, new: str, attribute: str) -> list[ContextItem]:
    """An earlier line and a newer one recall read as stating ``attribute``, both current (nothing keyed
    them to one subject, so nothing was replaced)."""
    return [
        _item("m-old", old, time="2023-03-04T09:00:00+00:00", group="g1", subject=attribute),
        _item("m-new", new, time="2024-05-11T09:00:00+00:00", group="g1", subject=attribute),
    ]


@pytest.mark.parametrize(
    ("question", "attribute", "old", "new", "now", "gone"),
    [
        # the clause naming what the asked attribute's earlier statement named is history
        (
            "which gym am i at these days?",
            "gym",
            "Signed up to Corefit in Salford, a fiver cheaper too.",
            "Nah Corefit is long gone, its blokhaus now 😂.",
            "blokhaus",
            "corefit",
        ),
        # the clause saying now names what is asked: what any earlier line named beside it is history
        (
            "which team am i in now?",
            "team",
            "Our release train in the lending team is monthly.",
            "Lending team was monthly releases only, now risk team ship weekly so i need this sorted.",
            "risk",
            "lending",
        ),
    ],
)
def test_a_clause_naming_what_earlier_lines_said_beside_one_saying_now_is_history(
    question: str, attribute: str, old: str, new: str, now: str, gone: str
) -> None:
    draft = answer(question, list(reversed(_now_beside_history(old, new, attribute))))
    assert now in draft.text.casefold(), draft.text
    assert gone not in draft.text.split("(")[0].casefold(), draft.text


@pytest.mark.parametrize(
    ("question", "attribute", "old", "new", "kept"),
    [
        # a change said in the past is what holds now, though "now" is said beside it of something else;
        # the same two lines with the change said as a state ("Brackwell Mutual was …") would lose it
        (
            "who do we bank with now?",
            "bank",
            "Brackwell Mutual has a branch in town.",
            "We moved our savings over to Brackwell Mutual in May, the interest goes in there now.",
            "Brackwell Mutual",
        ),
    ],
)
def test_a_change_said_in_the_past_beside_a_clause_saying_now_stays(
    question: str, attribute: str, old: str, new: str, kept: str
) -> None:
    draft = answer(question, list(reversed(_now_beside_history(old, new, attribute))))
    assert kept in draft.text, draft.text


def test_an_older_message_of_the_same_day_is_never_said_beside_the_one_answering() -> None:
    """A first-person question of now is answered from one statement; another message said earlier the same
    day (a person adding two things in one sitting, the second correcting the first) is no part of it and
    would read as a second current value."""
    items = [
        _item(
            "m-new",
            "No, it's the Clarion I take now, the Herald went.",
            time="2024-03-09T17:40:00+00:00",
            group="g1",
        ),
        _item("m-old", "I take the Herald every Saturday.", time="2024-03-09T09:15:00+00:00", group="g2"),
    ]
    draft = answer("which paper do I take now?", items)
    assert "Clarion" in draft.text and "every Saturday" not in draft.text, draft.text
    assert draft.cited_ids == ("m-new",), draft.cited_ids


def test_asked_about_a_time_before_the_first_version_the_value_named_beside_it_held_then() -> None:
    """The broadband's only version began after the asked season, and its line names another provider of the
    inventory's own beside the new one ("after 3 years of TalkTalk"): that one held then."""
    note = _item(
        "m-note", "Fixed the wifi extender on the landing.", time="2022-06-04T09:00:00+00:00", group="g2"
    )
    switched = _item(
        "m-new",
        "Finally on Plusnet, 3 years of TalkTalk buffering was enough.",
        time="2023-03-20T09:00:00+00:00",
        group="g1",
        subject="internet_provider",
        value="Plusnet",
    )
    draft = answer("which broadband were we with in autumn 2022?", [note, switched])
    assert draft.text.startswith("TalkTalk"), draft.text
    assert "Plusnet" not in draft.text.split("(")[0]
