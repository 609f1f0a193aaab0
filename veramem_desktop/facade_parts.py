"""What the ``Memory`` facade provides to the mixins it is built from (typing only).

``OutcomeMixin``, ``OrganiseMixin`` and ``SyncMixin`` are mixed into ``Memory``; this base
states, for the type checker, the parts of ``Memory`` they use. At run time it is empty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from veramem_desktop.core.llm import LLM
    from veramem_desktop.core.protocols import Embedder
    from veramem_desktop.core.recall import SearchEngine
    from veramem_desktop.core.storage.store import Store

    from .config import Config


class FacadeParts:
    if TYPE_CHECKING:
        config: Config

        @property
        def store(self) -> Store: ...

        @property
        def engine(self) -> SearchEngine: ...

        @property
        def embedder(self) -> Embedder: ...

        @property
        def llm(self) -> LLM: ...

        @property
        def device_id(self) -> str: ...
