"""A usage-learned score: logistic regression over four features of a memory.

Each rewarded trace records, for every memory it credited, the memory's features at
that moment and whether the outcome was good (label 1) or bad (label 0). Once at least
:data:`MIN_OUTCOMES` labelled outcomes of both kinds exist, a small logistic regression
is fitted (pure numpy, deterministic full-batch gradient descent with L2) and its
weights are kept in the ``meta`` table as JSON. Search blends the predicted probability
into its static prior at a configurable share; with no trained model it uses the
static prior unchanged (it fails open).

Features, each on [0, 1]:
- importance — as stored;
- recency — ``exp(-days since last useful / 30)``;
- frequency — ``log1p(uses) / log1p(20)``, capped at 1;
- confidence — as stored.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.storage import meta, traces
from veramem_desktop.core.storage.ids import now_iso, parse_iso
from veramem_desktop.core.storage.store import Connection, Store

FEATURES = ("importance", "recency", "frequency", "confidence")
MIN_OUTCOMES = 10
META_KEY = "learned_scorer"
#: outcomes and positive outcomes counted so far, and how many the last fit saw
TALLY_KEY = "learned_tally"
#: most recent rewarded traces read for training
MAX_SAMPLES = 5000
#: the learned term spans ±LEARNED_SPAN, the same span as the utility prior at λ = 0.2
LEARNED_SPAN = 0.1
DEFAULT_SHARE = 0.35
RECENCY_DAYS = 30.0
FREQUENCY_SATURATION = 20


@dataclass(frozen=True)
class Features:
    importance: float
    recency: float
    frequency: float
    confidence: float

    def as_list(self) -> list[float]:
        return [self.importance, self.recency, self.frequency, self.confidence]


def _unit(value: float) -> float:
    return min(max(float(value), 0.0), 1.0) if math.isfinite(value) else 0.0


def features(
    *,
    importance: float,
    confidence: float,
    uses: int,
    last_used_at: str | None,
    valid_from: str,
    now: datetime,
) -> Features:
    """The features of one memory at ``now``."""
    since = parse_iso(last_used_at or valid_from)
    days = max((now - since).total_seconds() / 86400.0, 0.0)
    return Features(
        importance=_unit(importance),
        recency=math.exp(-days / RECENCY_DAYS),
        frequency=min(math.log1p(max(uses, 0)) / math.log1p(FREQUENCY_SATURATION), 1.0),
        confidence=_unit(confidence),
    )


@dataclass(frozen=True)
class LearnedModel:
    weights: tuple[float, ...]
    bias: float
    samples: int
    positives: int
    trained_at: str

    def predict(self, f: Features) -> float:
        """Probability that a memory with these features helps."""
        z = self.bias + sum(w * x for w, x in zip(self.weights, f.as_list(), strict=True))
        return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))

    def to_json(self) -> str:
        return json.dumps(
            {
                "version": 1,
                "features": list(FEATURES),
                "weights": list(self.weights),
                "bias": self.bias,
                "samples": self.samples,
                "positives": self.positives,
                "trained_at": self.trained_at,
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> LearnedModel | None:
        """The stored model, or None when it is unreadable or from another feature set (fail open)."""
        try:
            data = json.loads(text)
            if data.get("version") != 1 or data.get("features") != list(FEATURES):
                return None
            weights = tuple(float(w) for w in data["weights"])
            bias = float(data["bias"])
            if len(weights) != len(FEATURES) or not all(math.isfinite(v) for v in (*weights, bias)):
                return None
            return cls(weights, bias, int(data["samples"]), int(data["positives"]), str(data["trained_at"]))
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


def train(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    *,
    epochs: int = 500,
    lr: float = 1.0,
    l2: float = 1e-2,
    trained_at: str | None = None,
) -> LearnedModel | None:
    """Fit the regression; None with fewer than MIN_OUTCOMES samples or only one label."""
    n = int(y.shape[0])
    positives = int(y.sum())
    if n < MIN_OUTCOMES or positives == 0 or positives == n:
        return None
    w = np.zeros(x.shape[1], dtype=np.float64)
    b = 0.0
    for _ in range(epochs):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w + b, -40.0, 40.0)))
        err = p - y
        w -= lr * (x.T @ err / n + l2 * w)
        b -= lr * float(err.mean())
    return LearnedModel(tuple(float(v) for v in w), float(b), n, positives, trained_at or now_iso())


def blend(static_prior: float, f: Features | None, model: LearnedModel | None, share: float) -> float:
    """The ranking prior: the static formula, with ``share`` of it replaced by the learned score once trained."""
    if model is None or f is None or share <= 0.0:
        return static_prior
    share = min(share, 1.0)
    learned_term = LEARNED_SPAN * (2.0 * model.predict(f) - 1.0)
    return (1.0 - share) * static_prior + share * learned_term


# ------------------------------------------------------------------ persistence
def outcomes_from(
    metadata_rows: Sequence[str | None],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The labelled outcomes kept in traces' metadata (``feedback.outcomes``)."""
    xs: list[list[float]] = []
    ys: list[float] = []
    for raw in metadata_rows:
        try:
            outcomes = json.loads(raw or "{}").get("feedback", {}).get("outcomes", [])
        except (ValueError, AttributeError):
            continue
        for o in outcomes:
            x, y = o.get("x"), o.get("y")
            if isinstance(x, list) and len(x) == len(FEATURES) and y in (0, 1):
                xs.append([_unit(float(v)) for v in x])
                ys.append(float(y))
    return np.asarray(xs, dtype=np.float64).reshape(-1, len(FEATURES)), np.asarray(ys, dtype=np.float64)


def _tally(conn: Connection) -> tuple[int, int, int]:
    """(outcomes, positive outcomes, outcomes the last fit saw) as counted in ``meta``."""
    raw = meta.get(conn, TALLY_KEY)
    try:
        data = json.loads(raw) if raw is not None else {}
        return int(data.get("outcomes", 0)), int(data.get("positives", 0)), int(data.get("trained", 0))
    except (ValueError, TypeError, AttributeError):
        return 0, 0, 0


def _save_tally(conn: Connection, outcomes: int, positives: int, trained: int) -> None:
    meta.put(conn, TALLY_KEY, json.dumps({"outcomes": outcomes, "positives": positives, "trained": trained}))


def retrain(conn: Connection) -> tuple[LearnedModel | None, int]:
    """Fit on the most recent outcomes and keep the weights in ``meta``. Returns (model, outcomes)."""
    x, y = outcomes_from(traces.recent_outcomes(conn, MAX_SAMPLES))
    model = train(x, y)
    if model is None:
        meta.delete(conn, META_KEY)
    else:
        meta.put(conn, META_KEY, model.to_json())
    # the tally restarts from what training saw (forget may have erased outcomes since)
    _save_tally(conn, int(y.shape[0]), int(y.sum()), int(y.shape[0]))
    return model, int(y.shape[0])


def record(conn: Connection, labels: Sequence[int]) -> tuple[LearnedModel | None, int]:
    """Count new outcomes and refit when it is due: as soon as ten mixed outcomes exist, then
    each time the outcomes have grown by a tenth (at least ten) since the last fit.
    Returns (the current model, outcomes so far)."""
    outcomes, positives, trained = _tally(conn)
    outcomes += len(labels)
    positives += sum(1 for v in labels if v)
    current = meta.get(conn, META_KEY)
    model = LearnedModel.from_json(current) if current is not None else None
    grown = outcomes - trained >= max(MIN_OUTCOMES, min(trained, MAX_SAMPLES) // 10)
    if labels and outcomes >= MIN_OUTCOMES and 0 < positives < outcomes and (model is None or grown):
        return retrain(conn)
    _save_tally(conn, outcomes, positives, trained)
    return model, outcomes


def load(store: Store) -> LearnedModel | None:
    raw = store.get_meta(META_KEY)
    return None if raw is None else LearnedModel.from_json(raw)


class ModelCache:
    """The stored model, read again only when the store's data version moved."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version: int | None = None
        self._model: LearnedModel | None = None

    def get(self, store: Store, version: int | None = None) -> LearnedModel | None:
        current = store.data_version() if version is None else version
        with self._lock:
            if self._version == current:
                return self._model
        model = load(store)
        with self._lock:
            self._version, self._model = current, model
        return model


def describe(model: LearnedModel | None) -> dict[str, Any]:
    if model is None:
        return {"trained": False}
    return {
        "trained": True,
        "samples": model.samples,
        "positives": model.positives,
        "trained_at": model.trained_at,
        "weights": dict(zip(FEATURES, (round(w, 4) for w in model.weights), strict=True)),
        "bias": round(model.bias, 4),
    }
