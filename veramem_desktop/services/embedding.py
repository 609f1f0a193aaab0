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
from typing import TYPE_CHECKING, NamedTuple

from veramem_desktop.config import EmbedderSettings
from veramem_desktop.core.protocols import Embedder

if TYPE_CHECKING:  # kept out of the import of this module, which the head start's model thread makes
    from veramem_desktop.core.lifecycle.reembed import ReembedReport
    from veramem_desktop.core.storage.store import Store

    from .head_start import HeadStart


class EmbedderArgs(NamedTuple):
    """What an embedder is made with: the model file (None: the packaged one), the tokenizer file, the
    sha256 the model must have, and the compute."""

    model_path: str | None
    tokenizer_path: str | None
    expected_sha256: str | None
    compute: str | None


def embedder_args(cfg: EmbedderSettings, stored_model: Callable[[], str | None]) -> EmbedderArgs:
    """The arguments of the embedder ``cfg`` describes; ``stored_model`` gives the model id of the store's
    vectors (asked only when ``cfg.compute`` is empty)."""
    from veramem_desktop.models.embedder import FLOAT32_MODEL_ID

    if cfg.model_path:  # a custom model computes in float32 unless int8 is asked for
        return EmbedderArgs(
            cfg.model_path, cfg.tokenizer_path or None, cfg.sha256 or None, cfg.compute or None
        )
    compute = cfg.compute or ("float32" if stored_model() == FLOAT32_MODEL_ID else "int8")
    return EmbedderArgs(None, None, None, compute)


def make_embedder(args: EmbedderArgs) -> Embedder:
    """A new (not yet loaded) embedder made with ``args``."""
    from veramem_desktop.models.embedder import OnnxEmbedder

    if args.model_path is None:
        return OnnxEmbedder(compute=args.compute)
    return OnnxEmbedder(
        args.model_path, args.tokenizer_path, expected_sha256=args.expected_sha256, compute=args.compute
    )


def build_embedder(
    cfg: EmbedderSettings, stored_model: Callable[[], str | None], head_start: HeadStart | None = None
) -> Embedder:
    """The embedder ``cfg`` describes; ``stored_model`` gives the model id of the store's vectors
    (asked only when ``cfg.compute`` is empty). The one ``head_start`` began loading is given instead
    when it was made with the same arguments (services/head_start.py)."""
    args = embedder_args(cfg, stored_model)
    early = head_start.embedder.take(args) if head_start is not None and head_start.embedder else None
    return early if early is not None else make_embedder(args)


def reembed_store(
    store: Store,
    cfg: EmbedderSettings,
    compute: str | None,
    adopt: Callable[[Embedder], None],
    progress: Callable[[str, int], None] | None = None,
) -> ReembedReport:
    """Re-embed the store with the configured model computing as ``compute`` (default: ``cfg.compute``,
    else int8), drop the other vectors, and hand the new embedder to ``adopt`` (the facade's caches)."""
    from veramem_desktop.core.lifecycle import reembed

    target = replace(cfg, compute=compute or cfg.compute or "int8")
    embedder = build_embedder(target, lambda: None)
    report = reembed.reembed(store, embedder, progress)
    adopt(embedder)
    return report
