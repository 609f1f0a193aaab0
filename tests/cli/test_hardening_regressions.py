"""Issue 16's reproductions, each as the real `veramem` in a subprocess: a clear one-line error
with its documented exit code, never "This is a bug", and nothing already stored is lost."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from support.fixtures import init_store, run_cli
from veramem_desktop.core.errors import ExitCode


def _init(home: Path) -> str:
    made = init_store(home)  # what `veramem init --json` makes, copied (tests/support/fixtures.py)
    assert run_cli("config", "set", "llm.backend", "rule-based").returncode == 0
    return str(made["recovery_code"])


def _one_clear_line(proc: object, code: int) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stderr)  # type: ignore[attr-defined]
    err = proc.stderr  # type: ignore[attr-defined]
    assert "This is a bug" not in err and "Traceback" not in err, err
    assert err.strip().startswith("error: ") and err.strip().count("\n") == 0, err


def _episodes() -> list[str]:
    proc = run_cli("episodes", "--json")
    assert proc.returncode == 0, proc.stderr
    return [e["content"] for e in json.loads(proc.stdout)]


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with the sha256 of its bytes."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# ------------------------------------------------------------------ add input
def test_add_of_a_list_nested_100000_levels_deep_is_invalid_input(
    isolated_home: Path, tmp_path: Path
) -> None:
    _init(isolated_home)
    assert run_cli("add", "I live in Lisbon.").returncode == 0
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    proc = run_cli("add", "--file", str(deep))
    _one_clear_line(proc, ExitCode.INVALID_INPUT)
    assert "nests deeper than" in proc.stderr
    assert _episodes() == ["I live in Lisbon."]


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00Z", "0001-01-01"])
def test_add_with_a_message_time_in_year_one_is_invalid_input_and_stores_nothing(
    isolated_home: Path, when: str
) -> None:
    _init(isolated_home)
    assert run_cli("add", "I live in Lisbon.").returncode == 0
    proc = run_cli("add", json.dumps([{"role": "user", "content": "I moved to Porto in May.", "time": when}]))
    _one_clear_line(proc, ExitCode.INVALID_INPUT)
    assert "outside the supported range" in proc.stderr
    assert _episodes() == ["I live in Lisbon."]
    assert run_cli("verify").returncode == 0


@pytest.mark.parametrize(
    "name", [{"first": "Ana"}, ["Ana"], 42, "Ana\udfff"], ids=["object", "list", "number", "lone-surrogate"]
)
def test_add_with_a_name_that_is_not_one_line_of_text_is_invalid_input(
    isolated_home: Path, name: object
) -> None:
    _init(isolated_home)
    payload = json.dumps(
        [{"role": "user", "content": "I like green tea.", "name": name}]
    )  # \udfff stays escaped
    proc = run_cli("add", payload)
    _one_clear_line(proc, ExitCode.INVALID_INPUT)
    assert "name" in proc.stderr
    assert _episodes() == []


# ------------------------------------------------------------------ key file
@pytest.mark.parametrize(
    "field,value,said",
    [
        ("salt", "!!! not base64 !!!", "salt is not base64"),
        ("salt", "AAAA", "salt is 3 bytes"),
        ("opslimit", "two", "opslimit is not a whole number"),
    ],
    ids=["salt-not-base64", "salt-too-short", "opslimit-a-string"],
)
def test_a_damaged_key_file_is_exit_6_saying_what_to_do(
    isolated_home: Path, field: str, value: str, said: str
) -> None:
    _init(isolated_home)
    run_cli("add", "I live in Lisbon.")
    keyfile = isolated_home / "data" / "veramem.keys.json"
    data = json.loads(keyfile.read_text())
    data[field] = value
    keyfile.write_text(json.dumps(data))
    store_before = _snapshot(isolated_home / "data")
    for command in (("status",), ("search", "Lisbon"), ("add", "more"), ("verify",)):
        proc = run_cli(*command)
        _one_clear_line(proc, ExitCode.NOT_A_STORE)
        assert said in proc.stderr and "veramem.keys.json" in proc.stderr
        assert "unlock --recovery-code" in proc.stderr
    assert _snapshot(isolated_home / "data") == store_before


@pytest.mark.parametrize("damage", ["truncated", "deleted"])
def test_the_recovery_code_writes_a_damaged_or_lost_key_file_again(isolated_home: Path, damage: str) -> None:
    code = _init(isolated_home)
    run_cli("add", "remember the blue door")
    keyfile = isolated_home / "data" / "veramem.keys.json"
    if damage == "truncated":
        keyfile.write_text('{"salt": ')
    else:
        keyfile.unlink()
    assert run_cli("episodes").returncode == ExitCode.NOT_A_STORE
    proc = run_cli("unlock", "--recovery-code", env={"VERAMEM_RECOVERY_CODE": code})
    assert proc.returncode == 0, proc.stderr
    assert _episodes() == ["remember the blue door"]


# ------------------------------------------------------------------ store file
def _flip_bit(path: Path, page: int) -> None:
    data = bytearray(path.read_bytes())
    data[4096 * page + 100] ^= 0x10
    path.write_bytes(bytes(data))


def _store_with_memories(home: Path) -> Path:
    _init(home)
    lines = ["I live in Lisbon.", "I like green tea.", "My sister is called Ana."]
    assert run_cli("add", json.dumps([{"role": "user", "content": line} for line in lines])).returncode == 0
    return home / "data" / "veramem.db"


@pytest.mark.parametrize("page", [3, -2], ids=["page-read-at-open", "page-read-only-by-the-check"])
def test_one_flipped_bit_in_the_store_is_exit_6_for_verify_search_and_status_and_left_untouched(
    isolated_home: Path, page: int
) -> None:
    store = _store_with_memories(isolated_home)
    _flip_bit(store, page if page >= 0 else store.stat().st_size // 4096 + page)
    before = _snapshot(isolated_home / "data")
    for command in (("verify",), ("status",)):
        proc = run_cli(*command)
        _one_clear_line(proc, ExitCode.NOT_A_STORE)
        assert str(store) in proc.stderr and "Restore it from a backup" in proc.stderr
    search = run_cli("search", "Lisbon")
    if page >= 0:  # a page every open reads: search is refused too
        _one_clear_line(search, ExitCode.NOT_A_STORE)
    else:  # a page search never reads: search may answer, but never crash
        assert search.returncode in (0, ExitCode.NOT_A_STORE), search.stderr
        assert "This is a bug" not in search.stderr
    assert _snapshot(isolated_home / "data") == before


def test_an_emptied_store_is_refused_by_every_command_and_left_untouched(isolated_home: Path) -> None:
    store = _store_with_memories(isolated_home)
    store.write_bytes(b"")  # `: > veramem.db`
    before = _snapshot(isolated_home)
    for command in (
        ("status",),
        ("verify",),
        ("search", "Lisbon"),
        ("add", "new words"),
        ("episodes",),
        ("init",),
    ):
        proc = run_cli(*command)
        _one_clear_line(proc, ExitCode.NOT_A_STORE)
        assert "empty" in proc.stderr and "init --force" in proc.stderr
    doctor = run_cli("doctor")
    assert doctor.returncode != 0 and "emptied" in doctor.stdout
    assert _snapshot(isolated_home) == before
    assert store.stat().st_size == 0


def test_a_missing_store_file_with_its_key_file_is_refused_not_made_again(isolated_home: Path) -> None:
    store = _store_with_memories(isolated_home)
    store.unlink()
    before = _snapshot(isolated_home)
    for command in (("status",), ("add", "new words"), ("init",)):
        proc = run_cli(*command)
        _one_clear_line(proc, ExitCode.NOT_A_STORE)
        assert "missing" in proc.stderr and "init --force" in proc.stderr
    assert _snapshot(isolated_home) == before and not store.exists()


def test_init_force_starts_an_empty_store_and_keeps_the_old_files_aside(isolated_home: Path) -> None:
    store = _store_with_memories(isolated_home)
    store.write_bytes(b"")
    proc = run_cli("init", "--force")
    assert proc.returncode == 0, proc.stderr
    kept = sorted(p.name.split(".replaced-")[0] for p in store.parent.glob("*.replaced-*"))
    assert kept == ["veramem.db", "veramem.keys.json"]
    assert _episodes() == [] and run_cli("verify").returncode == 0


def test_a_healthy_store_is_not_replaced_by_init_without_force(isolated_home: Path) -> None:
    _store_with_memories(isolated_home)
    before = _snapshot(isolated_home / "data")
    proc = run_cli("init")
    _one_clear_line(proc, ExitCode.INVALID_INPUT)
    assert _snapshot(isolated_home / "data") == before and len(_episodes()) == 3


def test_a_data_folder_gone_whole_is_refused_while_the_settings_record_an_init(isolated_home: Path) -> None:
    _init(isolated_home)
    data = isolated_home / "data"
    for path in data.iterdir():  # e.g. the store lives on a drive that is not mounted
        path.unlink()
    for command in (("status",), ("add", "new words"), ("init",)):
        proc = run_cli(*command)
        _one_clear_line(proc, ExitCode.NOT_A_STORE)
        assert "missing" in proc.stderr and "init --force" in proc.stderr
    assert list(data.iterdir()) == []
    assert run_cli("init", "--force").returncode == 0
