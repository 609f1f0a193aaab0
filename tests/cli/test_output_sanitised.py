"""Stored text reaches a terminal as text: escapes, carriage returns, C1 controls and bidi overrides
in a memory are shown as visible stand-ins by every command that prints it, never obeyed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from veramem_desktop.core.trust.display import JOINERS

from veramem_desktop.cli import cli

#: What a hostile tool wrote: erase the line, go up one, print a fake "empty queue"; set the window
#: title; a C1 CSI; a right-to-left override; Rich markup.
ATTACK = (
    "The gateway restarts nightly at 02:00.\x1b[2K\r\x1b[1ANothing to review. "
    "\x1b]0;pwned\x07 \x9b31m \u202eevil\u202c [bold]loud[/bold]"
)
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
    for args in (
        ("answer", "when does the gateway restart?"),
        ("history", hostile_store),
        ("episodes",),
        ("forget", hostile_store, "--yes"),
        ("status",),
    ):
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


def _every_active_character() -> list[str]:
    """Every C0, DEL and C1 control, every format character and both Unicode separators."""
    import sys
    import unicodedata

    return [
        chr(c)
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp") and chr(c) not in "\n"
    ]


def test_no_control_or_format_character_reaches_the_terminal_from_any_listing(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Each such character, stored in a tool message, is listed by episodes, search and review."""
    chars = _every_active_character()
    _run("init")
    _run("config", "set", "llm.backend", "rule-based")
    messages = [
        {"role": "tool", "name": "probe", "content": f"Probe {i} says the backup runs{''.join(chunk)} daily."}
        for i, chunk in enumerate(chars[j : j + 12] for j in range(0, len(chars), 12))
    ]
    path = tmp_path / "probe.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    added = json.loads(_run("add", "--file", str(path), "--json").output)
    stored = json.loads(_run("episodes", "--limit", "1000", "--json").output)
    assert sum(len(e["content"]) for e in stored) >= len(chars)  # the characters were stored as sent
    outputs = [
        _run("episodes", "--limit", "1000").output,
        _run("review").output,
        _run("search", "backup runs daily", "--k", "100").output,
    ]
    outputs += [_run("history", item["id"]).output for item in added["added"][:5]]
    active = set(chars) - set(JOINERS)  # ZWJ and ZWNJ shape emoji and scripts, and act on nothing
    for out in outputs:
        assert out.strip()
        _assert_inert(out)
        assert not set(out) & active, sorted(f"U+{ord(c):04X}" for c in set(out) & active)
    print(
        f"{len(chars)} control/format characters stored; {sum(map(len, outputs))} characters printed; 0 active"
    )


def test_an_error_that_echoes_what_was_typed_shows_its_controls_as_stand_ins(isolated_home: Path) -> None:
    """`veramem history` with an id holding escapes: the "not found" line shows them, never sends them."""
    _run("init")
    result = CliRunner().invoke(cli, ["history", "mem_\x1b[2Kfake\x07"])
    assert result.exit_code == 8
    _assert_inert(result.output)
    assert "fake" in result.output
