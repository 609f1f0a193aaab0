"""The second hop: what the first hop found (names, rare words, its vectors) is asked again, fused
with the first, through the same access predicate and truth stage."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core.recall import SearchEngine, recipe
from veramem_desktop.core.recall.hops import expand, fuse, moved

from veramem_desktop.memory import Memory

QUESTION = "What are the pets called?"
#: the pets turn names Oliver; the second turn speaks of Oliver and shares no word with the question
PETS = "My pets are doing fine, here is a picture of Oliver sleeping."
ONLY_BY_NAME = "Oliver chewed through the sofa cushions this morning."


def _say(mem: Memory, text: str, session: str = "s1", user: str = "me", who: str = "Ana") -> str:
    return (
        mem.add(
            [{"content": text, "name": who, "time": "2023-05-10T10:00:00+00:00"}],
            user_id=user,
            session_id=session,
        )
        .episodes[0]
        .id
    )


def _engine(mem: Memory, **change: object) -> SearchEngine:
    return SearchEngine(
        store_of(mem), embedder_of(mem), replace(recipe("hybrid", engine_of(mem).config), **change)
    )


def _ranked(
    engine: SearchEngine, mem: Memory, query: str, channels: tuple[str, ...] | None, user: str = "me"
) -> list[str]:
    _, scores, _ = engine.rank(query, mem.caller(user), route="raw", channels=channels)
    return sorted(scores, key=lambda d: -scores[d])


def _filler(mem: Memory) -> None:
    for n, text in enumerate(
        [
            "The weather was grey all week.",
            "I finished the quarterly report on time.",
            "We talked about the garden and the new fence.",
            "Lunch was a quick salad today.",
        ]
    ):
        _say(mem, text, session=f"f{n}")


def test_the_second_hop_retrieves_a_turn_reachable_only_through_a_name_the_first_hop_found(
    rmem: Memory,
) -> None:
    _filler(rmem)
    pets = _say(rmem, PETS)
    sofa = _say(rmem, ONLY_BY_NAME, session="s2")
    engine = _engine(rmem, hop_weight=1.0, hop_parts=("entity",))
    first = _ranked(engine, rmem, QUESTION, ("bm25",))
    assert first[0] == pets and sofa not in first, "the question's words alone never reach the sofa turn"
    second = _ranked(engine, rmem, QUESTION, ("bm25", "hop"))
    assert second[0] == pets and second[1] == sofa
    assert sofa not in _ranked(_engine(rmem, hop_weight=0.0), rmem, QUESTION, ("bm25", "hop")), (
        "off at weight 0"
    )


def test_the_second_hop_reaches_through_the_default_search_and_keeps_the_first_hops_best_first(
    rmem: Memory,
) -> None:
    _filler(rmem)
    pets = _say(rmem, PETS)
    sofa = _say(rmem, ONLY_BY_NAME, session="s2")
    engine = _engine(rmem, hop_weight=1.0)
    hits = engine.search(QUESTION, rmem.caller("me"), route="raw", write_trace=False).results
    assert hits[0].id == pets or "pets" in hits[0].text, [h.text for h in hits]
    assert sofa in [h.id for h in hits]


def test_the_second_hop_never_brings_in_another_users_or_a_withheld_turn(rmem: Memory) -> None:
    _filler(rmem)
    _say(rmem, PETS)
    theirs = _say(rmem, ONLY_BY_NAME, session="o1", user="someone-else")
    wrong = rmem.add(
        [
            {
                "content": "Oliver lives in Porlamo with his owner.",
                "name": "Ana",
                "time": "2023-05-11T10:00:00+00:00",
            }
        ],
        user_id="me",
        session_id="s3",
    )
    porlamo = wrong.episodes[0].id
    rmem.review.reject(wrong.added[0]["id"], "never true")
    engine = _engine(rmem, hop_weight=1.0)
    ranked = _ranked(engine, rmem, QUESTION, None)
    assert theirs not in ranked and porlamo not in ranked
    found = engine.search(QUESTION, rmem.caller("me"), route="raw", k=50, write_trace=False)
    assert not any("Porlamo" in h.text or h.id == theirs for h in found.results + found.shared)


def test_with_the_second_hop_a_corrected_home_still_ranks_first_and_the_old_one_is_labelled_superseded(
    rmem: Memory,
) -> None:
    rmem.add("I live in Berlin.")
    rmem.add("Berlin has the best bakeries near my flat.")
    rmem.add("I live in Munich now.")
    engine = _engine(rmem, hop_weight=2.0)
    hits = engine.search("where do I live", rmem.caller(), write_trace=False).results
    assert "Munich" in hits[0].text, [(h.text, h.state) for h in hits]
    old = [h for h in hits if h.text in ("I live in Berlin.", "User lives in Berlin.")]
    assert old and all(h.state == "superseded" for h in old)


def test_the_words_asked_again_are_the_seeds_rare_ones_and_their_names_not_the_questions() -> None:
    dfs = {"picture": 50, "sleeping": 3, "fine": 80, "doing": 90, "oliver": 2, "luna": 1}
    exp = expand(
        "What are Ana's pets called?",
        [
            "My pets are doing fine, here is a picture of Oliver sleeping.",
            "Both Luna and Oliver play all day.",
        ],
        drop=frozenset({"ana"}),
        df=lambda t: dfs.get(t, 10),
        rows=100,
        max_terms=3,
        max_names=2,
        name_df=lambda e: 1,
        max_name_df=500,
    )
    assert (
        "pets" not in exp.terms
        and "oliver" in exp.terms
        and exp.terms.index("oliver") < exp.terms.index("luna")
    )
    assert exp.names == ("oliver", "luna")


def test_a_model_follow_up_question_is_asked_too_and_a_failing_model_changes_nothing(rmem: Memory) -> None:
    _filler(rmem)
    _say(rmem, PETS)
    garden = _say(rmem, "The rabbit hutch needs a new roof before winter.", session="s4")
    engine = _engine(rmem, hop_weight=1.0, hop_parts=("model",))
    assert garden not in _ranked(engine, rmem, QUESTION, ("bm25", "hop"))
    engine.channels.follow_up = lambda question, found: "Is there a rabbit hutch?"
    assert garden in _ranked(engine, rmem, QUESTION, ("bm25", "hop"))

    def broken(question: str, found: object) -> str:
        raise RuntimeError("model down")

    engine.channels.follow_up = broken
    assert garden not in _ranked(engine, rmem, QUESTION, ("bm25", "hop"))


def test_the_vector_moves_towards_the_seeds_and_fusion_adds_one_channel() -> None:
    q = np.array([1.0, 0.0], dtype=np.float32)
    v = moved(q, [np.array([0.0, 1.0], dtype=np.float32)], 1.0)
    assert abs(float(np.linalg.norm(v)) - 1.0) < 1e-6 and v[1] > 0.7
    out = fuse({"a": 0.5}, [["b", "a"], ["b"]], 1.0, 60)
    assert out["b"] == 1.0 / 61 and out["a"] == 0.5 + 1.0 / 62
    assert fuse({"a": 0.5}, [["b"]], 0.0, 60) == {"a": 0.5}
