"""Tellings: among the candidate turns, those in which the speaker tells of their own life (first person,
a time or a past verb, not addressed to the listener) count as one more episode channel. The channel only
reorders turns the other channels found through the caller's access predicate: it never brings a turn in."""

from __future__ import annotations

from dataclasses import replace

from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core.recall import SearchEngine, recipe
from veramem_desktop.core.recall.telling import is_telling, tellings

from veramem_desktop.memory import Memory

QUESTION = "What has Ana painted?"
TELLING = "Last weekend I finally finished a canvas of the harbour at dawn with my brushes."
REPLY = "Wow Tom, your painting is awesome! How did you get the painting colours so vivid?"


def _say(mem: Memory, text: str, session: str, user: str = "me", name: str = "Ana") -> str:
    return (
        mem.add(
            [{"content": text, "name": name, "time": "2023-05-10T10:00:00+00:00"}],
            user_id=user,
            session_id=session,
        )
        .episodes[0]
        .id
    )


def _scores(mem: Memory, query: str, weight: float, user: str = "me") -> dict[str, float]:
    config = replace(recipe("hybrid", engine_of(mem).config), telling_weight=weight)
    engine = SearchEngine(store_of(mem), embedder_of(mem), config)
    _, scores, _ = engine.rank(query, mem.caller(user), route="raw")
    return scores


def test_a_turn_that_tells_what_happened_to_its_speaker_is_a_telling() -> None:
    assert is_telling("Yesterday I took the kids to the museum.")
    assert is_telling("We went camping in the mountains with the whole family.")
    assert is_telling("I've just signed up for a pottery class!")
    assert is_telling(TELLING)


def test_a_reply_a_question_or_a_timeless_opinion_is_no_telling() -> None:
    assert not is_telling(REPLY)  # addressed to the listener
    assert not is_telling("Did you go to the beach last week? I hope your kids loved it.")
    assert not is_telling("I love painting, it relaxes me.")  # no time and no past: an opinion
    assert not is_telling("The museum opened yesterday.")  # not about the speaker


def test_tellings_keep_the_fused_order() -> None:
    texts = {"a": REPLY, "b": TELLING, "c": "Yesterday we went to the zoo.", "d": "Nice!"}
    assert tellings(["d", "c", "a", "b", "x"], texts) == ["c", "b"]


def test_a_telling_climbs_above_a_reply_that_shares_the_questions_words(rmem: Memory) -> None:
    telling = _say(rmem, TELLING, "s1")
    reply = _say(rmem, REPLY, "s2")
    without = _scores(rmem, QUESTION, 0.0)
    with_tellings = _scores(rmem, QUESTION, 1.0)
    assert without[reply] > without[telling]  # the reply repeats "painting"
    assert with_tellings[telling] - without[telling] > 0
    assert with_tellings[reply] == without[reply]


def test_tellings_never_bring_in_a_turn_the_channels_did_not_find(rmem: Memory) -> None:
    _say(rmem, TELLING, "s1")
    _say(rmem, REPLY, "s2")
    theirs = _say(rmem, "Yesterday I painted a red barn by the river.", "o1", user="other")
    without = _scores(rmem, QUESTION, 0.0)
    with_tellings = _scores(rmem, QUESTION, 5.0)
    assert set(with_tellings) == set(without)
    assert theirs not in with_tellings


def test_a_forgotten_telling_stays_out(rmem: Memory) -> None:
    telling = _say(rmem, TELLING, "s1")
    _say(rmem, REPLY, "s2")
    assert telling in _scores(rmem, QUESTION, 5.0)
    rmem.forget(telling)
    assert telling not in _scores(rmem, QUESTION, 5.0)
