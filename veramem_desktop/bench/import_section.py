"""Import throughput: the LoCoMo dev conversations as a ChatGPT data export, through
``Memory.import_history`` (the bulk write path), with the rule-based backend and the real
embedding model.

The export is written on the fly into the bench's temporary folder (removed afterwards):
each LoCoMo session becomes one ChatGPT conversation whose ``mapping`` is a chain from a
root node, the first speaker as the user and the second as the assistant, times from the
session's date one minute apart. The LoCoMo data (CC BY-NC 4.0) is read where it lies and
never copied into the repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ..config import Config
from ..memory import Memory
from ..services.importer import BATCH_SIZE
from .locomo import load, turns
from .runner import BENCH_PASSPHRASE, BenchContext, Section, peak_rss_mb


def locomo_as_chatgpt(samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One ChatGPT-format conversation per LoCoMo session."""
    from veramem_desktop.core.text.time_values import parse_time

    out: list[dict[str, Any]] = []
    for sample in samples:
        speakers = (sample["conversation"].get("speaker_a"), sample["conversation"].get("speaker_b"))
        by_session: dict[int, list[Any]] = {}
        for t in turns(sample):
            by_session.setdefault(t.session, []).append(t)
        for number, session in sorted(by_session.items()):
            start = parse_time(session[0].when).timestamp() if session[0].when else 1_700_000_000.0
            conv_id = f"{sample['sample_id']}-s{number}"
            mapping: dict[str, Any] = {
                "root": {"id": "root", "message": None, "parent": None, "children": []}
            }
            parent = "root"
            for i, t in enumerate(session):
                node = f"{conv_id}-{t.dia_id}"
                role = "user" if t.speaker == speakers[0] else "assistant"
                mapping[node] = {
                    "id": node,
                    "parent": parent,
                    "children": [],
                    "message": {
                        "id": node,
                        "author": {"role": role, "name": None},
                        "create_time": start + 60 * i,
                        "content": {"content_type": "text", "parts": [t.text]},
                    },
                }
                mapping[parent]["children"].append(node)
                parent = node
            out.append(
                {
                    "id": conv_id,
                    "conversation_id": conv_id,
                    "title": f"{sample['sample_id']} session {number}",
                    "create_time": start,
                    "mapping": mapping,
                    "current_node": parent,
                }
            )
    return out


def run_import_section(ctx: BenchContext) -> Section:
    """Runs the import in a child process, so ``rss_mb`` is the import's own peak memory."""
    path = (
        ctx.options.locomo
        or Path(__file__).resolve().parents[3] / "shared" / "bench" / "locomo" / "locomo_dev.json"
    )
    if not path.exists():
        return Section(
            {"import_per_s": None, "import": {"skipped": f"no LoCoMo file at {path}"}},
            [("import throughput", f"skipped: no LoCoMo file at {path}")],
        )
    export = ctx.home / "chatgpt-export" / "conversations.json"
    export.parent.mkdir(parents=True, exist_ok=True)
    export.write_text(json.dumps(locomo_as_chatgpt(load(path))), encoding="utf-8")
    config = Config()
    config.llm.backend = "rule-based"
    ctx._count += 1
    home = ctx.home / f"{ctx._count:02d}-import"
    mem, _ = Memory.create(home, passphrase=BENCH_PASSPHRASE, use_keyring=False, config=config)
    mem.close()
    ctx.progress(
        "import: the LoCoMo dev conversations as a ChatGPT export, through Memory.import_history "
        "(in a child process)"
    )
    env = {**os.environ, "VERAMEM_PASSPHRASE": BENCH_PASSPHRASE, "VERAMEM_NO_KEYRING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "veramem_desktop.bench.import_section", str(home), str(export)],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the import bench failed: {proc.stderr.strip()[-500:]}")
    result = json.loads(proc.stdout)
    rate = result["import_per_s"]
    return Section(
        {"import_per_s": rate, "import": result},
        [
            (
                "import throughput",
                f"{rate:.1f} messages/s through Memory.import_history ({result['messages']} LoCoMo messages "
                f"in {result['conversations']} ChatGPT-format conversations, batches of {result['batch']}, "
                f"rule-based, real embedding model; {result['memories']['added']} memories derived; "
                f"re-import stored {result['second_run_stored']}; peak RSS {result['rss_mb']:.0f} MB)",
            ),
            (
                "  where the time goes",
                f"embedding {result['texts_embedded']:,} texts ({result['embedding_texts_per_s']:.0f} texts/s) "
                f"ran during {result['embedding_s']:.1f} of {result['seconds']:.1f} s; the rest, with no "
                f"embedding running, at {result['per_s_outside_embedding']:.0f} messages/s",
            ),
            (
                "  CPU time",
                f"{result['cpu_s']:.1f} CPU s in all, {result['embedding_cpu_s']:.1f} of them embedding "
                f"({result['embedding_texts_per_cpu_s']:.0f} texts per CPU second; "
                f"{result['messages']:,} message lines and {result['memory_texts_embedded']:,} memory texts)",
            ),
        ],
    )


class TimedEmbedder:
    """The real embedder, with the wall time during which at least one embedding runs counted
    (calls that overlap, from several threads, count once, so it never exceeds the import's own
    time), the process's CPU time over those same spans (``cpu_seconds``: on a shared machine the
    wall time depends on what else runs, the CPU time much less) and the texts embedded (the
    ``Embedder`` protocol)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.texts = 0
        self._running = 0
        self._since = 0.0
        self._cpu_since = 0.0
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed(self, texts: Any) -> Any:
        with self._lock:
            if self._running == 0:
                self._since = time.perf_counter()
                self._cpu_since = time.process_time()
            self._running += 1
            self.texts += len(texts)
        try:
            return self.inner.embed(texts)
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0:
                    self.seconds += time.perf_counter() - self._since
                    self.cpu_seconds += time.process_time() - self._cpu_since


def _child(home: str, export: str) -> dict[str, Any]:
    from .. import limit_blas_threads
    from ..models.embedder import default_embedder

    limit_blas_threads()
    embedder = TimedEmbedder(default_embedder())
    mem = Memory(home, embedder=embedder)
    try:
        embedder.embed(["warming up the model"])
        embedder.seconds, embedder.cpu_seconds, embedder.texts = 0.0, 0.0, 0
        t0, cpu0 = time.perf_counter(), time.process_time()
        report = mem.import_history(export, batch_size=BATCH_SIZE)
        seconds, cpu_s = time.perf_counter() - t0, time.process_time() - cpu0
        embed_s, embed_cpu_s, texts = embedder.seconds, embedder.cpu_seconds, embedder.texts
        again = mem.import_history(export, batch_size=BATCH_SIZE)
        return {
            "import_per_s": round(report.stored / seconds, 1),
            "messages": report.stored,
            "conversations": report.sessions,
            "seconds": round(seconds, 2),
            "batch": BATCH_SIZE,
            "embedding_s": round(embed_s, 2),
            "texts_embedded": texts,
            "embedding_texts_per_s": round(texts / max(embed_s, 1e-9), 1),
            # each message's line is embedded once; every other text is a derived memory's
            "memory_texts_embedded": texts - report.stored,
            "cpu_s": round(cpu_s, 2),
            "embedding_cpu_s": round(embed_cpu_s, 2),
            "embedding_texts_per_cpu_s": round(texts / max(embed_cpu_s, 1e-9), 1),
            "per_s_outside_embedding": round(report.stored / max(seconds - embed_s, 1e-9), 1),
            "memories": report.memories,
            "second_run_stored": again.stored,
            "llm": mem.llm_name,
            "rss_mb": peak_rss_mb(),
        }
    finally:
        mem.close()


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1], sys.argv[2])))
