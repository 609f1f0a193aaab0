"""What the ``Memory`` facade hands out: its calls, not the parts beneath them."""

from __future__ import annotations

from pathlib import Path

from veramem_desktop.memory import Memory


def test_the_facade_does_not_hand_out_its_model_backend() -> None:
    # surfaces reach the model only through the facade's calls (add, answer, consolidate, share)
    assert not hasattr(Memory, "llm")
    assert isinstance(Memory.llm_name, property)


def test_the_facade_does_not_hand_out_its_store_engine_or_embedding_model(tmp_path: Path) -> None:
    # surfaces reach them through the facade's calls; a test that must, through tests/support/internals.py
    for name in ("store", "engine", "embedder"):
        assert not hasattr(Memory, name), name
        assert not hasattr(Memory(tmp_path), name), name
    assert isinstance(Memory.embedder_name, property)


def test_the_facade_is_built_from_services_not_mixins() -> None:
    assert Memory.__mro__ == (Memory, object)
