"""Unlocking with a recovery code, on a real terminal (a pseudo-terminal) and the real store files.

The code is checked before a new passphrase is asked for; a code from before a rekey is recognised as this
store's and the rekey's date is named; another store's code is still 'another store'. All are wrong keys
(exit 4) and change nothing.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.fixtures import PASSPHRASE, VENV_BIN, run_cli
from veramem_desktop.core.errors import ExitCode

from veramem_desktop.config import resolve_paths

NO_TERMINAL = ""


def _on_a_terminal(args: list[str], answers: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run ``veramem ARGS`` on a pseudo-terminal, typing each answer when a prompt ending in ': ' shows."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(VENV_BIN / "veramem"), *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, **env},
        close_fds=True,
    )
    os.close(slave)
    seen, pending, deadline = b"", list(answers), time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the program ended and closed its side
                break
            if not chunk:
                break
            seen += chunk
            if pending and seen.rstrip(b" ").endswith(b":"):
                os.write(master, (pending.pop(0) + "\n").encode())
        elif proc.poll() is not None:
            break
    os.close(master)
    return proc.wait(timeout=30), seen.decode("utf-8", "replace")


def _init(env: dict[str, str] | None = None) -> str:
    made = run_cli("init", "--json", input=NO_TERMINAL, env=env)
    assert made.returncode == 0, made.stderr
    return str(json.loads(made.stdout)["recovery_code"])


def test_another_stores_code_is_refused_before_a_new_passphrase_is_asked(
    isolated_home: Path, tmp_path: Path
) -> None:
    _init()
    foreign = _init({"VERAMEM_HOME": str(tmp_path / "other")})
    before = resolve_paths(isolated_home).keyinfo.read_bytes()
    code, screen = _on_a_terminal(
        ["unlock", "--recovery-code"], [foreign, "new one", "new one"], {"VERAMEM_PASSPHRASE": ""}
    )
    assert code == ExitCode.WRONG_KEY, screen
    assert "belongs to another store" in screen
    assert "new passphrase" not in screen.lower()  # refused before anything else was asked
    assert resolve_paths(isolated_home).keyinfo.read_bytes() == before


def test_the_right_code_on_a_terminal_then_asks_for_the_new_passphrase(isolated_home: Path) -> None:
    own = _init()
    code, screen = _on_a_terminal(
        ["unlock", "--recovery-code"],
        [own, "a new passphrase", "a new passphrase"],
        {"VERAMEM_PASSPHRASE": ""},
    )
    assert code == 0, screen
    assert "Choose a new passphrase" in screen and "Unlocked" in screen
    opened = run_cli("episodes", input=NO_TERMINAL, env={"VERAMEM_PASSPHRASE": "a new passphrase"})
    assert opened.returncode == 0, opened.stderr


def test_a_code_from_before_a_rekey_says_so_and_names_the_rekeys_date(isolated_home: Path) -> None:
    old = _init()
    rekeyed = run_cli("rekey", "--yes", "--json", input=NO_TERMINAL)
    assert rekeyed.returncode == 0, rekeyed.stderr
    new = json.loads(rekeyed.stdout)["recovery_code"]
    today = datetime.now(UTC).date().isoformat()
    stale = run_cli("unlock", "--recovery-code", input=NO_TERMINAL, env={"VERAMEM_RECOVERY_CODE": old})
    assert stale.returncode == ExitCode.WRONG_KEY
    assert f"before the rekey of {today}" in stale.stderr and "another store" not in stale.stderr
    # a second rekey: the first code still names the first rekey, the second code the second one
    again = run_cli("rekey", "--yes", "--json", input=NO_TERMINAL)
    assert again.returncode == 0, again.stderr
    middle = run_cli("unlock", "--recovery-code", input=NO_TERMINAL, env={"VERAMEM_RECOVERY_CODE": new})
    assert middle.returncode == ExitCode.WRONG_KEY and "before the rekey of" in middle.stderr
    info = json.loads(resolve_paths(isolated_home).keyinfo.read_text())
    assert len(info["retired"]) == 2 and all(len(r["key_check"]) == 64 for r in info["retired"])
    # nothing of the old keys themselves is kept: only their check values
    for code in (old, new):
        from veramem_desktop.keys import decode_recovery_code

        assert decode_recovery_code(code).hex() not in resolve_paths(isolated_home).keyinfo.read_text()
    assert run_cli("episodes", input=NO_TERMINAL, env={"VERAMEM_PASSPHRASE": PASSPHRASE}).returncode == 0


# ---------------------------------------------------------------- the key file's retired keys

_CHECK = st.text("0123456789abcdef", min_size=64, max_size=64)
_RETIRED = st.lists(
    st.fixed_dictionaries({"key_check": _CHECK, "retired_at": st.text(max_size=40)}), max_size=5
)


@given(retired=_RETIRED)
def test_retired_keys_survive_the_key_file_round_trip(retired: list[dict[str, str]]) -> None:
    from veramem_desktop.keys import KeyInfo, key_check

    info = KeyInfo(
        store_id="s", key_check=key_check(b"k" * 32), mode="keyring", created_at="t", retired=retired
    )
    again = KeyInfo.from_json(info.to_json(), Path("veramem.keys.json"))
    assert again == info
    assert ("retired" in json.loads(info.to_json())) == bool(retired)  # a store never rekeyed: the old format


@given(entry=st.one_of(st.integers(), st.text(), st.fixed_dictionaries({"key_check": st.text(max_size=70)})))
def test_a_malformed_retired_entry_is_a_damaged_key_file(entry: object) -> None:
    import pytest
    from veramem_desktop.core.errors import KeyFileDamagedError

    from veramem_desktop.keys import KeyInfo, key_check

    data = json.loads(
        KeyInfo(store_id="s", key_check=key_check(b"k" * 32), mode="keyring", created_at="t").to_json()
    )
    data["retired"] = [entry]
    with pytest.raises(KeyFileDamagedError):
        KeyInfo.from_json(json.dumps(data), Path("veramem.keys.json"))


@pytest.mark.anyio
async def test_the_terminal_apps_unlock_dialog_asks_for_the_passphrase_in_its_own_field(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dialog sits above its own passphrase field: it says to type it there, not to go to a terminal."""
    from support.fake_embedder import HashEmbedder
    from support.pilot import settle
    from textual.widgets import Static
    from veramem_desktop.tui.app import VeramemApp
    from veramem_desktop.tui.screens.unlock import UnlockScreen

    from veramem_desktop.memory import Memory

    created, _ = Memory.create(
        isolated_home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder()
    )
    created.close()
    monkeypatch.delenv("VERAMEM_PASSPHRASE")
    app = VeramemApp(lambda passphrase: Memory(isolated_home, passphrase=passphrase, embedder=HashEmbedder()))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, UnlockScreen)
        text = " ".join(str(w.render()) for w in app.screen.query(Static))
        await pilot.press("escape")
    assert "below" in text and "terminal" not in text.lower() and "VERAMEM_PASSPHRASE" not in text
