"""The bench's channel rows: one per channel on LoCoMo-format data, with or without it against every
default, categories 1-4 and multi-hop apart; a channel that is on by default does not cost recall."""

from __future__ import annotations

import json
from pathlib import Path

from veramem_desktop.core.recall import SearchConfig

from veramem_desktop.bench.locomo_run import CHANNELS, run_locomo
from veramem_desktop.bench.locomo_section import channel_rows
from veramem_desktop.memory import Memory

TURNS = [
    ("Maya", "I adopted a rescue greyhound called Pixel last week!"),
    ("Tom", "Lovely. What colour is Pixel?"),
    ("Maya", "She is brindle, and scared of the vacuum cleaner."),
    ("Tom", "I started learning the cello in June."),
    ("Maya", "Which teacher do you have?"),
    ("Tom", "Mrs Okafor, she plays in the city orchestra."),
]


def _file(path: Path) -> Path:
    session = [{"speaker": s, "dia_id": f"D1:{i}", "text": t} for i, (s, t) in enumerate(TURNS, start=1)]
    sample = {
        "sample_id": "conv-tiny",
        "conversation": {
            "speaker_a": "Maya",
            "speaker_b": "Tom",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": session,
        },
        "qa": [
            {
                "question": "What is the colour of Maya's dog Pixel?",
                "evidence": ["D1:1", "D1:3"],
                "category": 1,
            },
            {"question": "Who teaches Tom the cello?", "evidence": ["D1:6"], "category": 4},
        ],
    }
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


def test_every_channel_gets_a_row_and_no_default_channel_costs_recall(mem: Memory, tmp_path: Path) -> None:
    result = run_locomo(mem, _file(tmp_path / "tiny.json"), ablation=True)
    channels = result["channels"]
    assert list(channels["rows"]) == list(CHANNELS) and set(channels["hybrid"]) == {"raw", "facts"}
    base = SearchConfig()
    for name, row in channels["rows"].items():
        if "skipped" in row:
            assert name == "hyde"  # no model in the tests
            continue
        default_on = (
            not (name == "links" and base.link_decay == 0)
            and base.weights.get(name, 1.0) > 0
            and not (name == "hop" and base.hop_weight == 0)
            and not (name == "focus" and not base.focus_weights)
        )
        assert row["change"] == ("without" if default_on else "with")
        assert row["multi-hop"]["n"] == 1 and row["cat1-4"]["n"] == 2
        assert row["route"] == CHANNELS[name]
        if default_on:  # switching a default channel off never finds more
            assert row["cat1-4"]["recall@10"] <= channels["hybrid"][row["route"]]["cat1-4"]["recall@10"]
    lines = channel_rows(channels)
    assert len(lines) == 2 + len(CHANNELS) and all("multi-hop" in v or "not measured" in v for _, v in lines)
