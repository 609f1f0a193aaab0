"""A fast, deterministic stand-in for the ONNX embedder, for unit tests of logic.

Each text becomes a bag of hashed features (its words and its character trigrams),
signed by the hash so unrelated features cancel out on average, then L2-normalised.
Texts that share most words and spellings get a high cosine; texts with nothing in
common get a cosine near zero. It knows nothing of meaning: "car" and "automobile"
are unrelated to it. The same text always gives the same vector, in any process.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.protocols import Vectors

_WORD = re.compile(r"\w+")
_WORD_WEIGHT = 2.0  # a shared whole word counts for more than a shared trigram
_EMPTY_FEATURE = "\x00empty"  # empty and blank texts still get one unit vector


class HashEmbedder:
    """Hashed word and character-trigram features, L2-normalised (the ``Embedder`` protocol)."""

    def __init__(self, dim: int = 384) -> None:
        if dim < 2:
            raise ValueError(f"dim must be at least 2, got {dim}")
        self._dim = dim
        self.calls = 0  # embed() calls, for tests that check caching
        self.texts_embedded = 0

    @property
    def name(self) -> str:
        return f"hash-embedder-v1-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        if isinstance(texts, str):
            raise InvalidInputError("embed() takes a list of texts, not a single string: wrap it in a list.")
        items = list(texts)
        self.calls += 1
        self.texts_embedded += len(items)
        out = np.zeros((len(items), self._dim), dtype=np.float32)
        for row, text in enumerate(items):
            for feature, weight in _features(text):
                index, sign = self._slot(feature)
                out[row, index] += sign * weight
            norm = float(np.linalg.norm(out[row]))
            if norm == 0.0:  # every feature cancelled out: fall back to the empty vector
                index, sign = self._slot(_EMPTY_FEATURE)
                out[row, index] = sign
                norm = 1.0
            out[row] /= norm
        return out

    def _slot(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode("utf-8", "surrogatepass"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return (value >> 1) % self._dim, (1.0 if value & 1 else -1.0)


def _features(text: str) -> list[tuple[str, float]]:
    """Words (weighted) and character trigrams of the case-folded, space-collapsed text."""
    words = _WORD.findall(text.casefold())
    if not words:
        return [(_EMPTY_FEATURE, 1.0)]
    features = [("w:" + word, _WORD_WEIGHT) for word in words]
    joined = f" {' '.join(words)} "
    features += [("c:" + joined[i : i + 3], 1.0) for i in range(len(joined) - 2)]
    return features
