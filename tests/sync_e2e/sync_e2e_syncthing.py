"""Two real Syncthing instances on loopback sharing one folder, for the end-to-end sync test.

Each runs from its own temporary home with a generated key, a GUI/REST address and API
key of our choosing on 127.0.0.1, listening on 127.0.0.1 only, with global and local
discovery, relays, NAT traversal (UPnP and STUN), usage reporting, crash reporting and
upgrades off. They know each other by device id and a fixed loopback address.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import time
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FOLDER_ID = "veramem-sync-test"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(condition: Callable[[], Any], timeout: float, what: str, every: float = 0.2) -> Any:
    """Poll ``condition`` until it returns something true; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


@dataclass
class Syncthing:
    name: str
    home: Path
    folder: Path
    gui_port: int
    listen_port: int
    api_key: str
    device_id: str = ""
    process: subprocess.Popen[bytes] | None = None

    def generate(self, binary: str) -> None:
        env = {**os.environ, "STNODEFAULTFOLDER": "1", "STNOUPGRADE": "1", "HOME": str(self.home)}
        subprocess.run(
            [binary, "generate", f"--home={self.home}", "--no-default-folder"],
            env=env,
            check=True,
            capture_output=True,
            timeout=60,
        )
        out = subprocess.run(
            [binary, f"--home={self.home}", "--device-id"],
            env=env,
            check=True,
            capture_output=True,
            timeout=60,
        )
        self.device_id = out.stdout.decode().strip()

    def configure(self, peer: Syncthing) -> None:
        path = self.home / "config.xml"
        tree = ET.parse(path)
        root = tree.getroot()
        gui = root.find("gui")
        assert gui is not None
        _set(gui, "address", f"127.0.0.1:{self.gui_port}")
        _set(gui, "apikey", self.api_key)
        options = root.find("options")
        assert options is not None
        for tag, value in {
            "listenAddress": f"tcp://127.0.0.1:{self.listen_port}",
            "globalAnnounceEnabled": "false",
            "localAnnounceEnabled": "false",
            "relaysEnabled": "false",
            "natEnabled": "false",
            "stunKeepaliveStartS": "0",
            "stunKeepaliveMinS": "0",
            "stunServer": "",
            "urAccepted": "-1",
            "urSeen": "3",
            "startBrowser": "false",
            "autoUpgradeIntervalH": "0",
            "crashReportingEnabled": "false",
            "announceLANAddresses": "false",
            "reconnectionIntervalS": "1",
        }.items():
            _set(options, tag, value)
        other = ET.SubElement(
            root,
            "device",
            {"id": peer.device_id, "name": peer.name, "compression": "metadata", "introducer": "false"},
        )
        ET.SubElement(other, "address").text = f"tcp://127.0.0.1:{peer.listen_port}"
        folder = ET.SubElement(
            root,
            "folder",
            {
                "id": FOLDER_ID,
                "label": "veramem",
                "path": str(self.folder),
                "type": "sendreceive",
                "rescanIntervalS": "2",
                "fsWatcherEnabled": "true",
                "fsWatcherDelayS": "1",
                "ignorePerms": "false",
                "autoNormalize": "true",
            },
        )
        for device_id in (self.device_id, peer.device_id):
            ET.SubElement(folder, "device", {"id": device_id, "introducedBy": ""})
        tree.write(path)

    def start(self, binary: str, log: Path) -> None:
        env = {
            **os.environ,
            "STNODEFAULTFOLDER": "1",
            "STNOUPGRADE": "1",
            "STNORESTART": "1",
            "HOME": str(self.home),
        }
        handle = open(log, "wb")  # noqa: SIM115 - kept open for the child's lifetime
        self.process = subprocess.Popen(
            [
                binary,
                "serve",
                f"--home={self.home}",
                "--no-browser",
                "--no-restart",
                "--no-upgrade",
                "--no-default-folder",
                "--skip-port-probing",
            ],
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
        )
        wait_for(self._ping, 60, f"{self.name}'s Syncthing REST API")

    def rest(self, path: str, method: str = "GET", body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.gui_port}{path}",
            data=data,
            method=method,
            headers={"X-API-Key": self.api_key},
        )
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310 - loopback only
            text = response.read().decode()
        return json.loads(text) if text else None

    def _ping(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"{self.name}'s Syncthing exited with {self.process.returncode}")
        try:
            return bool(self.rest("/rest/system/ping"))
        except OSError:
            return False

    def connected_to(self, peer: Syncthing) -> bool:
        connections = self.rest("/rest/system/connections").get("connections", {})
        return bool(connections.get(peer.device_id, {}).get("connected"))

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        try:
            self.rest("/rest/system/shutdown", method="POST")
        except OSError:
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def _set(parent: ET.Element, tag: str, value: str) -> None:
    node = parent.find(tag)
    if node is None:
        node = ET.SubElement(parent, tag)
    node.text = value


def make_pair(root: Path) -> tuple[Syncthing, Syncthing]:
    binary = shutil.which("syncthing")
    assert binary is not None
    pair = []
    for name in ("laptop", "phone"):
        (root / name / "st").mkdir(parents=True)
        (root / name / "shared").mkdir(parents=True)
        node = Syncthing(
            name,
            root / name / "st",
            root / name / "shared",
            free_port(),
            free_port(),
            secrets.token_urlsafe(24),
        )
        node.generate(binary)
        pair.append(node)
    a, b = pair
    a.configure(b)
    b.configure(a)
    for node in pair:
        node.start(binary, node.home / "syncthing.log")
    return a, b
