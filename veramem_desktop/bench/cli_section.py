"""The ``cli`` bench section: what one ``veramem search`` costs as a fresh process.

A store of 1,000 memories (real sentences, embedded for real) is searched by the real
program in a subprocess, several times; each run's wall time and its own peak resident
memory (``wait4``'s rusage of that child) are recorded. Two baselines run the same way in
the same run, so the figures can be read as ratios on a shared, noisy machine: the bare
interpreter starting (``python -c pass``) and ``veramem --help``. The runs see compiled bytecode, as
an installed program does: one unmeasured search runs first, with ``PYTHONDONTWRITEBYTECODE``
unset for the program.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from .latency import USER, fill_store
from .runner import BENCH_PASSPHRASE, BenchContext, Section
from .sentences import fact_sentences, questions

MEMORIES = 1_000
RUNS = 5


def _program() -> list[str]:
    """How to start ``veramem`` as a user would (the console script's own entry point)."""
    if getattr(sys, "frozen", False):
        return [sys.executable]  # a packaged build: the executable is the program
    return [sys.executable, "-c", "import sys; from veramem_desktop.cli import main; sys.exit(main())"]


#: Runs the program and reports (wall seconds, its peak RSS in KiB or bytes, exit code). It runs
#: in a small process of its own because on Linux a child's peak RSS starts from its parent's
#: size at fork time, which here is the bench with the model loaded.
_MEASURE = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
code = subprocess.call(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
wall = time.perf_counter() - started
print(json.dumps([wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code]))
"""


def timed_run(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, the program's peak RSS in MB, exit code) of one process run to its end."""
    if getattr(sys, "frozen", False):  # no interpreter to run the measuring process with
        started = time.perf_counter()
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        return time.perf_counter() - started, usage.ru_maxrss / 1024, proc.returncode
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv], capture_output=True, text=True, env=env, check=True
    ).stdout
    wall, peak, code = json.loads(out)
    mb = peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
    return float(wall), float(mb), int(code)


def run_cli_section(ctx: BenchContext) -> Section:
    mem = ctx.new_memory("cli")
    home = mem.paths.data_dir.parent
    try:
        pool = fact_sentences(MEMORIES)
        ctx.progress(f"cli: storing {len(pool):,} memories embedded for real")
        fill_store(mem, 0, len(pool), pool, ctx.embedder.embed(pool), np.random.default_rng(5))
    finally:
        mem.close()
    env = {
        **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        "VERAMEM_HOME": str(home),
        "VERAMEM_PASSPHRASE": BENCH_PASSPHRASE,
        "VERAMEM_NO_KEYRING": "1",
    }
    asked = questions(RUNS)
    # One unmeasured search first: as after a user's first run (or pip's install), the program's
    # bytecode is then compiled, so no measured run spends its time compiling changed modules.
    timed_run([*_program(), "search", asked[0], "--user", USER], env)
    ctx.progress(f"cli: {RUNS} cold `veramem search` runs, with the interpreter and `--help` as baselines")
    interpreter = [timed_run([sys.executable, "-c", "pass"], env) for _ in range(RUNS)]
    helps = [timed_run([*_program(), "--help"], env) for _ in range(RUNS)]
    searches = [timed_run([*_program(), "search", q, "--user", USER], env) for q in asked]
    failed = sum(1 for _, _, code in searches if code != 0)
    cold = statistics.median(w for w, _, _ in searches)
    rss = max(p for _, p, _ in searches)
    base = statistics.median(w for w, _, _ in interpreter)
    help_s = statistics.median(w for w, _, _ in helps)
    data = {
        "cli_search_cold_s": round(cold, 3),
        "cli_search": {
            "memories": MEMORIES,
            "runs": RUNS,
            "failed": failed,
            "p50_s": round(cold, 3),
            "max_s": round(max(w for w, _, _ in searches), 3),
            "rss_mb": round(rss, 1),
            "python_start_s": round(base, 3),
            "help_s": round(help_s, 3),
            "help_rss_mb": round(max(p for _, p, _ in helps), 1),
            "ratio_to_python_start": round(cold / base, 1) if base else None,
        },
    }
    rows = [
        (
            "CLI search, cold process",
            f"{cold:.2f} s p50 ({RUNS} runs, {MEMORIES:,} memories; peak RSS "
            f"{rss:.0f} MB; `--help` {help_s:.2f} s; bare python {base:.2f} s"
            f"{'; FAILED ' + str(failed) if failed else ''})",
        )
    ]
    return Section(data, rows)
