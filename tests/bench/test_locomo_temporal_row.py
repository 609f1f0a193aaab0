"""The date-fit channel has its own ablation row in the LoCoMo bench, with the temporal category beside it."""

from __future__ import annotations

from pathlib import Path

from support.locomo_file import write_conversation

from veramem_desktop.bench.locomo_run import CHANNELS, run_locomo
from veramem_desktop.bench.locomo_section import channel_rows
from veramem_desktop.memory import Memory


def _file(path: Path) -> Path:
    asked = [
        {"question": "What did Tom bake in June 2023?", "evidence": ["D2:1"], "category": 2},
        {"question": "When did Tom bake bread for the street party?", "evidence": ["D2:1"], "category": 2},
    ]
    sessions = [
        [("Tom", "I baked bread, baked bread, baked bread all day.")],
        [("Tom", "I baked bread for the street party.")],
    ]
    return write_conversation(path, "conv-dates", sessions, asked)


def test_the_temporal_channel_has_its_own_ablation_row_on_the_raw_route(mem: Memory, tmp_path: Path) -> None:
    assert CHANNELS["temporal"] == "raw"
    result = run_locomo(mem, _file(tmp_path / "dates.json"), ablation=True)
    row = result["channels"]["rows"]["temporal"]
    assert row["change"] == "without" and row["temporal"]["n"] == 2
    line = dict(channel_rows(result["channels"]))["    without temporal (raw)"]
    assert "temporal " in line and "Δ@10" in line
