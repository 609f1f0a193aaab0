"""The truth-natural section's machinery: the export the importer reads, the scorer on known texts, and a
run over three small histories whose outcomes are known (one of them cannot be answered, so it scores 0)."""

from __future__ import annotations

from veramem_desktop.core.transfer.chatgpt import chatgpt_items
from veramem_desktop.core.transfer.records import Record

from veramem_desktop.bench.runner import BENCH_PASSPHRASE, SECTIONS, BenchContext, BenchOptions, bench_home
from veramem_desktop.bench.truth_natural_section import (
    answer_current,
    apply_overrides,
    as_of_answer,
    chatgpt_export,
    run_truth_natural_section,
    stale_above_current,
    stale_as_current,
    top1_current,
)
from veramem_desktop.config import Config


def _history(hid: str, sessions: list[list[tuple[str, str, str]]], questions: list[dict]) -> dict:
    return {
        "id": hid,
        "kinds": ["no_i"],
        "attributes": ["home"],
        "sessions": [
            {"title": f"chat {i}", "messages": [{"time": t, "role": r, "text": x} for t, r, x in s]}
            for i, s in enumerate(sessions)
        ],
        "questions": questions,
    }


OSLO = _history(
    "t001",
    [
        [
            ("2024-01-05T10:00:00Z", "user", "I live in Oslo."),
            ("2024-01-05T10:01:00Z", "assistant", "Noted."),
        ],
        [("2024-06-01T09:00:00Z", "user", "What's a good rain jacket?")],
    ],
    [
        {
            "id": "t001.q1",
            "type": "current",
            "whose": "user",
            "question": "Where do I live?",
            "expect": ["Oslo"],
            "stale": [],
        }
    ],
)
NEVER_SAID = _history(
    "t002",
    [
        [("2024-02-02T08:00:00Z", "user", "How long should I boil an egg?")],
        [("2024-03-03T08:00:00Z", "user", "Any tips for a tidy desk?")],
    ],
    [
        {
            "id": "t002.q1",
            "type": "current",
            "whose": "user",
            "question": "Which bank am I with?",
            "expect": ["Zanzibar Savings"],
            "stale": [],
        },
        {
            "id": "t002.q2",
            "type": "asof",
            "as_of": "2024-02-10",
            "whose": "user",
            "question": "Which bank was I with in February 2024?",
            "expect": ["Zanzibar Savings"],
            "stale": [],
        },
    ],
)


def test_the_export_is_read_by_the_chatgpt_reader_in_message_order_with_its_times() -> None:
    conversations = chatgpt_export(OSLO)
    assert len(conversations) == 2
    records = [r for i, c in enumerate(conversations) for r in chatgpt_items(c, i) if isinstance(r, Record)]
    assert [(r.role, r.content) for r in records] == [
        ("user", "I live in Oslo."),
        ("assistant", "Noted."),
        ("user", "What's a good rain jacket?"),
    ]
    assert records[0].time is not None and records[0].time.startswith("2024-01-05T10:00")
    assert len({r.session_id for r in records}) == 2  # one conversation per session


def test_a_stale_value_counts_as_past_only_after_a_past_marker_in_its_sentence() -> None:
    assert answer_current("You live in Bristol now. Before that, Leeds.", False, ["Bristol"], ["Leeds"])
    assert answer_current(
        "You live in Bristol; you previously lived in Leeds.", False, ["Bristol"], ["Leeds"]
    )
    assert not answer_current("You live in Bristol and Leeds.", False, ["Bristol"], ["Leeds"])
    assert not answer_current("You live in Leeds. You moved to Bristol.", False, ["Bristol"], ["Leeds"])
    assert not answer_current("You live in Bristol.", True, ["Bristol"], [])  # an abstention never counts
    assert not answer_current("No stored memory answers this.", False, ["Bristol"], [])
    assert stale_as_current("Your manager is Keisha Obi.", ["Keisha"])
    assert not stale_as_current("Your manager is Ravi. Keisha used to be.", ["Ravi Menon"])
    # a stale value said with a possessive is past after its marker too ("before that, St Mary's")
    assert not stale_as_current("(since 2023; before that, St Anne's Parish).", ["St Anne"])
    assert not stale_as_current("Before that, St Anne’s Parish.", ["St Anne's"])
    assert stale_as_current("You go to St Anne's Parish.", ["St Anne"])


def test_the_ranking_and_as_of_scores_on_known_lists() -> None:
    texts = ["User lives in Leeds.", "User moved to Bristol."]
    assert not top1_current(texts, ["Bristol"]) and top1_current(texts[::-1], ["Bristol"])
    assert stale_above_current(texts, ["Bristol"], ["Leeds"])
    assert not stale_above_current(texts[::-1], ["Bristol"], ["Leeds"])
    assert stale_above_current(["Leeds it is."], ["Bristol"], ["Leeds"])  # no current at all
    assert not stale_above_current(["From Leeds to Bristol."], ["Bristol"], ["Leeds"])  # one hit, both
    assert as_of_answer("In March 2024 you lived in Toronto; now Halifax.", False, ["Toronto"], ["Halifax"])
    assert not as_of_answer("You live in Halifax; in March 2024, Toronto.", False, ["Toronto"], ["Halifax"])
    assert not as_of_answer("Toronto.", True, ["Toronto"], [])


def test_overrides_set_existing_config_paths_and_report_the_others() -> None:
    config = Config()
    assert apply_overrides(config, {"llm.backend": "rule-based", "search.no_such_switch": 1}) == [
        "search.no_such_switch"
    ]
    assert config.llm.backend == "rule-based"


def test_the_section_runs_small_histories_and_scores_known_outcomes() -> None:
    assert "truth-natural" in SECTIONS
    with bench_home() as home:
        ctx = BenchContext(BenchOptions(), home, lambda _: None)
        section = run_truth_natural_section(
            ctx,
            histories=[NEVER_SAID, OSLO, NEVER_SAID | {"id": "t003"}],
            variants=[("headline", {}), ("no-such-switch", {"search.no_such_switch": True})],
        )
    data = section.data["truth_natural"]
    assert data["histories"] == 3 and data["held_out_histories"] == 1
    # dev: t002 (nothing to find: scores 0) and t001 (one plain statement, found and answered)
    assert data["answer_current"] == 0.5 and data["search_top1_current"] == 0.5
    assert data["as_of_answer"] == 0.0
    assert data["questions"] == {"dev": 3, "held_out": 2}
    # held out: the unanswerable history again, counted only in aggregate
    assert data["held_out"]["answer_current"] == 0.0 and data["held_out"]["as_of_answer"] == 0.0
    assert all(not m["id"].startswith("t003") for m in data["misses"])
    assert {m["id"] for m in data["misses"]} >= {"t002.q1", "t002.q2"}
    assert data["kinds"]["no_i"]["answer_current"] == 0.5
    assert data["variants"]["no-such-switch"]["skipped_overrides"] == ["search.no_such_switch"]
    labels = [label for label, _ in section.rows]
    assert "truth-natural held_out" in labels and "  variant no-such-switch dev" in labels


def test_a_history_s_questions_are_asked_once_the_background_linker_is_idle(tmp_path) -> None:
    """The linker links what the import queued in a thread of its own: the questions wait for it, so the
    figures are those of the settled store, never of however far the linker had got."""
    from veramem_desktop.bench.truth_natural_section import run_history
    from veramem_desktop.memory import Memory

    events: list[str] = []

    def make_memory(config):
        mem, _ = Memory.create(tmp_path / "m", passphrase=BENCH_PASSPHRASE, use_keyring=False, config=config)
        waited, asked = mem.organiser.wait_for_links, mem.answer
        mem.organiser.wait_for_links = lambda timeout=10.0: events.append("waited") or waited(timeout)
        mem.answer = lambda *a, **k: events.append("asked") or asked(*a, **k)
        return mem

    _, counts = run_history(make_memory, OSLO, tmp_path / "w", {})
    assert events[:1] == ["waited"] and "asked" in events, events
    assert counts["links_unsettled"] == 0
