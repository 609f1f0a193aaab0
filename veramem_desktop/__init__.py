"""VeraMem Desktop: a private, verifiable long-term memory for one person's AI agents.

from veramem_desktop import Memory
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = [
    "AddResult",
    "EvidenceView",
    "ImportReport",
    "Memory",
    "MemoryDetail",
    "__version__",
    "limit_blas_threads",
]

#: the SDK's result types, defined in the engine, by the module that holds each
RESULT_TYPES = {
    "AddResult": "veramem_desktop.core.write.results",
    "EvidenceView": "veramem_desktop.core.curation.detail",
    "ImportReport": "veramem_desktop.core.transfer.import_report",
    "MemoryDetail": "veramem_desktop.core.curation.detail",
}

if TYPE_CHECKING:
    from veramem_desktop.core.curation.detail import EvidenceView, MemoryDetail
    from veramem_desktop.core.transfer.import_report import ImportReport
    from veramem_desktop.core.write.results import AddResult

    from .memory import Memory


def __getattr__(name: str) -> Any:
    # Loaded on first use so `veramem --help` stays instant.
    if name == "Memory":
        from .memory import Memory

        return Memory
    if name in RESULT_TYPES:
        from importlib import import_module

        return getattr(import_module(RESULT_TYPES[name]), name)
    raise AttributeError(name)


def limit_blas_threads() -> None:
    """Run numpy's BLAS on one thread in this process (the ``veramem`` program does this at start).

    A search's matrix products are bound by memory bandwidth, so a second BLAS thread adds
    little to them, while OpenBLAS's idle threads keep spinning after each call and take the
    core that the next query's embedding and full-text search run on. Before numpy is loaded
    this sets ``OPENBLAS_NUM_THREADS`` (unless already set), which OpenBLAS reads when it
    loads; after, it asks the loaded library through threadpoolctl. A program using the SDK
    may call it too; it changes the setting for the whole process (and its children).
    """
    import sys

    if "numpy" not in sys.modules:
        import os

        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        return
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")
    except Exception:  # a BLAS threadpoolctl cannot drive keeps its default; search only gets slower
        return
