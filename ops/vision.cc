// Records of the vision family: get_valid_counts (alias get_valid_count), non_max_suppression
// (contract: docs/ops/vision.md). Every expected output below was worked out by hand from the
// contract; the overlap percentages used are noted next to the rows that need them.
#include "schema.h"

namespace cvm::ops {

namespace {

// `rows` (each K values) followed by -1 fill up to `total_rows` rows.
std::vector<int32_t> rows_then_fill(std::vector<std::vector<int32_t>> rows, size_t total_rows,
                                    size_t row_length) {
  std::vector<int32_t> values;
  for (const auto& row : rows) values.insert(values.end(), row.begin(), row.end());
  values.resize(total_rows * row_length, -1);
  return values;
}

std::vector<int32_t> concat_rows(std::vector<std::vector<int32_t>> rows) {
  std::vector<int32_t> values;
  for (const auto& row : rows) values.insert(values.end(), row.begin(), row.end());
  return values;
}

OpInfo get_valid_counts_op() {
  OpInfo op{"get_valid_counts", "vision", {"get_valid_count"}, 1, 1,
            {optional("score_threshold", AttrKind::kInt, "0")}, {}};
  // X (1, 4, 3): scores 5, 0, -3, 7. valid_count precision bitlen(4*3+1)+1 = 5.
  const ExampleTensor x = T({1, 4, 3}, {0, 5, 1, 1, 0, 2, 2, -3, 3, 3, 7, 4}, 8);
  // K = 32: row 0 is 0..31 (score 1), row 1 is 0, -1, ..., -31 (score -1).
  std::vector<int32_t> wide;
  for (int32_t k = 0; k < 32; ++k) wide.push_back(k);
  for (int32_t k = 0; k < 32; ++k) wide.push_back(-k);
  std::vector<int32_t> wide_out(wide.begin(), wide.begin() + 32);
  wide_out.resize(64, -1);
  op.examples = {
      ok("default_threshold_0", "{}", {x},
         {T({1}, {2}, 5), T({1, 4, 3}, rows_then_fill({{0, 5, 1}, {3, 7, 4}}, 4, 3), 8)}),
      ok("threshold_is_strict", R"J({"score_threshold": "5"})J", {x},
         {T({1}, {1}, 5), T({1, 4, 3}, rows_then_fill({{3, 7, 4}}, 4, 3), 8)}),
      ok("negative_threshold_keeps_every_row", R"J({"score_threshold": "-4"})J", {x},
         {T({1}, {4}, 5), T({1, 4, 3}, {0, 5, 1, 1, 0, 2, 2, -3, 3, 3, 7, 4}, 8)}),
      // N*K = 6: valid_count precision bitlen(7)+1 = 4.
      ok("two_batches", "{}", {T({2, 3, 2}, {1, 2, 3, -1, 4, 9, 5, 0, 6, 0, 7, 1}, 6)},
         {T({2}, {2, 1}, 4), T({2, 3, 2}, {1, 2, 4, 9, -1, -1, 7, 1, -1, -1, -1, -1}, 6)}),
      // N*K = 64: valid_count precision bitlen(65)+1 = 8.
      ok("k_32", "{}", {T({1, 2, 32}, wide, 6)}, {T({1}, {1}, 8), T({1, 2, 32}, wide_out, 6)}),
      ok("k_2_no_valid_row", "{}", {T({1, 3, 2}, {1, 0, 2, -7, 3, 0}, 4)},
         {T({1}, {0}, 4), T({1, 3, 2}, {-1, -1, -1, -1, -1, -1}, 4)}),
      // Precision 1 holds only 0; Y needs 2 bits for the -1 fill, and gets them in both cases.
      ok("precision_1_all_filled", "{}", {T({1, 2, 2}, {0, 0, 0, 0}, 1)},
         {T({1}, {0}, 4), T({1, 2, 2}, {-1, -1, -1, -1}, 2)}),
      ok("precision_1_all_valid", R"J({"score_threshold": "-1"})J", {T({1, 2, 2}, {0, 0, 0, 0}, 1)},
         {T({1}, {2}, 4), T({1, 2, 2}, {0, 0, 0, 0}, 2)}),
      ok("int8_input", "{}", {T8({1, 3, 2}, {-127, 127, 0, -127, 127, 1}, 8)},
         {T({1}, {2}, 4), T({1, 3, 2}, {-127, 127, 127, 1, -1, -1}, 8)}),
      ok("precision_32_threshold_just_below_score", R"J({"score_threshold": "2147483646"})J",
         {T({1, 2, 2}, {2147483647, 2147483647, -2147483647, -2147483647}, 32)},
         {T({1}, {1}, 4), T({1, 2, 2}, {2147483647, 2147483647, -1, -1}, 32)}),
      ok("threshold_int32_min_keeps_every_row", R"J({"score_threshold": "-2147483648"})J",
         {T({1, 2, 2}, {1, -2147483647, 2, 0}, 32)},
         {T({1}, {2}, 4), T({1, 2, 2}, {1, -2147483647, 2, 0}, 32)}),
      ok("threshold_int32_max_keeps_no_row", R"J({"score_threshold": "2147483647"})J",
         {T({1, 2, 2}, {1, 2147483647, 2, 0}, 32)},
         {T({1}, {0}, 4), T({1, 2, 2}, {-1, -1, -1, -1}, 32)}),
      bad("k_1", "{}", {T({1, 2, 1}, {0, 1}, 8)}),
      bad("k_33", "{}", {T({1, 1, 33}, std::vector<int32_t>(33, 1), 8)}),
      bad("x_1d", "{}", {T({4}, {0, 1, 2, 3}, 8)}),
      bad("x_2d", "{}", {T({2, 3}, {0, 1, 2, 3, 4, 5}, 8)}),
      bad("x_4d", "{}", {T({1, 1, 2, 2}, {0, 1, 2, 3}, 8)}),
      bad("score_threshold_above_int32", R"J({"score_threshold": "2147483648"})J", {x}),
      bad("score_threshold_malformed", R"J({"score_threshold": "0.5"})J", {x}),
      bad("unknown_attribute", R"J({"iou_threshold": "50"})J", {x}),
      bad("two_inputs", "{}", {x, x}),
      bad("value_outside_precision", "{}", {T({1, 1, 2}, {0, 128}, 8)}),
  };
  return op;
}

std::vector<AttrSpec> nms_attrs() {
  return {optional("iou_threshold", AttrKind::kInt, "50"),
          optional("max_output_size", AttrKind::kInt, "-1"),
          optional("top_k", AttrKind::kInt, "-1"),
          optional("force_suppress", AttrKind::kBool, "false"),
          // Fixed by the contract: any other value is a logic error.
          optional("coord_start", AttrKind::kInt, "2"),
          optional("score_index", AttrKind::kInt, "1"),
          optional("id_index", AttrKind::kInt, "0"),
          optional("return_indices", AttrKind::kBool, "false"),
          optional("invalid_to_bottom", AttrKind::kBool, "true")};
}

const std::vector<int32_t> kFill = {-1, -1, -1, -1, -1, -1};

// Boxes used below, (x1, y1, x2, y2), and their overlap percentages:
//   A = (0,0,4,4) area 16; C = (1,0,5,4): I = 3*4 = 12, U = 20, iou(A,C) = 1200/20 = 60.
//   B = (2,0,6,4): I = 2*4 = 8, U = 24, iou(A,B) = 800/24 = 33.
//   D = (0,0,4,2) area 8: I = 8, U = 16, iou(A,D) = 800/16 = 50.
//   E = (10,10,12,12): disjoint from all of them, iou 0.
std::vector<Example> nms_worked_examples() {
  // Sorted by score: r1 (9, C), r3 (7, E), r2 (5, A with id 1), r0 (3, A).
  const ExampleTensor mixed =
      T({1, 4, 6}, concat_rows({{0, 3, 0, 0, 4, 4}, {0, 9, 1, 0, 5, 4}, {1, 5, 0, 0, 4, 4},
                                {0, 7, 10, 10, 12, 12}}), 8);
  const ExampleTensor four = T({1}, {4}, 4);
  const std::vector<int32_t> r0 = {0, 3, 0, 0, 4, 4}, r1 = {0, 9, 1, 0, 5, 4},
                             r2 = {1, 5, 0, 0, 4, 4}, r3 = {0, 7, 10, 10, 12, 12};
  // r0 = A (score 8), r1 = D (score 6), same id: iou exactly 50.
  const ExampleTensor at_threshold = T({1, 2, 6}, {1, 8, 0, 0, 4, 4, 1, 6, 0, 0, 4, 2}, 8);
  // Scores 4, 4, 6: sorted r2, r0, r1 (the tie keeps input order); iou(r0, r1) = iou(A,B) = 33.
  const ExampleTensor ties =
      T({1, 3, 6}, {2, 4, 0, 0, 4, 4, 2, 4, 2, 0, 6, 4, 2, 6, 20, 20, 21, 21}, 8);
  const ExampleTensor three = T({1}, {3}, 3);
  // r0 has id -1 and the same box as r1; all other boxes are disjoint.
  const ExampleTensor negative_id =
      T({1, 4, 6}, concat_rows({{-1, 9, 0, 0, 1, 1}, {0, 8, 0, 0, 1, 1}, {1, 7, 5, 5, 6, 6},
                                {2, 6, 8, 8, 9, 9}}), 8);
  // Sorted as given; r1 (C) is suppressed by r0 (A), iou 60; r2, r3 are disjoint from all.
  const ExampleTensor limited =
      T({1, 4, 6}, concat_rows({{0, 9, 0, 0, 4, 4}, {0, 8, 1, 0, 5, 4}, {0, 7, 10, 10, 12, 12},
                                {0, 6, 20, 20, 22, 22}}), 8);
  // Two disjoint boxes per batch.
  const ExampleTensor two_batches =
      T({2, 2, 6}, concat_rows({{0, 5, 0, 0, 2, 2}, {0, 6, 4, 4, 6, 6}, {1, 1, 0, 0, 2, 2},
                                {1, 9, 4, 4, 6, 6}}), 8);
  // Point (area 0), x-inverted (area -16), both-inverted (area 16), A (area 16): every pair
  // has sum of areas <= 0 or no positive overlap, so iou 0.
  const ExampleTensor degenerate =
      T({1, 4, 6}, concat_rows({{0, 9, 1, 1, 1, 1}, {0, 8, 4, 0, 0, 4}, {0, 7, 4, 4, 0, 0},
                                {0, 6, 0, 0, 4, 4}}), 8);
  const ExampleTensor identical = T({1, 2, 6}, {3, 5, 0, 0, 3, 3, 3, 4, 0, 0, 3, 3}, 8);
  // Precision 30: outer box W = 2^30-2, H = 2^30-5 (U = W*H, U mod 100 = 18); inner box
  // 644245095 x 1073741816 = I = 60 * floor(U/100) > (2^63-1)/100, so iou = I / (U/100) = 60
  // (the exact ratio 100*I/U is 59.99..., which truncates to 59).
  const ExampleTensor huge = T({1, 2, 6},
                               {0, 9, -536870911, -536870911, 536870911, 536870908,
                                0, 8, -536870911, -536870911, 107374184, 536870905}, 30);
  const ExampleTensor two = T({1}, {2}, 3);
  // int8: (-10,-10,10,10) and (-5,-5,15,15): I = 15*15 = 225, U = 800-225 = 575,
  // iou = 22500/575 = 39.
  const ExampleTensor small8 = T8({1, 2, 6}, {5, 100, -10, -10, 10, 10, 5, 90, -5, -5, 15, 15}, 8);
  const std::vector<int32_t> s0 = {5, 100, -10, -10, 10, 10}, s1 = {5, 90, -5, -5, 15, 15};

  return {
      ok("defaults_same_id_suppressed", "{}", {mixed, four},
         {T({1, 4, 6}, concat_rows({r1, r3, r2, kFill}), 8)}),
      ok("force_suppress_across_ids", R"J({"force_suppress": "true"})J", {mixed, four},
         {T({1, 4, 6}, concat_rows({r1, r3, kFill, kFill}), 8)}),
      ok("iou_threshold_61_keeps_iou_60", R"J({"iou_threshold": "61"})J", {mixed, four},
         {T({1, 4, 6}, concat_rows({r1, r3, r2, r0}), 8)}),
      ok("top_k_0_keeps_nothing", R"J({"top_k": "0"})J", {mixed, four},
         {T({1, 4, 6}, std::vector<int32_t>(24, -1), 8)}),
      ok("top_k_above_count", R"J({"top_k": "10"})J", {mixed, four},
         {T({1, 4, 6}, concat_rows({r1, r3, r2, kFill}), 8)}),
      ok("max_output_size_0_keeps_nothing", R"J({"max_output_size": "0"})J", {mixed, four},
         {T({1, 4, 6}, std::vector<int32_t>(24, -1), 8)}),
      ok("iou_exactly_at_threshold_suppresses", "{}", {at_threshold, T({1}, {2}, 3)},
         {T({1, 2, 6}, concat_rows({{1, 8, 0, 0, 4, 4}, kFill}), 8)}),
      ok("iou_just_below_threshold_keeps", R"J({"iou_threshold": "51"})J",
         {at_threshold, T({1}, {2}, 3)},
         {T({1, 2, 6}, {1, 8, 0, 0, 4, 4, 1, 6, 0, 0, 4, 2}, 8)}),
      ok("fixed_attributes_spelled_out",
         R"J({"coord_start": "2", "score_index": "1", "id_index": "0", "return_indices": "False",
              "invalid_to_bottom": "True", "force_suppress": "0"})J",
         {at_threshold, T({1}, {2}, 3)},
         {T({1, 2, 6}, concat_rows({{1, 8, 0, 0, 4, 4}, kFill}), 8)}),
      ok("score_ties_keep_input_order", R"J({"iou_threshold": "30"})J", {ties, three},
         {T({1, 3, 6}, concat_rows({{2, 6, 20, 20, 21, 21}, {2, 4, 0, 0, 4, 4}, kFill}), 8)}),
      ok("score_ties_iou_33_below_34", R"J({"iou_threshold": "34"})J", {ties, three},
         {T({1, 3, 6},
            concat_rows({{2, 6, 20, 20, 21, 21}, {2, 4, 0, 0, 4, 4}, {2, 4, 2, 0, 6, 4}}), 8)}),
      ok("negative_id_skipped_but_uses_top_k_slot",
         R"J({"top_k": "3", "force_suppress": "True"})J", {negative_id, four},
         {T({1, 4, 6}, concat_rows({{0, 8, 0, 0, 1, 1}, {1, 7, 5, 5, 6, 6}, kFill, kFill}), 8)}),
      ok("negative_id_never_suppresses", R"J({"force_suppress": "1"})J", {negative_id, four},
         {T({1, 4, 6},
            concat_rows({{0, 8, 0, 0, 1, 1}, {1, 7, 5, 5, 6, 6}, {2, 6, 8, 8, 9, 9}, kFill}),
            8)}),
      ok("max_output_size_counts_kept_rows", R"J({"max_output_size": "2"})J", {limited, four},
         {T({1, 4, 6}, concat_rows({{0, 9, 0, 0, 4, 4}, {0, 7, 10, 10, 12, 12}, kFill, kFill}),
            8)}),
      ok("max_output_size_above_kept", R"J({"max_output_size": "5"})J", {limited, four},
         {T({1, 4, 6}, concat_rows({{0, 9, 0, 0, 4, 4}, {0, 7, 10, 10, 12, 12},
                                    {0, 6, 20, 20, 22, 22}, kFill}), 8)}),
      ok("negative_top_k_and_max_output_size_mean_unlimited",
         R"J({"top_k": "-5", "max_output_size": "-2147483648"})J", {limited, four},
         {T({1, 4, 6}, concat_rows({{0, 9, 0, 0, 4, 4}, {0, 7, 10, 10, 12, 12},
                                    {0, 6, 20, 20, 22, 22}, kFill}), 8)}),
      ok("valid_count_below_0_and_above_n", "{}", {two_batches, T({2}, {-3, 7}, 4)},
         {T({2, 2, 6}, concat_rows({kFill, kFill, {1, 9, 4, 4, 6, 6}, {1, 1, 0, 0, 2, 2}}), 8)}),
      ok("valid_count_limits_rows_considered", "{}",
         {T({1, 2, 6}, {0, 1, 0, 0, 1, 1, 0, 9, 5, 5, 6, 6}, 8), T({1}, {1}, 2)},
         {T({1, 2, 6}, concat_rows({{0, 1, 0, 0, 1, 1}, kFill}), 8)}),
      ok("valid_count_int32_max", "{}",
         {T({1, 2, 6}, {0, 1, 0, 0, 1, 1, 0, 9, 5, 5, 6, 6}, 8), T({1}, {2147483647}, 32)},
         {T({1, 2, 6}, {0, 9, 5, 5, 6, 6, 0, 1, 0, 0, 1, 1}, 8)}),
      ok("degenerate_and_inverted_boxes_never_suppress", R"J({"iou_threshold": "1"})J",
         {degenerate, four},
         {T({1, 4, 6}, concat_rows({{0, 9, 1, 1, 1, 1}, {0, 8, 4, 0, 0, 4}, {0, 7, 4, 4, 0, 0},
                                    {0, 6, 0, 0, 4, 4}}), 8)}),
      ok("identical_boxes_iou_100", R"J({"iou_threshold": "100"})J", {identical, two},
         {T({1, 2, 6}, concat_rows({{3, 5, 0, 0, 3, 3}, kFill}), 8)}),
      ok("iou_threshold_101_never_suppresses", R"J({"iou_threshold": "101"})J", {identical, two},
         {T({1, 2, 6}, {3, 5, 0, 0, 3, 3, 3, 4, 0, 0, 3, 3}, 8)}),
      ok("precision_30_large_overlap_branch_suppresses", R"J({"iou_threshold": "60"})J",
         {huge, two},
         {T({1, 2, 6}, concat_rows({{0, 9, -536870911, -536870911, 536870911, 536870908}, kFill}),
            30)}),
      ok("precision_30_large_overlap_branch_keeps", R"J({"iou_threshold": "61"})J", {huge, two},
         {T({1, 2, 6},
            {0, 9, -536870911, -536870911, 536870911, 536870908, 0, 8, -536870911, -536870911,
             107374184, 536870905}, 30)}),
      // The intersection 303014943 * 304386706 is exactly (2^63 - 1) / 100, the branch point:
      // 100 * I / U = 96 (the large branch's I / (U / 100) would give 97).
      ok("precision_30_overlap_at_the_branch_point_keeps", R"J({"iou_threshold": "97"})J",
         {T({1, 2, 6}, {0, 2, 0, 0, 305194364, 311559848, 0, 1, 0, 0, 303014943, 304386706}, 30),
          two},
         {T({1, 2, 6}, {0, 2, 0, 0, 305194364, 311559848, 0, 1, 0, 0, 303014943, 304386706},
            30)}),
      // I = 305000000^2, just above the branch point (where 100 * I overflows int64): 100.
      ok("precision_30_overlap_just_above_the_branch_point_suppresses", "{}",
         {T({1, 2, 6}, {0, 2, 0, 0, 305000000, 305000000, 0, 1, 0, 0, 305000000, 305000000}, 30),
          two},
         {T({1, 2, 6}, concat_rows({{0, 2, 0, 0, 305000000, 305000000}, kFill}), 30)}),
      ok("precision_1_output_precision_2", "{}",
         {T({1, 2, 6}, std::vector<int32_t>(12, 0), 1), T({1}, {1}, 2)},
         {T({1, 2, 6}, concat_rows({{0, 0, 0, 0, 0, 0}, kFill}), 2)}),
      ok("int8_inputs_iou_39", R"J({"iou_threshold": "39"})J", {small8, T8({1}, {2}, 3)},
         {T({1, 2, 6}, concat_rows({s0, kFill}), 8)}),
      ok("int8_inputs_default_threshold", "{}", {small8, T8({1}, {2}, 3)},
         {T({1, 2, 6}, concat_rows({s0, s1}), 8)}),
  };
}

std::vector<Example> nms_bad_examples() {
  const ExampleTensor x = T({1, 2, 6}, {0, 5, 0, 0, 4, 4, 0, 4, 0, 0, 4, 2}, 8);
  const ExampleTensor vc = T({1}, {2}, 3);
  return {
      bad("x_2d", "{}", {T({2, 6}, {0, 5, 0, 0, 4, 4, 0, 4, 0, 0, 4, 2}, 8), T({2}, {2, 2}, 3)}),
      bad("x_4d", "{}", {T({1, 1, 2, 6}, {0, 5, 0, 0, 4, 4, 0, 4, 0, 0, 4, 2}, 8), vc}),
      bad("x_last_dim_5", "{}", {T({1, 2, 5}, {0, 5, 0, 0, 4, 0, 4, 0, 0, 4}, 8), vc}),
      bad("x_last_dim_7", "{}", {T({1, 1, 7}, {0, 5, 0, 0, 4, 4, 0}, 8), vc}),
      bad("valid_count_2d", "{}", {x, T({1, 1}, {2}, 3)}),
      bad("valid_count_length_mismatch", "{}", {x, T({2}, {2, 2}, 3)}),
      bad("iou_threshold_0", R"J({"iou_threshold": "0"})J", {x, vc}),
      bad("iou_threshold_negative", R"J({"iou_threshold": "-1"})J", {x, vc}),
      bad("iou_threshold_int32_min", R"J({"iou_threshold": "-2147483648"})J", {x, vc}),
      bad("iou_threshold_above_int32", R"J({"iou_threshold": "2147483648"})J", {x, vc}),
      bad("x_precision_31", "{}", {T({1, 2, 6}, {0, 5, 0, 0, 4, 4, 0, 4, 0, 0, 4, 2}, 31), vc}),
      bad("x_precision_32", "{}", {T({1, 2, 6}, {0, 5, 0, 0, 4, 4, 0, 4, 0, 0, 4, 2}, 32), vc}),
      bad("coord_start_0", R"J({"coord_start": "0"})J", {x, vc}),
      bad("coord_start_3", R"J({"coord_start": "3"})J", {x, vc}),
      bad("score_index_0", R"J({"score_index": "0"})J", {x, vc}),
      bad("id_index_1", R"J({"id_index": "1"})J", {x, vc}),
      bad("id_index_minus_1", R"J({"id_index": "-1"})J", {x, vc}),
      bad("return_indices_true", R"J({"return_indices": "true"})J", {x, vc}),
      bad("invalid_to_bottom_false", R"J({"invalid_to_bottom": "False"})J", {x, vc}),
      bad("force_suppress_malformed", R"J({"force_suppress": "yes"})J", {x, vc}),
      bad("one_input", "{}", {x}),
      bad("three_inputs", "{}", {x, vc, vc}),
      bad("valid_count_outside_precision", "{}", {x, T({1}, {4}, 3)}),
  };
}

}  // namespace

std::vector<OpInfo> vision_ops() {
  OpInfo nms{"non_max_suppression", "vision", {}, 2, 2, nms_attrs(), nms_worked_examples()};
  for (Example& e : nms_bad_examples()) nms.examples.push_back(e);
  return {with_work(get_valid_counts_op(), box_pairs_work), with_work(nms, box_pairs_work)};
}

}  // namespace cvm::ops
