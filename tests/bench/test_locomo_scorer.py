"""Our LoCoMo scorer agrees with the data set's reference scorer (shared/bench/locomo/recall.py)."""

from __future__ import annotations

import importlib.util
import os
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from veramem_desktop.bench import locomo

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "bench" / "locomo"


def _reference() -> ModuleType:
    path = SHARED / "recall.py"
    if not path.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"the reference scorer {path} is missing under CI")
        pytest.skip(f"the reference scorer {path} is not here (shared folder missing)")
    spec = importlib.util.spec_from_file_location("locomo_reference_recall", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tiny_samples() -> list[dict[str, Any]]:
    """Two conversations with every evidence quirk the README lists."""

    def conv(prefix: str) -> dict[str, Any]:
        return {
            "speaker_a": "Ana",
            "speaker_b": "Rui",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana" if i % 2 else "Rui", "dia_id": f"D1:{i}", "text": f"{prefix} one {i}"}
                for i in range(1, 8)
            ],
            "session_2_date_time": "9:00 am on 9 May, 2023",
            "session_2": [
                {"speaker": "Rui", "dia_id": f"D2:{i}", "text": f"{prefix} two {i}"} for i in range(1, 6)
            ],
            "session_3_date_time": "10:00 am on 10 May, 2023",  # a date without turns
        }

    qa = [
        {"question": "q1", "evidence": ["D1:1"], "category": 4},
        {"question": "q2", "evidence": ["D1:2; D2:3"], "category": 1},
        {"question": "q3", "evidence": ["D1:3 D2:1 D2:5"], "category": 1},
        {"question": "q4", "evidence": ["D:1:4"], "category": 2},
        {"question": "q5", "evidence": ["D2:05"], "category": 2},
        {"question": "q6", "evidence": ["D"], "category": 3},
        {"question": "q7", "evidence": [], "category": 3},
        {"question": "q8", "evidence": ["D9:9", "D1:6"], "category": 3},
        {"question": "q9", "evidence": ["D1:7", "D1:7"], "category": 5},
    ]
    return [
        {"sample_id": "a", "conversation": conv("a"), "qa": qa},
        {"sample_id": "b", "conversation": conv("b"), "qa": qa},
    ]


def _shuffled_retriever(sample: dict[str, Any]) -> Any:
    """A deterministic retriever: the conversation's dia_ids in an order fixed by the question."""
    ids = [t.dia_id for t in locomo.turns(sample)]

    def search(question: str, k: int) -> list[str]:
        order = ids[:]
        random.Random(f"{sample['sample_id']}|{question}").shuffle(order)
        return order[:k]

    return search


def _compare(samples: list[dict[str, Any]], build: Any) -> None:
    ref = _reference()
    ks = (5, 10, 20)
    rows, _ = ref.evaluate(samples, build, ks)
    table = ref.summarize(rows, ks)
    ours = locomo.score(samples, build, ks).summary(ks)
    names = {1: "1 multi-hop", 2: "2 temporal", 3: "3 open-domain", 4: "4 single-hop", 5: "5 adversarial"}
    checked = 0
    for cat, name in names.items():
        if name not in table:
            assert str(cat) not in ours
            continue
        for k in ks:
            assert ours[str(cat)][f"recall@{k}"] == pytest.approx(table[name][f"recall@{k}"], abs=1e-4)
            checked += 1
        assert ours[str(cat)]["n"] == table[name]["n"]
    for k in ks:
        assert ours["cat1-4"][f"recall@{k}"] == pytest.approx(table["cat 1-4"][f"recall@{k}"], abs=1e-4)
        assert ours["all"][f"recall@{k}"] == pytest.approx(table["all 1-5"][f"recall@{k}"], abs=1e-4)
    assert checked > 0


def test_both_scorers_agree_on_a_shuffling_retriever_over_every_evidence_quirk() -> None:
    _compare(_tiny_samples(), _shuffled_retriever)


def test_both_scorers_agree_on_the_reference_bm25_baseline_over_the_dev_split() -> None:
    data = SHARED / "locomo_dev.json"
    ref = _reference()
    if not data.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{data} is missing under CI")
        pytest.skip(f"{data} is not here (shared folder missing)")
    _compare(locomo.load(data), ref.build_bm25_search)


def test_evidence_is_cleaned_as_the_readme_says() -> None:
    known = {"D1:1", "D4:4", "D8:6", "D9:1", "D9:17", "D11:26", "D30:5"}
    assert locomo.clean_evidence(["D8:6; D9:17"], known) == ["D8:6", "D9:17"]
    assert locomo.clean_evidence(["D9:1 D4:4 D4:6"], known) == ["D9:1", "D4:4"]
    assert locomo.clean_evidence(["D:11:26", "D30:05", "D", "D1:1", "D1:1"], known) == [
        "D11:26",
        "D30:5",
        "D1:1",
    ]
