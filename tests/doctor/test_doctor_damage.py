"""`veramem doctor` reads the store file, key file and WAL before opening anything, names what is
emptied, truncated or damaged with what to do (exit 6), and changes nothing on disk."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE, init_store, run_cli
from veramem_desktop.core.errors import ExitCode
from veramem_desktop.core.storage.wal import FRAME_HEADER_BYTES, HEADER_BYTES, read_wal

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


def _snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "logs" not in p.parts
    }


def _doctor(home: Path | None = None) -> tuple[int, dict[str, dict[str, object]]]:
    env = {"VERAMEM_HOME": str(home)} if home else None
    proc = run_cli("doctor", "--json", env=env)
    assert "This is a bug" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, {c["name"]: c for c in json.loads(proc.stdout)["checks"]}


def _live_store_with_wal(home: Path, copy: Path) -> Path:
    """A copy of a home taken while its store is open, so the WAL holds transactions not yet folded in."""
    config = Config()
    config.llm.backend = "rule-based"
    config.organise.linking = False
    mem, _ = Memory.create(
        home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), config=config
    )
    try:
        for line in ("I live in Lisbon.", "I like green tea.", "My sister is called Ana."):
            mem.add(line)
        shutil.copytree(home, copy)
    finally:
        mem.close()
    wal = copy / "data" / "veramem.db-wal"
    assert wal.exists() and wal.stat().st_size > HEADER_BYTES
    return wal


def test_a_healthy_store_passes_every_file_and_page_check(isolated_home: Path) -> None:
    init_store(isolated_home)  # what `veramem init` makes, copied (tests/support/fixtures.py)
    code, checks = _doctor()
    assert code == 0
    assert all(checks[name]["ok"] for name in ("file", "keyfile", "wal", "pages", "store", "ledger"))
    assert "cipher_integrity_check" in str(checks["pages"]["detail"])


@pytest.mark.parametrize(
    "damage,said",
    [
        (lambda p: p.write_bytes(b""), "emptied"),
        (lambda p: p.write_bytes(p.read_bytes()[:-1000]), "truncated"),
    ],
    ids=["emptied", "truncated"],
)
def test_doctor_names_an_emptied_or_truncated_store_file_and_leaves_it_alone(
    isolated_home: Path, damage: object, said: str
) -> None:
    init_store(isolated_home)  # what `veramem init` makes, copied (tests/support/fixtures.py)
    store = isolated_home / "data" / "veramem.db"
    damage(store)  # type: ignore[operator]
    before = _snapshot(isolated_home)
    code, checks = _doctor()
    assert code == ExitCode.NOT_A_STORE
    assert not checks["file"]["ok"] and said in str(checks["file"]["detail"])
    assert "init --force" in str(checks["file"]["fix"]) and not checks["store"]["ok"]
    assert _snapshot(isolated_home) == before


def test_doctor_finds_one_flipped_bit_with_the_page_check(isolated_home: Path) -> None:
    init_store(isolated_home)  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("add", "I live in Lisbon.").returncode == 0
    store = isolated_home / "data" / "veramem.db"
    data = bytearray(store.read_bytes())
    data[len(data) - 4096 + 200] ^= 0x01  # the last page: no ordinary open reads it
    store.write_bytes(bytes(data))
    before = _snapshot(isolated_home)
    code, checks = _doctor()
    assert code == ExitCode.NOT_A_STORE
    assert not checks["pages"]["ok"] and "HMAC" in str(checks["pages"]["detail"])
    assert _snapshot(isolated_home) == before


def test_doctor_names_a_damaged_key_file_with_the_recovery_code_as_the_fix(isolated_home: Path) -> None:
    init_store(isolated_home)  # what `veramem init` makes, copied (tests/support/fixtures.py)
    keyfile = isolated_home / "data" / "veramem.keys.json"
    data = json.loads(keyfile.read_text())
    data["opslimit"] = "two"
    keyfile.write_text(json.dumps(data))
    code, checks = _doctor()
    assert code == ExitCode.NOT_A_STORE
    assert not checks["keyfile"]["ok"] and "opslimit" in str(checks["keyfile"]["detail"])
    assert "unlock --recovery-code" in str(checks["keyfile"]["fix"])


def test_doctor_reads_a_whole_wal_as_transactions_not_yet_folded_in(
    isolated_home: Path, tmp_path: Path
) -> None:
    _live_store_with_wal(isolated_home, tmp_path / "copy")
    _, checks = _doctor(tmp_path / "copy")
    # the test's hash embedder filled the store: its vectors are rightly named as another model's
    assert [name for name, c in checks.items() if not c["ok"]] == ["vectors"], checks
    assert checks["wal"]["ok"] and "transaction(s) not yet folded" in str(checks["wal"]["detail"])


def test_doctor_names_a_damaged_wal_and_does_not_open_the_store(isolated_home: Path, tmp_path: Path) -> None:
    wal = _live_store_with_wal(isolated_home, tmp_path / "copy")
    data = bytearray(wal.read_bytes())
    data[HEADER_BYTES + FRAME_HEADER_BYTES + 50] ^= 0x01  # inside the first frame's page
    wal.write_bytes(bytes(data))
    before = _snapshot(tmp_path / "copy")
    code, checks = _doctor(tmp_path / "copy")
    assert code == ExitCode.NOT_A_STORE
    assert not checks["wal"]["ok"] and "frame 1" in str(checks["wal"]["detail"])
    assert "copy veramem.db and veramem.db-wal aside" in str(checks["wal"]["fix"])
    assert _snapshot(tmp_path / "copy") == before  # the WAL was not folded in (nor its frames dropped)


def test_read_wal_follows_sqlites_checksum_chain(isolated_home: Path, tmp_path: Path) -> None:
    wal = _live_store_with_wal(isolated_home, tmp_path / "copy")
    data = wal.read_bytes()
    whole = read_wal(data)
    assert not whole.damaged and whole.frames > 3 and whole.transactions >= 3
    frame = FRAME_HEADER_BYTES + whole.page_size
    flipped = bytearray(data)
    flipped[HEADER_BYTES + 2 * frame + FRAME_HEADER_BYTES + 7] ^= 0x04  # a byte inside the third frame's page
    report = read_wal(bytes(flipped))
    assert report.damaged and "frame 3" in report.problem and report.frames < whole.frames
    header = bytearray(data)
    header[12] ^= 0x01  # the checkpoint sequence: covered by the header checksum
    assert "header" in read_wal(bytes(header)).problem
    torn = read_wal(data[:-100])
    assert not torn.damaged and torn.torn_bytes > 0
