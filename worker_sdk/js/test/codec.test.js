'use strict';
// Tests of the JavaScript codec (worker_sdk/js/cvmcheck_worker.js): its encoding against itself,
// its checks, and the protocol spoken with `cvmcheck worker` (the C++ codec's server) and with
// the example worker. Run by worker_sdk/js/ci_test.sh (ctest js_worker_codec):
//   CVMCHECK_BINARY=build/bin/cvmcheck node --test worker_sdk/js/test/
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const cw = require('../cvmcheck_worker');

const root = path.join(__dirname, '..', '..', '..');
const example = path.join(__dirname, '..', 'examples', 'example_worker.js');
const cvmcheck = process.env.CVMCHECK_BINARY || path.join(root, 'build', 'bin', 'cvmcheck');

const payload = (frame) => frame.subarray(4);
const i32 = (shape, values, precision) => cw.tensor('int32', shape, Int32Array.from(values), precision);
const i8 = (shape, values, precision) => cw.tensor('int8', shape, Int8Array.from(values), precision);

test('hello round trip', () => {
  const frame = cw.encodeHello('impl', cw.FLAG_NO_PRECISION, ['abs', 'sum']);
  assert.strictEqual(frame.readUInt32LE(0), frame.length - 4);
  assert.deepStrictEqual(cw.decodeHello(payload(frame)),
                         { version: 1, name: 'impl', flags: 2, ops: ['abs', 'sum'] });
});

test('call round trip, both attribute forms, int8 and int32 tensors', () => {
  const inputs = [i32([2, 3], [1, -2, 3, -4, 5, -6], 4), i8([3], [-127, 0, 127], 8)];
  const call = cw.decodeCall(payload(cw.encodeCall(7n, 'sum', { b: '2', a: '(1,)' }, inputs)));
  assert.strictEqual(call.id, 7n);
  assert.strictEqual(call.op, 'sum');
  assert.deepStrictEqual(call.attrs, { a: '(1,)', b: '2' });
  assert.strictEqual(call.attrsJson, null);
  assert.deepStrictEqual(call.inputs[0].shape, [2, 3]);
  assert.deepStrictEqual(Array.from(call.inputs[0].data), [1, -2, 3, -4, 5, -6]);
  assert.ok(call.inputs[1].data instanceof Int8Array);
  assert.strictEqual(call.inputs[1].precision, 8);
  const neg = cw.decodeCall(payload(cw.encodeCall(1n, 'abs', { json: '{"axis":1}' }, [])));
  assert.strictEqual(neg.attrs, null);
  assert.strictEqual(neg.attrsJson, '{"axis":1}');
});

test('reply round trip: ok and both error classes', () => {
  const ok = cw.decodeReply(payload(cw.encodeReply(3n, [i32([1], [-5], 4)])));
  assert.strictEqual(ok.outcome, 'ok');
  assert.deepStrictEqual(Array.from(ok.outputs[0].data), [-5]);
  const logic = cw.decodeReply(payload(cw.encodeReply(4n, null, cw.LOGIC_ERROR, 'bad', 'sum.x')));
  assert.deepStrictEqual([logic.outcome, logic.message, logic.rule], ['logic_error', 'bad', 'sum.x']);
  const runtime = cw.decodeReply(payload(cw.encodeReply(5n, null, cw.RUNTIME_ERROR, 'oops')));
  assert.strictEqual(runtime.outcome, 'runtime_error');
});

test('outputs of other integer arrays are narrowed to int32, or refused', () => {
  const frame = cw.encodeReply(1n, [cw.tensor('int32', [2], Float64Array.from([3, -4]), 5)]);
  assert.deepStrictEqual(Array.from(cw.decodeReply(payload(frame)).outputs[0].data), [3, -4]);
  assert.throws(() => cw.encodeReply(1n, [cw.tensor('int32', [1], [2 ** 31], 32)]), TypeError);
  assert.throws(() => cw.encodeReply(1n, [cw.tensor('int32', [2], [1], 32)]), TypeError);
});

test('malformed messages are protocol errors naming what is wrong', () => {
  const call = payload(cw.encodeCall(1n, 'abs', {}, [i32([2], [1, 2], 3)]));
  assert.throws(() => cw.decodeCall(call.subarray(0, call.length - 1)), /ends inside the input/);
  assert.throws(() => cw.decodeCall(Buffer.concat([call, Buffer.from([0])])), /1 trailing bytes/);
  const bad = Buffer.from(call);
  bad[bad.indexOf(1, 1 + 8 + 4 + 3 + 1 + 4 + 4)] = 9;  // the input's dtype code
  assert.throws(() => cw.decodeCall(bad), /unknown dtype code 9|data bytes/);
  assert.throws(() => cw.decodeHello(call), /message type/);
});

// A worker process driven over its pipes by this codec.
function startWorker(command, args) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const frames = new cw.FrameReader(child.stdout);
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    async hello() {
      child.stdin.write(cw.encodeHello('', 0, []));
      return cw.decodeHello(await frames.next());
    },
    async call(id, op, attrs, inputs) {
      child.stdin.write(cw.encodeCall(id, op, attrs, inputs));
      return cw.decodeReply(await frames.next());
    },
    async bye() { child.stdin.end(cw.encodeBye()); return exited; },
  };
}

test('cvmcheck worker (the C++ codec) answers this codec', { skip: !require('fs').existsSync(cvmcheck) && `no ${cvmcheck}` }, async () => {
  const w = startWorker(cvmcheck, ['worker', '--backend', 'reference']);
  const hello = await w.hello();
  assert.strictEqual(hello.version, 1);
  assert.ok(hello.ops.includes('sum') && hello.ops.includes('slice'));
  assert.strictEqual(hello.flags & cw.FLAG_REPORTS_RULES, cw.FLAG_REPORTS_RULES);
  const sum = await w.call(11n, 'sum', { axis: '(1,)' }, [i8([2, 3], [1, 2, 3, -4, -5, -6], 4)]);
  assert.strictEqual(sum.id, 11n);
  assert.strictEqual(sum.outcome, 'ok');
  assert.deepStrictEqual(sum.outputs[0].shape, [2]);
  assert.deepStrictEqual(Array.from(sum.outputs[0].data), [6, -15]);
  assert.strictEqual(sum.outputs[0].precision, 6);  // 4 + bitlen(3)
  const bad = await w.call(12n, 'sum', { axis: '(2,)' }, [i32([2, 3], [1, 2, 3, 4, 5, 6], 4)]);
  assert.deepStrictEqual([bad.outcome, bad.rule], ['logic_error', 'sum.axis_out_of_range']);
  const json = await w.call(13n, 'abs', { json: '{"x": 1}' }, [i32([1], [1], 2)]);
  assert.strictEqual(json.outcome, 'logic_error');
  assert.strictEqual(await w.bye(), 0);
});

test('the example worker answers calls and checks its inputs', async () => {
  const w = startWorker(process.execPath, [example]);
  const hello = await w.hello();
  assert.deepStrictEqual([hello.name, hello.flags], ['example-js', 0]);
  assert.deepStrictEqual(hello.ops, ['abs', 'negative', 'clip', 'cvm_clip']);
  const r = await w.call(1n, 'clip', { a_min: '-2', a_max: ' 3' }, [i32([4], [-9, -1, 2, 9], 5)]);
  assert.deepStrictEqual(Array.from(r.outputs[0].data), [-2, -1, 2, 3]);
  assert.strictEqual(r.outputs[0].precision, 4);  // bitlen(3 + 1) + 1
  const range = await w.call(2n, 'abs', {}, [i32([1], [8], 4)]);
  assert.strictEqual(range.outcome, 'logic_error');  // 8 > alpha(4) = 7
  const unknown = await w.call(3n, 'abs', { axis: '1' }, [i32([1], [1], 4)]);
  assert.strictEqual(unknown.outcome, 'logic_error');
  assert.strictEqual(await w.bye(), 0);
});

test('a hello of another version ends the worker with status 3', async () => {
  const child = spawnSync(process.execPath, [example], { input: cw.encodeHello('', 0, [], 2) });
  assert.strictEqual(child.status, 3);
  assert.strictEqual(cw.decodeHello(child.stdout.subarray(4)).version, 1);
});

test('a malformed frame ends the worker with status 4', () => {
  const child = spawnSync(process.execPath, [example], {
    input: Buffer.concat([cw.encodeHello('', 0, []), Buffer.from([0, 0, 0, 0])]),
  });
  assert.strictEqual(child.status, 4);
  assert.match(child.stderr.toString(), /frame length 0/);
});

test('a stray print goes to stderr, not into a frame', async () => {
  const { serve } = cw;
  const { PassThrough } = require('node:stream');
  const input = new PassThrough();
  const written = [];
  const done = serve('t', ['abs'], (call) => { console.log('stray'); return [call.inputs[0]]; }, 0,
                     input, (buf) => written.push(buf));
  input.write(cw.encodeHello('', 0, []));
  input.end(cw.encodeCall(1n, 'abs', {}, [i32([1], [5], 4)]));
  assert.strictEqual(await done, 0);
  assert.strictEqual(written.length, 2);
  assert.deepStrictEqual(Array.from(cw.decodeReply(payload(written[1])).outputs[0].data), [5]);
});

// The harness's side of FLAG_NO_PRECISION (golden verify through the example worker): without the
// flag a precision of 0 is a failure; with it precisions are not compared, and the table says so.
const haveCvmcheck = require('fs').existsSync(cvmcheck);
function goldenVerify(...workerArgs) {
  const command = [process.execPath, example, ...workerArgs].join(' ');
  return spawnSync(cvmcheck, ['golden', 'verify', path.join(root, 'golden'), '--jobs', '1',
                              '--backend-def', `js=${command}`, '--backend', 'js'], { encoding: 'utf8' });
}

test('golden verify passes the example worker', { skip: !haveCvmcheck && `no ${cvmcheck}` }, () => {
  const run = goldenVerify();
  assert.strictEqual(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^abs\s+\d+\s+0\s+0\s+0\s+0\s+0/m);  // pass, then fail .. corrupt all 0
  assert.doesNotMatch(run.stdout, /precision not compared/);
});

test('precision 0 without the flag fails; with FLAG_NO_PRECISION it is not compared', { skip: !haveCvmcheck && `no ${cvmcheck}` }, () => {
  const zero = goldenVerify('--zero-precision');
  assert.strictEqual(zero.status, 1);
  assert.match(zero.stdout, /fail: abs\/\w+: output 0 precision: js 0 vs/);
  const none = goldenVerify('--no-precision');
  assert.strictEqual(none.status, 0, none.stdout + none.stderr);
  assert.match(none.stdout, /precision not compared: backend js reports no output precision/);
});

test('a campaign through a worker without precisions says so and finds nothing', { skip: !haveCvmcheck && `no ${cvmcheck}` }, () => {
  const command = [process.execPath, example, '--no-precision'].join(' ');
  const run = spawnSync(cvmcheck, ['campaign', '--seconds', '2', '--jobs', '1', '--ops', 'abs,clip',
                                   '--backend-def', `js=${command}`, '--backends', 'js'], { encoding: 'utf8' });
  assert.strictEqual(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /precision not compared: backend js reports no output precision/);
});
