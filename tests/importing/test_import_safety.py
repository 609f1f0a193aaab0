"""Import reads only what it should: regular files, nothing outside the folder it was given,
no pipe or device, and every JSON token and record within a bound while it is read."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from import_support import chatgpt_conversation, claude_export, write_json
from support.fixtures import init_store, run_cli
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.transfer.bounded import JsonGuard, Refused, guarded_items
from veramem_desktop.core.transfer.chats import detect, open_source
from veramem_desktop.core.transfer.records import Problem, Record


def _records(path: Path) -> tuple[list[Record], list[Problem]]:
    items = list(open_source(path).items())
    return [i for i in items if isinstance(i, Record)], [i for i in items if isinstance(i, Problem)]


# ------------------------------------------------------------------ pipes, devices, links
def test_a_fifo_is_refused_at_once_and_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "conversations.json"
    os.mkfifo(fifo)
    # run in a child with a deadline: opening a FIFO for reading would block for ever
    code = f"""
from pathlib import Path
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.transfer.chats import detect, open_source
for call in (lambda: detect(Path({str(fifo)!r})), lambda: open_source(Path({str(fifo)!r}), "chatgpt")):
    try:
        call()
    except InvalidInputError as exc:
        print(exc.message)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and all("FIFO" in line and "regular files" in line for line in lines)


def test_a_fifo_inside_a_documents_folder_is_listed_and_the_other_files_read(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# Plans\n\nI am learning Portuguese.\n")
    os.mkfifo(folder / "b.md")
    code = f"""
from pathlib import Path
from veramem_desktop.core.transfer.chats import open_source
from veramem_desktop.core.transfer.records import Problem, Record
for item in open_source(Path({str(folder)!r})).items():
    print(type(item).__name__, item.position, getattr(item, "reason", ""))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Record a.md, chunk 1" in proc.stdout
    assert "Problem b.md is a FIFO (named pipe); only regular files are read" in proc.stdout


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused_with_a_clear_message(device: str) -> None:
    with pytest.raises(InvalidInputError, match="is a device; only regular files and folders are read"):
        detect(Path(device))
    with pytest.raises(InvalidInputError, match="is a device"):
        open_source(Path(device), "messages")


def test_a_link_to_a_device_in_a_folder_is_not_followed(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("I keep bees.\n")
    (folder / "zero.md").symlink_to("/dev/zero")
    records, problems = _records(folder)
    assert [r.content for r in records] == ["I keep bees."]
    assert [(p.position, p.reason) for p in problems] == [
        ("zero.md", "is a link that leads out of the folder; not followed")
    ]


def test_a_link_out_of_the_folder_is_not_followed_and_its_text_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("The vault code is 4417.\n")
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.md").write_text("I keep bees.\n")
    (folder / "leak.md").symlink_to(secret)
    (folder / "sub" / "up.md").symlink_to("../../outside/secret.md")
    (folder / "outdir").symlink_to(secret.parent, target_is_directory=True)
    records, problems = _records(folder)
    assert all("4417" not in r.content for r in records)
    assert [r.content for r in records] == ["I keep bees."]
    assert sorted(p.position for p in problems) == ["leak.md", "sub/up.md"]
    assert {p.reason for p in problems} == {"is a link that leads out of the folder; not followed"}


def test_a_link_inside_the_folder_is_read_once_under_its_own_name(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    (folder / ".drafts").mkdir(parents=True)
    (folder / ".drafts" / "d.txt").write_text("A hidden draft, shown through a link.\n")
    (folder / "a.md").write_text("I keep bees.\n")
    (folder / "shown.md").symlink_to(".drafts/d.txt")
    (folder / "again.md").symlink_to("a.md")  # a.md is read anyway: not twice
    records, problems = _records(folder)
    assert sorted(r.content for r in records) == ["A hidden draft, shown through a link.", "I keep bees."]
    assert not problems


def test_an_export_folder_whose_conversations_json_links_outside_is_refused(tmp_path: Path) -> None:
    outside = write_json(tmp_path / "elsewhere" / "conversations.json", claude_export())
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "conversations.json").symlink_to(outside)
    with pytest.raises(InvalidInputError, match="leads out of"):
        detect(folder)
    with pytest.raises(InvalidInputError, match="leads out of"):
        open_source(folder, "claude")


def test_the_cli_refuses_a_fifo_with_exit_9_and_no_traceback(isolated_home: Path, tmp_path: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    fifo = tmp_path / "chat.jsonl"
    os.mkfifo(fifo)
    proc = run_cli("import", str(fifo))
    assert proc.returncode == 9, proc.stderr
    assert "FIFO" in proc.stderr and "Traceback" not in proc.stderr


# ------------------------------------------------------------------ bounded reading
def _turns(conv_id: str, n: int = 2) -> dict:
    return chatgpt_conversation(conv_id, conv_id, [("user", f"{conv_id} says hello {i}.") for i in range(n)])


def test_an_oversized_message_is_listed_and_the_next_conversations_are_read(tmp_path: Path) -> None:
    big = _turns("c-big")
    big["mapping"]["c-big-n0"]["message"]["content"]["parts"] = ["x" * 9_000_000]
    path = write_json(tmp_path / "conversations.json", [_turns("c-a"), big, _turns("c-b")])
    assert detect(path) == "chatgpt"
    records, problems = _records(path)
    assert [r.content for r in records] == [
        "c-a says hello 0.",
        "c-a says hello 1.",
        "c-b says hello 0.",
        "c-b says hello 1.",
    ]
    assert [(p.position, p.reason) for p in problems] == [("conversation 2", "holds a text longer than 8 MB")]


def test_the_guard_refuses_depth_and_bare_tokens_and_resumes_at_the_next_item() -> None:
    data = (
        b'[{"a": "x\\"y"}, {"deep": '
        + b"[" * 100
        + b"]" * 100
        + b'}, {"n": '
        + b"1" * 5000
        + b'}, {"b": "\\\\"}, 7]'
    )
    for buf in (1, 7, 4096):
        got = list(guarded_items(JsonGuard(io.BytesIO(data), max_token=1000), b""))
        assert [g if not isinstance(g, Refused) else g.reason for g in got] == [
            {"a": 'x"y'},
            "nests deeper than 64 levels",
            "holds a value longer than 0.000953674 MB",
            {"b": "\\"},
            7,
        ], buf


def test_an_oversized_json_line_is_skipped_without_being_held(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    with path.open("w") as f:
        f.write(json.dumps({"role": "user", "content": "First."}) + "\n")
        f.write(json.dumps({"role": "user", "content": "y" * 9_000_000}) + "\n")
        f.write(json.dumps({"role": "user", "content": "Third."}) + "\n")
    records, problems = _records(path)
    assert [r.content for r in records] == ["First.", "Third."]
    assert [p.position for p in problems] == ["line 2"] and "longer than" in problems[0].reason


_ZIP_BOMB_CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    from pathlib import Path
    from veramem_desktop.core.errors import VeramemError
    from veramem_desktop.core.transfer.chats import detect, open_source
    from veramem_desktop.core.transfer.records import Problem, Record

    def peak_kb():
        # VmHWM: this process's own high-water mark (ru_maxrss can carry the forking parent's over exec)
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    path = Path(sys.argv[1])
    before = peak_kb()
    started = time.perf_counter()
    fmt = detect(path)
    items = list(open_source(path, fmt).items())
    print(json.dumps({
        "format": fmt,
        "seconds": time.perf_counter() - started,
        "baseline_kb": before,
        "peak_kb": peak_kb(),
        "records": [i.content for i in items if isinstance(i, Record)],
        "problems": [[i.position, i.reason] for i in items if isinstance(i, Problem)],
    }))
    """
)


def _bomb(path: Path, member_mb: int, *, many: bool) -> Path:
    """A ChatGPT zip whose conversations.json holds a conversation of ``member_mb`` MB (one message,
    or with ``many`` a hundred thousand small ones), then a good conversation; written in pieces."""
    bomb = _turns("c-bomb", 1)
    marker = "@@FILL@@"
    if many:
        bomb["mapping"]["c-bomb-n0"]["message"]["metadata"] = {"pad": [marker]}
        piece, count = json.dumps("z" * 1000) + ", ", member_mb * 1100
    else:
        bomb["mapping"]["c-bomb-n0"]["message"]["content"]["parts"] = [marker]
        piece, count = "a" * (1024 * 1024), member_mb
    head, tail = json.dumps([bomb, _turns("c-good")]).split(json.dumps(marker))
    zf = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9)
    with zf, zf.open("conversations.json", "w", force_zip64=True) as member:
        member.write(head.encode() + (b"" if many else b'"'))
        for _ in range(count):
            member.write(piece.encode())
        member.write((b'"0"' if many else b'"') + tail.encode())
    return path


@pytest.mark.slow
@pytest.mark.parametrize("many", [False, True], ids=["one-100MB-message", "100MB-of-small-texts"])
def test_a_zip_with_a_100_mb_member_is_refused_within_bounded_memory(tmp_path: Path, many: bool) -> None:
    """The reader of a ~0.1-0.2 MB zip that inflates to 100 MB, in a child process: its peak resident
    memory (VmHWM) grows by less than 56 MB over the child's baseline (its imports done), it refuses
    the conversation in seconds, and still reads the good conversation after it."""
    zipped = _bomb(tmp_path / "export.zip", 100, many=many)
    assert zipped.stat().st_size < 1_000_000
    with zipfile.ZipFile(zipped) as zf:
        assert zf.getinfo("conversations.json").file_size > 100 * 1024 * 1024
    proc = subprocess.run(
        [sys.executable, "-c", _ZIP_BOMB_CHILD, str(zipped)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    grown_mb = (out["peak_kb"] - out["baseline_kb"]) / 1024
    print(
        f"zip bomb ({many=}): {out['seconds']:.2f} s, peak {out['peak_kb'] // 1024} MB, baseline {out['baseline_kb'] // 1024} MB",
        out["problems"],
    )
    assert out["format"] == "chatgpt"
    assert out["records"] == ["c-good says hello 0.", "c-good says hello 1."]
    assert [p[0] for p in out["problems"]] == ["conversation 1"]
    assert "larger than" in out["problems"][0][1] or "longer than" in out["problems"][0][1]
    assert grown_mb < 56, {k: v for k, v in out.items() if k != "records"}
    assert out["seconds"] < 30, out


def test_a_memory_export_is_read_within_bounds(tmp_path: Path) -> None:
    from veramem_desktop.core.transfer.memory_import import read_archive

    path = tmp_path / "memories.jsonl"
    path.write_text(
        json.dumps({"type": "veramem.memories", "version": 1})
        + "\n"
        + "[" * 100_000
        + "\n"
        + json.dumps({"type": "link"})
        + "\n"
    )
    read = list(read_archive(path))
    assert [n for n, _ in read] == [1, 2, 3]
    assert isinstance(read[1][1], Problem) and read[1][1].reason == "is not valid JSON"
    fifo = tmp_path / "export.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InvalidInputError, match="FIFO"):
        list(read_archive(fifo))


def test_add_from_a_fifo_or_a_device_is_refused_at_once(isolated_home: Path, tmp_path: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    fifo = tmp_path / "note.txt"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero"):
        proc = run_cli("add", "--file", path, timeout=60)
        assert proc.returncode == 9, proc.stderr
        assert "regular files" in proc.stderr and "Traceback" not in proc.stderr
