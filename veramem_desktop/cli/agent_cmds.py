"""Commands that let agents in: the MCP stdio server and the REST server with its web page."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import click

from .common import open_memory


def veramem_executable() -> str:
    """The absolute path of the command that started us, for clients that launch it themselves."""
    if getattr(sys, "frozen", False):  # a standalone build: the executable is the program
        return str(Path(sys.executable).absolute())
    candidates = [Path(sys.argv[0]), Path(sys.executable).with_name("veramem")]
    for path in candidates:
        if path.name.startswith("veramem") and path.is_file():
            return str(path.absolute())
    found = shutil.which("veramem")
    return str(Path(found).absolute()) if found else "veramem"


def client_config(client: str, home: str | None, agent_id: str | None = None) -> dict[str, object]:
    """The JSON a client's settings need to start ``veramem mcp`` (Claude Desktop and Cursor share the shape)."""
    env: dict[str, str] = {}
    if home:
        env["VERAMEM_HOME"] = str(Path(home).expanduser().absolute())
    if agent_id:
        env["VERAMEM_AGENT_ID"] = agent_id
    entry: dict[str, object] = {"command": veramem_executable(), "args": ["mcp"]}
    if env:
        entry["env"] = env
    return {"mcpServers": {"veramem": entry}}


WHERE = {
    "claude": "Claude Desktop: Settings → Developer → Edit Config (claude_desktop_config.json); merge into "
    '"mcpServers" and restart Claude.',
    "cursor": 'Cursor: ~/.cursor/mcp.json (all projects) or .cursor/mcp.json in a project; merge into "mcpServers".',
}


@click.command()
@click.option(
    "--print-config",
    "print_config",
    type=click.Choice(["claude", "cursor"]),
    help="Print the JSON to paste into the client's MCP settings, then exit.",
)
@click.option("--user", "user_id", help="Act for this user (default: VERAMEM_USER_ID, else the config).")
@click.option(
    "--agent", "agent_id", help="Act as this agent, whose grants apply (default: VERAMEM_AGENT_ID)."
)
@click.pass_context
def mcp(ctx: click.Context, print_config: str | None, user_id: str | None, agent_id: str | None) -> None:
    """Serve the memory to an MCP client over stdio (Claude Desktop, Cursor, …).

    Tools: add, search, answer, feedback, history and forget (off with
    [mcp] allow_forget = false). stdout carries protocol frames only; logs go to
    stderr. The key comes from the OS keyring or VERAMEM_PASSPHRASE: there is no prompt.
    """
    home = (ctx.find_root().obj or {}).get("home")
    if print_config:
        click.echo(json.dumps(client_config(print_config, home, agent_id), indent=2))
        click.echo(WHERE[print_config], err=True)
        if not os.environ.get("VERAMEM_PASSPHRASE"):
            click.echo(
                'If your store uses a passphrase rather than the OS keyring, add "VERAMEM_PASSPHRASE" '
                'to "env" yourself.',
                err=True,
            )
        return
    import logging

    from ..agent_access import AgentAccess, resolve_identity
    from ..mcp_server import serve_stdio

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    # no passphrase source: never prompt on the protocol's stdin
    with open_memory(ctx, prompt=False, head_start=False) as mem:
        mem.unlock()  # now, so a missing key fails at start-up with a message on stderr
        identity = resolve_identity(mem.config, user_id, agent_id)
        click.echo(
            f"veramem mcp: serving as user {identity.user_id!r}"
            f"{f' / agent {identity.agent_id!r}' if identity.agent_id else ''} on stdio",
            err=True,
        )
        serve_stdio(AgentAccess(mem, identity), allow_forget=mem.config.mcp.allow_forget)


@click.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Loopback address to bind (127.0.0.1, ::1 or localhost); other hosts are refused.",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="0 picks a free port."
)
@click.option("--show-token", is_flag=True, help="Print the API token (making it if needed), then exit.")
@click.option("--user", "user_id", help="Act for this user (default: VERAMEM_USER_ID, else the config).")
@click.option(
    "--agent", "agent_id", help="Act as this agent, whose grants apply (default: VERAMEM_AGENT_ID)."
)
@click.option(
    "--max-body-mb",
    type=click.IntRange(1, 1024),
    default=20,
    show_default=True,
    help="Largest request body accepted.",
)
@click.pass_context
def serve(
    ctx: click.Context,
    host: str,
    port: int,
    show_token: bool,
    user_id: str | None,
    agent_id: str | None,
    max_body_mb: int,
) -> None:
    """Serve the REST API and the web page on this computer only.

    Every /v1 request needs `Authorization: Bearer <token>`; the token is made on first
    use and kept in the config folder (mode 0600). Open the printed address in a
    browser and paste the token to search, inspect and forget memories.
    """
    from ..config import resolve_paths
    from ..rest import is_loopback, load_or_create_token, token_path

    home = (ctx.find_root().obj or {}).get("home")
    paths = resolve_paths(home)
    if show_token:
        click.echo(load_or_create_token(paths))
        return
    if not is_loopback(host):
        raise click.BadParameter(
            f"{host} is not a loopback address; the API is served on this computer only "
            "(127.0.0.1, ::1 or localhost).",
            param_hint="--host",
        )
    import socket

    import uvicorn

    from ..rest import create_app

    with open_memory(ctx) as mem:
        mem.unlock()  # before binding, so a wrong key fails here
        token = load_or_create_token(paths)
        app = create_app(
            mem, token, user_id=user_id, agent_id=agent_id, max_body_bytes=max_body_mb * 1024 * 1024
        )
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(
            family, socket.SOCK_STREAM, socket.IPPROTO_TCP
        )  # asyncio sets TCP_NODELAY only then
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("::1" if family == socket.AF_INET6 else "127.0.0.1", port))
        sock.listen(128)  # connections queue from now on, so the printed address works at once
        bound = sock.getsockname()[1]
        shown = f"[::1]:{bound}" if family == socket.AF_INET6 else f"127.0.0.1:{bound}"
        click.echo(f"http://{shown}/")
        click.echo(
            f"Serving VeraMem on http://{shown}/ (API under /v1, schema at /openapi.json). "
            f"Token: `veramem serve --show-token` (kept in {token_path(paths)}). Ctrl-C stops.",
            err=True,
        )
        config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=5)
        uvicorn.Server(config).run(sockets=[sock])
