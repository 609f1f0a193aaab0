"""Commands about the store itself: init, unlock, status, reindex, verify."""

from __future__ import annotations

import click

from veramem_desktop.core.errors import ExitCode, LockedError
from veramem_desktop.core.storage.store import damaged

from ..keys import KeyManager, check_new_passphrase, keyring_usable, passphrase_problem
from ..memory import Memory
from .common import emit_json, interactive, json_option, pass_memory, recovery_code, say
from .progress import progress_of, shown


def strong_passphrase(value: str) -> str:
    """A prompt's check of a new passphrase (keys.passphrase_problem): a weak one is asked for again."""
    problem = passphrase_problem(value)
    if problem is not None:
        raise click.BadParameter(problem)
    return value


def prompt_new_passphrase(text: str) -> str:
    """A new passphrase typed twice, hidden, asked again until it passes the strength rule."""
    return str(
        click.prompt(text, hide_input=True, confirmation_prompt=True, err=True, value_proc=strong_passphrase)
    )


@click.command()
@click.option(
    "--passphrase",
    "use_passphrase",
    is_flag=True,
    help="Protect the key with a passphrase instead of the OS keyring (asked for, hidden).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Start a new empty store even where one was made before (its files are kept aside, renamed).",
)
@json_option
@click.pass_context
def init(ctx: click.Context, use_passphrase: bool, force: bool, as_json: bool) -> None:
    """Create the encrypted store and its key.

    The key goes to the OS keyring when there is one; otherwise (or with
    --passphrase) it is wrapped by a passphrase you choose (VERAMEM_PASSPHRASE for
    automation). A recovery code is shown once: write it down. Where a store was made
    before (even one that is now emptied or damaged), init changes nothing unless
    --force is given.
    """
    import os

    home = (ctx.find_root().obj or {}).get("home")
    passphrase = None
    want_keyring = keyring_usable() and not use_passphrase and not os.environ.get("VERAMEM_PASSPHRASE")
    if not want_keyring:
        passphrase = os.environ.get("VERAMEM_PASSPHRASE")
        if not passphrase:
            if not interactive():
                raise LockedError(
                    "No OS keyring here, so the store needs a passphrase, and there is no terminal to ask "
                    "for one: run `veramem init` in a terminal, or set VERAMEM_PASSPHRASE."
                )
            passphrase = prompt_new_passphrase("Choose a passphrase")
    if passphrase is not None:
        check_new_passphrase(passphrase)  # before anything is made or kept aside (--force)
    from ..setup import detect_and_record

    mem, new_key = Memory.create(home, passphrase=passphrase, use_keyring=want_keyring, force=force)
    with mem:
        detected = detect_and_record(mem)
    if as_json:
        emit_json(
            {
                "store": str(mem.store_path),
                "key": new_key.mode,
                "recovery_code": new_key.recovery_code,
                "llm": detected,
            }
        )
        return
    where = "the OS keyring" if new_key.mode == "keyring" else "your passphrase"
    click.echo(f"Created an encrypted store at {mem.store_path}")
    click.echo(f"Its key is kept by {where}.")
    click.echo(f"LLM: {detected}")
    click.echo("")
    click.echo("Recovery code (shown once; write it down and keep it somewhere safe):")
    click.echo(f"    {new_key.recovery_code}")
    click.echo("It opens the store with `veramem unlock --recovery-code` if the key is ever lost.")


@click.command()
@click.option(
    "--recovery-code",
    "use_code",
    is_flag=True,
    required=True,
    help="Unlock with the recovery code shown at init (asked for, hidden).",
)
@pass_memory
def unlock(ctx: click.Context, mem: Memory, use_code: bool) -> None:
    """Open the store with its recovery code and keep the key again.

    The code is checked before anything else is asked; a code from before a `veramem rekey` is
    recognised and the rekey's date named (only the code that rekey showed opens the store now)."""
    import os

    code = recovery_code()
    # The code is checked first: a typo, another store's code or one from before a rekey is said now,
    # not after a new passphrase was chosen twice.
    KeyManager(mem.paths.keyinfo).check_recovery_code(code)
    new_passphrase = None
    if not keyring_usable():
        new_passphrase = os.environ.get("VERAMEM_PASSPHRASE") or (
            prompt_new_passphrase("Choose a new passphrase") if interactive() else None
        )
    mem.unlock_with_recovery_code(code, new_passphrase=new_passphrase)
    report = mem.reading.verify()
    click.echo(
        f"Unlocked {mem.store_path}; the key is kept again. Ledger: {report.checked} entries, "
        f"{'verified' if report.ok else 'NOT verified'}."
    )


@click.command()
@json_option
@pass_memory
def status(ctx: click.Context, mem: Memory, as_json: bool = False) -> None:
    """Where the store is, what it holds, and whether its ledger verifies."""
    if not mem.exists():
        if as_json:
            emit_json({"store": str(mem.store_path), "exists": False})
        else:
            click.echo(f"No store yet at {mem.store_path}.")
            click.echo("Create one with `veramem init`.")
        ctx.exit(int(ExitCode.NOT_INITIALISED))
    problems = mem.measuring.integrity_problems()
    if problems:
        raise damaged(
            mem.store_path, f"{len(problems)} page(s) failed the integrity check; first: {problems[0]}"
        )
    info = mem.status()
    if as_json:
        emit_json(info)
        return
    counts = info["counts"]
    led = info["ledger"]
    click.echo(f"Store      {info['store']} ({info['size_bytes'] / 1024:.0f} KiB, key in {info['key']})")
    click.echo(f"Episodes   {counts['episodes']}")
    click.echo(f"Memories   {counts['active_memories']} active ({counts['memory_items']} with history)")
    click.echo(f"Traces     {counts['traces']}")
    state = "verified" if led["ok"] else f"BROKEN at entry {led['first_bad_seq']}: {led['problem']}"
    click.echo(f"Ledger     {led['checked']} entries, {state}")


@click.command()
@click.option(
    "--compute",
    type=click.Choice(["int8", "float32"]),
    default=None,
    help="How the model's matrix products run (default: embedder.compute, else int8).",
)
@json_option
@pass_memory
def reindex(ctx: click.Context, mem: Memory, compute: str | None, as_json: bool) -> None:
    """Make every search vector again with the configured embedding model, then drop the old ones.

    Search compares a question only with vectors of its own model, so a store made before int8
    compute (or whose model was changed) is moved here. Memories, messages and the ledger are not
    touched; an interrupted run resumes where it stopped.
    """
    so_far: dict[str, int] = {}
    mem.unlock()  # a passphrase is asked for (when it is) before the display starts
    # the count of vectors to make is not known ahead (each kind is found as it goes): a pulsing bar
    with progress_of("Re-embedding", unit="vectors", show=shown(as_json)) as bar:

        def progress(kind: str, n: int) -> None:
            so_far[kind] = n
            bar.update(sum(so_far.values()), note=kind)

        report = mem.reembed(compute, progress)
    if as_json:
        emit_json(report.to_dict())
        return
    made = sum(report.made.values())
    click.echo(f"Re-embedded with {report.model}: {made} vectors made, {report.removed} old vectors dropped.")


@click.command()
@json_option
@pass_memory
def verify(ctx: click.Context, mem: Memory, as_json: bool) -> None:
    """Check every page of the store file (exit 6), then recompute the ledger's hash chain
    and name the first bad entry (exit 7)."""
    problems = mem.measuring.integrity_problems()
    pages = {"ok": not problems, "problems": problems}
    if problems:
        if as_json:
            emit_json({"pages": pages, "ok": False})
        else:
            click.echo(
                f"Store NOT whole: {mem.store_path} failed its page check ({len(problems)} problem(s); "
                f"first: {problems[0]})."
            )
        raise damaged(
            mem.store_path, f"{len(problems)} page(s) failed the integrity check; first: {problems[0]}"
        )
    with progress_of(
        "Verifying", total=mem.reading.ledger_length(), unit="entries", show=shown(as_json)
    ) as bar:
        report = mem.reading.verify(lambda checked, _total: bar.update(checked))
    if as_json:
        emit_json({**report.to_dict(), "pages": pages})
    elif report.ok:
        click.echo("Pages verified: every page of the store file passed its integrity check.")
        click.echo(
            f"Ledger verified: {report.checked} entries checked, the chain is whole; {report.with_actor} "
            "name who acted and through which surface (older entries name none)."
        )
    else:
        click.echo("Pages verified: every page of the store file passed its integrity check.")
        click.echo(
            f"Ledger NOT verified: {report.checked} entries checked; first bad entry {report.first_bad_seq}: "
            f"{report.problem}."
        )
        if report.bad_actor:
            say(f"That entry says it was made by {report.bad_actor}; it cannot be trusted.")
    if not report.ok:
        ctx.exit(int(ExitCode.LEDGER_BROKEN))


@click.command()
@click.pass_context
def tui(ctx: click.Context) -> None:
    """Open the terminal app: browse, search, inspect, review and forget (also a bare `veramem`)."""
    from ..tui.app import run_app

    run_app((ctx.find_root().obj or {}).get("home"))
