"""The LoCoMo retrieval recipe in the engine: what each episode index holds and how ranking uses it."""

from __future__ import annotations

from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core.recall.fusion import expand_neighbours, speaker_bonus
from veramem_desktop.core.recall.query import names_in
from veramem_desktop.core.text.terms import content_terms
from veramem_desktop.core.text.turns import context_text
from veramem_desktop.core.write.ingest import context_vector

from veramem_desktop.memory import Memory


def _chat(mem: Memory, session: str, turns: list[tuple[str, str]], user: str = "me") -> list[str]:
    result = mem.add(
        [{"content": text, "name": who} for who, text in turns], user_id=user, session_id=session
    )
    return [e.id for e in result.episodes]


def test_query_terms_drop_possessives_question_words_and_split_apostrophes_like_fts5() -> None:
    assert content_terms("What is Caroline's favourite book, and why didn’t she lend it?") == [
        "caroline",
        "favourite",
        "book",
        "didn",
        "lend",
    ]


def test_context_text_keeps_conversation_order() -> None:
    assert context_text("A: hi", "B: hello", "A: bye") == "A: hi\nB: hello\nA: bye"
    assert context_text(None, "B: hello", None) == "B: hello"


def test_names_are_found_whole_and_possessive_and_case_blind() -> None:
    assert names_in("What did caroline's sister say to Mel?", ["Caroline", "Melanie", "Mel"]) == [
        "Caroline",
        "Mel",
    ]
    assert names_in("Carolines", ["Caroline"]) == []


def test_a_reply_is_found_by_the_words_of_the_question_it_answers(mem: Memory) -> None:
    ids = _chat(
        mem, "s1", [("Ana", "Which marathon are you training for?"), ("Rui", "The one in Porto, in October.")]
    )
    _, scores, _ = engine_of(mem).rank("marathon training", mem.caller("me"), route="raw", channels=("bm25",))
    assert ids[1] in scores, "the reply's full-text row holds the question before it"


def test_the_previous_turn_of_another_session_is_not_indexed_with_a_turn(mem: Memory) -> None:
    _chat(mem, "s1", [("Ana", "Which marathon are you training for?")])
    other = _chat(mem, "s2", [("Rui", "The weather is lovely today.")])
    _, scores, _ = engine_of(mem).rank("marathon", mem.caller("me"), route="raw", channels=("bm25",))
    assert other[0] not in scores


def test_the_speaker_rule_lifts_the_named_speakers_turns() -> None:
    scores = {"a": 0.02, "b": 0.021}
    lifted = speaker_bonus(scores, {"a": "Ana", "b": "Rui"}, "ana", 1.0, 60)
    assert lifted["a"] == 0.02 + 1 / 61 and lifted["b"] == 0.021


def test_neighbour_expansion_gives_adjacent_turns_a_share_and_adds_them() -> None:
    grown = expand_neighbours({"a": 1.0, "b": 0.5}, {"a": ["b", "c"], "b": ["a"]}, 0.1)
    assert grown == {"a": 1.05, "b": 0.6, "c": 0.1}


def test_a_question_naming_one_speaker_prefers_that_speakers_turns(mem: Memory) -> None:
    ids = _chat(mem, "s1", [("Ana", "I love hiking in the mountains."), ("Rui", "I love hiking by the sea.")])
    _, scores, _ = engine_of(mem).rank(
        "Where does Ana love hiking?", mem.caller("me"), route="raw", channels=("bm25", "speaker")
    )
    assert scores[ids[0]] > scores[ids[1]]
    assert engine_of(mem).speaker_names(mem.caller("me"), "2030-01-01T00:00:00Z") == ("Ana", "Rui")
    assert engine_of(mem).speaker_names(mem.caller("someone-else"), "2030-01-01T00:00:00Z") == ()


def test_neighbours_of_a_found_turn_become_candidates_in_the_full_ranking(mem: Memory) -> None:
    ids = _chat(
        mem,
        "s1",
        [
            ("Ana", "Guess what arrived today?"),
            ("Rui", "The quetzal feather parcel!"),
            ("Ana", "Finally, it took weeks."),
        ],
    )
    _, scores, _ = engine_of(mem).rank(
        "quetzal feather", mem.caller("me"), route="raw", channels=("bm25", "neighbours")
    )
    assert ids[2] in scores and scores[ids[2]] < scores[ids[1]]


def test_erasing_a_turn_removes_its_words_from_its_neighbours_indexes(mem: Memory) -> None:
    ids = _chat(mem, "s1", [("Ana", "Morning."), ("Rui", "My locker code is zanzibar."), ("Ana", "Noted.")])
    caller = mem.caller("me")
    before_ctx = engine_of(mem).caches["episode_ctx"]
    _, scores, _ = engine_of(mem).rank("zanzibar", caller, route="raw", channels=("bm25",))
    assert ids[2] in scores  # the next turn's row held the erased turn's line
    report = mem.forget(ids[1])
    assert set(report.stale_context) == {ids[0], ids[2]}
    _, scores, _ = engine_of(mem).rank("zanzibar", caller, route="raw", channels=("bm25",))
    assert not scores
    _, scores, _ = engine_of(mem).rank("Noted", caller, route="raw", channels=("bm25",))
    assert ids[2] in scores
    lines = embedder_of(mem).embed(
        ["Ana: Morning.", "Ana: Noted."]
    )  # rebuilt from the two lines that are left
    expected = context_vector((lines[0], "Morning."), (lines[1], "Noted."), None)
    before_ctx.refresh(store_of(mem))
    got = before_ctx.vector(ids[2])
    assert got is not None and float(got @ expected) > 0.999
