"""`veramem bench --cv`: the recipe is chosen on the other conversations only, never on the one it is measured on."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from veramem_desktop.bench import locomo
from veramem_desktop.bench.locomo_cv import choose, cross_validate, folds
from veramem_desktop.bench.locomo_section import cv_rows

GRID = ("steady", "planted")


def _conversation(sid: str, questions: int = 8) -> dict[str, Any]:
    """A generated LoCoMo-shaped conversation: one session of 20 turns, one question per turn 1..n."""
    turns = [
        {"speaker": "Ana" if i % 2 else "Rui", "dia_id": f"D1:{i}", "text": f"{sid} line {i}"}
        for i in range(1, 21)
    ]
    qa = [
        {"question": f"{sid} question {i}", "evidence": [f"D1:{i}"], "category": 1 + i % 4}
        for i in range(1, questions + 1)
    ]
    return {
        "sample_id": sid,
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Rui",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": turns,
        },
        "qa": qa,
    }


def _retriever(name: str, sample: dict[str, Any]) -> locomo.Retriever:
    """ "planted" knows the answers of conversation c2 only (a rule that fits that one conversation)
    and ranks them last elsewhere; "steady" finds every other answer first, everywhere."""
    sid = str(sample["sample_id"])
    ids = [t.dia_id for t in locomo.turns(sample)]

    def search(question: str, k: int) -> Sequence[str]:
        wanted = f"D1:{question.rsplit(' ', 1)[1]}"
        rest = [d for d in ids if d != wanted]
        if name == "planted":
            return ([wanted] + rest if sid == "c2" else rest + [wanted])[:k]
        found = int(question.rsplit(" ", 1)[1]) % 2 == 0
        return ([wanted] + rest if found else rest + [wanted])[:k]

    return search


SAMPLES = [_conversation(f"c{i}") for i in range(1, 5)]


def test_a_rule_that_fits_only_the_held_out_conversation_is_not_chosen_for_it() -> None:
    result = cross_validate(SAMPLES, _retriever, GRID)
    chosen = {f["held_out"]: f["chosen"] for f in result["folds"]}
    assert chosen == {"c1": "steady", "c2": "steady", "c3": "steady", "c4": "steady"}
    held_c2 = next(f for f in result["folds"] if f["held_out"] == "c2")
    assert held_c2["cat1-4"]["recall@10"] == 0.5, "c2 is measured with the recipe the others chose"
    # The same data, had c2 been allowed to choose for itself, would pick the planted rule:
    own = {name: {"c2": locomo.score([SAMPLES[1]], lambda s, n=name: _retriever(n, s))} for name in GRID}
    assert choose(own, GRID) == "planted"


def test_choose_only_sees_the_training_conversations() -> None:
    per = {
        name: {s["sample_id"]: locomo.score([s], lambda x, n=name: _retriever(n, x)) for s in SAMPLES}
        for name in GRID
    }
    seen: list[set[str]] = []
    import veramem_desktop.bench.locomo_cv as cv

    real = cv.choose

    def spying(training: Any, grid: Any, ks: Any = locomo.KS) -> str:
        seen.append({cid for scores in training.values() for cid in scores})
        return real(training, grid, ks)

    cv.choose = spying
    try:
        result = folds(per, [s["sample_id"] for s in SAMPLES], GRID)
    finally:
        cv.choose = real
    assert [f["held_out"] for f in result["folds"]] == ["c1", "c2", "c3", "c4"]
    assert seen == [{"c2", "c3", "c4"}, {"c1", "c3", "c4"}, {"c1", "c2", "c4"}, {"c1", "c2", "c3"}]


def test_the_summary_gives_mean_min_and_max_over_the_held_out_conversations() -> None:
    def uneven(name: str, sample: dict[str, Any]) -> locomo.Retriever:
        sid = str(sample["sample_id"])
        ids = [t.dia_id for t in locomo.turns(sample)]

        def search(question: str, k: int) -> Sequence[str]:
            wanted = f"D1:{question.rsplit(' ', 1)[1]}"
            rest = [d for d in ids if d != wanted]
            return ([wanted] + rest if sid in ("c1", "c2") else rest + [wanted])[:k]

        return search

    result = cross_validate(SAMPLES, uneven, ("only",))
    r10 = result["summary"]["cat1-4"]["recall@10"]
    assert r10 == {"mean": 0.5, "min": 0.0, "max": 1.0}
    assert set(result["summary"]) == {"cat1-4", "1", "2", "3", "4"}
    rows = dict(cv_rows(result))
    assert (
        rows["    cat 1-4"].startswith("mean 0.500/0.500/1.000")
        and "min 0.000 max 1.000" in rows["    cat 1-4"]
    )
    assert rows["    chosen per fold"] == "c1: only, c2: only, c3: only, c4: only"


def test_one_conversation_cannot_be_cross_validated() -> None:
    assert "skipped" in cross_validate(SAMPLES[:1], _retriever, GRID)


@pytest.mark.slow
def test_bench_cv_flag_reports_folds_through_the_real_engine(cli: Any, tmp_path: Path) -> None:
    samples = []
    for sid, pet in (("t1", "greyhound"), ("t2", "parrot")):
        samples.append(
            {
                "sample_id": sid,
                "conversation": {
                    "speaker_a": "Maya",
                    "speaker_b": "Tom",
                    "session_1_date_time": "1:56 pm on 8 May, 2023",
                    "session_1": [
                        {"speaker": "Maya", "dia_id": "D1:1", "text": f"I adopted a {pet} last week!"},
                        {"speaker": "Tom", "dia_id": "D1:2", "text": "I started the cello in June."},
                    ],
                },
                "qa": [
                    {"question": "What pet did Maya adopt?", "evidence": ["D1:1"], "category": 4},
                    {"question": "When did Tom start the cello?", "evidence": ["D1:2"], "category": 2},
                ],
            }
        )
    path = tmp_path / "two.json"
    path.write_text(json.dumps(samples), encoding="utf-8")
    result = cli(
        "bench", "--only", "locomo", "--locomo", str(path), "--no-ablation", "--cv", "--json", timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    cv = json.loads(result.stdout)["locomo"]["cv"]
    assert [f["held_out"] for f in cv["folds"]] == ["t1", "t2"]
    assert all(f["chosen"] in cv["grid"] for f in cv["folds"])
    assert 0.0 <= cv["summary"]["cat1-4"]["recall@10"]["mean"] <= 1.0
