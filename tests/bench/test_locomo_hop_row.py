"""The second hop has its own ablation row in the LoCoMo bench, with the multi-hop category beside it,
and a recipe that ``--cv`` can choose per fold."""

from __future__ import annotations

from pathlib import Path

from support.locomo_file import multi_hop, write_conversation
from veramem_desktop.core.recall import recipe
from veramem_desktop.core.recall.recipes import CV_GRID, RECIPES

from veramem_desktop.bench.locomo_run import CHANNELS, run_locomo
from veramem_desktop.bench.locomo_section import channel_rows
from veramem_desktop.memory import Memory

FILLER = [
    "The weather was grey all week.",
    "I finished the quarterly report on time.",
    "We talked about the garden and the new fence.",
    "Lunch was a quick salad today.",
    "The train was late again this morning.",
    "I repainted the kitchen door blue.",
]


def _file(path: Path) -> Path:
    first = [("Tom", t) for t in FILLER] + [("Tom", "My pets are fine, here is Oliver asleep.")]
    second = [("Tom", "Oliver chewed through the sofa cushions.")]
    asked = multi_hop("What are the pets called?", "D1:7", "D2:1")
    return write_conversation(path, "conv-hop", [first, second], asked)


def test_the_second_hop_has_its_own_ablation_row_with_the_multi_hop_category(
    mem: Memory, tmp_path: Path
) -> None:
    assert CHANNELS["hop"] == "raw"
    result = run_locomo(mem, _file(tmp_path / "hop.json"), ablation=True)
    row = result["channels"]["rows"]["hop"]
    assert row["multi-hop"]["n"] == 1
    label = f"    {row['change']} hop (raw)"
    line = dict(channel_rows(result["channels"]))[label]
    assert "multi-hop " in line and "Δ@10" in line


def test_the_cv_grid_holds_a_recipe_with_the_second_hop_and_one_without() -> None:
    assert "hop" in RECIPES and "hop" in CV_GRID
    with_hop = [name for name in CV_GRID if recipe(name).hop_weight > 0]
    without = [name for name in CV_GRID if recipe(name).hop_weight == 0]
    assert with_hop and without
