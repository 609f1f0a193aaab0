"""What lies beneath the ``Memory`` facade, reached on purpose by tests that check it.

The facade keeps its store, search engine, embedding model and model backend to itself
(surfaces reach them only through its calls); a test that must touch one (to count rows,
plant damage, rank without a trace, choose the backend while a fake server is up) says so
by calling these.
"""

from __future__ import annotations

from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import SearchEngine
from veramem_desktop.core.storage.store import Store

from veramem_desktop.memory import Memory
from veramem_desktop.services.organiser import Organiser


def store_of(mem: Memory) -> Store:
    """The facade's store, opened (its key loaded) if it was not yet."""
    return mem._store_handle


def engine_of(mem: Memory) -> SearchEngine:
    """The facade's own search engine (the one ``search`` and ``answer`` use), built if it was not yet."""
    return mem._engine_handle


def embedder_of(mem: Memory) -> Embedder:
    """The facade's embedding model, built from its settings if it was not yet."""
    return mem._embedder_handle


def llm_of(mem: Memory) -> LLM:
    """The facade's LLM backend, built from its settings if it was not yet."""
    return mem._backend


def organiser_of(mem: Memory) -> Organiser:
    """The facade's organiser (links, budgets, the background linker and vector pass), the store opened if it
    was not yet (the organiser is public now: ``mem.organiser``)."""
    return mem.organiser
