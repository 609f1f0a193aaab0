"""Helpers shared by the commands: opening the facade, prompting, printing."""

from __future__ import annotations

import functools
import json
import os
import sys
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import click

from veramem_desktop.core.errors import ExitCode, LockedError
from veramem_desktop.core.trust.display import visible, visible_line

from ..memory import Memory

F = TypeVar("F", bound=Callable[..., Any])


def json_option(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts instead of text.")(fn)


def interactive() -> bool:
    return sys.stdin.isatty()


def prompt_passphrase() -> str | None:
    if not interactive():
        return None
    return click.prompt("Passphrase", hide_input=True, err=True)


def recovery_code() -> str:
    """The recovery code: VERAMEM_RECOVERY_CODE, else asked for (hidden) on a terminal; LockedError
    when there is neither."""
    code = os.environ.get("VERAMEM_RECOVERY_CODE") or (
        click.prompt("Recovery code", hide_input=True, err=True) if interactive() else None
    )
    if not code:
        raise LockedError(
            "The recovery code is needed and there is no terminal here to ask for it. Run the command in a "
            "terminal, or set VERAMEM_RECOVERY_CODE."
        )
    return str(code)


def open_memory(ctx: click.Context, *, prompt: bool = True, head_start: bool = True, **kwargs: Any) -> Memory:
    """The facade of the home the command was given (the store opens at its first use). ``prompt``: ask for
    a passphrase on a terminal when the key needs one; ``head_start``: take the key and model the group
    began loading for this home (``VeramemGroup.resolve_command``)."""
    from . import HEAD_START

    root = ctx.find_root()
    home = (root.obj or {}).get("home")
    if head_start:
        kwargs = {"channel": "cli", "head_start": root.meta.pop(HEAD_START, None), **kwargs}
    if prompt:
        kwargs = {"passphrase_source": prompt_passphrase, **kwargs}
    return Memory(home, **kwargs)


def pass_memory(fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
    """The one place a command opens the store: the command is called with the context and the facade
    (``def cmd(ctx, mem, ...)``), and the facade is closed when the command ends, however it ends (an
    exit code, an error). ``options`` go to :func:`open_memory` (``@pass_memory(prompt=False)``)."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def run(ctx: click.Context, /, *args: Any, **kwargs: Any) -> Any:
            with open_memory(ctx, **options) as mem:
                return command(ctx, mem, *args, **kwargs)

        return click.pass_context(run)

    return decorate if fn is None else decorate(fn)


def emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def say(message: str = "", *, err: bool = False, file: Any = None) -> None:
    """Print human text: any control or format character in it (stored text can hold terminal
    escapes, carriage returns, bidi overrides) is shown as a visible stand-in, never obeyed."""
    click.echo(visible(message, multiline=True), err=err, file=file)


def clip(text: str | None, width: int) -> str:
    """Stored text on one line for a listing: made visible, cut to ``width`` with an ellipsis."""
    return visible_line(text or "", width)


def log_crash(exc: BaseException) -> str:
    """Write the traceback's frames (not the exception's text, which may hold content) to the log folder."""
    from ..config import resolve_paths

    paths = resolve_paths()
    try:
        paths.log_dir.mkdir(parents=True, exist_ok=True)
        target = paths.log_dir / "crash.log"
        frames = "".join(traceback.format_tb(exc.__traceback__))
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(f"--- {datetime.now(UTC).isoformat()} {type(exc).__name__}\n{frames}\n")
        return str(target)
    except OSError:
        return "(the log folder could not be written)"


def open_default_view(ctx: click.Context) -> None:
    """What a bare ``veramem`` shows: the terminal app on a terminal, the status otherwise."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        from ..tui.app import run_app

        run_app((ctx.find_root().obj or {}).get("home"))
        return
    from . import store_cmds

    ctx.invoke(store_cmds.status)


def exit_with(ctx: click.Context, code: ExitCode) -> None:
    ctx.exit(int(code))


def read_bytes_text(data: bytes, where: str) -> tuple[str, int]:
    """Decode bytes as UTF-8; invalid bytes become U+FFFD and are counted, never dropped silently."""
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - data.count("\ufffd".encode())
    if bad:
        click.echo(
            f"note: {where} had {bad} byte sequence(s) that are not UTF-8; they were replaced by U+FFFD.",
            err=True,
        )
    return text, bad


def path_arg(value: str) -> Path:
    return Path(value).expanduser()
