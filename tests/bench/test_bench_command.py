"""`veramem bench` runs end to end in a throwaway store and prints sane numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


def _tiny_locomo(path: Path) -> Path:
    """A LoCoMo-format file: 2 sessions, 6 turns, 3 questions."""
    sample = {
        "sample_id": "conv-tiny",
        "conversation": {
            "speaker_a": "Maya",
            "speaker_b": "Tom",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {
                    "speaker": "Maya",
                    "dia_id": "D1:1",
                    "text": "I adopted a rescue greyhound called Pixel last week!",
                },
                {"speaker": "Tom", "dia_id": "D1:2", "text": "Lovely. What colour is Pixel?"},
                {
                    "speaker": "Maya",
                    "dia_id": "D1:3",
                    "text": "She is brindle, and scared of the vacuum cleaner.",
                    "blip_caption": "a photo of a brindle dog on a sofa",
                },
            ],
            "session_2_date_time": "10:05 am on 20 June, 2023",
            "session_2": [
                {"speaker": "Tom", "dia_id": "D2:1", "text": "I started learning the cello in June."},
                {"speaker": "Maya", "dia_id": "D2:2", "text": "Which teacher do you have?"},
                {"speaker": "Tom", "dia_id": "D2:3", "text": "Mrs Okafor, she plays in the city orchestra."},
            ],
        },
        "qa": [
            {
                "question": "What is the name of Maya's dog?",
                "answer": "Pixel",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "When did Tom start learning the cello?",
                "answer": "June 2023",
                "evidence": ["D2:1"],
                "category": 2,
            },
            {
                "question": "Who teaches Tom the cello?",
                "answer": "Mrs Okafor",
                "evidence": ["D2:3"],
                "category": 4,
            },
        ],
    }
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


def _json(result: Any) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr[-3000:]
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.slow
def test_latency_section_reports_percentiles_machine_and_memory(cli: Any, isolated_home: Path) -> None:
    data = _json(
        cli("bench", "--only", "latency", "--sizes", "200", "--queries", "30", "--json", timeout=300)
    )
    assert set(data) >= {"machine", "search_latency_ms", "peak_rss_mb"}
    assert data["machine"]["cpu_count"] >= 1 and data["machine"]["python"] and data["machine"]["onnxruntime"]
    at = data["search_latency_ms"]["200"]
    assert 0 < at["p50"] <= at["p95"] < 5_000
    assert 0 < at["engine_p50"] < 5_000 and at["n"] == 30
    assert at["dense"] == {"projected": False, "recall@100_vs_exact": 1.0}  # 200 rows are scanned exactly
    assert 50 < data["peak_rss_mb"] < 8_000
    assert "locomo" not in data and "add_per_s" not in data
    assert not list(isolated_home.glob("**/veramem.db")), "the bench wrote into the user's home"


@pytest.mark.slow
def test_locomo_section_scores_a_tiny_conversation_with_every_retriever(cli: Any, tmp_path: Path) -> None:
    path = _tiny_locomo(tmp_path / "tiny.json")
    data = _json(
        cli("bench", "--only", "locomo", "--locomo", str(path), "--no-ablation", "--json", timeout=300)
    )
    result = data["locomo"]
    assert result["conversations"] == 1 and result["questions"] == 3
    for variant in ("hybrid", "bm25", "dense"):
        head = result[variant]["cat1-4"]
        assert head["n"] == 3
        assert 0 <= head["recall@5"] <= head["recall@10"] <= head["recall@20"]
    # six turns only: the dense and hybrid rankings reach every turn, so every evidence turn is in the top 20
    assert result["hybrid"]["cat1-4"]["recall@20"] == result["dense"]["cat1-4"]["recall@20"] == 1.0
    assert result["hybrid"]["4"]["recall@5"] == 1.0
    # BM25 alone ranks only turns sharing a word with the question, speakers' names left out: "cello" and
    # "learning" find D2:1; "name"/"dog" and "teaches" (the turn says "Mrs Okafor", its question "teacher")
    # find no evidence turn
    assert result["bm25"]["cat1-4"]["recall@20"] == pytest.approx(1 / 3, abs=1e-3)


def test_a_missing_locomo_file_is_reported_not_fatal(cli: Any, tmp_path: Path) -> None:
    data = _json(
        cli("bench", "--only", "locomo", "--locomo", str(tmp_path / "absent.json"), "--json", timeout=300)
    )
    assert "skipped" in data["locomo"] and "absent.json" in data["locomo"]["skipped"]


def test_an_unknown_section_is_a_usage_error(cli: Any) -> None:
    result = cli("bench", "--only", "everything")
    assert result.returncode == 2 and "unknown section" in result.stderr
