"""The shell holds no SQL (issue 20, part 2): every statement runs in the engine, behind a function whose name says
what it answers, so access checks and table ownership live once, in core.

Every Python file under ``veramem_desktop/`` (CLI, MCP, REST, facade, doctor, backup, bench: nothing excluded)
is read as a syntax tree and may not
- hold a string that is an SQL statement (a plain string, an f-string or a concatenation that starts with one);
- call a database method (``execute``, ``executemany``, ``executescript``, or a store's ``query``/``query_one``);
- import an SQLite driver (``sqlcipher3``, ``sqlite3``).

Prose that names a statement inside a sentence (a docstring saying what ``PRAGMA cipher_integrity_check``
checks) is not a statement and is not reported. The rule is a function over a folder, so the tests below also
plant each kind of violation in a scratch copy of the shell and see it reported.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHELL = "veramem_desktop"

#: a string that starts with one of these is an SQL statement (keywords in capitals, as the engine writes them;
#: a lower-case statement still needs a database call to run, which is reported on its own)
STATEMENT = re.compile(
    r"""^\s*(
        SELECT\s.+\sFROM\s | SELECT\s+(1|count|max|min|sum|json_|\*) | INSERT\s+(OR\s+\w+\s+)?INTO\s
        | UPDATE\s+\w+\s+SET\s | DELETE\s+FROM\s | REPLACE\s+INTO\s | PRAGMA\s+\w+
        | (CREATE|DROP)\s+(VIRTUAL\s+|TEMP\s+)?(TABLE|INDEX|TRIGGER|VIEW)\s | ALTER\s+TABLE\s
        | BEGIN(\s+(EXCLUSIVE|IMMEDIATE|DEFERRED))?(\s+TRANSACTION)?\s*;?\s*$ | (COMMIT|ROLLBACK)\s*;?\s*$
        | SAVEPOINT\s | RELEASE\s+SAVEPOINT\s | VACUUM\b | ATTACH\s+DATABASE\s
        | WITH\s+(RECURSIVE\s+)?\w+(\s*\([^)]*\))?\s+AS\s*\(
    )""",
    re.VERBOSE | re.DOTALL,
)
#: methods that run SQL on a DB-API connection or on the engine's ``Store``
DB_METHODS = {"execute", "executemany", "executescript"}
STORE_METHODS = {"query", "query_one"}
DRIVERS = {"sqlcipher3", "sqlite3"}


def _text(node: ast.expr) -> str | None:
    """The literal text a string expression starts with (f-string values as ``{}``), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left)
    return None


def _receiver_name(node: ast.expr) -> str:
    """The last name in a call's receiver: ``mem.store.query`` → ``store``."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _violations(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant | ast.JoinedStr | ast.BinOp):
            text = _text(node)
            if text is not None and STATEMENT.match(text):
                found.append((node.lineno, f"SQL statement {text.strip()[:60]!r}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, receiver = node.func.attr, _receiver_name(node.func.value)
            if method in DB_METHODS or (method in STORE_METHODS and receiver in ("store", "_store", "conn")):
                found.append((node.lineno, f"database call .{method}()"))
        elif isinstance(node, ast.Import):
            found += [
                (node.lineno, f"imports {a.name}") for a in node.names if a.name.split(".")[0] in DRIVERS
            ]
        elif (
            isinstance(node, ast.ImportFrom)
            and not node.level
            and (node.module or "").split(".")[0] in DRIVERS
        ):
            found.append((node.lineno, f"imports from {node.module}"))
    return found


def sql_in_shell(root: Path) -> list[str]:
    """``path:line: what`` for every SQL statement, database call or driver import in the shell's Python files."""
    out: list[str] = []
    for path in sorted((root / SHELL).rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"), filename=str(path))
        # a BinOp is reported once, at its left-most string: drop the string nodes it already covers
        seen: set[tuple[int, str]] = set()
        for line, what in sorted(_violations(tree)):
            if (line, what) not in seen:
                seen.add((line, what))
                out.append(f"{path.relative_to(root)}:{line}: {what}")
    return out


def test_the_shell_runs_no_sql_of_its_own() -> None:
    assert sql_in_shell(ROOT) == []


@pytest.fixture(scope="module")
def scratch_shell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the whole shell, clean at first; each test plants one file and removes it."""
    root = tmp_path_factory.mktemp("shell")
    shutil.copytree(ROOT / SHELL, root / SHELL, ignore=shutil.ignore_patterns("__pycache__"))
    assert sql_in_shell(root) == []
    return root


@pytest.mark.parametrize(
    ("planted", "reported"),
    [
        (
            'def count(mem):\n    return mem.store.query_one("SELECT count(*) FROM ledger")[0]\n',
            "SQL statement",
        ),
        (
            'def count(mem):\n    return mem.store.query_one("SELECT count(*) FROM ledger")[0]\n',
            ".query_one()",
        ),
        ("WANTED = 'DELETE FROM withheld WHERE owner_id = ?'\n", "SQL statement"),
        ("def rows(store, t):\n    return store.query(f'SELECT id FROM {t} WHERE x = 1')\n", "SQL statement"),
        ("def bump(conn):\n    conn.execute(sql_from_elsewhere)\n", "database call .execute()"),
        ("def fetch(mem, sql):\n    return mem.store.query(sql)\n", "database call .query()"),
        ("SQL = 'UPDATE ledger SET commitment = ? ' + 'WHERE seq = 2'\n", "SQL statement"),
        ("PROBE = '''\n    PRAGMA integrity_check\n'''\n", "SQL statement"),
        ("import sqlcipher3\n", "imports sqlcipher3"),
        ("from sqlite3 import connect\n", "imports from sqlite3"),
    ],
)
def test_a_statement_planted_anywhere_in_the_shell_is_reported(
    scratch_shell: Path, planted: str, reported: str
) -> None:
    plant = scratch_shell / SHELL / "bench" / "planted.py"
    plant.write_text(planted, "utf-8")
    try:
        found = sql_in_shell(scratch_shell)
    finally:
        plant.unlink()
    assert found and all(f.startswith(f"{SHELL}/bench/planted.py:") for f in found), found
    assert any(reported in f for f in found), found


def test_prose_that_names_a_statement_is_not_sql(scratch_shell: Path) -> None:
    prose = scratch_shell / SHELL / "prose.py"
    prose.write_text(
        '"""Checks every page (PRAGMA cipher_integrity_check), then says so."""\n'
        'HELP = "Select the memory to forget from the list, then update it."\n'
        'NOTE = "Delete the file from the folder, then begin again."\n',
        "utf-8",
    )
    try:
        assert sql_in_shell(scratch_shell) == []
    finally:
        prose.unlink()
