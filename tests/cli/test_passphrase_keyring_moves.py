"""`veramem passphrase --to-keyring / --to-passphrase` move the key, with a real keyring backend
(an in-memory one, plugged in through keyring's own API), run through the real command."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from click.testing import CliRunner
from keyring.backend import KeyringBackend
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from veramem_desktop.core.errors import ExitCode, WrongKeyError

from veramem_desktop.cli import cli
from veramem_desktop.config import resolve_paths
from veramem_desktop.keys import KEYRING_SERVICE, KeyManager, read_keyinfo
from veramem_desktop.memory import Memory

NEW_PASSPHRASE = "moved back out of the keyring"


class MemoryKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.secrets:
            import keyring.errors

            raise keyring.errors.PasswordDeleteError("not found")
        del self.secrets[(service, username)]


@pytest.fixture
def ring(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    monkeypatch.delenv("VERAMEM_NO_KEYRING", raising=False)
    yield backend
    keyring.set_keyring(previous)


def _run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.output


def test_the_key_moves_into_the_keyring_and_back_under_a_new_passphrase(
    isolated_home: Path, ring: MemoryKeyring
) -> None:
    mem, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder())
    mem.add("Kept through every move.", session_id="s")
    mem.close()
    keyinfo = resolve_paths(isolated_home).keyinfo
    store_id = read_keyinfo(keyinfo).store_id

    code, out = _run("passphrase", "--to-keyring")
    assert code == 0, out
    info = read_keyinfo(keyinfo)
    assert info.mode == "keyring" and not info.wrapped_key and not info.salt
    assert (KEYRING_SERVICE, store_id) in ring.secrets
    with Memory(isolated_home, embedder=HashEmbedder()) as opened:  # no passphrase needed now
        assert [e.content for e in opened.episodes()] == ["Kept through every move."]

    code, out = _run("passphrase", "--to-passphrase", env={"VERAMEM_NEW_PASSPHRASE": NEW_PASSPHRASE})
    assert code == 0, out
    assert read_keyinfo(keyinfo).mode == "passphrase"
    assert (KEYRING_SERVICE, store_id) not in ring.secrets  # nothing left behind in the keyring
    with pytest.raises(WrongKeyError):
        KeyManager(keyinfo).load(passphrase=PASSPHRASE)
    assert KeyManager(keyinfo).load(passphrase=NEW_PASSPHRASE)


def test_changing_the_passphrase_of_a_key_kept_in_the_keyring_is_refused(
    isolated_home: Path, ring: MemoryKeyring
) -> None:
    Memory.create(isolated_home, use_keyring=True, embedder=HashEmbedder())[0].close()
    code, _ = _run("passphrase", env={"VERAMEM_NEW_PASSPHRASE": NEW_PASSPHRASE})
    assert code == ExitCode.REFUSED
    assert read_keyinfo(resolve_paths(isolated_home).keyinfo).mode == "keyring"


def test_a_rekey_keeps_the_new_key_in_the_keyring_and_leaves_no_staged_entry(
    isolated_home: Path, ring: MemoryKeyring
) -> None:
    mem, _ = Memory.create(isolated_home, use_keyring=True, embedder=HashEmbedder())
    mem.add("Re-encrypted with the key in the keyring.", session_id="s")
    mem.close()
    store_id = read_keyinfo(resolve_paths(isolated_home).keyinfo).store_id
    old = ring.secrets[(KEYRING_SERVICE, store_id)]
    code, out = _run("rekey", "--yes")
    assert code == 0, out
    assert ring.secrets[(KEYRING_SERVICE, store_id)] != old
    assert set(ring.secrets) == {(KEYRING_SERVICE, store_id)}
    with Memory(isolated_home, embedder=HashEmbedder()) as opened:
        assert [e.content for e in opened.episodes()] == ["Re-encrypted with the key in the keyring."]
