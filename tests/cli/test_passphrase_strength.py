"""One passphrase rule for every surface that sets one: `veramem init`, `veramem passphrase`, a
recovery, the SDK's Memory.create and the terminal app's first run (veramem_desktop/keys.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from support.fixtures import PASSPHRASE, run_cli
from veramem_desktop.core.errors import ExitCode, InvalidInputError

from veramem_desktop.config import resolve_paths
from veramem_desktop.keys import WeakPassphraseError, check_new_passphrase, passphrase_problem
from veramem_desktop.memory import Memory

WEAK = [
    "abc",
    "x",
    "1234567",
    "password1",
    "qwertyuiop",
    "12345678",
    "aaaaaaaaaaaa",
    "veramem2024",
    "Summer2024!",
]
STRONG = [PASSPHRASE, "kitchen table 7", "plum ladder wistful 42", "Tr4ffic-Cone-Ocean"]


@pytest.mark.parametrize("weak", WEAK)
def test_a_short_or_guessable_passphrase_is_refused_with_what_to_do(weak: str) -> None:
    problem = passphrase_problem(weak)
    assert problem is not None and "Choose one of at least 8 characters" in problem
    assert weak not in problem  # the error never repeats the secret
    with pytest.raises(WeakPassphraseError) as caught:
        check_new_passphrase(weak)
    assert caught.value.exit_code == ExitCode.INVALID_INPUT


@pytest.mark.parametrize("strong", STRONG)
def test_a_long_uncommon_passphrase_passes(strong: str) -> None:
    assert passphrase_problem(strong) is None


def test_the_sdk_refuses_a_weak_passphrase_and_creates_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with pytest.raises(WeakPassphraseError, match="too easy to guess"):
        Memory.create(home, passphrase="password1", use_keyring=False)
    paths = resolve_paths(home)
    assert not paths.keyinfo.exists()
    assert not Memory(home, passphrase=PASSPHRASE).exists()


def test_cli_init_refuses_a_weak_passphrase_from_the_environment(isolated_home: Path) -> None:
    proc = run_cli("init", env={"VERAMEM_PASSPHRASE": "abc"})
    assert proc.returncode == ExitCode.INVALID_INPUT, proc.stderr
    assert proc.stderr.startswith("error: ") and "shorter than 8 characters" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not resolve_paths(isolated_home).keyinfo.exists()
    assert (
        run_cli("init", env={"VERAMEM_PASSPHRASE": "x", "VERAMEM_HOME": str(isolated_home)}).returncode == 9
    )


def test_cli_init_refuses_a_weak_passphrase_even_with_force_and_keeps_the_old_store(
    isolated_home: Path,
) -> None:
    assert run_cli("init").returncode == 0
    proc = run_cli("init", "--force", env={"VERAMEM_PASSPHRASE": "password1"})
    assert proc.returncode == ExitCode.INVALID_INPUT
    assert run_cli("status").returncode == 0  # nothing was kept aside: the store still opens


def test_cli_init_asks_again_at_the_prompt_until_the_passphrase_is_strong(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veramem_desktop.cli import cli as group
    from veramem_desktop.cli import store_cmds

    monkeypatch.delenv("VERAMEM_PASSPHRASE")
    monkeypatch.setattr(store_cmds, "interactive", lambda: True)
    monkeypatch.setattr(store_cmds, "keyring_usable", lambda: False)
    typed = "abc\npassword1\nplum ladder wistful 42\nplum ladder wistful 42\n"
    result = CliRunner().invoke(group, ["init"], input=typed, env={"VERAMEM_HOME": str(isolated_home)})
    assert result.exit_code == 0, result.output
    assert "shorter than 8 characters" in result.output and "too easy to guess" in result.output
    with Memory(isolated_home, passphrase="plum ladder wistful 42") as mem:
        assert mem.exists()


def test_cli_passphrase_change_refuses_a_weak_new_one_and_keeps_the_old(isolated_home: Path) -> None:
    assert run_cli("init").returncode == 0
    proc = run_cli("passphrase", env={"VERAMEM_NEW_PASSPHRASE": "hunter22"})
    assert proc.returncode == ExitCode.INVALID_INPUT and "too easy to guess" in proc.stderr
    assert run_cli("status").returncode == 0  # the old passphrase still opens the store
    done = run_cli("passphrase", env={"VERAMEM_NEW_PASSPHRASE": "plum ladder wistful 42"})
    assert done.returncode == 0, done.stderr


def test_a_recovery_refuses_a_weak_new_passphrase(isolated_home: Path) -> None:
    mem, new_key = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False)
    mem.close()
    with pytest.raises(InvalidInputError, match="shorter than 8"):
        Memory(isolated_home, passphrase=PASSPHRASE).unlock_with_recovery_code(
            new_key.recovery_code, new_passphrase="abc"
        )
    with Memory(isolated_home, passphrase=PASSPHRASE) as again:
        assert again.exists()  # the old passphrase still opens it


def test_the_terminal_apps_first_run_uses_the_same_rule() -> None:
    from veramem_desktop.tui.screens.first_run import check_passphrase

    for weak in WEAK:
        with pytest.raises(InvalidInputError) as caught:
            check_passphrase(weak, weak)
        assert caught.value.message == passphrase_problem(weak)
    assert check_passphrase(PASSPHRASE, PASSPHRASE) == PASSPHRASE
    with pytest.raises(InvalidInputError, match="differ"):
        check_passphrase(PASSPHRASE, PASSPHRASE + "!")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # Textual's loop


@pytest.mark.anyio
async def test_the_first_run_screen_refuses_a_weak_passphrase_and_creates_nothing(
    isolated_home: Path,
) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tui"))
    from tui_support import fill, fresh_app, settle
    from veramem_desktop.tui.screens.first_run import FirstRunScreen

    app = fresh_app(isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await fill(pilot, "#passphrase", "password1")
        await fill(pilot, "#passphrase-again", "password1")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FirstRunScreen)
        assert any("too easy to guess" in n.message for n in app._notifications)
    assert not resolve_paths(isolated_home).keyinfo.exists()
