'use strict';
// Why TensorFlow.js's strided slice differs from the contract, one rule per reason
// (adapters/js-deps/classify.js; docs/conformance/tfjs.md explains each).
const NAME = 'tfjs';
const PRECISION_RULES = new Set(['global.precision_range', 'global.value_range', 'global.int8_precision']);

const RULES = {
  'no-precision': { kind: 'limit', short: 'TensorFlow.js tensors carry no precision',
    why: 'TensorFlow.js tensors carry no precision: the rules on input precisions, int8 storage and values within +-alpha(p) have nothing to check; it slices the values' },
  'tf-shrink-stride-1': { kind: 'contract', short: 'TF wants stride 1 on a shrink step',
    why: 'TensorFlow refuses a stride other than 1 on a shrink-axis step ("only stride 1 allowed on non-range indexing"); OpenVINO StridedSlice-1 (the contract) ignores the stride of a shrink step' },
  'tf-mask-precedence': { kind: 'contract', short: 'TF resolves two masks at one step by precedence',
    why: 'TensorFlow accepts several masks at one step and resolves them by precedence (ellipsis over new axis over shrink; a shrink step ignores begin/end masks); the contract rejects two masks at one step' },
  'tf-ignored-stride-zero': { kind: 'contract', short: 'TF ignores the stride of a new-axis step',
    why: 'TensorFlow ignores the stride of a new-axis or ellipsis step, so a 0 there is accepted; the contract rejects a stride of 0 at any step' },
  'tfjs-list-lengths': { kind: 'limit', short: 'tfjs pads begin/end/stride of unequal lengths',
    why: 'tf.stridedSlice accepts begin, end and strides of different lengths (missing entries are taken as full range / 1), where TensorFlow\'s kernel and the contract require equal lengths' },
  'tf-reverse-begin-clamp': { kind: 'contract', short: 'TF clamps a reverse begin below -n to before the first element',
    why: 'With a negative stride the contract (OpenVINO StridedSlice-1) clamps begin to [0, n-1], so a begin below -n reads the first element; TensorFlow clamps it to -1 and the slice is empty (shape [0], which the worker reports as outside the tensor limits)' },
  'bug-tfjs-shrink-stride': { kind: 'bug', short: 'tfjs shrink step with stride != 1: wrong element or malformed tensor',
    why: 'tfjs-core 4.22 bug: a shrink-axis step with a stride other than 1, which TensorFlow refuses, is not always refused by tfjs: it returns the wrong element, or a tensor whose data does not fill its shape (shape [1, 2] holding 1 value) (docs/conformance/tfjs.md, tfjs-shrink-stride)' },
  'bug-tfjs-shrink-reverse': { kind: 'bug', short: 'tfjs shrink + reverse step: wrong values or out-of-range error',
    why: 'tfjs-core 4.22 bug: a shrink-axis step followed by a reversed (negative-stride) step reads the wrong elements (x[1, ::-1] of [[0,1],[2,3],[4,5]] gives [1, 2], not [3, 2]) or throws "Requested out of range element" (docs/conformance/tfjs.md, tfjs-shrink-reverse)' },
};

// Every 0 stride sits at a new-axis or ellipsis step (whose stride TensorFlow ignores).
function parseList(text) {
  const body = String(text || '').replace(/[()\[\]\s]/g, '');
  return body ? body.split(',').filter((v) => v !== '').map(Number) : [];
}
function zeroStrideOnlyOnIgnoredSteps(attrs) {
  if (!attrs) return false;
  const stride = parseList(attrs.stride), na = parseList(attrs.new_axis_mask), el = parseList(attrs.ellipsis_mask);
  return stride.every((s, i) => s !== 0 || na[i] === 1 || el[i] === 1);
}

// The steps of a call: [{shrink, stride}] from its attributes.
function steps(attrs) {
  const stride = parseList(attrs && attrs.stride), shrink = parseList(attrs && attrs.shrink_axis_mask);
  const m = parseList(attrs && attrs.begin).length;
  return Array.from({ length: m }, (_, i) => ({ shrink: shrink[i] === 1, stride: stride.length ? stride[i] : 1 }));
}
const shrinkWithStride = (attrs) => steps(attrs).some((s) => s.shrink && s.stride !== 1);
const shrinkThenReverse = (attrs) => {
  const st = steps(attrs);
  return st.some((s, i) => s.shrink && st.slice(i + 1).some((t) => !t.shrink && t.stride < 0));
};

function classify(r) {
  const msg = r.message || '';
  const rule = r.rule || '';
  const pick = (id) => ({ id, ...RULES[id] });
  if (r.op === 'ov_strided_slice' && r.expect === 'ok' && r.outcome === 'logic_error' && /stride 1 allowed on non-range/.test(msg)) return pick('tf-shrink-stride-1');
  if (r.op === 'ov_strided_slice' && /tfjs returned a tensor of shape .* holding/.test(msg)) return pick('bug-tfjs-shrink-stride');
  if (r.op === 'ov_strided_slice' && /number of provided coordinates .* must match the rank/.test(msg) && shrinkWithStride(r.attrs)) return pick('tf-shrink-stride-1');
  if (r.op === 'ov_strided_slice' && r.expect === 'ok' && /Requested out of range element/.test(msg)) return pick('bug-tfjs-shrink-reverse');
  if (r.op === 'ov_strided_slice' && r.expect === 'ok' && r.outcome === 'logic_error' && /outside the contract's tensor limits/.test(msg) && /-/.test(String((r.attrs || {}).stride || ''))) return pick('tf-reverse-begin-clamp');
  if (r.op === 'ov_strided_slice' && r.expect === 'ok' && r.outcome === 'ok' && /value/.test(r.detail || '')) {
    if (shrinkWithStride(r.attrs)) return pick('bug-tfjs-shrink-stride');
    if (shrinkThenReverse(r.attrs)) return pick('bug-tfjs-shrink-reverse');
  }
  if (r.expect !== 'logic_error' || r.outcome !== 'ok') return null;
  if (PRECISION_RULES.has(rule)) return pick('no-precision');
  if (rule === 'ov_strided_slice.two_masks_at_one_step') return pick('tf-mask-precedence');
  if (rule === 'ov_strided_slice.stride_zero' && zeroStrideOnlyOnIgnoredSteps(r.attrs)) return pick('tf-ignored-stride-zero');
  if (/^ov_strided_slice\.(begin_end_length_mismatch|stride_length_mismatch)$/.test(rule)) return pick('tfjs-list-lengths');
  return null;
}

module.exports = { NAME, RULES, classify };
