"""Commands that write and read memories: add, episodes, pin, unpin."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.storage import limits

from .common import clip, emit_json, json_option, pass_memory, read_bytes_text, say

if TYPE_CHECKING:
    from veramem_desktop.core.write.results import AddResult

    from ..memory import Memory


def _parse_messages(text: str, where: str) -> list[dict[str, Any]] | None:
    """A JSON list of messages, or None when the text is plain prose (limits: core/storage/limits.py)."""
    stripped = text.lstrip()
    if not stripped.startswith("["):
        return None
    data = limits.parse_json(stripped, where)
    if not isinstance(data, list) or not all(isinstance(m, dict) for m in data):
        raise InvalidInputError(
            f'{where}: a JSON message list must be a list of objects with "role" and "content".'
        )
    return data


def _read_limited(handle: Any, where: str) -> str:
    data = handle.read(limits.MAX_INPUT_BYTES + 1)
    limits.check_size(data, where)
    body, _ = read_bytes_text(data, where)
    return body


def _input_of(
    text: str | None, file_: str | None, role: str, name: str | None
) -> tuple[str, str, str | None]:
    """(body, where it came from, speaker name) of the add's input: TEXT, "-" or piped standard input, or --file.

    A document read from a file is named after the file unless --name says otherwise.
    """
    if file_ and text:
        raise click.UsageError("Give TEXT or --file, not both.")
    if file_:
        from pathlib import Path

        from veramem_desktop.core.transfer.opening import check_input, open_regular

        check_input(Path(file_))  # a FIFO or a device is refused before it is opened (it could block)
        with open_regular(Path(file_)) as handle:
            body = _read_limited(handle, file_)
        if name is None and role == "document":
            name = Path(file_).name
        return body, file_, name
    if text == "-" or (text is None and not sys.stdin.isatty()):
        return _read_limited(sys.stdin.buffer, "standard input"), "standard input", name
    if text is not None:
        return text, "the argument", name
    raise click.UsageError("Nothing to add: give TEXT, - (standard input) or --file.")


def _print_added(result: AddResult) -> None:
    """What an add stored, kept until and decided, one line per memory, as text."""
    click.echo(f"Stored {len(result.episodes)} episode(s).")
    expires = result.episodes[0].metadata.get("expires_at") if result.episodes else None
    if expires:
        click.echo(
            f"Kept until {expires[:16].replace('T', ' ')} UTC, then erased (`veramem pin ID` keeps a memory)."
        )
    for label, items in (
        ("added", result.added),
        ("updated", result.updated),
        ("retracted", result.retracted),
        ("unchanged", result.unchanged),
        ("rejected", result.rejected),
    ):
        for item in items:
            reason = f"  ({item['reason']})" if item.get("reason") else ""
            say(f"  {label:9} {item.get('id', '-')}  {clip(item.get('text', ''), 300)}{reason}")


@click.command()
@click.argument("text", required=False)
@click.option(
    "--file", "file_", type=click.Path(exists=True, dir_okay=False), help="Read the message(s) from a file."
)
@click.option(
    "--role",
    default="user",
    show_default=True,
    type=click.Choice(["user", "assistant", "system", "tool", "document"]),
    help="Role of plain-text input.",
)
@click.option("--name", help="Speaker or source name (tool name, file name).")
@click.option("--user", "user_id", help="User the memory belongs to (default from config).")
@click.option("--agent", "agent_id", help="Agent that is writing.")
@click.option("--team", "team_id", help="Team scope.")
@click.option("--session", "session_id", help="Conversation/session id.")
@click.option(
    "--until",
    "until",
    metavar="DATE",
    help="Keep it until this time (a date keeps it through that day), then erase it like a forget.",
)
@click.option(
    "--for", "expires_in", metavar="DURATION", help="Keep it for this long (30m, 12h, 7d, 2w), then erase it."
)
@json_option
@pass_memory
def add(
    ctx: click.Context,
    mem: Memory,
    text: str | None,
    file_: str | None,
    role: str,
    name: str | None,
    user_id: str | None,
    agent_id: str | None,
    team_id: str | None,
    session_id: str | None,
    until: str | None,
    expires_in: str | None,
    as_json: bool,
) -> None:
    """Store messages and derive memories from them.

    TEXT is plain text or a JSON list of messages ({"role", "content", "name"?, "time"?});
    "-" reads standard input; --file reads a file (with --role document, a document
    is split into chunks, each an episode). With --until or --for, the messages and the
    memories they add are erased (tombstones stay in the ledger) once that time passes.
    """
    body, where, name = _input_of(text, file_, role, name)
    messages = _parse_messages(body, where)
    scope = {"user_id": user_id, "agent_id": agent_id, "team_id": team_id, "session_id": session_id}
    if messages is None and role == "document":
        result = mem.adding.add_document(
            body, name=name or "document", **scope, until=until, expires_in=expires_in
        )
    else:  # a JSON list of messages, or the text as one message
        result = mem.adding.add(
            messages if messages is not None else body,
            **scope,
            role=role,
            name=name,
            until=until,
            expires_in=expires_in,
        )
    for notice in result.notices:
        say(f"note: {notice}", err=True)
    if as_json:
        emit_json(result.to_dict())
        return
    _print_added(result)


@click.command()
@click.option("--user", "user_id", help="Only this user's episodes.")
@click.option("--session", "session_id", help="Only this session, in time order.")
@click.option("--limit", default=20, show_default=True)
@click.option("--include-rejected", is_flag=True, help="Also list messages that hold a rejected value.")
@json_option
@pass_memory
def episodes(
    ctx: click.Context,
    mem: Memory,
    user_id: str | None,
    session_id: str | None,
    limit: int,
    include_rejected: bool,
    as_json: bool,
) -> None:
    """List stored episodes (raw messages), newest first."""
    rows = mem.reading.episodes(
        user_id=user_id,
        session_id=session_id,
        limit=limit,
        newest_first=session_id is None,
        include_rejected=include_rejected,
    )
    if as_json:
        emit_json([e.to_dict() for e in rows])
        return
    if not rows:
        click.echo("No episodes.")
        return
    for e in rows:
        who = clip(e.source_name or e.role, 40)
        say(f"{e.id}  {e.event_time[:19]}  {who:>10}: {clip(e.content, 101)}")


def _pin_command(pinned: bool) -> click.Command:
    verb = "pin" if pinned else "unpin"

    @click.command(name=verb)
    @click.argument("memory_id")
    @json_option
    @pass_memory
    def command(ctx: click.Context, mem: Memory, memory_id: str, as_json: bool) -> None:
        item = (
            mem.curation.set_pinned(memory_id, True) if pinned else mem.curation.set_pinned(memory_id, False)
        )
        if as_json:
            emit_json({"id": item.id, "pinned": item.pinned, "expires_at": item.metadata.get("expires_at")})
            return
        say(f"{'Pinned' if pinned else 'Unpinned'} {item.id}  {clip(item.text, 200)}")

    command.help = (
        "Pin a memory: consolidation never archives, merges or moves it, and it does not expire."
        if pinned
        else "Unpin a memory: consolidation and its expiry (if any) apply to it again."
    )
    return command


pin = _pin_command(True)
unpin = _pin_command(False)
