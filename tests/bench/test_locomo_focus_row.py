"""Speaker focus has its own ablation row in the LoCoMo bench, with the multi-hop category beside it;
it is on by default (the folds chose it on every held-out conversation), and ``--cv`` can still
choose the recipe without it per fold."""

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
        ("Tom", "My hobbies are many, hobbies all week long."),
        ("Maya", "I took up pottery last month, it calms me."),
        ("Tom", "The weather was grey all week."),
        ("Maya", "Swimming with the kids on Sunday was lovely."),
    ]
    return write_conversation(
        path, "conv-focus", [said], multi_hop("What hobbies does Maya have?", "D1:2", "D1:4")
    )


def test_speaker_focus_has_its_own_ablation_row_with_the_multi_hop_category(
    mem: Memory, tmp_path: Path
) -> None:
    assert CHANNELS["focus"] == "raw"
    result = run_locomo(mem, _file(tmp_path / "focus.json"), ablation=True)
    row = result["channels"]["rows"]["focus"]
    assert row["change"] == "without" and row["multi-hop"]["n"] == 1
    line = dict(channel_rows(result["channels"]))["    without focus (raw)"]
    assert "multi-hop " in line and "Δ@10" in line


def test_speaker_focus_is_on_by_default_and_the_cv_grid_can_choose_it_off() -> None:
    assert SearchConfig().focus_weights == {"gather": {"bm25": 2.0}, "suppose": {"dense": 3.0}}
    assert SearchConfig().temporal_weight == 2.0
    assert "no-focus" in RECIPES and "no-focus" in CV_GRID and "hybrid" in CV_GRID
    assert recipe("no-focus").focus_weights == {}
    # each config holds its own weights: changing one never changes the defaults
    config = SearchConfig()
    config.focus_weights["gather"]["bm25"] = 9.0
    assert SearchConfig().focus_weights["gather"]["bm25"] == 2.0
