"""Every surface, found by introspection, read against the invariant matrix (issue 30).

The inventory is taken from the code itself: the CLI's commands (a walk of the click group), the REST
app's routes (``app.routes``), the MCP server's tools (its tool list), the public methods of the SDK's
``Memory`` and the export formats (the ``export`` group's commands and the ``--format`` choices). Every
entry is either probed or listed in a classification table with the reason it cannot show stored text;
a new command, route, tool, method or format that is neither fails the inventory test.

Each probe reads through its surface and the output must hold no word of the cases it is held to
(tests/invariants/world.py): a forgotten item, a rejected value, an expired item, another user's item,
and, on an agent's surfaces, the person's item an ungranted agent asks for. Probes that take an id are
run with every id of those cases. A control memory must come back from the recall probes, so a probe
that shows nothing at all cannot pass for one that hides the right rows.

The person at their own store (CLI and SDK without a caller) holds the file's key and may name any row
by id or export every user's rows (core/storage/access.py, ``Caller.person``): those probes are held to
the forgotten, rejected and expired cases, and the per-user and agent probes to the rest.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from support.fake_embedder import HashEmbedder
from veramem_desktop.core.errors import ExitCode, VeramemError
from veramem_desktop.core.storage.access import Caller

from invariants.world import (
    AGENT_CASES,
    CASES,
    CONTROL,
    GRANTED_AGENT,
    ME,
    PERSON_CASES,
    UNGRANTED_AGENT,
    World,
)
from veramem_desktop import cli as cli_pkg
from veramem_desktop.agent_access import AgentAccess, Identity
from veramem_desktop.mcp_server import build_server
from veramem_desktop.memory import Memory, via
from veramem_desktop.rest import create_app

BY_ID = ("forgotten", "rejected", "expired")  # what the key holder's reads by id are held to
#: the person's review queue shows the message held as a near miss of the rejected value, for them to decide
REVIEW_CASES = tuple(c for c in PERSON_CASES if c != "rejected")
TOKEN = "inventory-token-" + "x" * 32


# ---------------------------------------------------------------- checking one output
def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if hasattr(value, "to_dict"):
        value = value.to_dict()
    if isinstance(value, Iterator):
        value = list(value)
    return json.dumps(value, default=lambda o: o.to_dict() if hasattr(o, "to_dict") else str(o))


class Checker:
    """Collects every leak (surface, probe, case) so one run reports all of them."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.leaks: list[str] = []
        self.probed: set[str] = set()

    def check(self, surface: str, probe: str, output: Any, cases: tuple[str, ...]) -> str:
        text = _text(output)
        for case in self.world.leaks(text, cases):
            self.leaks.append(f"{surface} {probe}: shows the {case} item")
        self.probed.add(surface)
        return text

    def ids(self, cases: tuple[str, ...]) -> list[tuple[str, str]]:
        return [(case, i) for case in cases for i in self.world.ids[case]]


def _call(fn: Callable[[], Any]) -> Any:
    """The surface's answer, or its typed refusal as text (a refusal that names no word is no leak)."""
    try:
        return fn()
    except VeramemError as exc:
        return f"{exc.title}: {exc.message}"


# ---------------------------------------------------------------- the CLI
#: commands that show no stored text, or are covered elsewhere, and why
CLI_CLASSIFIED: dict[str, str] = {
    "init": "creates a store; prints paths and a recovery code",
    "unlock": "opens the key; prints no stored text",
    "config": "settings, not stored text",
    "config get": "settings, not stored text",
    "config set": "settings, not stored text",
    "config unset": "settings, not stored text",
    "add": "a write: the admission gate's tests (tests/admission) cover it; it echoes only its own input",
    "import": "a write: the admission gate's tests (tests/admission, tests/importing) cover it",
    "grant": "writes a grant; prints ids",
    "revoke": "ends a grant; prints a count",
    "forget": "erases; its preview lists ids and counts only (REST's preview is probed)",
    "feedback": "credits a trace by id; prints counters",
    "consolidate": "maintenance; prints counters (it sweeps expiry: the sweep's tests are tests/forget)",
    "review approve": "a person's decision by id; approving a rejected value is refused (tests/write)",
    "review reject": "a person's decision by id; prints the id and counts",
    "share": "writes abstracted, gated copies to the shared pool (tests/share)",
    "bench": "measures its own synthetic stores",
    "demo": "writes the demo's own store",
    "doctor": "checks the machine and the store; prints no stored text",
    "tui": "the terminal app reads through the SDK's methods, probed below",
    "mcp": "serves the MCP tools, probed below",
    "serve": "serves the REST routes and web page, probed below",
    "backup": "copies the encrypted file; nothing readable leaves",
    "restore": "replaces the store from an encrypted backup (a write)",
    "passphrase": "changes how the key is kept",
    "rekey": "re-encrypts the store",
    "reindex": "rebuilds indexes; prints counts",
    "export": "a group: each of its commands is probed",
    "sync": "device pairing and sealed events (sync's end-to-end tests cover forget across devices)",
}
CLI_CLASSIFIED_PREFIXES = ("sync ",)

#: probes: argv (with {q}: the case's question, {id}: each id of the cases, {out}: a file) and the cases
CLI_PROBES: dict[str, list[tuple[list[str], tuple[str, ...]]]] = {
    # reads that never sweep expiry come first, so the expired item is still stored when they run and
    # only the read-time rule hides it; search, answer and review sweep (core/lifecycle/expiry.py)
    "history": [(["history", "{id}", "--json"], BY_ID)],
    "pin": [(["pin", "{id}", "--json"], BY_ID)],
    "unpin": [(["unpin", "{id}", "--json"], BY_ID)],
    "episodes": [
        (["episodes", "--json", "--user", ME, "--limit", "100"], PERSON_CASES),
        (["episodes", "--json", "--limit", "100"], BY_ID),
    ],
    "status": [(["status", "--json"], AGENT_CASES)],
    "verify": [(["verify", "--json"], AGENT_CASES)],
    "export memories": [
        (["export", "memories", "{out}", "--user", ME, "--format", "{fmt}"], PERSON_CASES),
        (["export", "memories", "{out}", "--format", "{fmt}"], BY_ID),
    ],
    "export all": [
        (["export", "all", "{out}", "--user", ME, "--force"], PERSON_CASES),
        (["export", "all", "{out}", "--force"], BY_ID),
    ],
    "review": [
        # the review queue is where a person decides on a message held as a near miss of a rejected value,
        # so it shows that one (tests/admission/test_near_miss_in_review.py holds the rest of the case)
        (["review", "--json", "--user", ME], REVIEW_CASES),
        (["review", "--json", "--expiring", "--within", "2w"], BY_ID),
    ],
    "search": [
        (["search", "{q}", "--json", "--user", ME, "--route", "dual"], PERSON_CASES),
        (["search", "{q}", "--json", "--agent", UNGRANTED_AGENT, "--route", "dual"], AGENT_CASES),
    ],
    "answer": [
        (["answer", "{q}", "--json", "--user", ME], PERSON_CASES),
        (["answer", "{q}", "--json", "--agent", UNGRANTED_AGENT], AGENT_CASES),
    ],
    # after the searches and answers, so their traces are there to be exported
    "export traces": [(["export", "traces", "{out}", "--user", ME], PERSON_CASES)],
    "export training": [(["export", "training", "{out}", "--user", ME], PERSON_CASES)],
}


def _commands(group: click.Group, ctx: click.Context, prefix: str = "") -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        path = f"{prefix}{name}"
        found[path] = command
        if isinstance(command, click.Group):
            found.update(_commands(command, click.Context(command, parent=ctx, info_name=name), path + " "))
    return found


def cli_inventory() -> dict[str, click.Command]:
    root = cli_pkg.cli
    return _commands(root, click.Context(root, info_name="veramem"))


def export_formats() -> list[str]:
    """Every export the CLI can write: each ``export`` command, and each ``--format`` of one that has it."""
    out = []
    for path, command in cli_inventory().items():
        if not path.startswith("export "):
            continue
        choices = [
            c
            for p in command.params
            if p.name == "fmt" and isinstance(p.type, click.Choice)
            for c in p.type.choices
        ]
        out += [f"{path} {c}" for c in choices] or [path]
    return out


def _uncovered(
    names: list[str], probed: dict[str, Any], classified: dict[str, str], prefixes: tuple[str, ...] = ()
) -> list[str]:
    return [n for n in names if n not in probed and n not in classified and not n.startswith(prefixes)]


def test_every_cli_command_is_probed_or_classified() -> None:
    names = list(cli_inventory())
    assert "search" in names and "export memories" in names  # the walk reaches groups' commands
    assert _uncovered(names, CLI_PROBES, CLI_CLASSIFIED, CLI_CLASSIFIED_PREFIXES) == []
    assert not set(CLI_PROBES) & set(CLI_CLASSIFIED)


def _cli_runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """The real commands in this process, each opening the world's store with its embedder."""
    from veramem_desktop.cli import common

    opener = common.open_memory
    for module in list(vars(cli_pkg).values()):
        if inspect.ismodule(module) and getattr(module, "open_memory", None) is opener:
            monkeypatch.setattr(
                module, "open_memory", lambda ctx, **kw: opener(ctx, embedder=HashEmbedder(), **kw)
            )
    return CliRunner()


def _expand(
    argv: list[str], cases: tuple[str, ...], world: World, out: Path
) -> Iterator[tuple[list[str], Path | None]]:
    formats = ["jsonl", "markdown"]
    if "{id}" in argv:
        for _case, i in Checker(world).ids(cases):
            yield [i if a == "{id}" else a for a in argv], None
    elif "{q}" in argv:
        for q in [CASES[c][1] for c in cases] + [CONTROL]:
            yield [q if a == "{q}" else a for a in argv], None
    elif "{fmt}" in argv:
        for n, fmt in enumerate(formats):
            target = out / f"export-{len(argv)}-{n}.{fmt}"
            yield [str(target) if a == "{out}" else fmt if a == "{fmt}" else a for a in argv], target
    elif "{out}" in argv:
        target = out / f"export-{argv[1]}-{len(argv)}.jsonl"
        yield [str(target) if a == "{out}" else a for a in argv], target
    else:
        yield argv, None


def test_no_cli_command_shows_what_the_matrix_hides(
    world: World, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import veramem_desktop.cli as root

    runner = _cli_runner(monkeypatch)
    checker = Checker(world)
    control_seen = False
    for path, probes in CLI_PROBES.items():
        for argv, cases in probes:
            for args, target in _expand(argv, cases, world, tmp_path):
                result = runner.invoke(root.cli, args)
                assert result.exit_code != ExitCode.USAGE, (
                    args,
                    result.output,
                )  # the probe reached the command
                assert not isinstance(result.exception, (AssertionError, TypeError, KeyError)), (
                    args,
                    result.output,
                )
                assert "bug" not in result.output.lower(), (args, result.output)
                text = checker.check("cli", " ".join(args), result.output, cases)
                if target is not None and target.exists():
                    text = checker.check("cli", " ".join(args) + " (file)", target.read_text(), cases)
                    if path in ("export memories", "export all"):
                        control_seen |= CONTROL in text
                control_seen |= path == "search" and CONTROL in text
    assert checker.leaks == []
    assert control_seen, "the control memory never came back: the probes read nothing"


# ---------------------------------------------------------------- REST
#: routes that show no stored text, or are covered elsewhere, and why
REST_CLASSIFIED: dict[str, str] = {
    "POST /v1/add": "a write: the admission gate's tests cover it; it echoes only its input",
    "POST /v1/feedback": "credits a trace by id; prints counters",
    "DELETE /v1/memories/{memory_id}": "erases; reports ids and counts (its preview is probed)",
    "GET /": "the web page: static HTML that reads through the /v1 routes probed here",
    "GET /openapi.json": "FastAPI's schema",
    "GET /docs": "FastAPI's schema viewer",
    "GET /docs/oauth2-redirect": "FastAPI's schema viewer",
    "GET /redoc": "FastAPI's schema viewer",
}
REST_PROBES: dict[str, Callable[[TestClient, str], Any]] = {
    # reads that never sweep expiry first (see CLI_PROBES)
    "GET /v1/memories/{memory_id}": lambda c, i: c.get(f"/v1/memories/{i}"),
    "GET /v1/memories/{memory_id}/history": lambda c, i: c.get(f"/v1/memories/{i}/history"),
    "GET /v1/forget/{target_id}/preview": lambda c, i: c.get(f"/v1/forget/{i}/preview"),
    "GET /v1/episodes": lambda c, _: c.get("/v1/episodes", params={"limit": 500}),
    "GET /v1/status": lambda c, _: c.get("/v1/status"),
    "GET /v1/verify": lambda c, _: c.get("/v1/verify"),
    "POST /v1/search": lambda c, q: c.post("/v1/search", json={"query": q, "k": 50, "route": "dual"}),
    "POST /v1/answer": lambda c, q: c.post("/v1/answer", json={"question": q}),
}
_REST_BY_ID = {
    "GET /v1/memories/{memory_id}",
    "GET /v1/memories/{memory_id}/history",
    "GET /v1/forget/{target_id}/preview",
}


def rest_inventory(app: Any) -> list[str]:
    out = []
    for route in app.routes:
        methods = sorted(getattr(route, "methods", None) or ["GET"])
        out += [f"{m} {route.path}" for m in methods if m != "HEAD"]
    return out


def test_every_rest_route_is_probed_or_classified(wmem: Memory) -> None:
    app = create_app(wmem, TOKEN, user_id=ME, agent_id=UNGRANTED_AGENT)
    names = rest_inventory(app)
    assert any(isinstance(r, APIRoute) for r in app.routes) and "GET /v1/episodes" in names
    assert _uncovered(names, REST_PROBES, REST_CLASSIFIED) == []


@pytest.mark.parametrize(("agent", "cases"), [(UNGRANTED_AGENT, AGENT_CASES), (GRANTED_AGENT, PERSON_CASES)])
def test_no_rest_route_shows_what_the_matrix_hides(
    world: World, wmem: Memory, agent: str, cases: tuple[str, ...]
) -> None:
    app = create_app(wmem, TOKEN, user_id=ME, agent_id=agent)
    checker = Checker(world)
    control_seen = False
    with TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        for name, probe in REST_PROBES.items():
            if name in _REST_BY_ID:
                args = [i for _, i in checker.ids(cases)] + [world.control_id]
            else:
                args = [CASES[c][1] for c in cases] + [CONTROL]
            for arg in args:
                response = probe(client, arg)
                assert response.status_code < 500, (name, arg, response.text)
                text = checker.check("rest", f"{name} {arg}", response.text, cases)
                control_seen |= name == "POST /v1/search" and CONTROL in text
    assert checker.leaks == []
    assert control_seen == (agent == GRANTED_AGENT), (
        "the granted agent reads the control; the ungranted nothing"
    )


# ---------------------------------------------------------------- MCP
MCP_CLASSIFIED = {
    "add": "a write: the admission gate's tests cover it",
    "feedback": "credits a trace by id; returns counters",
    "forget": "erases; returns ids and counts",
}
MCP_PROBES = {"history": "memory_id", "search": "query", "answer": "question"}  # history never sweeps: first


def _mcp_tools(server: Any) -> list[str]:
    return [t.name for t in asyncio.run(server.list_tools())]


def test_every_mcp_tool_is_probed_or_classified(wmem: Memory) -> None:
    server = build_server(AgentAccess(wmem, Identity(ME, UNGRANTED_AGENT)), allow_forget=True)
    names = _mcp_tools(server)
    assert "search" in names
    assert _uncovered(names, MCP_PROBES, MCP_CLASSIFIED) == []


@pytest.mark.parametrize(("agent", "cases"), [(UNGRANTED_AGENT, AGENT_CASES), (GRANTED_AGENT, PERSON_CASES)])
def test_no_mcp_tool_shows_what_the_matrix_hides(
    world: World, wmem: Memory, agent: str, cases: tuple[str, ...]
) -> None:
    server = build_server(AgentAccess(wmem, Identity(ME, agent)), allow_forget=True)
    checker = Checker(world)
    control_seen = False
    for tool, argument in MCP_PROBES.items():
        if argument == "memory_id":
            args = [i for c, i in checker.ids(cases) if i.startswith("mem_")] + [world.control_id]
        else:
            args = [CASES[c][1] for c in cases] + [CONTROL]
        for arg in args:
            try:
                result = asyncio.run(server.call_tool(tool, {argument: arg}))
                output = "".join(getattr(c, "text", "") for c in getattr(result, "content", []))
            except Exception as exc:  # a tool's refusal (ToolError) carries only its message
                output = str(exc)
            text = checker.check("mcp", f"{tool} {arg}", output, cases)
            control_seen |= tool == "search" and CONTROL in text
    assert checker.leaks == []
    assert control_seen == (agent == GRANTED_AGENT)


# ---------------------------------------------------------------- the SDK
SDK_CLASSIFIED: dict[str, str] = {
    **{
        name: "a write or a person's act; the admission gate's and review's tests cover it"
        for name in (
            "add",
            "adding.add_document",
            "measuring.add_prepared",
            "import_history",
            "review.approve",
            "review.reject",
            "grants.grant",
            "grants.revoke",
            "curation.share",
            "curation.mark_shareable",
            "curation.set_pinned",
            "forget",
            "feedback",
            "writes.rederive_pending",
            "writes.add",
            "writes.admit",
            "writes.defer_derivation",
        )
    },
    **{
        name: "maintenance or store lifecycle; returns counters, paths or state, no stored text"
        for name in (
            "create",
            "create_beside",
            "exists",
            "store_path",
            "unlock",
            "unlock_with_recovery_code",
            "close",
            "acting_as",
            "caller",
            "device_id",
            "llm_name",
            "embedder_name",
            "load_embedder",
            "reembed",
            "consolidate",
            "curation.expire",
            "curation.expire_if_due",
            "curation.may_act_on",
            "organiser.enforce_budgets",
            "organiser.budget_config",
            "organiser.drain_links",
            "organiser.links_pending",
            "organiser.wait_for_links",
            "organiser.vectors_behind",
            "organiser.wait_for_vectors",
            "organiser.enqueue",
            "organiser.queue_links",
            "organiser.start_linker",
            "organiser.start_vectors",
            "organiser.stop",
            "organiser.noticed_sync",
            "organiser.after_sync",
            "measuring.vector_models",
            "measuring.counting_statements",
            "reading.memory_count",
            "reading.ledger_length",
            "recall.search_engine",
            "grants.list_grants",
            "writes.writer",
            "opening.create",
            "opening.evidence",
            "opening.keep_aside",
            "opening.missing_part",
            "opening.open",
            "opening.open_with",
            "opening.recover",
            "opening.status",
        )
    },
    **{
        name: "device sync: sealed events and device state (sync's end-to-end tests cover forget)"
        for name in (
            "sync.init",
            "sync.join_start",
            "sync.pairing_code",
            "sync.join_finish",
            "sync.approve",
            "sync.devices",
            "sync.remove",
            "sync.run",
            "sync.daemon",
            "sync.status",
            "sync.state_hash",
            "sync.reopened",
        )
    },
}


def _sdk_probes(
    mem: Memory, world: World, out: Path
) -> dict[str, list[tuple[Callable[[], Any], tuple[str, ...]]]]:
    """method -> [(a call, the cases its output is held to)]."""
    agent = Caller(ME, UNGRANTED_AGENT)
    by_id = [i for c in BY_ID for i in world.ids[c]]
    agent_ids = [i for c in AGENT_CASES for i in world.ids[c]]
    mems = [i for i in by_id if i.startswith("mem_")]
    questions = [q for _, q in CASES.values()] + [CONTROL]

    def each(
        fn: Callable[[str], Any], ids: list[str], cases: tuple[str, ...]
    ) -> list[tuple[Callable[[], Any], tuple[str, ...]]]:
        return [((lambda i=i: fn(i)), cases) for i in ids]

    files = {fmt: out / f"sdk.{fmt}" for fmt in ("jsonl", "markdown")}
    return {
        "search": [
            (lambda q=q: mem.search(q, user_id=ME, route="dual", k=50), PERSON_CASES) for q in questions
        ]
        + [
            (lambda q=q: mem.search(q, user_id=ME, agent_id=UNGRANTED_AGENT, route="dual"), AGENT_CASES)
            for q in questions
        ],
        "answer": [(lambda q=q: mem.answer(q, user_id=ME), PERSON_CASES) for q in questions]
        + [(lambda q=q: mem.answer(q, user_id=ME, agent_id=UNGRANTED_AGENT), AGENT_CASES) for q in questions],
        # the person's get shows a rejected memory's row (a person reads what they decided): held to the rest
        "get": each(mem.get, mems, ("forgotten", "expired"))
        + each(lambda i: mem.get(i, caller=agent), agent_ids, AGENT_CASES),
        "history": each(mem.history, mems, BY_ID)
        + each(lambda i: mem.history(i, caller=agent), agent_ids, AGENT_CASES),
        "reading.detail": each(mem.reading.detail, mems, BY_ID)
        + each(lambda i: mem.reading.detail(i, caller=agent), agent_ids, AGENT_CASES),
        "reading.links": each(mem.reading.links, mems, BY_ID)
        + each(lambda i: mem.reading.links(i, caller=agent), agent_ids, AGENT_CASES),
        "reading.episode": each(mem.reading.episode, by_id, BY_ID)
        + each(lambda i: mem.reading.episode(i, caller=agent), agent_ids, AGENT_CASES),
        "forget_preview": each(mem.forget_preview, by_id, BY_ID)
        + each(lambda i: mem.forget_preview(i, caller=agent), agent_ids, AGENT_CASES),
        "reading.ledger_entries": [(lambda: mem.reading.ledger_entries(), AGENT_CASES)]
        + each(lambda i: mem.reading.ledger_entries(target_id=i, caller=agent), agent_ids, AGENT_CASES),
        "memories": [
            (lambda: mem.memories(user_id=ME, limit=500), PERSON_CASES),
            (lambda: mem.memories(status=None, limit=500), BY_ID),
        ],
        "reading.states": [(lambda: mem.reading.states(mem.memories(status=None, limit=500)), BY_ID)],
        "episodes": [
            (lambda: mem.episodes(user_id=ME, limit=500), PERSON_CASES),
            (lambda: mem.episodes(limit=500), BY_ID),
        ],
        "reading.episodes_seen_by": [(lambda: mem.reading.episodes_seen_by(agent, limit=500), AGENT_CASES)],
        "reading.sessions": [(lambda: mem.reading.sessions(user_id=ME), PERSON_CASES)],
        "review.queue": [(lambda: mem.review.queue(user_id=ME), REVIEW_CASES)],
        "curation.expiring": [(lambda: mem.curation.expiring(), BY_ID)],
        "status": [(mem.status, AGENT_CASES)],
        "verify": [(mem.verify, AGENT_CASES)],
        "measuring.integrity_problems": [(mem.measuring.integrity_problems, AGENT_CASES)],
        "reading.require_trace": [
            (lambda: mem.reading.require_trace("trc_unknown", caller=agent), AGENT_CASES)
        ],
        "outcomes.trajectories": [(lambda: mem.outcomes.trajectories(user_id=ME), PERSON_CASES)],
        "outcomes.training_records": [(lambda: mem.outcomes.training_records(user_id=ME), PERSON_CASES)],
        "importer.export_memories": [
            (
                (
                    lambda f=f, fmt=fmt: (
                        mem.importer.export_memories(f, format=fmt, user_id=ME, overwrite=True),
                        f.read_text(),
                    )
                ),
                PERSON_CASES,
            )
            for fmt, f in files.items()
        ],
        "importer.export_all": [
            (
                lambda: (
                    mem.importer.export_all(out / "a.jsonl", user_id=ME, overwrite=True),
                    (out / "a.jsonl").read_text(),
                ),
                PERSON_CASES,
            ),
            (
                lambda: (
                    mem.importer.export_all(out / "b.jsonl", overwrite=True),
                    (out / "b.jsonl").read_text(),
                ),
                BY_ID,
            ),
        ],
        "export_trajectories": [
            (
                lambda: (
                    mem.export_trajectories(out / "t.jsonl", user_id=ME, overwrite=True),
                    (out / "t.jsonl").read_text(),
                ),
                PERSON_CASES,
            )
        ],
        "export_training": [
            (
                lambda: (
                    mem.export_training(out / "r.jsonl", user_id=ME, overwrite=True),
                    (out / "r.jsonl").read_text(),
                ),
                PERSON_CASES,
            )
        ],
    }


#: run after every other probe: search, answer and review sweep expiry (the others must hide the expired item by
#: the read-time rule alone), and the trace exports need the traces they write
SDK_LAST = frozenset(
    {
        "search",
        "answer",
        "review.queue",
        "outcomes.trajectories",
        "outcomes.training_records",
        "export_trajectories",
        "export_training",
    }
)


def sdk_inventory(mem: Memory) -> list[str]:
    """The SDK's public calls: the facade's own, and each of its services' (``reading.detail``), a shortcut
    standing for the service call it is (``search`` for ``recall.search``)."""
    own = [n for n, _ in inspect.getmembers(Memory) if not n.startswith("_")]
    held = {n: type(v) for n, v in vars(mem).items() if not n.startswith("_")}
    for name in own:
        attr = inspect.getattr_static(Memory, name)
        if isinstance(attr, property):
            held[name] = typing.get_type_hints(attr.fget).get("return")
    services = {
        n: kind
        for n, kind in held.items()
        if isinstance(kind, type) and kind.__module__.startswith("veramem_desktop.services.")
    }
    shortcuts = {
        f"{a.service}.{a.call.__name__}": n
        for n in own
        if isinstance(a := inspect.getattr_static(Memory, n), via)
    }
    calls = [
        shortcuts.get(f"{n}.{m}", f"{n}.{m}")
        for n, kind in services.items()
        for m, _ in inspect.getmembers(kind, inspect.isfunction)
        if not m.startswith("_")
    ]
    return sorted({n for n in own if n not in services} | set(calls))


def test_every_sdk_method_is_probed_or_classified(wmem: Memory, world: World, tmp_path: Path) -> None:
    probes = _sdk_probes(wmem, world, tmp_path)
    assert _uncovered(sdk_inventory(wmem), probes, SDK_CLASSIFIED) == []


def test_no_sdk_method_shows_what_the_matrix_hides(wmem: Memory, world: World, tmp_path: Path) -> None:
    checker = Checker(world)
    control_seen = False
    probes = _sdk_probes(wmem, world, tmp_path)
    for name in sorted(probes, key=lambda n: (n in SDK_LAST, n != "review.queue")):  # review sweeps first
        calls = probes[name]
        for call, cases in calls:
            text = checker.check("sdk", name, _call(call), cases)
            control_seen |= name == "search" and CONTROL in text
    assert checker.leaks == []
    assert control_seen


def test_every_export_format_is_probed() -> None:
    formats = export_formats()
    assert {"export memories jsonl", "export memories markdown", "export traces", "export training"} <= set(
        formats
    )
    probed = {
        f"{p} {fmt}" if p == "export memories" else p for p in CLI_PROBES for fmt in ("jsonl", "markdown")
    }
    assert [f for f in formats if f not in probed] == []
