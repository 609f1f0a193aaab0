"""The command reference, docs/cli.md, written from the click commands themselves.

``python -m veramem_desktop.cli.reference > docs/cli.md`` writes it again; a test compares the
file with what this module renders, so a command, option or help text changed without the page
fails the suite. Every command is listed from the group (:data:`COMMANDS` is loaded whole), so
a new command cannot be left out.
"""

from __future__ import annotations

import inspect

import click

from . import cli

HEADER = """# `veramem` command reference

Written from the commands' own help by `python -m veramem_desktop.cli.reference > docs/cli.md`;
`tests/cli/test_cli_reference.py` fails when this page and the commands differ. Every command
prints human text by default and JSON with `--json` where it prints results; errors are one line
on stderr with an exit code (see `veramem --help`).
"""


def _options(command: click.Command, ctx: click.Context) -> list[str]:
    rows: list[str] = []
    for param in command.get_params(ctx):
        record = None if isinstance(param, click.Argument) else param.get_help_record(ctx)
        if record is None:
            continue
        names, help_text = (_cell(part) for part in record)
        rows.append(f"| `{names}` | {help_text} |")
    return rows


def _cell(text: str) -> str:
    """One table cell: on one line, its bars escaped (a choice list says a|b|c)."""
    return " ".join(text.split()).replace("|", "\\|")


def _render(command: click.Command, path: list[str], parent: click.Context | None) -> list[str]:
    ctx = click.Context(command, info_name=path[-1], parent=parent)
    title = " ".join(path)
    out = [f"## `{title}`", ""]
    usage = " ".join(command.collect_usage_pieces(ctx))
    out += ["```", f"{title} {usage}".rstrip(), "```", ""]
    if command.help:
        out += [inspect.cleandoc(click.unstyle(command.help)), ""]
    rows = _options(command, ctx)
    if rows:
        out += ["| option | what it does |", "| --- | --- |", *rows, ""]
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                out += _render(sub, [*path, name], ctx)
    return out


def render() -> str:
    """The whole reference page, as Markdown."""
    lines = [HEADER]
    # the group's own settings (its `-h` beside `--help`), as a person running it gets them; click
    # keeps a command's help option once made, so a page rendered without them would depend on what
    # ran before it in the same process
    root = click.Context(cli, info_name="veramem", **cli.context_settings)
    for name in cli.list_commands(root):
        command = cli.get_command(root, name)
        if command is not None and not command.hidden:
            lines += _render(command, ["veramem", name], root)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    click.echo(render(), nl=False)
