'use strict';
// cvmcheck worker protocol, version 1, for workers written in JavaScript (Node.js 18+, no
// dependencies). The same wire format as worker_sdk/include/cvmcheck_worker.hpp, which is the
// definition (docs/backend-protocol.md): frames are a little-endian u32 payload length, then the
// payload, whose first byte is the message type. An implementation under test becomes a cvmcheck
// backend by supplying one function, which may be async:
//
//   const cw = require('./cvmcheck_worker');
//   function handle(call) {            // call.op, call.attrs (object of strings), call.inputs
//     const x = call.inputs[0];        // {dtype: 'int8'|'int32', shape, precision, data}
//     if (x.precision > 30) throw new cw.LogicError('precision too large', 'abs.precision');
//     return [cw.tensor('int32', x.shape, Int32Array.from(x.data, Math.abs), x.precision)];
//   }
//   cw.serve('my-impl', ['abs'], handle).then((status) => process.exit(status));
//
// A LogicError (a bad model or input) becomes a logic_error reply; any other exception a
// runtime_error reply. While serve() runs, console.log and process.stdout.write go to stderr
// (the log): a stray print cannot corrupt a frame.
//
// Kernel paths (optional): serve(name, ops, handle, flags, undefined, undefined, paths), paths a
// list of {id, ops, description} (ops a comma-separated operator list), declares them
// (FLAG_PATHS), and cw.hitPath('abs.negative') during a call reports that the call took it (its
// reply names every path hit since the call began, a failed call's too).

const PROTOCOL_VERSION = 1;
const MAX_FRAME_BYTES = 2 ** 30;
const MAX_DIMS = 16;
const MAX_LIST_LENGTH = 2 ** 16;
const FLAG_REPORTS_RULES = 1;  // error replies carry the contract's rule id
const FLAG_NO_PRECISION = 2;   // output precisions are not reported: the harness ignores them
const FLAG_PATHS = 4;          // the hello declares kernel paths; every reply names its call's
const MAX_PATHS = 512;         // paths declared in a hello, or named in one reply
const MAX_PATH_TEXT_BYTES = 4096;  // a path's id (never empty), operator list or description

const HELLO = 0x48, CALL = 0x43, REPLY = 0x52, BYE = 0x51;  // 'H', 'C', 'R', 'Q'
const OK = 0, LOGIC_ERROR = 1, RUNTIME_ERROR = 2;
const DTYPES = { 0: 'int8', 1: 'int32' };

class ProtocolError extends Error {}

class LogicError extends Error {
  constructor(message, rule = '') {
    super(message);
    this.rule = rule;
  }
}

// A dense row-major tensor: dtype 'int8' or 'int32', shape (array of numbers), precision, and
// data (an Int8Array or Int32Array of shape's product elements).
function tensor(dtype, shape, data, precision) {
  return { dtype, shape: Array.from(shape), data, precision };
}

function elementsOf(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

class Reader {
  constructor(payload) {
    this.buf = payload;
    this.view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
    this.pos = 0;
  }

  take(n, what) {
    if (n > this.buf.length - this.pos) {
      throw new ProtocolError(`message ends inside the ${what} (${n} bytes wanted, ` +
                              `${this.buf.length - this.pos} left)`);
    }
    const start = this.pos;
    this.pos += n;
    return start;
  }

  u8(what) { return this.view.getUint8(this.take(1, what)); }
  u32(what) { return this.view.getUint32(this.take(4, what), true); }
  i32(what) { return this.view.getInt32(this.take(4, what), true); }
  u64(what) { return this.view.getBigUint64(this.take(8, what), true); }
  i64(what) { return this.view.getBigInt64(this.take(8, what), true); }

  str(what) {
    const n = this.u32(what);
    const start = this.take(n, what);
    return this.buf.toString('utf8', start, start + n);
  }

  count(what, limit = MAX_LIST_LENGTH) {
    const n = this.u32(what);
    if (n > limit) throw new ProtocolError(`${what} count ${n} over the limit`);
    return n;
  }

  pathText(what, isId) {
    const n = this.u32(what);
    if (n > MAX_PATH_TEXT_BYTES || (isId && n === 0)) {
      throw new ProtocolError(`${what} of ${n} bytes (${isId ? 1 : 0}..${MAX_PATH_TEXT_BYTES})`);
    }
    const start = this.take(n, what);
    return this.buf.toString('utf8', start, start + n);
  }

  tensor(what) {
    const code = this.u8(what);
    if (!(code in DTYPES)) throw new ProtocolError(`${what}: unknown dtype code ${code}`);
    const ndim = this.u8(what);
    if (ndim > MAX_DIMS) throw new ProtocolError(`${what}: ${ndim} dims`);
    const shape = [];
    let elements = 1;
    for (let k = 0; k < ndim; ++k) {
      const d = this.i64(what);
      if (d < 0n || d > 2n ** 31n) throw new ProtocolError(`${what}: dim ${d} out of range`);
      shape.push(Number(d));
      elements *= Number(d);
      if (elements > 2 ** 31) throw new ProtocolError(`${what}: too many elements`);
    }
    const precision = this.i32(what);
    const nbytes = this.u64(what);
    const dtype = DTYPES[code];
    const width = dtype === 'int8' ? 1 : 4;
    if (nbytes !== BigInt(elements * width)) {
      throw new ProtocolError(`${what}: ${nbytes} data bytes for ${elements} elements of ${dtype}`);
    }
    const start = this.take(elements * width, what);
    // A copy: the payload's offset need not be aligned for an Int32Array (little-endian hosts).
    const bytes = new Uint8Array(elements * width);
    bytes.set(this.buf.subarray(start, start + elements * width));
    const data = dtype === 'int8' ? new Int8Array(bytes.buffer) : new Int32Array(bytes.buffer);
    return tensor(dtype, shape, data, precision);
  }

  finish(what) {
    if (this.pos !== this.buf.length) {
      throw new ProtocolError(`${this.buf.length - this.pos} trailing bytes after the ${what}`);
    }
  }
}

function expectType(r, kind) {
  const got = r.u8('message type');
  if (got !== kind) {
    throw new ProtocolError(`message type ${got} where '${String.fromCharCode(kind)}' was expected`);
  }
}

class Writer {
  constructor() { this.parts = []; }
  u8(v) { this.parts.push(Buffer.from([v])); }
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); this.parts.push(b); }
  i32(v) { const b = Buffer.alloc(4); b.writeInt32LE(v); this.parts.push(b); }
  u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.parts.push(b); }
  i64(v) { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(v)); this.parts.push(b); }
  str(s) { const b = Buffer.from(String(s), 'utf8'); this.u32(b.length); this.parts.push(b); }
  bytes(b) { this.parts.push(b); }

  tensor(t) {
    const int8 = t.dtype === 'int8';
    if (!int8 && t.dtype !== 'int32') throw new TypeError(`output dtype ${t.dtype}; outputs are int32 (or int8)`);
    const data = int8 ? Int8Array.from(t.data) : int32Data(t.data);
    if (data.length !== elementsOf(t.shape)) {
      throw new TypeError(`output of shape [${t.shape}] has ${data.length} elements`);
    }
    this.u8(int8 ? 0 : 1);
    this.u8(t.shape.length);
    for (const d of t.shape) this.i64(d);
    this.i32(t.precision | 0);
    this.u64(data.byteLength);
    this.parts.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  }

  frame() {
    const payload = Buffer.concat(this.parts);
    if (payload.length > MAX_FRAME_BYTES) throw new ProtocolError('message over the frame limit');
    const header = Buffer.alloc(4);
    header.writeUInt32LE(payload.length);
    return Buffer.concat([header, payload]);
  }
}

// Values of another integer array as int32; a value outside int32 is the handler's bug.
function int32Data(data) {
  if (data instanceof Int32Array) return data;
  const out = new Int32Array(data.length);
  for (let i = 0; i < data.length; ++i) {
    const v = Number(data[i]);
    if (!Number.isInteger(v) || v < -(2 ** 31) || v > 2 ** 31 - 1) {
      throw new TypeError(`output value ${data[i]} at index ${i} is not an int32`);
    }
    out[i] = v;
  }
  return out;
}

// With FLAG_PATHS in `flags`, the hello declares `paths` ({id, ops, description} each).
function encodeHello(name, flags, ops, version = PROTOCOL_VERSION, paths = []) {
  const w = new Writer();
  w.u8(HELLO); w.u32(version); w.str(name); w.u32(flags); w.u32(ops.length);
  for (const op of ops) w.str(op);
  if (flags & FLAG_PATHS) {
    w.u32(paths.length);
    for (const p of paths) { w.str(p.id); w.str(p.ops || ''); w.str(p.description || ''); }
  }
  return w.frame();
}

function decodeHello(payload) {
  const r = new Reader(payload);
  expectType(r, HELLO);
  const version = r.u32('hello version');
  const name = r.str('hello name');
  const flags = r.u32('hello flags');
  const n = r.count('hello operators');
  const ops = [];
  for (let k = 0; k < n; ++k) ops.push(r.str('hello operator name'));
  const hello = { version, name, flags, ops };
  if (flags & FLAG_PATHS) {
    hello.paths = [];
    const m = r.count('hello paths', MAX_PATHS);
    for (let k = 0; k < m; ++k) {
      hello.paths.push({ id: r.pathText('hello path id', true),
                         ops: r.pathText('hello path operators', false),
                         description: r.pathText('hello path description', false) });
    }
  }
  r.finish('hello');
  return hello;
}

// The harness's side, for tests and drivers: attrs is an object of strings (form 0) or, for a
// negative case, {json: 'TEXT'} (form 1).
function encodeCall(id, op, attrs, inputs) {
  const w = new Writer();
  w.u8(CALL); w.u64(id); w.str(op);
  if (attrs && typeof attrs.json === 'string' && Object.keys(attrs).length === 1) {
    w.u8(1); w.str(attrs.json);
  } else {
    const keys = Object.keys(attrs || {}).sort();
    w.u8(0); w.u32(keys.length);
    for (const k of keys) { w.str(k); w.str(attrs[k]); }
  }
  w.u32(inputs.length);
  for (const t of inputs) w.tensor(t);
  return w.frame();
}

function decodeCall(payload) {
  const r = new Reader(payload);
  expectType(r, CALL);
  const id = r.u64('call id');
  const op = r.str('operator');
  const form = r.u8('attribute form');
  let attrs = null, attrsJson = null;
  if (form === 0) {
    attrs = {};
    const n = r.count('attributes');
    for (let k = 0; k < n; ++k) {
      const key = r.str('attribute name');
      attrs[key] = r.str('attribute value');
    }
  } else if (form === 1) {
    attrsJson = r.str('attribute JSON');
  } else {
    throw new ProtocolError(`unknown attribute form ${form}`);
  }
  const n = r.count('inputs');
  const inputs = [];
  for (let k = 0; k < n; ++k) inputs.push(r.tensor('input'));
  r.finish('call');
  return { id, op, attrs, attrsJson, inputs };
}

// An ok reply with `outputs` (tensors), or, with `error` (LOGIC_ERROR or RUNTIME_ERROR), an error
// reply with its message and rule; ending with the ids of `paths` unless it is null (pass an
// array exactly when the hello had FLAG_PATHS).
function encodeReply(id, outputs, error = null, message = '', rule = '', paths = null) {
  const w = new Writer();
  w.u8(REPLY); w.u64(id);
  if (error !== null) {
    w.u8(error); w.str(message); w.str(rule);
  } else {
    w.u8(OK); w.u32(outputs.length);
    for (const t of outputs) w.tensor(t);
  }
  if (paths !== null) {
    w.u32(paths.length);
    for (const p of paths) w.str(p);
  }
  return w.frame();
}

// A reply, with its `paths` when `flags` (the worker's hello flags) has FLAG_PATHS.
function decodeReply(payload, flags = 0) {
  const r = new Reader(payload);
  expectType(r, REPLY);
  const id = r.u64('reply id');
  const outcome = r.u8('reply outcome');
  let reply;
  if (outcome === OK) {
    const n = r.count('outputs');
    const outputs = [];
    for (let k = 0; k < n; ++k) outputs.push(r.tensor('output'));
    reply = { id, outcome: 'ok', outputs };
  } else if (outcome === LOGIC_ERROR || outcome === RUNTIME_ERROR) {
    const message = r.str('error message');
    const rule = r.str('error rule');
    reply = { id, outcome: outcome === LOGIC_ERROR ? 'logic_error' : 'runtime_error', message, rule };
  } else {
    throw new ProtocolError(`unknown outcome ${outcome}`);
  }
  if (flags & FLAG_PATHS) {
    reply.paths = [];
    const n = r.count('reply paths', MAX_PATHS);
    for (let k = 0; k < n; ++k) reply.paths.push(r.pathText('reply path id', true));
  }
  r.finish('reply');
  return reply;
}

// The paths the call being served took, in the order first hit (one call runs at a time).
const taken = new Set();

// Reports that the call being served took kernel path `id` (see serve's `paths`).
function hitPath(id) {
  taken.add(String(id));
}

function encodeBye() {
  const w = new Writer();
  w.u8(BYE);
  return w.frame();
}

// Frames from a readable stream, one at a time: `await frames.next()` is a payload Buffer, or
// null at a clean end of the stream.
class FrameReader {
  constructor(stream) {
    this.chunks = [];
    this.length = 0;
    this.ended = false;
    this.error = null;
    this.wake = null;
    stream.on('data', (chunk) => { this.chunks.push(chunk); this.length += chunk.length; this.notify(); });
    stream.on('end', () => { this.ended = true; this.notify(); });
    stream.on('error', (e) => { this.error = e; this.notify(); });
  }

  notify() {
    const wake = this.wake;
    this.wake = null;
    if (wake) wake();
  }

  async wait(n) {
    while (this.length < n && !this.ended && !this.error) {
      await new Promise((resolve) => { this.wake = resolve; });
    }
    if (this.error) throw new ProtocolError(`read failed: ${this.error.message}`);
    return this.length >= n;
  }

  takeBytes(n) {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.length = rest.length;
    return out;
  }

  async next() {
    if (!(await this.wait(4))) {
      if (this.length === 0) return null;
      throw new ProtocolError('stream ends inside a frame');
    }
    const n = this.takeBytes(4).readUInt32LE(0);
    if (n === 0 || n > MAX_FRAME_BYTES) throw new ProtocolError(`frame length ${n} out of range`);
    if (!(await this.wait(n))) throw new ProtocolError('stream ends inside a frame');
    return Buffer.from(this.takeBytes(n));  // its own buffer: the reader keeps no reference
  }
}

// Sends console.log and process.stdout.write to stderr (the log), so that no print can reach a
// frame; serve() calls it, and a worker whose libraries print when loaded calls it first.
function printsToStderr() {
  process.stdout.write = process.stderr.write.bind(process.stderr);
  console.log = console.info = console.debug = (...args) => console.error(...args);
}

// Writes every byte of `buf` to descriptor `fd`, waiting where a non-blocking pipe is full.
function writeAll(fd, buf) {
  const fs = require('fs');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let done = 0; done < buf.length;) {
    try {
      done += fs.writeSync(fd, buf, done, buf.length - done);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(pause, 0, 0, 1);  // 1 ms
    }
  }
}

// The reply to one call: the handler's outputs or its failure, and, when `reportPaths`, the
// paths it hit.
async function answer(call, handler, reportPaths) {
  taken.clear();
  const paths = () => (reportPaths ? Array.from(taken) : null);
  try {
    const outputs = await handler(call);
    return encodeReply(call.id, outputs, null, '', '', paths());
  } catch (e) {
    if (e instanceof LogicError) {
      return encodeReply(call.id, null, LOGIC_ERROR, e.message, e.rule || '', paths());
    }
    const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return encodeReply(call.id, null, RUNTIME_ERROR, what, '', paths());
  }
}

// Answers the harness's hello, then one reply per call until bye or the end of input. Resolves
// to the exit status (0 on a clean stop, 3 on a protocol version mismatch, 4 on a protocol
// error), as the C++ serve() does: `serve(...).then((s) => process.exit(s))`. With `paths` (an
// array, maybe empty) the hello declares them and each reply names the paths hitPath() reported
// during its call.
async function serve(name, ops, handler, flags = 0, input = process.stdin, output = null,
                     paths = null) {
  if (paths !== null) flags |= FLAG_PATHS;
  let write = output;
  if (write === null) {
    write = (buf) => writeAll(1, buf);
    printsToStderr();
  }
  const frames = new FrameReader(input);
  try {
    let payload = await frames.next();
    if (payload === null) return 0;
    const { version } = decodeHello(payload);
    write(encodeHello(name, flags, ops, PROTOCOL_VERSION, paths || []));
    if (version !== PROTOCOL_VERSION) return 3;  // the harness reports the mismatch
    for (;;) {
      payload = await frames.next();
      if (payload === null || payload[0] === BYE) return 0;
      const call = decodeCall(payload);
      write(await answer(call, handler, (flags & FLAG_PATHS) !== 0));
    }
  } catch (e) {
    if (e instanceof ProtocolError || (e && e.code === 'EPIPE')) {
      process.stderr.write(`cvmcheck_worker: ${e.message}\n`);
      return 4;
    }
    throw e;
  }
}

module.exports = {
  PROTOCOL_VERSION, MAX_FRAME_BYTES, MAX_DIMS, MAX_LIST_LENGTH, FLAG_REPORTS_RULES,
  FLAG_NO_PRECISION, FLAG_PATHS, MAX_PATHS, MAX_PATH_TEXT_BYTES, OK, LOGIC_ERROR, RUNTIME_ERROR,
  ProtocolError, LogicError, tensor, elementsOf,
  encodeHello, decodeHello, encodeCall, decodeCall, encodeReply, decodeReply, encodeBye,
  FrameReader, serve, printsToStderr, hitPath,
};
