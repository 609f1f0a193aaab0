"""Bulk embedding: texts are tokenised once, sorted by token length and batched by padded size,
and the vectors do not depend on how they were batched."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import onnxruntime
import pytest
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.models.embedder import OnnxEmbedder, length_batches

# Mixed lengths, as an imported chat history has them: one word up to past the 256-token cut.
_WORDS = [
    "the",
    "meeting",
    "moved",
    "to",
    "Thursday",
    "afternoon",
    "because",
    "Caroline",
    "flew",
    "back",
    "from",
    "Lisbon",
    "late",
]


def _texts(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    texts = [
        " ".join(rng.choice(_WORDS) for _ in range(rng.choice([1, 3, 8, 20, 60, 140, 300])))
        for _ in range(count)
    ]
    return [*texts, "", "ok", "Ünïcödé 🎉 and Cyrillic а"]


@pytest.fixture(scope="module")
def small_batches() -> OnnxEmbedder:
    """Smaller batches than the default (8 texts within 512 tokens): the texts above fall into
    many batches of different widths."""
    model = OnnxEmbedder(batch_size=3, batch_tokens=256)
    model.load()
    return model


def test_bucketed_batches_give_the_vectors_of_one_text_at_a_time_within_1e_6(
    small_batches: OnnxEmbedder,
) -> None:
    texts = _texts(60)
    together = small_batches.embed(texts)
    alone = np.vstack([small_batches.embed([text]) for text in texts])
    np.testing.assert_allclose(together, alone, rtol=0, atol=1e-6)


def test_the_default_batching_gives_the_same_vectors_as_small_batches(small_batches: OnnxEmbedder) -> None:
    texts = _texts(60, seed=8)
    np.testing.assert_allclose(OnnxEmbedder().embed(texts), small_batches.embed(texts), rtol=0, atol=1e-6)


def test_batches_hold_each_text_once_sorted_by_length_within_their_budget() -> None:
    rng = random.Random(3)
    lengths = [rng.randint(1, 256) for _ in range(1_000)]
    batches = length_batches(lengths, 64, 2_048)
    assert sorted(i for batch in batches for i in batch) == list(range(1_000))
    widths = [[lengths[i] for i in batch] for batch in batches]
    assert all(w == sorted(w) for w in widths)
    assert all(a[-1] <= b[0] for a, b in zip(widths, widths[1:], strict=False))  # shortest batches first
    assert all(len(batch) <= 64 for batch in batches)
    assert all(len(w) * w[-1] <= 2_048 for w in widths)  # padded size within the token budget
    # Short texts share large batches, long ones go in small ones.
    assert len(batches[0]) == 64
    assert all(len(w) <= 2_048 // 200 for w in widths if w[-1] >= 200)


def test_a_token_budget_below_one_full_length_text_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="batch_tokens"):
        OnnxEmbedder(max_length=256, batch_tokens=100)


def test_by_default_a_batch_holds_at_most_8_texts_within_512_padded_tokens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With int8 compute small batches embed the most texts per CPU second (their activations
    # stay in cache): 8 within 512 tokens gave 1.11-1.16 times the rate of 16 within 1024.
    shapes: list[tuple[int, int]] = []
    real = onnxruntime.InferenceSession

    class Recording:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._session = real(*args, **kwargs)

        def __getattr__(self, name: str) -> Any:
            return getattr(self._session, name)

        def run(self, outputs: Any, feeds: dict[str, np.ndarray], *args: Any) -> Any:
            shapes.append(feeds["input_ids"].shape)
            return self._session.run(outputs, feeds, *args)

    monkeypatch.setattr(onnxruntime, "InferenceSession", Recording)
    texts = _texts(40, seed=9)
    OnnxEmbedder().embed(texts)
    assert sum(rows for rows, _ in shapes) >= len(set(texts))  # every distinct text was run
    assert max(rows for rows, _ in shapes) == 8  # short texts fill batches of 8, no more
    assert all(rows * width <= 512 or rows == 1 for rows, width in shapes)
