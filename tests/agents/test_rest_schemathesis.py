"""Schemathesis against the served OpenAPI schema: no generated input gets a 500.

Valid (positive) and invalid (negative) cases for every operation, sent over HTTP to a
uvicorn on loopback with the token. Examples are few per operation so the run stays
short; the server's store holds a little data so ids and searches hit something.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.core.result import Err, Ok

pytestmark = pytest.mark.e2e

EXAMPLES_PER_OPERATION = 20


def test_no_generated_request_causes_a_server_error(live: Any, mem: Any) -> None:
    mem.add("I moved to Lisbon in March and I like green tea.")
    schema = schemathesis.openapi.from_url(f"{live.url}/openapi.json")
    results = list(schema.get_all_operations())
    bad = [r.err() for r in results if isinstance(r, Err)]
    assert not bad, bad  # the served schema is valid OpenAPI
    operations = [r.ok() for r in results if isinstance(r, Ok)]
    labels = {f"{op.method.upper()} {op.path}" for op in operations}
    assert len(labels) == 11, labels  # every /v1 endpoint is in the schema and gets exercised
    failures: list[str] = []
    sent: dict[str, int] = {}

    def exercise(operation: Any) -> None:
        label = f"{operation.method.upper()} {operation.path}"
        strategy = st.one_of(
            operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE)
        )

        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=strategy)
        def run(case: Any) -> None:
            response = case.call(base_url=live.url, headers=live.auth, timeout=30)
            sent[label] = sent.get(label, 0) + 1
            if response.status_code >= 500:
                failures.append(
                    f"{label}: {response.status_code} {response.text[:200]} for {case.body!r:.200}"
                )

        run()

    for operation in operations:
        exercise(operation)

    assert not failures, "\n".join(failures)
    assert set(sent) == labels


#: cases for the one endpoint that takes free-form input into the store (issue 16's fuzzing)
ADD_EXAMPLES = 150


def test_generated_adds_end_in_success_or_a_documented_4xx_and_lose_nothing(live: Any, mem: Any) -> None:
    seeded = mem.add("I live in Lisbon and I like green tea.")
    seed_ids = [d["id"] for d in seeded.added]
    schema = schemathesis.openapi.from_url(f"{live.url}/openapi.json")
    add = next(r.ok() for r in schema.get_all_operations() if isinstance(r, Ok) and r.ok().path == "/v1/add")
    strategy = st.one_of(add.as_strategy(GenerationMode.POSITIVE), add.as_strategy(GenerationMode.NEGATIVE))
    statuses: dict[int, int] = {}

    @settings(
        max_examples=ADD_EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: Any) -> None:
        response = case.call(base_url=live.url, headers=live.auth, timeout=30)
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        assert response.status_code in (200, 400, 401, 413, 422), (response.status_code, response.text[:200])
        assert set(response.json()) >= ({"episodes"} if response.status_code == 200 else {"title", "message"})

    run()
    assert statuses.get(200, 0) > 10 and statuses.get(422, 0) > 10, statuses
    assert mem.verify().ok
    assert all(mem.get(i).status == "active" for i in seed_ids)
