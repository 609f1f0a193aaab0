"""Backups, restores and a new store key.

A backup is an online copy made with SQLite's backup API (core/storage/copies.py runs every
statement on the files, here and below): the source is read in one step inside a WAL read transaction, so it is a consistent
snapshot while other processes keep writing, and the copy is written through a
connection keyed with the same raw key, so every page of it is encrypted. Before the
copy takes its final name it is checked (:func:`check_copy`): each raw page must
authenticate under the key (SQLCipher's per-page HMAC: a page in plaintext or
damaged fails), ``PRAGMA cipher_integrity_check`` and ``integrity_check`` must be
clean, and the ledger must verify.

A restore checks the backup the same way before touching anything, refuses to go back
behind the current store's ledger (entries written or already synced to other devices
since the backup) without ``force``, stages the copy beside the store, sets the
current store aside, and deletes it only once the restored store has opened and
verified; on any failure the current store is put back. What the current store forgot is carried
over (core/curation/reapply.py): read from it before it is set aside, and forgotten again in the
staged copy before the copy takes its place, so restoring a backup made before a forget (a person's
explicit act: ``--force``, since every forget writes newer ledger entries) brings nothing forgotten
back, and says how many forgets it applied again. Rejections made since are carried over the same way.

A rekey re-encrypts every page with a new random key (``PRAGMA rekey``), folds the WAL
into the file so no frame under the old key remains, and only then makes the new key
information current (it is staged beside the old one first, so an interruption never
leaves the store without a key that opens it).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import nacl.utils

from veramem_desktop.core.curation import reapply
from veramem_desktop.core.errors import InvalidInputError, NotAStoreError, RefusedError, WrongKeyError
from veramem_desktop.core.storage import copies, ledger_verify
from veramem_desktop.core.storage.store import Connection, Store

from . import keys
from .pages import PAGE, RESERVE, SALT, decrypt_page
from .sync.batchfile import fsync_dir

#: SQLCipher 4 defaults: the HMAC salt is the file salt XOR 0x3a, its key two PBKDF2-HMAC-SHA512 rounds away
_HMAC_SALT_MASK = 0x3A
_HMAC_KDF_ITER = 2
_IV = 16
_MAC = 64
_PLAIN_HEADER = b"SQLite format 3\x00"


# ---------------------------------------------------------------- raw pages
def page_mac_key(key: bytes, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha512", key, bytes(b ^ _HMAC_SALT_MASK for b in salt), _HMAC_KDF_ITER, 32)


def authentic_pages(path: Path, key: bytes) -> tuple[int, int, int | None]:
    """(pages that authenticate under ``key``, pages, first page that does not or None).

    A page authenticates when its HMAC (over the ciphertext, the IV and the page number)
    matches under a key derived from ``key``: it was encrypted with this key and not
    changed since. A plaintext page never does.
    """
    data = path.read_bytes()
    count = len(data) // PAGE
    if count == 0:
        return 0, 0, 1
    mac_key = page_mac_key(key, data[:SALT])
    good, first_bad = 0, None
    for n in range(count):
        raw = data[n * PAGE : (n + 1) * PAGE]
        body = raw[SALT if n == 0 else 0 : PAGE - RESERVE + _IV]
        mac = raw[PAGE - RESERVE + _IV : PAGE - RESERVE + _IV + _MAC]
        expected = hmac.new(mac_key, body + (n + 1).to_bytes(4, "little"), hashlib.sha512).digest()
        if hmac.compare_digest(expected, mac):
            good += 1
        elif first_bad is None:
            first_bad = n + 1
    if len(data) % PAGE and first_bad is None:
        first_bad = count + 1
    return good, count, first_bad


def _header_fits(plain: bytes) -> bool:
    """SQLite's header at offsets 16-23, the start of page 1's encrypted part: page size, write and read
    versions (1 rollback, 2 WAL), reserved bytes per page, and the three fixed payload fractions."""
    return (
        plain[0:2] == PAGE.to_bytes(2, "big")
        and plain[2] in (1, 2)
        and plain[3] in (1, 2)
        and plain[4] == RESERVE
        and plain[5:8] == bytes([64, 32, 32])
    )


def made_under(path: Path, key: bytes) -> bool:
    """True when the file at ``path`` was written under ``key``, however damaged it is since.

    Either some page still authenticates under the key, or page 1 decrypts under it to SQLite's own
    header (a damaged salt spoils every page's HMAC key, not the AES key, which a raw key is itself).
    A file made under another key does neither (the header matches by chance once in 2**56). So a file
    that does not open, but was made under this key, is damaged; otherwise the key is not its key.
    """
    good, _, _ = authentic_pages(path, key)
    if good:
        return True
    with open(path, "rb") as handle:
        first = handle.read(PAGE)
    return len(first) == PAGE and _header_fits(decrypt_page(first, key, first=True))


def _connect_copy(path: Path, key: bytes) -> Connection:
    """A connection to a copy, where a copy made under this key that does not open is damaged (not a wrong
    key: a person would otherwise go looking for another passphrase or code)."""
    try:
        return copies.connect(path, key)
    except WrongKeyError:
        if made_under(path, key):
            raise NotAStoreError(
                f"{path} is damaged: it was made under this key, but its first page does not authenticate.",
                title="Backup damaged",
            ) from None
        raise


# ---------------------------------------------------------------- checking a copy
@dataclass
class CopyCheck:
    """What a store file holds and whether it is whole."""

    path: str
    size_bytes: int
    pages: int
    ledger_entries: int
    head_seq: int
    head_hash: str
    store_id: str | None
    device_id: str | None
    exported_seq: int  # the last ledger entry already sent to other devices (0 when not synced)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _state(conn: Connection, path: Path) -> CopyCheck:
    head = copies.ledger_head(conn)
    return CopyCheck(
        path=str(path),
        size_bytes=path.stat().st_size,
        pages=path.stat().st_size // PAGE,
        ledger_entries=head.entries,
        head_seq=head.head_seq,
        head_hash=head.head_hash,
        store_id=head.store_id,
        device_id=head.device_id,
        exported_seq=head.exported_seq,
    )


def check_copy(path: Path, key: bytes) -> CopyCheck:
    """Check a self-contained store file (a backup, or a staged restore) or raise a typed error."""
    path = Path(path)
    if not path.is_file():
        raise InvalidInputError(f"There is no file at {path}.")
    with open(path, "rb") as handle:
        header = handle.read(len(_PLAIN_HEADER))
    if header == _PLAIN_HEADER:
        raise RefusedError(f"{path} is a plaintext SQLite file, not an encrypted VeraMem store.")
    conn = _connect_copy(path, key)
    try:
        with copies.reading_copy(path):
            good, count, first_bad = authentic_pages(path, key)
            if first_bad is not None:
                raise NotAStoreError(
                    f"{path} is damaged: page {first_bad} of {count} does not authenticate under the "
                    f"store's key ({good} pages do).",
                    title="Backup damaged",
                )
            problems = copies.page_problems(conn)
            if problems:
                raise NotAStoreError(f"{path} is damaged: {problems[0]}.", title="Backup damaged")
            store = Store(conn, path)
            report = ledger_verify.verify(store)
            if not report.ok:
                raise NotAStoreError(
                    f"The ledger of {path} does not verify: entry {report.first_bad_seq}: {report.problem}.",
                    title="Backup damaged",
                )
            return _state(conn, path)
    finally:
        conn.close()


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


# ---------------------------------------------------------------- backup
@dataclass
class BackupReport:
    copy: CopyCheck
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "backup": self.copy.path,
            "seconds": self.seconds,
            **{k: v for k, v in self.copy.to_dict().items() if k != "path"},
        }


def backup(store_path: Path, key: bytes, dest: Path, *, overwrite: bool = False) -> BackupReport:
    """Copy the store to ``dest`` while other processes keep using it; the copy is checked before it is named."""
    started = time.monotonic()
    dest = Path(dest).expanduser().absolute()
    if dest.resolve() == Path(store_path).resolve():
        raise InvalidInputError("The backup cannot replace the store itself; choose another file.")
    if dest.is_dir():
        raise InvalidInputError(
            f"{dest} is a folder; name the backup file, e.g. {dest / 'veramem-backup.db'}."
        )
    if dest.exists() and not overwrite:
        raise InvalidInputError(f"{dest} exists already; choose another name (or --overwrite).")
    if not dest.parent.is_dir():
        raise InvalidInputError(f"The folder {dest.parent} does not exist.")
    partial = dest.with_name(f".{dest.name}.partial")
    _remove(partial)
    try:
        copies.write_copy(Path(store_path), partial, key)
    except NotAStoreError:
        _remove(partial)
        raise
    try:
        os.chmod(partial, 0o600)
        _fsync_file(partial)
        copy = check_copy(partial, key)
    except BaseException:
        _remove(partial)
        raise
    os.replace(partial, dest)
    fsync_dir(dest.parent)
    copy.path = str(dest)
    return BackupReport(copy, round(time.monotonic() - started, 3))


# ---------------------------------------------------------------- restore
@dataclass
class RestoreReport:
    restored: CopyCheck
    replaced: CopyCheck | None
    forced: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "restored": self.restored.to_dict(),
            "replaced": self.replaced.to_dict() if self.replaced else None,
            "forced": self.forced,
            "notes": self.notes,
            "seconds": self.seconds,
        }


def current_state(store_path: Path, key: bytes) -> CopyCheck | None:
    """The live store's ledger head and sync cursor, or None when it is missing or does not open."""
    if not Path(store_path).exists():
        return None
    try:
        conn = copies.connect(Path(store_path), key)
    except (WrongKeyError, NotAStoreError):
        return None
    try:
        with copies.reading_copy(Path(store_path)):
            return _state(conn, Path(store_path))
    except NotAStoreError:
        return None
    finally:
        conn.close()


def restore_problems(
    store_path: Path, live_key: bytes, state: CopyCheck, source: Path, backup_key: bytes | None = None
) -> list[str]:
    """Why restoring the backup at ``source`` over the live store would lose something (empty: nothing).

    ``live_key`` opens the live store, ``backup_key`` the backup (the same key unless the
    store was rekeyed since).
    """
    current = current_state(store_path, live_key)
    if current is None:
        return []
    problems: list[str] = []
    if current.store_id and state.store_id and current.store_id != state.store_id:
        problems.append(f"the backup is of another store ({state.store_id}, this one is {current.store_id})")
    if current.head_seq > state.head_seq:
        if current.exported_seq > state.head_seq:
            problems.append(
                f"the store has synced ledger entries {state.head_seq + 1}–{current.exported_seq} to other "
                "devices since this backup; going back would fork this device's chain (they would refuse its "
                "next entries, and it would have to be paired again)"
            )
        problems.append(
            f"the store has {current.head_seq - state.head_seq} ledger entries newer than the "
            f"backup (it ends at entry {state.head_seq}, the store at {current.head_seq}); they would "
            "be lost"
        )
    if state.head_seq and current.head_seq >= state.head_seq:
        conn = copies.connect(Path(store_path), live_key)
        try:
            diverged = copies.ledger_hash_at(conn, state.head_seq) != state.head_hash
        finally:
            conn.close()
    elif current.head_seq:
        conn = copies.connect(source, backup_key or live_key)
        try:
            diverged = copies.ledger_hash_at(conn, current.head_seq) != current.head_hash
        finally:
            conn.close()
    else:
        diverged = False
    if diverged:
        problems.append(
            "the backup's ledger is not an earlier or later state of this store's ledger "
            "(the two histories differ)"
        )
    return problems


def restore(
    store_path: Path, key: bytes, source: Path, *, force: bool = False, rekey_to: bytes | None = None
) -> RestoreReport:
    """Replace the store with the backup at ``source`` after checking it (see the module's docstring).

    ``key`` opens the backup. ``rekey_to``: re-encrypt the restored copy with this key
    (the store's current key, when the backup was made under an older one).
    """
    started = time.monotonic()
    store_path, source = Path(store_path), Path(source).expanduser().absolute()
    if source.resolve() == store_path.resolve():
        raise InvalidInputError("That is the store itself, not a backup of it.")
    state = check_copy(source, key)
    live_key = rekey_to or key
    problems = restore_problems(store_path, live_key, state, source, key)
    if problems and not force:
        raise RefusedError(
            "Restore refused, nothing was changed: " + "; ".join(problems) + ". Restore anyway with --force."
        )
    replaced = current_state(store_path, live_key)
    held = copies.hold_exclusive(store_path, live_key) if replaced is not None else None
    try:
        return _replace(store_path, source, key, live_key, rekey_to, state, replaced, held, problems, started)
    finally:
        if held is not None:
            held.close()


def _replace(
    store_path: Path,
    source: Path,
    key: bytes,
    live_key: bytes,
    rekey_to: bytes | None,
    state: CopyCheck,
    replaced: CopyCheck | None,
    held: Connection | None,
    problems: list[str],
    started: float,
) -> RestoreReport:
    """Stage, check, swap in and verify (``held``: the live store, locked for this process)."""
    notes: list[str] = []
    if store_path.exists() and replaced is None:
        notes.append("the store being replaced did not open (damaged or under another key)")
    staged = store_path.with_name(f".{store_path.name}.restoring")
    forgotten = reapply.read_record(held) if held is not None else reapply.ForgetRecord()
    _stage(source, staged, key, live_key, rekey_to)
    again = _reapply_forgets(staged, live_key, forgotten)
    if again:
        notes.append(
            f"{again} forget(s) and rejection(s) made after this backup were applied again: what was "
            "forgotten stays forgotten, and what was rejected stays rejected"
        )
    aside = store_path.with_name(f".{store_path.name}.replaced-{int(time.time())}")
    if store_path.exists():
        _set_aside(store_path, aside, held)
    os.replace(staged, store_path)
    fsync_dir(store_path.parent)
    _verify_or_put_back(store_path, aside, live_key)
    # The replaced store is erased only now that the restored one opened and verified: a copy left
    # behind would keep whatever `forget` erases later.
    _remove(aside)
    restored = current_state(store_path, live_key) or state
    restored.path = str(store_path)
    return RestoreReport(restored, replaced, problems, notes, round(time.monotonic() - started, 3))


def _reapply_forgets(staged: Path, live_key: bytes, record: reapply.ForgetRecord) -> int:
    """Forget (and reject) again in the staged copy what the replaced store forgot (and rejected); the
    copy is removed on failure."""
    if not (record.targets or record.marks or record.rejected):
        return 0
    try:
        store = Store.open(staged, live_key)  # runs any newer migrations
        try:
            again = reapply.reapply(store, record)
            store.checkpoint()  # the copy moves as one file: nothing may stay in its WAL
            return again
        finally:
            store.close()
    except BaseException:
        _remove(staged)
        raise


def _stage(source: Path, staged: Path, key: bytes, live_key: bytes, rekey_to: bytes | None) -> None:
    """Copy the backup to ``staged`` (mode 0600), re-encrypt it if asked, sync it and check it opens.

    A staged copy that fails any step is removed.
    """
    _remove(staged)
    staged.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    old_umask = os.umask(0o077)
    try:
        shutil.copyfile(source, staged)
    finally:
        os.umask(old_umask)
    try:
        os.chmod(staged, 0o600)
        if rekey_to is not None and rekey_to != key:
            copies.rekey_file(staged, key, rekey_to)
        _fsync_file(staged)
        check_copy(staged, live_key)
    except BaseException:
        _remove(staged)
        raise


def _set_aside(store_path: Path, aside: Path, held: Connection | None) -> None:
    """Move the live store's files (main, -wal, -shm) to ``aside``, its WAL folded in first when held."""
    if held is not None:  # fold the WAL in, so the file set aside is whole on its own
        copies.fold_wal_quietly(held)
        held.close()  # the last connection: nothing writes to the old file from here on
    for suffix in ("", "-wal", "-shm"):
        part = Path(str(store_path) + suffix)
        if part.exists():
            os.replace(part, Path(str(aside) + suffix))


def _verify_or_put_back(store_path: Path, aside: Path, live_key: bytes) -> None:
    """Open the restored store (running newer migrations) and verify its ledger; on any failure, put the
    store set aside back in its place and raise."""
    try:
        store = Store.open(store_path, live_key)  # runs any newer migrations
        try:
            report = ledger_verify.verify(store)
        finally:
            store.close()
        if not report.ok:
            raise NotAStoreError(
                f"The restored store's ledger does not verify ({report.problem}); the previous "
                "store was put back."
            )
    except BaseException:
        _remove(store_path)
        for suffix in ("", "-wal", "-shm"):
            part = Path(str(aside) + suffix)
            if part.exists():
                os.replace(part, Path(str(store_path) + suffix))
        raise


# ---------------------------------------------------------------- rekey
@dataclass
class RekeyReport:
    recovery_code: str
    pages: int
    new_key_pages: int  # pages that authenticate under the new key (all of them when done right)
    old_key_pages: int  # pages that still authenticate under the old key (0 when done right)
    synced: bool
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def rekey(
    store_path: Path, keyinfo_path: Path, old_key: bytes, *, passphrase: str | None = None
) -> RekeyReport:
    """Re-encrypt the store with a new random key; returns the new recovery code (shown once).

    Refused (StoreBusyError) while another process has the store open: it would go on
    writing pages under the old key. The new key is kept the way the old one was (keyring
    or the same passphrase).
    """
    started = time.monotonic()
    store_path = Path(store_path)
    new_key = nacl.utils.random(32)
    keys.stage_new_key(keyinfo_path, new_key, passphrase=passphrase)
    try:
        conn = copies.hold_exclusive(store_path, old_key)
    except BaseException:
        keys.discard_staged_key(keyinfo_path)
        raise
    try:
        done = copies.rekey_held(conn, new_key)
    except NotAStoreError:
        conn.close()
        keys.discard_staged_key(keyinfo_path)
        raise
    conn.close()
    keys.commit_new_key(keyinfo_path, new_key)
    if done.wal_busy:
        raise RefusedError(
            "The store was re-encrypted and the new key is in use, but another process kept the "
            "WAL busy: close every VeraMem process and run `veramem verify`."
        )
    good_new, pages, _ = authentic_pages(store_path, new_key)
    good_old, _, _ = authentic_pages(store_path, old_key)
    return RekeyReport(
        keys.encode_recovery_code(new_key),
        pages,
        good_new,
        good_old,
        done.synced,
        round(time.monotonic() - started, 3),
    )


def finish_pending_rekey(store_path: Path, keyinfo_path: Path, *, passphrase: str | None = None) -> bool:
    """After an interrupted rekey: make the staged key current if it is the one that opens the store."""
    staged = keys.staged_key(keyinfo_path, passphrase=passphrase)
    if staged is None:
        return False
    try:
        copies.connect(Path(store_path), staged).close()
    except (WrongKeyError, NotAStoreError):
        keys.discard_staged_key(keyinfo_path)  # the rekey never happened: the old key is still the key
        return False
    keys.commit_new_key(keyinfo_path, staged)
    return True
