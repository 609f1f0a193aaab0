"""Commands that copy or re-key the store: backup, restore, passphrase, rekey.

Secrets are read from hidden prompts (or, for scripts, the environment: the current
passphrase in VERAMEM_PASSPHRASE, a new one in VERAMEM_NEW_PASSPHRASE, a recovery
code in VERAMEM_RECOVERY_CODE), never from arguments.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from veramem_desktop.core.errors import LockedError, MissingKeyError, RefusedError

from ..keys import LOCKED, KeyManager, decode_recovery_code, keyring_usable, read_keyinfo
from ..memory import Memory
from .common import emit_json, interactive, json_option, open_memory, recovery_code
from .progress import shown, working


def _memory(ctx: click.Context) -> Memory:
    """The facade for its paths and settings only (it never opens the store, so there is nothing to close):
    these commands open the store file themselves."""
    return open_memory(ctx, prompt=False, head_start=False)


def _current_passphrase(mem: Memory) -> str | None:
    """The passphrase the key is wrapped under (None when the key is in the OS keyring)."""
    if read_keyinfo(mem.paths.keyinfo).mode != "passphrase":
        return None
    secret = os.environ.get("VERAMEM_PASSPHRASE")
    if not secret and interactive():
        secret = click.prompt("Current passphrase", hide_input=True, err=True)
    if not secret:
        raise LockedError(LOCKED)
    return secret


def _new_passphrase() -> str:
    secret = os.environ.get("VERAMEM_NEW_PASSPHRASE")
    if not secret and interactive():
        from .store_cmds import prompt_new_passphrase

        secret = prompt_new_passphrase("New passphrase")
    if not secret:
        raise LockedError(
            "A new passphrase is needed and there is no terminal here to ask for it. Run the command in a "
            "terminal, or set VERAMEM_NEW_PASSPHRASE."
        )
    return secret


def _load_key(mem: Memory) -> tuple[bytes, str | None]:
    passphrase = _current_passphrase(mem)
    return KeyManager(mem.paths.keyinfo).load(passphrase=passphrase), passphrase


def _size(path: Path) -> str:
    """The size of the file at ``path`` for a person ("12.3 MB"), or "" when it cannot be read."""
    from rich.filesize import decimal

    try:
        return decimal(Path(path).stat().st_size)
    except OSError:
        return ""


def _need_store(mem: Memory) -> None:
    if not mem.exists():
        from veramem_desktop.core.errors import NotInitialisedError

        raise NotInitialisedError(f"There is no VeraMem store at {mem.store_path}. Run `veramem init` first.")


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--overwrite", is_flag=True, help="Replace an existing file at PATH.")
@json_option
@click.pass_context
def backup(ctx: click.Context, path: Path, overwrite: bool, as_json: bool) -> None:
    """Copy the store to PATH, encrypted with the same key, while other programs keep using it.

    The copy is checked before it takes its name: every page authenticates under the key
    (nothing in it is readable without the key), SQLite's integrity checks pass and the
    ledger verifies. Keep your recovery code: it opens the backup if the key is lost.
    """
    from ..backup import backup as make_backup

    mem = _memory(ctx)
    _need_store(mem)
    key, _ = _load_key(mem)
    # one step inside SQLite (a consistent snapshot), then the copy's checks: no count to report
    with working(f"Backing up {_size(mem.store_path)}", show=shown(as_json)):
        report = make_backup(mem.store_path, key, path, overwrite=overwrite)
    if as_json:
        emit_json(report.to_dict())
        return
    c = report.copy
    click.echo(
        f"Backed up to {c.path} ({c.size_bytes / 1024:.0f} KiB, {c.pages} encrypted pages) in "
        f"{report.seconds:.2f} s."
    )
    click.echo(
        f"Checked: every page authenticates under the store's key; ledger verified ({c.ledger_entries} "
        "entries)."
    )
    click.echo("Note: `forget` cannot reach this copy; delete old backups to erase what you forget.")


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--force",
    is_flag=True,
    help="Restore even if the store has newer (or synced) ledger entries than the backup.",
)
@click.option(
    "--recovery-code",
    "use_code",
    is_flag=True,
    help="Open the backup with a recovery code (asked for, hidden): a backup made before a rekey, "
    "or a restore where the key information was lost.",
)
@json_option
@click.pass_context
def restore(ctx: click.Context, path: Path, force: bool, use_code: bool, as_json: bool) -> None:
    """Replace the store with the backup at PATH, after checking it.

    Refuses a damaged backup, a backup of another store, and one older than the store
    (entries written or synced since) unless --force. The current store is kept aside
    until the restored one has opened and verified, then erased. Refused (exit 13) while
    another VeraMem program (terminal app, MCP server, sync daemon) has the store open.
    """
    from ..backup import restore as do_restore
    from ..keys import adopt_key

    mem = _memory(ctx)
    has_keyinfo = mem.paths.keyinfo.exists()
    if not use_code and not has_keyinfo:
        raise MissingKeyError(
            f"There is no key information at {mem.paths.keyinfo}: restore with "
            "--recovery-code and the code of the store the backup was made from."
        )
    live_key: bytes | None = None
    passphrase: str | None = None
    if has_keyinfo:
        live_key, passphrase = _load_key(mem)
    if use_code:
        backup_key = decode_recovery_code(recovery_code())
    else:
        assert live_key is not None
        backup_key = live_key
    with working(f"Checking and restoring {_size(path)}", show=shown(as_json)):
        report = do_restore(
            mem.store_path,
            backup_key,
            path,
            force=force,
            rekey_to=live_key if live_key is not None and live_key != backup_key else None,
        )
    if not has_keyinfo:
        use_keyring = keyring_usable() and not os.environ.get("VERAMEM_NEW_PASSPHRASE")
        adopt_key(
            mem.paths.keyinfo,
            backup_key,
            report.restored.store_id or "",
            passphrase=None if use_keyring else _new_passphrase(),
            use_keyring=use_keyring,
        )
        report.notes.append("new key information was written for the restored store")
    if as_json:
        emit_json(report.to_dict())
        return
    r = report.restored
    click.echo(
        f"Restored {path} to {mem.store_path}: ledger verified, {r.ledger_entries} entries "
        f"(head {r.head_seq})."
    )
    for reason in report.forced:
        click.echo(f"forced: {reason}", err=True)
    if any("synced" in reason for reason in report.forced):
        click.echo(
            "This device's chain now forks from what the others hold: pair it again "
            "(`veramem sync join`) so they accept it.",
            err=True,
        )
    for note in report.notes:
        click.echo(f"note: {note}", err=True)


@click.command()
@click.option("--to-keyring", is_flag=True, help="Move the key from its passphrase into the OS keyring.")
@click.option(
    "--to-passphrase", is_flag=True, help="Move the key out of the OS keyring, under a new passphrase."
)
@json_option
@click.pass_context
def passphrase(ctx: click.Context, to_keyring: bool, to_passphrase: bool, as_json: bool) -> None:
    """Change the passphrase that protects the store's key, or move the key to or from the OS keyring.

    The store is not re-encrypted (its key stays the same, so does the recovery code):
    only the key information is written again. To replace the key itself, `veramem rekey`.
    """
    from ..keys import keep_key

    if to_keyring and to_passphrase:
        raise click.UsageError("Choose one of --to-keyring and --to-passphrase.")
    mem = _memory(ctx)
    _need_store(mem)
    mode = read_keyinfo(mem.paths.keyinfo).mode
    if mode == "keyring" and not to_passphrase:
        raise RefusedError(
            "The key is in the OS keyring, not under a passphrase: use --to-passphrase to move it under one."
        )
    if mode == "passphrase" and to_passphrase:
        raise RefusedError("The key is under a passphrase already; run `veramem passphrase` to change it.")
    key, _ = _load_key(mem)
    if to_keyring:
        info = keep_key(mem.paths.keyinfo, key, use_keyring=True)
    else:
        info = keep_key(mem.paths.keyinfo, key, passphrase=_new_passphrase())
    if as_json:
        emit_json({"mode": info.mode, "store": str(mem.store_path)})
    elif info.mode == "keyring":
        click.echo("The key is now in the OS keyring; the passphrase no longer opens the store.")
    else:
        click.echo("The key is now under the new passphrase; the old one no longer opens the store.")


@click.command()
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
@click.pass_context
def rekey(ctx: click.Context, yes: bool, as_json: bool) -> None:
    """Re-encrypt the store with a new random key, and show its new recovery code once.

    Every page is rewritten under the new key; the old key and the old recovery code no
    longer open the store (older backups stay under the key they were made with). Refused
    (exit 13) while another VeraMem program has the store open. The key is kept as before
    (keyring or the same passphrase). Synced devices need nothing: each keeps its own
    store key, and the sync key is separate.
    """
    from ..backup import finish_pending_rekey
    from ..backup import rekey as do_rekey

    mem = _memory(ctx)
    _need_store(mem)
    secret = _current_passphrase(mem)
    if finish_pending_rekey(mem.store_path, mem.paths.keyinfo, passphrase=secret):
        click.echo(
            "An interrupted rekey had already re-encrypted the store; its new key is now in use. "
            "The recovery code shown then is the one that opens it.",
            err=True,
        )
        return
    if not yes:
        if not interactive():
            raise click.UsageError("Re-encrypting the store needs --yes when not run in a terminal.")
        click.confirm(
            "Re-encrypt the store with a new key? Close other VeraMem programs first", abort=True, err=True
        )
    key = KeyManager(mem.paths.keyinfo).load(passphrase=secret)
    with working(f"Re-encrypting {_size(mem.store_path)}", show=shown(as_json)):
        report = do_rekey(mem.store_path, mem.paths.keyinfo, key, passphrase=secret)
    if as_json:
        emit_json(report.to_dict())
        return
    click.echo(
        f"Re-encrypted {report.pages} pages with a new key in {report.seconds:.2f} s; "
        f"{report.old_key_pages} pages still open with the old key."
    )
    click.echo("")
    click.echo("New recovery code (shown once; write it down, the old one no longer works):")
    click.echo(f"    {report.recovery_code}")
    if report.synced:
        click.echo("")
        click.echo(
            "Synced devices need nothing: each keeps its own store key, and the sync key did not change."
        )
