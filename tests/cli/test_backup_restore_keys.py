"""Backup, restore, a new passphrase and a new store key, run as a person runs them (the real CLI)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE, run_cli
from support.internals import store_of
from veramem_desktop.core.errors import ExitCode, WrongKeyError
from veramem_desktop.core.storage import ledger_verify
from veramem_desktop.core.storage.store import Store

from veramem_desktop.backup import authentic_pages, check_copy
from veramem_desktop.config import Config, resolve_paths
from veramem_desktop.keys import KeyManager, decode_recovery_code
from veramem_desktop.memory import Memory
from veramem_desktop.pages import plaintext_of_store

TESTS = Path(__file__).resolve().parents[1]
NEW_PASSPHRASE = "a completely different passphrase"


def _create(home: Path) -> tuple[Memory, str]:
    config = Config()
    config.organise.linking = False
    config.llm.backend = "rule-based"
    mem, new_key = Memory.create(
        home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), config=config
    )
    return mem, new_key.recovery_code


def _key(home: Path, passphrase: str = PASSPHRASE) -> bytes:
    return KeyManager(resolve_paths(home).keyinfo).load(passphrase=passphrase)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _episode_texts(home: Path) -> list[str]:
    with Memory(home, embedder=HashEmbedder()) as mem:
        return [e.content for e in mem.episodes(limit=1000)]


def test_a_backup_taken_while_another_process_writes_opens_and_verifies(
    isolated_home: Path, tmp_path: Path
) -> None:
    mem, _ = _create(isolated_home)
    mem.add("The qxzbackupmarker box is in the attic.", session_id="s")
    mem.close()
    writer = subprocess.Popen(
        [sys.executable, "-m", "support.writer", str(isolated_home), "60", "w"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(TESTS)},
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "ready"
        assert writer.stdout.readline().startswith("ep_")  # it is writing now
        copies = []
        for i in range(3):
            target = tmp_path / f"backup-{i}.db"
            proc = run_cli("backup", str(target), "--json")
            assert proc.returncode == 0, proc.stderr
            copies.append((target, json.loads(proc.stdout)))
        assert writer.poll() is None, "the writer stopped before the backups were done"
    finally:
        writer.terminate()  # an interrupted write transaction is simply not there
        writer.communicate(timeout=60)
    key = _key(isolated_home)
    heads = []
    for target, report in copies:
        raw = target.read_bytes()
        assert not raw.startswith(b"SQLite format 3") and b"qxzbackupmarker" not in raw
        good, pages, first_bad = authentic_pages(target, key)
        assert good == pages > 0 and first_bad is None  # every page is ciphertext under the store key
        assert b"qxzbackupmarker" in plaintext_of_store(target, key)  # and it is the store's content
        assert target.stat().st_mode & 0o777 == 0o600
        check = check_copy(target, key)
        assert check.head_seq == report["head_seq"]
        store = Store.open(target, key)
        try:
            assert ledger_verify.verify(store).ok
        finally:
            store.close()
        heads.append(check.head_seq)
    assert heads[-1] > heads[0], "the writer's entries should land between the backups"
    assert not list(tmp_path.glob(".*partial*"))


def test_restore_refuses_a_damaged_backup_and_changes_nothing(isolated_home: Path, tmp_path: Path) -> None:
    mem, _ = _create(isolated_home)
    mem.add("I keep the spare key with my neighbour.", session_id="s")
    store_path = mem.store_path
    mem.close()
    target = tmp_path / "good.db"
    assert run_cli("backup", str(target)).returncode == 0
    before = _digest(store_path)
    damaged = tmp_path / "damaged.db"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one bit pattern in one page of the middle
    damaged.write_bytes(bytes(data))
    truncated = tmp_path / "truncated.db"
    truncated.write_bytes(target.read_bytes()[: len(data) // 3])
    for bad in (damaged, truncated):
        proc = run_cli("restore", str(bad), "--force")
        assert proc.returncode == ExitCode.NOT_A_STORE, proc.stderr
        assert _digest(store_path) == before
    assert "I keep the spare key with my neighbour." in _episode_texts(isolated_home)
    assert run_cli("restore", str(target)).returncode == 0  # the whole backup of the same state restores


def test_restore_refuses_an_older_backup_unless_forced(isolated_home: Path, tmp_path: Path) -> None:
    mem, _ = _create(isolated_home)
    mem.add("First note: the boiler was serviced in May.", session_id="s")
    mem.close()
    target = tmp_path / "older.db"
    assert run_cli("backup", str(target)).returncode == 0
    with Memory(isolated_home, embedder=HashEmbedder()) as again:
        again.add("Second note: the car goes for its inspection in June.", session_id="s")
    refused = run_cli("restore", str(target))
    assert refused.returncode == ExitCode.REFUSED
    assert "newer than the backup" in refused.stderr and "nothing was changed" in refused.stderr
    assert "Second note: the car goes for its inspection in June." in _episode_texts(isolated_home)
    forced = run_cli("restore", str(target), "--force")
    assert forced.returncode == 0, forced.stderr
    texts = _episode_texts(isolated_home)
    assert "First note: the boiler was serviced in May." in texts
    assert "Second note: the car goes for its inspection in June." not in texts
    with Memory(isolated_home, embedder=HashEmbedder()) as after:
        assert after.verify().ok
    assert sorted(p.name for p in resolve_paths(isolated_home).data_dir.iterdir()) == [
        "veramem.db",
        "veramem.keys.json",
    ]  # the replaced store was erased once the restore verified


def test_restore_refuses_to_go_back_behind_entries_already_synced(
    isolated_home: Path, tmp_path: Path
) -> None:
    mem, _ = _create(isolated_home)
    mem.add("Before the backup.", session_id="s")
    (tmp_path / "sync-folder").mkdir()
    mem.sync.init(tmp_path / "sync-folder", "laptop")
    mem.close()
    target = tmp_path / "before-sync.db"
    assert run_cli("backup", str(target)).returncode == 0
    with Memory(isolated_home, embedder=HashEmbedder()) as again:
        again.add("After the backup, and sent to the other devices.", session_id="s")
        assert again.sync.run().exported_events > 0
    refused = run_cli("restore", str(target))
    assert refused.returncode == ExitCode.REFUSED
    assert "synced ledger entries" in refused.stderr


def test_restore_brings_back_a_store_that_no_longer_opens(isolated_home: Path, tmp_path: Path) -> None:
    mem, _ = _create(isolated_home)
    mem.add("The plants need water on Sundays.", session_id="s")
    store_path = mem.store_path
    mem.close()
    target = tmp_path / "rescue.db"
    assert run_cli("backup", str(target)).returncode == 0
    data = bytearray(store_path.read_bytes())
    data[4096:8192] = os.urandom(4096)  # page 2 destroyed
    store_path.write_bytes(bytes(data))
    proc = run_cli("restore", str(target))
    assert proc.returncode == 0, proc.stderr
    assert "The plants need water on Sundays." in _episode_texts(isolated_home)


def test_after_a_passphrase_change_the_old_one_fails_and_the_new_one_opens(isolated_home: Path) -> None:
    mem, _ = _create(isolated_home)
    mem.add("Passphrase test note.", session_id="s")
    mem.close()
    assert run_cli("passphrase", NEW_PASSPHRASE).returncode == ExitCode.USAGE  # never a plain argument
    proc = run_cli("passphrase", env={"VERAMEM_NEW_PASSPHRASE": NEW_PASSPHRASE})
    assert proc.returncode == 0, proc.stderr
    with pytest.raises(WrongKeyError):
        _ = store_of(Memory(isolated_home, passphrase=PASSPHRASE, embedder=HashEmbedder()))
    old = run_cli("status", env={"VERAMEM_PASSPHRASE": PASSPHRASE})
    assert old.returncode == ExitCode.WRONG_KEY
    new = run_cli("status", "--json", env={"VERAMEM_PASSPHRASE": NEW_PASSPHRASE})
    assert new.returncode == 0 and json.loads(new.stdout)["counts"]["episodes"] == 1
    assert NEW_PASSPHRASE.encode() not in resolve_paths(isolated_home).keyinfo.read_bytes()


def test_moving_the_key_to_the_keyring_is_refused_where_there_is_none(isolated_home: Path) -> None:
    mem, _ = _create(isolated_home)
    mem.close()
    proc = run_cli("passphrase", "--to-keyring")
    assert proc.returncode == ExitCode.MISSING_KEY and "keyring" in proc.stderr
    assert _key(isolated_home)  # still under the passphrase


def test_after_rekey_the_old_recovery_code_no_longer_opens_the_store_and_no_page_reads_under_the_old_key(
    isolated_home: Path,
) -> None:
    mem, old_code = _create(isolated_home)
    mem.add("My qxzrekeymarker is written on the blue card.", session_id="s")
    mem.search("qxzrekeymarker")
    store_path = mem.store_path
    mem.close()
    old_key = decode_recovery_code(old_code)
    assert b"qxzrekeymarker" in plaintext_of_store(store_path, old_key)  # the scan reads it under the old key

    proc = run_cli("rekey", "--yes", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["old_key_pages"] == 0 and report["new_key_pages"] == report["pages"] > 0
    assert report["recovery_code"] != old_code

    good, pages, _ = authentic_pages(store_path, old_key)
    assert good == 0 and pages > 0
    assert b"qxzrekeymarker" not in plaintext_of_store(store_path, old_key)
    new_key = decode_recovery_code(report["recovery_code"])
    assert authentic_pages(store_path, new_key)[0] == pages
    assert b"qxzrekeymarker" in plaintext_of_store(store_path, new_key)

    stale = run_cli("unlock", "--recovery-code", env={"VERAMEM_RECOVERY_CODE": old_code})
    assert stale.returncode == ExitCode.WRONG_KEY
    fresh = run_cli("unlock", "--recovery-code", env={"VERAMEM_RECOVERY_CODE": report["recovery_code"]})
    assert fresh.returncode == 0, fresh.stderr
    assert "My qxzrekeymarker is written on the blue card." in _episode_texts(
        isolated_home
    )  # same passphrase


def test_a_backup_made_before_a_rekey_restores_with_its_recovery_code_under_the_new_key(
    isolated_home: Path, tmp_path: Path
) -> None:
    mem, old_code = _create(isolated_home)
    mem.add("Made before the rekey.", session_id="s")
    mem.close()
    target = tmp_path / "old-key.db"
    assert run_cli("backup", str(target)).returncode == 0
    assert run_cli("rekey", "--yes").returncode == 0
    plain = run_cli("restore", str(target))
    assert plain.returncode == ExitCode.WRONG_KEY and "rekey" in plain.stderr
    proc = run_cli("restore", str(target), "--recovery-code", env={"VERAMEM_RECOVERY_CODE": old_code})
    assert proc.returncode == 0, proc.stderr
    assert "Made before the rekey." in _episode_texts(isolated_home)  # opens with the current key
    assert authentic_pages(resolve_paths(isolated_home).store, decode_recovery_code(old_code))[0] == 0


def test_a_backup_restores_on_a_machine_without_the_key_information(
    isolated_home: Path, tmp_path: Path
) -> None:
    mem, code = _create(isolated_home)
    mem.add("Carried to a new laptop.", session_id="s")
    mem.close()
    target = tmp_path / "carry.db"
    assert run_cli("backup", str(target)).returncode == 0
    new_home = tmp_path / "new-laptop"
    env = {
        "VERAMEM_HOME": str(new_home),
        "VERAMEM_RECOVERY_CODE": code,
        "VERAMEM_NEW_PASSPHRASE": NEW_PASSPHRASE,
    }
    proc = run_cli("restore", str(target), "--recovery-code", env=env)
    assert proc.returncode == 0, proc.stderr
    status = run_cli("status", "--json", env={**env, "VERAMEM_PASSPHRASE": NEW_PASSPHRASE})
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["counts"]["episodes"] == 1


def test_the_backup_command_will_not_overwrite_or_target_the_store(
    isolated_home: Path, tmp_path: Path
) -> None:
    mem, _ = _create(isolated_home)
    store_path = mem.store_path
    mem.close()
    target = tmp_path / "b.db"
    assert run_cli("backup", str(target)).returncode == 0
    first = target.stat().st_mtime_ns
    time.sleep(0.01)
    assert run_cli("backup", str(target)).returncode == ExitCode.INVALID_INPUT
    assert target.stat().st_mtime_ns == first
    assert run_cli("backup", str(target), "--overwrite").returncode == 0
    assert run_cli("backup", str(store_path)).returncode == ExitCode.INVALID_INPUT


def test_rekey_and_restore_wait_until_no_other_program_has_the_store_open(
    isolated_home: Path, tmp_path: Path
) -> None:
    mem, code = _create(isolated_home)
    mem.add("Written while the terminal app is open.", session_id="s")
    target = tmp_path / "b.db"
    assert run_cli("backup", str(target)).returncode == 0  # a backup needs no one to leave
    mem.add("A newer note, so the restore has something to replace.", session_id="s")
    keys_before = resolve_paths(isolated_home).keyinfo.read_bytes()

    rekey = run_cli("rekey", "--yes")  # this test process holds the store open, as the TUI would
    assert rekey.returncode == ExitCode.BUSY and "close it" in rekey.stderr
    restore = run_cli("restore", str(target), "--force")
    assert restore.returncode == ExitCode.BUSY

    assert resolve_paths(isolated_home).keyinfo.read_bytes() == keys_before
    assert not list(resolve_paths(isolated_home).data_dir.glob("*.rekey"))
    assert len(mem.episodes()) == 2  # still open, still the same store under the same key
    mem.close()
    assert authentic_pages(mem.store_path, decode_recovery_code(code))[0] > 0
    assert run_cli("rekey", "--yes").returncode == 0  # once it is closed


def test_a_rekey_interrupted_after_the_store_was_re_encrypted_is_finished_by_running_it_again(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veramem_desktop import backup, keys

    mem, _ = _create(isolated_home)
    mem.add("Survives an interrupted rekey.", session_id="s")
    mem.close()
    paths = resolve_paths(isolated_home)
    old_key = _key(isolated_home)

    def power_cut(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(keys, "commit_new_key", power_cut)
    with pytest.raises(KeyboardInterrupt):
        backup.rekey(paths.store, paths.keyinfo, old_key, passphrase=PASSPHRASE)
    assert (
        authentic_pages(paths.store, old_key)[0] == 0
    )  # re-encrypted, but the key information is the old one
    assert run_cli("status").returncode != 0

    finish = run_cli("rekey", "--yes")
    assert finish.returncode == 0, finish.stderr
    assert "interrupted rekey" in finish.stderr
    assert "Survives an interrupted rekey." in _episode_texts(isolated_home)
    assert not keys.pending_keyinfo_path(paths.keyinfo).exists()
