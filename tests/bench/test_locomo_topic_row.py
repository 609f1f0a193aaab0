"""The question's topic (core/recall/topic.py) has its own ablation row in the LoCoMo bench, with the
multi-hop category beside it."""

from __future__ import annotations

from pathlib import Path

from support.locomo_file import multi_hop, write_conversation

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
    return write_conversation(
        path, "conv-topic", [said], multi_hop("What exercises has Maya done?", "D1:2", "D1:4")
    )


def test_the_topic_has_its_own_ablation_row_with_the_multi_hop_category(mem: Memory, tmp_path: Path) -> None:
    assert CHANNELS["topic"] == "raw"
    result = run_locomo(mem, _file(tmp_path / "topic.json"), ablation=True)
    row = result["channels"]["rows"]["topic"]
    assert row["change"] == "without" and row["multi-hop"]["n"] == 1
    line = dict(channel_rows(result["channels"]))["    without topic (raw)"]
    assert "multi-hop " in line and "Δ@10" in line
