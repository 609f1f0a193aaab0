"""Recall: candidate channels → access (in their SQL) → hydrate → truth → priors and rank.

``SearchEngine`` (engine.py) runs the stages; ``SearchConfig`` and the named recipes (recipes.py)
say how; ``Hit`` and ``SearchResult`` (hits.py) are what comes back.
"""

from veramem_desktop.core.recall.engine import SearchEngine
from veramem_desktop.core.recall.hits import STALE, STATES, Hit, SearchResult
from veramem_desktop.core.recall.recipes import MEMORY_KINDS_BY_ROUTE, RECIPES, ROUTES, SearchConfig, recipe

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
