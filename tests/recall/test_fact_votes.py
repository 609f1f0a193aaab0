"""Fact votes: for a question that gathers instances of a kind, the turns cited by the memories nearest
the question count as one more episode channel. Only memories the caller may see and that hold (not
rejected) vote, only turns the caller may see are counted, and other questions are ranked as before."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core.recall import SearchEngine, recipe
from veramem_desktop.core.recall.fact_votes import add_channel, cited_order
from veramem_desktop.core.recall.focus import question_kind
from veramem_desktop.core.storage import item_evidence
from veramem_desktop.core.storage.ids import iso

from veramem_desktop.memory import Memory

QUESTION = "What outdoor activities has Ana done?"
KAYAK = "I went kayaking on the lake with my kids last weekend."


def _say(mem: Memory, text: str, session: str, user: str = "me") -> str:
    return (
        mem.add(
            [{"content": text, "name": "Ana", "time": "2023-05-10T10:00:00+00:00"}],
            user_id=user,
            session_id=session,
        )
        .episodes[0]
        .id
    )


def _scores(mem: Memory, query: str, weight: float, user: str = "me") -> dict[str, float]:
    config = replace(recipe("hybrid", engine_of(mem).config), fact_weight=weight)
    engine = SearchEngine(store_of(mem), embedder_of(mem), config)
    _, scores, _ = engine.rank(query, mem.caller(user), route="raw")
    return scores


def _conversation(mem: Memory) -> str:
    kayak = _say(mem, KAYAK, "s1")
    for n, text in enumerate(["The weather was grey all week.", "I finished the quarterly report on time."]):
        _say(mem, text, f"f{n}")
    return kayak


def _memory_citing(mem: Memory, episode_id: str) -> str:
    return next(m for m, eps in item_evidence.evidence_map(store_of(mem)).items() if episode_id in eps)


def test_each_cited_turn_takes_the_place_of_the_best_memory_citing_it() -> None:
    cited = [("m2", "t1"), ("m1", "t2"), ("m1", "t1"), ("m3", "t3"), ("m9", "t9")]
    assert cited_order(["m1", "m2", "m3"], cited) == ["t2", "t1", "t3"]
    assert add_channel({"t1": 0.5}, ["t2", "t1"], 2.0, 60) == {"t1": 0.5 + 2.0 / 62, "t2": 2.0 / 61}
    assert cited_order([], cited) == []


def test_a_gathering_question_lifts_the_turn_a_memory_was_drawn_from(rmem: Memory) -> None:
    kayak = _conversation(rmem)
    assert question_kind(QUESTION) == "gather"
    without = _scores(rmem, QUESTION, 0.0)
    with_votes = _scores(rmem, QUESTION, 1.0)
    gains = {d: with_votes[d] - without.get(d, 0.0) for d in with_votes}
    assert max(gains, key=lambda d: gains[d]) == kayak  # its memory lies nearest the question
    assert gains[kayak] > 0


def test_a_rejected_memory_casts_no_vote_and_its_withheld_turn_stays_out(rmem: Memory) -> None:
    kayak = _conversation(rmem)
    memory = _memory_citing(rmem, kayak)
    caller = rmem.caller("me")
    now = iso(datetime.now(UTC))
    assert item_evidence.cited_visible_turns(store_of(rmem), [memory], caller, now) == [(memory, kayak)]
    rmem.review.reject(memory, "not what happened")
    assert item_evidence.cited_visible_turns(store_of(rmem), [memory], caller, now) == []
    with_votes = _scores(rmem, QUESTION, 5.0)
    assert kayak not in with_votes
    assert with_votes == _scores(rmem, QUESTION, 5.0) and with_votes != _scores(rmem, QUESTION, 0.0)


def test_the_turns_a_memory_cites_are_read_only_for_a_caller_who_may_see_them(rmem: Memory) -> None:
    kayak = _conversation(rmem)
    memory = _memory_citing(rmem, kayak)
    now = iso(datetime.now(UTC))
    assert item_evidence.cited_visible_turns(store_of(rmem), [memory], rmem.caller("other"), now) == []


def test_votes_never_bring_in_another_users_turn(rmem: Memory) -> None:
    _conversation(rmem)
    theirs = _say(rmem, KAYAK + " And a hike after.", "o1", user="other")
    assert theirs not in _scores(rmem, QUESTION, 5.0)


def test_a_question_that_gathers_nothing_is_ranked_as_before(rmem: Memory) -> None:
    _conversation(rmem)
    question = "Where is the lake Ana went to?"
    assert question_kind(question) is None
    assert _scores(rmem, question, 1.0) == _scores(rmem, question, 0.0)
