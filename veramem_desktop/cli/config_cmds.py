"""``veramem config``: read and change the settings file without opening the store."""

from __future__ import annotations

from typing import Any

import click

from ..config import (
    Config,
    Paths,
    get_setting,
    load_config,
    resolve_paths,
    save_config,
    set_setting,
    setting_names,
)
from .common import emit_json, json_option
from .suggest import SuggestingGroup


def _paths(ctx: click.Context) -> Paths:
    return resolve_paths((ctx.find_root().obj or {}).get("home"))


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return '""' if value == "" else str(value)


def _every(config: Config) -> dict[str, Any]:
    return {name: get_setting(config, name) for name in setting_names(config)}


@click.group(cls=SuggestingGroup, invoke_without_command=True)
@json_option
@click.pass_context
def config(ctx: click.Context, as_json: bool) -> None:
    """Show the settings, or change one: `veramem config set llm.backend ollama`.

    Changes are checked like the settings file is, written at once, and take effect the
    next time VeraMem starts (the terminal app, the MCP server, the REST server)."""
    if ctx.invoked_subcommand is not None:
        return
    paths = _paths(ctx)
    settings = _every(load_config(paths))
    if as_json:
        emit_json({"file": str(paths.config_file), "settings": settings})
        return
    click.echo(
        f"# {paths.config_file}" + ("" if paths.config_file.exists() else " (not written yet: defaults)")
    )
    for name, value in settings.items():
        click.echo(f"{name} = {_shown(value)}")


@config.command("get")
@click.argument("name")
@click.pass_context
def get(ctx: click.Context, name: str) -> None:
    """Print one setting's value (NAME as `section.key`)."""
    click.echo(_shown(get_setting(load_config(_paths(ctx)), name)))


@config.command("set", context_settings={"ignore_unknown_options": True})
@click.argument("name")
@click.argument("value")
@click.pass_context
def set_(ctx: click.Context, name: str, value: str) -> None:
    """Set NAME to VALUE (true/false, a number or text, as the setting takes)."""
    _change(ctx, name, value)


@config.command("unset")
@click.argument("name")
@click.pass_context
def unset(ctx: click.Context, name: str) -> None:
    """Put NAME back to its default."""
    _change(ctx, name, None)


def _change(ctx: click.Context, name: str, value: str | None) -> None:
    paths = _paths(ctx)
    settings = load_config(paths)
    old, new = set_setting(settings, name, value)
    save_config(paths, settings)
    click.echo(f"{name} = {_shown(new)} (was {_shown(old)}). Takes effect the next time VeraMem starts.")
