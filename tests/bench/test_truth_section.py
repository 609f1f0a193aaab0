"""The truth section runs end to end on a few generated scenarios and reports every metric per surface."""

from __future__ import annotations

from veramem_desktop.bench.runner import BenchContext, BenchOptions, bench_home
from veramem_desktop.bench.truth_section import SURFACES, run_truth_section
from veramem_desktop.bench.truth_set import (
    RETRACTIONS,
    SPEAKER_QUESTIONS,
    WORDINGS,
    generate,
    retractions,
    speakers,
    wordings,
)


def test_the_generated_set_is_deterministic_and_covers_every_kind_and_restatement() -> None:
    first, again = generate(330), generate(330)
    assert [(s.user, s.current, [st.content for st in s.steps]) for s in first] == [
        (s.user, s.current, [st.content for st in s.steps]) for s in again
    ]
    assert {s.kind for s in first} == {"chain", "reject", "claims", "asof"}
    assert {s.variant for s in first if s.kind == "reject"} == {
        "verbatim",
        "case",
        "homoglyph",
        "tool",
        "document",
        "paraphrase",
    }
    assert len({s.subject for s in first}) >= 6 and len(first) >= 300


def test_the_truth_section_reports_each_metric_on_each_surface_and_its_ablations() -> None:
    with bench_home() as home:
        section = run_truth_section(
            BenchContext(BenchOptions(), home, lambda _: None), scenarios=14, retracted=7, worded=0
        )
    data = section.data["truth"]
    for surface in SURFACES:
        assert data[surface]["rejected_leak"] == 0.0, data[surface]
    assert data["search"]["current_at_1"] == 1.0 and data["answer"]["answer_current"] == 1.0
    assert data["ablation"]["no-withholding"]["rejected_leak"] > 0  # the ablation can show a leak
    assert any(label.startswith("truth mcp") for label, _ in section.rows)
    # The retractions are counted apart: a retracted value never ranks above what holds now.
    retracted = data["retractions"]
    assert retracted["scenarios"] == 7 and data["scenarios"] == 14
    for surface in ("search", "mcp", "rest"):
        assert retracted[surface]["stale_above_current"] == 0.0, retracted
    assert retracted["answer"]["answer_current"] == 1.0, retracted
    assert any(label == "truth retractions search" for label, _ in section.rows)


def test_the_retraction_set_is_generated_in_many_wordings_and_the_old_value_is_stale() -> None:
    first, again = retractions(70), retractions(70)
    assert [[st.content for st in s.steps] for s in first] == [[st.content for st in s.steps] for s in again]
    assert {s.kind for s in first} == {"retract"} and {s.subject for s in first} == set(RETRACTIONS)
    assert len({s.variant.split("-")[0] for s in first}) >= 20  # of 27: negation x new value x joiner
    for s in first:
        said = s.steps[-1].content
        assert s.stale[0] in said and s.current in said and said.index(s.stale[0]) < said.index(s.current)
    # The scenarios above are not moved by the retractions: they are a set of their own.
    assert "retract" not in {s.kind for s in generate(330)}


def test_the_retraction_wordings_say_each_form_once_and_what_only_looks_like_one_keeps_the_value() -> None:
    first, again = wordings(), wordings()
    assert [[st.content for st in s.steps] for s in first] == [[st.content for st in s.steps] for s in again]
    assert len(first) == sum(len(stops) + len(kept) for stops, kept in WORDINGS.values())
    assert {s.subject for s in first} == set(WORDINGS) and {s.kind for s in first} == {"retract", "kept"}
    for s in first:
        said = s.steps[-1].content
        if s.kind == "kept":  # the value still holds: nothing is stale
            assert s.current in said and not s.stale
        else:
            assert s.stale[0] in said and s.current in said and said.index(s.stale[0]) < said.index(s.current)


def test_no_retraction_wording_leaves_the_old_value_first_and_no_look_alike_retracts() -> None:
    """Without core/write/retraction_targets.py "I sold the X" leaves the X first (stale_above_current > 0);
    without the same-person rule "Mel no longer works at X" retracts the user's X (false_retraction > 0);
    the first retraction set's wordings ("My diet is no longer X", "I don't eat X anymore, and …") too."""
    with bench_home() as home:
        section = run_truth_section(
            BenchContext(BenchOptions(), home, lambda _: None),
            scenarios=0,
            retracted=70,
            worded=35,
            speaking=0,
            surfaces=("search",),
            ablate=False,
        )
    worded = section.data["truth"]["retraction_wordings"]
    assert worded["store"]["false_retraction"] == 0.0, worded["misses"]
    assert worded["search"]["stale_above_current"] == 0.0, worded["misses"]
    assert any(label == "truth retraction wordings store" for label, _ in section.rows)
    retracted = section.data["truth"]["retractions"]
    assert retracted["search"]["stale_above_current"] == 0.0, retracted["misses"]


def test_the_speakers_set_is_deterministic_and_crosses_every_way_of_speaking() -> None:
    first, again = speakers(32), speakers(32)
    assert [(s.user, s.current, [[st.content for st in a] for a in s.adds]) for s in first] == [
        (s.user, s.current, [[st.content for st in a] for a in s.adds]) for s in again
    ]
    assert {s.variant for s in first} == {
        f"{how}{same}{change}"
        for how in ("one-add", "separate")
        for same in ("", "-same")
        for change in ("", "-change")
    }
    assert {s.subject for s in first} == set(SPEAKER_QUESTIONS)
    assert all("" in s.current and 3 <= len(s.current) <= 4 for s in first)


def test_no_speakers_memory_is_superseded_by_or_merged_with_another_speakers() -> None:
    """Without core/write/derive.keyed_to_speaker both leaks are above 0 (the user's later value
    supersedes a named speaker's; two speakers' same sentence is one memory)."""
    with bench_home() as home:
        section = run_truth_section(
            BenchContext(BenchOptions(), home, lambda _: None),
            scenarios=0,
            retracted=0,
            worded=0,
            speaking=12,
            surfaces=("search",),
            ablate=False,
        )
    spoken = section.data["truth"]["speakers"]
    assert spoken["store"] == {"other_speaker_superseded": 0.0, "merged_across_speakers": 0.0}, spoken[
        "misses"
    ]
    assert spoken["scenarios"] == 12 and spoken["search"]["current_at_1"] > 0.5, spoken
    assert any(label == "truth speakers store" for label, _ in section.rows)
