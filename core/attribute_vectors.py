"""The inventory's descriptions as vectors, embedded once per embedder.

Both readings by meaning use them: the write path keys a statement no frame named
(core/write/by_meaning.py), and recall reads which attribute a question asks when its words name none
(core/recall/meaning.py). core/attributes.py never loads a model; the caller's embedder does it here.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from veramem_desktop.core import attributes
from veramem_desktop.core.protocols import Embedder, Vectors

#: the descriptions' vectors by the embedder that made them, kept while that embedder lives
_EMBEDDED: WeakKeyDictionary[Embedder, Vectors] = WeakKeyDictionary()


def descriptions(embedder: Embedder) -> Vectors:
    """The inventory's descriptions embedded by ``embedder``, once per embedder."""
    try:
        found = _EMBEDDED.get(embedder)
    except TypeError:  # an embedder that cannot be referred to weakly: embedded each time
        return embedder.embed(list(attributes.descriptions()))
    if found is None:
        found = _EMBEDDED[embedder] = embedder.embed(list(attributes.descriptions()))
    return found
