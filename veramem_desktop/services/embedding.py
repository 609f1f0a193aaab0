"""Which embedder a store gets: the configured model, computing as the store's vectors were made.

The packaged model computes in int8 by default (about twice the texts per CPU second); its
vectors differ slightly from float32 compute's, so each has its own model id, and search only
compares vectors of one id. A store whose vectors were made with float32 compute (every store
made before int8 compute) therefore keeps float32 compute unless ``embedder.compute`` says
otherwise; a new store, or one with no vectors yet, computes in int8. A custom model
(``embedder.model_path``) computes in float32 unless ``embedder.compute`` is ``int8``.

``veramem reindex`` (:func:`reembed_store`) moves a store to another compute or model: every
vector made again, then the old ones dropped (core/lifecycle/reembed.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from veramem_desktop.config import EmbedderSettings
from veramem_desktop.core.lifecycle import reembed
from veramem_desktop.core.lifecycle.reembed import ReembedReport
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage.store import Store


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


def reembed_store(
    store: Store,
    cfg: EmbedderSettings,
    compute: str | None,
    adopt: Callable[[Embedder], None],
    progress: Callable[[str, int], None] | None = None,
) -> ReembedReport:
    """Re-embed the store with the configured model computing as ``compute`` (default: ``cfg.compute``,
    else int8), drop the other vectors, and hand the new embedder to ``adopt`` (the facade's caches)."""
    target = replace(cfg, compute=compute or cfg.compute or "int8")
    embedder = build_embedder(target, lambda: None)
    report = reembed.reembed(store, embedder, progress)
    adopt(embedder)
    return report
