"""The opening service finds, makes and opens the store of one home without the facade: a fresh
home is refused, a store made here is never replaced unless forced, and forcing keeps the old
files aside (a real SQLCipher file, a real passphrase-wrapped key)."""

from __future__ import annotations

from pathlib import Path

import pytest
from veramem_desktop.core.errors import InvalidInputError, NotInitialisedError, StoreDamagedError

from veramem_desktop.config import load_config, resolve_paths
from veramem_desktop.keys import KeyManager
from veramem_desktop.services.opening import Opening

PASSPHRASE = "correct horse battery staple"


def _opening(home: Path) -> Opening:
    paths = resolve_paths(home)
    return Opening(paths, load_config(paths), KeyManager(paths.keyinfo))


def test_a_fresh_home_is_refused_as_not_initialised_and_nothing_is_created(tmp_path: Path) -> None:
    opening = _opening(tmp_path)
    assert opening.evidence() == []
    with pytest.raises(NotInitialisedError):
        opening.open(PASSPHRASE)
    assert not opening.store_path.exists()


def test_a_made_store_opens_again_and_is_never_replaced_without_force(tmp_path: Path) -> None:
    store, _ = _opening(tmp_path).create(passphrase=PASSPHRASE, use_keyring=False, force=False)
    store_id = store.get_meta("store_id")
    store.close()
    with pytest.raises(InvalidInputError, match="already exists"):
        _opening(tmp_path).create(passphrase=PASSPHRASE, use_keyring=False, force=False)
    again = _opening(tmp_path).open(PASSPHRASE)
    try:
        assert again.get_meta("store_id") == store_id
    finally:
        again.close()


def test_forcing_keeps_the_old_files_aside_and_makes_a_new_store(tmp_path: Path) -> None:
    first, _ = _opening(tmp_path).create(passphrase=PASSPHRASE, use_keyring=False, force=False)
    old_id = first.get_meta("store_id")
    first.close()
    opening = _opening(tmp_path)
    second, _ = opening.create(passphrase=PASSPHRASE, use_keyring=False, force=True)
    try:
        assert second.get_meta("store_id") != old_id
    finally:
        second.close()
    kept = sorted(p.name for p in opening.store_path.parent.iterdir() if ".replaced-" in p.name)
    assert any(name.startswith(opening.store_path.name + ".replaced-") for name in kept)


def test_a_store_whose_file_is_gone_is_reported_damaged_naming_the_missing_file(tmp_path: Path) -> None:
    store, _ = _opening(tmp_path).create(passphrase=PASSPHRASE, use_keyring=False, force=False)
    store.close()
    opening = _opening(tmp_path)
    opening.store_path.unlink()
    assert opening.missing_part().startswith(f"its file {opening.store_path} is missing")
    with pytest.raises(StoreDamagedError, match="is missing"):
        opening.open(PASSPHRASE)
