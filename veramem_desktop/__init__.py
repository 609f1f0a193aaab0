"""VeraMem Desktop: a private, verifiable long-term memory for one person's AI agents.

    from veramem_desktop import Memory
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["AddResult", "Memory", "__version__", "limit_blas_threads"]

if TYPE_CHECKING:
    from .memory import AddResult, Memory


def __getattr__(name: str) -> Any:
    # Loaded on first use so `veramem --help` stays instant.
    if name in ("Memory", "AddResult"):
        from . import memory

        return getattr(memory, name)
    raise AttributeError(name)


def limit_blas_threads() -> None:
    """Run numpy's BLAS on one thread in this process (the ``veramem`` program does this at start).

    A search's matrix products are bound by memory bandwidth, so a second BLAS thread adds
    little to them, while OpenBLAS's idle threads keep spinning after each call and take the
    core that the next query's embedding and full-text search run on (``veramem bench`` at
    100,000 memories on two cores: search p50 15.8 → 13.6 ms, p95 22 → 18.5 ms). A program
    using the SDK may call it too; it changes the setting for the whole process.
    """
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")
    except Exception:  # a BLAS threadpoolctl cannot drive keeps its default; search only gets slower
        return
