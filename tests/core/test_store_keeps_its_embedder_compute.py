"""A store keeps the compute its vectors were made with, so search never compares two models' vectors.

The packaged model computes in int8 for a new store; a store made with float32 compute (every store
made before int8 compute) goes on in float32 after an upgrade, unless `embedder.compute` is set.
"""

from __future__ import annotations

from pathlib import Path

from support.fixtures import PASSPHRASE
from veramem_desktop.models.embedder import DEFAULT_MODEL_ID, FLOAT32_MODEL_ID, OnnxEmbedder

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


def _config(compute: str = "") -> Config:
    config = Config()
    config.llm.backend = "rule-based"
    config.embedder.compute = compute
    return config


def test_a_new_store_computes_in_int8(isolated_home: Path) -> None:
    mem, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=_config())
    with mem:
        mem.add("I moved to Lisbon in March.")
        assert mem.embedder_name == DEFAULT_MODEL_ID
        assert mem.search("where do I live?").results


def test_a_store_made_with_float32_vectors_keeps_float32_compute_and_finds_by_meaning(
    isolated_home: Path,
) -> None:
    old, _ = Memory.create(
        isolated_home,
        passphrase=PASSPHRASE,
        use_keyring=False,
        config=_config(),
        embedder=OnnxEmbedder(compute="float32"),  # as every store made before int8 compute
    )
    with old:
        old.add("My sister adopted a small grey cat last winter.")
    with Memory(isolated_home, passphrase=PASSPHRASE, config=_config()) as reopened:
        assert reopened.embedder_name == FLOAT32_MODEL_ID
        hits = reopened.search("pet kitten").results
        assert hits and "cat" in hits[0].text
    with Memory(isolated_home, passphrase=PASSPHRASE, config=_config("int8")) as forced:
        assert forced.embedder_name == DEFAULT_MODEL_ID
        # int8 was asked for: the float32 vectors are not compared with int8 ones
        assert not forced.search("pet kitten").results
