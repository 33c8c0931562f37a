#!/usr/bin/env node
'use strict';
// ONNX Runtime (npm onnxruntime-node, CPU execution provider) as a cvmcheck backend: each call
// becomes a one-node (or few-node) ONNX model built in memory and run by an InferenceSession.
// README.md beside this file says how each operator maps and why the others are unsupported;
// docs/conformance/onnxruntime.md has the results.
//
//   node adapters/onnxruntime/worker.js        (speaks the worker protocol on stdin/stdout)
//   cvmcheck golden verify golden --backend-def ort="node adapters/onnxruntime/worker.js" --backend ort
//
// What the adapter does and does not do:
// - It translates the call: the CVM attribute texts are parsed (contract syntax) into ONNX
//   attributes and constants; a text it cannot translate (malformed, unknown key, missing
//   required key, a value the translation needs within range) is a logic_error, as a model
//   converter would refuse it.
// - It does not check what ONNX has no notion of: precisions (of inputs, int8 storage, value
//   ranges, inferred output precisions). ONNX tensors carry none, and the worker's hello says so
//   (FLAG_NO_PRECISION): the harness does not compare output precisions.
// - Everything else is ONNX Runtime's: shape checks, broadcasting, the kernels. An error status of
//   ONNX Runtime (session creation or run) is a logic_error (a model or input it refuses), except
//   an allocation failure, which is a runtime_error.
// - An output shape ONNX Runtime returns outside the contract's tensor limits (a zero-size dim,
//   more than 6 dims) is reported as the contract's logic_error global.tensor_limits.

const path = require('path');
const cw = require('../../worker_sdk/js/cvmcheck_worker');
const A = require('../../worker_sdk/js/cvm_attrs');
const { requireDep } = require('../js-deps/deps');
const { Graph } = require('./onnx_graph');

const ort = requireDep('onnxruntime-node');
ort.env.logLevel = 'fatal';  // errors come back as replies; the log would repeat each

const LogicError = cw.LogicError;

// Refused by the translation: the call cannot be expressed as an ONNX model.
class NotExpressible extends Error {}

const alpha = (p) => 2 ** (p - 1) - 1;

function inputs(call, count) {
  if (call.inputs.length !== count) {
    throw new LogicError(`${call.op} takes ${count} input(s), got ${call.inputs.length}`);
  }
  return call.inputs;
}

// Graph inputs for every call input; int32 versions on demand.
function graphInputs(g, call) {
  return call.inputs.map((t) => g.input(t.dtype));
}

function as32(g, name, t) { return t.dtype === 'int32' ? name : g.cast(name, 'int32'); }
function as8(g, name, t) { return t.dtype === 'int8' ? name : g.cast(name, 'int8'); }

function normAxis(a, n, what = 'axis') {
  const v = Number(a);
  if (v < -n || v >= n) throw new LogicError(`${what} ${a} outside [${-n}, ${n})`);
  return v < 0 ? v + n : v;
}

function attrs(call, schema) { return A.attrsOf(call, schema); }
function noAttrs(call) { attrs(call, {}); }

function pair(text, what) {
  const t = A.parseTuple(text);
  if (t.length !== 2) throw new LogicError(`${what} needs exactly 2 entries`);
  return t.map(Number);
}

// Each translation returns the name of the int32 output (possibly after a final Reshape).
const OPS = {};

function reduce(onnxOp) {
  return (g, call) => {
    const a = attrs(call, { axis: '()', keepdims: 'false', exclude: 'false', dtype: 'int32' });
    const [x] = inputs(call, 1);
    const axes = A.parseTuple(a.axis);
    const keepdims = A.parseBool(a.keepdims), exclude = A.parseBool(a.exclude);
    const [xin] = graphInputs(g, call);
    const n = x.shape.length;
    const x32 = as32(g, xin, x);
    let reduced;  // null: every axis
    if (axes.length === 0) {
      reduced = null;
    } else if (exclude) {
      // The complement is the adapter's to compute: ONNX has no exclude.
      const listed = axes.map((v) => normAxis(v, n));
      if (new Set(listed).size !== listed.length) throw new LogicError(`axis ${a.axis} repeats an axis`);
      reduced = [...Array(n).keys()].filter((k) => !listed.includes(k));
    } else {
      reduced = axes;  // as written: ONNX Runtime checks range and repeats
    }
    if (reduced !== null && reduced.length === 0) {
      return g.node(onnxOp, [x32, g.ints([])], { keepdims: keepdims ? 1 : 0, noop_with_empty_axes: 1 });
    }
    const y = g.node(onnxOp, reduced === null ? [x32] : [x32, g.ints(reduced)], { keepdims: keepdims ? 1 : 0 });
    const all = reduced === null || reduced.length === n;
    return all && !keepdims ? g.node('Reshape', [y, g.ints([1])]) : y;  // (1,) where ONNX gives ()
  };
}
OPS.sum = reduce('ReduceSum');
OPS.max = reduce('ReduceMax');

function binary(build) {
  return (g, call) => {
    noAttrs(call);
    const [a, b] = inputs(call, 2);
    const [ain, bin] = graphInputs(g, call);
    return build(g, as32(g, ain, a), as32(g, bin, b));
  };
}
OPS.broadcast_add = binary((g, a, b) => g.node('Add', [a, b]));
OPS.broadcast_sub = binary((g, a, b) => g.node('Sub', [a, b]));
OPS.broadcast_mul = binary((g, a, b) => g.node('Mul', [a, b]));
OPS.broadcast_max = binary((g, a, b) => g.node('Max', [a, b]));
OPS.broadcast_greater = binary((g, a, b) => g.cast(g.node('Greater', [a, b]), 'int32'));
// x / 0 = 0 (contract); ONNX's integer Div by zero is undefined: divide by Where(b == 0, 1, b)
// and select 0 where b == 0. Integer Div truncates toward zero in ONNX, as in the contract.
OPS.broadcast_div = binary((g, a, b) => {
  const zero = g.scalar32(0), one = g.scalar32(1);
  const isZero = g.node('Equal', [b, zero]);
  const safe = g.node('Where', [isZero, one, b]);
  return g.node('Where', [isZero, zero, g.node('Div', [a, safe])]);
});
OPS.elemwise_add = OPS.broadcast_add;  // ONNX Add broadcasts where the contract wants equal shapes
OPS.elemwise_sub = OPS.broadcast_sub;

function unary(build, schema = {}) {
  return (g, call) => {
    const a = attrs(call, schema);
    const [x] = inputs(call, 1);
    const [xin] = graphInputs(g, call);
    return build(g, as32(g, xin, x), a, x);
  };
}
OPS.abs = unary((g, x) => g.node('Abs', [x]));
OPS.negative = unary((g, x) => g.node('Neg', [x]));
OPS.relu = unary((g, x) => g.node('Relu', [x]));
// bitlen(|x|), 1 for 0: the number of k in [0, 31) with |x| >= 2^k, at least 1; exact in int32.
OPS.cvm_precision = unary((g, x) => {
  const powers = g.constant('int32', [31], Array.from({ length: 31 }, (_, k) => 2 ** k));
  const mag = g.node('Unsqueeze', [g.node('Abs', [x]), g.ints([-1])]);
  const bits = g.cast(g.node('GreaterOrEqual', [mag, powers]), 'int32');
  const len = g.node('ReduceSum', [bits, g.ints([-1])], { keepdims: 0 });
  return g.node('Max', [len, g.scalar32(1)]);
});
OPS.clip = unary((g, x, a) => {
  const lo = A.parseInt32(a.a_min), hi = A.parseInt32(a.a_max);
  return g.node('Clip', [x, g.scalar32(lo), g.scalar32(hi)]);
}, { a_min: null, a_max: null });

function precisionAttr(text, what = 'precision') {
  const p = A.parseInt32(text);
  if (p < 1 || p > 32) throw new LogicError(`${what} ${p} outside [1, 32]`);
  return p;
}
OPS.cvm_clip = unary((g, x, a) => {
  const p = precisionAttr(a.precision);
  A.parseBool(a.is_sign);
  return g.node('Clip', [x, g.scalar32(-alpha(p)), g.scalar32(alpha(p))]);
}, { precision: null, is_sign: 'true' });

function shiftAttrs(a) {
  const p = precisionAttr(a.precision);
  const s = A.parseInt32(a.shift_bit);
  if (s < 1 || s > 32) throw new LogicError(`shift_bit ${s} outside [1, 32]`);
  A.parseBool(a.is_sign);
  return [p, s];
}
// floor(v / m) for int64 v and m > 0: (v - Mod(v, m)) / m, exact (Mod takes the divisor's sign).
function floorDiv(g, v, m) {
  const mc = g.scalar64(m);
  return g.node('Div', [g.node('Sub', [v, g.node('Mod', [v, mc], { fmod: 0 })]), mc]);
}
// T = floor((floor(x / 2^(s-1)) + 1) / 2), clipped to +-alpha(p), in int64.
OPS.cvm_right_shift = unary((g, x, a) => {
  const [p, s] = shiftAttrs(a);
  const q = floorDiv(g, g.cast(x, 'int64'), 2 ** (s - 1));
  const t = floorDiv(g, g.node('Add', [q, g.scalar64(1)]), 2);
  return g.cast(g.node('Clip', [t, g.scalar64(-alpha(p)), g.scalar64(alpha(p))]), 'int32');
}, { precision: null, shift_bit: null, is_sign: 'true' });
OPS.cvm_left_shift = unary((g, x, a) => {
  const [p, s] = shiftAttrs(a);
  const y = g.node('Mul', [g.cast(x, 'int64'), g.scalar64(2n ** BigInt(s))]);
  return g.cast(g.node('Clip', [y, g.scalar64(-alpha(p)), g.scalar64(alpha(p))]), 'int32');
}, { precision: null, shift_bit: null, is_sign: 'true' });

// conv2d: ConvInteger on int8 data and weights (the contract bounds both precisions by 8), plus
// the int32 bias broadcast over (1, OC, 1, 1).
OPS.conv2d = (g, call) => {
  const a = attrs(call, {
    channels: null, kernel_size: null, strides: '(1, 1)', padding: '(0, 0)', dilation: '(1, 1)',
    groups: '1', layout: 'NCHW', kernel_layout: 'OIHW', out_layout: '__undef__', out_dtype: 'same',
    use_bias: 'true',
  });
  A.parseInt32(a.channels);  // ONNX takes the channel count from the weights
  const kernel = pair(a.kernel_size, 'kernel_size');
  const strides = pair(a.strides, 'strides');
  const padding = pair(a.padding, 'padding');
  const dilation = pair(a.dilation, 'dilation');
  const groups = A.parseInt32(a.groups);
  A.parseChoice(a.layout, ['NCHW']);
  A.parseChoice(a.kernel_layout, ['OIHW']);
  A.parseChoice(a.out_layout, ['__undef__', 'NCHW']);
  A.parseChoice(a.out_dtype, ['same', 'int32']);
  const useBias = A.parseBool(a.use_bias);
  const ins = inputs(call, useBias ? 3 : 2);
  const names = graphInputs(g, call);
  let y = g.node('ConvInteger', [as8(g, names[0], ins[0]), as8(g, names[1], ins[1])], {
    kernel_shape: kernel, strides, pads: [padding[0], padding[1], padding[0], padding[1]],
    dilations: dilation, group: groups,
  });
  if (useBias) {
    const bias = g.node('Reshape', [as32(g, names[2], ins[2]), g.ints([1, -1, 1, 1])]);
    y = g.node('Add', [y, bias]);
  }
  return y;
};

// dense: MatMulInteger(X, W^T) on int8, plus the int32 bias.
OPS.dense = (g, call) => {
  const a = attrs(call, { units: null, use_bias: 'true' });
  A.parseInt32(a.units);  // ONNX takes the unit count from the weights
  const useBias = A.parseBool(a.use_bias);
  const ins = inputs(call, useBias ? 3 : 2);
  const names = graphInputs(g, call);
  const w = g.node('Transpose', [as8(g, names[1], ins[1])], { perm: [1, 0] });
  let y = g.node('MatMulInteger', [as8(g, names[0], ins[0]), w]);
  if (useBias) y = g.node('Add', [y, as32(g, names[2], ins[2])]);
  return y;
};

// max_pool2d: ONNX MaxPool has int8 and uint8 kernels, none for int32. int8 storage, or int32
// storage whose precision is at most 8 (every value fits int8), is exact; wider int32 inputs
// are not expressible.
OPS.max_pool2d = (g, call) => {
  const a = attrs(call, { pool_size: null, strides: '(1, 1)', padding: '(0, 0)', layout: 'NCHW', ceil_mode: 'false' });
  const pool = pair(a.pool_size, 'pool_size');
  const strides = pair(a.strides, 'strides');
  const pads = A.parseTuple(a.padding).map(Number);
  if (pads.length === 1) pads.push(pads[0]);
  if (pads.length !== 2) throw new LogicError('padding needs 1 or 2 entries');
  A.parseChoice(a.layout, ['NCHW']);
  const ceil = A.parseBool(a.ceil_mode);
  const [x] = inputs(call, 1);
  const [xin] = graphInputs(g, call);
  if (x.dtype === 'int32' && x.precision > 8) {
    throw new NotExpressible(`ONNX MaxPool has no int32 kernel and the input's precision ${x.precision} > 8 does not fit int8`);
  }
  const y = g.node('MaxPool', [as8(g, xin, x)], {
    kernel_shape: pool, strides, pads: [pads[0], pads[1], pads[0], pads[1]], ceil_mode: ceil ? 1 : 0,
  });
  return g.cast(y, 'int32');
};

// upsampling: Resize, nearest, asymmetric coordinates, floor: Y[h, w] = X[floor(h/s), floor(w/s)].
OPS.upsampling = (g, call) => {
  const a = attrs(call, { scale: null, layout: 'NCHW', method: 'NEAREST_NEIGHBOR' });
  const scale = A.parseInt32(a.scale);
  A.parseChoice(a.layout, ['NCHW']);
  A.parseChoice(a.method, ['NEAREST_NEIGHBOR']);
  const [x] = inputs(call, 1);
  const [xin] = graphInputs(g, call);
  if (x.shape.length !== 4) throw new LogicError('upsampling needs a 4-D input');
  const sizes = g.ints([x.shape[0], x.shape[1], x.shape[2] * scale, x.shape[3] * scale]);
  return g.node('Resize', [as32(g, xin, x), '', '', sizes], {
    mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor',
  });
};

// repeat: Unsqueeze after the axis, Expand it to `repeats`, merge the two axes.
OPS.repeat = (g, call) => {
  const a = attrs(call, { repeats: null, axis: '0' });
  const repeats = A.parseInt32(a.repeats);
  const [x] = inputs(call, 1);
  const [xin] = graphInputs(g, call);
  const n = x.shape.length;
  const axis = normAxis(A.parseInt32(a.axis), n);
  if (repeats < 1) throw new LogicError(`repeats ${repeats} below 1`);
  const expanded = x.shape.slice(0, axis + 1).concat([repeats], x.shape.slice(axis + 1));
  const out = x.shape.map((d, k) => (k === axis ? d * repeats : d));
  const u = g.node('Unsqueeze', [as32(g, xin, x), g.ints([axis + 1])]);
  return g.node('Reshape', [g.node('Expand', [u, g.ints(expanded)]), g.ints(out)]);
};

// tile: the input reshaped to K = max(N, M) dims (leading 1s), then Tile with reps padded likewise.
OPS.tile = (g, call) => {
  const a = attrs(call, { reps: null });
  const reps = A.parseTuple(a.reps);
  const [x] = inputs(call, 1);
  const [xin] = graphInputs(g, call);
  if (reps.length === 0) throw new LogicError('reps is empty');
  const k = Math.max(x.shape.length, reps.length);
  const shape = Array(k - x.shape.length).fill(1).concat(x.shape);
  const r = Array(k - reps.length).fill(1n).concat(reps);
  return g.node('Tile', [g.node('Reshape', [as32(g, xin, x), g.ints(shape)]), g.ints(r)]);
};

OPS.flatten = unary((g, x) => g.node('Flatten', [x], { axis: 1 }));

OPS.concatenate = (g, call) => {
  const a = attrs(call, { axis: '1' });
  const axis = A.parseInt32(a.axis);
  if (call.inputs.length < 1) throw new LogicError('concatenate needs at least one input');
  const names = graphInputs(g, call).map((name, k) => as32(g, name, call.inputs[k]));
  return g.node('Concat', names, { axis });
};

OPS.expand_dims = (g, call) => {
  const a = attrs(call, { axis: null, num_newaxis: '1' });
  const [x] = inputs(call, 1);
  const [xin] = graphInputs(g, call);
  const n = x.shape.length;
  let axis = A.parseInt32(a.axis);
  const k = A.parseInt32(a.num_newaxis);
  if (axis < -n - 1 || axis > n) throw new LogicError(`axis ${axis} outside [${-n - 1}, ${n}]`);
  if (axis < 0) axis += n + 1;
  if (k < 1 || k >= 4096) throw new LogicError(`num_newaxis ${k} outside [1, 4096)`);
  return g.node('Unsqueeze', [as32(g, xin, x), g.ints(Array.from({ length: k }, (_, i) => axis + i))]);
};

// reshape: ONNX Reshape knows literals, 0 (copy the dim at the same position) and -1; where
// only those codes appear the CVM cursor is the position, so they mean the same. -2, -3, -4 have
// no ONNX equivalent.
OPS.reshape = (g, call) => {
  const a = attrs(call, { shape: null });
  const shape = A.parseTuple(a.shape);
  const [x] = inputs(call, 1);
  const [xin] = graphInputs(g, call);
  if (shape.length === 0) throw new LogicError('shape is empty');
  if (shape.some((v) => v < -1n)) {
    throw new NotExpressible(`reshape code ${shape.find((v) => v < -1n)}: ONNX Reshape has only literals, 0 and -1`);
  }
  return g.node('Reshape', [as32(g, xin, x), g.ints(shape)]);
};

OPS.squeeze = (g, call) => {
  const a = attrs(call, { axis: '()' });
  const axes = A.parseTuple(a.axis);
  const [x] = inputs(call, 1);
  const [xin] = graphInputs(g, call);
  const n = x.shape.length;
  const x32 = as32(g, xin, x);
  const y = axes.length ? g.node('Squeeze', [x32, g.ints(axes)]) : g.node('Squeeze', [x32]);
  // (1,) where nothing remains (ONNX gives a 0-d tensor).
  const removed = axes.length
    ? new Set(axes.map((v) => (v < 0n ? Number(v) + n : Number(v)))).size
    : x.shape.filter((d) => d === 1).length;
  return removed >= n ? g.node('Reshape', [y, g.ints([1])]) : y;
};

OPS.transpose = (g, call) => {
  const a = attrs(call, { axes: '()' });
  const axes = A.parseTuple(a.axes);
  const [x] = inputs(call, 1);
  const [xin] = graphInputs(g, call);
  const n = x.shape.length;
  const perm = axes.map((v) => (v < 0n ? Number(v) + n : Number(v)));
  return g.node('Transpose', [as32(g, xin, x)], perm.length ? { perm } : {});
};

// strided_slice: ONNX Slice clamps starts to [0, n] and ends to [0, n] for positive steps, as the
// contract does; for negative steps it clamps starts to [0, n-1] where the contract's range is
// [-1, n-1] (a difference, docs/conformance/onnxruntime.md), ends to [-1, n-1] as the contract. Missing entries are written out
// as the contract's defaults: begin 0, end n_i (1 past the rank, where ONNX Runtime refuses the
// axis anyway), stride 1. Entries given are passed as they are.
OPS.strided_slice = (g, call) => {
  const a = attrs(call, { begin: '()', end: '()', stride: '()' });
  const begin = A.parseTuple(a.begin), end = A.parseTuple(a.end), stride = A.parseTuple(a.stride);
  const [x] = inputs(call, 1);
  const [xin] = graphInputs(g, call);
  const k = Math.max(begin.length, end.length, stride.length);
  const x32 = as32(g, xin, x);
  if (k === 0) return g.node('Identity', [x32]);
  const pick = (list, i, def) => (i < list.length ? list[i] : def);
  const starts = [], ends = [], steps = [];
  for (let i = 0; i < k; ++i) {
    starts.push(pick(begin, i, 0n));
    ends.push(pick(end, i, i < x.shape.length ? x.shape[i] : 1));
    steps.push(pick(stride, i, 1n));
  }
  const axes = [...Array(k).keys()];
  return g.node('Slice', [x32, g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps)]);
};
OPS.slice = OPS.strided_slice;

// take: the indices clamped into range (Clip), then Gather.
function clampedIndices(g, name, t, hi) {
  return g.node('Clip', [g.cast(name, 'int64'), g.scalar64(0), g.scalar64(hi)]);
}
OPS.take = (g, call) => {
  const a = attrs(call, { axis: 'None' });
  const axis = A.parseOptionalInt(a.axis);
  const [x, idx] = inputs(call, 2);
  const [xin, iin] = graphInputs(g, call);
  const x32 = as32(g, xin, x);
  if (axis === null) {
    const flat = g.node('Reshape', [x32, g.ints([-1])]);
    return g.node('Gather', [flat, clampedIndices(g, iin, idx, cw.elementsOf(x.shape) - 1)], { axis: 0 });
  }
  const ax = normAxis(axis, x.shape.length);
  return g.node('Gather', [x32, clampedIndices(g, iin, idx, x.shape[ax] - 1)], { axis: ax });
};

OPS.cvm_lut = (g, call) => {
  const a = attrs(call, { in_dim: null });
  const inDim = A.parseInt32(a.in_dim);
  const [idx, table] = inputs(call, 2);
  const [iin, tin] = graphInputs(g, call);
  const size = cw.elementsOf(table.shape);
  if (inDim !== size) throw new LogicError(`in_dim ${inDim} is not the table's size ${size}`);
  const flat = g.node('Reshape', [as32(g, tin, table), g.ints([-1])]);
  return g.node('Gather', [flat, clampedIndices(g, iin, idx, size - 1)], { axis: 0 });
};

// slice_like: Slice to the second input's dims on the listed axes (every axis when empty).
OPS.slice_like = (g, call) => {
  const a = attrs(call, { axis: '()' });
  const axes = A.parseTuple(a.axis);
  const [x, like] = inputs(call, 2);
  const [xin] = graphInputs(g, call);
  const n = x.shape.length;
  let list;
  if (axes.length === 0) {
    if (like.shape.length !== n) throw new LogicError('slice_like with no axis needs inputs of one rank');
    list = [...Array(n).keys()];
  } else {
    list = [...new Set(axes.map((v) => normAxis(v, n)))];  // a repeated axis sets the same end
    for (const ax of list) {
      if (ax >= like.shape.length) throw new LogicError(`axis ${ax} outside the second input's rank`);
    }
  }
  const ends = list.map((ax) => like.shape[ax]);
  return g.node('Slice', [as32(g, xin, x), g.ints(list.map(() => 0)), g.ints(ends), g.ints(list)]);
};

// where: Where(C != 0, x, y); a 1-D condition of x's first dim is reshaped to (n0, 1, ..., 1).
OPS.where = (g, call) => {
  noAttrs(call);
  const [c, x, y] = inputs(call, 3);
  const [cin, xin, yin] = graphInputs(g, call);
  let cond = g.cast(cin, 'bool');
  if (c.shape.length === 1 && x.shape.length > 1) {
    cond = g.node('Reshape', [cond, g.ints([c.shape[0]].concat(Array(x.shape.length - 1).fill(1)))]);
  }
  return g.node('Where', [cond, as32(g, xin, x), as32(g, yin, y)]);
};

// pad: Pad, constant mode; ONNX orders pads as every begin, then every end.
OPS.pad = (g, call) => {
  const a = attrs(call, { pad_width: null, constant_value: '0', mode: 'constant' });
  const widths = A.parseTuple(a.pad_width);
  const value = A.parseInt32(a.constant_value);
  A.parseChoice(a.mode, ['constant']);
  const [x] = inputs(call, 1);
  const [xin] = graphInputs(g, call);
  const n = x.shape.length;
  if (widths.length !== 2 * n) throw new LogicError(`pad_width needs ${2 * n} entries`);
  const pads = [...Array(n).keys()].map((i) => widths[2 * i]).concat([...Array(n).keys()].map((i) => widths[2 * i + 1]));
  return g.node('Pad', [as32(g, xin, x), g.ints(pads), g.scalar32(value)], { mode: 'constant' });
};

// Not mapped, with why (the hello leaves them out; the harness reports their calls skipped).
const UNSUPPORTED = {
  get_valid_counts: 'no ONNX operator; the score filter and compaction could be composed but not its -1 fill layout in one exact graph here',
  non_max_suppression: 'ONNX NonMaxSuppression takes float boxes and returns selected indices, not the CVM row layout; its IoU is float',
  ov_strided_slice: 'ONNX Slice has no new-axis, shrink or ellipsis masks (adapters/tfjs maps it to TensorFlow.js)',
};

// Sessions by model bytes: one graph serves every call of the same operator, attributes, input
// dtypes and (where the translation used them) shapes.
const sessions = new Map();
const MAX_SESSIONS = 128;
// One thread per session: each session owns its thread pools, and a few hundred cached sessions'
// threads do not fit the harness's default 4 GiB address-space limit on the worker (thread
// creation failed in onnxruntime's PosixThread).
const sessionOptions = {
  executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', logSeverityLevel: 4,
  intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
  // No per-session arena: an arena keeps the largest output it ever held, and a few sessions that
  // ran an oversized call then exhaust the address space (later calls fail to allocate).
  enableCpuMemArena: false, enableMemPattern: false,
};

async function session(bytes) {
  const key = bytes.toString('base64');
  let s = sessions.get(key);
  if (s === undefined) {
    s = await ort.InferenceSession.create(bytes, sessionOptions);
    if (sessions.size >= MAX_SESSIONS) {
      const oldest = sessions.keys().next().value;
      sessions.get(oldest).release();
      sessions.delete(oldest);
    }
    sessions.set(key, s);
  }
  return s;
}

const ORT_TYPE = { int8: 'int8', int32: 'int32' };

function ortFailure(e) {
  const message = `onnxruntime: ${e && e.message ? e.message : String(e)}`;
  if (/bad_alloc|bad allocation|Failed to allocate|out of memory/i.test(message)) {
    const err = new Error(message);
    err.name = 'ResourceError';
    return err;
  }
  return new LogicError(message);
}

async function handle(call) {
  const translate = OPS[call.op];
  if (!translate) throw new LogicError(`unknown or unsupported operator '${call.op}'`);
  const g = new Graph();
  let output;
  try {
    output = translate(g, call);
  } catch (e) {
    if (e instanceof NotExpressible) {
      throw new Error(`not expressible in ONNX: ${e.message}`);  // runtime_error: a limit
    }
    throw e;
  }
  const bytes = g.encode(output);
  const feeds = {};
  call.inputs.forEach((t, k) => { feeds[`in${k}`] = new ort.Tensor(ORT_TYPE[t.dtype], t.data, t.shape); });
  let result;
  try {
    const s = await session(bytes);
    result = (await s.run(feeds))[output];
  } catch (e) {
    throw ortFailure(e);
  }
  const dims = result.dims.map(Number);
  if (dims.length < 1 || dims.length > 6 || dims.some((d) => d < 1 || d > 2 ** 24)) {
    throw new LogicError(`onnxruntime returned an output of shape [${dims}], outside the contract's tensor limits`,
                         'global.tensor_limits');
  }
  if (result.type !== 'int32') throw new Error(`onnxruntime returned ${result.type}`);
  return [cw.tensor('int32', dims, result.data, 0)];
}

const ops = Object.keys(OPS);
if (require.main === module) {
  if (process.argv.includes('--unsupported')) {
    for (const [op, why] of Object.entries(UNSUPPORTED)) console.log(`${op}: ${why}`);
    process.exit(0);
  }
  process.stderr.write(`onnxruntime-node ${require('../js-deps/deps').version('onnxruntime-node')}; ` +
                       `not mapped: ${Object.keys(UNSUPPORTED).join(', ')}\n`);
  cw.serve(`onnxruntime-node ${require('../js-deps/deps').version('onnxruntime-node')} (cpu)`, ops, handle,
           cw.FLAG_NO_PRECISION).then((status) => process.exit(status));
}

module.exports = { OPS, UNSUPPORTED, handle, path };
