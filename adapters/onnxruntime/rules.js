'use strict';
// Why ONNX Runtime's results differ from the contract, one rule per reason
// (adapters/js-deps/classify.js; docs/conformance/onnxruntime.md explains each). A difference
// matches a rule by its case (operator, the rule it breaks, outcome, message); one that matches
// none is unexplained.
const NAME = 'onnxruntime';
const PRECISION_RULES = new Set(['global.precision_range', 'global.value_range', 'global.int8_precision',
  'global.output_precision', 'conv2d.data_precision_above_8', 'conv2d.weight_precision_above_8',
  'dense.data_precision_above_8', 'dense.weight_precision_above_8', 'cvm_left_shift.shift_past_32_bits',
  'clip.a_min_below_range', 'pad.constant_value_out_of_range']);

const RULES = {
  'no-precision': { kind: 'limit', short: 'ONNX tensors carry no precision',
    why: 'ONNX tensors carry no precision: the rules on input precisions, int8 storage, values within +-alpha(p), inferred output precisions and the bounds derived from them (conv2d/dense p <= 8, p0 + shift_bit <= 32, INT32_MIN bounds) have nothing to check in ONNX Runtime; it computes the call' },
  'no-tensor-limits': { kind: 'limit', short: 'no tensor limits; the allocation fails',
    why: 'ONNX has no tensor limits (2^30 elements, 2^24 per dim): ONNX Runtime attempts the oversized output and its allocation fails (runtime_error) instead of the contract\'s logic_error' },
  'max-attr': { kind: 'contract', short: 'the [1, 4096) ranges are CVM\'s',
    why: 'The max_attr = 4096 ranges of strides, padding, dilation, reps, scale and pad_width are the CVM contract\'s; ONNX attributes have no such bound, so ONNX Runtime computes the call' },
  'onnx-broadcasts': { kind: 'contract', short: 'ONNX broadcasts',
    why: 'ONNX Add, Sub and Where broadcast numpy-style where the contract requires equal shapes (elemwise_add/sub, where\'s x/y/cond, the conv2d/dense bias added by Add)' },
  'clip-min-not-below-max': { kind: 'contract', short: 'ONNX Clip defines min >= max',
    why: 'ONNX Clip accepts min >= max (every value becomes max); the contract requires a_min < a_max' },
  'shape-from-weights': { kind: 'contract', short: 'ONNX takes channels/units from the weights',
    why: 'ConvInteger and MatMulInteger take the output channels / units from the weight tensor (ONNX has no channels or units attribute to check against it), and MatMulInteger multiplies N-D data, where the contract wants dense data 2-D' },
  'reduce-repeated-axis': { kind: 'limit', short: 'ReduceSum/ReduceMax accept a repeated axis',
    why: 'ONNX Runtime\'s ReduceSum and ReduceMax accept an axis listed twice (the ONNX operator definitions do not forbid it); the contract rejects it' },
  'pool-window-rules': { kind: 'contract', short: 'ONNX MaxPool has no window-placement rules',
    why: 'ONNX MaxPool has no rule that the pool fits the padded input or that the last ceil-mode window starts inside the image; ONNX Runtime computes such windows' },
  'slice-clamps': { kind: 'contract', short: 'ONNX Slice clamps ends to the extent',
    why: 'slice_like maps to ONNX Slice, which clamps an end past the extent; the contract rejects a shape_like dim larger than the data\'s' },
  'bug-ort-slice-int-max-end': { kind: 'bug', short: 'Slice reads ends = INT32_MAX/INT64_MAX with a negative step as -1',
    why: 'onnxruntime bug: Slice takes an end of exactly INT32_MAX or INT64_MAX with a negative step as "to the start" (-1), where the ONNX spec clamps it to dim-1 as any other large end (INT32_MAX-1 gives the spec\'s result); docs/conformance/onnxruntime.md, ort-slice-int-max-end' },
  'slice-negative-begin-clamp': { kind: 'contract', short: 'ONNX clamps a negative-step start to [0, n-1]',
    why: 'With a negative stride the contract clamps begin to [-1, n-1] (a begin below -n is before the first element: an empty slice), ONNX Slice clamps starts to [0, n-1] (it takes element 0)' },
  'reshape-codes': { kind: 'limit', short: 'ONNX Reshape has no -2/-3/-4 codes',
    why: 'ONNX Reshape knows literals, 0 and -1 only: a shape with -2, -3, -4 (or a code below -4) is not expressible, reported by the adapter as a runtime_error' },
  'maxpool-int32': { kind: 'limit', short: 'ONNX MaxPool has no int32 kernel',
    why: 'ONNX MaxPool is defined for float and 8-bit integers only: an int32 input of precision above 8 is not expressible (runtime_error from the adapter); int8 storage and int32 inputs of precision <= 8 go through MaxPool on int8' },
};

function classify(r) {
  const msg = r.message || '';
  const rule = r.rule || '';
  if (r.op === 'reshape' && r.outcome === 'runtime_error' && /not expressible/.test(msg)) return { id: 'reshape-codes', ...RULES['reshape-codes'] };
  if (r.op === 'max_pool2d' && r.outcome === 'runtime_error' && /not expressible/.test(msg)) return { id: 'maxpool-int32', ...RULES['maxpool-int32'] };
  const pick = (id) => ({ id, ...RULES[id] });
  if (r.op === 'strided_slice' || r.op === 'slice') {
    const ends = String((r.attrs || {}).end || ''), strides = String((r.attrs || {}).stride || '');
    if (/\b(9223372036854775807|2147483647)\b/.test(ends) && /-/.test(strides) && r.outcome === 'ok') return pick('bug-ort-slice-int-max-end');
    if (r.rule === 'strided_slice.empty_slice' && /-/.test(strides) && r.outcome === 'ok') return pick('slice-negative-begin-clamp');
  }
  if (r.expect !== 'logic_error') return null;  // a valid call that differs: not a known reason
  if (PRECISION_RULES.has(rule) && r.outcome === 'ok') return pick('no-precision');
  if (rule === 'global.tensor_limits' && (r.outcome === 'crash' || (r.outcome === 'runtime_error' && /onnxruntime:/.test(msg)))) return pick('no-tensor-limits');
  if (r.outcome !== 'ok') return null;
  if (/_above_4095$|_at_or_above_4096$|^pad\.pad_width_out_of_range$/.test(rule)) return pick('max-attr');
  if (/^elemwise_(add|sub)\.shapes_differ$|^where\.|^(conv2d|dense)\.bias_shape_mismatch$/.test(rule)) return pick('onnx-broadcasts');
  if (rule === 'clip.a_min_not_below_a_max') return pick('clip-min-not-below-max');
  if (/^conv2d\.(channels_below_1|weight_shape_mismatch)$|^dense\.(units_below_1|weight_shape_mismatch|data_not_2d)$/.test(rule)) return pick('shape-from-weights');
  if (/^(sum|max)\.axis_duplicate$/.test(rule)) return pick('reduce-repeated-axis');
  if (/^max_pool2d\.(ceil_mode_last_window_outside|pool_size_exceeds_padded_input)$/.test(rule)) return pick('pool-window-rules');
  if (rule === 'slice_like.like_dim_larger') return pick('slice-clamps');
  return null;
}

module.exports = { NAME, RULES, classify };
