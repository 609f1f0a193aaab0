"""Stored text reaches a terminal as text: escapes, carriage returns, C1 controls and bidi overrides
in a memory are shown as visible stand-ins by every command that prints it, never obeyed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from veramem_desktop.cli import cli

#: What a hostile tool wrote: erase the line, go up one, print a fake "empty queue"; set the window
#: title; a C1 CSI; a right-to-left override; Rich markup.
ATTACK = ("The gateway restarts nightly at 02:00.\x1b[2K\r\x1b[1ANothing to review. "
          "\x1b]0;pwned\x07 \x9b31m \u202eevil\u202c [bold]loud[/bold]")
#: Any character a terminal could act on: C0 (but LF), DEL, C1, bidi embeddings/overrides/isolates.
TERMINAL_ACTIVE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def _run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def _assert_inert(output: str) -> None:
    bad = sorted({f"U+{ord(c):04X}" for c in TERMINAL_ACTIVE.findall(output)})
    assert not bad, f"control characters reached the terminal: {bad}"


@pytest.fixture
def hostile_store(isolated_home: Path, tmp_path: Path) -> str:
    """A store holding one tool message with the attack; returns the id of a memory derived from it."""
    _run("init")
    _run("config", "set", "llm.backend", "rule-based")
    messages = tmp_path / "tool.json"
    messages.write_text(json.dumps([{"role": "tool", "name": "web", "content": ATTACK}]), encoding="utf-8")
    added = json.loads(_run("add", "--file", str(messages), "--json").output)
    assert added["added"], added
    return str(added["added"][0]["id"])


def test_review_output_cannot_erase_its_line_and_fake_an_empty_queue(hostile_store: str) -> None:
    out = _run("review").output
    _assert_inert(out)
    assert "␛[2K␍␛[1ANothing to review." in out  # shown, not obeyed
    assert not any(line.startswith("Nothing to review.") for line in out.splitlines())
    assert hostile_store in out


def test_search_output_shows_escapes_and_overrides_as_visible_text(hostile_store: str) -> None:
    out = _run("search", "gateway restarts nightly").output
    _assert_inert(out)
    assert "␛]0;pwned␇" in out and "\\x9b31m" in out and "\\u202eevil\\u202c" in out


def test_answer_history_episodes_and_forget_preview_print_no_control_characters(hostile_store: str) -> None:
    for args in (("answer", "when does the gateway restart?"), ("history", hostile_store), ("episodes",),
                 ("forget", hostile_store, "--yes"), ("status",)):
        result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == 0, (args, result.output)
        _assert_inert(result.output)
    assert "erases" in result.output or "Store" in result.output


def test_notes_on_stderr_are_made_visible_too(isolated_home: Path) -> None:
    from veramem_desktop.cli.common import say

    runner = CliRunner()

    @__import__("click").command()
    def note() -> None:
        say("note: \x1b[31mred\x1b[0m\rover", err=True)

    result = runner.invoke(note)
    _assert_inert(result.stderr)
    assert "␛[31mred␛[0m␍over" in result.stderr


def test_json_output_keeps_the_exact_stored_text(hostile_store: str) -> None:
    data = json.loads(_run("search", "gateway restarts nightly", "--json").output)
    texts = [hit["text"] for hit in data["results"]]
    assert any("\x1b[2K\r\x1b[1A" in t and "\u202e" in t for t in texts)

