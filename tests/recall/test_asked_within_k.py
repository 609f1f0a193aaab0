"""The asked attribute's statements are not cut by ``k`` (core/recall/asked.within): a statement of what a
question asks, ranked by its words below lines that share the question's words but state nothing, is still
among the results. Hits built as recall hands them over (closeness labelled, keyed subject); every
sentence is written for this test. The bench's truth-natural section measures it through the whole path."""

from __future__ import annotations

import pytest
from veramem_desktop.core.recall import asked, statements
from veramem_desktop.core.recall.hits import Hit


def _hit(id: str, text: str, closeness: float, *, day: str, subject: str | None = None) -> Hit:
    hit = Hit(
        id, "fact", text, 1.0, "authorized", "candidate", time=f"{day}T12:00:00+00:00", closeness=closeness
    )
    hit.subject = subject
    return hit


def test_a_statement_of_the_asked_attribute_ranked_past_k_is_brought_in() -> None:
    """Ranked by their words, three lines saying "work" come first and the statement of the employer
    fourth; cut at three, the statement is among the results all the same, in the place of the last of
    the rest."""
    chatter = [
        _hit("m1", "Work was mad busy today, where do the hours go.", 0.52, day="2024-01-10"),
        _hit("m2", "Work drinks on Friday, do I go or not?", 0.50, day="2024-02-10"),
        _hit("m3", "My work laptop keeps freezing when I share my screen.", 0.47, day="2024-03-10"),
    ]
    stated = _hit(
        "m4",
        "Started at Marlowe Robotics on Monday, the canteen is amazing.",
        0.45,
        day="2024-09-12",
        subject="works_at",
    )
    got = asked.within([*chatter, stated], "where do I work now?", 3)
    assert [h.id for h in got] == ["m1", "m2", "m4"]


def test_within_keeps_the_first_k_when_the_question_asks_no_attribute() -> None:
    hits = [
        Hit(f"m{i}", "fact", f"Line {i} about tea.", 1.0 - i / 10, "authorized", "candidate", closeness=0.5)
        for i in range(8)
    ]
    assert asked.within(hits, "tell me about tea", 3) == hits[:3]


def test_the_name_the_history_gives_a_relation_brings_in_that_persons_statement() -> None:
    """ "my brother Idris" in one hit makes "Idris started at Quantmoor" speak of the brother asked about,
    though it never says "brother": it is among the first k, and its older value is no sister's name."""
    older = _hit(
        "m1", "User's brother Idris (he's a courier at Fernmoss Freight) is visiting.", 0.52, day="2022-05-05"
    )
    older.subject, older.value = "relation:brother", "Idris"
    chatter = [
        _hit("m2", "Work drinks with the team on Friday, do I go?", 0.50, day="2023-02-10"),
        _hit("m3", "My work laptop keeps freezing when I share my screen.", 0.47, day="2023-03-10"),
        _hit("m5", "Where do people find time to work out before work?", 0.45, day="2023-04-10"),
    ]
    news = _hit(
        "m4", "Idris started at Quantmoor Labs this week!", 0.40, day="2023-06-01", subject="works_at"
    )
    question = "where does my brother work now?"
    got = asked.within([older, *chatter, news], question, 4)
    assert [h.id for h in got] == ["m1", "m2", "m3", "m4"]
    settled = asked.settle(got, question)
    assert settled[0].id == "m4"
    assert all(h.value != "Idris" for h in settled if h.subject == "works_at")


def _valued(id: str, text: str, closeness: float, *, day: str, subject: str, value: str) -> Hit:
    hit = _hit(id, text, closeness, day=day, subject=subject)
    hit.value = value
    return hit


def test_a_later_line_naming_a_place_does_not_replace_a_keyed_home_unless_it_says_a_change() -> None:
    """The write path keyed the new home ("the new flat's in Heaton"). A year on, lines that only name places
    ("the Ouseburn is right there", "do miss the Byker chippy") change nothing, however close to the question;
    a line saying a change in a word of change ("we've relocated to Tynemouth") does."""
    keyed = _valued(
        "m1",
        "The new flat's in Heaton, bigger and cheaper.",
        0.27,
        day="2021-12-09",
        subject="lives_in",
        value="Heaton",
    )
    chatter = [
        _hit("m2", "The Ouseburn is right there.", 0.48, day="2022-10-03"),
        _hit("m3", "I do miss the Byker chippy for a Friday tea tho.", 0.23, day="2022-10-03"),
    ]
    got = asked.settle([*chatter, keyed], "what part of newcastle do i live in now?")
    assert got[0].id == "m1", [(h.id, h.state) for h in got]
    moved = _hit("m4", "We've relocated to Tynemouth, the sea air is bracing.", 0.30, day="2023-04-01")
    got = asked.settle([*chatter, keyed, moved], "what part of newcastle do i live in now?")
    assert got[0].id == "m4", [(h.id, h.state) for h in got]


def test_a_field_of_study_is_a_value_of_what_the_person_studies() -> None:
    """No frame and no noun of the degree: the fields named ("geology", "criminology") are values the
    inventory gives what the person studies, so the newer one leads and the older one is past."""
    first = _hit(
        "m1", "First year geology at Aberdeen and already buried in field reports.", 0.17, day="2021-10-04"
    )
    moved = _hit("m2", "Swapping to criminology from September, they said yes!!!", 0.30, day="2022-05-19")
    got = asked.settle([first, moved], "what degree am i doing")
    assert [(h.id, h.state) for h in got] == [("m2", "current"), ("m1", "probably_superseded")]


def test_for_a_question_about_now_a_line_naming_what_a_later_line_says_stopped_comes_last() -> None:
    """No attribute of the inventory is asked ("newspaper"): the line saying the Courier arrives each morning
    is still history once a later line of the person's says it was cancelled, so it comes after the lines
    still holding; asked about a time, the order is left as it was."""
    delivered = _hit(
        "m1", "The paper lad brings the Courier at seven and I do the puzzle page.", 0.40, day="2021-03-01"
    )
    cancelled = _hit(
        "m2", "Cancelled the Courier after thirty years, the price is scandalous.", 0.35, day="2022-06-01"
    )
    now = _hit(
        "m3", "It's the Gazette on the tablet these days, my grandson set it up.", 0.30, day="2022-06-20"
    )
    got = asked.settle([delivered, cancelled, now], "what newspaper do I read now?")
    assert [h.id for h in got][0] == "m3" and got[-1].id in ("m1", "m2"), [h.id for h in got]
    assert [h.id for h in got].index("m1") > [h.id for h in got].index("m3")
    then = asked.settle([delivered, cancelled, now], "what newspaper did I read in 2021?")
    assert [h.id for h in then] == ["m1", "m2", "m3"]


def _keyed(id: str, text: str, closeness: float, *, day: str, subject: str, value: str) -> Hit:
    hit = _hit(id, text, closeness, day=day, subject=subject)
    hit.value = value
    return hit


def test_a_key_the_inventory_has_no_attribute_for_never_keeps_a_line_from_stating_the_asked_one() -> None:
    """The write path keyed "my Fairphone 5 camera is way better …" as "camera: way" (no attribute of the
    inventory): that key says nothing of which attribute the line states, so the line is read as the
    phone it names and, newer, leads; a line keyed to another attribute of the inventory stays out."""
    old = _keyed(
        "m1",
        "Got a Nokia G42 in the January sale.",
        0.45,
        day="2022-01-20",
        subject="phone",
        value="Nokia G42",
    )
    new = _keyed(
        "m2",
        "My Fairphone 5 camera is way better than the Nokia was.",
        0.40,
        day="2024-05-02",
        subject="camera",
        value="way",
    )
    other = _keyed(
        "m3",
        "Work gave me a Lenovo T14 for the new job.",
        0.38,
        day="2024-06-01",
        subject="laptop",
        value="Lenovo T14",
    )
    ordered = asked.settle([old, other, new], "what phone am I using now?")
    assert ordered[0] is new
    assert old.state == "probably_superseded" and other.state == "current"


@pytest.mark.parametrize(
    ("text", "denied"),
    [
        ("Wexley Chemists hasnt had my prescription since spring.", {"wexley", "chemists"}),
        ("Repeats go to Pillbox on Arden Road now, not wexley anymore.", {"wexley"}),
        ("I don't bank with Cobalt now, Fernway is so much better.", {"cobalt"}),
        ("Loving Fernway, never been happier.", set()),
    ],
)
def test_the_names_a_line_says_only_as_not_holding(text: str, denied: set[str]) -> None:
    assert statements.denied(text) >= denied
    assert not statements.denied(text) & {"pillbox", "fernway", "arden"}


def test_a_line_telling_the_new_value_beside_the_old_one_no_longer_held_leads() -> None:
    """ "now goes to Pillbox, not wexley anymore" tells history beside what holds now: it states the
    pharmacy, Pillbox, and leads the older line naming Wexley."""
    old = _hit("m1", "My prescriptions all go to Wexley Chemists, handy.", 0.50, day="2022-02-01")
    new = _hit(
        "m2", "Repeats now go to Pillbox Pharmacy on Arden Road, not wexley anymore.", 0.45, day="2023-05-03"
    )
    ordered = asked.settle([old, new], "which pharmacy handles my prescriptions now?")
    assert ordered[0] is new and old.state == "probably_superseded"


def _keyed_corsa() -> Hit:
    return _valued(
        "m1",
        "I drive a 2012 Vauxhall Corsa, it's falling apart.",
        0.36,
        day="2020-05-01",
        subject="car",
        value="Corsa",
    )


def _in_message(id: str, text: str, closeness: float, *, day: str, session: str) -> Hit:
    hit = _hit(id, text, closeness, day=day)
    hit.session_id = session
    return hit


def test_a_line_of_a_message_whose_other_line_says_the_change_states_the_new_value() -> None:
    """A message is one telling: of "Trading in the Corsa for something roomier." and "Collecting a Skoda
    Kodiaq on May 2 …", said together, the second names the new car though only the first names the old one
    the write path keyed; it leads, and the keyed old car is past. The same line said in a message of its
    own, naming no change, replaces nothing."""
    pick_up = "Collecting a Skoda Kodiaq on May 2 from the dealer in Leeds, at last."
    trade = _in_message(
        "m2", "Trading in the Corsa for something roomier.", 0.34, day="2023-04-20", session="s7"
    )
    together = _in_message("m3", pick_up, 0.31, day="2023-04-20", session="s7")
    got = asked.settle([_keyed_corsa(), trade, together], "what car do I drive now?")
    assert got[0].id == "m3", [(h.id, h.state) for h in got]
    assert next(h for h in got if h.id == "m1").state == "probably_superseded"
    alone = _in_message("m4", pick_up, 0.31, day="2023-04-20", session="s8")
    got = asked.settle([_keyed_corsa(), alone], "what car do I drive now?")
    assert got[0].id == "m1", [(h.id, h.state) for h in got]


def test_for_a_question_about_now_what_a_newer_statement_replaced_comes_after_the_live_hits() -> None:
    """What a newer statement probably replaced is history: for "what car do I drive now?" it comes after
    the lead and after the other live hits, so no old value is seen before what else holds now. A question
    naming a time keeps it where the versions are."""

    def lines() -> list[Hit]:
        keyed = _valued(
            "m1",
            "I drive a Vauxhall Corsa, it's falling apart.",
            0.40,
            day="2020-05-01",
            subject="car",
            value="Corsa",
        )
        swapped = _hit("m2", "Swapped the Corsa for a Kia Niro last week.", 0.35, day="2023-04-20")
        trip = _hit("m3", "need a charging plan for the long drive next month.", 0.30, day="2023-05-02")
        return [keyed, swapped, trip]

    got = asked.settle(lines(), "what car do I drive now?")
    assert [h.id for h in got] == ["m2", "m3", "m1"], [(h.id, h.state) for h in got]
    assert got[-1].state == "probably_superseded"
    then = asked.settle(lines(), "what car did I drive in 2021?")
    assert [h.id for h in then].index("m1") < [h.id for h in then].index("m3")


def test_a_figure_said_in_the_message_of_a_statement_of_a_figure_valued_attribute_is_its_value() -> None:
    """ "Smashed my PB again." keys the personal best but names no time; "41:12 at the Riverside 10k.", said in
    the same message and far from the question in words, names it: a message is one telling, so it
    leads and the older best is past. A figure said in another message stays out."""

    def lines(figure_session: str) -> list[Hit]:
        old = _valued(
            "m1",
            "10k best is 43:30 from Leeds last year.",
            0.45,
            day="2023-03-01",
            subject="personal_best",
            value="43:30",
        )
        new = _in_message("m2", "Smashed my PB again.", 0.30, day="2024-05-12", session="s3")
        new.subject = "personal_best"
        figure = _in_message(
            "m3",
            "41:12 at the Riverside 10k on a windy morning.",
            0.12,
            day="2024-05-12",
            session=figure_session,
        )
        return [old, new, figure]

    got = asked.settle(lines("s3"), "what's my 10k personal best?")
    assert got[0].id == "m3", [(h.id, h.state) for h in got]
    assert next(h for h in got if h.id == "m1").state == "probably_superseded"
    got = asked.settle(lines("s4"), "what's my 10k personal best?")
    assert got[0].id != "m3", [(h.id, h.state) for h in got]


def test_the_name_said_in_the_message_of_a_kind_of_the_thing_asked_leads() -> None:
    """ "Got a kitten!!" names only a kind of pet; "tabby called Miso, 9 weeks.", said in the same message and
    opening on no person, names it: it is a statement of the pet too, and it leads."""
    kind = _hit("m1", "Got a kitten!!", 0.55, day="2024-02-03", subject="pet")
    kind.value = "kitten"
    name = _hit("m2", "tabby called Miso, 9 weeks.", 0.30, day="2024-02-03")
    for h in (kind, name):
        h.session_id = "s1"
    got = asked.settle([kind, name], "what pet do we have now?")
    assert got[0].id == "m2", [(h.id, h.state) for h in got]
    assert got[0].subject == "pet"  # read as stating the pet, on every surface and for the answer
