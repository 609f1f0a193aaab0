"""The issue's reproduction, run as a person runs it (the real CLI, a real store, the real model):
import, forget the message, import again, search its words."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from support.fixtures import PASSPHRASE, run_cli

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

SECRET = "My locker code at the climbing gym is 4471."


def test_the_cli_refuses_a_forgotten_message_on_reimport_and_says_so(
    isolated_home: Path, tmp_path: Path
) -> None:
    config = Config()
    config.llm.backend = "rule-based"
    Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config)[0].close()
    env = {"VERAMEM_HOME": str(isolated_home)}
    source = tmp_path / "m.json"
    source.write_text(
        json.dumps([{"role": "user", "content": SECRET}, {"role": "user", "content": "I like tea."}])
    )
    first = run_cli("import", str(source), "--json", env=env)
    assert first.returncode == 0, first.stderr
    episodes = json.loads(run_cli("episodes", "--json", env=env).stdout)
    [episode_id] = [
        e["id"]
        for e in (episodes.get("episodes", episodes) if isinstance(episodes, dict) else episodes)
        if "locker" in e["content"]
    ]
    assert run_cli("forget", episode_id, "--yes", env=env).returncode == 0
    again = run_cli("import", str(source), env=env)
    assert again.returncode == 0, again.stderr
    assert "Stored 0 message(s)" in again.stdout
    assert "1 forgotten" in again.stdout and "1 skipped: you forgot it on" in again.stderr
    found = run_cli("search", "locker code climbing gym", "--json", env=env)
    assert found.returncode == 0, found.stderr
    # every text the search gives (texts, quotes, evidence), never its numbers: a score such as
    # 0.8100009983447125 holds the digits "4471" too
    said = list(_strings(json.loads(found.stdout)))
    assert said and not [t for t in said if "4471" in t or "locker" in t.lower()]
    forced = run_cli("import", str(source), "--include-forgotten", "--json", env=env)
    assert json.loads(forced.stdout)["stored"] == 1
    entries = run_cli("verify", env=env)
    assert entries.returncode == 0, entries.stderr


def _strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
