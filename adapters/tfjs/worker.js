#!/usr/bin/env node
'use strict';
// TensorFlow.js's strided slice (npm @tensorflow/tfjs-core with @tensorflow/tfjs-backend-cpu, the
// pure JavaScript CPU backend that @tensorflow/tfjs bundles) as a cvmcheck backend for
// `ov_strided_slice` (OpenVINO StridedSlice-1, which follows TensorFlow's strided slice) and
// `strided_slice` (alias `slice`). README.md beside this file says how the attributes map;
// docs/conformance/tfjs.md has the results.
//
//   node adapters/tfjs/worker.js       (speaks the worker protocol on stdin/stdout)
//
// - ov_strided_slice: the mask lists become TensorFlow bitmasks (bit i = entry i; entries past
//   the M steps are ignored, but must be 0 or 1, as the contract says); an empty `stride` means M
//   ones. begin, end and stride go to tf.stridedSlice as they are.
// - strided_slice: missing begin entries are 0, missing strides 1 and missing ends n_i, written
//   out explicitly (no masks), as the contract's defaults say.
// - int64 attribute entries become JavaScript numbers (tfjs takes numbers): entries beyond 2^53 are
//   rounded, which changes nothing after the clamping both semantics do (|v| >= 2^53 is past every
//   extent), except that it is not the value written.
// - The adapter checks only what the translation needs (attribute syntax, known keys, one input,
//   mask entries 0 or 1): everything else is TensorFlow.js's. Its errors are logic_errors. An
//   output outside the contract's tensor limits (a zero-size dim, a 0-d result, more than 6 dims)
//   is the contract's logic_error global.tensor_limits. TensorFlow.js has no precision: the hello
//   sets FLAG_NO_PRECISION.

const cw = require('../../worker_sdk/js/cvmcheck_worker');
const A = require('../../worker_sdk/js/cvm_attrs');
const deps = require('../js-deps/deps');

cw.printsToStderr();  // tfjs-core prints advice when loaded in Node.js
const tf = deps.requireDep('@tensorflow/tfjs-core');
deps.requireDep('@tensorflow/tfjs-backend-cpu');
const LogicError = cw.LogicError;

const toNumber = (v) => Number(v);

function oneInput(call) {
  if (call.inputs.length !== 1) throw new LogicError(`${call.op} takes 1 input, got ${call.inputs.length}`);
  return call.inputs[0];
}

// A mask list as a bitmask over the first m entries; every entry must be 0 or 1.
function bitmask(text, m, what) {
  const entries = A.parseTuple(text);
  let bits = 0;
  entries.forEach((v, i) => {
    if (v !== 0n && v !== 1n) throw new LogicError(`${what} entry ${v} is not 0 or 1`);
    if (v === 1n && i < m) bits |= 1 << i;
  });
  return bits;
}

function ovStridedSlice(call) {
  const a = A.attrsOf(call, {
    begin: null, end: null, stride: '()', begin_mask: '()', end_mask: '()', new_axis_mask: '()',
    shrink_axis_mask: '()', ellipsis_mask: '()',
  });
  const begin = A.parseTuple(a.begin), end = A.parseTuple(a.end);
  let stride = A.parseTuple(a.stride);
  const m = begin.length;
  if (stride.length === 0) stride = Array(m).fill(1n);
  const masks = {};
  for (const key of ['begin_mask', 'end_mask', 'new_axis_mask', 'shrink_axis_mask', 'ellipsis_mask']) {
    masks[key] = bitmask(a[key], m, key);
  }
  return [oneInput(call), begin.map(toNumber), end.map(toNumber), stride.map(toNumber), masks];
}

function strideSliceCvm(call) {
  const a = A.attrsOf(call, { begin: '()', end: '()', stride: '()' });
  const begin = A.parseTuple(a.begin), end = A.parseTuple(a.end), stride = A.parseTuple(a.stride);
  const x = oneInput(call);
  const k = Math.max(begin.length, end.length, stride.length);
  const pick = (list, i, def) => (i < list.length ? toNumber(list[i]) : def);
  const b = [], e = [], s = [];
  for (let i = 0; i < k; ++i) {
    b.push(pick(begin, i, 0));
    e.push(pick(end, i, i < x.shape.length ? x.shape[i] : 0));
    s.push(pick(stride, i, 1));
  }
  return [x, b, e, s, {}];
}

const OPS = { ov_strided_slice: ovStridedSlice, strided_slice: strideSliceCvm, slice: strideSliceCvm };

function handle(call) {
  const translate = OPS[call.op];
  if (!translate) throw new LogicError(`unknown or unsupported operator '${call.op}'`);
  const [x, begin, end, stride, masks] = translate(call);
  let y;
  try {
    y = tf.tidy(() => {
      const input = tf.tensor(x.dtype === 'int32' ? x.data : Int32Array.from(x.data), x.shape, 'int32');
      return tf.stridedSlice(input, begin, end, stride, masks.begin_mask || 0, masks.end_mask || 0,
                             masks.ellipsis_mask || 0, masks.new_axis_mask || 0,
                             masks.shrink_axis_mask || 0);
    });
  } catch (e) {
    throw new LogicError(`tfjs: ${e && e.message ? e.message : String(e)}`);
  }
  const shape = y.shape.slice();
  const data = y.dataSync();
  y.dispose();
  if (data.length !== shape.reduce((a, b) => a * b, 1)) {  // a malformed tensor: a bug of tfjs
    throw new Error(`tfjs returned a tensor of shape [${shape}] holding ${data.length} values`);
  }
  if (shape.length < 1 || shape.length > 6 || shape.some((d) => d < 1 || d > 2 ** 24)) {
    throw new LogicError(`tfjs returned an output of shape [${shape}], outside the contract's tensor limits`,
                         'global.tensor_limits');
  }
  return [cw.tensor('int32', shape, Int32Array.from(data), 0)];
}

if (require.main === module) {
  tf.setBackend('cpu').then(() => {
    const name = `tfjs-core ${deps.version('@tensorflow/tfjs-core')} (backend cpu ${deps.version('@tensorflow/tfjs-backend-cpu')})`;
    process.stderr.write(`${name}\n`);
    return cw.serve(name, Object.keys(OPS), handle, cw.FLAG_NO_PRECISION);
  }).then((status) => process.exit(status));
}

module.exports = { handle, OPS };
