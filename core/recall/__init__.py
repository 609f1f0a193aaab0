"""Recall: candidate channels → access (in their SQL) → hydrate → truth → priors and rank.

``SearchEngine`` (engine.py) runs the stages; ``SearchConfig`` and the named recipes (recipes.py)
say how; ``Hit`` and ``SearchResult`` (hits.py) are what comes back.
"""

from typing import TYPE_CHECKING, Any

from veramem_desktop.core.recall.hits import STALE, STATES, Hit, SearchResult
from veramem_desktop.core.recall.recipes import MEMORY_KINDS_BY_ROUTE, RECIPES, ROUTES, SearchConfig, recipe

if TYPE_CHECKING:
    from veramem_desktop.core.recall.engine import SearchEngine


def __getattr__(name: str) -> Any:
    """``SearchEngine`` is imported on first use, so reading the settings file (whose ``[search]`` table is a
    ``SearchConfig``) does not load the engine and numpy."""
    if name == "SearchEngine":
        from veramem_desktop.core.recall.engine import SearchEngine

        return SearchEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MEMORY_KINDS_BY_ROUTE",
    "RECIPES",
    "ROUTES",
    "STALE",
    "STATES",
    "Hit",
    "SearchConfig",
    "SearchEngine",
    "SearchResult",
    "recipe",
]
