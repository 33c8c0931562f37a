#!/usr/bin/env python3
"""Runs model folders (graph.json, params, data.npy) through a worker that runs whole models
(protocol flag kFlagGraphs: a graph request G, a model reply M; docs/backend-protocol.md), with
numpy alone, and prints each model reply as one JSON line: outcome, message, node blamed, every
entry's precision and values, the packed output.

    run_model.py --worker "build-cvm-runtime/bin/cvm-runtime-worker --device formal" DIR...
    run_model.py --worker "..." --check original.json DIR...

--check NAME compares each reply with DIR/NAME (any of the keys outcome, node, packed,
type_size, message_contains) and exits 1 on a difference: the repros of the original's
graph-level bugs (docs/conformance/cvm-runtime-repros/graph-*) record in original.json what the
original answers and in expected.json what the contract asks.
"""
import argparse
import json
import os
import shlex
import struct
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("adapters/cvm-runtime/run_model.py: needs numpy, which this python3 ({}) lacks: apt-get install python3-numpy, "
             "or pip install numpy".format(sys.executable))

OUTCOMES = {0: "ok", 1: "logic_error", 2: "runtime_error"}


def frame(payload):
    return struct.pack("<I", len(payload)) + payload


def text(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def tensor(a, precision):
    a = np.ascontiguousarray(a)
    int8 = a.dtype == np.int8
    data = a.astype("<i1" if int8 else "<i4").tobytes()
    head = bytes([0 if int8 else 1, a.ndim]) + b"".join(struct.pack("<q", d) for d in a.shape)
    return head + struct.pack("<i", precision) + struct.pack("<Q", len(data)) + data


class Reader:
    def __init__(self, payload):
        self.b, self.p = payload, 0

    def take(self, n):
        if self.p + n > len(self.b):
            raise ValueError("model reply ends early")
        v = self.b[self.p:self.p + n]
        self.p += n
        return v

    def get(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def text(self):
        return self.take(self.get("<I")).decode(errors="replace")

    def tensor(self):
        dtype, ndim = self.get("<B"), self.get("<B")
        shape = [self.get("<q") for _ in range(ndim)]
        precision, nbytes = self.get("<i"), self.get("<Q")
        values = np.frombuffer(self.take(nbytes), dtype="<i1" if dtype == 0 else "<i4")
        return {"shape": shape, "precision": precision, "values": values.tolist()}


def read_frame(stream):
    head = stream.read(4)
    if len(head) < 4:
        raise RuntimeError("the worker ended (a crash of the model?)")
    return stream.read(struct.unpack("<I", head)[0])


def decode_model_reply(payload):
    r = Reader(payload)
    if r.take(1) != b"M":
        raise ValueError("not a model reply")
    out = {"id": r.get("<Q"), "outcome": OUTCOMES.get(r.get("<B"), "?"), "message": r.text(),
           "rule": r.text(), "node": r.get("<i")}
    out["entries"] = [r.tensor() if r.get("<B") else None for _ in range(r.get("<I"))]
    if r.get("<B"):
        type_size, nbytes = r.get("<I"), r.get("<Q")
        out["type_size"] = type_size
        out["packed"] = np.frombuffer(r.take(nbytes), dtype="<i1" if type_size == 1 else "<i4").tolist()
    return out


def graph_request(index, folder):
    with open(os.path.join(folder, "graph.json")) as f:
        graph = f.read()
    with open(os.path.join(folder, "params"), "rb") as f:
        params = f.read()
    data = np.load(os.path.join(folder, "data.npy"))
    precision = json.loads(graph)["attrs"]["precision"][1][0]  # the data variable is node 0
    msg = b"G" + struct.pack("<Q", index) + text(graph) + struct.pack("<Q", len(params)) + params
    return msg + struct.pack("<I", 1) + text("data") + tensor(data, precision)


def differences(reply, want):
    out = []
    for key in ("outcome", "node", "packed", "type_size"):
        if key in want and reply.get(key) != want[key]:
            out.append("%s: %r, recorded %r" % (key, reply.get(key), want[key]))
    if "message_contains" in want and want["message_contains"] not in reply["message"]:
        out.append("message %r lacks %r" % (reply["message"], want["message_contains"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", required=True)
    ap.add_argument("--check", help="compare with this file of each folder")
    ap.add_argument("folders", nargs="+")
    args = ap.parse_args()
    proc = subprocess.Popen(shlex.split(args.worker), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    hello = b"H" + struct.pack("<I", 1) + text("run_model.py") + struct.pack("<II", 0, 0)
    proc.stdin.write(frame(hello))
    proc.stdin.flush()
    theirs = Reader(read_frame(proc.stdout))
    theirs.take(1)
    theirs.get("<I")
    theirs.text()
    if not theirs.get("<I") & 8:
        sys.exit("run_model.py: the worker does not run whole models (no kFlagGraphs)")
    status = 0
    for i, folder in enumerate(args.folders):
        proc.stdin.write(frame(graph_request(i, folder)))
        proc.stdin.flush()
        reply = decode_model_reply(read_frame(proc.stdout))
        reply["folder"] = folder
        print(json.dumps(reply))
        if args.check:
            with open(os.path.join(folder, args.check)) as f:
                diff = differences(reply, json.load(f))
            for d in diff:
                print("DIFF %s: %s" % (folder, d))
            status |= 1 if diff else 0
    proc.stdin.write(frame(b"Q"))
    proc.stdin.close()
    proc.wait()
    return status


if __name__ == "__main__":
    sys.exit(main())
