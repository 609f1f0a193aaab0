"""The usage-learned score: trained only from enough outcomes, used only once trained."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.internals import store_of
from veramem_desktop.core.recall import learned
from veramem_desktop.core.recall.learned import Features, LearnedModel

from veramem_desktop.memory import Memory

NOW = datetime(2024, 6, 1, tzinfo=UTC)


def _data(n: int, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Outcomes where only importance decides: important memories help."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, 1.0, size=(n, 4))
    y = (x[:, 0] > 0.5).astype(np.float64)
    return x, y


def test_fewer_than_ten_outcomes_train_nothing() -> None:
    x, y = _data(9)
    assert 0 < y.sum() < 9
    assert learned.train(x, y) is None


def test_outcomes_of_one_kind_only_train_nothing() -> None:
    x, _ = _data(40)
    assert learned.train(x, np.ones(40)) is None
    assert learned.train(x, np.zeros(40)) is None


def test_ten_mixed_outcomes_train_a_model_that_learns_which_feature_matters() -> None:
    x, y = _data(200)
    model = learned.train(x, y)
    assert model is not None and model.samples == 200
    importance, recency, frequency, confidence = model.weights
    assert importance > 2.0 and max(abs(recency), abs(frequency), abs(confidence)) < importance / 4
    high = Features(0.9, 0.5, 0.5, 0.5)
    low = Features(0.1, 0.5, 0.5, 0.5)
    assert model.predict(high) > 0.7 > 0.3 > model.predict(low)


def test_training_is_deterministic() -> None:
    x, y = _data(50)
    assert learned.train(x, y, trained_at="t") == learned.train(x, y, trained_at="t")


@given(st.floats(-0.2, 0.2), st.floats(0.0, 1.0))
def test_without_a_model_the_static_prior_is_used_unchanged(static: float, share: float) -> None:
    f = Features(0.5, 0.5, 0.5, 0.5)
    assert learned.blend(static, f, None, share) == static
    assert learned.blend(static, None, None, share) == static


def test_a_trained_model_moves_the_prior_by_its_share_and_its_prediction() -> None:
    model = LearnedModel((4.0, 0.0, 0.0, 0.0), -2.0, 20, 10, "t")
    good, bad = Features(1.0, 0, 0, 0), Features(0.0, 0, 0, 0)
    static = 0.05
    assert learned.blend(static, good, model, 0.0) == static
    blended_good = learned.blend(static, good, model, 0.35)
    blended_bad = learned.blend(static, bad, model, 0.35)
    assert blended_good > blended_bad
    p = model.predict(good)
    assert blended_good == pytest.approx(0.65 * static + 0.35 * learned.LEARNED_SPAN * (2 * p - 1))


def test_features_are_on_the_unit_interval_and_recency_fades() -> None:
    fresh = learned.features(
        importance=1.7, confidence=-0.2, uses=500, last_used_at=None, valid_from=NOW.isoformat(), now=NOW
    )
    assert fresh == Features(1.0, 1.0, 1.0, 0.0)
    old = learned.features(
        importance=0.5,
        confidence=0.5,
        uses=0,
        last_used_at=(NOW - timedelta(days=60)).isoformat(),
        valid_from="2020-01-01T00:00:00Z",
        now=NOW,
    )
    assert old.recency == pytest.approx(np.exp(-2.0)) and old.frequency == 0.0


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "{",
        "[]",
        json.dumps({"version": 2}),
        json.dumps(
            {
                "version": 1,
                "features": ["importance"],
                "weights": [1],
                "bias": 0,
                "samples": 1,
                "positives": 1,
                "trained_at": "",
            }
        ),
        json.dumps(
            {
                "version": 1,
                "features": list(learned.FEATURES),
                "weights": [1, 2, 3, "x"],
                "bias": 0,
                "samples": 1,
                "positives": 1,
                "trained_at": "",
            }
        ),
    ],
)
def test_an_unreadable_stored_model_fails_open(junk: str) -> None:
    assert LearnedModel.from_json(junk) is None


def test_a_stored_model_round_trips() -> None:
    model = LearnedModel((0.5, -0.25, 1.0, 0.0), 0.1, 12, 5, "2024-06-01T00:00:00Z")
    assert LearnedModel.from_json(model.to_json()) == model


def _feedback_rounds(mem: Memory, rewards: list[float]) -> list[dict[str, object]]:
    """One search and one reward per round, each crediting one memory (alternating between two)."""
    out = []
    for i, reward in enumerate(rewards):
        result = mem.search("which tea do I like", route="facts")
        ids = [h.id for h in result.results if h.kind != "episode"]
        out.append(mem.feedback(result.trace_id, reward, cited_ids=[ids[i % 2]]))
    return out


def test_feedback_trains_the_model_only_once_ten_outcomes_exist_and_the_cache_sees_it(mem: Memory) -> None:
    mem.add(["I like green tea.", "I like black tea."])
    cache = learned.ModelCache()
    # alternating rewards keep the advantage away from zero, so each round is one labelled outcome
    rewards = [1.0, -1.0] * 6
    results = _feedback_rounds(mem, rewards[:9])
    assert all(not r["learned"]["trained"] for r in results)
    assert [r["learned"]["outcomes"] for r in results] == list(range(1, 10))
    assert store_of(mem).get_meta(learned.META_KEY) is None
    assert cache.get(store_of(mem)) is None
    [tenth] = _feedback_rounds(mem, rewards[9:10])
    assert tenth["learned"]["trained"] is True and tenth["learned"]["samples"] == 10
    stored = learned.load(store_of(mem))
    assert stored is not None and stored.samples == 10
    assert cache.get(store_of(mem)) == stored


def test_the_model_cache_reads_the_store_only_when_its_version_moved(mem: Memory) -> None:
    cache = learned.ModelCache()
    assert cache.get(store_of(mem)) is None
    model = LearnedModel((1.0, 0.0, 0.0, 0.0), 0.0, 10, 5, "t")
    store_of(mem).set_meta(learned.META_KEY, model.to_json())
    assert cache.get(store_of(mem)) == model
    other = LearnedModel((2.0, 0.0, 0.0, 0.0), 0.0, 11, 5, "t")
    version = store_of(mem).data_version()
    with store_of(mem).atomic() as conn:  # written behind the cache's back, then reported as the old version
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (other.to_json(), learned.META_KEY))
    assert cache.get(store_of(mem), version) == model
    assert cache.get(store_of(mem)) == other


def test_after_the_first_fit_the_model_is_refitted_once_outcomes_grew_by_ten(mem: Memory) -> None:
    mem.add(["I like green tea.", "I like black tea."])
    rewards = [1.0, -1.0] * 11
    results = _feedback_rounds(mem, rewards)
    samples = [r["learned"].get("samples") for r in results]
    assert samples[9:] == [10] * 10 + [20] * 3
    assert learned.load(store_of(mem)) is not None and learned.load(store_of(mem)).samples == 20  # type: ignore[union-attr]
