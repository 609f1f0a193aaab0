"""Snapshots of the progress display on a fake terminal (fixed width, a clock the test moves), and its
absence without a terminal or with --json."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console
from support.fixtures import init_store, run_cli

from veramem_desktop.cli.progress import make_progress, progress_of, shown


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _terminal() -> Console:
    return Console(
        file=io.StringIO(), force_terminal=True, width=100, color_system=None, legacy_windows=False
    )


def _screen(progress: object) -> str:
    """What the display shows now, as text."""
    out = Console(file=io.StringIO(), width=100, color_system=None, record=True)
    out.print(progress.get_renderable())  # type: ignore[attr-defined]
    return out.export_text().rstrip()


def test_a_known_total_shows_count_whole_run_rate_and_time_left() -> None:
    """You should see the bar part filled, 100/250 messages, 10.0/s and 15 s left."""
    clock = Clock()
    progress = make_progress(_terminal(), get_time=clock)
    task = progress.add_task("Importing", total=250, unit="messages", note="")
    clock.now += 10
    progress.update(task, completed=100, note="96 stored")
    assert _screen(progress) == (
        "⠋ Importing ━━━━━━━━             100/250 messages 10.0/s left 0:00:15 96 stored"
    )


def test_an_import_line_fits_an_80_column_terminal_and_a_narrower_one_cuts_the_note_first() -> None:
    clock = Clock()
    progress = make_progress(_terminal(), get_time=clock)
    task = progress.add_task("Importing", total=12_500, unit="messages", note="")
    clock.now += 100
    progress.update(task, completed=3_456, note="3,401 stored")
    out = Console(file=io.StringIO(), width=80, color_system=None, record=True)
    out.print(progress.get_renderable())
    assert out.export_text().rstrip() == (
        "⠋ Importing ━━━╸          3,456/12,500 messages 34.6/s left 0:04:21 3,401 stored"
    )
    narrow = Console(file=io.StringIO(), width=72, color_system=None, record=True)
    narrow.print(progress.get_renderable())
    assert narrow.export_text().rstrip().count("\n") == 0  # still one line


def test_the_rate_is_over_the_whole_run_not_the_last_batches() -> None:
    """A slow start then a fast stretch: 300 in 20 s is 15/s (the last 10 s alone were 20/s)."""
    clock = Clock()
    progress = make_progress(_terminal(), get_time=clock)
    task = progress.add_task("Importing", total=400, unit="messages", note="")
    clock.now += 10
    progress.update(task, completed=100)
    clock.now += 10
    progress.update(task, completed=300)
    assert _screen(progress) == ("⠋ Importing ━━━━━━━━━━━━━━━      300/400 messages 15.0/s left 0:00:06")


def test_an_unknown_count_pulses_and_shows_the_count_rate_and_time_so_far() -> None:
    """No total: the bar pulses (drawn whole without colour), and there is no time left to claim."""
    clock = Clock()
    progress = make_progress(_terminal(), get_time=clock)
    task = progress.add_task("Re-embedding", total=None, unit="vectors", note="")
    clock.now += 4
    progress.update(task, completed=512)
    assert _screen(progress) == "⠋ Re-embedding ━━━━━━━━━━━━━━━━━━━━ 512 vectors 128/s 0:00:04 so far"


def test_bytes_are_shown_in_their_unit() -> None:
    clock = Clock()
    progress = make_progress(_terminal(), get_time=clock)
    task = progress.add_task("Exporting", total=4_800_000, unit="bytes", note="")
    clock.now += 2
    progress.update(task, completed=1_200_000)
    assert _screen(progress) == "⠋ Exporting ━━━━━                1.2 MB/4.8 MB 600.0 kB/s left 0:00:06"


def test_a_finished_task_says_how_long_it_took() -> None:
    clock = Clock()
    progress = make_progress(_terminal(), get_time=clock)
    task = progress.add_task("Verifying", total=50, unit="entries", note="")
    clock.now += 65
    progress.update(task, completed=50)
    assert _screen(progress) == "  Verifying ━━━━━━━━━━━━━━━━━━━━ 50/50 entries 0.8/s took 0:01:05"


def test_nothing_is_drawn_when_not_shown() -> None:
    console = _terminal()
    with progress_of("Importing", total=10, unit="messages", show=False, console=console) as bar:
        bar.update(5)
    assert console.file.getvalue() == ""  # type: ignore[attr-defined]
    assert shown(as_json=True) is False


def test_an_import_to_a_pipe_prints_no_progress(isolated_home: Path, tmp_path: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    msgs = tmp_path / "m.jsonl"
    msgs.write_text("\n".join(json.dumps({"role": "user", "content": f"note {i}"}) for i in range(5)))
    proc = run_cli("import", str(msgs), input="")
    assert proc.returncode == 0, proc.stderr
    assert "━" not in proc.stderr and "/s left" not in proc.stderr


def _on_a_terminal(args: list[str]) -> tuple[int, str]:
    """Run ``veramem ARGS`` with stdin, stdout and stderr on a pseudo-terminal; what it drew, as text."""
    import os
    import pty
    import select
    import subprocess
    import time

    from support.fixtures import VENV_BIN

    master, slave = pty.openpty()
    proc = subprocess.Popen([str(VENV_BIN / "veramem"), *args], stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    seen, deadline = b"", time.monotonic() + 180
    while time.monotonic() < deadline:
        if select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    return proc.wait(timeout=30), seen.decode("utf-8", "replace")


def test_an_import_on_a_terminal_counts_its_messages_up_front(isolated_home: Path, tmp_path: Path) -> None:
    """The total is the messages counted by a first streaming pass: 40/40 at the end, never a byte share."""
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    msgs = tmp_path / "m.jsonl"
    msgs.write_text(
        "\n".join(json.dumps({"role": "user", "content": f"I own {i} red kites."}) for i in range(40))
    )
    code, screen = _on_a_terminal(["import", str(msgs), "--batch", "8"])
    assert code == 0, screen
    assert "0/40 messages" in screen and "40/40 messages" in screen  # from the first frame to the last
