"""Speaker focus: for a question that gathers instances of a kind, or supposes what one named person
would do, that person's own turns in the BM25 and dense rankings count as channels of their own; it
only reorders what the access-checked channels ranked."""

from __future__ import annotations

from dataclasses import replace

from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core.recall import SearchEngine, recipe
from veramem_desktop.core.recall.focus import focus, question_kind
from veramem_desktop.core.recall.recipes import FOCUS_WEIGHTS

from veramem_desktop.memory import Memory


def test_questions_that_gather_or_suppose_are_told_apart_from_the_rest() -> None:
    assert question_kind("What hobbies does Ana have?") == "gather"
    assert question_kind("Which cities has Ana visited?") == "gather"
    assert question_kind("How many times did Ana fly?") == "gather"
    assert question_kind("What kinds of food does Ana cook?") == "gather"
    assert question_kind("Would Ana enjoy a quiet weekend?") == "suppose"
    assert question_kind("What would Ana likely say?") == "suppose"
    assert question_kind("Might Ana move abroad?") == "suppose"
    assert question_kind("What does Ana do for work?") is None
    assert question_kind("When did Ana fly to Lisbon?") is None
    assert question_kind("What is Ana's address?") is None


def test_the_noun_phrase_after_what_or_which_makes_a_gathering_question_when_its_head_is_plural() -> None:
    assert question_kind("What martial arts has John done?") == "gather"
    assert question_kind("Which European countries did Ana visit?") == "gather"
    assert question_kind("What musical artists/bands has Ana seen?") == "gather"
    assert question_kind("What writing class is Ana taking?") is None
    assert question_kind("What is Ana's relationship status?") is None
    # a verb right after "what" opens no noun phrase, whatever follows it
    assert question_kind("What does John's kids' school teach?") is None


def test_focus_ranks_only_the_named_speakers_turns_as_channels_of_their_weights() -> None:
    scores = {"a1": 0.5, "b1": 0.4}
    rankings = {"bm25": ["b1", "a1", "b2", "a2"], "dense": ["a2", "b1"]}
    speaker_of = {"a1": "Ana", "a2": "ana", "b1": "Ben", "b2": "Ben"}
    out = focus(scores, rankings, speaker_of, "ANA", {"bm25": 2.0}, 60)
    assert out["a1"] == 0.5 + 2.0 / 61
    assert out["a2"] == 2.0 / 62  # a turn the fused scores lacked becomes a candidate
    assert out["b1"] == 0.4 and "b2" not in out
    both = focus(scores, rankings, speaker_of, "Ana", {"bm25": 2.0, "dense": 3.0}, 60)
    assert both["a2"] == 2.0 / 62 + 3.0 / 61
    assert focus(scores, rankings, speaker_of, "Ana", {"bm25": 0.0}, 60) == scores


def _say(mem: Memory, text: str, who: str, session: str, user: str = "me") -> str:
    return (
        mem.add(
            [{"content": text, "name": who, "time": "2023-05-10T10:00:00+00:00"}],
            user_id=user,
            session_id=session,
        )
        .episodes[0]
        .id
    )


def _ranked(engine: SearchEngine, mem: Memory, query: str, user: str = "me") -> list[str]:
    _, scores, _ = engine.rank(query, mem.caller(user), route="raw")
    return sorted(scores, key=lambda d: -scores[d])


def _engine(mem: Memory, weights: dict[str, dict[str, float]], **change: object) -> SearchEngine:
    config = replace(recipe("hybrid", engine_of(mem).config), focus_weights=weights, **change)
    return SearchEngine(store_of(mem), embedder_of(mem), config)


def test_a_gathering_question_brings_the_named_speakers_own_turns_above_the_others(rmem: Memory) -> None:
    others = [
        _say(rmem, f"Ben here: my hobbies and more hobbies, hobbies every day, week {n}.", "Ben", f"b{n}")
        for n in range(3)
    ]
    own = _say(rmem, "I spent the whole weekend on my pottery hobbies, and a long swim after.", "Ana", "a0")
    question = "What hobbies does Ana have?"
    assert question_kind(question) == "gather"
    # the speaker rule (every turn of Ana's gains alike) and the tellings (Ana's turn tells of her weekend)
    # are off, so what moves is the focus alone
    without = _ranked(_engine(rmem, {}, speaker_weight=0.0, telling_weight=0.0), rmem, question)
    with_focus = _ranked(_engine(rmem, FOCUS_WEIGHTS, speaker_weight=0.0, telling_weight=0.0), rmem, question)
    assert without.index(own) > without.index(others[0])
    assert with_focus[0] == own


def test_focus_never_brings_in_another_users_turn(rmem: Memory) -> None:
    mine = _say(rmem, "My hobbies are pottery and swimming.", "Ana", "s1")
    theirs = _say(rmem, "My hobbies are pottery and swimming, and chess.", "Ana", "s2", user="other")
    ranked = _ranked(_engine(rmem, FOCUS_WEIGHTS), rmem, "What hobbies does Ana have?")
    assert mine in ranked and theirs not in ranked
