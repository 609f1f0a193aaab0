"""The ``locomo`` bench section: recall@5/10/20 per category, hybrid next to BM25-only and dense-only."""

from __future__ import annotations

import time
from typing import Any

from .locomo import default_path
from .locomo_run import run_locomo
from .runner import BenchContext, Section

_CATS = (
    ("cat1-4", "cat 1-4"),
    ("1", "1 multi-hop"),
    ("2", "2 temporal"),
    ("3", "3 open-domain"),
    ("4", "4 single-hop"),
    ("5", "5 adversarial"),
)


def run_locomo_section(ctx: BenchContext) -> Section:
    path = ctx.options.locomo or default_path()
    if path is None or not path.is_file():
        note = f"no LoCoMo file at {path}" if path else "no LoCoMo file found (give --locomo PATH)"
        return Section({"locomo": {"skipped": note}}, [("locomo", f"skipped: {note}")])
    ctx.progress(f"locomo: ingesting and asking {path.name}")
    mem = ctx.new_memory("locomo")
    started = time.perf_counter()
    try:
        result = run_locomo(mem, path, ablation=ctx.options.ablation, cv=ctx.options.cv)
    finally:
        mem.close()
    result["seconds"] = round(time.perf_counter() - started, 1)
    rows = [
        (
            "locomo",
            f"{result['conversations']} conversations, {result['questions']} questions, "
            f"{result['seconds']} s (recall@5 / @10 / @20)",
        )
    ]
    for key, label in _CATS:
        cells = []
        for variant in ("hybrid", "bm25", "dense"):
            r = result[variant].get(key)
            cells.append(
                f"{variant} " + ("/".join(f"{r[f'recall@{k}']:.3f}" for k in (5, 10, 20)) if r else "-")
            )
        n = result["hybrid"].get(key, {}).get("n", 0)
        rows.append((f"  {label} (n={n})", "   ".join(cells)))
    if "pipeline" in result:
        p = result["pipeline"]
        rows.append(
            (
                "  hybrid through search (truth, priors, time order)",
                f"cat 1-4 {_triple(p.get('cat1-4', {}))}   multi-hop {_triple(p.get('1', {}))}   "
                f"temporal {_triple(p.get('2', {}))}",
            )
        )
    for name, r in result.get("ablation", {}).items():
        rows.append(
            (f"  ablation: {name}", "cat 1-4 " + "/".join(f"{r[f'recall@{k}']:.3f}" for k in (5, 10, 20)))
        )
    rows += channel_rows(result.get("channels"))
    rows += cv_rows(result.get("cv"))
    return Section({"locomo": result}, rows)


def cv_rows(cv: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The cross-validated figures: mean over the held-out conversations, [min–max], and each fold's choice."""
    if not cv:
        return []
    if "skipped" in cv:
        return [("  cross-validated", f"skipped: {cv['skipped']}")]
    rows = [
        (
            "  cross-validated (leave one conversation out)",
            f"recipe chosen by {cv['criterion']} among {', '.join(cv['grid'])}",
        )
    ]
    for key, label in _CATS:
        r = cv["summary"].get(key)
        if r:
            cells = "/".join(f"{r[f'recall@{k}']['mean']:.3f}" for k in (5, 10, 20))
            low, high = r["recall@10"]["min"], r["recall@10"]["max"]
            rows.append((f"    {label}", f"mean {cells}   @10 min {low:.3f} max {high:.3f}"))
    rows.append(("    chosen per fold", ", ".join(f"{f['held_out']}: {f['chosen']}" for f in cv["folds"])))
    return rows


def _triple(r: dict[str, float]) -> str:
    return "/".join(f"{r[f'recall@{k}']:.3f}" for k in (5, 10, 20)) if r else "-"


def channel_rows(channels: dict[str, Any] | None) -> list[tuple[str, str]]:
    """One row per channel, on the route it acts on: with or without it, categories 1-4 and
    multi-hop, and the change in recall@10 against that route with every default channel."""
    if not channels:
        return []
    rows = [
        (
            f"  channels ({route} route)",
            f"all defaults: cat 1-4 {_triple(r['cat1-4'])}   multi-hop {_triple(r['multi-hop'])}",
        )
        for route, r in channels["hybrid"].items()
    ]
    for name, r in channels["rows"].items():
        if "skipped" in r:
            rows.append((f"    {name} ({r['route']})", f"not measured: {r['skipped']}"))
            continue
        base = channels["hybrid"][r["route"]]
        delta = r["cat1-4"]["recall@10"] - base["cat1-4"]["recall@10"]
        delta_mh = r["multi-hop"]["recall@10"] - base["multi-hop"]["recall@10"] if r["multi-hop"] else 0.0
        temporal = ""
        if r.get("temporal") and base.get("temporal"):
            delta_t = r["temporal"]["recall@10"] - base["temporal"]["recall@10"]
            temporal = f"   temporal {_triple(r['temporal'])} (Δ@10 {delta_t:+.3f})"
        rows.append(
            (
                f"    {r['change']} {name} ({r['route']})",
                f"cat 1-4 {_triple(r['cat1-4'])} (Δ@10 {delta:+.3f})   "
                f"multi-hop {_triple(r['multi-hop'])} (Δ@10 {delta_mh:+.3f}){temporal}",
            )
        )
    return rows
