"""``veramem bench``: measurements of this build on this machine (latency, throughput,
memory, retrieval recall on LoCoMo), each a named section."""

from __future__ import annotations

from .runner import SECTIONS, BenchOptions, run

__all__ = ["SECTIONS", "BenchOptions", "run"]
