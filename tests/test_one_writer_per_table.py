"""One writer per table (issue 20, part 2): every table of the store is written by the module that owns it.

``OWNERS`` names, for each table the schema creates, the module that holds its INSERT, UPDATE,
DELETE and REPLACE statements; every other module of core/ and sync/ writes it by calling that
module. Three kinds of module are the documented exceptions, each with the tables it may write
(``EXCEPTIONS``): ``forget`` erases from every table that holds user text, so one place knows them
all (core/lifecycle/turn_repair.py, its helper, goes through the index repository); the schema's
migrations and triggers; and the doctor's deliberate damage on a scratch store.

A few tables still have two writing modules (``SHARED`` says which and why); a table leaves that
list when it gets one owner, and the test below fails until the list says so.

The check reads every string of the code (docstrings left out: they may name a table), an
f-string with its formatted values as one marker, and takes the table after INSERT [OR x] INTO,
REPLACE INTO, UPDATE [OR x] and DELETE FROM, in any case; a table named at run time counts as a
write of the tables ``RUNTIME`` declares for that module, and anywhere else as a violation. Each
rule is a function over a folder, so the tests below also plant violations in a scratch copy of
the tree and see them reported.
"""

from __future__ import annotations

import ast
import functools
import re
import shutil
from pathlib import Path

from tests.support.code_strings import RUNTIME as _RUNTIME
from tests.support.code_strings import schema_tables, strings

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("core", "sync")

#: table -> the module(s) that write it (a path under the repository's root)
OWNERS: dict[str, tuple[str, ...]] = {
    # what this device writes (items, episodes) and the same rows made on another device or in an
    # export, written as they are (item_rows, episode_rows): two modules of one storage family
    "memory_items": ("core/storage/items.py", "core/storage/item_rows.py"),
    "evidence": ("core/storage/items.py", "core/storage/item_rows.py"),
    "episodes": ("core/storage/episodes.py", "core/storage/episode_rows.py"),
    # the search indexes: every statement in index_rows (index computes vectors and entities)
    "fts_rows": ("core/storage/index_rows.py",),
    "memory_fts": ("core/storage/index_rows.py",),
    "episode_fts": ("core/storage/index_rows.py",),
    "entities": ("core/storage/index_rows.py",),
    "embeddings": ("core/storage/index_rows.py",),
    "derivations": ("core/storage/derivations.py",),
    "traces": ("core/storage/traces.py",),
    "trace_refs": ("core/storage/schema.py",),  # kept by triggers on traces
    "meta": ("core/storage/meta.py",),
    "ledger": ("core/storage/ledger.py",),
    "item_secrets": ("core/storage/ledger.py",),
    "schema_migrations": ("core/storage/store.py",),
    "grants": ("core/storage/grants.py",),
    "links": ("core/storage/link_rows.py",),
    "pending_links": ("core/storage/link_rows.py",),
    "mentions": ("core/storage/mention_rows.py",),
    "rejected_values": ("core/storage/rejection_rows.py",),
    "withheld": ("core/storage/rejection_rows.py",),
    "forget_marks": ("core/storage/forget_marks.py",),
    "admission_keys": ("core/storage/forget_marks.py",),
    "pending_derivations": ("core/storage/pending_rows.py",),
    # sync's own tables
    "sync_identity": ("sync/registry.py",),
    "sync_keys": ("sync/registry.py",),
    "sync_devices": ("sync/registry.py",),
    "sync_seen": ("sync/registry.py",),
    "sync_refusals": ("sync/registry.py",),
    "sync_pending": ("sync/registry.py",),
    "sync_rows": ("sync/rows.py",),
    "sync_counters": ("sync/rows.py",),
    "sync_outbox_targets": ("sync/service.py",),
    "sync_chains": ("sync/heads.py", "sync/replica.py", "sync/service.py"),
    "sync_outbox": ("sync/replica.py", "sync/service.py"),
    "sync_tombstones": ("sync/batch_rows.py", "sync/replica.py"),
}

#: tables written by more than one module, and why (each leaves this list when it gets one owner)
SHARED = {
    "memory_items": "items.py writes this device's memories, item_rows.py rows as they are (sync, import)",
    "evidence": "items.py writes this device's evidence, item_rows.py rows as they are (sync)",
    "episodes": "episodes.py stores new messages, episode_rows.py rows as they are (sync, import)",
    "sync_chains": "sync's own table, written where each chain head is learnt (heads, replica, service)",
    "sync_outbox": "sync's own table: service seals batches, replica marks them for rewriting",
    "sync_tombstones": "sync's own table: batch_rows lands remote tombstones, replica records local ones",
}

#: module -> (the tables it may write though it owns none of them, why)
EXCEPTIONS: dict[str, tuple[frozenset[str], str]] = {
    "core/lifecycle/forget.py": (
        frozenset(
            {
                "memory_items",
                "evidence",
                "episodes",
                "links",
                "pending_links",
                "derivations",
                "mentions",
                "withheld",
                "rejected_values",
                "traces",
                "grants",
                "memory_fts",
                "episode_fts",
            }
        ),
        "forget erases from every table that holds user text, so one place knows them all",
    ),
    "core/storage/schema.py": (
        frozenset({"trace_refs", "pending_derivations", "meta"}),
        "migrations and triggers write as the schema changes (migration 6 moves meta's pending list to rows)",
    ),
    "core/storage/schema_v1.py": (
        frozenset({"memory_fts", "episode_fts"}),
        "the first schema sets the full-text tables' options",
    ),
    "core/storage/tamper.py": (
        frozenset({"ledger"}),
        "deliberate damage for the doctor's probes on a scratch store",
    ),
}

#: module -> the tables a table name it gives at run time can be
RUNTIME = {
    "core/storage/index_rows.py": frozenset({"memory_fts", "episode_fts"}),
    "core/lifecycle/forget.py": frozenset({"memory_fts", "episode_fts"}),  # the full-text tables' optimize
}

_WRITE = re.compile(
    r"\b(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+(\w+|\x00)",
    re.IGNORECASE,
)


@functools.cache
def _code_strings(root: Path) -> dict[str, list[str]]:
    """module (path under ``root``) -> every string of its code, each module parsed once."""
    return {
        path.relative_to(root).as_posix(): list(strings(ast.parse(path.read_text("utf-8"))))
        for folder in FOLDERS
        for path in sorted((root / folder).rglob("*.py"))
    }


def writes(root: Path) -> dict[str, set[str]]:
    """module -> the tables its statements write (``_RUNTIME`` for a table named at run time)."""
    tables = schema_tables(root)
    out: dict[str, set[str]] = {}
    for rel, texts in _code_strings(root).items():
        for text in texts:
            for table in _WRITE.findall(text):
                if table == _RUNTIME or table in tables:
                    out.setdefault(rel, set()).add(table)
    return out


def foreign_writes(root: Path) -> set[str]:
    """``module: table`` for each write by a module that neither owns the table nor may write it."""
    found = set()
    for rel, tables in writes(root).items():
        allowed = {t for t, owners in OWNERS.items() if rel in owners}
        allowed |= EXCEPTIONS.get(rel, (frozenset(), ""))[0]
        for table in tables:
            if table == _RUNTIME:
                named = RUNTIME.get(rel)
                if named is None or not named <= allowed:
                    found.add(f"{rel}: a table named at run time")
            elif table not in allowed:
                found.add(f"{rel}: {table}")
    return found


def test_every_table_is_written_only_by_its_owner() -> None:
    assert foreign_writes(ROOT) == set(), "call the table's owner (OWNERS) instead of writing it here"


def test_every_table_of_the_schema_has_a_declared_owner() -> None:
    assert set(OWNERS) == schema_tables(ROOT)


def test_a_table_has_one_owner_unless_listed_with_its_reason() -> None:
    assert {t for t, owners in OWNERS.items() if len(owners) > 1} == set(SHARED)


def test_each_declared_writer_still_writes_what_it_is_declared_for() -> None:
    """A stale entry would let a module write a table it no longer needs to: the lists track the code."""
    found = writes(ROOT)
    written = {
        (rel, t)
        for rel, tables in found.items()
        for t in (tables - {_RUNTIME})
        | (RUNTIME.get(rel, frozenset()) if _RUNTIME in tables else frozenset())
    }
    declared = {(rel, t) for t, owners in OWNERS.items() for rel in owners}
    assert declared - written == set()
    for rel, (tables, _why) in EXCEPTIONS.items():
        assert tables <= {t for r, t in written if r == rel}, rel


def test_the_engines_writes_are_found_where_they_are() -> None:
    """The scan sees the statements it must: upserts, f-strings, run-time names, sync's tables."""
    found = writes(ROOT)
    assert found["core/storage/meta.py"] == {"meta"}  # ``ON CONFLICT ... DO UPDATE SET`` is no table
    assert {"memory_items", "evidence"} <= found["core/storage/item_rows.py"]  # f-string statements
    assert _RUNTIME in found["core/storage/index_rows.py"]
    assert "sync_rows" in found["sync/rows.py"]
    assert "core/recall/engine.py" not in found and found["core/storage/mention_rows.py"] == {"mentions"}


def _scratch_copy(tmp: Path) -> Path:
    for folder in FOLDERS:
        shutil.copytree(ROOT / folder, tmp / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp


def _plant(root: Path, rel: str, code: str) -> None:
    path = root / rel
    path.write_text(path.read_text("utf-8") + "\n\n" + code)
    _code_strings.cache_clear()  # the tree changed


def test_planted_writes_in_a_scratch_copy_are_reported(tmp_path: Path) -> None:
    root = _scratch_copy(tmp_path)
    assert foreign_writes(root) == set()
    _plant(root, "core/recall/engine.py", 'Q = "INSERT INTO traces(id, kind) VALUES (?, ?)"')
    _plant(root, "core/lifecycle/linker.py", 'Q = "delete from pending_links where memory_id = ?"')
    _plant(
        root,
        "core/write/versions.py",
        'COLS = "id"\nQ = f"INSERT OR IGNORE INTO derivations({COLS}) VALUES (?)"',
    )
    _plant(
        root,
        "core/lifecycle/expiry.py",
        'Q = ("INSERT INTO meta(key, value) VALUES (?, ?) "\n     "ON CONFLICT(key) DO UPDATE SET value = excluded.value")',
    )
    _plant(root, "core/curation/review.py", 'def f(table):\n    return f"UPDATE {table} SET trust = ?"')
    _plant(root, "sync/replica.py", 'Q = "REPLACE INTO memory_items(id) VALUES (?)"')
    _plant(root, "sync/rows.py", 'Q = "UPDATE OR IGNORE sync_keys SET key = ?"')
    _plant(root, "core/lifecycle/forget.py", 'Q = "DELETE FROM meta WHERE key = ?"')
    _plant(root, "core/storage/tamper.py", 'Q = "DELETE FROM evidence WHERE memory_id = ?"')
    assert foreign_writes(root) == {
        "core/recall/engine.py: traces",
        "core/lifecycle/linker.py: pending_links",
        "core/write/versions.py: derivations",
        "core/lifecycle/expiry.py: meta",
        "core/curation/review.py: a table named at run time",
        "sync/replica.py: memory_items",
        "sync/rows.py: sync_keys",
        "core/lifecycle/forget.py: meta",
        "core/storage/tamper.py: evidence",
    }


def test_planted_reads_docstrings_and_an_owners_own_writes_are_not_reported(tmp_path: Path) -> None:
    root = _scratch_copy(tmp_path)
    _plant(root, "core/recall/engine.py", 'Q = "SELECT id FROM traces WHERE id = ?"')
    _plant(
        root,
        "core/recall/answer.py",
        'def f():\n    """Writes INSERT INTO traces through core/storage/traces.py."""',
    )
    _plant(root, "core/storage/link_rows.py", 'Q = "DELETE FROM pending_links WHERE memory_id = ?"')
    _plant(root, "core/lifecycle/forget.py", 'Q = "DELETE FROM traces WHERE id = ?"')
    _plant(root, "core/write/plan.py", 'NOTE = "an update in the same batch"')
    assert foreign_writes(root) == set()
