"""House rules a reader can rely on, checked on the tree (issue 20, part 1).

- One size rule for every package: no function over ruff's McCabe complexity limit of 10, and no
  package, file or line excused from it. There is no line cap on modules: a module holds one concept
  with its reads and writes, however long that is (docs/architecture.md, "Size").
- The engine's modules import each other without a cycle (imports made only for type
  checking count too: a cycle there still means two modules that cannot be read apart).
- No private name (``_x``) is imported from another module or reached as ``module._x``:
  what a module shares, it names publicly.
- SQL lives in core/storage/'s repositories, one per table family: the rest of core decides and
  calls them. The only SQL text elsewhere is forget's (core/lifecycle/forget.py and its helper
  turn_repair.py: forget erases from every table, so one place knows them all). The access predicate
  (core/storage/access.py, a boolean the repositories put in their own statements) is storage's.

Each rule is a small function over a folder, so the tests below also plant a violation in a
scratch tree and see it reported.
"""

from __future__ import annotations

import ast
import re
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path

from tests.support.code_strings import RUNTIME, schema_tables, strings

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "veramem_desktop"
# Folder on disk → the package it is installed as (pyproject's package-dir mapping).
MAPPED = {"veramem_desktop": PACKAGE, "core": f"{PACKAGE}.core", "models": f"{PACKAGE}.models"}
MAPPED |= {"sync": f"{PACKAGE}.sync", "tui": f"{PACKAGE}.tui"}
#: the size rule: every function of every package at or under this McCabe complexity
MAX_COMPLEXITY = 10


def _modules(root: Path, folder: str) -> Iterator[tuple[str, Path]]:
    """(dotted name, path) of every module under ``root/folder``."""
    base = MAPPED[folder]
    for path in sorted((root / folder).rglob("*.py")):
        parts = path.relative_to(root / folder).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join((base, *parts)), path


def size_rule_exemptions(root: Path) -> set[str]:
    """What weakens the one size rule in ``root``'s pyproject.toml: a complexity limit other than
    :data:`MAX_COMPLEXITY`, the complexity rule left out of ruff's selection or ignored, or any
    per-file ignore of it (a package or file with a rule of its own)."""
    ruff = tomllib.loads((root / "pyproject.toml").read_text("utf-8")).get("tool", {}).get("ruff", {})
    lint = ruff.get("lint", {})
    found = set()
    limit = lint.get("mccabe", {}).get("max-complexity")
    if limit != MAX_COMPLEXITY:
        found.add(f"max-complexity = {limit}")
    if not any("C901".startswith(code) for code in lint.get("select", []) + lint.get("extend-select", [])):
        found.add("C901 not selected")
    found |= {f"ignore {code}" for code in lint.get("ignore", []) if code.startswith("C9") or code == "C"}
    for pattern, codes in lint.get("per-file-ignores", {}).items():
        found |= {f"{pattern}: {code}" for code in codes if code.startswith("C9") or code == "C"}
    return found


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(
    root: Path, folders: tuple[str, ...]
) -> Iterator[tuple[str, Path, ast.ImportFrom | ast.Import, str]]:
    """Every import statement with the absolute module it names."""
    for folder in folders:
        for name, path in _modules(root, folder):
            tree = ast.parse(path.read_text("utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom):
                    yield name, path, node, _resolve(name, node, path.name == "__init__.py")
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        yield name, path, node, alias.name


def core_cycles(root: Path) -> list[list[str]]:
    """Groups of engine modules that import each other, directly or round a loop."""
    known = {name for name, _ in _modules(root, "core")}
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, _, node, target in _imports(root, ("core",)):
        targets = {target}
        if isinstance(node, ast.ImportFrom):
            targets |= {f"{target}.{alias.name}" for alias in node.names}
        graph[name] |= {t for t in targets if t in known and t != name and not name.startswith(t + ".")}
    return _strongly_connected(graph)


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of two or more modules each reachable from the others (the graph is small: search from each)."""
    reach = {node: _reachable(graph, node) for node in graph}
    groups = {tuple(sorted(n for n in reach[node] if node in reach[n])) for node in graph}
    return sorted(list(g) for g in groups if len(g) > 1)


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for step in graph[todo.pop()] - seen:
            seen.add(step)
            todo.append(step)
    return seen


def private_reaches(root: Path) -> set[str]:
    """``module: name`` for each private name taken from another module of the project."""
    found = set()
    for name, _path, node, target in _imports(root, tuple(MAPPED)):
        if isinstance(node, ast.ImportFrom) and target.startswith(PACKAGE):
            found |= {f"{name}: {target}.{a.name}" for a in node.names if _private(a.name)}
    for folder in MAPPED:
        for name, path in _modules(root, folder):
            tree = ast.parse(path.read_text("utf-8"))
            local = _project_module_aliases(tree)
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id in local
                    and _private(node.attr)
                ):
                    found.add(f"{name}: {node.value.id}.{node.attr}")
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _project_module_aliases(tree: ast.Module) -> set[str]:
    """Local names bound to the project's modules by ``from pkg import module`` or ``import pkg.module as m``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(PACKAGE)):
            names |= {a.asname or a.name for a in node.names if a.name[:1].islower()}
        elif isinstance(node, ast.Import):
            names |= {a.asname for a in node.names if a.asname and a.name.startswith(PACKAGE)}
    return names


def test_one_size_rule_holds_for_every_package() -> None:
    """The complexity limit applies to every package alike (tests/test_lint_contracts.py runs it over
    the tree and counts ``noqa: C901`` excuses, which are none)."""
    assert size_rule_exemptions(ROOT) == set(), "one size rule for every package: split the function"


def test_engine_modules_import_each_other_without_a_cycle() -> None:
    assert core_cycles(ROOT) == []


def test_no_private_name_is_taken_from_another_module() -> None:
    assert private_reaches(ROOT) == set(), "make the shared name public where it belongs"


def _scratch(tmp: Path, files: dict[str, str]) -> Path:
    for folder in MAPPED:
        (tmp / folder).mkdir(parents=True, exist_ok=True)
        (tmp / folder / "__init__.py").write_text("")
    for rel, text in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_text(text)
    return tmp


def test_a_planted_exemption_from_the_size_rule_is_reported(tmp_path: Path) -> None:
    ours = (ROOT / "pyproject.toml").read_text("utf-8")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    assert size_rule_exemptions(tmp_path) == set()
    (tmp_path / "pyproject.toml").write_text(ours.replace("max-complexity = 10", "max-complexity = 14"))
    assert size_rule_exemptions(tmp_path) == {"max-complexity = 14"}
    planted = ours.replace(
        "[tool.ruff.lint.mccabe]",
        '[tool.ruff.lint.per-file-ignores]\n"sync/service.py" = ["C901"]\n"models/**" = ["E", "C90"]\n\n'
        "[tool.ruff.lint.mccabe]",
    )
    (tmp_path / "pyproject.toml").write_text(planted)
    assert size_rule_exemptions(tmp_path) == {"sync/service.py: C901", "models/**: C90"}
    (tmp_path / "pyproject.toml").write_text(ours.replace('"SIM", "C90"]', '"SIM"]'))
    assert size_rule_exemptions(tmp_path) == {"C901 not selected"}
    (tmp_path / "pyproject.toml").write_text(ours.replace('ignore = ["E501",', 'ignore = ["C901", "E501",'))
    assert size_rule_exemptions(tmp_path) == {"ignore C901"}


def test_a_planted_cycle_is_reported_even_through_a_package_import(tmp_path: Path) -> None:
    root = _scratch(
        tmp_path,
        {
            "core/write/__init__.py": "",
            "core/write/a.py": "from veramem_desktop.core.write import b\n",
            "core/write/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import X\n",
            "core/write/c.py": "from veramem_desktop.core.write.a import Y\n",
        },
    )
    assert core_cycles(root) == [["veramem_desktop.core.write.a", "veramem_desktop.core.write.b"]]


def test_a_planted_private_import_and_private_attribute_are_reported(tmp_path: Path) -> None:
    root = _scratch(
        tmp_path,
        {
            "core/one.py": "def _helper(): ...\n",
            "sync/two.py": "from veramem_desktop.core.one import _helper\n",
            "tui/three.py": "from veramem_desktop.core import one\none._helper()\nimport os\nos._exit\n",
        },
    )
    assert private_reaches(root) == {
        "veramem_desktop.sync.two: veramem_desktop.core.one._helper",
        "veramem_desktop.tui.three: one._helper",
    }


# ------------------------------------------------------------------ SQL lives in core/storage/
#: the modules outside core/storage/ that may hold SQL text: forget erases from every table that holds
#: user text (one place knows them all) and turn_repair is its helper
SQL_HOLDERS = frozenset({"core/lifecycle/forget.py", "core/lifecycle/turn_repair.py"})
#: a string holding an SQL statement, in any case (a formatted value shows as a marker, see code_strings)
SQL_STATEMENT = re.compile(
    r"\b(?:SELECT\b.+?\bFROM|INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?\s+\S+\s+SET"
    r"|DELETE\s+FROM|PRAGMA\s+\w+|WITH\s+(?:RECURSIVE\s+)?\w+\s+AS\s*(?:(?:NOT\s+)?MATERIALIZED\s*)?\()",
    re.IGNORECASE | re.DOTALL,
)
#: a table of the schema after FROM, JOIN, INTO or UPDATE in any case, or a table named at run time after
#: one in capitals (prose such as ``f"valid from {start}"`` is no statement): a statement's tail
SQL_TABLE = re.compile(r"\b(FROM|JOIN|INTO|UPDATE)\s+(\w+|\x00)", re.IGNORECASE)
#: calls that run SQL, whatever holds the statement
DB_CALLS = frozenset({"execute", "executemany", "executescript", "query", "query_one"})


def sql_outside_storage(root: Path) -> set[str]:
    """``module: what`` for each SQL statement or piece of one (a string of the code, docstrings left
    out) and each call that runs SQL in core/, outside core/storage/ and :data:`SQL_HOLDERS`."""
    tables = schema_tables(root)
    found = set()
    for path in sorted((root / "core").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("core/storage/") or rel in SQL_HOLDERS:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        for text in strings(tree):
            match = SQL_STATEMENT.search(text)
            if match is not None:
                found.add(f"{rel}: {match.group(0).split()[0].upper()}")
            found |= {
                f"{rel}: {kw.upper()} {t}"
                for kw, t in SQL_TABLE.findall(text)
                if t in tables or (t == RUNTIME and kw.isupper())
            }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in DB_CALLS
            ):
                found.add(f"{rel}: .{node.func.attr}()")
    return found


def test_sql_lives_in_the_storage_repositories() -> None:
    assert sql_outside_storage(ROOT) == set(), (
        "put the statement in its table family's repository (core/storage/)"
    )


def test_sql_planted_outside_storage_is_reported(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "core", tmp_path / "core", ignore=shutil.ignore_patterns("__pycache__"))
    assert sql_outside_storage(tmp_path) == set()
    planted = {
        "lifecycle/linker.py": 'Q = "SELECT id FROM memory_items WHERE id = ?"\n',
        "lifecycle/expiry.py": 'Q = "delete from pending_links where memory_id = ?"\n',
        "lifecycle/revise.py": 'def f(table):\n    return f"UPDATE {table} SET status = ?"\n',
        "lifecycle/outcome.py": "def f(conn, sql):\n    return conn.execute(sql)\n",
        "recall/lexical.py": 'def f(table):\n    return f"SELECT count(*) FROM {table} WHERE {table} MATCH ?"\n',
        "recall/candidates.py": 'Q = "WITH f AS MATERIALIZED (SELECT rowid FROM memory_fts) "\n',
        "recall/engine.py": 'TAIL = " FROM memory_items m WHERE m.id = ?"\n',
        "curation/review.py": 'TAIL = " AND id IN (SELECT owner_id FROM withheld w WHERE w.reason = ?)"\n',
        "write/versions.py": 'Q = ("INSERT OR IGNORE INTO mentions(episode_id, memory_id) "\n     "VALUES (?, ?)")\n',
        "transfer/memory_import.py": "def f(store, sql):\n    return store.query_one(sql)\n",
        "llm.py": 'Q = "PRAGMA user_version"\n',
        # allowed: the holders' own SQL and the repositories', prose in a docstring, and words that only
        # look like SQL
        "lifecycle/forget.py": 'Q = "DELETE FROM meta WHERE key = ?"\n',
        "storage/access.py": 'P = "NOT EXISTS (SELECT 1 FROM grants g WHERE g.subject = :caller)"\n',
        "storage/meta.py": 'Q = "SELECT value FROM meta WHERE key = ?"\n',
        "recall/dense.py": 'def f():\n    """Reads SELECT id FROM memory_items through core/storage/item_search.py."""\n',
        "transfer/memory_export.py": 'NOTE = "selected turns from a session; an update to the newest"\n',
        "transfer/chats.py": 'def f(start):\n    return f"valid from {start}; imported into {start}"\n',
    }
    for name, code in planted.items():
        path = tmp_path / "core" / name
        path.write_text(path.read_text("utf-8") + "\n\n" + code)
    assert sql_outside_storage(tmp_path) == {
        "core/lifecycle/linker.py: SELECT",
        "core/lifecycle/linker.py: FROM memory_items",
        "core/lifecycle/expiry.py: DELETE",
        "core/lifecycle/expiry.py: FROM pending_links",
        "core/lifecycle/revise.py: UPDATE",
        "core/lifecycle/revise.py: UPDATE \x00",
        "core/lifecycle/outcome.py: .execute()",
        "core/recall/lexical.py: SELECT",
        "core/recall/lexical.py: FROM \x00",
        "core/recall/candidates.py: WITH",
        "core/recall/candidates.py: FROM memory_fts",
        "core/recall/engine.py: FROM memory_items",
        "core/curation/review.py: SELECT",
        "core/curation/review.py: FROM withheld",
        "core/write/versions.py: INSERT",
        "core/write/versions.py: INTO mentions",
        "core/transfer/memory_import.py: .query_one()",
        "core/llm.py: PRAGMA",
    }
