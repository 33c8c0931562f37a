#include "infer/vision.h"

#include <algorithm>

namespace cvm::infer {
namespace {

void require_input_count(const OpContext& ctx, size_t count) {
  if (ctx.inputs.size() != count) {
    fail_rule(rules::kInputCount, "expected ", count, " input(s), got ", ctx.inputs.size());
  }
}

// The fixed NMS attributes: their default is their only accepted value.
void require_int(const OpContext& ctx, const char* name, int64_t only) {
  const int64_t value = ctx.attrs.i(name);
  if (value != only) {
    fail_rule(concat(name, "_not_", only), name, " ", value, " is not supported; it must be ",
              only);
  }
}

void require_bool(const OpContext& ctx, const char* name, bool only) {
  if (ctx.attrs.b(name) != only) {
    fail_rule(concat(name, only ? "_false" : "_true"), name, " must be ", only ? "true" : "false");
  }
}

}  // namespace

GetValidCountsInference infer_get_valid_counts(const OpContext& ctx) {
  require_input_count(ctx, 1);
  validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  if (x.ndim() != 3) fail_rule("x_not_3d", "X must be (B, N, K), got ", shape_str(x.shape()));
  GetValidCountsInference inf;
  inf.batches = x.dim(0);
  inf.row_count = x.dim(1);
  inf.row_length = x.dim(2);
  if (inf.row_length < 2 || inf.row_length > 32) {
    fail_rule("k_outside_2_32", "row length K = ", inf.row_length, " must be in [2, 32]");
  }
  inf.score_threshold = ctx.attrs.i("score_threshold");
  // N * K <= 2^30 (tensor limit), so the count precision is at most bitlen(2^30 + 1) + 1 = 32.
  inf.count = {{inf.batches},
               bitlen(static_cast<uint64_t>(inf.row_count * inf.row_length + 1)) + 1};
  inf.rows = {x.shape(), std::max(x.precision(), 2)};  // the -1 fill needs 2 bits
  validate_output(inf.count);
  validate_output(inf.rows);
  return inf;
}

NmsInference infer_nms(const OpContext& ctx) {
  require_input_count(ctx, 2);
  validate_inputs(ctx);
  const Tensor& x = ctx.inputs[0];
  const Tensor& counts = ctx.inputs[1];
  if (x.ndim() != 3) fail_rule("x_not_3d", "X must be (B, N, 6), got ", shape_str(x.shape()));
  if (x.dim(2) != kNmsRowLength) {
    fail_rule("x_last_dim_not_6", "X must be (B, N, 6), got ", shape_str(x.shape()));
  }
  if (counts.ndim() != 1) {
    fail_rule("valid_count_not_1d", "valid_count must be (", x.dim(0), ",), got ",
              shape_str(counts.shape()));
  }
  if (counts.dim(0) != x.dim(0)) {
    fail_rule("valid_count_length_mismatch", "valid_count must be (", x.dim(0), ",), got ",
              shape_str(counts.shape()));
  }
  // Above 30 bits a coordinate difference overflows int32 and an area product int64's margin.
  if (x.precision() > 30) {
    fail_rule("x_precision_above_30", "X precision ", x.precision(), " exceeds 30");
  }
  NmsInference inf;
  inf.iou_threshold = ctx.attrs.i("iou_threshold");
  if (inf.iou_threshold <= 0) {
    fail_rule("iou_threshold_not_positive", "iou_threshold ", inf.iou_threshold, " must be > 0");
  }
  require_int(ctx, "coord_start", 2);
  require_int(ctx, "score_index", 1);
  require_int(ctx, "id_index", 0);
  require_bool(ctx, "return_indices", false);
  require_bool(ctx, "invalid_to_bottom", true);
  inf.max_output_size = ctx.attrs.i("max_output_size");
  inf.top_k = ctx.attrs.i("top_k");
  inf.force_suppress = ctx.attrs.b("force_suppress");
  inf.batches = x.dim(0);
  inf.row_count = x.dim(1);
  inf.output = {x.shape(), std::max(x.precision(), 2)};
  validate_output(inf.output);
  return inf;
}

}  // namespace cvm::infer
