"""`veramem config` as a person runs it, and the checks the settings file shares with it."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest
from support.fixtures import VENV_BIN, run_cli
from veramem_desktop.core.errors import ExitCode, InvalidInputError

from veramem_desktop.config import load_config, resolve_paths


def _file(home: Path) -> Path:
    return resolve_paths(home).config_file


def test_settings_are_shown_set_read_and_reset(isolated_home: Path) -> None:
    shown = run_cli("config")
    assert shown.returncode == 0, shown.stderr
    assert "(not written yet: defaults)" in shown.stdout and "llm.backend = auto" in shown.stdout

    changed = run_cli("config", "set", "llm.backend", "ollama")
    assert changed.returncode == 0, changed.stderr
    assert "llm.backend = ollama (was auto)" in changed.stdout
    assert run_cli("config", "set", "organise.linking", "off").returncode == 0
    assert run_cli("config", "set", "search.k", "12").returncode == 0
    assert run_cli("config", "get", "search.k").stdout.strip() == "12"

    written = tomllib.loads(_file(isolated_home).read_text("utf-8"))
    assert written["llm"]["backend"] == "ollama" and written["organise"]["linking"] is False
    loaded = load_config(resolve_paths(isolated_home))
    assert loaded.search.k == 12 and loaded.llm.backend == "ollama"

    assert run_cli("config", "unset", "search.k").returncode == 0
    data = json.loads(run_cli("config", "--json").stdout)
    assert data["file"] == str(_file(isolated_home))
    assert data["settings"]["search.k"] == 10 and data["settings"]["llm.backend"] == "ollama"


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("llm.backend", "olama", "must be one of auto, ollama"),
        ("search.k", "0", "between 1 and 1000"),
        ("search.k", "ten", "is an integer"),
        ("llm.timeout_s", "-5", "between 0.1 and 3600"),
        ("organise.user_items", "-1", "at least 0"),
        ("mcp.allow_forget", "maybe", "true or false"),
        ("llm.colour", "blue", "unknown setting 'llm.colour'"),
    ],
)
def test_a_bad_setting_is_refused_with_a_reason_and_nothing_is_written(
    isolated_home: Path, name: str, value: str, says: str
) -> None:
    assert run_cli("config", "set", "llm.model", "llama3.2").returncode == 0
    before = _file(isolated_home).read_bytes()
    proc = run_cli("config", "set", name, value)
    assert proc.returncode == ExitCode.INVALID_INPUT
    assert says in proc.stderr and "Traceback" not in proc.stderr
    assert _file(isolated_home).read_bytes() == before


def test_a_hand_edited_file_is_checked_the_same_way(isolated_home: Path) -> None:
    _file(isolated_home).parent.mkdir(parents=True)
    _file(isolated_home).write_text('[llm]\nbackend = "olama"\n', "utf-8")
    with pytest.raises(InvalidInputError, match="llm.backend must be one of"):
        load_config(resolve_paths(isolated_home))
    proc = run_cli("config")
    assert proc.returncode == ExitCode.INVALID_INPUT and "llm.backend must be one of" in proc.stderr


def test_output_cut_short_by_its_reader_ends_quietly(isolated_home: Path) -> None:
    # `veramem config | head -1`: the pipe closes early; no "this is a bug" message, no traceback.
    proc = subprocess.Popen(
        [str(VENV_BIN / "veramem"), "config"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ},
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert proc.returncode in (0, 141), err
    assert "bug" not in err and "Traceback" not in err
