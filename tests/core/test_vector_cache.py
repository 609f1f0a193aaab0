"""The vector cache: exact scoring for small stores, projection then exact rescoring for large
ones, coherent with every write and erasure either way."""

from __future__ import annotations

import numpy as np
from support.internals import store_of
from veramem_desktop.core.storage import index
from veramem_desktop.core.storage.vectors import VectorCache

from veramem_desktop.memory import Memory

DIM = 384
MODEL = "test-model"


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _like_sentences(rng: np.random.Generator, n: int, basis: np.ndarray) -> np.ndarray:
    """Vectors whose energy lies mostly in a few dozen directions, as sentence embeddings' does."""
    return _unit(rng.standard_normal((n, basis.shape[0])) @ basis + 0.05 * rng.standard_normal((n, DIM)))


def _store(mem: Memory, ids: list[str], vectors: np.ndarray) -> None:
    with store_of(mem).atomic() as conn:
        index.store_vectors(conn, "memory", MODEL, ids, vectors)


def _everything(cache: VectorCache) -> np.ndarray:
    return np.arange(cache._size, dtype=np.int64)


def _fill(mem: Memory, n: int, seed: int = 0) -> tuple[np.random.Generator, np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    basis = rng.standard_normal((40, DIM))
    ids = [f"mem_{i:05d}" for i in range(n)]
    _store(mem, ids, _like_sentences(rng, n, basis))
    return rng, basis, ids


def test_a_large_cache_ranks_by_projection_and_rescoring_keeps_the_exact_best(mem: Memory) -> None:
    rng, basis, _ = _fill(mem, 3_000)
    cache = VectorCache("memory", MODEL, DIM, exact_up_to=1_000)
    cache.refresh(store_of(mem))
    assert cache.approximate
    agree = []
    for query in _like_sentences(rng, 30, basis):
        fast = cache.top(query, _everything(cache), 10)
        exact = cache.top(query, _everything(cache), 10, exact=True)
        agree.append(len({i for i, _ in fast} & {i for i, _ in exact}) / 10)
        for owner, score in fast:  # the scores returned are the exact cosines
            assert abs(score - float(cache.vector(owner) @ query)) < 1e-5  # type: ignore[operator]
    assert np.mean(agree) >= 0.97


def test_a_small_cache_stays_exact(mem: Memory) -> None:
    _fill(mem, 800)
    cache = VectorCache("memory", MODEL, DIM, exact_up_to=1_000)
    cache.refresh(store_of(mem))
    assert not cache.approximate


def test_vectors_without_a_dominant_subspace_are_never_projected(mem: Memory) -> None:
    rng = np.random.default_rng(1)
    _store(mem, [f"mem_{i:05d}" for i in range(3_000)], _unit(rng.standard_normal((3_000, DIM))))
    cache = VectorCache("memory", MODEL, DIM, exact_up_to=1_000)
    cache.refresh(store_of(mem))
    assert not cache.approximate  # 128 of 384 isotropic directions hold about a third of the energy


def test_the_projected_cache_follows_additions_replacements_and_erasures(mem: Memory) -> None:
    rng, basis, ids = _fill(mem, 3_000)
    cache = VectorCache("memory", MODEL, DIM, exact_up_to=1_000)
    cache.refresh(store_of(mem))
    assert cache.approximate

    fresh = _like_sentences(rng, 5, basis)
    _store(mem, [f"new_{i}" for i in range(5)], fresh)
    cache.refresh(store_of(mem))
    for i, vector in enumerate(fresh):
        assert cache.top(vector, _everything(cache), 5)[0][0] == f"new_{i}"

    moved = _like_sentences(rng, 1, basis)[0]
    _store(mem, [ids[7]], moved.reshape(1, -1))  # a new version of one row's vector
    cache.refresh(store_of(mem))
    assert cache.top(moved, _everything(cache), 5)[0][0] == ids[7]

    target = cache.vector(ids[42])
    assert target is not None and cache.top(target, _everything(cache), 5)[0][0] == ids[42]
    with store_of(mem).atomic() as conn:
        conn.execute("DELETE FROM embeddings WHERE owner_id = ?", (ids[42],))
    cache.refresh(store_of(mem))
    assert cache.approximate  # reloaded in full and fitted again
    assert ids[42] not in {i for i, _ in cache.top(target, _everything(cache), 50)}


def test_past_exact_up_to_rows_are_held_in_half_precision_and_score_within_1e_4_of_float32(
    mem: Memory,
) -> None:
    rng, basis, ids = _fill(mem, 3_000)
    stored = {
        owner: np.frombuffer(blob, dtype=np.float32)
        for owner, blob in store_of(mem).query(
            "SELECT owner_id, vector FROM embeddings WHERE model = ?", (MODEL,)
        )
    }
    cache = VectorCache("memory", MODEL, DIM, exact_up_to=1_000)
    cache.refresh(store_of(mem))
    assert cache._matrix.dtype == np.float16
    assert cache._matrix.nbytes < 2 * 3_000 * DIM * 1.6  # half of float32, with the growth margin
    for query in _like_sentences(rng, 10, basis):
        for exact in (False, True):
            for owner, score in cache.top(query, _everything(cache), 20, exact=exact):
                assert abs(score - float(stored[owner] @ query)) < 1e-4
    small = VectorCache("memory", MODEL, DIM, exact_up_to=5_000)
    small.refresh(store_of(mem))
    assert small._matrix.dtype == np.float32  # below the threshold, the exact float32 rows
    np.testing.assert_array_equal(small.vector(ids[3]), stored[ids[3]])


def test_loading_many_rows_never_holds_them_twice(mem: Memory) -> None:
    import tracemalloc

    rows = 20_000
    _fill(mem, rows)
    float32_bytes = rows * DIM * 4
    cache = VectorCache("memory", MODEL, DIM, exact_up_to=5_000)
    tracemalloc.start()
    try:
        cache.refresh(store_of(mem))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(cache) == rows and cache.approximate
    # Held: the half-precision rows (15 MB), the projection (10 MB) and the ids (3 MB), with
    # chunks of a few MB on top (53 MB measured); reading everything at once peaked at 97 MB.
    assert peak < 1.9 * float32_bytes, peak / 1e6
