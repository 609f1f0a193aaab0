"""Which embedder a store gets: the configured model, computing as the store's vectors were made.

The packaged model computes in int8 by default (about twice the texts per CPU second); its
vectors differ slightly from float32 compute's, so each has its own model id, and search only
compares vectors of one id. A store whose vectors were made with float32 compute (every store
made before int8 compute) therefore keeps float32 compute unless ``embedder.compute`` says
otherwise; a new store, or one with no vectors yet, computes in int8. A custom model
(``embedder.model_path``) computes in float32 unless ``embedder.compute`` is ``int8``.
"""

from __future__ import annotations

from collections.abc import Callable

from veramem_desktop.config import EmbedderSettings
from veramem_desktop.core.protocols import Embedder


def build_embedder(cfg: EmbedderSettings, stored_model: Callable[[], str | None]) -> Embedder:
    """The embedder ``cfg`` describes; ``stored_model`` gives the model id of the store's vectors
    (asked only when ``cfg.compute`` is empty)."""
    from veramem_desktop.models.embedder import FLOAT32_MODEL_ID, OnnxEmbedder

    if cfg.model_path:  # a custom model computes in float32 unless int8 is asked for
        return OnnxEmbedder(
            cfg.model_path,
            cfg.tokenizer_path or None,
            expected_sha256=cfg.sha256 or None,
            compute=cfg.compute or None,
        )
    compute = cfg.compute or ("float32" if stored_model() == FLOAT32_MODEL_ID else "int8")
    return OnnxEmbedder(compute=compute)
