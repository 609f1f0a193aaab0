"""VeraMem Desktop: a private, verifiable long-term memory for one person's AI agents."""

__version__ = "0.1.0"

from .memory import AddResult, Memory

__all__ = ["AddResult", "Memory", "__version__"]
