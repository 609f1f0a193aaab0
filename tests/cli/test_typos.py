"""A mistyped command or option gets 'did you mean', exit 2 (usage), and nothing runs."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from support.fixtures import run_cli
from veramem_desktop.core.errors import ExitCode

from veramem_desktop.cli import COMMANDS, cli


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_a_mistyped_command_is_offered_the_command_meant() -> None:
    code, out = _run("serach", "the spare key")
    assert code == ExitCode.USAGE
    assert "No such command 'serach'. Did you mean 'search'?" in out


def _swapped(name: str) -> str:
    """The name with its second and third letters swapped: the commonest slip of the fingers."""
    return name[0] + name[2] + name[1] + name[3:]


@pytest.mark.parametrize("name", sorted(n for n in COMMANDS if len(n) >= 4 and n[1] != n[2]))
def test_every_command_is_offered_for_its_own_transposed_spelling(name: str) -> None:
    code, out = _run(_swapped(name))
    assert code == ExitCode.USAGE and f"'{name}'" in out.split("Did you mean", 1)[1]


def test_the_start_of_a_command_is_offered_the_commands_it_begins() -> None:
    code, out = _run("consol")
    assert code == ExitCode.USAGE and "Did you mean 'consolidate'?" in out


def test_a_subcommand_of_a_group_is_offered_too() -> None:
    code, out = _run("sync", "statsu")
    assert code == ExitCode.USAGE and "Did you mean 'status'?" in out


def test_a_mistyped_option_is_offered_the_option_meant() -> None:
    code, out = _run("search", "--jsno", "the spare key")
    assert code == ExitCode.USAGE and "Did you mean '--json'?" in out


def test_a_name_close_to_nothing_gets_no_guess() -> None:
    code, out = _run("xyzzy")
    assert code == ExitCode.USAGE and "No such command 'xyzzy'." in out and "Did you mean" not in out


def test_the_installed_command_says_it_in_one_usage_error() -> None:
    proc = run_cli("serach", "x")
    assert proc.returncode == ExitCode.USAGE
    assert "Did you mean 'search'?" in proc.stderr and "Traceback" not in proc.stderr
