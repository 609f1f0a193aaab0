"""The question's topic (core/recall/topic.py) has its own ablation row in the LoCoMo bench, with the
multi-hop category beside it."""

from __future__ import annotations

import json
from pathlib import Path

from veramem_desktop.bench.locomo_run import CHANNELS, run_locomo
from veramem_desktop.bench.locomo_section import channel_rows
from veramem_desktop.memory import Memory


def _file(path: Path) -> Path:
    said = [
        ("Tom", "What have you been up to lately, Maya? Anything done?"),
        ("Maya", "I'm doing kickboxing now, it gives me energy."),
        ("Tom", "The weather was grey all week."),
        ("Maya", "Swimming laps on Sunday was lovely."),
    ]
    session = [{"speaker": who, "dia_id": f"D1:{i}", "text": t} for i, (who, t) in enumerate(said, start=1)]
    sample = {
        "sample_id": "conv-topic",
        "conversation": {
            "speaker_a": "Maya",
            "speaker_b": "Tom",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": session,
        },
        "qa": [{"question": "What exercises has Maya done?", "evidence": ["D1:2", "D1:4"], "category": 1}],
    }
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


def test_the_topic_has_its_own_ablation_row_with_the_multi_hop_category(mem: Memory, tmp_path: Path) -> None:
    assert CHANNELS["topic"] == "raw"
    result = run_locomo(mem, _file(tmp_path / "topic.json"), ablation=True)
    row = result["channels"]["rows"]["topic"]
    assert row["change"] == "without" and row["multi-hop"]["n"] == 1
    line = dict(channel_rows(result["channels"]))["    without topic (raw)"]
    assert "multi-hop " in line and "Δ@10" in line
