'use strict';
// Tests of the JavaScript codec's kernel-path field (worker_sdk/js/cvmcheck_worker.js, FLAG_PATHS):
// the hello's declared paths and a reply's path ids round-trip, malformed fields are protocol
// errors, a worker without the flag encodes exactly as before, and serve() reports the paths
// hitPath() names. Run by worker_sdk/js/ci_test.sh (ctest js_worker_codec).
const test = require('node:test');
const assert = require('node:assert');
const { PassThrough } = require('node:stream');
const cw = require('../cvmcheck_worker');

const payload = (frame) => frame.subarray(4);
const i32 = (shape, values, precision) => cw.tensor('int32', shape, Int32Array.from(values), precision);
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };

const DECLARED = [
  { id: 'abs.negative', ops: 'abs', description: 'an input below zero' },
  { id: 'clip.both', ops: 'clip,cvm_clip', description: '' },
  { id: 'x', ops: '', description: 'été → utf-8' },
];

test('hello: declared paths round trip', () => {
  const flags = cw.FLAG_PATHS | cw.FLAG_REPORTS_RULES;
  const frame = cw.encodeHello('impl', flags, ['abs'], cw.PROTOCOL_VERSION, DECLARED);
  assert.deepStrictEqual(cw.decodeHello(payload(frame)),
                         { version: 1, name: 'impl', flags: 5, ops: ['abs'], paths: DECLARED });
  const none = cw.decodeHello(payload(cw.encodeHello('i', cw.FLAG_PATHS, [])));
  assert.deepStrictEqual(none.paths, []);
});

test('hello: without the flag nothing changes', () => {
  const old = cw.encodeHello('impl', 0, ['abs']);
  assert.deepStrictEqual(cw.encodeHello('impl', 0, ['abs'], cw.PROTOCOL_VERSION, DECLARED), old);
  assert.deepStrictEqual(cw.decodeHello(payload(old)), { version: 1, name: 'impl', flags: 0, ops: ['abs'] });
});

test('hello: malformed declarations are protocol errors', () => {
  const base = payload(cw.encodeHello('i', cw.FLAG_PATHS, [])).subarray(0, -4);
  assert.throws(() => cw.decodeHello(Buffer.concat([base, u32(cw.MAX_PATHS + 1)])),
                /hello paths count 513 over the limit/);
  const emptyId = cw.encodeHello('i', cw.FLAG_PATHS, [], 1, [{ id: '', ops: 'a', description: '' }]);
  assert.throws(() => cw.decodeHello(payload(emptyId)), /hello path id of 0 bytes/);
  const long = cw.encodeHello('i', cw.FLAG_PATHS, [], 1, [{ id: 'a', ops: 'o'.repeat(4097) }]);
  assert.throws(() => cw.decodeHello(payload(long)), /hello path operators of 4097 bytes/);
  const whole = payload(cw.encodeHello('i', cw.FLAG_PATHS, [], 1, DECLARED));
  for (let n = base.length; n < whole.length; ++n) {
    assert.throws(() => cw.decodeHello(whole.subarray(0, n)), /message ends inside the/);
  }
});

test('reply: ok and error replies carry their paths', () => {
  const ok = cw.encodeReply(3n, [i32([1], [-5], 4)], null, '', '', ['abs.negative', 'not.declared']);
  const back = cw.decodeReply(payload(ok), cw.FLAG_PATHS);
  assert.strictEqual(back.outcome, 'ok');
  assert.deepStrictEqual(Array.from(back.outputs[0].data), [-5]);
  assert.deepStrictEqual(back.paths, ['abs.negative', 'not.declared']);
  const err = cw.encodeReply(4n, null, cw.LOGIC_ERROR, 'bad', 'abs.x', ['abs.negative']);
  assert.deepStrictEqual(cw.decodeReply(payload(err), cw.FLAG_PATHS),
                         { id: 4n, outcome: 'logic_error', message: 'bad', rule: 'abs.x', paths: ['abs.negative'] });
  const none = cw.encodeReply(5n, null, cw.RUNTIME_ERROR, 'm', '', []);
  assert.deepStrictEqual(cw.decodeReply(payload(none), cw.FLAG_PATHS).paths, []);
});

test('reply: without the flag nothing changes; with it the field is required', () => {
  const old = cw.encodeReply(4n, null, cw.LOGIC_ERROR, 'bad', 'r');
  assert.deepStrictEqual(cw.decodeReply(payload(old)),
                         { id: 4n, outcome: 'logic_error', message: 'bad', rule: 'r' });
  assert.throws(() => cw.decodeReply(payload(old), cw.FLAG_PATHS), /message ends inside the reply paths/);
  const withPaths = cw.encodeReply(4n, null, cw.LOGIC_ERROR, 'bad', 'r', []);
  assert.throws(() => cw.decodeReply(payload(withPaths)), /4 trailing bytes after the reply/);
});

test('reply: malformed path lists are protocol errors', () => {
  const base = payload(cw.encodeReply(1n, null, cw.LOGIC_ERROR, 'm', '', [])).subarray(0, -4);
  assert.throws(() => cw.decodeReply(Buffer.concat([base, u32(513)]), cw.FLAG_PATHS),
                /reply paths count 513 over the limit/);
  const empty = cw.encodeReply(1n, null, cw.LOGIC_ERROR, 'm', '', ['']);
  assert.throws(() => cw.decodeReply(payload(empty), cw.FLAG_PATHS), /reply path id of 0 bytes/);
  const long = cw.encodeReply(1n, null, cw.LOGIC_ERROR, 'm', '', ['p'.repeat(4097)]);
  assert.throws(() => cw.decodeReply(payload(long), cw.FLAG_PATHS), /reply path id of 4097 bytes/);
});

// serve() over in-memory streams: the harness's hello, then a call of each op.
async function served(ops, paths, handler) {
  const input = new PassThrough();
  const written = [];
  const done = cw.serve('t', ['abs'], handler, 0, input, (buf) => written.push(payload(buf)), paths);
  input.write(cw.encodeHello('', 0, []));
  ops.forEach((op, k) => input.write(cw.encodeCall(BigInt(k + 1), op, {}, [i32([1], [5], 4)])));
  input.end();
  assert.strictEqual(await done, 0);
  return written;
}

async function handler(call) {
  cw.hitPath('p.always');
  if (call.op === 'logic') { cw.hitPath('p.logic'); throw new cw.LogicError('no', 'r'); }
  if (call.op === 'crash') throw new Error('oops');
  await new Promise((resolve) => setImmediate(resolve));  // async: the paths outlive an await
  cw.hitPath('p.always');  // reported once
  return [call.inputs[0]];
}

test('serve declares its paths and reports each call\'s', async () => {
  const written = await served(['ok', 'logic', 'crash'], DECLARED.slice(0, 1), handler);
  const hello = cw.decodeHello(written[0]);
  assert.strictEqual(hello.flags, cw.FLAG_PATHS);
  assert.deepStrictEqual(hello.paths, DECLARED.slice(0, 1));
  const replies = written.slice(1).map((p) => cw.decodeReply(p, hello.flags));
  assert.deepStrictEqual(replies.map((r) => r.outcome), ['ok', 'logic_error', 'runtime_error']);
  assert.deepStrictEqual(replies.map((r) => r.paths), [['p.always'], ['p.always', 'p.logic'], ['p.always']]);
});

test('a worker without paths sends none, even when its handler hits some', async () => {
  const written = await served(['ok'], null, handler);
  const hello = cw.decodeHello(written[0]);
  assert.strictEqual(hello.flags, 0);
  assert.strictEqual(hello.paths, undefined);
  assert.deepStrictEqual(Array.from(cw.decodeReply(written[1]).outputs[0].data), [5]);
});
