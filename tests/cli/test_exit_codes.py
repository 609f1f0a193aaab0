"""One exit code per cause, each caused for real: the installed `veramem` in a subprocess, on real store files.

Locked with no way to ask, key missing, damaged (the store and a backup) and wrong key each end with their
own code and a one-line message that names the cause; the table in docs/exit-codes.md lists every code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.fixtures import init_store, run_cli
from veramem_desktop.core.errors import ExitCode

from veramem_desktop.config import resolve_paths

DOCS = Path(__file__).resolve().parents[2] / "docs" / "exit-codes.md"
NO_TERMINAL = ""  # run_cli with input: stdin is a pipe, not a TTY


def _one_line(proc: object, code: ExitCode) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stderr)  # type: ignore[attr-defined]
    err: str = proc.stderr.strip()  # type: ignore[attr-defined]
    assert err.count("\n") == 0 and "Traceback" not in err, err
    return err


@pytest.fixture
def store(isolated_home: Path) -> Path:
    init_store(isolated_home)  # what `veramem init --json` makes, copied (tests/support/fixtures.py)
    assert run_cli("add", "The spare key hangs behind the blue door.", input=NO_TERMINAL).returncode == 0
    return isolated_home


def test_a_locked_store_with_no_terminal_and_no_passphrase_says_locked_not_key_missing(store: Path) -> None:
    proc = run_cli("episodes", input=NO_TERMINAL, env={"VERAMEM_PASSPHRASE": ""})
    err = _one_line(proc, ExitCode.LOCKED)
    assert "Passphrase needed" in err and "VERAMEM_PASSPHRASE" in err and "Key not found" not in err


def test_changing_the_passphrase_with_stdin_closed_says_locked(store: Path) -> None:
    proc = run_cli("passphrase", input=NO_TERMINAL, env={"VERAMEM_PASSPHRASE": ""})
    err = _one_line(proc, ExitCode.LOCKED)
    assert "no terminal" in err
    # with the current passphrase but no new one, it is still the lack of a way to ask
    proc = run_cli("passphrase", input=NO_TERMINAL, env={"VERAMEM_NEW_PASSPHRASE": ""})
    assert "VERAMEM_NEW_PASSPHRASE" in _one_line(proc, ExitCode.LOCKED)


def test_a_key_gone_from_the_keyring_is_missing_not_locked(store: Path) -> None:
    keyinfo = resolve_paths(store).keyinfo
    info = json.loads(keyinfo.read_text())
    # the key information of a store whose key was kept in an OS keyring that has since lost it
    info.update(mode="keyring", salt="", wrapped_key="", opslimit=0, memlimit=0)
    keyinfo.write_text(json.dumps(info))
    proc = run_cli("episodes", input=NO_TERMINAL)
    assert "Key not found" in _one_line(proc, ExitCode.MISSING_KEY)


def test_a_wrong_passphrase_is_a_wrong_key(store: Path) -> None:
    proc = run_cli("episodes", input=NO_TERMINAL, env={"VERAMEM_PASSPHRASE": "not it"})
    assert "Wrong passphrase" in _one_line(proc, ExitCode.WRONG_KEY)


def test_a_store_file_with_one_flipped_byte_is_damaged_not_a_wrong_key(store: Path) -> None:
    db = resolve_paths(store).store
    data = bytearray(db.read_bytes())
    data[100] ^= 0x01
    db.write_bytes(bytes(data))
    proc = run_cli("episodes", input=NO_TERMINAL)
    err = _one_line(proc, ExitCode.NOT_A_STORE)
    assert "damaged" in err and "Wrong passphrase" not in err


@pytest.mark.parametrize("offset", [3, 40, 700])
def test_a_backup_with_one_flipped_byte_near_its_start_is_damaged(
    store: Path, tmp_path: Path, offset: int
) -> None:
    """Offset 3 is in the salt (every page's HMAC key changes), 40 and 700 are in page 1's ciphertext."""
    good = tmp_path / "good.db"
    assert run_cli("backup", str(good), input=NO_TERMINAL).returncode == 0
    data = bytearray(good.read_bytes())
    data[offset] ^= 0x01
    bad = tmp_path / "bad.db"
    bad.write_bytes(bytes(data))
    proc = run_cli("restore", str(bad), "--force", input=NO_TERMINAL)
    err = _one_line(proc, ExitCode.NOT_A_STORE)
    assert "Backup damaged" in err and "Wrong passphrase" not in err


def test_a_backup_of_another_store_is_a_wrong_key_not_damage(store: Path, tmp_path: Path) -> None:
    other_home = tmp_path / "other"
    env = {"VERAMEM_HOME": str(other_home)}
    assert run_cli("init", input=NO_TERMINAL, env=env).returncode == 0
    foreign = tmp_path / "foreign.db"
    assert run_cli("backup", str(foreign), input=NO_TERMINAL, env=env).returncode == 0
    proc = run_cli("restore", str(foreign), "--force", input=NO_TERMINAL)
    err = _one_line(proc, ExitCode.WRONG_KEY)
    assert "damaged" not in err.split(":", 1)[0]


def test_the_exit_code_table_lists_every_code_once() -> None:
    rows = re.findall(r"^\| +(\d+) \| `(\w+)` \|", DOCS.read_text(), flags=re.MULTILINE)
    assert sorted((int(n), name) for n, name in rows) == sorted((int(c), c.name) for c in ExitCode)


def test_the_help_points_to_the_exit_code_table() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0 and "docs/exit-codes.md" in proc.stdout
