"""Search expressed as data: routes, and named channel weightings ("recipes") with the sizes and
prior strengths that go with them. The engine takes a :class:`SearchConfig`; nothing else in the
recall path carries a weight of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from veramem_desktop.core.vocabulary import Kind

MEMORY_KINDS_BY_ROUTE = {
    "facts": (Kind.FACT, Kind.PREFERENCE, Kind.EVENT, Kind.EXPERIENCE),
    "dual": (Kind.FACT, Kind.PREFERENCE, Kind.EVENT, Kind.EXPERIENCE, Kind.SUMMARY),
    "summaries": (Kind.SUMMARY, Kind.EXPERIENCE),
    "raw": (),
}
ROUTES = tuple(MEMORY_KINDS_BY_ROUTE)


#: the speaker-focus weights (see ``SearchConfig.focus_weights``): the LoCoMo folds chose them on every
#: held-out conversation (``veramem bench --cv``), so they are the default
FOCUS_WEIGHTS: dict[str, dict[str, float]] = {"gather": {"bm25": 2.0}, "suppose": {"dense": 3.0}}
#: the dense channels asked by the question's topic (see ``SearchConfig.topic_channels``): the LoCoMo folds
#: chose it on every held-out conversation (``veramem bench --cv``), so it is the default
TOPIC_CHANNELS: tuple[str, ...] = ("episode:dense", "episode:dense_ctx")


@dataclass
class SearchConfig:
    """Search expressed as data: channel weights, sizes and prior strengths.

    ``weights`` are per channel; ``episode_weights`` override them for the raw-episode
    channels, whose full-text rows hold the previous turn too (measured on LoCoMo's dev
    conversations: BM25 3, dense 1, context dense 1, speaker rule 1, neighbour decay 0.1,
    200 candidates per channel).

    The same type is the ``[search]`` table of the settings file (veramem_desktop/config.py):
    :attr:`SETTINGS` names the keys a person may set there, in the file's order, so each
    setting and its default are declared here once.
    """

    #: the keys of the settings file's ``[search]`` table: one hop along memory links (0 turns it
    #: off), the context-enriched memory channel's weight, and the hypothetical-answer channel's
    #: weight (needs a model; 0 keeps search free of model calls)
    SETTINGS: ClassVar[tuple[str, ...]] = (
        "k",
        "utility_lambda",
        "learned_share",
        "link_decay",
        "context_weight",
        "hyde_weight",
    )

    k: int = 10
    #: candidates per episode channel (LoCoMo recall still grew up to 200)
    candidates: int = 200
    #: candidates per memory channel (each is hydrated with its priors, so fewer keep search fast)
    memory_candidates: int = 100
    rrf_k: int = 60
    #: "memory_ctx" ranks memories by their context-enriched vectors (the memory between the turns
    #: around its source, written by the linker, core/lifecycle/linker.py); "hyde" ranks by a model's hypothetical
    #: answer. Both are off (0) by default: see ``veramem bench``'s channel rows for what they add.
    weights: dict[str, float] = field(
        default_factory=lambda: {
            "dense": 1.0,
            "bm25": 1.0,
            "entity": 0.5,
            "dense_ctx": 1.0,
            "memory_ctx": 0.0,
            "hyde": 0.0,
        }
    )
    episode_weights: dict[str, float] = field(
        default_factory=lambda: {"dense": 1.0, "bm25": 3.0, "entity": 0.25, "dense_ctx": 1.0}
    )
    #: when a query names exactly one known speaker, that speaker's turns count as ranked first
    #: in one more channel of this weight
    speaker_weight: float = 1.0
    #: a speaker named in the query is left out of the episodes' BM25 query: every turn carries its speaker's
    #: name, so the name matched them all and ranked the shortest first ("Take care, see you soon!"); the
    #: speaker rule ranks that speaker's turns already (measured on LoCoMo's dev conversations: recall@10
    #: +0.007 for categories 1-4, +0.05 for open-domain questions)
    bm25_without_speakers: bool = True
    #: among the best ``short_turn_top`` turns, those with fewer than ``short_turn_terms`` content words keep
    #: ``short_turn_factor`` of their score (1 turns it off)
    short_turn_factor: float = 1.0
    short_turn_terms: int = 5
    short_turn_top: int = 60
    #: when a question names a time ("in May 2023", "the week before Alice's birthday"), the candidate
    #: turns whose session or stated date fits it are ranked, in their fused order, in one more channel
    #: of this weight (0 turns it off; 2, as the LoCoMo folds chose); see ``veramem bench``'s channel rows
    temporal_weight: float = 2.0
    #: speaker focus (core/recall/focus.py): for a question about one named speaker that gathers instances
    #: of a kind ("gather") or supposes what they would do ("suppose"), that speaker's turns in the episode
    #: channels named here ("bm25", "dense") count as channels of these weights (empty: off)
    focus_weights: dict[str, dict[str, float]] = field(
        default_factory=lambda: {kind: dict(weights) for kind, weights in FOCUS_WEIGHTS.items()}
    )
    #: the second hop (core/recall/hops.py): the best ``hop_seeds`` candidates of the first hop give the
    #: words (``hop_terms``) and names (``hop_names``) to rank by again, and move the query vector towards
    #: theirs by ``hop_beta``; its rankings (``hop_parts``: "bm25", "entity", "dense", "model") count as one
    #: more channel of weight ``hop_weight`` (0 turns it off)
    hop_weight: float = 0.0
    hop_seeds: int = 5
    hop_terms: int = 8
    hop_names: int = 5
    hop_beta: float = 1.0
    hop_parts: tuple[str, ...] = ("bm25", "entity", "dense", "model")
    #: fact votes (core/recall/fact_votes.py): for a question of a kind in ``fact_kinds`` (core/recall/focus.py),
    #: the turns cited by the memories nearest the messages' query vector count as one more episode channel
    #: of this weight (0 turns it off)
    fact_weight: float = 1.0
    fact_kinds: tuple[str, ...] = ("gather",)
    #: tellings (core/recall/telling.py): among the best ``telling_top`` candidate turns, those in which the
    #: speaker tells of their own life (first person, a time or a past verb, not addressed to the listener)
    #: count, in their fused order, as one more episode channel of this weight (0 turns it off)
    telling_weight: float = 0.5
    telling_top: int = 30
    #: the dense channels ("episode:dense", "episode:dense_ctx", "memory:dense", "memory:memory_ctx") asked by
    #: the question's topic, its content words without the speakers' names (core/recall/topic.py), rather
    #: than by the whole question: the messages' two, as the LoCoMo folds chose (recipe "no-topic" turns it off)
    topic_channels: tuple[str, ...] = TOPIC_CHANNELS
    #: entities carried by more rows than this are left out of the entity channel: they say
    #: little (low idf) and counting their matches costs time that grows with the store
    entity_max_df: int = 500
    #: query words matching more full-text rows than this (or 0.5% of them, if more) are left out of
    #: the BM25 query: their idf is near zero, yet ranking them walks every matching row
    term_max_df: int = 500
    #: stores smaller than this never prune (their ranking is cheap, and recall stays untouched)
    term_prune_min_rows: int = 10_000
    #: each episode passes this share of its score to the adjacent turns of its session
    neighbour_decay: float = 0.1
    #: the best ``link_seeds`` memories pass this share of their score to the memories they are
    #: linked with (one hop, access predicate in the SQL); 0 turns the channel off. Off by default:
    #: on LoCoMo's facts route 0.3 cost recall (see ``veramem bench``'s channel rows)
    link_decay: float = 0.0
    link_seeds: int = 20
    utility_lambda: float = 0.2
    recency_weight: float = 0.01
    #: a question about now keeps the asked attribute's leading statement among its k results however far
    #: down its words ranked it (core/recall/asked.within); off only for the bench's ablation
    lead_within_k: bool = True
    #: a question of what holds now searches the messages beside the statements (route "dual",
    #: core/recall/engine.SearchEngine.route); off only for the bench's ablation
    own_messages: bool = True
    #: a question whose words name no attribute is read by its meaning (core/recall/meaning.py); off only for
    #: the bench's ablation
    read_by_meaning: bool = True
    #: share of the ranking prior given to the usage-learned score once it is trained (core/recall/learned.py)
    learned_share: float = 0.35
    shared_k: int = 3
    #: vector caches larger than this rank by a 128-dimensional projection first and score exactly
    #: only the best 10·n rows (core/storage/vectors.py); ``veramem bench`` reports what that keeps of the exact top 100
    dense_exact_up_to: int = 50_000
    #: with the facts route, raw episodes fill in when fewer memories than this share of k are found
    raw_fill_share: float = 0.5
    #: the channels that run (None: every channel the weights name); see :data:`RECIPES`
    channels: tuple[str, ...] | None = None

    @property
    def context_weight(self) -> float:
        """The weight of the context-enriched memory channel (``weights["memory_ctx"]``)."""
        return self.weights.get("memory_ctx", 0.0)

    @context_weight.setter
    def context_weight(self, value: float) -> None:
        self.weights = {**self.weights, "memory_ctx": value}

    @property
    def hyde_weight(self) -> float:
        """The weight of the hypothetical-answer channel (``weights["hyde"]``)."""
        return self.weights.get("hyde", 0.0)

    @hyde_weight.setter
    def hyde_weight(self, value: float) -> None:
        self.weights = {**self.weights, "hyde": value}


@dataclass(frozen=True)
class Recipe:
    """A named way to search: which channels run (None: every channel the weights name) and what it
    changes in :class:`SearchConfig`."""

    description: str
    channels: tuple[str, ...] | None = None
    change: dict[str, Any] = field(default_factory=dict)


#: The named recipes. "hybrid" is the default; "bm25" and "dense" are the baselines ``veramem bench``
#: measures beside it, and the others its ablations.
RECIPES: dict[str, Recipe] = {
    "hybrid": Recipe("every channel with the weights measured on LoCoMo's dev conversations"),
    "bm25": Recipe("full-text ranking alone (a baseline)", ("bm25",)),
    "dense": Recipe("embedding similarity alone (a baseline)", ("dense",)),
    "lean": Recipe(
        "bm25 2, dense 1, speaker 0.5; no context vectors, entities or neighbouring turns",
        None,
        {
            "episode_weights": {"bm25": 2.0, "dense": 1.0, "dense_ctx": 0.0, "entity": 0.0},
            "speaker_weight": 0.5,
            "neighbour_decay": 0.0,
        },
    ),
    "no-entity": Recipe(
        "hybrid without the entity channel on messages",
        None,
        {"episode_weights": {**SearchConfig().episode_weights, "entity": 0.0}},
    ),
    "no-dense-ctx": Recipe(
        "hybrid without the context vectors of messages",
        None,
        {"episode_weights": {**SearchConfig().episode_weights, "dense_ctx": 0.0}},
    ),
    "no-temporal": Recipe("hybrid without the date-fit channel", None, {"temporal_weight": 0.0}),
    "temporal-1": Recipe("hybrid with the date-fit channel at weight 1", None, {"temporal_weight": 1.0}),
    "hop": Recipe(
        "hybrid with the second hop: the names and rare words of the first hop's best turns asked again",
        None,
        {"hop_weight": 1.0, "hop_parts": ("bm25", "entity", "model")},
    ),
    "no-facts": Recipe("hybrid without fact votes for gathering questions", None, {"fact_weight": 0.0}),
    "facts-2": Recipe("hybrid with fact votes at weight 2", None, {"fact_weight": 2.0}),
    "no-telling": Recipe("hybrid without the tellings channel", None, {"telling_weight": 0.0}),
    "telling-1": Recipe("hybrid with the tellings channel at weight 1", None, {"telling_weight": 1.0}),
    "no-focus": Recipe("hybrid without speaker focus", None, {"focus_weights": {}}),
    "no-topic": Recipe(
        "hybrid whose message vectors are asked by the whole question, not by its topic",
        None,
        {"topic_channels": ()},
    ),
    "topic-lines": Recipe(
        "hybrid whose message line vectors only (not their context vectors) are asked by the question's topic",
        None,
        {"topic_channels": ("episode:dense",)},
    ),
    "focus-dense": Recipe(
        "hybrid whose gathering questions also focus on the named speaker's turns by dense ranking (weight 2)",
        None,
        {"focus_weights": {**FOCUS_WEIGHTS, "gather": {"bm25": 2.0, "dense": 2.0}}},
    ),
    "topic-lines-focus-dense": Recipe(
        "topic-lines and focus-dense together",
        None,
        {
            "topic_channels": ("episode:dense",),
            "focus_weights": {**FOCUS_WEIGHTS, "gather": {"bm25": 2.0, "dense": 2.0}},
        },
    ),
    "speaker-terms": Recipe(
        "hybrid with a named speaker kept in the messages' full-text query",
        None,
        {"bm25_without_speakers": False},
    ),
    "short-turns": Recipe(
        "hybrid where turns of fewer than 5 content words keep 0.7 of their score",
        None,
        {"short_turn_factor": 0.7},
    ),
}
#: the recipes ``veramem bench --cv`` chooses among on each fold's training conversations
CV_GRID: tuple[str, ...] = (
    "hybrid",
    "lean",
    "no-entity",
    "no-dense-ctx",
    "no-temporal",
    "temporal-1",
    "hop",
    "speaker-terms",
    "short-turns",
    "no-focus",
    "no-facts",
    "facts-2",
    "no-telling",
    "telling-1",
    "no-topic",
    "topic-lines",
    "focus-dense",
    "topic-lines-focus-dense",
)


def recipe(name: str, base: SearchConfig | None = None) -> SearchConfig:
    """``base`` (or the defaults) searched the way the recipe ``name`` says."""
    if name not in RECIPES:
        raise ValueError(f"unknown recipe {name!r}; known: {', '.join(RECIPES)}")
    chosen = RECIPES[name]
    return replace(base or SearchConfig(), channels=chosen.channels, **chosen.change)
