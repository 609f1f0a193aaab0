"""Fixtures shared by the whole suite."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PASSPHRASE = "correct horse battery staple"
VENV_BIN = Path(sys.executable).parent


def _run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's temporary folder: under pytest-xdist each worker has its own below the run's
    (``.../pytest-N/popen-gw0``), and a folder every worker shares is the one above it."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session", autouse=True)
def compiled_once(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Processes the tests start keep their compiled bytecode in one folder for the whole run.

    With PYTHONDONTWRITEBYTECODE set (as on the CI machine), every ``veramem`` subprocess compiled
    the whole program from source again: about a quarter of a CPU second per command, a third of a
    light one's start. An installed program has its bytecode, so reusing it is also closer to what a
    user runs. The cache lives in the run's temporary folder (``PYTHONPYCACHEPREFIX``), so nothing is
    written into the source tree; this process itself is left as it started. Under pytest-xdist every
    worker points at the same folder, so the program is compiled once per run, not once per worker
    (Python writes each ``.pyc`` to a temporary name and renames it, so two writers cannot tear one).
    """
    prefix = _run_folder(tmp_path_factory) / "pycache"
    prefix.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPYCACHEPREFIX", str(prefix))
        patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        yield prefix


#: the folder of this process's store made by ``init_store`` (set per session by ``_store_template``)
_TEMPLATE: dict[str, Any] = {}


@pytest.fixture(scope="session", autouse=True)
def _store_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Where ``init_store`` keeps the store it makes once per process (nothing is made until one asks)."""
    _TEMPLATE["folder"] = tmp_path_factory.mktemp("store-template")
    yield
    _TEMPLATE.clear()


def init_store(home: Path | None = None) -> dict[str, Any]:
    """Put in ``home`` (by default the test's ``VERAMEM_HOME``, where ``run_cli("init")`` makes it) the
    store ``veramem init --json`` makes there, and return what it printed.

    The first call in a process runs the real ``veramem init --json`` (the suite's passphrase, no
    keyring, no Ollama host) into a folder of its own and checks it succeeded; every call copies that
    home, files and modes as they are, into ``home``. A home holds no absolute path (the settings file
    stores none), so the copy opens as the original does. For tests whose subject comes after
    ``init``: the store's key derivation and first ledger entry cost most of a CPU second per ``init``.
    Tests of ``init`` itself still run it.
    """
    made = _TEMPLATE.get("made")
    if made is None:
        template = Path(_TEMPLATE["folder"]) / "home"
        env = {k: v for k, v in os.environ.items() if k != "OLLAMA_HOST"}
        env |= {"VERAMEM_HOME": str(template), "VERAMEM_PASSPHRASE": PASSPHRASE, "VERAMEM_NO_KEYRING": "1"}
        proc = subprocess.run(
            [str(VENV_BIN / "veramem"), "init", "--json"],
            input=b"",
            capture_output=True,
            env=env,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
        made = _TEMPLATE["made"] = (template, json.loads(proc.stdout))
    template, printed = made
    home = Path(os.environ["VERAMEM_HOME"]) if home is None else home
    shutil.copytree(template, home, dirs_exist_ok=True)
    return {**printed, "store": printed["store"].replace(str(template), str(home), 1)}


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own VERAMEM_HOME, a passphrase and no OS keyring."""
    home = tmp_path / "home"
    monkeypatch.setenv("VERAMEM_HOME", str(home))
    monkeypatch.setenv("VERAMEM_PASSPHRASE", PASSPHRASE)
    monkeypatch.setenv("VERAMEM_NO_KEYRING", "1")
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    return home


def _memory(home: Path, *, linking: bool) -> object:
    from support.fake_embedder import HashEmbedder
    from veramem_desktop.config import Config
    from veramem_desktop.memory import Memory

    config = Config()
    config.organise.linking = linking
    memory, _ = Memory.create(
        home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), config=config
    )
    return memory


@pytest.fixture
def mem(isolated_home: Path) -> Iterator[object]:
    """A new store, open, with the fast hash embedder and the rule-based LLM.

    The background linker is off, so nothing writes behind a test's back; tests of linking
    use ``linking_mem``.
    """
    memory = _memory(isolated_home, linking=False)
    yield memory
    memory.close()  # type: ignore[attr-defined]


@pytest.fixture
def linking_mem(isolated_home: Path) -> Iterator[object]:
    """Like ``mem``, with background linking on (as in daily use)."""
    memory = _memory(isolated_home, linking=True)
    yield memory
    memory.close()  # type: ignore[attr-defined]


def run_cli(
    *args: str, input: str | bytes | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``veramem`` command for real, in a subprocess."""
    full_env = {**os.environ, **(env or {})}
    data = input.encode() if isinstance(input, str) else input
    proc = subprocess.run(
        [str(VENV_BIN / "veramem"), *args], input=data, capture_output=True, env=full_env, timeout=timeout
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


@pytest.fixture
def cli():
    return run_cli
