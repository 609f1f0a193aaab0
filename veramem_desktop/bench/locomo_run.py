"""The LoCoMo section: ingest through ``Memory.add``, ask through the engine's raw route.

The recipes, routes and channels are compared on engines the facade builds for measurement
(``mem.recall.search_engine``); which turns a memory's evidence cites is read from that engine's
store through core's repositories."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from veramem_desktop.core.recall import SearchConfig, SearchEngine, recipe
from veramem_desktop.core.recall.recipes import CV_GRID, FOCUS_WEIGHTS, RECIPES, TOPIC_CHANNELS
from veramem_desktop.core.storage import item_evidence
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.text.time_values import parse_time

from ..memory import Memory
from . import locomo
from .locomo import KS, Retriever, Turn
from .locomo_cv import cross_validate

#: recipes compared in one run (core/recall/recipes.py), and the ablations of the default's extras
VARIANTS = ("hybrid", "bm25", "dense")
ABLATION = {
    "recipe (bm25 2, dense 1, speaker 0.5, no extras)": "lean",
    "hybrid without the entity channel": "no-entity",
}


def ingest(mem: Memory, sample: dict[str, Any]) -> dict[str, str]:
    """Add one conversation session by session; returns episode id -> dia_id."""
    user = str(sample["sample_id"])
    by_session: dict[int, list[Turn]] = {}
    for turn in locomo.turns(sample):
        by_session.setdefault(turn.session, []).append(turn)
    for number, session in by_session.items():
        when = iso(parse_time(session[0].when)) if session[0].when else None
        messages = [
            {
                "content": locomo.turn_content(t),
                "role": "user",
                "name": t.speaker,
                "time": when,
                "metadata": {"dia_id": t.dia_id},
            }
            for t in session
        ]
        mem.add(messages, user_id=user, session_id=f"{user}/session_{number}")
    found = mem.episodes(user_id=user, limit=1_000_000, newest_first=False)
    return {e.id: str(e.metadata["dia_id"]) for e in found if "dia_id" in e.metadata}


def retriever(
    engine: SearchEngine,
    user: str,
    dia_of: dict[str, str],
    channels: tuple[str, ...] | None,
    order: dict[str, int],
) -> Retriever:
    caller = Caller(user)

    def search(question: str, k: int) -> Sequence[str]:
        _, scores, _ = engine.rank(question, caller, route="raw", channels=channels)
        ranked = sorted((d for d in scores if d in dia_of), key=lambda d: (-scores[d], order.get(d, 0)))
        return [dia_of[d] for d in ranked[:k]]

    return search


def pipeline_retriever(
    engine: SearchEngine, user: str, dia_of: dict[str, str], evidence: dict[str, list[str]]
) -> Retriever:
    """The whole recall pipeline on the raw route, as a person's search runs it: channels, truth,
    priors and time order; a memory the truth stage brings in counts as the turns its evidence cites."""
    caller = Caller(user)

    def search(question: str, k: int) -> Sequence[str]:
        # A person asking for n results gets the best n, then put in time order for "when" questions:
        # each depth is asked for itself, so recall@5 is that of a search for 5.
        out: list[str] = []
        for depth in sorted({d for d in KS if d <= k} | {k}):
            result = engine.search(question, caller, k=depth, route="raw", write_trace=False)
            for hit in result.results:
                for ep in [hit.id] if hit.kind == "episode" else evidence.get(hit.id, []):
                    if ep in dia_of and dia_of[ep] not in out and len(out) < depth:
                        out.append(dia_of[ep])
        return out[:k]

    return search


def run_locomo(mem: Memory, path: Path, *, ablation: bool = True, cv: bool = False) -> dict[str, Any]:
    samples = locomo.load(path)
    dia: dict[str, dict[str, str]] = {}
    # Linked in one pass after every add, in queue order: a background linker racing the adds links
    # against whatever exists when it runs, and two runs of the same code would differ.
    background, mem.config.organise.background = mem.config.organise.background, False
    try:
        for sample in samples:
            dia[str(sample["sample_id"])] = ingest(mem, sample)
        mem.organiser.drain_links()  # links and context vectors are in place
        mem.organiser.enforce_budgets()
    finally:
        mem.config.organise.background = background
    order = {ep: i for mapping in dia.values() for i, ep in enumerate(mapping)}
    variants = {name: name for name in VARIANTS} | (ABLATION if ablation else {})
    out: dict[str, Any] = {
        "file": str(path),
        "conversations": len(samples),
        "questions": sum(len(s.get("qa", [])) for s in samples),
    }
    base = mem.recall.search_engine()
    for name, recipe_name in variants.items():
        engine = mem.recall.search_engine(recipe(recipe_name, base.config))

        def retriever_for(sample: dict[str, Any], engine: SearchEngine = engine) -> Retriever:
            user = str(sample["sample_id"])
            return retriever(engine, user, dia[user], None, order)

        scores = locomo.score(samples, retriever_for, KS)
        if name in VARIANTS:
            out[name] = scores.summary(KS)
        else:
            out.setdefault("ablation", {})[name] = scores.summary(KS)["cat1-4"]
    evidence = item_evidence.evidence_map(base.store)
    out["pipeline"] = locomo.score(
        samples,
        lambda sample: pipeline_retriever(
            base, str(sample["sample_id"]), dia[str(sample["sample_id"])], evidence
        ),
        KS,
    ).summary(KS)
    if ablation:
        out["channels"] = channel_ablation(mem, samples, dia, order)
    if cv:
        engines = {name: mem.recall.search_engine(recipe(name, base.config)) for name in CV_GRID}

        def cv_retriever(name: str, sample: dict[str, Any]) -> Retriever:
            user = str(sample["sample_id"])
            return retriever(engines[name], user, dia[user], None, order)

        out["cv"] = cross_validate(samples, cv_retriever, CV_GRID, KS)
    return out


# --- per-channel ablation ---------------------------------------------------------------------

#: every channel of the engine, with the route it is measured on: the raw route (turns) for the
#: channels that act on episodes, the facts route (memories, each counting as the turns its
#: evidence cites) for those that act on memories only
CHANNELS: dict[str, str] = {
    "dense": "raw",
    "bm25": "raw",
    "entity": "raw",
    "dense_ctx": "raw",
    "hyde": "raw",
    "speaker": "raw",
    "neighbours": "raw",
    "temporal": "raw",
    "hop": "raw",
    "focus": "raw",
    "topic": "raw",
    "fact_votes": "raw",
    "telling": "raw",
    "memory_ctx": "facts",
    "links": "facts",
}
#: the change that turns on a channel that is off by default
_TURN_ON: dict[str, dict[str, Any]] = {
    "hyde": {"weights": {**SearchConfig().weights, "hyde": 1.0}},
    "links": {"link_decay": 0.3},
    "memory_ctx": {"weights": {**SearchConfig().weights, "memory_ctx": 1.0}},
    "temporal": {"temporal_weight": 1.0},
    "hop": {"hop_weight": RECIPES["hop"].change.get("hop_weight", 1.0)},
    "focus": {"focus_weights": FOCUS_WEIGHTS},
    "topic": {"topic_channels": TOPIC_CHANNELS},
    "fact_votes": {"fact_weight": 1.0},
    "telling": {"telling_weight": 0.5},
}


def _is_on(config: SearchConfig, channel: str) -> bool:
    if channel == "links":
        return config.link_decay > 0
    if channel in ("hyde", "memory_ctx"):
        return config.weights.get(channel, 0.0) > 0
    if channel == "temporal":
        return config.temporal_weight > 0
    if channel == "hop":
        return config.hop_weight > 0
    if channel == "focus":
        return bool(config.focus_weights)
    if channel == "topic":
        return bool(config.topic_channels)
    if channel == "fact_votes":
        return config.fact_weight > 0
    if channel == "telling":
        return config.telling_weight > 0
    return True


def route_retriever(
    engine: SearchEngine,
    user: str,
    dia_of: dict[str, str],
    evidence: dict[str, list[str]],
    channels: tuple[str, ...] | None,
    order: dict[str, int],
    route: str,
) -> Retriever:
    """Any route; a memory counts as the turns its evidence cites."""
    caller = Caller(user)

    def search(question: str, k: int) -> Sequence[str]:
        _, scores, _ = engine.rank(question, caller, route=route, channels=channels)
        out: list[str] = []
        for d in sorted(scores, key=lambda d: (-scores[d], order.get(d, 0), d)):
            for ep in evidence.get(d, []) if d.startswith("mem_") else [d]:
                turn = dia_of.get(ep)
                if turn is not None and turn not in out:
                    out.append(turn)
            if len(out) >= k:
                break
        return out[:k]

    return search


def channel_ablation(
    mem: Memory, samples: Sequence[dict[str, Any]], dia: dict[str, dict[str, str]], order: dict[str, int]
) -> dict[str, Any]:
    """Recall with every default channel on each route, then one row per channel: without it when it
    is on by default, with it when it is off (categories 1-4, and multi-hop apart)."""
    own = mem.recall.search_engine()
    evidence = item_evidence.evidence_map(own.store)
    base = own.config
    has_model = own.hypothesise is not None and _probe(own)

    def measure(config: SearchConfig, channels: tuple[str, ...] | None, route: str) -> dict[str, Any]:
        engine = mem.recall.search_engine(config)
        engine.hypothesise = own.hypothesise

        def retriever_for(sample: dict[str, Any]) -> Retriever:
            user = str(sample["sample_id"])
            return route_retriever(engine, user, dia[user], evidence, channels, order, route)

        summary = locomo.score(samples, retriever_for, KS).summary(KS)
        return {
            "cat1-4": summary["cat1-4"],
            "multi-hop": summary.get("1", {}),
            "temporal": summary.get("2", {}),
        }

    everything = tuple(CHANNELS) + ("links",)
    out: dict[str, Any] = {
        "hybrid": {r: measure(base, None, r) for r in sorted(set(CHANNELS.values()))},
        "rows": {},
    }
    for channel, route in CHANNELS.items():
        if channel == "hyde" and not has_model:
            out["rows"][channel] = {"route": route, "skipped": "no model answers here: the channel needs one"}
        elif _is_on(base, channel):
            row = measure(base, tuple(c for c in everything if c != channel), route)
            out["rows"][channel] = {"route": route, "change": "without", **row}
        else:
            row = measure(replace(base, **_TURN_ON[channel]), None, route)
            out["rows"][channel] = {"route": route, "change": "with", **row}
    return out


def _probe(engine: SearchEngine) -> bool:
    """Whether the hypothetical-answer source gives anything (a model is configured and answers)."""
    try:
        return bool(engine.hypothesise and engine.hypothesise("What does the person like?"))
    except Exception:
        return False
