"""``veramem sync …``: end-to-end encrypted sync between your devices through a shared folder."""

from __future__ import annotations

import signal
import threading
from typing import TYPE_CHECKING, Any

import click

from veramem_desktop.core.errors import ExitCode

from .common import emit_json, json_option, pass_memory, path_arg
from .suggest import SuggestingGroup

if TYPE_CHECKING:
    from ..memory import Memory


@click.group(cls=SuggestingGroup)
def sync() -> None:
    """Sync this store with your other devices through a folder that Syncthing, Dropbox,
    iCloud Drive, Nextcloud or a USB stick replicates. Everything in it is sealed."""


@sync.command("init")
@click.argument("folder")
@click.option("--name", default="", help="A name for this device (default: the host name).")
@json_option
@pass_memory
def init_cmd(ctx: click.Context, mem: Memory, folder: str, name: str, as_json: bool) -> None:
    """Make this the first device of a sync account, using FOLDER."""
    info = mem.sync.init(path_arg(folder), name)
    report = mem.sync.run()
    if as_json:
        emit_json({**info, "exported_events": report.exported_events})
        return
    click.echo(f"This device ({info['name']}, {info['device']}) syncs through {info['folder']}.")
    click.echo(
        "On another device run `veramem sync join FOLDER`, then type its code here with `veramem sync approve`."
    )


@sync.command("join")
@click.argument("folder")
@click.option("--name", default="", help="A name for this device (default: the host name).")
@click.option("--timeout", default=600.0, show_default=True, help="Seconds to wait for the approval.")
@json_option
@pass_memory
def join_cmd(ctx: click.Context, mem: Memory, folder: str, name: str, timeout: float, as_json: bool) -> None:
    """Ask to join the sync account in FOLDER; shows a one-time code to approve on a trusted device."""
    code = mem.sync.join_start(path_arg(folder), name)
    if as_json:
        emit_json({"code": code, "status": "waiting for approval"})
    else:
        click.echo(f"Pairing code: {code}")
    click.echo(
        f"On a trusted device run `veramem sync approve {code}` (waiting up to {timeout:.0f} s)…",
        err=True,
    )
    info = mem.sync.join_finish(timeout_s=timeout)
    if as_json:
        emit_json(info)
        return
    click.echo(
        f"Joined: this device is {info['device']}, approved by {info['approved_by']}; "
        f"{info['applied_events']} events applied."
    )


@sync.command("approve")
@click.argument("code")
@click.option(
    "--wait", "wait_s", default=60.0, show_default=True, help="Seconds to wait for the new device to confirm."
)
@json_option
@pass_memory
def approve_cmd(ctx: click.Context, mem: Memory, code: str, wait_s: float, as_json: bool) -> None:
    """Approve the new device that shows CODE: it receives the sync key sealed to its own key."""
    info = mem.sync.approve(code, wait_s=wait_s)
    if as_json:
        emit_json(info)
        return
    status = info.get("status", "")
    if status == "added":
        click.echo(f"Added device {info['name'] or '(unnamed)'} ({info['device']}).")
    elif status == "failed":
        click.echo(f"Device {info['device']} was not added: {info.get('message', '')}", err=True)
        ctx.exit(int(ExitCode.REFUSED))
    else:
        click.echo(f"Approved {info['device']}; {status}.")


@sync.command("devices")
@json_option
@pass_memory
def devices_cmd(ctx: click.Context, mem: Memory, as_json: bool) -> None:
    """List the devices of this sync account."""
    found = mem.sync.devices()
    if as_json:
        emit_json(found)
        return
    for d in found:
        flags = " (this device)" if d["this_device"] else (" (removed)" if d["removed"] else "")
        click.echo(f"{d['id']}  {d['name'] or '-':20}  batches applied {d['batches_applied']}{flags}")


@sync.command("remove")
@click.argument("device")
@json_option
@pass_memory
def remove_cmd(ctx: click.Context, mem: Memory, device: str, as_json: bool) -> None:
    """Remove DEVICE: its later files are refused and the sync key rotates without it."""
    info = mem.sync.remove(device)
    if as_json:
        emit_json(info)
        return
    click.echo(f"Removed {info['removed']}; the sync key is now epoch {info['epoch']}.")


def _report_line(report: Any) -> str:
    line = (
        f"sent {report.exported_events} events in {report.exported_batches} files, applied "
        f"{report.applied_events} events from {report.applied_batches} files, erased {report.erased}, "
        f"{len(report.refused)} refused, {len(report.waiting)} waiting"
    )
    for h in report.ledger_heads:  # a ledger rolled back or rewritten: never left to a JSON field alone
        line += f"\nLEDGER {h['reason'].replace('_', ' ').upper()} on device {h['device']}: {h['message']}"
    return line


@sync.command("run")
@json_option
@pass_memory
def run_cmd(ctx: click.Context, mem: Memory, as_json: bool) -> None:
    """Exchange once with the sync folder.

    Exits 7 when a paired device's signed ledger head shows a ledger (its own or this
    device's) was rolled back or rewritten, 10 when files were refused."""
    report = mem.sync.run()
    if as_json:
        emit_json(report.to_dict())
    else:
        click.echo(_report_line(report))
        for r in report.refused:
            click.echo(f"refused {r['file']}: {r['reason']}: {r['message']}", err=True)
    if report.ledger_heads:  # a paired device's signed head disagrees with a ledger: tampering or a restore
        ctx.exit(int(ExitCode.LEDGER_BROKEN))
    if report.refused:
        ctx.exit(int(ExitCode.REFUSED))


@sync.command("daemon")
@click.option("--scan", "scan_s", default=30.0, show_default=True, help="Seconds between periodic scans.")
@pass_memory
def daemon_cmd(ctx: click.Context, mem: Memory, scan_s: float) -> None:
    """Keep syncing: exchange whenever files arrive in the folder and every --scan seconds (Ctrl-C stops)."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    click.echo(f"Watching {mem.sync.status().get('folder')}…", err=True)
    try:
        mem.sync.daemon(
            stop,
            scan_s=scan_s,
            on_run=lambda r: (
                click.echo(_report_line(r), err=True)
                if (r.applied_events or r.exported_events or r.refused or r.ledger_heads)
                else None
            ),
            on_error=lambda e: click.echo(f"sync run failed: {e}", err=True),
        )
    except KeyboardInterrupt:
        stop.set()


@sync.command("status")
@json_option
@pass_memory
def status_cmd(ctx: click.Context, mem: Memory, as_json: bool) -> None:
    """Devices, last exchange, events not sent yet, files refused or waiting, and ledgers found
    rolled back or rewritten, with reasons."""
    info = mem.sync.status()
    if as_json:
        emit_json(info)
        return
    if not info.get("set_up"):
        click.echo("Sync is not set up. Run `veramem sync init FOLDER` or `veramem sync join FOLDER`.")
        return
    click.echo(
        f"device {info['device']['id']} ({info['device']['name']}), folder {info['folder']}, "
        f"key epoch {info['epoch']}"
    )
    click.echo(
        f"last exchange {info['last_exchange'] or 'never'}, {info['pending_events']} events not sent yet"
    )
    for d in info["devices"]:
        mark = " (this device)" if d["this_device"] else (" (removed)" if d["removed"] else "")
        click.echo(f"  {d['id']}  {d['name'] or '-'}{mark}")
    if info.get("own_chain_problem"):
        click.echo(f"this device's ledger: {info['own_chain_problem']}")
    for c in info["chains"]:
        if c["problem"]:
            click.echo(f"chain of {c['device']}: {c['problem']}")
    for r in info["refused"]:
        click.echo(f"refused {r['file']}: {r['reason']}: {r['message']}")
    for r in info["waiting"]:
        click.echo(f"waiting {r['file']}: {r['reason']}: {r['message']}")
