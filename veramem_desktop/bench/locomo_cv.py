"""Leave-one-conversation-out cross-validation of the search recipe on a LoCoMo file.

Every recipe of the grid is asked every question once; then, for each conversation in turn, the
recipe is chosen on the *other* conversations only (best recall@10 over categories 1-4, the
grid's order breaking ties) and the figures reported are those of the chosen recipe on the
held-out conversation. The choice is made by :func:`choose`, which is given the training
conversations' scores alone, so a held-out conversation can never choose its own recipe.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import locomo
from .locomo import HEADLINE, KS, Retriever, Scores

#: the figure the recipe is chosen by
CRITERION = ("cat1-4", "recall@10")
#: the figures reported per fold, and their mean and spread over the folds
REPORTED = ("cat1-4", *(str(c) for c in HEADLINE))


def merged(parts: Sequence[Scores]) -> Scores:
    """One set of scores holding every question of ``parts`` (recall is averaged per question)."""
    out = Scores()
    for part in parts:
        for category, per_k in part.values.items():
            into = out.values.setdefault(category, {k: [] for k in per_k})
            for k, vals in per_k.items():
                into.setdefault(k, []).extend(vals)
    return out


def choose(training: Mapping[str, Mapping[str, Scores]], grid: Sequence[str], ks: Sequence[int] = KS) -> str:
    """The recipe of ``grid`` with the best criterion over the training conversations' questions
    (``training``: recipe -> conversation -> scores, holding only training conversations)."""

    def figure(name: str) -> float:
        value = merged(list(training[name].values())).summary(ks)[CRITERION[0]][CRITERION[1]]
        return -1.0 if math.isnan(value) else value

    best = max(figure(name) for name in grid)
    return next(name for name in grid if figure(name) == best)


def cross_validate(
    samples: Sequence[dict[str, Any]],
    retriever_for: Callable[[str, dict[str, Any]], Retriever],
    grid: Sequence[str],
    ks: Sequence[int] = KS,
) -> dict[str, Any]:
    """Leave-one-conversation-out over ``samples``; ``retriever_for(recipe, sample)`` searches one
    conversation the recipe's way."""
    if len(samples) < 2:
        return {"skipped": "cross-validation needs at least two conversations"}
    ids = [str(s["sample_id"]) for s in samples]

    def asked(name: str) -> Callable[[dict[str, Any]], Retriever]:
        return lambda sample: retriever_for(name, sample)

    per: dict[str, dict[str, Scores]] = {
        name: {cid: locomo.score([s], asked(name), ks) for cid, s in zip(ids, samples, strict=True)}
        for name in grid
    }
    return folds(per, ids, grid, ks)


def folds(
    per: Mapping[str, Mapping[str, Scores]], ids: Sequence[str], grid: Sequence[str], ks: Sequence[int] = KS
) -> dict[str, Any]:
    """Each conversation held out in turn: the recipe chosen on the others, its figures on the one held out."""
    rows: list[dict[str, Any]] = []
    for held in ids:
        training = {name: {cid: s for cid, s in per[name].items() if cid != held} for name in grid}
        chosen = choose(training, grid, ks)
        held_out = per[chosen][held].summary(ks)
        rows.append(
            {
                "held_out": held,
                "chosen": chosen,
                **{key: held_out[key] for key in REPORTED if key in held_out},
            }
        )
    spread: dict[str, dict[str, dict[str, float]]] = {}
    for key in REPORTED:
        for k in ks:
            vals = [r[key][f"recall@{k}"] for r in rows if key in r and not math.isnan(r[key][f"recall@{k}"])]
            if vals:
                spread.setdefault(key, {})[f"recall@{k}"] = {
                    "mean": round(sum(vals) / len(vals), 4),
                    "min": round(min(vals), 4),
                    "max": round(max(vals), 4),
                }
    return {"grid": list(grid), "criterion": "/".join(CRITERION), "folds": rows, "summary": spread}
