"""cvmcheck worker protocol, version 1, for workers written in Python (numpy only, Python 3.9+).

The same wire format as worker_sdk/include/cvmcheck_worker.hpp, which is the definition: frames
are a little-endian u32 payload length, then the payload, whose first byte is the message type.
An implementation under test becomes a cvmcheck backend by supplying one function:

    import cvmcheck_worker as cw

    def handle(call):               # call.op, call.attrs (dict of str), call.inputs
        x = call.inputs[0]          # cw.Tensor: x.array (read-only numpy array), x.precision
        if x.precision > 30:
            raise cw.LogicError("precision too large", rule="abs.precision")
        return [cw.Tensor(np.abs(x.array).astype(np.int32), x.precision)]

    cw.serve("my-impl", ["abs"], handle)

A LogicError (a bad model or input) becomes a logic_error reply; any other exception a
runtime_error reply. While serve() runs, sys.stdout is the log (stderr): a stray print cannot
corrupt a frame.

Kernel paths (optional): serve(..., paths=[PathDecl("abs.negative", "abs", "a negative input"),
...]) declares them (FLAG_PATHS), and hit_path("abs.negative") during a call reports that the
call took it (its reply names every path hit since the call began, a failed call's too).
"""

import struct
import sys
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

try:
    import numpy as np
except ImportError:
    sys.exit("cvmcheck_worker (worker_sdk/python): needs numpy, which this python3 ({}) lacks: apt-get install python3-numpy, "
             "or pip install numpy".format(sys.executable))

PROTOCOL_VERSION = 1
MAX_FRAME_BYTES = 1 << 30
MAX_DIMS = 16
MAX_LIST_LENGTH = 1 << 16
FLAG_REPORTS_RULES = 1  # error replies carry the contract's rule id
FLAG_NO_PRECISION = 2  # outputs carry no precision: the harness does not compare it
FLAG_PATHS = 4  # the hello declares kernel paths and every reply names the paths its call took
MAX_PATHS = 512  # paths declared in a hello, or named in one reply
MAX_PATH_TEXT_BYTES = 4096  # a path's id (never empty), operator list or description

_HELLO, _CALL, _REPLY, _BYE = b"H"[0], b"C"[0], b"R"[0], b"Q"[0]
_OK, _LOGIC_ERROR, _RUNTIME_ERROR = 0, 1, 2
_DTYPES = {0: np.dtype("|i1"), 1: np.dtype("<i4")}  # dtype code -> numpy dtype


class ProtocolError(Exception):
    """A malformed or unexpected message: the stream cannot be trusted any further."""


class LogicError(Exception):
    """Raised by a handler for a bad model or input; `rule` may name the contract's rule id."""

    def __init__(self, message: str, rule: str = ""):
        super().__init__(message)
        self.rule = rule


class Tensor(NamedTuple):
    """A dense row-major int8 or int32 array with its precision. Inputs are read-only views of
    the received bytes (copy one to modify it)."""
    array: np.ndarray
    precision: int


class Call(NamedTuple):
    id: int
    op: str                      # as the case names it: canonical, an alias, or unknown
    attrs: Optional[Dict[str, str]]  # the string attributes; None when they are not that
    attrs_json: Optional[str]    # the JSON text when `attrs` is None (a negative case)
    inputs: List[Tensor]


class PathDecl(NamedTuple):
    """A kernel path a worker declares: its id, the operators whose calls can take it (comma-
    separated canonical names) and one line on what a call must be like to take it."""
    id: str
    ops: str
    description: str


class Reply(NamedTuple):
    """A decoded reply (the harness's side, for tests and drivers)."""
    id: int
    outcome: int                 # 0 ok, 1 logic_error, 2 runtime_error
    outputs: List[Tensor]
    message: str
    rule: str
    paths: Optional[List[str]]   # None when the hello had no FLAG_PATHS


class _Reader:
    """Bounds-checked decoding of one payload; errors name the field, as the C++ Reader's."""

    def __init__(self, payload: bytes):
        self.buf = payload
        self.pos = 0

    def take(self, n: int, what: str) -> int:
        if n > len(self.buf) - self.pos:
            raise ProtocolError(f"message ends inside the {what} ({n} bytes wanted, "
                                f"{len(self.buf) - self.pos} left)")
        start = self.pos
        self.pos += n
        return start

    def unpack(self, fmt: str, what: str):
        return struct.unpack_from(fmt, self.buf, self.take(struct.calcsize(fmt), what))[0]

    def str(self, what: str) -> str:
        n = self.unpack("<I", what)
        start = self.take(n, what)
        return self.buf[start:start + n].decode("utf-8", errors="replace")

    def count(self, what: str, limit: int = MAX_LIST_LENGTH) -> int:
        n = self.unpack("<I", what)
        if n > limit:
            raise ProtocolError(f"{what} count {n} over the limit")
        return n

    def path_text(self, what: str, is_id: bool) -> str:
        n = self.unpack("<I", what)
        if n > MAX_PATH_TEXT_BYTES or (is_id and n == 0):
            raise ProtocolError(f"{what} of {n} bytes ({1 if is_id else 0}..{MAX_PATH_TEXT_BYTES})")
        start = self.take(n, what)
        return self.buf[start:start + n].decode("utf-8", errors="replace")

    def tensor(self, what: str) -> Tensor:
        code = self.unpack("<B", what)
        if code not in _DTYPES:
            raise ProtocolError(f"{what}: unknown dtype code {code}")
        ndim = self.unpack("<B", what)
        if ndim > MAX_DIMS:
            raise ProtocolError(f"{what}: {ndim} dims")
        shape = []
        elements = 1
        for _ in range(ndim):
            d = self.unpack("<q", what)
            if d < 0 or d > 1 << 31:
                raise ProtocolError(f"{what}: dim {d} out of range")
            shape.append(d)
            elements *= d
            if elements > 1 << 31:
                raise ProtocolError(f"{what}: too many elements")
        precision = self.unpack("<i", what)
        nbytes = self.unpack("<Q", what)
        dtype = _DTYPES[code]
        if nbytes != elements * dtype.itemsize:
            raise ProtocolError(f"{what}: {nbytes} data bytes for {elements} elements of "
                                f"{'int8' if code == 0 else 'int32'}")
        start = self.take(nbytes, what)
        array = np.frombuffer(self.buf, dtype=dtype, count=elements, offset=start)
        return Tensor(array.reshape(shape), precision)

    def finish(self, what: str) -> None:
        if self.pos != len(self.buf):
            raise ProtocolError(f"{len(self.buf) - self.pos} trailing bytes after the {what}")


def _expect_type(r: _Reader, kind: int) -> None:
    got = r.unpack("<B", "message type")
    if got != kind:
        raise ProtocolError(f"message type {got!r} where {chr(kind)!r} was expected")


def decode_hello(payload: bytes, with_paths: bool = False):
    """(version, name, flags, ops) of a hello; with_paths: (version, name, flags, ops, paths),
    paths the declared PathDecls (empty without FLAG_PATHS)."""
    r = _Reader(payload)
    _expect_type(r, _HELLO)
    version = r.unpack("<I", "hello version")
    name = r.str("hello name")
    flags = r.unpack("<I", "hello flags")
    ops = [r.str("hello operator name") for _ in range(r.count("hello operators"))]
    paths = []
    if flags & FLAG_PATHS:
        for _ in range(r.count("hello paths", MAX_PATHS)):
            paths.append(PathDecl(r.path_text("hello path id", True),
                                  r.path_text("hello path operators", False),
                                  r.path_text("hello path description", False)))
    r.finish("hello")
    return (version, name, flags, ops, paths) if with_paths else (version, name, flags, ops)


def decode_reply(payload: bytes, flags: int = 0) -> Reply:
    """A reply, with its paths when `flags` (the worker's hello flags) has FLAG_PATHS."""
    r = _Reader(payload)
    _expect_type(r, _REPLY)
    call_id = r.unpack("<Q", "reply call id")
    outcome = r.unpack("<B", "reply outcome")
    outputs, message, rule = [], "", ""
    if outcome == _OK:
        outputs = [r.tensor("output") for _ in range(r.count("outputs"))]
    elif outcome in (_LOGIC_ERROR, _RUNTIME_ERROR):
        message = r.str("error message")
        rule = r.str("error rule")
    else:
        raise ProtocolError(f"unknown outcome code {outcome}")
    paths = None
    if flags & FLAG_PATHS:
        paths = [r.path_text("reply path id", True) for _ in range(r.count("reply paths", MAX_PATHS))]
    r.finish("reply")
    return Reply(call_id, outcome, outputs, message, rule, paths)


def decode_call(payload: bytes) -> Call:
    r = _Reader(payload)
    _expect_type(r, _CALL)
    call_id = r.unpack("<Q", "call id")
    op = r.str("operator")
    form = r.unpack("<B", "attribute form")
    attrs, attrs_json = None, None
    if form == 0:
        attrs = {}
        for _ in range(r.count("attributes")):
            key = r.str("attribute name")
            attrs[key] = r.str("attribute value")
    elif form == 1:
        attrs_json = r.str("attribute JSON")
    else:
        raise ProtocolError(f"unknown attribute form {form}")
    inputs = [r.tensor("input") for _ in range(r.count("inputs"))]
    r.finish("call")
    return Call(call_id, op, attrs, attrs_json, inputs)


def _str(s: str) -> bytes:
    b = s.encode("utf-8", errors="replace")
    return struct.pack("<I", len(b)) + b


def encode_hello(name: str, flags: int, ops: Sequence[str],
                 paths: Optional[Sequence[PathDecl]] = None) -> bytes:
    """A hello; with FLAG_PATHS in `flags` it declares `paths` ((id, ops, description) each)."""
    parts = [bytes([_HELLO]), struct.pack("<I", PROTOCOL_VERSION), _str(name),
             struct.pack("<II", flags, len(ops))]
    parts += [_str(op) for op in ops]
    if flags & FLAG_PATHS:
        declared = list(paths or [])
        parts.append(struct.pack("<I", len(declared)))
        for path_id, path_ops, description in declared:
            parts += [_str(path_id), _str(path_ops), _str(description)]
    return _frame(parts)


def _output_array(t) -> Tuple[np.ndarray, int]:
    """A handler's output as a contiguous little-endian int8 or int32 array and its precision.
    Wider integer arrays (numpy's int64 sums) are narrowed to int32 when every value fits;
    anything else is the handler's bug (a TypeError: a runtime_error reply)."""
    array, precision = t
    array = np.asarray(array)
    if array.dtype.kind not in "iu":
        raise TypeError(f"output of dtype {array.dtype}; outputs are int32 (or int8)")
    if array.dtype.itemsize == 1 and array.dtype.kind == "i":
        return np.ascontiguousarray(array, dtype="|i1"), int(precision)
    if array.dtype != np.dtype("<i4"):
        if array.size and (array.min() < -(1 << 31) or array.max() > (1 << 31) - 1):
            raise TypeError(f"output of dtype {array.dtype} holds values outside int32")
    return np.ascontiguousarray(array, dtype="<i4"), int(precision)


def encode_reply(call_id: int, outputs=None, error: Optional[int] = None, message: str = "",
                 rule: str = "", paths: Optional[Sequence[str]] = None) -> bytes:
    """An ok reply with `outputs` (Tensors or (array, precision) pairs), or an error reply
    (error=_LOGIC_ERROR or _RUNTIME_ERROR) with its message and rule; ending with the ids of
    `paths` unless it is None (pass a list exactly when the hello had FLAG_PATHS)."""
    parts = [bytes([_REPLY]), struct.pack("<QB", call_id, _OK if error is None else error)]
    if error is not None:
        parts += [_str(message), _str(rule)]
    else:
        converted = [_output_array(t) for t in outputs]  # before any byte: a bad one raises
        parts.append(struct.pack("<I", len(converted)))
        for array, precision in converted:
            parts.append(struct.pack("<BB", 0 if array.dtype.itemsize == 1 else 1, array.ndim))
            parts.append(struct.pack(f"<{array.ndim}q", *array.shape))
            parts.append(struct.pack("<iQ", precision, array.nbytes))
            parts.append(array.tobytes())
    if paths is not None:
        parts.append(struct.pack("<I", len(paths)))
        parts += [_str(path_id) for path_id in paths]
    return _frame(parts)


_taken: List[str] = []  # the paths the running call took, in the order first hit


def hit_path(path_id: str) -> None:
    """Reports that the call being served took kernel path `path_id` (see serve's `paths`)."""
    if path_id not in _taken:
        _taken.append(path_id)


def _frame(parts: List[bytes]) -> bytes:
    payload = b"".join(parts)
    if len(payload) > MAX_FRAME_BYTES:
        raise ProtocolError("message over the frame limit")
    return struct.pack("<I", len(payload)) + payload


def _read_exact(stream, n: int) -> Optional[bytes]:
    data = stream.read(n)
    if not data:
        return None
    while len(data) < n:  # a pipe may hand over a frame in pieces
        more = stream.read(n - len(data))
        if not more:
            raise ProtocolError("stream ends inside a frame")
        data += more
    return data


def read_frame(stream) -> Optional[bytes]:
    """One frame's payload; None on a clean end of stream."""
    header = _read_exact(stream, 4)
    if header is None:
        return None
    (n,) = struct.unpack("<I", header)
    if n == 0 or n > MAX_FRAME_BYTES:
        raise ProtocolError(f"frame length {n} out of range")
    payload = _read_exact(stream, n)
    if payload is None:
        raise ProtocolError("stream ends inside a frame")
    return payload


def _answer(call: Call, handler, flags: int) -> bytes:
    """The reply to one call: the handler's outputs or its failure, and with FLAG_PATHS the
    paths it hit."""
    del _taken[:]
    try:
        outputs = handler(call)
        taken = list(_taken) if flags & FLAG_PATHS else None
        return encode_reply(call.id, outputs, paths=taken)
    except LogicError as e:
        taken = list(_taken) if flags & FLAG_PATHS else None
        return encode_reply(call.id, error=_LOGIC_ERROR, message=str(e), rule=e.rule, paths=taken)
    except Exception as e:  # the implementation failed: a runtime_error reply
        taken = list(_taken) if flags & FLAG_PATHS else None
        return encode_reply(call.id, error=_RUNTIME_ERROR, message=f"{type(e).__name__}: {e}",
                            paths=taken)


def serve(name: str, ops: Sequence[str], handler: Callable[[Call], Sequence], flags: int = 0,
          stdin=None, stdout=None, paths: Optional[Sequence[PathDecl]] = None) -> int:
    """Answers the harness's hello, then one reply per call until bye or end of input. Returns
    the exit status (0 on a clean stop, 3 on a protocol version mismatch, 4 on a protocol
    error), as the C++ serve() does: use it as `sys.exit(serve(...))`. With `paths` (a list,
    maybe empty) the hello declares them and each reply names the paths hit_path() reported
    during its call."""
    if paths is not None:
        flags |= FLAG_PATHS
    instream = stdin if stdin is not None else sys.stdin.buffer
    outstream = stdout if stdout is not None else sys.stdout.buffer
    if stdout is None:
        sys.stdout = sys.stderr  # prints go to the log, never into a frame
    try:
        payload = read_frame(instream)
        if payload is None:
            return 0
        version = decode_hello(payload)[0]
        outstream.write(encode_hello(name, flags, ops, paths))
        outstream.flush()
        if version != PROTOCOL_VERSION:
            return 3  # the harness reports the mismatch
        while True:
            payload = read_frame(instream)
            if payload is None or payload[0] == _BYE:
                return 0
            call = decode_call(payload)
            reply = _answer(call, handler, flags)
            outstream.write(reply)
            outstream.flush()
    except (ProtocolError, BrokenPipeError) as e:
        print(f"cvmcheck_worker: {e}", file=sys.stderr)
        return 4
