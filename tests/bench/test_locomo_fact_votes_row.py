"""Fact votes have their own ablation row in the LoCoMo bench, with the multi-hop category beside it;
they are on by default, and ``--cv`` can still choose the recipe without them (or with them at weight 2)
per fold."""

from __future__ import annotations

from pathlib import Path

from support.locomo_file import multi_hop, write_conversation
from veramem_desktop.core.recall import recipe
from veramem_desktop.core.recall.recipes import CV_GRID, RECIPES, SearchConfig

from veramem_desktop.bench.locomo_run import CHANNELS, run_locomo
from veramem_desktop.bench.locomo_section import channel_rows
from veramem_desktop.memory import Memory


def _file(path: Path) -> Path:
    said = [
        ("Tom", "The weather was grey all week."),
        ("Maya", "I went kayaking on the lake with my kids last weekend."),
        ("Tom", "I finished the quarterly report on time."),
        ("Maya", "We hiked up the hill behind the house on Sunday."),
    ]
    asked = multi_hop("What outdoor activities has Maya done?", "D1:2", "D1:4")
    return write_conversation(path, "conv-facts", [said], asked)


def test_fact_votes_have_their_own_ablation_row_with_the_multi_hop_category(
    mem: Memory, tmp_path: Path
) -> None:
    assert CHANNELS["fact_votes"] == "raw"
    result = run_locomo(mem, _file(tmp_path / "facts.json"), ablation=True)
    row = result["channels"]["rows"]["fact_votes"]
    assert row["change"] == "without" and row["multi-hop"]["n"] == 1
    line = dict(channel_rows(result["channels"]))["    without fact_votes (raw)"]
    assert "multi-hop " in line and "Δ@10" in line


def test_fact_votes_are_on_by_default_and_the_cv_grid_can_choose_them_off_or_stronger() -> None:
    assert SearchConfig().fact_weight == 1.0 and SearchConfig().fact_kinds == ("gather",)
    for name in ("no-facts", "facts-2"):
        assert name in RECIPES and name in CV_GRID
    assert recipe("no-facts").fact_weight == 0.0 and recipe("facts-2").fact_weight == 2.0
