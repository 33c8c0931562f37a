#!/usr/bin/env node
'use strict';
// An example external backend in JavaScript: abs, negative, clip and cvm_clip, written from the
// contract (docs/contract.md, docs/ops/elementwise.md), as worker_sdk/examples/python_worker.py is.
// Besides the arithmetic a worker must check every input and attribute and refuse a bad one with
// a LogicError, so that its error classes agree with the reference's; most of this file is that.
//
//   node worker_sdk/js/examples/example_worker.js [--no-precision]
//   cvmcheck campaign --ops abs,clip --backends exec:"node worker_sdk/js/examples/example_worker.js"
//
// --no-precision: the hello sets FLAG_NO_PRECISION and every output's precision is sent as 0,
// as a runtime without precisions (ONNX) does; the harness then compares all but precisions.
// --zero-precision: precision 0 without the flag (a test that the harness compares them).

const path = require('path');
const cw = require(path.join(__dirname, '..', 'cvmcheck_worker'));
const attrs = require(path.join(__dirname, '..', 'cvm_attrs'));

const noPrecision = process.argv.includes('--no-precision');
// --zero-precision (for the harness's tests): precision 0 without the flag, which must fail.
const zeroPrecision = noPrecision || process.argv.includes('--zero-precision');
const alpha = (p) => 2 ** (p - 1) - 1;
const bitlen = (v) => (v === 0 ? 0 : Math.floor(Math.log2(v)) + 1);  // exact below 2^53

// The contract's tensor limits and input rules (docs/contract.md, "Tensors").
function checkInputs(call, count) {
  if (call.inputs.length !== count) {
    throw new cw.LogicError(`${call.op} takes ${count} input(s), got ${call.inputs.length}`,
                            'global.input_count');
  }
  call.inputs.forEach((t, k) => {
    if (t.shape.length < 1 || t.shape.length > 6 || t.shape.some((d) => d < 1 || d > 2 ** 24) ||
        cw.elementsOf(t.shape) > 2 ** 30) {
      throw new cw.LogicError(`input ${k} shape [${t.shape}] breaks the tensor limits`,
                              'global.tensor_limits');
    }
    if (t.precision < 1 || t.precision > 32) {
      throw new cw.LogicError(`input ${k} precision ${t.precision} outside [1, 32]`,
                              'global.precision_range');
    }
    if (t.dtype === 'int8' && t.precision > 8) {
      throw new cw.LogicError(`input ${k} is int8 with precision ${t.precision} > 8`,
                              'global.int8_precision');
    }
    const a = alpha(t.precision);
    for (const v of t.data) {
      if (v < -a || v > a) {
        throw new cw.LogicError(`input ${k} holds ${v}, outside precision ${t.precision}`,
                                'global.value_range');
      }
    }
  });
}

function unary(call, schema) {
  const a = attrs.attrsOf(call, schema);
  checkInputs(call, 1);
  return [a, call.inputs[0]];
}

function out(x, values, precision) {
  return [cw.tensor('int32', x.shape, Int32Array.from(values), zeroPrecision ? 0 : precision)];
}

const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);

const OPS = {
  abs(call) {
    const [, x] = unary(call, {});
    return out(x, Array.from(x.data, Math.abs), x.precision);
  },
  negative(call) {
    const [, x] = unary(call, {});
    return out(x, Array.from(x.data, (v) => -v), x.precision);
  },
  clip(call) {
    const [a, x] = unary(call, { a_min: null, a_max: null });
    const lo = attrs.parseInt32(a.a_min), hi = attrs.parseInt32(a.a_max);
    if (lo === attrs.INT32_MIN || hi === attrs.INT32_MIN) {
      throw new cw.LogicError('clip bound outside [-(2^31 - 1), 2^31 - 1]', 'clip.a_min_below_range');
    }
    if (lo >= hi) throw new cw.LogicError(`a_min ${lo} must be below a_max ${hi}`, 'clip.a_min_not_below_a_max');
    const precision = bitlen(Math.max(Math.abs(lo), Math.abs(hi)) + 1) + 1;
    if (precision > 32) throw new cw.LogicError(`clip output precision ${precision} above 32`, 'global.output_precision');
    return out(x, Array.from(x.data, (v) => clamp(v, lo, hi)), precision);
  },
  cvm_clip(call) {
    const [a, x] = unary(call, { precision: null, is_sign: 'true' });
    const precision = attrs.parseInt32(a.precision);
    attrs.parseBool(a.is_sign);  // accepted and ignored, but it must be a bool
    if (precision < 1 || precision > 32) {
      throw new cw.LogicError(`cvm_clip precision ${precision} outside [1, 32]`,
                              'cvm_clip.precision_attr_outside_1_32');
    }
    const m = alpha(precision);
    return out(x, Array.from(x.data, (v) => clamp(v, -m, m)), precision);
  },
};

function handle(call) {
  const op = OPS[call.op];
  if (!op) throw new cw.LogicError(`unknown operator '${call.op}'`, 'global.unknown_operator');
  return op(call);
}

cw.serve('example-js', Object.keys(OPS), handle, noPrecision ? cw.FLAG_NO_PRECISION : 0)
  .then((status) => process.exit(status));
