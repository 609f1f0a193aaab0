"""The sync folder on disk: the one module of the sync building blocks that does file IO.

Layout inside the folder a file-sync engine replicates::

    veramem-sync/FORMAT                                   format marker, written once
    veramem-sync/devices/<device_id>/<epoch>-<seq>.vms    batches (see envelope.py)
    veramem-sync/devices/<device_id>/grants/<epoch>-<recipient>.vmk   key grants
    veramem-sync/pairing/join-<request_id>.json           written by the joining device
    veramem-sync/pairing/approval-<request_id>.json       written by the approving device
    veramem-sync/pairing/confirm-<request_id>.json        written by the joining device

Every file has one writer, so the file-sync engine never sees two devices write the
same file. Files are written atomically: the bytes go to a hidden temporary name in
the same folder (``.~vms-….tmp``, which Dropbox and Nextcloud skip and every reader
here ignores), are flushed to disk, then renamed into place, so a reader sees the
whole file or nothing.

Ids and numbers are validated before they become path parts, so no name read from
the folder or from a message can point outside it.
"""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from veramem_desktop.core.errors import InvalidInputError, SyncError
from veramem_desktop.sync.errors import RejectReason, SyncRejected
from veramem_desktop.sync.keys import check_device_id

SYNC_DIR = "veramem-sync"
DEVICES_DIR = "devices"
GRANTS_DIR = "grants"
PAIRING_DIR = "pairing"
FORMAT_FILE = "FORMAT"
FORMAT_TEXT = b"veramem-sync 1\n"
BATCH_SUFFIX = ".vms"
GRANT_SUFFIX = ".vmk"
TEMP_PREFIX = ".~vms-"
MAX_BATCH_FILE = 64 * 1024 * 1024 + 4096
MAX_SMALL_FILE = 256 * 1024
FILE_MODE = 0o600

_BATCH_RE = re.compile(r"([0-9]{6,10})-([0-9]{12,20})\.vms")
_GRANT_RE = re.compile(r"([0-9]{6,10})-([0-9a-f]{16})\.vmk")
_REQUEST_ID_RE = re.compile(r"[0-9a-f]{32}")


class PairingKind(StrEnum):
    JOIN = "join"
    APPROVAL = "approval"
    CONFIRM = "confirm"


@dataclass(frozen=True, order=True)
class BatchRef:
    """A batch file found in the folder; sorts by device, then batch sequence."""

    device_id: str
    batch_seq: int
    epoch: int
    path: Path


@dataclass(frozen=True)
class GrantRef:
    sender_id: str
    recipient_id: str
    epoch: int
    path: Path


# --- layout -----------------------------------------------------------------------------


def sync_root(folder: Path) -> Path:
    return Path(folder) / SYNC_DIR


def init_folder(folder: Path) -> Path:
    """Create the layout in ``folder`` (``sync init``); harmless if it already exists."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InvalidInputError(
            f"{folder} is not a folder. Create it (or point to your synced folder) first."
        )
    root = sync_root(folder)
    (root / DEVICES_DIR).mkdir(parents=True, exist_ok=True)
    (root / PAIRING_DIR).mkdir(exist_ok=True)
    marker = root / FORMAT_FILE
    if not marker.exists():
        atomic_write(marker, FORMAT_TEXT)
    return check_folder(folder)


def check_folder(folder: Path) -> Path:
    """The sync root of ``folder``, refusing folders that are not (yet) VeraMem sync folders."""
    root = sync_root(folder)
    marker = root / FORMAT_FILE
    if not marker.is_file():
        raise SyncError(
            f"{folder} is not a VeraMem sync folder (no {SYNC_DIR}/{FORMAT_FILE}). Run `veramem sync init` on "
            "your first device, or wait for the folder to finish syncing."
        )
    if _read_capped(marker, 1024) != FORMAT_TEXT:
        raise SyncError(
            f"The sync folder {folder} was made by a newer VeraMem; update VeraMem on this device."
        )
    return root


def device_dir(folder: Path, device_id: str) -> Path:
    return sync_root(folder) / DEVICES_DIR / check_device_id(device_id)


def batch_name(epoch: int, batch_seq: int) -> str:
    # Zero-padded so file managers list batches in order; parsing never relies on it.
    if not 1 <= epoch <= 0xFFFF_FFFF or not 1 <= batch_seq < 2**64:
        raise InvalidInputError(f"Batch {epoch}-{batch_seq} is out of range.")
    return f"{epoch:06d}-{batch_seq:012d}{BATCH_SUFFIX}"


def batch_path(folder: Path, device_id: str, epoch: int, batch_seq: int) -> Path:
    return device_dir(folder, device_id) / batch_name(epoch, batch_seq)


# --- writing ----------------------------------------------------------------------------


def atomic_write(path: Path, data: bytes, *, replace: bool = True, sync_dir: bool = True) -> Path:
    """Write ``data`` to ``path`` so readers see all of it or none of it. With ``sync_dir=False`` the
    rename is made durable by the caller's own :func:`fsync_dir` of the folder (once for many files)."""
    path = Path(path)
    if not replace and path.exists():
        raise SyncError(f"{path.name} already exists in the sync folder; it was not overwritten.")
    temp = path.with_name(f"{TEMP_PREFIX}{secrets.token_hex(8)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    if sync_dir:
        fsync_dir(path.parent)
    return path


def fsync_dir(directory: Path) -> None:
    # Makes the rename itself durable; some platforms cannot open a directory.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_batch(
    folder: Path, device_id: str, epoch: int, batch_seq: int, data: bytes, *, sync_dir: bool = True
) -> Path:
    """Write this device's batch under its own folder; a batch file is never overwritten
    (``sync_dir`` as for :func:`atomic_write`)."""
    check_folder(folder)
    target = batch_path(folder, device_id, epoch, batch_seq)
    target.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(target, data, replace=False, sync_dir=sync_dir)


def remove_batch(ref: BatchRef) -> None:
    """Delete one of this device's batch files (after it rewrote them under a new key)."""
    ref.path.unlink(missing_ok=True)


def write_grant(folder: Path, sender_id: str, recipient_id: str, epoch: int, data: bytes) -> Path:
    """Write a key grant under the sender's own folder."""
    check_folder(folder)
    directory = device_dir(folder, sender_id) / GRANTS_DIR
    directory.mkdir(parents=True, exist_ok=True)
    if not 1 <= epoch <= 0xFFFF_FFFF:
        raise InvalidInputError(f"Key epoch {epoch} is out of range.")
    name = f"{epoch:06d}-{check_device_id(recipient_id)}{GRANT_SUFFIX}"
    return atomic_write(directory / name, data)


def write_pairing(folder: Path, kind: PairingKind, request_id: str, data: bytes) -> Path:
    root = check_folder(folder)
    (root / PAIRING_DIR).mkdir(exist_ok=True)
    return atomic_write(_pairing_path(root, kind, request_id), data)


def remove_pairing(folder: Path, kind: PairingKind, request_id: str) -> None:
    _pairing_path(sync_root(folder), kind, request_id).unlink(missing_ok=True)


def _pairing_path(root: Path, kind: PairingKind, request_id: str) -> Path:
    if not _REQUEST_ID_RE.fullmatch(request_id):
        raise InvalidInputError(f"{request_id!r} is not a pairing request id.")
    return root / PAIRING_DIR / f"{PairingKind(kind).value}-{request_id}.json"


# --- reading ----------------------------------------------------------------------------


def _visible_files(directory: Path) -> list[Path]:
    """Regular files of ``directory``, skipping hidden ones (our temp files, sync-engine
    placeholders) and symlinks (which could point outside the folder)."""
    if not directory.is_dir():
        return []
    return sorted(
        p for p in directory.iterdir() if not p.name.startswith(".") and p.is_file() and not p.is_symlink()
    )


def _device_dirs(folder: Path) -> list[Path]:
    devices = sync_root(folder) / DEVICES_DIR
    if not devices.is_dir():
        return []
    return sorted(p for p in devices.iterdir() if p.is_dir() and not p.is_symlink() and _is_device_id(p.name))


def _is_device_id(name: str) -> bool:
    try:
        check_device_id(name)
    except InvalidInputError:
        return False
    return True


def _parse_batch_name(name: str) -> tuple[int, int] | None:
    match = _BATCH_RE.fullmatch(name)
    if match is None:
        return None
    epoch, seq = int(match[1]), int(match[2])
    try:
        canonical = batch_name(epoch, seq)
    except InvalidInputError:
        return None
    # One batch has one file name; "1-1.vms" next to "000001-000000000001.vms" is not a second copy.
    return (epoch, seq) if canonical == name else None


def list_batches(folder: Path, device_id: str | None = None) -> list[BatchRef]:
    """Every well-named batch file, ordered by device and batch sequence."""
    refs: list[BatchRef] = []
    for directory in _device_dirs(folder):
        if device_id is not None and directory.name != device_id:
            continue
        for path in _visible_files(directory):
            parsed = _parse_batch_name(path.name)
            if parsed is not None:
                refs.append(BatchRef(directory.name, parsed[1], parsed[0], path))
    return sorted(refs)


def unrecognised_files(folder: Path) -> list[Path]:
    """Visible files in device folders that are not batches (conflict copies, strays),
    for the sync report; they are never read."""
    strays: list[Path] = []
    devices = sync_root(folder) / DEVICES_DIR
    if devices.is_dir():
        strays.extend(p for p in _visible_files(devices))
        strays.extend(p for p in devices.iterdir() if p.is_dir() and not _is_device_id(p.name))
    for directory in _device_dirs(folder):
        strays.extend(p for p in _visible_files(directory) if _parse_batch_name(p.name) is None)
        strays.extend(p for p in _visible_files(directory / GRANTS_DIR) if not _GRANT_RE.fullmatch(p.name))
    return sorted(strays)


def list_grants(folder: Path, recipient_id: str) -> list[GrantRef]:
    """Key grants addressed to ``recipient_id``, from every device folder."""
    check_device_id(recipient_id)
    refs: list[GrantRef] = []
    for directory in _device_dirs(folder):
        for path in _visible_files(directory / GRANTS_DIR):
            match = _GRANT_RE.fullmatch(path.name)
            if match and match[2] == recipient_id:
                refs.append(GrantRef(directory.name, recipient_id, int(match[1]), path))
    return sorted(refs, key=lambda r: (r.epoch, r.sender_id))


def list_pairing(folder: Path, kind: PairingKind) -> dict[str, bytes]:
    """Pairing messages of one kind, by request id (unreadable or oversized files are skipped)."""
    directory = sync_root(folder) / PAIRING_DIR
    prefix = f"{PairingKind(kind).value}-"
    found: dict[str, bytes] = {}
    for path in _visible_files(directory):
        request_id = path.name.removeprefix(prefix).removesuffix(".json")
        if path.name == f"{prefix}{request_id}.json" and _REQUEST_ID_RE.fullmatch(request_id):
            try:
                found[request_id] = _read_capped(path, MAX_SMALL_FILE)
            except SyncError:
                continue
    return found


def read_batch(ref: BatchRef | Path) -> bytes:
    """The bytes of a batch file (refused unread if absurdly large)."""
    return _read_capped(ref.path if isinstance(ref, BatchRef) else Path(ref), MAX_BATCH_FILE)


def read_grant(ref: GrantRef) -> bytes:
    return _read_capped(ref.path, MAX_SMALL_FILE)


def _read_capped(path: Path, limit: int) -> bytes:
    try:
        with open(path, "rb") as handle:
            # The size check first, so an oversized file is refused without reading it.
            too_large = os.fstat(handle.fileno()).st_size > limit
            data = b"" if too_large else handle.read(limit + 1)
    except OSError as exc:
        raise SyncError(f"Cannot read {path.name} from the sync folder ({exc.strerror}).") from None
    if too_large or len(data) > limit:
        raise SyncRejected(
            RejectReason.TOO_LARGE,
            f"{path.name} in the sync folder is too large to be a VeraMem file; it was not read.",
        )
    return data
