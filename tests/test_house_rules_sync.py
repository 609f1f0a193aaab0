"""One owner per table: sync/ holds no SQL on the engine's tables (issue 20, part 2).

The engine's tables (every table the schema in core/ creates, other than sync's own) are read
and written by core's repositories (core/storage/); sync applies remote events through them.
Sync keeps SQL only on the tables it owns, ``sync_*``, and on its own ``sync_…`` keys of the
shared ``meta`` table, in sync/registry.py alone.

The check reads every string in sync/'s code (docstrings left out: they may name a table) and
takes the table after FROM, INTO, UPDATE and JOIN (in any case); a table named at run time (``FROM {table}``)
is refused too, since it could be any. The rule is a function over a folder, so the tests below
also plant each kind of violation in a scratch tree and see it reported.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.support.code_strings import RUNTIME, schema_tables, strings

ROOT = Path(__file__).resolve().parents[1]
SYNC_OWNED = re.compile(r"^sync_\w+$")
META_HOLDER = "registry.py"  # the one sync module that reads and writes sync's keys of ``meta``

_TABLE_AFTER = re.compile(r"\b(?:FROM|INTO|UPDATE|JOIN)\s+(\w+|\x00)", re.IGNORECASE)


def engine_tables(root: Path) -> set[str]:
    return {t for t in schema_tables(root) if not SYNC_OWNED.match(t)}


def sync_sql_on_engine_tables(root: Path) -> set[str]:
    """``file: table`` for each engine table (or table named at run time) that sync's code names in SQL."""
    engine = engine_tables(root)
    found: set[str] = set()
    for path in sorted((root / "sync").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for text in strings(ast.parse(path.read_text("utf-8"))):
            for table in _TABLE_AFTER.findall(text):
                if table == RUNTIME:
                    found.add(f"{rel}: a table named at run time")
                elif table == "meta" and path.name == META_HOLDER:
                    continue
                elif table in engine:
                    found.add(f"{rel}: {table}")
    return found


def test_sync_holds_no_sql_on_the_engines_tables() -> None:
    assert sync_sql_on_engine_tables(ROOT) == set(), "go through core's repositories (core/storage/)"


def test_the_engine_tables_are_read_from_the_schema() -> None:
    tables = engine_tables(ROOT)
    assert {"memory_items", "episodes", "evidence", "derivations", "grants", "ledger", "embeddings"} <= tables
    assert {
        "entities",
        "memory_fts",
        "episode_fts",
        "fts_rows",
        "rejected_values",
        "traces",
        "meta",
    } <= tables
    assert not any(t.startswith("sync_") for t in tables)


def _scratch(tmp: Path, files: dict[str, str]) -> Path:
    schema = (
        '"""Schema."""\nSQL = """\nCREATE TABLE meta (key TEXT);\nCREATE TABLE memory_items (id TEXT);\n'
        'CREATE VIRTUAL TABLE memory_fts USING fts5(text);\nCREATE TABLE sync_rows (row_id TEXT);\n"""\n'
    )
    (tmp / "core" / "storage").mkdir(parents=True)
    (tmp / "core" / "storage" / "schema.py").write_text(schema)
    (tmp / "sync").mkdir()
    for rel, text in files.items():
        (tmp / rel).write_text(text)
    return tmp


def test_planted_sql_on_engine_tables_is_reported_and_sync_tables_are_not(tmp_path: Path) -> None:
    root = _scratch(
        tmp_path,
        {
            "sync/plain.py": 'Q = "SELECT id FROM memory_items WHERE id = ?"\n',
            "sync/lower.py": 'Q = "delete from memory_fts where rowid = ?"\n',
            "sync/joined.py": 'Q = ("SELECT 1 FROM sync_rows r "\n     "JOIN memory_fts f ON f.rowid = r.row_id")\n',
            "sync/formatted.py": 'COLS = "id"\nQ = f"INSERT INTO memory_items({COLS}) VALUES (?)"\n',
            "sync/runtime.py": 'def f(table):\n    return f"UPDATE {table} SET x = 1"\n',
            "sync/meta_elsewhere.py": 'Q = "DELETE FROM meta WHERE key = ?"\n',
            "sync/registry.py": 'Q = "INSERT INTO meta(key, value) VALUES (?, ?)"\n',
            "sync/own.py": 'Q = "UPDATE sync_rows SET state = ? WHERE row_id = ?"\n',
            "sync/documented.py": '"""Reads FROM memory_items through core."""\nX = "memory_items"\n',
        },
    )
    assert sync_sql_on_engine_tables(root) == {
        "sync/plain.py: memory_items",
        "sync/lower.py: memory_fts",
        "sync/joined.py: memory_fts",
        "sync/formatted.py: memory_items",
        "sync/runtime.py: a table named at run time",
        "sync/meta_elsewhere.py: meta",
    }
