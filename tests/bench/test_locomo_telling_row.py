"""The tellings channel has its own ablation row in the LoCoMo bench, with the multi-hop category beside
it; it is on by default, and ``--cv`` can choose the recipe without it (or at weight 1) per fold."""

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
        ("Tom", "Wow Maya, your painting is awesome! How did you get the colours so vivid?"),
        ("Maya", "Last weekend I finally finished a canvas of the harbour at dawn."),
        ("Tom", "I finished the quarterly report on time."),
        ("Maya", "Yesterday I painted a red barn by the river with my kids."),
    ]
    return write_conversation(
        path, "conv-tellings", [said], multi_hop("What has Maya painted?", "D1:2", "D1:4")
    )


def test_tellings_have_their_own_ablation_row_with_the_multi_hop_category(
    mem: Memory, tmp_path: Path
) -> None:
    assert CHANNELS["telling"] == "raw"
    result = run_locomo(mem, _file(tmp_path / "tellings.json"), ablation=True)
    row = result["channels"]["rows"]["telling"]
    assert row["change"] == "without" and row["multi-hop"]["n"] == 1
    line = dict(channel_rows(result["channels"]))["    without telling (raw)"]
    assert "multi-hop " in line and "Δ@10" in line


def test_tellings_are_on_by_default_and_the_cv_grid_can_choose_them_off_or_stronger() -> None:
    assert SearchConfig().telling_weight == 0.5 and SearchConfig().telling_top == 30
    for name in ("no-telling", "telling-1"):
        assert name in RECIPES and name in CV_GRID
    assert recipe("no-telling").telling_weight == 0.0 and recipe("telling-1").telling_weight == 1.0
