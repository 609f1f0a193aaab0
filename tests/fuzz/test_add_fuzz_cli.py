"""Fuzzing `veramem add` through click's CliRunner (the real command, its input reading and the
one place errors become exit codes): every payload, given as a JSON argument, as raw bytes on
standard input or as a file, ends in exit 0 or a documented error code, never 1 ("This is a
bug"); the ledger verifies afterwards and what was stored before is still there."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.fixtures import PASSPHRASE
from veramem_desktop.core.errors import ExitCode

from veramem_desktop.cli import cli, common

from .strategies import payloads, text

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("VERAMEM_FUZZ_EXAMPLES_CLI", "120"))
RANDOM = os.environ.get("VERAMEM_FUZZ_RANDOM")
#: every exit code an add may end with besides success: documented in docs/exit-codes.md
DOCUMENTED = {int(c) for c in ExitCode} - {int(ExitCode.FAILURE)}


def _encode(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, allow_nan=True)  # lone surrogates travel as \\udfff escapes


inputs = st.one_of(
    payloads.map(lambda p: ("argument", _encode(p).encode())),
    text.map(lambda t: ("stdin", t.encode("utf-8", "surrogatepass"))),
    st.binary(max_size=200).map(lambda b: ("stdin", b)),
    payloads.map(lambda p: ("file", _encode(p).encode())),
    st.integers(min_value=1, max_value=200_000).map(lambda n: ("file", b"[" * n + b"]" * n)),
    st.integers(min_value=1, max_value=5000).map(
        lambda n: ("argument", ('[{"content": "x", "metadata": ' + "[" * n + "]" * n + "}]").encode())
    ),
)


@pytest.fixture
def runner(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """An initialised store; every invocation shares one embedder (loading it is not under test)."""
    from veramem_desktop.models.embedder import default_embedder

    run = CliRunner()
    assert run.invoke(cli, ["init"]).exit_code == 0
    for name, value in (("llm.backend", "rule-based"), ("organise.linking", "false")):
        assert run.invoke(cli, ["config", "set", name, value]).exit_code == 0
    embedder = default_embedder()
    opener = common.open_memory  # what @pass_memory opens the store with
    monkeypatch.setattr(common, "open_memory", lambda ctx, **kw: opener(ctx, embedder=embedder, **kw))
    return run


def test_no_generated_add_input_exits_1_loses_memory_or_breaks_the_ledger(
    runner: CliRunner, tmp_path: Path, isolated_home: Path
) -> None:
    seeded = runner.invoke(cli, ["add", "I live in Lisbon and I like green tea.", "--user", "seed", "--json"])
    assert seeded.exit_code == 0, seeded.output
    seed_ids = [d["id"] for d in json.loads(seeded.stdout)["added"]]
    assert seed_ids
    codes: dict[int, int] = {}
    target = tmp_path / "payload.json"

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=RANDOM is None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=inputs)
    def run(case: tuple[str, bytes]) -> None:
        how, data = case
        if how == "argument":
            result = runner.invoke(cli, ["add", data.decode(), "--json"])
        elif how == "stdin":
            result = runner.invoke(cli, ["add", "-", "--json"], input=data)
        else:
            target.write_bytes(data)
            result = runner.invoke(cli, ["add", "--file", str(target), "--json"])
        codes[result.exit_code] = codes.get(result.exit_code, 0) + 1
        assert "This is a bug" not in result.stderr, result.stderr
        assert result.exit_code == 0 or result.exit_code in DOCUMENTED, (
            result.exit_code,
            result.stderr[:300],
        )
        if result.exit_code:
            assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr[:300]
        else:
            json.loads(result.stdout)

    run()
    assert codes.get(0, 0) > 10 and codes.get(int(ExitCode.INVALID_INPUT), 0) > 10, codes
    verify = runner.invoke(cli, ["verify", "--json"])
    assert verify.exit_code == 0, verify.output
    assert json.loads(verify.stdout)["pages"]["ok"]
    from veramem_desktop.memory import Memory

    with Memory(isolated_home, passphrase=PASSPHRASE) as mem:
        assert all(mem.get(i).status == "active" for i in seed_ids)
