"""The store commands as a person runs them: the real `veramem` in a subprocess."""

from __future__ import annotations

import json
import re
from pathlib import Path

from support.fixtures import PASSPHRASE, init_store, run_cli
from support.internals import store_of
from veramem_desktop.core.errors import ExitCode


def _init(home: Path) -> str:
    data = init_store(home)  # what `veramem init --json` makes and prints, copied (tests/support/fixtures.py)
    assert data["key"] == "passphrase"
    return str(data["recovery_code"])


def test_init_shows_a_recovery_code_once_and_status_reports_the_store(isolated_home: Path) -> None:
    proc = run_cli("init")
    assert proc.returncode == 0, proc.stderr
    assert "Recovery code" in proc.stdout
    code = re.search(r"([0-9A-Z]{4}(-[0-9A-Z]{1,4}){13})", proc.stdout)
    assert code is not None
    status = run_cli()
    info = json.loads(run_cli("status", "--json").stdout)
    assert status.returncode == 0 and info["ledger"]["ok"] and info["counts"]["episodes"] == 0
    # The code shown is not kept anywhere in the home folder.
    for path in isolated_home.rglob("*"):
        if path.is_file():
            assert code.group(1).encode() not in path.read_bytes()
    second = run_cli("init")
    assert second.returncode == ExitCode.INVALID_INPUT and "already exists" in second.stderr


def test_status_without_a_store_says_how_to_make_one(isolated_home: Path) -> None:
    proc = run_cli()
    assert proc.returncode == ExitCode.NOT_INITIALISED
    assert "veramem init" in proc.stdout


def test_wrong_passphrase_gives_one_line_and_its_exit_code(isolated_home: Path) -> None:
    _init(isolated_home)
    run_cli("add", "keep this")
    proc = run_cli("episodes", env={"VERAMEM_PASSPHRASE": "wrong"})
    assert proc.returncode == ExitCode.WRONG_KEY
    assert proc.stderr.strip().count("\n") == 0 and "Wrong passphrase" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_missing_passphrase_without_a_terminal_is_a_clear_error(isolated_home: Path) -> None:
    _init(isolated_home)
    proc = run_cli("episodes", env={"VERAMEM_PASSPHRASE": ""})
    assert proc.returncode == ExitCode.LOCKED
    assert "VERAMEM_PASSPHRASE" in proc.stderr and "Traceback" not in proc.stderr


def test_a_damaged_store_file_is_not_mistaken_for_a_wrong_key(isolated_home: Path) -> None:
    _init(isolated_home)
    store = isolated_home / "data" / "veramem.db"
    store.write_bytes(b"\x00garbage" * 1000)
    proc = run_cli("episodes")
    assert proc.returncode == ExitCode.NOT_A_STORE
    assert "not a VeraMem store" in proc.stderr and "Traceback" not in proc.stderr


def test_recovery_code_reopens_the_store_under_a_new_passphrase(isolated_home: Path) -> None:
    code = _init(isolated_home)
    run_cli("add", "remember the blue door")
    env = {"VERAMEM_RECOVERY_CODE": code, "VERAMEM_PASSPHRASE": "a brand new passphrase"}
    proc = run_cli("unlock", "--recovery-code", env=env)
    assert proc.returncode == 0, proc.stderr
    assert run_cli("episodes", env={"VERAMEM_PASSPHRASE": PASSPHRASE}).returncode == ExitCode.WRONG_KEY
    listed = run_cli("episodes", env={"VERAMEM_PASSPHRASE": "a brand new passphrase"})
    assert "blue door" in listed.stdout


def test_a_mistyped_recovery_code_changes_nothing(isolated_home: Path) -> None:
    code = _init(isolated_home)
    typo = ("1" if code[0] != "1" else "2") + code[1:]
    proc = run_cli("unlock", "--recovery-code", env={"VERAMEM_RECOVERY_CODE": typo})
    assert proc.returncode in (ExitCode.INVALID_INPUT, ExitCode.WRONG_KEY)
    assert run_cli("episodes").returncode == 0


def test_add_reads_text_stdin_files_and_message_lists(isolated_home: Path, tmp_path: Path) -> None:
    _init(isolated_home)
    assert run_cli("add", "plain words", "--session", "s").returncode == 0
    assert run_cli("add", "-", "--session", "s", input="from stdin").returncode == 0
    msgs = [
        {"role": "user", "content": "list one", "time": "2024-05-08T13:56:00Z"},
        {"role": "assistant", "content": "list two", "name": "helper"},
    ]
    listing = tmp_path / "msgs.json"
    listing.write_text(json.dumps(msgs))
    out = run_cli("add", "--file", str(listing), "--session", "s", "--json")
    assert out.returncode == 0, out.stderr
    added = json.loads(out.stdout)["episodes"]
    assert [e["role"] for e in added] == ["user", "assistant"]
    assert added[0]["event_time"].startswith("2024-05-08T13:56:00")
    shown = json.loads(run_cli("episodes", "--session", "s", "--json").stdout)
    assert [e["content"] for e in shown] == ["list one", "plain words", "from stdin", "list two"]


def test_add_refuses_broken_json_and_invalid_bytes_are_reported(isolated_home: Path, tmp_path: Path) -> None:
    _init(isolated_home)
    bad = run_cli("add", '[{"role": "user", "content": "oops"')
    assert bad.returncode == ExitCode.INVALID_INPUT and "not valid JSON" in bad.stderr
    raw = tmp_path / "latin1.txt"
    raw.write_bytes("caf\xe9 au lait".encode("latin-1"))
    proc = run_cli("add", "--file", str(raw))
    assert proc.returncode == 0 and "not UTF-8" in proc.stderr
    assert "caf\ufffd au lait" in run_cli("episodes").stdout


def test_verify_exit_code_names_the_bad_entry(isolated_home: Path) -> None:
    _init(isolated_home)
    run_cli("add", "one", "--session", "x")
    run_cli("add", "two", "--session", "x")
    from veramem_desktop.memory import Memory

    mem = Memory(isolated_home)
    with store_of(mem).atomic() as conn:
        conn.execute("UPDATE ledger SET commitment = 'ff' WHERE seq = 2")
    mem.close()
    proc = run_cli("verify")
    assert proc.returncode == ExitCode.LEDGER_BROKEN
    assert "first bad entry 2" in proc.stdout


def test_every_command_has_help_and_is_in_the_command_reference() -> None:
    from veramem_desktop.cli import COMMANDS

    # the README shows daily use and links the reference, docs/cli.md, which lists every command
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    reference = (root / "docs" / "cli.md").read_text()
    assert "docs/cli.md" in readme, "the README does not link the command reference"
    for name in COMMANDS:
        proc = run_cli(name, "--help")
        assert proc.returncode == 0 and len(proc.stdout) > 80, name
        assert f"veramem {name}" in reference, f"`veramem {name}` is not documented in docs/cli.md"
