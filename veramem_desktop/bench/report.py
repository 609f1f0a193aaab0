"""docs/benchmarks.md, written from the JSON of `veramem bench` runs.

``docs/bench.json`` keeps, for every section, the rows its last run printed and when, where and
on which commit that run was made. A run of some sections replaces those sections only::

    veramem bench --only truth,locomo --save /tmp/run.json
    python -m veramem_desktop.bench.report merge /tmp/run.json   # updates docs/bench.json and the page

A change meant to keep behaviour is checked by comparing two runs on the same inputs::

    python -m veramem_desktop.bench.report compare before.json after.json   # exit 1 on any difference

which prints every measured figure that differs, leaving out what depends on the machine and the
moment (times, memory, the machine line, the printed table that repeats the figures with times).

The page is the method of each section (below, in :data:`METHODS`) and its figures and ablations
as the run printed them. A test renders the page from docs/bench.json and compares, so the page
never says what no run measured.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .runner import SECTIONS

DOCS = Path(__file__).resolve().parents[2] / "docs"
RESULTS = DOCS / "bench.json"
PAGE = DOCS / "benchmarks.md"

#: what each section measures and how; figures come from the runs, never from here
METHODS: dict[str, str] = {
    "latency": (
        "Search latency through `Memory.search` at each store size (`--sizes`), query embedding and the "
        "trace write included, over `--queries` questions; `status` time at each size. Stores past 2,000 "
        "memories hold 2,000 truly embedded memories and, past that, two real sentences joined with the "
        "normalised sum of their vectors (embedding 100k texts would take minutes). Past 50,000 vectors the "
        "scan ranks by a 128-direction projection and scores the best exactly; the row says how much of the "
        "exact top 100 it kept."
    ),
    "add": (
        "The whole write path with the rule-based backend (no model call): episodes, extraction, quote "
        "checks, reconciliation, versions, the ledger and the vectors; messages per second in two-message "
        "calls, and the latency of a one-message add."
    ),
    "import": (
        "The LoCoMo dev conversations written as a ChatGPT export in the bench's temporary folder and "
        "imported in a child process (rule-based, real embedding model, default batch): messages per "
        "second over the whole run, where the time goes, the model's cost per CPU second (the floor of "
        "this machine), a re-import that must store nothing, and the child's peak RSS."
    ),
    "forget": (
        "Forget of one memory (its episode, evidence, indexes, tombstones and a truncating WAL checkpoint) "
        "and of a user of 10,000 items, then a ledger verification."
    ),
    "sync": (
        "Two stores paired through one folder: events applied per second on the receiving device, the "
        "export time, SQL statements per event, and the delay from a file's arrival to a searchable memory."
    ),
    "tui": "The terminal app's start to first paint and to its first content (median of 5, app imported).",
    "cli": (
        "`veramem search` as a fresh process against 1,000 memories (compiled bytecode, as installed): "
        "wall time, peak RSS, `--help` and bare Python for scale."
    ),
    "locomo": (
        "Retrieval recall@5/10/20 on the LoCoMo dev conversations (evaluation only; the file stays outside "
        "the repository): a question is found when a retrieved turn is one of its evidence turns. Hybrid "
        "beside BM25-only and dense-only in the same run, the whole search pipeline, and one row per channel "
        "left out or added (ablations). `--cv` chooses the recipe leave-one-conversation-out."
    ),
    "truth": (
        "Generated subjects, each a user's value changed, corrected, retracted, rejected or claimed by "
        "another source: whether the current value ranks first, whether a stale value ranks above it, and "
        "whether a rejected value leaks, through search, answer, MCP and REST; ablations without the truth "
        "stage and without withholding rejected rows."
    ),
    "truth-natural": (
        "Chat histories written the way people talk to an assistant (2-6 sessions each), imported as a "
        "ChatGPT export with no model, then asked about the current value and about the value at a named "
        "time. Six sets, each with a third frozen as held out before any tuning on it: the first (90 "
        "histories) written by the team beside the code, then five blind ones (52 histories, 99 "
        "questions; 44 histories, 91 questions; 42 histories, 115 questions; 42 histories, 128 questions; "
        "42 histories, 130 questions) written later by ten authors who never read the code or the earlier "
        "sets. Both parts of each "
        "are reported (rows 'set'); the "
        "headline joins them. "
        "Before any tuning on it (commit 88109d8, same scoring) the blind set gave answer_current 0.429 "
        "dev / 0.304 held out, search_top1_current 0.571 / 0.696, stale_above_current 0.238 / 0.217, "
        "abstained 0.138 / 0.059, as_of_answer 0.348 / 0.455; blind-2, on the code it was written "
        "against (commit a948c49), answer_current 0.459 / 0.389, search_top1_current 0.541 / 0.611, "
        "stale_above_current 0.324 / 0.333, abstained 0.082 / 0.033, as_of_answer 0.542 / 0.417; "
        "blind-3, on the code it was written against (commit 61bdafa), answer_current 0.364 / 0.364, "
        "search_top1_current 0.545 / 0.455, stale_above_current 0.250 / 0.409, abstained 0.104 / 0.000, "
        "as_of_answer 0.424 / 0.563; blind-4, on the code it was written against (commit f91573a), "
        "answer_current 0.439 / 0.241, search_top1_current 0.491 / 0.448, stale_above_current 0.351 / "
        "0.379, abstained 0.034 / 0.000, as_of_answer 0.500 / 0.583; blind-5, on the code it was written "
        "against (commit 560c5c3), answer_current 0.377 / 0.429, search_top1_current 0.453 / 0.500, "
        "stale_above_current 0.340 / 0.321, abstained 0.035 / 0.045, as_of_answer 0.364 / 0.438. "
        "Variant rows (ablations): the write path reading and wording names typed in lower case as they "
        "are, not as the history spells them; search cutting at k without keeping the asked attribute's "
        "leading statement; questions whose words name no attribute left unread instead of read by "
        "their meaning; a question of now searching the statements alone, not the messages beside them. "
        "Variant rows marked 'run of 7b1bbe0' come from the last run with ablations; compare them with "
        "that run's headline: dev answer_current 0.801, search_top1_current 0.818, stale_above_current "
        "0.092, abstained 0.015, as_of_answer 0.695; held out 0.519, 0.662, 0.153, 0.030, 0.634."
    ),
    "extraction": (
        "Generated statements of every kind and role through the rule-based extractor: coverage (a memory "
        "is made) and wrong subject (the memory is about someone else)."
    ),
}


def _commit() -> str:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=DOCS.parent,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _machine(run: dict[str, Any]) -> str:
    m = run.get("machine") or {}
    if not m:
        return "unknown machine"
    return f"{m.get('cpu_model')}, {m.get('cpu_count')} cpu, Python {m.get('python')}"


def merge(results: dict[str, Any], run: dict[str, Any], *, date: str, commit: str) -> dict[str, Any]:
    """``results`` with the sections of ``run`` (one `veramem bench --json` object) replaced."""
    sections = dict(results.get("sections", {}))
    rss = run.get("rss_mb", {})
    for name, rows in run.get("table", {}).items():
        if name == "machine":
            continue
        sections[name] = {
            "rows": rows,
            "date": date,
            "commit": commit,
            "machine": _machine(run),
            "peak_rss_mb": rss.get(name),
        }
    return {"sections": dict(sorted(sections.items(), key=lambda kv: _order(kv[0])))}


def _order(name: str) -> int:
    names = list(SECTIONS)
    return names.index(name) if name in names else len(names)


def render(results: dict[str, Any]) -> str:
    """The benchmark page for ``results`` (the content of docs/bench.json)."""
    out = [
        "# Benchmarks",
        "",
        "Written from `docs/bench.json` by `python -m veramem_desktop.bench.report`; every figure is a row "
        "that `veramem bench` printed. Each section names the run it comes from. Runs use a throwaway "
        "encrypted store (real SQLCipher, the real ONNX embedder, no LLM). The machine is shared and noisy: "
        "compare figures measured in one run, as ratios.",
        "",
    ]
    for name, section in results.get("sections", {}).items():
        out += [f"## {name}", ""]
        if name in METHODS:
            out += [METHODS[name], ""]
        rss = section.get("peak_rss_mb")
        rss_text = f"; peak RSS {rss:.0f} MB" if isinstance(rss, int | float) else ""
        out += [
            f"Run: {section['date']}, commit {section['commit']}, {section['machine']}{rss_text}.",
            "",
            "| measure | figure |",
            "| --- | --- |",
        ]
        for label, value in section["rows"]:
            out.append(f"| {_cell(label)} | {_cell(value)} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _cell(text: str) -> str:
    # indentation marks an ablation or a detail under the row above; keep it visible in the table
    depth = (len(text) - len(text.lstrip(" "))) // 2
    return "↳ " * depth + " ".join(text.split()).replace("|", "\\|")


#: keys whose values depend on the machine or the moment, not on what the code computes
_MACHINE_KEYS = re.compile(r"(^|_)(ms|seconds|seconds_total|rss|rss_mb|peak_rss_mb|per_s|machine|table)($|_)")


def differences(before: Any, after: Any, path: str = "") -> list[str]:
    """Every figure that differs between two runs' JSON (``path: before -> after``), machine keys left out."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[str] = []
        for key in sorted(set(before) | set(after), key=str):
            if _MACHINE_KEYS.search(str(key)):
                continue
            if key not in before or key not in after:
                out.append(f"{path}.{key}: only in {'after' if key not in before else 'before'}")
            else:
                out += differences(before[key], after[key], f"{path}.{key}")
        return out
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            d
            for i, (b, a) in enumerate(zip(before, after, strict=True))
            for d in differences(b, a, f"{path}[{i}]")
        ]
    return [] if type(before) is type(after) and before == after else [f"{path}: {before!r} -> {after!r}"]


def _compare(before: Path, after: Path) -> int:
    found = differences(*(json.loads(p.read_text(encoding="utf-8")) for p in (before, after)))
    print("\n".join(found) if found else "no measured figure differs")
    return 1 if found else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["compare"] and len(argv) == 3:
        return _compare(Path(argv[1]), Path(argv[2]))
    results = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {"sections": {}}
    if argv[:1] == ["merge"] and len(argv) == 2:
        run = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
        results = merge(results, run, date=datetime.now(UTC).strftime("%Y-%m-%d"), commit=_commit())
        RESULTS.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    elif argv:
        print(
            "usage: python -m veramem_desktop.bench.report [merge RUN.json | compare BEFORE.json AFTER.json]",
            file=sys.stderr,
        )
        return 2
    PAGE.write_text(render(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
