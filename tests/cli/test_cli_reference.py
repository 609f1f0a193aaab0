"""docs/cli.md is the commands' own help, written by veramem_desktop.cli.reference: a command,
option or help text changed without the page fails here (write it again with
``python -m veramem_desktop.cli.reference > docs/cli.md``)."""

from __future__ import annotations

from pathlib import Path

import click

from veramem_desktop.cli import COMMANDS, cli
from veramem_desktop.cli.reference import render

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_the_reference_page_is_current() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/cli.md differs from the commands: run "
        "`python -m veramem_desktop.cli.reference > docs/cli.md` and commit it"
    )


def test_every_command_and_subcommand_has_a_section() -> None:
    page = render()
    root = click.Context(cli, info_name="veramem")
    for name in COMMANDS:
        command = cli.get_command(root, name)
        assert command is not None
        assert f"## `veramem {name}`" in page
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command, info_name=name, parent=root)
            for sub in command.list_commands(sub_ctx):
                assert f"## `veramem {name} {sub}`" in page


def test_an_option_changed_without_the_page_is_seen() -> None:
    # the check compares whole text: a planted option appears in the rendering, so the stale page differs
    command = cli.get_command(click.Context(cli, info_name="veramem"), "status")
    assert command is not None
    planted = click.Option(["--planted-option"], help="Planted by a test.")
    command.params.append(planted)
    try:
        assert "--planted-option" in render()
        assert PAGE.read_text(encoding="utf-8") != render()
    finally:
        command.params.remove(planted)


def test_the_page_does_not_depend_on_what_ran_before() -> None:
    # click keeps a command's help option once made: asking a command for its help first (as other
    # tests in the same process do) must not change the page
    from click.testing import CliRunner

    before = render()
    for name in ("search", "status"):
        result = CliRunner().invoke(cli, [name, "-h"])
        assert result.exit_code == 0, result.output
    assert render() == before
    assert "| `-h, --help` |" in before
