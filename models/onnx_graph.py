"""Rewrite an ONNX model's stored-int8 weights so onnxruntime keeps them small at run time.

The packaged MiniLM stores each weight as int8 plus a float32 scale and rebuilds it in the
graph (``Cast`` to float, ``Mul`` by the scale). onnxruntime's constant folding rebuilds
every such weight at load, and its folding costs about twice the fp32 size in heap: the
90 MB of fp32 weights become about 215 MB of session. This module rewrites the graph
before onnxruntime sees it, with the same arithmetic, so the vectors stay bit-identical:

- a weight read only by a ``Gather`` on its rows (the token and position embedding tables)
  stays int8: the ``Gather`` picks the int8 rows and their scales, then the ``Cast`` and
  ``Mul`` run on the picked rows only (the same two float operations per element, so the
  same bits), and the 47 MB fp32 token table never exists;
- any other such weight (the ``MatMul`` weights) is dequantised here, once, with the same
  float32 multiply onnxruntime would do, and stored as a plain float32 initialiser, so
  onnxruntime has nothing left to fold.

It reads and writes the protobuf wire format directly (a handful of fields of
``ModelProto``, ``GraphProto``, ``NodeProto``, ``TensorProto`` and ``AttributeProto``):
the ``onnx`` package would cost more to import than the whole rewrite takes, on every
cold start. Everything it does not understand is copied through byte for byte, and a
model that does not have the pattern (or has control-flow subgraphs, or external data)
is left alone: :func:`rewrite_dequantised_weights` returns ``None``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Final

import numpy as np

#: Rewritten pieces: bytes to copy, or a function making the bytes when they are written
#: (so the float32 weights exist one at a time, not all at once).
Piece = bytes | memoryview | Callable[[], memoryview]

_VARINT: Final = 0
_I64: Final = 1
_LEN: Final = 2
_I32: Final = 5
_INT8: Final = 3  # TensorProto.DataType
_UINT8: Final = 2
_INT64: Final = 7
_FLOAT: Final = 1
_ATTR_INT: Final = 2  # AttributeProto.AttributeType
_ATTR_INTS: Final = 7
#: the opset from which ReduceMax takes its axes as an input, not an attribute
_REDUCE_AXES_INPUT_OPSET: Final = 18
_ATTR_GRAPH_TYPES: Final = (5, 10)  # GRAPH, GRAPHS
_ATTR_GRAPH_FIELDS: Final = (6, 11)  # g, graphs


class WireError(ValueError):
    """The bytes are not a protobuf message this module can read."""


def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise WireError("truncated or overlong varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _fields(buf: memoryview) -> Iterator[tuple[int, int, memoryview | int, memoryview]]:
    """Each field as (number, wire type, value, the field's whole encoding)."""
    pos = 0
    while pos < len(buf):
        start = pos
        key, pos = _varint(buf, pos)
        number, kind = key >> 3, key & 7
        value: memoryview | int
        if kind == _VARINT:
            value, pos = _varint(buf, pos)
        elif kind == _LEN:
            size, pos = _varint(buf, pos)
            if pos + size > len(buf):
                raise WireError("truncated length-delimited field")
            value, pos = buf[pos : pos + size], pos + size
        elif kind in (_I64, _I32):
            width = 8 if kind == _I64 else 4
            if pos + width > len(buf):
                raise WireError("truncated fixed-width field")
            value, pos = buf[pos : pos + width], pos + width
        else:
            raise WireError(f"unsupported wire type {kind}")
        if number == 0:
            raise WireError("field number 0")
        yield number, kind, value, buf[start:pos]


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(number: int, kind: int) -> bytes:
    return _encode_varint(number << 3 | kind)


def _len_field(number: int, payload: bytes) -> bytes:
    return _key(number, _LEN) + _encode_varint(len(payload)) + payload


def _text(value: memoryview | int) -> str:
    if isinstance(value, int):
        raise WireError("expected a string field")
    return bytes(value).decode("utf-8")


@dataclass
class _Node:
    encoded: memoryview
    op_type: str = ""
    domain: str = ""
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    ints: dict[str, int] = field(default_factory=dict)
    has_subgraph: bool = False


@dataclass
class _Tensor:
    encoded: memoryview
    name: str = ""
    dims: list[int] = field(default_factory=list)
    data_type: int = 0
    raw: memoryview | None = None
    other_storage: bool = False  # typed data fields or external data: left alone


def _read_node(encoded: memoryview, value: memoryview) -> _Node:
    node = _Node(encoded)
    for number, _, item, _ in _fields(value):
        if number == 1:
            node.inputs.append(_text(item))
        elif number == 2:
            node.outputs.append(_text(item))
        elif number == 4:
            node.op_type = _text(item)
        elif number == 7:
            node.domain = _text(item)
        elif number == 5 and isinstance(item, memoryview):
            _read_attribute(node, item)
    return node


def _read_attribute(node: _Node, item: memoryview) -> None:
    """Note on ``node`` whether the attribute holds a subgraph, and its value when it is an int."""
    name, integer, kind, graph = "", None, 0, False
    for a_number, _, a_item, _ in _fields(item):
        if a_number == 1:
            name = _text(a_item)
        elif a_number == 3 and isinstance(a_item, int):
            integer = a_item - (1 << 64) if a_item >= 1 << 63 else a_item
        elif a_number == 20 and isinstance(a_item, int):
            kind = a_item
        elif a_number in _ATTR_GRAPH_FIELDS:
            graph = True
    node.has_subgraph |= graph or kind in _ATTR_GRAPH_TYPES
    if kind == _ATTR_INT and integer is not None:
        node.ints[name] = integer


def _read_tensor(encoded: memoryview, value: memoryview) -> _Tensor:
    tensor = _Tensor(encoded)
    for number, _, item, _ in _fields(value):
        if number == 1:
            if isinstance(item, int):
                tensor.dims.append(item)
            else:  # packed
                pos = 0
                while pos < len(item):
                    dim, pos = _varint(item, pos)
                    tensor.dims.append(dim)
        elif number == 2 and isinstance(item, int):
            tensor.data_type = item
        elif number == 8:
            tensor.name = _text(item)
        elif number == 9 and isinstance(item, memoryview):
            tensor.raw = item
        elif number in (4, 5, 6, 7, 10, 11, 13, 14):  # typed data, external data, location
            tensor.other_storage = True
    return tensor


def _array(tensor: _Tensor, dtype: type[np.generic]) -> np.ndarray:
    assert tensor.raw is not None
    count = int(np.prod(tensor.dims)) if tensor.dims else 1
    data = np.frombuffer(tensor.raw, dtype=np.dtype(dtype).newbyteorder("<"), count=count)
    return data.reshape(tensor.dims)


def _encode_node(
    op_type: str,
    inputs: list[str],
    outputs: list[str],
    name: str,
    ints: dict[str, int] | None = None,
    int_lists: dict[str, list[int]] | None = None,
) -> bytes:
    out = b"".join(_len_field(1, x.encode()) for x in inputs)
    out += b"".join(_len_field(2, x.encode()) for x in outputs)
    out += _len_field(3, name.encode()) + _len_field(4, op_type.encode())
    for key, value in (ints or {}).items():
        attribute = (
            _len_field(1, key.encode())
            + _key(3, _VARINT)
            + _encode_varint(value & ((1 << 64) - 1))
            + _key(20, _VARINT)
            + _encode_varint(_ATTR_INT)
        )
        out += _len_field(5, attribute)
    for key, values in (int_lists or {}).items():
        attribute = _len_field(1, key.encode())
        attribute += b"".join(_key(8, _VARINT) + _encode_varint(v & ((1 << 64) - 1)) for v in values)
        out += _len_field(5, attribute + _key(20, _VARINT) + _encode_varint(_ATTR_INTS))
    return _len_field(1, out)


def _raw_initialiser(name: str, data_type: int, dims: list[int], raw: bytes) -> tuple[int, list[Piece]]:
    """A small TensorProto with its values given: (encoded length, pieces)."""
    body = b"".join(_key(1, _VARINT) + _encode_varint(d) for d in dims)
    body += _key(2, _VARINT) + _encode_varint(data_type) + _len_field(8, name.encode()) + _len_field(9, raw)
    encoded = _len_field(5, body)
    return len(encoded), [encoded]


def _float_initialiser(name: str, dims: list[int], make: Callable[[], np.ndarray]) -> tuple[int, list[Piece]]:
    """A float32 TensorProto whose values are made when written: (encoded length, pieces)."""
    count = int(np.prod(dims)) if dims else 1
    head = b"".join(_key(1, _VARINT) + _encode_varint(d) for d in dims)
    head += _key(2, _VARINT) + _encode_varint(_FLOAT) + _len_field(8, name.encode())
    head += _key(9, _LEN) + _encode_varint(4 * count)
    body_len = len(head) + 4 * count
    prefix = _key(5, _LEN) + _encode_varint(body_len)

    def values() -> memoryview:
        array = np.ascontiguousarray(make(), dtype="<f4")
        if array.size != count:
            raise WireError(f"dequantised {name} has {array.size} values, expected {count}")
        return array.data.cast("B")

    return len(prefix) + body_len, [prefix + head, values]


@dataclass(frozen=True)
class Rewrite:
    """The rewritten model as pieces to write in order, and what was changed."""

    pieces: list[Piece]
    size: int
    gathered: list[str]
    dequantised: list[str]
    int8_matmuls: list[str] = field(default_factory=list)

    def to_bytes(self) -> bytes:
        return b"".join(_render(p) for p in self.pieces)

    def write_to(self, fd: int) -> None:
        import os

        for piece in self.pieces:
            view = memoryview(_render(piece))
            while view:
                written = os.write(fd, view)
                view = view[written:]


def _render(piece: Piece) -> bytes | memoryview:
    return piece() if callable(piece) else piece


def rewrite_dequantised_weights(model: bytes, *, int8_matmul: bool = False) -> Rewrite | None:
    """The model with its ``Cast``+``Mul`` dequantised weights rewritten, or ``None``.

    With ``int8_matmul``, a 2-D weight read only as the right-hand side of ``MatMul`` nodes
    stays int8 and each such ``MatMul`` multiplies in integers (:func:`_int8_matmul_nodes`):
    its left-hand side is quantised to 8 bits per row (per token), with that row's own
    scale, so a text's vector never depends on the other texts of its batch. About twice the
    texts per CPU second on the packaged MiniLM; the vectors move a little (cosine to the
    float32 ones about 0.997), so they belong to another model id.

    ``None`` when the model has no such weight, or cannot be read by this module (then it
    is loaded as it is, and onnxruntime reports anything wrong with it).
    """
    try:
        return _rewrite(memoryview(model), int8_matmul)
    except (WireError, UnicodeDecodeError, ValueError):
        return None


@dataclass
class _Graph:
    """The parts of a GraphProto the rewrite reads; every other field is kept as it was."""

    nodes: list[_Node] = field(default_factory=list)
    tensors: dict[str, _Tensor] = field(default_factory=dict)
    kept_fields: list[memoryview] = field(default_factory=list)
    inputs: set[str] = field(default_factory=set)
    outputs: set[str] = field(default_factory=set)


@dataclass
class _Plan:
    """What the rewrite changes: nodes dropped or replaced, initialisers removed or added."""

    dropped: set[int] = field(default_factory=set)
    replaced: dict[int, bytes] = field(default_factory=dict)
    removed_tensors: set[str] = field(default_factory=set)
    added: list[tuple[int, list[Piece]]] = field(default_factory=list)
    gathered: list[str] = field(default_factory=list)
    dequantised: list[str] = field(default_factory=list)
    #: MatMul nodes to run in int8: node id -> (the node, its int8 weight, the weight's scale)
    int8_matmuls: dict[int, tuple[_Node, str, str]] = field(default_factory=dict)
    int8_weights: list[str] = field(default_factory=list)


def _rewrite(model: memoryview, int8_matmul: bool) -> Rewrite | None:
    graphs = [
        (value, encoded) for number, kind, value, encoded in _fields(model) if number == 7 and kind == _LEN
    ]
    if len(graphs) != 1:
        return None
    graph_bytes = graphs[0][0]
    assert isinstance(graph_bytes, memoryview)
    graph = _read_graph(graph_bytes)
    if any(node.has_subgraph for node in graph.nodes):
        return None
    plan = _plan_rewrite(graph, int8_matmul)
    if not plan.dropped:
        return None
    if plan.int8_matmuls:
        _plan_int8_matmuls(graph, plan, _default_opset(model))
    return _assemble(model, graph, plan)


def _read_graph(value: memoryview) -> _Graph:
    graph = _Graph()
    for number, _, item, encoded in _fields(value):
        if number == 1 and isinstance(item, memoryview):
            graph.nodes.append(_read_node(encoded, item))
        elif number == 5 and isinstance(item, memoryview):
            tensor = _read_tensor(encoded, item)
            graph.tensors[tensor.name] = tensor
        else:
            if number in (11, 12) and isinstance(item, memoryview):  # graph inputs, outputs: ValueInfoProto
                named = {_text(v) for n, _, v, _ in _fields(item) if n == 1}
                (graph.inputs if number == 11 else graph.outputs).update(named)
            graph.kept_fields.append(encoded)
    return graph


def _plan_rewrite(graph: _Graph, int8_matmul: bool) -> _Plan:
    """For each Cast+Mul dequantised weight: its Gather picks int8 rows, its MatMuls multiply in
    int8 (``int8_matmul``), or it becomes float32 here."""
    nodes, tensors = graph.nodes, graph.tensors
    readers = Counter(name for node in nodes for name in node.inputs)
    producer = {out: node for node in nodes for out in node.outputs}
    users: dict[str, list[_Node]] = {}
    for node in nodes:
        for name in node.inputs:
            users.setdefault(name, []).append(node)
    plan = _Plan()
    for mul in nodes:
        found = _dequant_pattern(mul, producer, tensors, readers, graph.outputs | graph.inputs)
        if found is None:
            continue
        cast, q, scale = found
        weight = mul.outputs[0]
        consumers = users.get(weight, [])
        q_rows = q.dims[0] if q.dims else 0
        scale_rows = scale.dims[0] if scale.dims else 1
        per_row = (
            len(scale.dims) == len(q.dims) and scale_rows == q_rows and all(d == 1 for d in scale.dims[1:])
        )
        gather = consumers[0] if len(consumers) == 1 else None
        if gather is not None and _gathers_rows(gather, weight, q, scale, per_row):
            plan.replaced[id(gather)] = _gather_int8_rows(gather, weight, q, scale, per_row and q_rows != 1)
            plan.dropped.update((id(cast), id(mul)))
            plan.gathered.append(weight)
        elif int8_matmul and _multiplies_as_int8(consumers, weight, q, scale):
            plan.int8_matmuls.update({id(node): (node, q.name, scale.name) for node in consumers})
            plan.dropped.update((id(cast), id(mul)))
            plan.int8_weights.append(weight)
        else:
            q_values, s_values = _array(q, np.int8), _array(scale, np.float32)
            shape = list(np.broadcast_shapes(tuple(q.dims), tuple(scale.dims)))
            if shape != q.dims:
                continue

            def make(q_values: np.ndarray = q_values, s_values: np.ndarray = s_values) -> np.ndarray:
                weights: np.ndarray = (
                    q_values.astype(np.float32) * s_values
                )  # onnxruntime's Cast then Mul, in float32
                return weights

            plan.added.append(_float_initialiser(weight, shape, make))
            plan.dropped.update((id(cast), id(mul)))
            plan.removed_tensors.update((q.name, scale.name))
            plan.dequantised.append(weight)
    return plan


def _multiplies_as_int8(consumers: list[_Node], weight: str, q: _Tensor, scale: _Tensor) -> bool:
    """Whether every reader of the 2-D ``weight`` is a ``MatMul`` taking it as its right-hand side,
    and its scale is one per output column (or one in all), so the scale can follow the product."""
    if len(q.dims) != 2 or not consumers:
        return False
    scale_count = int(np.prod(scale.dims)) if scale.dims else 1
    per_column = scale_count == q.dims[1] and all(d == 1 for d in scale.dims[:-1])
    return (scale_count == 1 or per_column) and all(
        node.op_type == "MatMul" and node.domain in ("", "ai.onnx") and node.inputs[1:] == [weight]
        for node in consumers
    )


def _plan_int8_matmuls(graph: _Graph, plan: _Plan, opset: int) -> None:
    """Replace the planned MatMuls in graph order; each left-hand side is quantised once, before the
    first MatMul that reads it (the query, key and value projections share one)."""
    constants = {
        "veramem__q_eps": (_FLOAT, [], np.float32(1e-12).tobytes()),
        "veramem__q_step": (_FLOAT, [], np.float32(1 / 127).tobytes()),
        "veramem__q_shift": (_FLOAT, [], np.float32(128).tobytes()),
        "veramem__q_zero": (_UINT8, [], np.uint8(128).tobytes()),
        "veramem__q_axes": (_INT64, [1], np.int64(-1).tobytes()),
    }
    plan.added.extend(
        _raw_initialiser(name, kind, dims, raw) for name, (kind, dims, raw) in constants.items()
    )
    quantised: dict[str, tuple[str, str]] = {}
    for node in graph.nodes:
        planned = plan.int8_matmuls.get(id(node))
        if planned is None:
            continue
        _, q_name, scale_name = planned
        lhs = node.inputs[0]
        parts = b""
        if lhs not in quantised:
            quantised[lhs], parts = _quantise_rows(lhs, f"veramem__q{len(quantised)}", opset)
        plan.replaced[id(node)] = parts + _int8_product(quantised[lhs], q_name, scale_name, node.outputs[0])


def _quantise_rows(lhs: str, prefix: str, opset: int) -> tuple[tuple[str, str], bytes]:
    """Nodes quantising ``lhs`` to uint8 (zero point 128) per row: (quantised, row scales), nodes.

    Each row's scale is its largest magnitude over 127 (at least 1e-12 / 127), so every row
    uses the whole 8-bit range and a row (a token) depends on no other.

    Measured against cheaper-looking forms (LoCoMo lines, alternating, one run): a per-axis
    ``QuantizeLinear`` on the rows flattened to 2-D gives the same bits (onnxruntime divides by
    the scale too) but was 0.94-0.98 times as fast, because without a memory arena its buffers
    cost more page faults (1.08-1.13 with the arena, which the embedder does not use); the
    largest magnitude as ``max(ReduceMax, -ReduceMin)`` instead of ``Abs`` then ``ReduceMax``
    was no faster (1.00)."""
    n = {key: f"{prefix}_{key}" for key in ("abs", "max", "floor", "scale", "div", "round", "shift", "q")}
    if opset >= _REDUCE_AXES_INPUT_OPSET:
        reduce = _encode_node(
            "ReduceMax", [n["abs"], "veramem__q_axes"], [n["max"]], n["max"], {"keepdims": 1}
        )
    else:
        reduce = _encode_node("ReduceMax", [n["abs"]], [n["max"]], n["max"], {"keepdims": 1}, {"axes": [-1]})
    nodes = [
        _encode_node("Abs", [lhs], [n["abs"]], n["abs"]),
        reduce,
        _encode_node("Max", [n["max"], "veramem__q_eps"], [n["floor"]], n["floor"]),
        _encode_node("Mul", [n["floor"], "veramem__q_step"], [n["scale"]], n["scale"]),
        _encode_node("Div", [lhs, n["scale"]], [n["div"]], n["div"]),
        _encode_node("Round", [n["div"]], [n["round"]], n["round"]),
        _encode_node("Add", [n["round"], "veramem__q_shift"], [n["shift"]], n["shift"]),
        _encode_node("Cast", [n["shift"]], [n["q"]], n["q"], {"to": _UINT8}),
    ]
    return (n["q"], n["scale"]), b"".join(nodes)


def _int8_product(lhs: tuple[str, str], q_name: str, scale_name: str, output: str) -> bytes:
    """``output`` = (quantised rows × int8 weight) in int32, back to float32 by the row and column scales."""
    (rows, row_scale), prefix = lhs, f"{output}__int8"
    return b"".join(
        (
            _encode_node(
                "MatMulInteger", [rows, q_name, "veramem__q_zero"], [f"{prefix}_i32"], f"{prefix}_i32"
            ),
            _encode_node("Cast", [f"{prefix}_i32"], [f"{prefix}_f"], f"{prefix}_f", {"to": _FLOAT}),
            _encode_node("Mul", [f"{prefix}_f", row_scale], [f"{prefix}_rows"], f"{prefix}_rows"),
            _encode_node("Mul", [f"{prefix}_rows", scale_name], [output], f"{prefix}_out"),
        )
    )


def _default_opset(model: memoryview) -> int:
    """The version of the default operator set the model imports (``ModelProto.opset_import``)."""
    for number, _, value, _ in _fields(model):
        if number == 8 and isinstance(value, memoryview):
            domain, version = "", 0
            for field_number, _, item, _ in _fields(value):
                if field_number == 1:
                    domain = _text(item)
                elif field_number == 2 and isinstance(item, int):
                    version = item
            if domain in ("", "ai.onnx"):
                return version
    return 0


def _gathers_rows(gather: _Node, weight: str, q: _Tensor, scale: _Tensor, per_row: bool) -> bool:
    """Whether ``gather`` (the weight's only reader) picks whole rows of it with a scale that follows."""
    return (
        gather.op_type == "Gather"
        and gather.domain in ("", "ai.onnx")
        and gather.inputs[0] == weight
        and gather.ints.get("axis", 0) == 0
        and len(q.dims) >= 1
        and (per_row or scale.dims in ([], [1]) or all(d == 1 for d in scale.dims))
    )


def _gather_int8_rows(gather: _Node, weight: str, q: _Tensor, scale: _Tensor, scale_per_row: bool) -> bytes:
    """The nodes that replace ``gather``: pick the int8 rows (and their scales), then Cast and Mul them."""
    ids = gather.inputs[1]
    picked_q, picked_s, as_float = (f"{weight}__rows_q", f"{weight}__rows_scale", f"{weight}__rows_f")
    parts = [
        _encode_node("Gather", [q.name, ids], [picked_q], f"{weight}__gather_q", {"axis": 0}),
        _encode_node("Cast", [picked_q], [as_float], f"{weight}__cast", {"to": _FLOAT}),
    ]
    if scale_per_row:
        parts.append(
            _encode_node("Gather", [scale.name, ids], [picked_s], f"{weight}__gather_scale", {"axis": 0})
        )
        parts.append(_encode_node("Mul", [as_float, picked_s], gather.outputs, f"{weight}__mul"))
    else:
        parts.append(_encode_node("Mul", [as_float, scale.name], gather.outputs, f"{weight}__mul"))
    return b"".join(parts)


def _assemble(model: memoryview, graph: _Graph, plan: _Plan) -> Rewrite:
    """The model's pieces with the graph rewritten as ``plan`` says (the float32 weights made when written)."""
    nodes, dropped, replaced = graph.nodes, plan.dropped, plan.replaced
    # An int8 or scale tensor still read elsewhere (a Gather rewrite reads them) is kept.
    still_read = {
        name for node in nodes if id(node) not in dropped and id(node) not in replaced for name in node.inputs
    }
    for parts_bytes in replaced.values():
        still_read.update(_node_inputs(parts_bytes))
    removed_tensors = plan.removed_tensors - (
        still_read | graph.inputs
    )  # an initialiser listed as an input stays

    body: list[Piece] = list(graph.kept_fields)
    for node in nodes:
        if id(node) in dropped:
            continue
        body.append(replaced.get(id(node), node.encoded))
    body.extend(t.encoded for name, t in graph.tensors.items() if name not in removed_tensors)
    size = sum(len(p) for p in body if not callable(p)) + sum(length for length, _ in plan.added)
    body.extend(piece for _, made in plan.added for piece in made)

    pieces: list[Piece] = []
    total = 0
    for number, _, _, encoded in _fields(model):
        if number == 7:
            head = _key(7, _LEN) + _encode_varint(size)
            pieces.append(head)
            pieces.extend(body)
            total += len(head) + size
        else:
            pieces.append(encoded)
            total += len(encoded)
    return Rewrite(pieces, total, plan.gathered, plan.dequantised, plan.int8_weights)


def _node_inputs(encoded_nodes: bytes) -> set[str]:
    names: set[str] = set()
    for _, _, value, _ in _fields(memoryview(encoded_nodes)):
        if isinstance(value, memoryview):
            names.update(_text(v) for n, _, v, _ in _fields(value) if n == 1)
    return names


def _dequant_pattern(
    mul: _Node,
    producer: dict[str, _Node],
    tensors: dict[str, _Tensor],
    readers: Counter[str],
    graph_outputs: set[str],
) -> tuple[_Node, _Tensor, _Tensor] | None:
    """(the Cast node, the int8 tensor, the scale tensor) when ``mul`` rebuilds a stored weight."""
    if (
        mul.op_type != "Mul"
        or mul.domain not in ("", "ai.onnx")
        or len(mul.inputs) != 2
        or len(mul.outputs) != 1
    ):
        return None
    if mul.outputs[0] in graph_outputs:
        return None
    cast = producer.get(mul.inputs[0])
    scale = tensors.get(mul.inputs[1])
    if cast is None or scale is None or cast.op_type != "Cast" or cast.domain not in ("", "ai.onnx"):
        return None
    if cast.ints.get("to") != _FLOAT or len(cast.inputs) != 1 or readers[cast.outputs[0]] != 1:
        return None
    if cast.outputs[0] in graph_outputs:
        return None
    q = tensors.get(cast.inputs[0])
    if q is None or q.data_type != _INT8 or q.raw is None or q.other_storage:
        return None
    if scale.data_type != _FLOAT or scale.raw is None or scale.other_storage:
        return None
    if len(scale.dims) > len(q.dims):
        return None
    count = int(np.prod(q.dims)) if q.dims else 1
    if len(q.raw) != count or len(scale.raw) != 4 * (int(np.prod(scale.dims)) if scale.dims else 1):
        return None
    return cast, q, scale
