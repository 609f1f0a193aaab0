"""The typed connection (core/storage/connection.py): the real SQLCipher driver's connection and cursor
satisfy the ``Connection`` and ``Cursor`` protocols, every method the protocol names works as declared on
a real store file, and mypy refuses a call the protocol does not allow."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlcipher3
from veramem_desktop.core.storage import connection, copies
from veramem_desktop.core.storage.connection import Connection, Cursor
from veramem_desktop.core.storage.store import Store

ROOT = Path(__file__).resolve().parents[2]


def _members(protocol: type) -> set[str]:
    return {name for name in vars(protocol) if not name.startswith("_")} | (
        {"__iter__"} if "__iter__" in vars(protocol) else set()
    )


KEY = os.urandom(32)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(tmp_path / "typed.db", KEY, create=True)
    yield opened
    opened.close()


def test_the_drivers_connection_and_cursor_have_every_member_the_protocols_name(store: Store) -> None:
    cursor = store.conn.execute("SELECT 1")
    assert isinstance(store.conn, sqlcipher3.Connection)
    assert isinstance(store.conn, Connection) and isinstance(cursor, Cursor)
    assert {"execute", "executemany", "commit", "rollback", "close"} <= _members(Connection)
    assert all(hasattr(store.conn, name) for name in _members(Connection))
    assert all(hasattr(cursor, name) for name in _members(Cursor))


def test_every_protocol_method_works_as_declared_on_a_real_store(store: Store, tmp_path: Path) -> None:
    conn: Connection = store.conn
    traced: list[str] = []
    conn.set_trace_callback(traced.append)
    conn.execute("CREATE TABLE t(a INTEGER, b TEXT)")
    first = conn.execute("INSERT INTO t(a, b) VALUES (?, ?)", (1, "x"))
    assert first.rowcount == 1 and first.lastrowid == 1
    assert (
        conn.executemany(
            "INSERT INTO t(a, b) VALUES (:a, :b)", [{"a": 2, "b": "y"}, {"a": 3, "b": "z"}]
        ).rowcount
        == 2
    )
    conn.set_trace_callback(None)
    assert any("INSERT INTO t" in sql for sql in traced)
    conn.execute("BEGIN")
    conn.execute("DELETE FROM t")
    conn.rollback()
    conn.execute("BEGIN")
    conn.execute("UPDATE t SET b = 'w' WHERE a = 3")
    conn.commit()
    cursor = conn.execute("SELECT a, b FROM t ORDER BY a")
    assert cursor.fetchone() == (1, "x")
    assert next(iter(cursor)) == (2, "y")
    assert cursor.fetchall() == [(3, "w")] and cursor.fetchone() is None
    target = copies.connect(tmp_path / "copy.db", KEY)  # a backup's target is encrypted under the same key
    conn.backup(target, pages=-1)
    assert target.execute("SELECT count(*) FROM t").fetchone() == (3,)
    target.close()


def test_registering_the_adapters_again_changes_nothing(store: Store) -> None:
    connection.register_adapters()
    assert store.query("SELECT ?, typeof(?)", (None, None)) == [(None, "null")]


def _lint_tree(tmp: Path) -> Path:
    """The package as one tree, as `make lint` lays it out for mypy."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "__snapshots__")
    shutil.copytree(ROOT / "veramem_desktop", tmp / "veramem_desktop", ignore=ignore)
    for name in ("core", "models", "sync", "tui"):
        shutil.copytree(ROOT / name, tmp / "veramem_desktop" / name, ignore=ignore)
    return tmp


def test_mypy_refuses_a_call_the_connection_protocol_does_not_allow(tmp_path: Path) -> None:
    tree = _lint_tree(tmp_path / "tree")
    planted = tree / "veramem_desktop" / "core" / "planted_connection.py"
    planted.write_text(
        "from veramem_desktop.core.storage.store import Connection\n\n\n"
        "def misspelt(conn: Connection) -> None:\n"
        '    conn.exeucte("SELECT 1")\n\n\n'
        "def wrong_parameters(conn: Connection) -> None:\n"
        '    conn.execute("SELECT ?", 1)\n'
    )
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "mypy"),
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "-m",
            "veramem_desktop.core.planted_connection",
        ],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode != 0
    assert '"Connection" has no attribute "exeucte"' in result.stdout, result.stdout
    assert 'Argument 2 to "execute" of "Connection" has incompatible type "int"' in result.stdout, (
        result.stdout
    )
