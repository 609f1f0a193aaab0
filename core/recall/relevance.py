"""Whether anything a search found is close to its question: a relevance floor on the cosine similarity.

Fused ranks say which hits are best among those found, never whether any of them is about the question:
a search of a topic the store has never heard of still returns a first hit with a confident fused score.
So each hit also gets its closeness: the cosine similarity between the question's vector and the hit's
own vector (a memory's, or a message's line or its line in context, whichever is closer). A hit below the
floor is labelled not close; when no hit of the caller's own reaches it, the result says nothing is close.
The floor labels and never drops or reorders: every hit stays in the result with its flag.

The floor belongs to an embedding model (similarities of another model are on another scale), so it is
kept per model name; a model with no calibrated floor labels nothing. The default model's floor was
calibrated on the LoCoMo dev conversations (3 conversations, their 385 questions of categories 1-4): each
question asked of its own conversation (answerable) and of each other conversation (770 questions whose
answer is not in the store searched; a hard case: the same genre of chat between two friends). The best
closeness separates them well (AUC 0.989). No answerable question falls below 0.35; the floor is set
lower, at 0.30, because a person's short first-person questions ("what car do I drive") sit lower than
LoCoMo's questions, which name the speakers the turns are prefixed with. At 0.30: answerable questions
said to have nothing close 0 of 385 (0.0%), other conversations' questions 11.4%; at 0.35, 0.0% and 25%;
at 0.43, 0.8% and 64%. A topic absent from a store (a chemistry question of a store of personal notes)
scores near 0.05.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.recall.hits import Hit
from veramem_desktop.core.storage.vectors import VectorIndex

#: model name -> the cosine below which a hit is not close to the question
FLOORS: dict[str, float] = {
    "all-MiniLM-L6-v2-onnx-int8-matmul": 0.30,  # the default model, int8 compute
    "all-MiniLM-L6-v2-onnx-int8": 0.30,  # the same weights, float32 compute
}

#: which cached vectors stand for a hit of each kind: its own, and its line in context
_VECTORS = {"episode": ("episode", "episode_ctx")}
_MEMORY_VECTORS = ("memory", "memory_ctx")


def floor_for(model: str) -> float | None:
    """The calibrated floor of ``model``, or None when it has none (nothing is labelled then)."""
    return FLOORS.get(model)


def closeness(question: npt.NDArray[np.float32], hit: Hit, vectors: VectorIndex) -> float | None:
    """The best cosine between the question's vector and the hit's vectors (all L2-normalised), or None
    when none of them is cached (a hit brought in without a vector)."""
    best: float | None = None
    for kind in _VECTORS.get(hit.kind, _MEMORY_VECTORS):
        vector = vectors[kind].vector(hit.id)
        if vector is not None:
            value = float(np.dot(question, vector))
            best = value if best is None else max(best, value)
    return best


def label(
    hits: Sequence[Hit], question: npt.NDArray[np.float32], vectors: VectorIndex, floor: float | None
) -> bool:
    """Set each hit's ``closeness`` and ``close``; True when nothing is close (no hit, or none reaches the
    floor). Without a floor every hit counts as close: nothing is claimed that was not measured."""
    for hit in hits:
        hit.closeness = closeness(question, hit, vectors)
        hit.close = floor is None or hit.closeness is None or hit.closeness >= floor
    return not any(h.close for h in hits)
