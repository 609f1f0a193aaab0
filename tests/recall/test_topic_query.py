"""The question's topic: the messages' dense channels are asked by the question's content words without
question words or speakers' names ("exercises done") when it names a speaker, which lie nearer the turns
holding instances of what is asked than the whole question does; it changes only the text embedded, never
what may be ranked."""

from __future__ import annotations

from dataclasses import replace

from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core.recall import SearchEngine
from veramem_desktop.core.recall.recipes import CV_GRID, RECIPES, TOPIC_CHANNELS, SearchConfig, recipe
from veramem_desktop.core.recall.topic import topic_text

from veramem_desktop.memory import Memory

_SAID = [
    ("Ana", "Hey Ben! What have you been up to? Has anything new happened with you?"),
    ("Ben", "Not much, Ana. I have done a lot of work this week."),
    ("Ana", "I'm doing kickboxing now and it's giving me so much energy."),
    ("Ben", "Nice. What else has Ana done lately?"),
    ("Ana", "Done with the move at last, what a week it has been."),
]


def test_the_topic_is_the_content_words_without_question_words_or_the_names_dropped() -> None:
    assert topic_text("What exercises has Ana done?", {"ana"}) == "exercises done"
    assert topic_text("Would Ana's kids like the dinosaur exhibit?", {"ana"}) == "kids dinosaur exhibit"
    assert topic_text("What did Ana say?", {"ana"}) is None  # nothing left: the whole question is asked
    assert topic_text("What exercises has Ben done?", {"ana"}) is None  # names no speaker: asked whole


def _conversation(mem: Memory, user: str = "me") -> list[str]:
    return [
        mem.add(
            [{"content": text, "name": who, "time": "2023-05-10T10:00:00+00:00"}],
            user_id=user,
            session_id="s1",
        )
        .episodes[0]
        .id
        for who, text in _SAID
    ]


def _dense_order(mem: Memory, topic: tuple[str, ...], query: str, user: str = "me") -> list[str]:
    config = replace(engine_of(mem).config, topic_channels=topic)
    engine = SearchEngine(store_of(mem), embedder_of(mem), config)
    _, scores, _ = engine.rank(query, mem.caller(user), route="raw", channels=("dense", "topic"))
    return sorted(scores, key=lambda d: -scores[d])


def test_asked_by_its_topic_the_dense_channel_finds_the_turn_that_holds_an_instance(rmem: Memory) -> None:
    ids = _conversation(rmem)
    kickboxing = ids[2]
    question = "What exercises has Ana done?"
    assert _dense_order(rmem, (), question)[0] != kickboxing  # the whole question finds a question first
    assert _dense_order(rmem, TOPIC_CHANNELS, question)[0] == kickboxing


def test_the_topic_never_brings_in_another_users_turn(rmem: Memory) -> None:
    mine = _conversation(rmem)
    theirs = _conversation(rmem, user="other")
    ranked = _dense_order(rmem, TOPIC_CHANNELS, "What exercises has Ana done?")
    assert set(ranked) == set(mine) and not set(ranked) & set(theirs)


def test_the_topic_is_on_by_default_for_messages_and_the_cv_grid_can_choose_it_off() -> None:
    assert SearchConfig().topic_channels == ("episode:dense", "episode:dense_ctx")
    assert "no-topic" in RECIPES and "no-topic" in CV_GRID and "hybrid" in CV_GRID
    assert recipe("no-topic").topic_channels == ()
    assert recipe("topic-lines").topic_channels == ("episode:dense",)
