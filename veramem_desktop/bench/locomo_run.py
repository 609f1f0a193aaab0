"""The LoCoMo section: ingest through ``Memory.add``, ask through the engine's raw route."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.access import Caller
from ..core.dates import parse_time
from ..core.ids import iso
from ..core.search import SearchConfig, SearchEngine
from ..memory import Memory
from . import locomo
from .locomo import KS, Retriever, Turn

#: retrievers compared in one run: name -> (channels, config change or None)
VARIANTS: dict[str, tuple[tuple[str, ...] | None, dict[str, Any] | None]] = {
    "hybrid": (None, None),
    "bm25": (("bm25",), None),
    "dense": (("dense",), None),
}
#: the ablation of the recipe's optional extras (context vector, neighbour expansion, weights)
ABLATION: dict[str, tuple[tuple[str, ...] | None, dict[str, Any] | None]] = {
    "recipe (bm25 2, dense 1, speaker 0.5, no extras)": (
        None, {"episode_weights": {"bm25": 2.0, "dense": 1.0, "dense_ctx": 0.0, "entity": 0.0},
               "speaker_weight": 0.5, "neighbour_decay": 0.0}),
    "hybrid without the entity channel": (
        None, {"episode_weights": {**SearchConfig().episode_weights, "entity": 0.0}}),
}


def ingest(mem: Memory, sample: dict[str, Any]) -> dict[str, str]:
    """Add one conversation session by session; returns episode id -> dia_id."""
    user = str(sample["sample_id"])
    by_session: dict[int, list[Turn]] = {}
    for turn in locomo.turns(sample):
        by_session.setdefault(turn.session, []).append(turn)
    for number, session in by_session.items():
        when = iso(parse_time(session[0].when)) if session[0].when else None
        messages = [{"content": locomo.turn_content(t), "role": "user", "name": t.speaker, "time": when,
                     "metadata": {"dia_id": t.dia_id}} for t in session]
        mem.add(messages, user_id=user, session_id=f"{user}/session_{number}")
    found = mem.episodes(user_id=user, limit=1_000_000, newest_first=False)
    return {e.id: str(e.metadata["dia_id"]) for e in found if "dia_id" in e.metadata}


def retriever(engine: SearchEngine, user: str, dia_of: dict[str, str], channels: tuple[str, ...] | None,
              order: dict[str, int]) -> Retriever:
    caller = Caller(user)

    def search(question: str, k: int) -> Sequence[str]:
        _, scores, _ = engine.rank(question, caller, route="raw", channels=channels)
        ranked = sorted((d for d in scores if d in dia_of), key=lambda d: (-scores[d], order.get(d, 0)))
        return [dia_of[d] for d in ranked[:k]]

    return search


def run_locomo(mem: Memory, path: Path, *, ablation: bool = True) -> dict[str, Any]:
    samples = locomo.load(path)
    dia: dict[str, dict[str, str]] = {}
    for sample in samples:
        dia[str(sample["sample_id"])] = ingest(mem, sample)
    order = {ep: i for mapping in dia.values() for i, ep in enumerate(mapping)}
    variants = dict(VARIANTS, **(ABLATION if ablation else {}))
    out: dict[str, Any] = {"file": str(path), "conversations": len(samples),
                           "questions": sum(len(s.get("qa", [])) for s in samples)}
    for name, (channels, change) in variants.items():
        engine = mem.engine if change is None else SearchEngine(mem.store, mem.embedder,
                                                                replace(mem.engine.config, **change))
        def retriever_for(sample: dict[str, Any], engine: SearchEngine = engine,
                          channels: tuple[str, ...] | None = channels) -> Retriever:
            user = str(sample["sample_id"])
            return retriever(engine, user, dia[user], channels, order)

        scores = locomo.score(samples, retriever_for, KS)
        if name in VARIANTS:
            out[name] = scores.summary(KS)
        else:
            out.setdefault("ablation", {})[name] = scores.summary(KS)["cat1-4"]
    return out
