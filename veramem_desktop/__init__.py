"""VeraMem Desktop: a private, verifiable long-term memory for one person's AI agents.

    from veramem_desktop import Memory
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["AddResult", "Memory", "__version__"]

if TYPE_CHECKING:
    from .memory import AddResult, Memory


def __getattr__(name: str) -> Any:
    # Loaded on first use so `veramem --help` stays instant.
    if name in ("Memory", "AddResult"):
        from . import memory

        return getattr(memory, name)
    raise AttributeError(name)
