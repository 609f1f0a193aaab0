"""A statement's attribute read from its meaning, when no frame of the inventory named it.

The rule-based extractor gives a statement of a name through a verb no frame has ("We've settled into
a cottage in Bath") a subject and a value but no attribute. The write path keys it to the attribute
whose description (core/attributes.py) the statement's own vector is nearest, only when it is at
least :data:`COSINE` close and :data:`MARGIN` closer than to the next attribute; else it stays
unkeyed. The bounds were set on a dev list of statements of attributes through unframed verbs and of
events (which are no attribute): at these bounds no event of the list is keyed. all-MiniLM's sentence
vectors tell the attributes apart only roughly, so most such statements stay unkeyed.
"""

from __future__ import annotations

from dataclasses import replace

from veramem_desktop.core import attributes
from veramem_desktop.core.attribute_vectors import descriptions
from veramem_desktop.core.llm import Candidate
from veramem_desktop.core.protocols import Embedder, Vectors

COSINE = 0.50
MARGIN = 0.05


def keyed(cand: Candidate, vec: Vectors, embedder: Embedder) -> Candidate:
    """``cand`` keyed by meaning when it has a subject and a value but no attribute; else as it is."""
    if cand.predicate or cand.ends or not (cand.subject and cand.value):
        return (
            cand  # an ending names no attribute of its own: the memory it ends has one (core/write/ends.py)
        )
    found = attributes.nearest(vec, descriptions(embedder), threshold=COSINE, margin=MARGIN)
    if found is None:
        return replace(cand, subject=None, value=None)
    return replace(cand, predicate=found[0].name)
