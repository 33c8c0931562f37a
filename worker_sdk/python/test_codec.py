"""Tests of the Python worker codec's kernel-path field (cvmcheck_worker.py, FLAG_PATHS): the hello's
declared paths and a reply's path ids round-trip, malformed fields are protocol errors, a worker
without the flag encodes exactly as before, and serve() reports the paths hit_path() names.
Run by ctest python_worker_codec:  /usr/bin/python3 worker_sdk/python/test_codec.py
"""

import io
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import cvmcheck_worker as cw  # noqa: E402


def payload(frame: bytes) -> bytes:
    return frame[4:]


DECLARED = [cw.PathDecl("abs.negative", "abs", "an input below zero"),
            cw.PathDecl("clip.both", "clip,cvm_clip", ""),
            cw.PathDecl("x", "", "\u00e9t\u00e9 \u2192 utf-8")]


class HelloPaths(unittest.TestCase):
    def test_declared_paths_round_trip(self):
        frame = cw.encode_hello("impl", cw.FLAG_PATHS | cw.FLAG_REPORTS_RULES, ["abs"], DECLARED)
        version, name, flags, ops, paths = cw.decode_hello(payload(frame), with_paths=True)
        self.assertEqual((version, name, flags, ops), (1, "impl", 5, ["abs"]))
        self.assertEqual(paths, DECLARED)
        self.assertEqual(cw.decode_hello(payload(frame))[:4], (1, "impl", 5, ["abs"]))

    def test_no_paths_declared_is_an_empty_list(self):
        frame = cw.encode_hello("impl", cw.FLAG_PATHS, [], [])
        self.assertEqual(cw.decode_hello(payload(frame), with_paths=True)[4], [])
        self.assertEqual(payload(frame)[-4:], b"\0\0\0\0")

    def test_without_the_flag_the_hello_is_as_before(self):
        old = payload(cw.encode_hello("impl", 0, ["abs"]))
        self.assertEqual(payload(cw.encode_hello("impl", 0, ["abs"], DECLARED)), old)
        self.assertEqual(len(old), 1 + 4 + 8 + 4 + 4 + 4 + 3)
        self.assertEqual(cw.decode_hello(old), (1, "impl", 0, ["abs"]))

    def test_malformed_declarations_are_refused(self):
        base = payload(cw.encode_hello("i", cw.FLAG_PATHS, [], []))[:-4]
        too_many = base + struct.pack("<I", cw.MAX_PATHS + 1)
        with self.assertRaisesRegex(cw.ProtocolError, "hello paths count 513 over the limit"):
            cw.decode_hello(too_many)
        empty_id = payload(cw.encode_hello("i", cw.FLAG_PATHS, [], [cw.PathDecl("", "a", "")]))
        with self.assertRaisesRegex(cw.ProtocolError, "hello path id of 0 bytes"):
            cw.decode_hello(empty_id)
        long_text = cw.PathDecl("a", "", "d" * (cw.MAX_PATH_TEXT_BYTES + 1))
        with self.assertRaisesRegex(cw.ProtocolError, "hello path description of 4097 bytes"):
            cw.decode_hello(payload(cw.encode_hello("i", cw.FLAG_PATHS, [], [long_text])))
        whole = payload(cw.encode_hello("i", cw.FLAG_PATHS, [], DECLARED))
        for n in range(len(base), len(whole)):
            with self.assertRaisesRegex(cw.ProtocolError, "message ends inside the"):
                cw.decode_hello(whole[:n])


class ReplyPaths(unittest.TestCase):
    def test_ok_and_error_replies_carry_their_paths(self):
        ok = cw.encode_reply(7, [cw.Tensor(np.array([1, -2], dtype=np.int32), 4)],
                             paths=["abs.negative", "undeclared.id"])
        back = cw.decode_reply(payload(ok), cw.FLAG_PATHS)
        self.assertEqual((back.id, back.outcome, back.paths), (7, 0, ["abs.negative", "undeclared.id"]))
        self.assertEqual(back.outputs[0].array.tolist(), [1, -2])
        err = cw.encode_reply(8, error=1, message="bad", rule="abs.x", paths=["abs.negative"])
        back = cw.decode_reply(payload(err), cw.FLAG_PATHS)
        self.assertEqual((back.outcome, back.message, back.rule, back.paths),
                         (1, "bad", "abs.x", ["abs.negative"]))
        none = cw.decode_reply(payload(cw.encode_reply(9, error=2, message="m", paths=[])),
                               cw.FLAG_PATHS)
        self.assertEqual(none.paths, [])

    def test_without_the_flag_the_reply_is_as_before(self):
        old = cw.encode_reply(3, error=1, message="bad", rule="r")
        self.assertEqual(cw.decode_reply(payload(old)).paths, None)
        with self.assertRaisesRegex(cw.ProtocolError, "message ends inside the reply paths"):
            cw.decode_reply(payload(old), cw.FLAG_PATHS)  # the field is not optional with the flag
        with self.assertRaisesRegex(cw.ProtocolError, "4 trailing bytes after the reply"):
            cw.decode_reply(payload(cw.encode_reply(3, error=1, message="bad", rule="r", paths=[])))

    def test_malformed_path_lists_are_refused(self):
        base = payload(cw.encode_reply(1, error=1, message="m", paths=[]))[:-4]
        with self.assertRaisesRegex(cw.ProtocolError, "reply paths count 513 over the limit"):
            cw.decode_reply(base + struct.pack("<I", 513), cw.FLAG_PATHS)
        with self.assertRaisesRegex(cw.ProtocolError, "reply path id of 0 bytes"):
            cw.decode_reply(payload(cw.encode_reply(1, error=1, paths=[""])), cw.FLAG_PATHS)
        with self.assertRaisesRegex(cw.ProtocolError, "reply path id of 4097 bytes"):
            cw.decode_reply(payload(cw.encode_reply(1, error=1, paths=["p" * 4097])), cw.FLAG_PATHS)


def served(calls, paths, handler):
    """Runs serve() over in-memory streams: the harness's hello, then `calls`; returns the
    status and the frames it wrote."""
    frames = [cw.encode_hello("", 0, [])]
    for k, op in enumerate(calls):  # no attributes (form 0, none), no inputs
        body = bytes([cw._CALL]) + struct.pack("<Q", k + 1) + cw._str(op) + b"\0" + bytes(8)
        frames.append(struct.pack("<I", len(body)) + body)
    out = io.BytesIO()
    status = cw.serve("t", ["abs"], handler, stdin=io.BytesIO(b"".join(frames)), stdout=out,
                      paths=paths)
    data, written = out.getvalue(), []
    while data:
        (n,) = struct.unpack_from("<I", data)
        written.append(data[4:4 + n])
        data = data[4 + n:]
    return status, written


def handler(call):
    cw.hit_path("p.always")
    if call.op == "logic":
        cw.hit_path("p.logic")
        raise cw.LogicError("no", rule="r")
    if call.op == "crash":
        raise KeyError("k")
    cw.hit_path("p.always")  # reported once
    return [cw.Tensor(np.array([1], dtype=np.int32), 2)]


class ServePaths(unittest.TestCase):
    def test_serve_declares_and_reports_each_calls_paths(self):
        status, written = served(["ok", "logic", "crash"], DECLARED[:1], handler)
        self.assertEqual(status, 0)
        hello = cw.decode_hello(written[0], with_paths=True)
        self.assertEqual(hello[2], cw.FLAG_PATHS)
        self.assertEqual(hello[4], DECLARED[:1])
        replies = [cw.decode_reply(w, hello[2]) for w in written[1:]]
        self.assertEqual([r.outcome for r in replies], [0, 1, 2])
        self.assertEqual([r.paths for r in replies],
                         [["p.always"], ["p.always", "p.logic"], ["p.always"]])

    def test_a_worker_without_paths_sends_none(self):
        status, written = served(["ok"], None, handler)
        self.assertEqual(status, 0)
        self.assertEqual(cw.decode_hello(written[0])[2], 0)
        self.assertIsNone(cw.decode_reply(written[1]).paths)  # no trailing field


if __name__ == "__main__":
    unittest.main()
