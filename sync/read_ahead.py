"""Opening the next batch file of a device while the current one applies.

Opening a batch (decrypting it, checking its signature, reading its canonical JSON and checking
every event: :func:`sync.envelope.open_batch`) needs nothing from the store but its inputs, and its
result (the opened batch, or the refusal) is a function of those inputs alone. So while one file
applies inside its transaction, the next file of the same device is opened in one worker thread,
with the inputs it will have if that apply changes none of them (the file just applied counted as
seen). When that file's turn comes its inputs are read again, as ever; the worker's result is used
only if they are equal, byte for byte, else the file is opened again there and then. The worker
never touches the store, and nothing it does is kept unless it is exactly what opening the file
then would have given.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from veramem_desktop.sync.envelope import OpenedBatch, open_batch
from veramem_desktop.sync.keys import AccountKey


@dataclass(frozen=True)
class OpenInputs:
    """Everything :func:`open_batch` reads to open one file."""

    data: bytes
    keys: Mapping[int, AccountKey]
    trusted: Mapping[str, bytes]
    gone: AbstractSet[str]
    seen: Mapping[str, int]
    expected_device: str

    def open(self) -> OpenedBatch:
        return open_batch(
            self.data, self.keys, self.trusted, self.gone, self.seen, expected_device=self.expected_device
        )


class ReadAhead:
    """At most one file opened ahead; :meth:`close` when the import is done."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._ahead: tuple[OpenInputs, Future[OpenedBatch]] | None = None

    def start(self, inputs: OpenInputs) -> None:
        """Open ``inputs`` in the worker (dropping a file opened ahead before and not asked for)."""
        self._drop()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="veramem-sync-open")
        self._ahead = (inputs, self._pool.submit(inputs.open))

    def open(self, inputs: OpenInputs) -> OpenedBatch:
        """The file opened with ``inputs``: the worker's result if it opened these very inputs, else
        opened here. A refusal is raised either way."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[0] == inputs:
            return ahead[1].result()
        if ahead is not None:
            ahead[1].cancel()
        return inputs.open()

    def _drop(self) -> None:
        if self._ahead is not None:
            self._ahead[1].cancel()
            self._ahead = None

    def close(self) -> None:
        self._drop()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
