"""The ``veramem`` command line.

stdout is data (human text, or JSON with ``--json``); stderr is diagnostics. Engine
errors are typed (``VeramemError``) and translated here, and only here, into a
one-line message and an exit code from :class:`ExitCode`. Heavy imports happen
inside the command that needs them so ``veramem --help`` is instant.

A search as a fresh process is mostly start-up: ``search`` gets a head start (its key and its
model load on threads while the rest of the program imports, services/head_start.py), and once
it has printed and closed the store, ``main`` ends the process without the interpreter's
teardown (:func:`done`).
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from typing import Any

import click

from veramem_desktop.core.errors import ExitCode, VeramemError
from veramem_desktop.core.trust.display import visible

from .. import __version__
from .suggest import SuggestingGroup

#: command name -> "module:attribute"; loaded on first use.
COMMANDS: dict[str, str] = {
    "init": "store_cmds:init",
    "unlock": "store_cmds:unlock",
    "status": "store_cmds:status",
    "config": "config_cmds:config",
    "verify": "store_cmds:verify",
    "reindex": "store_cmds:reindex",
    "add": "memory_cmds:add",
    "episodes": "memory_cmds:episodes",
    "pin": "memory_cmds:pin",
    "unpin": "memory_cmds:unpin",
    "search": "search_cmds:search",
    "grant": "search_cmds:grant",
    "revoke": "search_cmds:revoke",
    "bench": "bench_cmds:bench",
    "mcp": "agent_cmds:mcp",
    "serve": "agent_cmds:serve",
    "history": "search_cmds:history",
    "forget": "search_cmds:forget",
    "answer": "review_cmds:answer",
    "review": "review_cmds:review",
    "share": "review_cmds:share",
    "doctor": "doctor_cmds:doctor",
    "demo": "doctor_cmds:demo",
    "tui": "store_cmds:tui",
    "sync": "sync_cmds:sync",
    "feedback": "outcome_cmds:feedback",
    "consolidate": "outcome_cmds:consolidate",
    "export": "outcome_cmds:export",
    "import": "import_cmds:import_",
    "backup": "backup_cmds:backup",
    "restore": "backup_cmds:restore",
    "passphrase": "backup_cmds:passphrase",
    "rekey": "backup_cmds:rekey",
}


#: commands that open the store and embed a query at once: their key and model start loading on threads
#: before the command's modules are imported (services/head_start.py)
HEAD_START_COMMANDS = frozenset({"search"})
#: where the head start waits in ``ctx.meta`` for ``common.open_memory``
HEAD_START = "veramem.head_start"
#: the key of ``ctx.obj`` under which ``main`` learns that the command is done and may end at once
END_AT_ONCE = "end_at_once"


class VeramemGroup(SuggestingGroup):
    """Lazy subcommands (a mistyped one gets a 'did you mean'), and the one place engine errors become
    messages and exit codes."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        asks_help = any(a in ctx.help_option_names for a in args[1:])
        if args and args[0] in HEAD_START_COMMANDS and not asks_help and not ctx.resilient_parsing:
            from ..services.head_start import HeadStart

            started = HeadStart.begin(ctx.params.get("home"))
            ctx.meta[HEAD_START] = started
            ctx.call_on_close(started.finish)  # no thread is cut off when the program ends
        return super().resolve_command(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        module = importlib.import_module(f"{__name__}.{module_name}")
        command: click.Command = getattr(module, attr)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except VeramemError as exc:
            # A message may echo what was typed or stored (an id, a name): shown, never obeyed.
            click.echo(visible(f"error: {exc.title}: {exc.message}"), err=True)
            ctx.exit(int(exc.exit_code))
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)
        except BrokenPipeError:  # the reader went away (`veramem … | head`): stop quietly, as Unix tools do
            _quiet_stdout()
            ctx.exit(141)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except Exception as exc:
            damage = _damage_error(ctx, exc)
            if damage is not None:  # a damaged page met outside the store's own helpers
                click.echo(visible(f"error: {damage.title}: {damage.message}"), err=True)
                ctx.exit(int(damage.exit_code))
            # a bug: say so plainly, keep details out of the terminal
            from .common import log_crash

            where = log_crash(exc)
            click.echo(
                f"error: unexpected {type(exc).__name__}. This is a bug in VeraMem; details are in {where}.",
                err=True,
            )
            ctx.exit(int(ExitCode.FAILURE))


@click.group(
    cls=VeramemGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Exit codes: one per cause (3 no store, 4 wrong key, 5 key missing, 6 damaged, 14 locked with no "
    "way to ask for the passphrase, ...); the table is in docs/exit-codes.md.",
)
@click.version_option(__version__, prog_name="veramem")
@click.option(
    "--home",
    envvar="VERAMEM_HOME",
    type=click.Path(file_okay=False),
    help="Keep everything under this folder.",
)
@click.pass_context
def cli(ctx: click.Context, home: str | None) -> None:
    """VeraMem Desktop: a private, verifiable memory for your AI agents.

    With no command, opens the terminal app.
    """
    ctx.obj = {**(ctx.obj or {}), "home": home}  # main() may have put END_AT_ONCE there
    if ctx.invoked_subcommand is None:
        from .common import open_default_view

        open_default_view(ctx)


def _damage_error(ctx: click.Context, exc: Exception) -> VeramemError | None:
    """A database error that means the store file is damaged, as the one damaged-store error."""
    if not type(exc).__module__.startswith("sqlcipher3"):
        return None
    from pathlib import Path

    from veramem_desktop.core.storage.store import damaged, is_damage

    from ..config import load_config, resolve_paths

    if not is_damage(exc):
        return None
    paths = resolve_paths((ctx.obj or {}).get("home"))
    try:
        configured = load_config(paths).store_path
    except VeramemError:
        configured = ""
    return damaged(Path(configured) if configured else paths.store, str(exc))


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that flushing it at exit cannot raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main() -> None:
    from .. import limit_blas_threads

    limit_blas_threads()
    ending: dict[str, bool] = {}
    try:
        cli.main(prog_name="veramem", obj={END_AT_ONCE: ending})
    except SystemExit as exc:
        if ending.get("done") and (exc.code is None or isinstance(exc.code, int)):
            _end_at_once(exc.code or 0)
        raise
    except Exception:  # pragma: no cover - last resort outside click
        traceback.print_exc(limit=0)
        sys.exit(int(ExitCode.FAILURE))


def done(ctx: click.Context) -> None:
    """Say that the command has closed everything it opened and written all it prints (``search`` does), so
    the program may end at once when it returns (:func:`_end_at_once`). Run in-process (tests, an embedding
    program), nothing changes."""
    ending = (ctx.find_root().obj or {}).get(END_AT_ONCE)
    if isinstance(ending, dict):
        ending["done"] = True


def _end_at_once(code: int) -> None:
    """End the process with ``code`` now, without the interpreter's teardown: after a search it takes about
    0.1 s (a last garbage collection over everything loaded, a few hundred modules emptied, the model's
    session freed), all of which the OS does at once. Only after a command said it is :func:`done`: its
    store closed, no thread at work (the head start's were joined when the context closed). When the
    output cannot be flushed (a closed pipe), the ordinary exit runs instead."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)
