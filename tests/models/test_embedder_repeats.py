"""A text given more than once in one call is run through the model once, and every row that
holds it gets exactly the vector the text gets when it is given once."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnxruntime
import pytest
from veramem_desktop.models.embedder import OnnxEmbedder

# As the bulk import sees them: lines, a derived memory, and the same texts again.
LINE = "user: I moved to Lisbon last spring and I love the light there."
MEMORY = "User moved to Lisbon last spring and loves the light there."
OTHER = "According to the assistant: Assistant adopted a cat named Miso."


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    model = OnnxEmbedder()
    model.load()
    return model


@pytest.fixture
def rows_run(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many texts each onnxruntime run was given, for runs made during the test."""
    seen: list[int] = []
    real_run = onnxruntime.InferenceSession.run

    def counting(self: Any, output_names: Any, feeds: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        seen.append(int(feeds["input_ids"].shape[0]))
        return real_run(self, output_names, feeds, *args, **kwargs)

    monkeypatch.setattr(onnxruntime.InferenceSession, "run", counting)
    return seen


def test_repeated_texts_get_bit_identical_vectors_to_the_texts_given_once(embedder: OnnxEmbedder) -> None:
    once = embedder.embed([LINE, MEMORY, OTHER])
    repeated = embedder.embed([MEMORY, LINE, MEMORY, OTHER, LINE, MEMORY])
    assert repeated.dtype == np.float32 and repeated.shape == (6, embedder.dim)
    assert repeated.flags["C_CONTIGUOUS"]
    for row, source in enumerate([1, 0, 1, 2, 0, 1]):
        assert np.array_equal(repeated[row], once[source]), row


def test_a_repeated_text_matches_the_text_embedded_alone(embedder: OnnxEmbedder) -> None:
    repeated = embedder.embed([OTHER, LINE, OTHER])
    alone = embedder.embed([OTHER])[0]
    np.testing.assert_allclose(repeated[0], alone, rtol=0, atol=1e-6)
    assert np.array_equal(repeated[0], repeated[2])


def test_each_distinct_text_is_run_through_the_model_once(
    embedder: OnnxEmbedder, rows_run: list[int]
) -> None:
    embedder.embed([LINE, MEMORY, LINE, OTHER, MEMORY, LINE])
    assert sum(rows_run) == 3


def test_texts_that_only_become_equal_once_prepared_share_one_run(
    embedder: OnnxEmbedder, rows_run: list[int]
) -> None:
    # A lone surrogate becomes U+FFFD before tokenising, so these two are the same text to the model.
    vectors = embedder.embed(["caf\ud800 menu", "caf\ufffd menu"])
    assert sum(rows_run) == 1
    assert np.array_equal(vectors[0], vectors[1])


def test_distinct_texts_are_each_run(embedder: OnnxEmbedder, rows_run: list[int]) -> None:
    vectors = embedder.embed([LINE, MEMORY, OTHER])
    assert sum(rows_run) == 3
    assert not np.array_equal(vectors[0], vectors[1])
