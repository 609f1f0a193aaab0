"""The import bench counts the wall time during which embedding runs, once however many threads
embed at the same moment, so "embedding ran during X of Y s" never exceeds the import's own time."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from support.fake_embedder import HashEmbedder

from veramem_desktop.bench.import_section import TimedEmbedder


class SlowEmbedder(HashEmbedder):
    def embed(self, texts: Sequence[str]) -> Any:
        time.sleep(0.3)
        return super().embed(texts)


def test_two_embeddings_at_once_count_their_overlap_once_and_all_their_texts() -> None:
    timed = TimedEmbedder(SlowEmbedder())
    start = threading.Barrier(2)

    def run(texts: list[str]) -> None:
        start.wait()
        timed.embed(texts)

    threads = [threading.Thread(target=run, args=(t,)) for t in (["a", "b"], ["c"])]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    assert timed.texts == 3
    assert 0.3 <= timed.seconds <= wall
    assert timed.seconds < 0.55  # not 0.6: the two 0.3 s calls overlapped


def test_embeddings_one_after_another_add_up() -> None:
    timed = TimedEmbedder(SlowEmbedder())
    timed.embed(["a"])
    timed.embed(["b", "c"])
    assert timed.texts == 3 and 0.6 <= timed.seconds < 0.9
