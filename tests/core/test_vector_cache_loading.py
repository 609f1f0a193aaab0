"""Loading the vector cache: the rows it holds are the stored vectors, bit for bit (float32 up to
``exact_up_to`` rows, their half-precision rounding past it), however the load is split, and a
load past ``exact_up_to`` sizes one half-precision matrix instead of passing through float32."""

from __future__ import annotations

import tracemalloc

import numpy as np
from support.internals import store_of
from veramem_desktop.core.storage import index
from veramem_desktop.core.storage.vectors import LOAD_CHUNK, VectorCache

from veramem_desktop.memory import Memory

DIM = 384
MODEL = "test-model"


def _store(mem: Memory, first: int, vectors: np.ndarray) -> list[str]:
    ids = [f"mem_{first + i:05d}" for i in range(len(vectors))]
    with store_of(mem).atomic() as conn:
        index.store_vectors(conn, "memory", MODEL, ids, vectors)
    return ids


def _vectors(rng: np.random.Generator, n: int, basis: np.ndarray) -> np.ndarray:
    """Unit vectors with most of their energy in a few dozen directions (so the cache projects)."""
    rows = rng.standard_normal((n, basis.shape[0])) @ basis + 0.05 * rng.standard_normal((n, DIM))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _held(cache: VectorCache) -> tuple[list[str | None], np.ndarray]:
    return list(cache._ids), np.array(cache._matrix[: cache._size])


def _same_bits(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def test_a_load_across_exact_up_to_holds_the_stored_vectors_rounded_once_to_half_precision(
    mem: Memory,
) -> None:
    rng = np.random.default_rng(5)
    rows = 3 * LOAD_CHUNK + 17  # several chunks, the threshold crossed inside the second
    vectors = _vectors(rng, rows, rng.standard_normal((40, DIM)))
    ids = _store(mem, 0, vectors)
    cache = VectorCache("memory", MODEL, DIM, exact_up_to=LOAD_CHUNK + 100)
    cache.refresh(store_of(mem))
    held_ids, held = _held(cache)
    assert held_ids == ids
    _same_bits(held, vectors.astype(np.float16))
    small = VectorCache("memory", MODEL, DIM, exact_up_to=rows)
    small.refresh(store_of(mem))
    _same_bits(_held(small)[1], vectors)  # up to the threshold, the float32 rows themselves


def test_a_cache_grown_across_refreshes_holds_what_one_load_of_everything_holds(mem: Memory) -> None:
    rng = np.random.default_rng(6)
    basis = rng.standard_normal((40, DIM))
    grown = VectorCache("memory", MODEL, DIM, exact_up_to=2_000)
    first = _store(mem, 0, _vectors(rng, 1_500, basis))
    grown.refresh(store_of(mem))
    assert grown._matrix.dtype == np.float32
    rest = _store(mem, 1_500, _vectors(rng, 4_000, basis))  # past the threshold, and refitted
    grown.refresh(store_of(mem))
    fresh = VectorCache("memory", MODEL, DIM, exact_up_to=2_000)
    fresh.refresh(store_of(mem))
    assert _held(grown)[0] == _held(fresh)[0] == first + rest
    _same_bits(_held(grown)[1], _held(fresh)[1])
    assert grown._basis is not None and fresh._basis is not None
    _same_bits(grown._basis, fresh._basis)
    _same_bits(grown._reduced[: grown._size], fresh._reduced[: fresh._size])


def test_a_load_past_exact_up_to_never_allocates_a_float32_matrix_of_every_row(mem: Memory) -> None:
    rng = np.random.default_rng(7)
    rows = 20_000
    _store(mem, 0, _vectors(rng, rows, rng.standard_normal((40, DIM))))
    cache = VectorCache("memory", MODEL, DIM, exact_up_to=5_000)
    tracemalloc.start()
    try:
        cache.refresh(store_of(mem))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert cache._matrix.dtype == np.float16 and cache.approximate
    # Held at the end: the half-precision rows (15 MB) and the projection (10 MB); the ids and one
    # chunk of rows come on top. A float32 matrix of every row would add 31 MB.
    held = cache._matrix.nbytes + cache._reduced.nbytes
    float32_rows = rows * DIM * 4
    assert peak < held + float32_rows // 2, (peak / 1e6, held / 1e6)


def test_held_positions_are_the_positions_of_every_stored_id_after_replacements(mem: Memory) -> None:
    rng = np.random.default_rng(8)
    basis = rng.standard_normal((40, DIM))
    ids = _store(mem, 0, _vectors(rng, 300, basis))
    cache = VectorCache("memory", MODEL, DIM)
    cache.refresh(store_of(mem))
    with store_of(mem).atomic() as conn:  # a replaced vector leaves a dead slot behind
        index.store_vectors(conn, "memory", MODEL, ids[:5], _vectors(rng, 5, basis))
    cache.refresh(store_of(mem))
    held = cache.held_positions()
    assert held.size == len(ids) < cache._size
    assert sorted(held.tolist()) == sorted(cache.positions(ids).tolist())
