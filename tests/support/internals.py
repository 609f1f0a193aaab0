"""What lies beneath the ``Memory`` facade, reached on purpose by tests that check it.

The facade keeps its model backend to itself (surfaces reach the model only through its
calls); a test that must touch it (to choose the backend while a fake server is up, say)
says so by calling these.
"""

from __future__ import annotations

from veramem_desktop.core.llm import LLM

from veramem_desktop.memory import Memory


def llm_of(mem: Memory) -> LLM:
    """The facade's LLM backend, built from its settings if it was not yet."""
    return mem._backend
