"""The outcome loop's records for one open store: feedback on searches and answers, and the
trajectory and training exports built from them (consolidation is in consolidation.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.lifecycle import outcome as outcome_mod
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.text.time_values import parse_time
from veramem_desktop.core.transfer import training as training_mod
from veramem_desktop.core.transfer.plaintext import open_private


class Outcomes:
    """Feedback and the exports of one open store (no model is needed for any of them)."""

    def __init__(self, store: Store, *, device: str) -> None:
        self.store = store
        self.device = device

    def feedback(
        self, trace_id: str, reward: float, *, cited_ids: Sequence[str] | None = None, by: str | None = None
    ) -> dict[str, Any]:
        """Say how well a search or answer went (reward in [-1, 1]).

        Credits the memories named in ``cited_ids`` (only ids that trace retrieved count),
        else the ones the answer cited, else all it retrieved. Returns what was credited.

        ``by`` is whose word it is: ``"person"`` (the CLI and TUI say so) or ``"agent"``
        (MCP and REST always); left out, it is an agent's when the trace was made for an
        agent (``agent_id``), else the person's. An agent's feedback moves ranking only:
        it never gets a person's own fact archived.
        """
        result = outcome_mod.feedback(
            self.store, trace_id, reward, device=self.device, cited_ids=cited_ids, by=by
        )
        return result.to_dict()

    def trajectories(self, *, user_id: str | None = None) -> Iterator[dict[str, Any]]:
        """One record per trace, oldest first (see ``export_trajectories``)."""
        return outcome_mod.trajectories(self.store, user_id=user_id)

    def export_trajectories(
        self, path: str | Path, *, user_id: str | None = None, overwrite: bool = False
    ) -> int:
        """Write every trace as one JSON line: query, route, retrieved and cited ids, answer,
        abstention, reward and the writes it caused. Returns the number of records.

        The file is plaintext (the one kind of file VeraMem writes outside the encrypted
        store, and only when asked); it is created readable by its owner only.
        """
        written = 0
        with open_private(Path(path), overwrite=overwrite) as handle:
            for record in self.trajectories(user_id=user_id):
                handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
                written += 1
        return written

    def training_records(
        self,
        *,
        kinds: Sequence[str] = ("write", "answer"),
        since: str | datetime | None = None,
        user_id: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Write-decision and answer records, oldest first, in the schema of
        ``docs/schema/training-export.schema.json`` (see ``export_training``)."""
        return training_mod.records(
            self.store, kinds=_training_kinds(kinds), since=_since(since), user_id=user_id
        )

    def export_training(
        self,
        path: str | Path,
        *,
        kinds: Sequence[str] = ("write", "answer"),
        since: str | datetime | None = None,
        user_id: str | None = None,
        overwrite: bool = False,
    ) -> dict[str, int]:
        """Write the training records (write decisions with the texts each saw and the rewards that later
        reached its memory; answers with their retrieved texts, citations and reward) as JSON lines.
        Returns how many of each were written and how many were left out because something in them is
        withheld or rejected. The file is PLAINTEXT, created readable by its owner only (mode 0600)."""
        chosen, moment = _training_kinds(kinds), _since(since)
        with open_private(Path(path), overwrite=overwrite) as handle:
            counts = training_mod.write_jsonl(self.store, handle, kinds=chosen, since=moment, user_id=user_id)
        return counts.to_dict()


def _training_kinds(kinds: Sequence[str]) -> tuple[str, ...]:
    if isinstance(kinds, str):
        kinds = [kinds]
    unknown = [k for k in kinds if k not in training_mod.KINDS]
    if unknown or not kinds:
        raise InvalidInputError(
            f"Unknown record kind {unknown[0] if unknown else ''!r}; use {' or '.join(training_mod.KINDS)}."
        )
    return tuple(dict.fromkeys(kinds))


def _since(since: str | datetime | None) -> datetime | None:
    if since is None or isinstance(since, datetime):
        return since
    return parse_time(since)
