"""`veramem reindex` moves a store's vectors to another compute (or model): every vector made again
with the new one, the old ones dropped, nothing else touched; search then finds by meaning again."""

from __future__ import annotations

import json
from pathlib import Path

from support.fixtures import PASSPHRASE, run_cli
from veramem_desktop.models.embedder import DEFAULT_MODEL_ID, FLOAT32_MODEL_ID, OnnxEmbedder

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

MESSAGES = [
    {"role": "user", "content": "My sister adopted a small grey cat last winter."},
    {"role": "assistant", "content": "That is lovely. What is its name?"},
    {"role": "user", "content": "She calls it Pepper, and I moved to Porto in May."},
]


def _config() -> Config:
    config = Config()
    config.llm.backend = "rule-based"
    return config


def _float32_store(home: Path) -> None:
    """A store as made before int8 compute, linked, so it holds all four kinds of vectors."""
    mem, _ = Memory.create(
        home,
        passphrase=PASSPHRASE,
        use_keyring=False,
        config=_config(),
        embedder=OnnxEmbedder(compute="float32"),
    )
    with mem:
        mem.add(MESSAGES, session_id="s1")
        assert mem.organiser.wait_for_links(30)


def test_reembed_makes_every_vector_with_int8_and_drops_the_float32_ones(isolated_home: Path) -> None:
    _float32_store(isolated_home)
    with Memory(isolated_home, passphrase=PASSPHRASE, config=_config()) as mem:
        assert mem.embedder_name == FLOAT32_MODEL_ID
        before = mem.reading.ledger_length()
        memories = [hit.id for hit in mem.search("grey cat Pepper").results]
        report = mem.reembed()
        assert report.model == DEFAULT_MODEL_ID
        assert set(report.made) == {"episode", "episode_ctx", "memory", "memory_ctx"}
        assert report.made["episode"] == report.made["episode_ctx"] == len(MESSAGES)
        assert report.removed == sum(report.made.values())  # one old vector per new one
        assert mem.embedder_name == DEFAULT_MODEL_ID  # this open facade searches with the new vectors
        assert "cat" in mem.search("pet kitten").results[0].text
        assert mem.reading.ledger_length() == before  # an index change, not a change of memory
        assert [hit.id for hit in mem.search("grey cat Pepper").results] == memories
        assert mem.reembed().made == {}  # nothing left to do
    with Memory(isolated_home, passphrase=PASSPHRASE, config=_config()) as reopened:
        assert reopened.embedder_name == DEFAULT_MODEL_ID
        assert "cat" in reopened.search("pet kitten").results[0].text


def test_reindex_on_the_command_line_reports_what_it_made(isolated_home: Path) -> None:
    _float32_store(isolated_home)
    out = run_cli("reindex", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["model"] == DEFAULT_MODEL_ID and report["made"]["episode"] == len(MESSAGES)
    again = run_cli("reindex")
    assert again.returncode == 0 and "0 vectors made, 0 old vectors dropped" in again.stdout


def test_doctor_names_vectors_of_another_model_and_the_reindex_that_mends_them(isolated_home: Path) -> None:
    from veramem_desktop.doctor import checks

    _float32_store(isolated_home)
    with Memory(isolated_home, passphrase=PASSPHRASE, config=_config()) as mem:
        assert next(c for c in checks(mem) if c.name == "vectors").ok  # one model, the one in use
    config = _config()
    config.embedder.compute = "int8"  # e.g. set after the store was made: its vectors are float32
    with Memory(isolated_home, passphrase=PASSPHRASE, config=config) as mem:
        vectors = next(c for c in checks(mem) if c.name == "vectors")
        assert not vectors.ok and FLOAT32_MODEL_ID in vectors.detail and "veramem reindex" in vectors.fix
        mem.reembed()
        assert next(c for c in checks(mem) if c.name == "vectors").ok
